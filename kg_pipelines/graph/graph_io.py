"""Bring your own graph: import and export ``kg_nodes`` / ``kg_edges`` as Parquet, CSV or JSON. The
format is told by the file's suffix: .parquet, .csv, .json (one array of objects), .jsonl.

Every file is read against an explicit schema (``NODE_SCHEMA``, ``EDGE_SCHEMA``: each field and
the kind of value it holds), never a schema inferred from the first rows: a field may appear on any
record, or on none. A field the schema does not know is left out and named in the report.

Nodes: ``id``, ``name``, ``type`` required; ``description``, ``kind`` (default ``imported``),
``topic_key`` (default ``type:<type>``), ``metadata`` and ``energy`` (an object, or its JSON text;
default ``{}``), ``base_weight`` (default 1.0), ``support_count``, ``created_by`` (default
``import``), ``created_at`` / ``updated_at`` (ISO time or epoch milliseconds; default: the import's
time), ``merge_history`` (an array, or its JSON text; default ``[]``) and ``support`` (the node's
provenance: an array of ``{document_id, chunk_id, collection, name, description}``).

Edges: the seed 002 system's own form, as it is: ``edgeId``, ``sourceId``, ``targetId``, ``type``,
``strength``, ``createdAt``, ``lastActivatedAt``, ``lastReinforcedAt`` (epoch milliseconds, or ISO
time), ``activationCount``, ``createdBy``, ``explanation``, ``sourceTopicKey``, ``targetTopicKey``;
plus ``protected``, ``keywords`` (an array of strings), ``supportCount`` and ``support`` (an array
of ``{documentId, chunkId, collection, explanation, keywords}``). ``sourceId`` / ``targetId`` /
``type`` are required; a missing ``edgeId`` becomes ``type:source->target``, a missing strength 1.0
(the seed's default), a missing ``createdBy`` ``import``.

A field that is absent takes its default; a field that is present and null stays null where the
column admits it (``description``, ``topic_key``, ``keywords``, ...). ``support`` given replaces the
row's provenance rows (``kg_node_support`` / ``kg_edge_support``) and sets its support count (a
``support_count`` that disagrees with it is a problem); without it, provenance rows already in the
graph are kept and the count is the one given, else the number of those rows.

Every row of both files is checked first; every problem of both files is reported, each by its
line (CSV: the file's line, header = line 1; JSON: the line its object starts on; JSON lines: the
line; Parquet: the row number), and nothing is imported when there is any. The import is one
transaction; imported nodes are then embedded (name and description) into the ``graph_nodes``
vectors by the caller.

Export writes ``nodes.<fmt>`` and ``edges.<fmt>`` in these same forms with every column and the
provenance rows (times with their microseconds: ISO text for nodes, epoch milliseconds with a
fraction for edges), so export then import into an empty graph gives the same ``kg_nodes``,
``kg_edges``, ``kg_node_support`` and ``kg_edge_support``, column for column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

import polars as pl
import pyarrow as pa

from kg_pipelines.stores.warehouse import transaction

FORMATS = {".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
IMPORTED_BY = "import"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# The explicit schemas: field -> kind of value. Kinds: text, number, count, flag, time, object (a
# JSON object or its text), array (a JSON array or its text), texts (an array of strings or its
# JSON text), support (an array of provenance objects or its JSON text).
NODE_SCHEMA: dict[str, str] = {
    "id": "text",
    "name": "text",
    "type": "text",
    "description": "text",
    "kind": "text",
    "topic_key": "text",
    "metadata": "object",
    "energy": "object",
    "base_weight": "number",
    "support_count": "count",
    "created_by": "text",
    "created_at": "time",
    "updated_at": "time",
    "merge_history": "array",
    "support": "support",
}
EDGE_SCHEMA: dict[str, str] = {
    "edgeId": "text",
    "sourceId": "text",
    "targetId": "text",
    "type": "text",
    "strength": "number",
    "createdAt": "time",
    "lastActivatedAt": "time",
    "lastReinforcedAt": "time",
    "activationCount": "count",
    "createdBy": "text",
    "explanation": "text",
    "sourceTopicKey": "text",
    "targetTopicKey": "text",
    "protected": "flag",
    "keywords": "texts",
    "supportCount": "count",
    "support": "support",
}
NODE_REQUIRED = ("id", "name", "type")
EDGE_REQUIRED = ("sourceId", "targetId", "type")
# a provenance row in a file -> its kg_*_support column (document_id, chunk_id, collection required)
NODE_SUPPORT_FIELDS = {
    "document_id": "document_id",
    "chunk_id": "chunk_id",
    "collection": "collection",
    "name": "name",
    "description": "description",
}
EDGE_SUPPORT_FIELDS = {
    "documentId": "document_id",
    "chunkId": "chunk_id",
    "collection": "collection",
    "explanation": "explanation",
    "keywords": "keywords",
}
SUPPORT_REQUIRED = ("document_id", "chunk_id", "collection")

_TS = pa.timestamp("us", tz="UTC")
NODE_ARROW = pa.schema(
    [
        ("node_id", pa.string()),
        ("node_kind", pa.string()),
        ("node_type", pa.string()),
        ("name", pa.string()),
        ("description", pa.string()),
        ("topic_key", pa.string()),
        ("energy", pa.string()),
        ("base_weight", pa.float64()),
        ("support_count", pa.int32()),
        ("created_by", pa.string()),
        ("created_at", _TS),
        ("updated_at", _TS),
        ("metadata", pa.string()),
        ("merge_history", pa.string()),
    ]
)
EDGE_ARROW = pa.schema(
    [
        ("edge_id", pa.string()),
        ("source_id", pa.string()),
        ("target_id", pa.string()),
        ("edge_type", pa.string()),
        ("strength", pa.float64()),
        ("activation_count", pa.int32()),
        ("created_at", _TS),
        ("last_activated_at", _TS),
        ("last_reinforced_at", _TS),
        ("created_by", pa.string()),
        ("protected", pa.bool_()),
        ("explanation", pa.string()),
        ("keywords", pa.list_(pa.string())),
        ("source_topic_key", pa.string()),
        ("target_topic_key", pa.string()),
        ("support_count", pa.int32()),
    ]
)
NODE_SUPPORT_ARROW = pa.schema(
    [(c, pa.string()) for c in ("node_id", "document_id", "chunk_id", "collection", "name", "description")]
)
EDGE_SUPPORT_ARROW = pa.schema(
    [(c, pa.string()) for c in ("edge_id", "document_id", "chunk_id", "collection", "explanation")]
    + [("keywords", pa.list_(pa.string()))]
)
_NUMBER_TEXT = re.compile(r"^\s*-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$")


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
    node_support: int = 0  # provenance rows written
    edge_support: int = 0
    ignored_fields: list[str] = field(default_factory=list)  # "<file>: <field>" the schemas do not know


def file_format(path: Path) -> str:
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise GraphImportError([f"{path}: unknown format (use .parquet, .csv, .json or .jsonl)"])
    return fmt


# -- reading ------------------------------------------------------------------------------------------


@dataclass
class _Record:
    values: dict
    where: str
    line: int


class _FileRows:
    """The records of one nodes or edges file, read against ``schema``, and the problems found."""

    def __init__(self, path: Path, schema: dict[str, str], required: tuple[str, ...]):
        self.path, self.schema, self.required = Path(path), schema, required
        self.records: list[_Record] = []
        self.problems: list[str] = []
        self.unknown_fields: set[str] = set()
        self.readable = False
        self._seen: dict[str, int] = {}
        self.unit = "line"
        try:
            self.fmt = file_format(self.path)
        except GraphImportError as exc:
            self.problems.extend(exc.problems)
            return
        if not self.path.exists():
            self.problems.append(f"{self.path}: no such file")
            return
        self.readable = self._read()

    def _read(self) -> bool:
        try:
            if self.fmt == "parquet":
                self.unit = "row"
                rows = pl.read_parquet(self.path).to_dicts()
                entries = ((row, i + 1) for i, row in enumerate(rows))
            elif self.fmt == "csv":  # every column as text: values are checked by the schema below
                rows = pl.read_csv(self.path, infer_schema=False).to_dicts()
                entries = ((row, i + 2) for i, row in enumerate(rows))
            elif self.fmt == "jsonl":
                entries = self._json_lines()
            else:
                entries = self._json_array()
            for values, line in entries:
                self._add(values, line)
        except _Unreadable as exc:
            self.problems.append(f"{self.path}: {exc}")
            return False
        except Exception as exc:  # polars raises several error types for unreadable files
            self.problems.append(f"{self.path}: cannot be read as {self.fmt}: {str(exc).splitlines()[0]}")
            return False
        return True

    def _json_lines(self) -> Iterator[tuple[object, int]]:
        with self.path.open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if not text.strip():
                    continue
                try:
                    yield json.loads(text), number
                except ValueError as exc:
                    self.problems.append(f"{self.path}: line {number}: not valid JSON ({exc.args[0].split(':')[0]})")

    def _json_array(self) -> Iterator[tuple[object, int]]:
        """Each element of the file's JSON array with the line it starts on."""
        text = self.path.read_text(encoding="utf-8")
        decoder = json.JSONDecoder()
        start = len(text) - len(text.lstrip())
        if text[start : start + 1] != "[":
            raise _Unreadable("cannot be read as json: the file is not a JSON array of objects")
        pos, expect_value = start + 1, True
        line, counted = 1, 0  # the line of ``counted``: newlines are counted once, as the scan moves on
        while True:
            while pos < len(text) and text[pos] in " \t\r\n":
                pos += 1
            if pos >= len(text):
                raise _Unreadable("cannot be read as json: the array is not closed")
            if text[pos] == "]":
                return
            if text[pos] == "," and not expect_value:
                pos, expect_value = pos + 1, True
                continue
            line, counted = line + text.count("\n", counted, pos), pos
            try:
                value, pos = decoder.raw_decode(text, pos)
            except ValueError as exc:
                raise _Unreadable(f"line {line}: not valid JSON ({exc.args[0].split(':')[0]})") from exc
            expect_value = False
            yield value, line

    def _add(self, values: object, line: int) -> None:
        where = f"{self.path}: {self.unit} {line}"
        if not isinstance(values, dict):
            self.problems.append(f"{where}: a record must be an object")
            return
        self.unknown_fields.update(k for k in values if k not in self.schema)
        self.records.append(_Record(values, where, line))

    def complete_records(self) -> Iterator[_Record]:
        """Each record that has every required field (a record missing one is a problem)."""
        for record in self.records:
            missing = [c for c in self.required if not str(record.values.get(c) or "").strip()]
            if missing:
                self.problems.append(f"{record.where}: missing {', '.join(missing)}")
                continue
            yield record

    def first_time(self, kind: str, key: str, record: _Record) -> bool:
        """True the first time ``key`` comes; after that a problem naming the row that had it first."""
        if key in self._seen:
            self.problems.append(f"{record.where}: {kind} {key!r} repeats the one on {self.unit} {self._seen[key]}")
            return False
        self._seen[key] = record.line
        return True


