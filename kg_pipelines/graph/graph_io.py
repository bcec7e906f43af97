"""Bring your own graph: import and export ``kg_nodes`` / ``kg_edges`` as Parquet, CSV or JSON
(polars reads and writes; the format is told by the file's suffix: .parquet, .csv, .json, .jsonl).

Nodes: ``id``, ``name``, ``type`` required; ``description``, ``metadata`` (an object, or its JSON
text), ``created_at`` (ISO time or epoch milliseconds), ``energy`` (an object of per-source
figures, or its JSON text), ``base_weight`` optional; ``kind`` (default ``imported``) and
``topic_key`` (default ``type:<type>``) too, which export writes so that a round trip is exact.

Edges: the seed 002 system's own form, as it is: ``edgeId``, ``sourceId``, ``targetId``, ``type``,
``strength``, ``createdAt``, ``lastActivatedAt``, ``lastReinforcedAt`` (epoch milliseconds),
``activationCount``, ``createdBy``, ``explanation``, ``sourceTopicKey``, ``targetTopicKey``; plus
``protected`` (optional). ``sourceId`` / ``targetId`` / ``type`` are required; a missing
``edgeId`` becomes ``type:source->target``, a missing strength 1.0 (the seed's default).

Every row is checked first; any bad row is reported by its line (CSV: the file's line, header =
line 1; JSON array: the line its object starts on; JSON lines and Parquet: the row number) and
nothing is imported from a file that has one. The import is one transaction; imported nodes are
then embedded (name and description) into the ``graph_nodes`` vectors.

Export writes ``nodes.<fmt>`` and ``edges.<fmt>`` in these same forms, so export then import
gives the same graph.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from kg_pipelines.stores.warehouse import transaction

FORMATS = {".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
NODE_REQUIRED = ("id", "name", "type")
EDGE_REQUIRED = ("sourceId", "targetId", "type")
IMPORTED_BY = "import"


class GraphImportError(ValueError):
    """Bad input: every problem found, one per line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass
class ImportReport:
    nodes: int
    edges: int
    nodes_updated: int
    edges_updated: int
    embedded: int = 0


def file_format(path: Path) -> str:
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise GraphImportError([f"{path}: unknown format (use .parquet, .csv, .json or .jsonl)"])
    return fmt


def read_rows(path: Path) -> tuple[list[dict], list[int], str]:
    """(rows, line of each row, what a line number means) of a node or edge file."""
    path = Path(path)
    fmt = file_format(path)
    if not path.exists():
        raise GraphImportError([f"{path}: no such file"])
    try:
        if fmt == "parquet":
            frame = pl.read_parquet(path)
        elif fmt == "csv":
            frame = pl.read_csv(path, infer_schema=False)  # every column as text; values are checked below
        elif fmt == "jsonl":
            frame = pl.read_ndjson(path)
        else:
            frame = pl.read_json(path) if path.stat().st_size > 2 else pl.DataFrame()
    except Exception as exc:  # polars raises several error types for unreadable files
        raise GraphImportError([f"{path}: cannot be read as {fmt}: {str(exc).splitlines()[0]}"]) from exc
    rows = frame.to_dicts()
    if fmt == "csv":
        return rows, [i + 2 for i in range(len(rows))], "line"
    if fmt == "json":
        return rows, _json_array_lines(path.read_text(encoding="utf-8"), len(rows)), "line"
    return rows, [i + 1 for i in range(len(rows))], "row" if fmt == "parquet" else "line"


def _json_array_lines(text: str, count: int) -> list[int]:
    """The line on which each element of a JSON array starts."""
    decoder = json.JSONDecoder()
    lines, pos = [], text.index("[") + 1
    while len(lines) < count:
        while text[pos] in " \t\r\n,":
            pos += 1
        lines.append(text.count("\n", 0, pos) + 1)
        _, pos = decoder.raw_decode(text, pos)
    return lines


def _time(value, what: str, problems: list[str], where: str) -> datetime | None:
    if value is None or value == "":
        return None
    try:
        if isinstance(value, (int, float)) or (isinstance(value, str) and value.strip().lstrip("-").isdigit()):
            return datetime.fromtimestamp(float(value) / 1000.0, UTC)
        parsed = datetime.fromisoformat(str(value))
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        problems.append(f"{where}: {what} {value!r} is neither epoch milliseconds nor an ISO time")
        return None


