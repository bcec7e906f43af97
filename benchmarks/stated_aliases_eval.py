"""How much recall the stated-alias rule adds, and at what precision, on BioRED (PubTator format).

    python benchmarks/stated_aliases_eval.py ../shared/datasets/biomedical/

Per abstract (title + abstract), mention strings are grouped by the graph's node key (case- and
separator-insensitive, as ``kg_nodes`` keys entities): strings of one key are one node already.
- gold pairs: two keys of one abstract whose mentions share a database id (the synonyms the graph
  should join), e.g. "Iodide transport defect" / "ITD";
- rule pairs: for each statement ``find_stated_aliases`` finds in the abstract, the longest key of
  each side that is a mention key of the abstract (the pipeline merges only names that are nodes);
- recall: gold pairs the rule pairs, directly, and after chaining the rule's pairs within the
  abstract (A = B and B = C join A and C, as merges in the graph do);
- precision: rule pairs whose two keys share a database id.

``--paper`` also measures the rule as published (short forms with spaces, lower-case words, and
citation-like parentheses allowed; no Greek letter spelling), to show what the deviations buy.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg_pipelines.graph import stated_aliases as sa  # noqa: E402
from kg_pipelines.graph.stated_aliases import ABBREVIATION, find_stated_aliases, name_key  # noqa: E402


@dataclass
class Abstract:
    pmid: str
    text: str
    ids: dict[str, set[str]]  # mention key -> database ids


def read_pubtator(path: Path) -> list[Abstract]:
    out: list[Abstract] = []
    title = abstract = pmid = None
    ids: dict[str, set[str]] = defaultdict(set)
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            if pmid is not None:
                out.append(Abstract(pmid, f"{title}\n{abstract}", dict(ids)))
            title = abstract = pmid = None
            ids = defaultdict(set)
            continue
        if "|t|" in line[:20]:
            pmid, _, title = line.split("|", 2)
        elif "|a|" in line[:20]:
            abstract = line.split("|", 2)[2]
        else:
            parts = line.split("\t")
            if len(parts) == 6 and parts[1].isdigit():
                key = name_key(parts[3])
                found = {i.strip() for i in parts[5].replace(";", ",").split(",") if i.strip() not in ("", "-")}
                if key:
                    ids[key] |= found
    return out


def gold_pairs(doc: Abstract) -> set[frozenset[str]]:
    keys = sorted(doc.ids)
    return {frozenset((a, b)) for i, a in enumerate(keys) for b in keys[i + 1 :] if doc.ids[a] & doc.ids[b]}


def rule_pairs(doc: Abstract) -> tuple[set[frozenset[str]], int, dict[str, int]]:
    """(pairs of mention keys, statements found, statements by kind)."""
    pairs, kinds = set(), defaultdict(int)
    statements = find_stated_aliases(doc.text)
    for s in statements:
        kinds[s.kind] += 1
        a = next((k for k in s.keys_a if k in doc.ids), None)
        b = next((k for k in s.keys_b if k in doc.ids), None)
        if a and b and a != b:
            pairs.add(frozenset((a, b)))
    return pairs, len(statements), kinds


def chained(pairs: set[frozenset[str]]) -> dict[str, str]:
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for pair in pairs:
        a, b = sorted(pair)
        parent[find(a)] = find(b)
    return {x: find(x) for x in list(parent)}


def evaluate(docs: list[Abstract]) -> dict:
    gold_n = direct = closure = judged = right = statements = 0
    kinds: dict[str, int] = defaultdict(int)
    wrong: list[tuple[str, str, str]] = []
    for doc in docs:
        gold = gold_pairs(doc)
        found, n, by_kind = rule_pairs(doc)
        statements += n
        for kind, count in by_kind.items():
            kinds[kind] += count
        roots = chained(found)
        gold_n += len(gold)
        direct += len(gold & found)
        closure += sum(1 for g in gold if len({roots.get(k, k) for k in g}) == 1 and all(k in roots for k in g))
        judged += len(found)
        for pair in found:
            a, b = sorted(pair)
            if doc.ids[a] & doc.ids[b]:
                right += 1
            else:
                wrong.append((doc.pmid, a, b))
    return {
        "abstracts": len(docs),
        "gold_pairs": gold_n,
        "statements": statements,
        "abbreviations": kinds[ABBREVIATION],
        "cues": kinds[sa.CUE],
        "rule_pairs": judged,
        "recall_direct": direct / gold_n if gold_n else 0.0,
        "recall_chained": closure / gold_n if gold_n else 0.0,
        "precision": right / judged if judged else 0.0,
        "wrong": wrong,
    }


@contextmanager
def paper_rule():
    """The rule as published: no precision deviations (see the module doc of stated_aliases)."""
    saved = (sa.is_valid_short_form, sa._CITATION, sa._spelled)
    sa.is_valid_short_form = lambda s: (
        2 <= len(s) <= sa.MAX_SHORT_FORM_CHARS and any(c.isalpha() for c in s) and s[0].isalnum()
    )
    sa._CITATION = sa.re.compile(r"(?!)")
    sa._spelled = lambda text: text
    try:
        yield
    finally:
        sa.is_valid_short_form, sa._CITATION, sa._spelled = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="folder with Train.PubTator and Dev.PubTator")
    parser.add_argument("--paper", action="store_true", help="also measure the rule as published")
    parser.add_argument("--show-wrong", type=int, default=0, help="print this many wrong pairs per split")
    args = parser.parse_args()
    variants = [("this rule", None)] + ([("paper rule", paper_rule)] if args.paper else [])
    print(
        "| split | rule | abstracts | gold synonym pairs | statements (abbr. / cue) | rule pairs "
        "| precision | recall (direct) | recall (chained) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    shown = []
    for split in ("Train", "Dev"):
        path = args.folder / f"{split}.PubTator"
        if not path.exists():
            sys.exit(f"{path} not found: give the folder holding BioRED's Train.PubTator and Dev.PubTator")
        docs = read_pubtator(path)
        for label, context in variants:
            if context is None:
                r = evaluate(docs)
            else:
                with context():
                    r = evaluate(docs)
            print(
                f"| {split} | {label} | {r['abstracts']} | {r['gold_pairs']} | {r['statements']} "
                f"({r['abbreviations']} / {r['cues']}) | {r['rule_pairs']} | {r['precision']:.3f} "
                f"| {r['recall_direct']:.3f} | {r['recall_chained']:.3f} |"
            )
            if label == "this rule":
                shown += [(split, *w) for w in r["wrong"][: args.show_wrong]]
    for split, pmid, a, b in shown:
        print(f"wrong ({split} {pmid}): {a!r} / {b!r}")


if __name__ == "__main__":
    main()