class _Unreadable(Exception):
    pass


# -- values -----------------------------------------------------------------------------------------


class _Values:
    """Converts the fields of one record by their schema kind, noting each problem with the record's place."""

    def __init__(self, record: _Record, problems: list[str], from_parquet: bool):
        self.values, self.where, self.problems, self.from_parquet = record.values, record.where, problems, from_parquet

    def given(self, name: str) -> bool:
        return name in self.values

    def raw(self, name: str):
        return self.values.get(name)

    def problem(self, text: str) -> None:
        self.problems.append(f"{self.where}: {text}")

    def text(self, name: str, default: str | None = None) -> str | None:
        if not self.given(name):
            return default
        value = self.values[name]
        if value is None:
            return None
        if isinstance(value, (dict, list)):
            self.problem(f"{name} must be text, not {type(value).__name__}")
            return default
        return str(value)

    def number(self, name: str, default: float | None, low: float | None = None, high: float | None = None):
        value = self.values.get(name)
        if value is None or value == "":
            return default
        if isinstance(value, bool):
            self.problem(f"{name} {value!r} is not a number")
            return default
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.problem(f"{name} {value!r} is not a number")
            return default
        if number != number or (low is not None and number < low) or (high is not None and number > high):
            bounds = f"outside [{low}, {high}]" if high is not None else f"below {low}"
            self.problem(f"{name} {number:g} is {bounds}")
        return number

    def count(self, name: str) -> int | None:
        number = self.number(name, None, low=0)
        if number is None:
            return None
        if number != int(number) or number > 2**31 - 1:
            self.problem(f"{name} {self.values[name]!r} is not a whole number")
            return None
        return int(number)

    def flag(self, name: str) -> bool:
        value = self.values.get(name)
        if value is None or value == "":
            return False
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in {"true", "1", "yes"}:
            return True
        if text in {"false", "0", "no"}:
            return False
        self.problem(f"{name} {value!r} is not true or false")
        return False

    def time(self, name: str) -> datetime | None:
        """Epoch milliseconds (a number, or its text; a fraction gives microseconds) or ISO time."""
        value = self.values.get(name)
        if value is None or value == "":
            return None
        try:
            if isinstance(value, datetime):
                return value if value.tzinfo else value.replace(tzinfo=UTC)
            if isinstance(value, bool):
                raise ValueError(value)
            if isinstance(value, (int, float)):
                micros = round(Fraction(value) * 1000)
            elif _NUMBER_TEXT.match(str(value)):
                micros = int((Decimal(str(value).strip()) * 1000).to_integral_value())
            else:
                parsed = datetime.fromisoformat(str(value).strip())
                return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
            return EPOCH + timedelta(microseconds=micros)
        except (ValueError, OverflowError, ArithmeticError, InvalidOperation):
            self.problem(f"{name} {value!r} is neither epoch milliseconds nor an ISO time")
            return None

    def _json(self, name: str, want: type, what: str):
        """(the JSON value, its text): text is kept as written, a value is written as JSON."""
        value = self.values.get(name)
        if value is None:
            return None, None
        text = None
        if isinstance(value, str):
            text = value
            try:
                value = json.loads(value)
            except ValueError:
                self.problem(f"{name} is not valid JSON")
                return None, None
        if not isinstance(value, want):
            self.problem(f"{name} must be {what}")
            return None, None
        if text is None:
            if self.from_parquet and isinstance(value, dict):  # a struct column gives every key on every row
                value = {k: v for k, v in value.items() if v is not None}
            text = json.dumps(value, sort_keys=isinstance(value, dict))
        return value, text

    def json_object(self, name: str, default: str | None) -> str | None:
        if not self.given(name):
            return default
        return self._json(name, dict, "an object")[1]

    def json_array(self, name: str, default: str | None) -> str | None:
        if not self.given(name):
            return default
        return self._json(name, list, "an array")[1]

    def texts(self, name: str, default: list | None) -> list[str] | None:
        if not self.given(name):
            return default
        value = self._json(name, list, "an array of strings")[0]
        if value is None:
            return None
        if not all(isinstance(v, str) for v in value):
            self.problem(f"{name} must be an array of strings")
            return default
        return value

    def support(self, name: str, fields: dict[str, str], key: str, key_value: str) -> list[dict] | None:
        """Provenance rows, or None when the record gives none (``support`` absent or null)."""
        items = self._json(name, list, "an array of provenance objects")[0] if self.given(name) else None
        if items is None:
            return None
        rows = []
        for i, item in enumerate(items, 1):
            if not isinstance(item, dict):
                self.problem(f"{name}[{i}] must be an object")
                continue
            row = {key: key_value} | {column: item.get(source) for source, column in fields.items()}
            missing = [src for src, column in fields.items() if column in SUPPORT_REQUIRED and not row[column]]
            if missing:
                self.problem(f"{name}[{i}]: missing {', '.join(missing)}")
                continue
            for column in ("document_id", "chunk_id", "collection", "name", "description", "explanation"):
                if row.get(column) is not None:
                    row[column] = str(row[column])
            if "keywords" in row and row["keywords"] is not None:
                if not isinstance(row["keywords"], list) or not all(isinstance(k, str) for k in row["keywords"]):
                    self.problem(f"{name}[{i}]: keywords must be an array of strings")
                    continue
            rows.append(row)
        return rows