def _number(value, what: str, problems: list[str], where: str, default=None, low=None, high=None):
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        problems.append(f"{where}: {what} {value!r} is not a number")
        return default
    if (low is not None and number < low) or (high is not None and number > high):
        problems.append(f"{where}: {what} {number:g} is outside [{low}, {high}]")
    return number


def _json_object(value, what: str, problems: list[str], where: str) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            problems.append(f"{where}: {what} is not valid JSON")
            return None
    if not isinstance(value, dict):
        problems.append(f"{where}: {what} must be an object")
        return None
    return json.dumps({k: v for k, v in value.items() if v is not None}, sort_keys=True)


def _text(value) -> str | None:
    return None if value is None else str(value)


class _RowCheck:
    """The rows of one nodes or edges file under check: each with where it is, and every problem found
    (the caller raises them all at once, so that nothing is imported from a file that has any)."""

    def __init__(self, path: Path, required: Sequence[str]):
        self.path, self.required = path, required
        self.rows, self.lines, self.unit = read_rows(path)
        self.problems: list[str] = []
        self._seen: dict[str, int] = {}

    def complete_rows(self):
        """(row, where, line) of each row that has every required field (a row missing one is a problem)."""
        for row, line in zip(self.rows, self.lines, strict=True):
            where = f"{self.path}: {self.unit} {line}"
            missing = [c for c in self.required if not str(row.get(c) or "").strip()]
            if missing:
                self.problems.append(f"{where}: missing {', '.join(missing)}")
                continue
            yield row, where, line

    def first_time(self, kind: str, key: str, where: str, line: int) -> bool:
        """True the first time ``key`` comes; after that a problem naming the row that had it first."""
        if key in self._seen:
            self.problems.append(f"{where}: {kind} {key!r} repeats the one on {self.unit} {self._seen[key]}")
            return False
        self._seen[key] = line
        return True

    def raise_problems(self) -> None:
        if self.problems:
            raise GraphImportError(self.problems)


def parse_nodes(path: Path, now: datetime) -> list[dict]:
    check = _RowCheck(path, NODE_REQUIRED)
    problems = check.problems
    nodes = []
    for row, where, line in check.complete_rows():
        node_id = str(row["id"])
        if not check.first_time("node id", node_id, where, line):
            continue
        nodes.append(
            {
                "node_id": node_id,
                "node_kind": str(row.get("kind") or "imported"),
                "node_type": str(row["type"]),
                "name": str(row["name"]),
                "description": _text(row.get("description")),
                "topic_key": str(row.get("topic_key") or "type:" + str(row["type"])),
                "energy": _json_object(row.get("energy"), "energy", problems, where) or "{}",
                "base_weight": _number(row.get("base_weight"), "base_weight", problems, where, 1.0),
                "support_count": 0,
                "created_by": IMPORTED_BY,
                "created_at": _time(row.get("created_at"), "created_at", problems, where) or now,
                "updated_at": now,
                "metadata": _json_object(row.get("metadata"), "metadata", problems, where) or "{}",
                "merge_history": "[]",
            }
        )
    check.raise_problems()
    return nodes


def parse_edges(path: Path, now: datetime, node_ids: set[str]) -> list[dict]:
    check = _RowCheck(path, EDGE_REQUIRED)
    problems = check.problems
    edges = []
    for row, where, line in check.complete_rows():
        source, target, edge_type = str(row["sourceId"]), str(row["targetId"]), str(row["type"])
        unknown = [n for n in (source, target) if n not in node_ids]
        if unknown:
            problems.append(f"{where}: unknown node(s) {', '.join(unknown)} (not in the nodes file nor the graph)")
        edge_id = str(row.get("edgeId") or f"{edge_type}:{source}->{target}")
        if not check.first_time("edge id", edge_id, where, line):
            continue
        count = _number(row.get("activationCount"), "activationCount", problems, where, 0, low=0)
        protected = row.get("protected")
        if isinstance(protected, str):
            protected = protected.strip().lower() in {"true", "1", "yes"}
        edges.append(
            {
                "edge_id": edge_id,
                "source_id": source,
                "target_id": target,
                "edge_type": edge_type,
                "strength": _number(row.get("strength"), "strength", problems, where, 1.0, low=0, high=1),
                "activation_count": int(count or 0),
                "created_at": _time(row.get("createdAt"), "createdAt", problems, where) or now,
                "last_activated_at": _time(row.get("lastActivatedAt"), "lastActivatedAt", problems, where),
                "last_reinforced_at": _time(row.get("lastReinforcedAt"), "lastReinforcedAt", problems, where),
                "created_by": str(row.get("createdBy") or IMPORTED_BY),
                "protected": bool(protected),
                "explanation": _text(row.get("explanation")),
                "keywords": [],
                "source_topic_key": _text(row.get("sourceTopicKey")),
                "target_topic_key": _text(row.get("targetTopicKey")),
                "support_count": 0,
            }
        )
    check.raise_problems()
    return edges


