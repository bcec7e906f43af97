"""What a person decides about duplicate pairs, in two files of the data dir.

``never_merge.txt`` (the seed's NEVER_MERGE_PAIRS), edited by hand. One pair a line, the two names
separated by ``|``; an optional node type before a colon limits the pair to that type; ``#`` starts
a comment. Names are compared lower-cased with ``_`` as a space::

    # general concept vs. specific mechanism
    consciousness | consciousness_engine
    protein: p53 | p53 pathway

``dedup_decisions.csv``, written by detection and completed by a person. Detection appends each
grey-zone pair it cannot decide (offline, or the LLM failed) with an empty ``decision``; a person
writes ``same`` (merge it at the next pass) or ``distinct`` (never propose it again). Columns:
``node_a, node_b, name_a, name_b, score, decision, note``. Rows a person filled are never rewritten
by detection. ``kg-pipelines unmerge`` is a person's word too: it writes the pair it splits as
``distinct`` (``record_distinct``, the same operation as the unmerge), so no later pass, periodic
or at formation time, merges the two again; a person who changes their mind writes ``same``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from kg_pipelines.graph.node_similarity import normalized_name
from kg_pipelines.stores.files import write_text_atomically

DECISION_COLUMNS = ["node_a", "node_b", "name_a", "name_b", "score", "decision", "note"]
SAME, DISTINCT = "same", "distinct"


class ExclusionFileError(ValueError):
    pass


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


@dataclass
class MergeExclusions:
    never_merge: set[tuple[str | None, str, str]] = field(default_factory=set)  # (type or None, name, name)
    decisions: dict[tuple[str, str], str] = field(default_factory=dict)  # (node id, node id) -> same / distinct

    def never(self, node_type: str, name_a: str, name_b: str) -> bool:
        a, b = _pair(normalized_name(name_a), normalized_name(name_b))
        return (None, a, b) in self.never_merge or (node_type.lower(), a, b) in self.never_merge

    def decision(self, node_a: str, node_b: str) -> str | None:
        return self.decisions.get(_pair(node_a, node_b))


def read_never_merge(path: Path) -> set[tuple[str | None, str, str]]:
    pairs: set[tuple[str | None, str, str]] = set()
    if not path.exists():
        return pairs
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        node_type = None
        if ":" in line.split("|", 1)[0]:
            node_type, line = (part.strip() for part in line.split(":", 1))
            node_type = node_type.lower()
        names = [n.strip() for n in line.split("|")]
        if len(names) != 2 or not all(names):
            raise ExclusionFileError(f"{path}:{number}: expected `name | name` (optionally `type: name | name`)")
        a, b = _pair(normalized_name(names[0]), normalized_name(names[1]))
        pairs.add((node_type, a, b))
    return pairs


def read_decisions(path: Path) -> tuple[dict[tuple[str, str], str], list[dict]]:
    """(pair -> same / distinct, every row as read)."""
    if not path.exists():
        return {}, []
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    decided: dict[tuple[str, str], str] = {}
    for number, row in enumerate(rows, start=2):
        value = (row.get("decision") or "").strip().lower()
        if not row.get("node_a") or not row.get("node_b"):
            raise ExclusionFileError(f"{path}:{number}: node_a and node_b are required")
        if value and value not in (SAME, DISTINCT):
            raise ExclusionFileError(f"{path}:{number}: decision must be `same`, `distinct` or empty, not {value!r}")
        if value:
            decided[_pair(row["node_a"], row["node_b"])] = value
    return decided, rows


def load_exclusions(data_dir: Path, never_merge_file: str, decisions_file: str) -> MergeExclusions:
    decided, _ = read_decisions(data_dir / decisions_file)
    return MergeExclusions(read_never_merge(data_dir / never_merge_file), decided)


def _write_rows(path: Path, rows: list[dict]) -> None:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=DECISION_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: row.get(c) or "" for c in DECISION_COLUMNS})
    write_text_atomically(path, text.getvalue())


def record_distinct(path: Path, pairs: list[dict], note: str) -> int:
    """Mark each pair (dicts with node_a, node_b, name_a, name_b, optional score) ``distinct``: its
    row is updated (whatever its decision was) or appended; the file is replaced atomically, other
    rows kept as they are. Returns the rows written."""
    _, rows = read_decisions(path)
    by_pair = {_pair(r["node_a"], r["node_b"]): r for r in rows}
    for pair in pairs:
        row = by_pair.get(_pair(pair["node_a"], pair["node_b"]))
        if row is None:
            row = {c: pair.get(c, "") for c in DECISION_COLUMNS}
            score = pair.get("score")
            row["score"] = "" if score is None else f"{float(score):.4f}"
            rows.append(row)
            by_pair[_pair(pair["node_a"], pair["node_b"])] = row
        row["decision"], row["note"] = DISTINCT, note
    if pairs:
        _write_rows(path, rows)
    return len(pairs)


def append_review_pairs(path: Path, pairs: list[dict]) -> int:
    """Add grey-zone pairs (dicts with node_a, node_b, name_a, name_b, score) not yet in the file,
    with an empty decision; the file is replaced atomically, rows already there are kept as they are."""
    _, rows = read_decisions(path)
    known = {_pair(r["node_a"], r["node_b"]) for r in rows}
    new = [p for p in pairs if _pair(p["node_a"], p["node_b"]) not in known]
    if not new:
        return 0
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=DECISION_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: row.get(c, "") for c in DECISION_COLUMNS})
    for pair in new:
        writer.writerow(
            {
                **{c: pair.get(c, "") for c in DECISION_COLUMNS},
                "score": f"{pair['score']:.4f}",
                "decision": "",
                "note": "grey zone: write same or distinct",
            }
        )
    write_text_atomically(path, text.getvalue())
    return len(new)