# -- parsing ----------------------------------------------------------------------------------------


@dataclass
class _Parsed:
    rows: list[dict]
    support: list[dict]  # provenance rows of the records that gave them
    support_given: list[str]  # ids whose provenance the file replaces
    count_missing: list[str]  # ids whose support count is the graph's rows


def _support_count(values: _Values, name: str, support: list[dict] | None, parsed: _Parsed, row_id: str) -> int:
    given = values.count(name)
    if support is not None:
        parsed.support.extend(support)
        parsed.support_given.append(row_id)
        if given is not None and given != len(support):
            values.problem(f"{name} {given} disagrees with the {len(support)} support row(s) given")
        return len(support)
    if given is None:
        parsed.count_missing.append(row_id)
        return 0
    return given


def _parse_nodes(rows: _FileRows, now: datetime) -> _Parsed:
    parsed = _Parsed([], [], [], [])
    for record in rows.complete_records():
        node_id = str(record.values["id"])
        if not rows.first_time("node id", node_id, record):
            continue
        v = _Values(record, rows.problems, rows.fmt == "parquet")
        node_type = str(record.values["type"])
        support = v.support("support", NODE_SUPPORT_FIELDS, "node_id", node_id)
        parsed.rows.append(
            {
                "node_id": node_id,
                "node_kind": v.text("kind") or "imported",
                "node_type": node_type,
                "name": str(record.values["name"]),
                "description": v.text("description"),
                "topic_key": v.text("topic_key", "type:" + node_type),
                "energy": v.json_object("energy", "{}"),
                "base_weight": v.number("base_weight", 1.0),
                "support_count": _support_count(v, "support_count", support, parsed, node_id),
                "created_by": v.text("created_by") or IMPORTED_BY,
                "created_at": v.time("created_at") or now,
                "updated_at": v.time("updated_at") or now,
                "metadata": v.json_object("metadata", "{}"),
                "merge_history": v.json_array("merge_history", "[]"),
            }
        )
    return parsed