def import_graph(conn, nodes_path: Path, edges_path: Path, now: datetime | None = None) -> ImportReport:
    """Check both files, then write their nodes and edges in one transaction (rows whose id exists
    are replaced). Raises ``GraphImportError`` with every problem, having written nothing."""
    import pyarrow as pa

    now = now or datetime.now(UTC)
    nodes = parse_nodes(Path(nodes_path), now)
    known = {n["node_id"] for n in nodes} | {r[0] for r in conn.execute("SELECT node_id FROM kg_nodes").fetchall()}
    edges = parse_edges(Path(edges_path), now, known)
    with transaction(conn):
        counts = []
        for table, key, rows in (("kg_nodes", "node_id", nodes), ("kg_edges", "edge_id", edges)):
            ids = [r[key] for r in rows]
            existing = conn.execute(
                f"SELECT count(*) FROM {table} WHERE {key} IN (SELECT unnest(?::VARCHAR[]))", [ids]
            ).fetchall()[0][0]
            conn.execute(f"DELETE FROM {table} WHERE {key} IN (SELECT unnest(?::VARCHAR[]))", [ids]).fetchall()
            if rows:
                conn.register("_imported", pa.Table.from_pylist(rows))
                conn.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _imported").fetchall()
                conn.unregister("_imported")
            counts.append(existing)
    return ImportReport(len(nodes), len(edges), counts[0], counts[1])


def export_graph(conn, directory: Path, fmt: str = "parquet") -> tuple[Path, Path]:
    """Write ``nodes.<fmt>`` and ``edges.<fmt>`` (fmt: parquet, csv, json, jsonl) under ``directory``."""
    if fmt not in {"parquet", "csv", "json", "jsonl"}:
        raise ValueError(f"unknown format {fmt!r}: parquet, csv, json or jsonl")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    nodes = pl.from_arrow(
        conn.sql(
            """SELECT node_id AS id, name, node_type AS type, description, CAST(metadata AS VARCHAR) AS metadata,
                      strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%f+00:00') AS created_at,
                      CAST(energy AS VARCHAR) AS energy, base_weight, node_kind AS kind, topic_key
               FROM kg_nodes ORDER BY node_id"""
        ).fetch_arrow_table()
    )
    edges = pl.from_arrow(
        conn.sql(
            """SELECT edge_id AS edgeId, source_id AS sourceId, target_id AS targetId, edge_type AS type, strength,
                      epoch_ms(created_at) AS createdAt, epoch_ms(last_activated_at) AS lastActivatedAt,
                      epoch_ms(last_reinforced_at) AS lastReinforcedAt, activation_count AS activationCount,
                      created_by AS createdBy, explanation, source_topic_key AS sourceTopicKey,
                      target_topic_key AS targetTopicKey, protected
               FROM kg_edges ORDER BY edge_id"""
        ).fetch_arrow_table()
    )
    suffix = {"parquet": ".parquet", "csv": ".csv", "json": ".json", "jsonl": ".jsonl"}[fmt]
    paths = (directory / f"nodes{suffix}", directory / f"edges{suffix}")
    for frame, path in zip((nodes, edges), paths, strict=True):
        if fmt == "parquet":
            frame.write_parquet(path)
        elif fmt == "csv":
            frame.write_csv(path)
        elif fmt == "jsonl":
            frame.write_ndjson(path)
        else:
            path.write_text(json.dumps(frame.to_dicts(), indent=1, default=str), encoding="utf-8")
    return paths