def _parse_edges(rows: _FileRows, now: datetime, node_ids: set[str] | None) -> _Parsed:
    """``node_ids``: the nodes an edge may link (None: unknown, the nodes file could not be read)."""
    parsed = _Parsed([], [], [], [])
    for record in rows.complete_records():
        values = record.values
        source, target, edge_type = str(values["sourceId"]), str(values["targetId"]), str(values["type"])
        v = _Values(record, rows.problems, rows.fmt == "parquet")
        if node_ids is not None:
            unknown = [n for n in (source, target) if n not in node_ids]
            if unknown:
                v.problem(f"unknown node(s) {', '.join(unknown)} (not in the nodes file nor the graph)")
        edge_id = str(values.get("edgeId") or f"{edge_type}:{source}->{target}")
        if not rows.first_time("edge id", edge_id, record):
            continue
        support = v.support("support", EDGE_SUPPORT_FIELDS, "edge_id", edge_id)
        parsed.rows.append(
            {
                "edge_id": edge_id,
                "source_id": source,
                "target_id": target,
                "edge_type": edge_type,
                "strength": v.number("strength", 1.0, low=0, high=1),
                "activation_count": v.count("activationCount") or 0,
                "created_at": v.time("createdAt") or now,
                "last_activated_at": v.time("lastActivatedAt"),
                "last_reinforced_at": v.time("lastReinforcedAt"),
                "created_by": v.text("createdBy") or IMPORTED_BY,
                "protected": v.flag("protected"),
                "explanation": v.text("explanation"),
                "keywords": v.texts("keywords", []),
                "source_topic_key": v.text("sourceTopicKey"),
                "target_topic_key": v.text("targetTopicKey"),
                "support_count": _support_count(v, "supportCount", support, parsed, edge_id),
            }
        )
    return parsed


def check_files(conn, nodes_path: Path, edges_path: Path, now: datetime) -> tuple[_Parsed, _Parsed, list[str]]:
    """Both files parsed: (nodes, edges, ignored fields); ``GraphImportError`` with every problem of both."""
    node_rows = _FileRows(nodes_path, NODE_SCHEMA, NODE_REQUIRED)
    edge_rows = _FileRows(edges_path, EDGE_SCHEMA, EDGE_REQUIRED)
    nodes = _parse_nodes(node_rows, now)
    known = None
    if node_rows.readable:  # the ids of the file's rows, even those with a problem, and the graph's
        known = {str(r.values["id"]) for r in node_rows.records if r.values.get("id") is not None}
        known |= {r[0] for r in conn.execute("SELECT node_id FROM kg_nodes").fetchall()}
    edges = _parse_edges(edge_rows, now, known)
    problems = node_rows.problems + edge_rows.problems
    if problems:
        raise GraphImportError(problems)
    ignored = [f"{rows.path}: {name}" for rows in (node_rows, edge_rows) for name in sorted(rows.unknown_fields)]
    return nodes, edges, ignored


def import_graph(conn, nodes_path: Path, edges_path: Path, now: datetime | None = None) -> ImportReport:
    """Check both files, then write their nodes, edges and provenance in one transaction (rows whose
    id exists are replaced). Raises ``GraphImportError`` with every problem of both files, having
    written nothing."""
    now = now or datetime.now(UTC)
    nodes, edges, ignored = check_files(conn, Path(nodes_path), Path(edges_path), now)
    plan = (
        ("kg_nodes", "node_id", nodes, NODE_ARROW, "kg_node_support", NODE_SUPPORT_ARROW),
        ("kg_edges", "edge_id", edges, EDGE_ARROW, "kg_edge_support", EDGE_SUPPORT_ARROW),
    )
    counts = []
    with transaction(conn):
        for table, key, parsed, schema, support_table, support_schema in plan:
            ids = [r[key] for r in parsed.rows]
            existing = conn.execute(
                f"SELECT count(*) FROM {table} WHERE {key} IN (SELECT unnest(?::VARCHAR[]))", [ids]
            ).fetchall()[0][0]
            conn.execute(f"DELETE FROM {table} WHERE {key} IN (SELECT unnest(?::VARCHAR[]))", [ids]).fetchall()
            _insert(conn, table, parsed.rows, schema)
            conn.execute(
                f"DELETE FROM {support_table} WHERE {key} IN (SELECT unnest(?::VARCHAR[]))", [parsed.support_given]
            ).fetchall()
            _insert(conn, support_table, parsed.support, support_schema)
            if parsed.count_missing:  # no count and no support given: the provenance rows the graph holds
                conn.execute(
                    f"""UPDATE {table} SET support_count = (SELECT count(*) FROM {support_table} s
                                                              WHERE s.{key} = {table}.{key})
                        WHERE {key} IN (SELECT unnest(?::VARCHAR[]))""",
                    [parsed.count_missing],
                ).fetchall()
            counts.append(existing)
    return ImportReport(
        len(nodes.rows),
        len(edges.rows),
        counts[0],
        counts[1],
        node_support=len(nodes.support),
        edge_support=len(edges.support),
        ignored_fields=ignored,
    )


def _insert(conn, table: str, rows: list[dict], schema: pa.Schema) -> None:
    if not rows:
        return
    conn.register("_imported", pa.Table.from_pylist(rows, schema=schema))
    try:
        conn.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _imported").fetchall()
    finally:
        conn.unregister("_imported")


# -- export -----------------------------------------------------------------------------------------

_ISO = "strftime({0} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%f+00:00')"
_EPOCH_MS = "epoch_us({0}) / 1000"  # a DOUBLE: whole milliseconds, and microseconds as the fraction
NODE_EXPORT = f"""
    SELECT n.node_id AS id, n.name, n.node_type AS type, n.description, n.node_kind AS kind, n.topic_key,
           CAST(n.metadata AS VARCHAR) AS metadata, CAST(n.energy AS VARCHAR) AS energy, n.base_weight,
           n.support_count, n.created_by, {_ISO.format("n.created_at")} AS created_at,
           {_ISO.format("n.updated_at")} AS updated_at, CAST(n.merge_history AS VARCHAR) AS merge_history,
           coalesce(s.support, []) AS support
    FROM kg_nodes n
    LEFT JOIN (
        SELECT node_id, list({{'document_id': document_id, 'chunk_id': chunk_id, 'collection': collection,
                               'name': name, 'description': description}}
                             ORDER BY document_id, chunk_id, collection, name, description) AS support
        FROM kg_node_support GROUP BY node_id
    ) s USING (node_id)
    ORDER BY n.node_id"""
EDGE_EXPORT = f"""
    SELECT e.edge_id AS edgeId, e.source_id AS sourceId, e.target_id AS targetId, e.edge_type AS type, e.strength,
           {_EPOCH_MS.format("e.created_at")} AS createdAt,
           {_EPOCH_MS.format("e.last_activated_at")} AS lastActivatedAt,
           {_EPOCH_MS.format("e.last_reinforced_at")} AS lastReinforcedAt, e.activation_count AS activationCount,
           e.created_by AS createdBy, e.explanation, e.source_topic_key AS sourceTopicKey,
           e.target_topic_key AS targetTopicKey, e.protected, e.keywords, e.support_count AS supportCount,
           coalesce(s.support, []) AS support
    FROM kg_edges e
    LEFT JOIN (
        SELECT edge_id, list({{'documentId': document_id, 'chunkId': chunk_id, 'collection': collection,
                               'explanation': explanation, 'keywords': keywords}}
                             ORDER BY document_id, chunk_id, collection, explanation, keywords) AS support
        FROM kg_edge_support GROUP BY edge_id
    ) s USING (edge_id)
    ORDER BY e.edge_id"""
_EDGE_TIMES = ("createdAt", "lastActivatedAt", "lastReinforcedAt")
_NESTED = ("keywords", "support")  # written as JSON text in CSV


def export_graph(conn, directory: Path, fmt: str = "parquet") -> tuple[Path, Path]:
    """Write ``nodes.<fmt>`` and ``edges.<fmt>`` (fmt: parquet, csv, json, jsonl) under ``directory``."""
    if fmt not in {"parquet", "csv", "json", "jsonl"}:
        raise ValueError(f"unknown format {fmt!r}: parquet, csv, json or jsonl")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    nodes = pl.from_arrow(conn.sql(NODE_EXPORT).fetch_arrow_table())
    edges = pl.from_arrow(conn.sql(EDGE_EXPORT).fetch_arrow_table())
    suffix = {"parquet": ".parquet", "csv": ".csv", "json": ".json", "jsonl": ".jsonl"}[fmt]
    paths = (directory / f"nodes{suffix}", directory / f"edges{suffix}")
    for frame, path in zip((nodes, edges), paths, strict=True):
        if fmt == "parquet":
            frame.write_parquet(path)
        elif fmt == "csv":
            nested = [c for c in _NESTED if c in frame.columns]
            frame.with_columns(
                pl.col(c).map_elements(_json_text, return_dtype=pl.String, skip_nulls=True) for c in nested
            ).write_csv(path)
        else:
            records = [_seed_times(row) for row in frame.iter_rows(named=True)]
            with path.open("w", encoding="utf-8") as handle:
                if fmt == "jsonl":
                    handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
                else:
                    json.dump(records, handle, indent=1, ensure_ascii=False)
    return paths


def _json_text(value) -> str:
    return json.dumps(value.to_list() if isinstance(value, pl.Series) else value, ensure_ascii=False)


def _seed_times(row: dict) -> dict:
    """Edge times of whole milliseconds as integers, as the seed writes them."""
    for name in _EDGE_TIMES:
        value = row.get(name)
        if isinstance(value, float) and value.is_integer():
            row[name] = int(value)
    return row
