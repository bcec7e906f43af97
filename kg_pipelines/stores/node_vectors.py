"""Vectors of the graph's named nodes: one LanceDB table, ``graph_nodes``, across collections.

The graph spans collections, so its node vectors do too: every node that names something
(entities, imported nodes, wiki pages: any ``node_kind`` except ``chunk`` and ``question``, which
have their own per-collection tables) is embedded from what identifies it, with one model, the
``node_embedding_model`` setting: its name, and ``name. description`` when the description is its
own. A description several nodes share is not: graph building describes an entity by the first
sentence of the text that mentions it, so siblings named in one sentence ("FOXO1 and FOXO4 are
forkhead transcription factors ...") would all be embedded from that sentence, and their vectors
would be near-identical (cosine ~0.99) whatever they are; each is embedded from its name alone
then (``own_descriptions``). Of an own description only the words around the name's first
mention are embedded (``DESCRIPTION_WORDS`` on each side; without a mention, the first words):
what lies further from the name says less about which node it is and costs the embedder as much
(a whole sentence made the node vectors 1.65x the cost of the names alone on HotpotQA passages, the
window 1.3x; chosen on BioRED's design split: dedup precision at 0.95 held, benchmarks/README.md).
Term search, duplicate detection and formation-time dedup read it.

``sync_node_vectors`` makes the table match ``kg_nodes`` by difference: nodes whose text changed
or that are new get (re-)embedded, nodes gone from the graph lose their row. It is stateless (the
diff is taken from both stores every time), so a run that dies between the two stores is repaired
by the next one. A text is embedded once: a node whose text another row already has (a title and
the entity of the same name, a node re-keyed to another type, a name seen again after its node was
merged away) takes that row's vector (same text, same model: the same vector), and texts repeated
among the new nodes are embedded once.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from kg_pipelines.stores.vectors import connect_lancedb, open_table_if_ready, sql_list, vectors_column

TABLE = "graph_nodes"
UNEMBEDDED_KINDS = ("chunk", "question")  # embedded per collection in chunks__* / questions__*
BATCH = 2048


DESCRIPTION_WORDS = 4  # words of a description kept on each side of the node's name (module doc)
_WORD = re.compile(r"\S+")


def description_window(name: str, description: str, words: int | None = None) -> str:
    """The words of ``description`` around the first mention of ``name`` (case aside): the mention
    and ``words`` words on each side; without a mention, its first ``2 * words`` words and as many
    as the name has. What lies further from the name says less about which node it is and costs
    the embedder as much."""
    words = DESCRIPTION_WORDS if words is None else words
    spans = [m.span() for m in _WORD.finditer(description)]
    found = first_mention(name, description) if name else None
    if found is None:
        first, last = 0, 2 * words + len(name.split()) - 1
    else:
        first = next(i for i, (_, end) in enumerate(spans) if end > found[0]) - words
        last = next(i for i, (_, end) in enumerate(spans) if end >= found[1]) + words
    first, last = max(first, 0), min(last, len(spans) - 1)
    return description[spans[first][0] : spans[last][1]] if spans else ""


def first_mention(name: str, description: str) -> tuple[int, int] | None:
    """(start, end) of the first occurrence of ``name`` in ``description``, case aside, as
    ``re.IGNORECASE`` matches it. ASCII text is lower-cased and searched instead: the same span
    (the special case folds, K as Kelvin sign, s as long s, are not ASCII), without compiling a
    pattern per name, which cost more than the rest of the node's text (Python's cache of compiled
    patterns holds 512, a run thousands of names)."""
    if name.isascii() and description.isascii():
        start = description.lower().find(name.lower())
        return None if start < 0 else (start, start + len(name))
    found = re.search(re.escape(name), description, re.IGNORECASE)
    return found.span() if found else None


def node_text(name: str, description: str | None) -> str:
    """What a node is embedded from: its name, then the words of its description around the name."""
    name = (name or "").replace("_", " ").strip()
    description = (description or "").strip()
    if not description or description == name:
        return name
    return f"{name}. {description_window(name, description)}"


def _description_key(description: str | None) -> str:
    return " ".join((description or "").split()).casefold()


def own_descriptions(rows: Iterable[tuple[str, str | None]]) -> dict[str, str | None]:
    """node_id -> its description when no other node has the same one (white space and case
    aside), else None: a shared description (the sentence several entities were found in) says
    nothing about which of them a node is."""
    rows = list(rows)
    counts: dict[str, int] = {}
    for _, description in rows:
        key = _description_key(description)
        if key:
            counts[key] = counts.get(key, 0) + 1
    return {node_id: (d if counts.get(_description_key(d), 0) == 1 else None) for node_id, d in rows}


def text_hash(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


@dataclass
class NodeVectorSync:
    embedded: int  # nodes written (embedded or reused)
    deleted: int
    total: int
    reused: int = 0  # of ``embedded``: vectors taken from a row of the same text, not embedded again


class NodeVectors:
    """The ``graph_nodes`` table: node_id, node_type, node_kind, name, text_hash, embedding_model, vector."""

    def __init__(self, location: Path | str, storage_options: dict[str, str] | None = None):
        self.db = connect_lancedb(location, storage_options)

    @classmethod
    def for_settings(cls, settings) -> NodeVectors:
        return cls(settings.vectors_location, settings.vectors.storage_options)

    def table(self):
        return open_table_if_ready(self.db, TABLE)

    def count(self) -> int:
        table = self.table()
        return 0 if table is None else table.count_rows()

    def hashes(self) -> dict[str, str]:
        """node_id -> text_hash of every embedded node (no vectors read)."""
        table = self.table()
        if table is None:
            return {}
        rows = table.search().select(["node_id", "text_hash"]).limit(None).to_arrow()
        return dict(zip(rows.column("node_id").to_pylist(), rows.column("text_hash").to_pylist()))

    def has_kinds(self) -> bool:
        """Whether the table stores ``node_kind`` (tables written before it was added do not)."""
        table = self.table()
        return table is None or "node_kind" in table.schema.names

    def model(self) -> str | None:
        table = self.table()
        if table is None or table.count_rows() == 0:
            return None
        return table.search().select(["embedding_model"]).limit(1).to_arrow().column(0)[0].as_py()

    def delete(self, node_ids: Sequence[str]) -> None:
        table = self.table()
        for start in range(0, len(node_ids), BATCH):
            if table is not None:
                table.delete(f"node_id IN ({sql_list(node_ids[start : start + BATCH])})")

    def vectors_by_text(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """text_hash -> the vector of a row with that text (the table holds one model's vectors)."""
        table = self.table()
        found: dict[str, np.ndarray] = {}
        wanted = sorted(set(hashes))
        for start in range(0, len(wanted), BATCH):
            if table is None:
                break
            rows = (
                table.search()
                .where(f"text_hash IN ({sql_list(wanted[start : start + BATCH])})")
                .select(["text_hash", "vector"])
                .limit(None)
                .to_arrow()
            )
            for key, vector in zip(rows.column("text_hash").to_pylist(), rows.column("vector").to_numpy()):
                found.setdefault(key, np.asarray(vector, dtype=np.float32))
        return found

    def upsert(self, nodes: Sequence[dict], embedder, replace: Sequence[str] | None = None) -> tuple[int, int]:
        """Embed and write ``nodes`` (dicts with node_id, node_type, name, description and
        node_kind), replacing any row they had (``replace``: the ids that may have one; default all).
        A text already in the table or repeated among ``nodes`` is embedded once. Returns the rows
        written and, of them, those whose vector was reused rather than embedded. A node may carry
        its ``text`` already (``sync_node_vectors`` made it to compare hashes)."""
        if not nodes:
            return 0, 0
        self.delete(list(replace) if replace is not None else [n["node_id"] for n in nodes])
        texts = [n["text"] if "text" in n else node_text(n["name"], n.get("description")) for n in nodes]
        hashes = [text_hash(t) for t in texts]
        known = self.vectors_by_text(hashes)
        fresh: dict[str, str] = {}  # text_hash -> text, each new text once
        for key, text in zip(hashes, texts):
            if key not in known:
                fresh.setdefault(key, text)
        reused = len(nodes) - len(fresh)
        # shortest first, so that each call of BATCH texts holds texts of like length: the embedder
        # orders a call's texts by word pieces and batches them, and a call that mixes bare names
        # with the windows of own descriptions pads more (long documents: 48,049 padded word pieces
        # in calls of the nodes' order, 46,311 in calls by length, 45,873 in one call)
        fresh_items = sorted(fresh.items(), key=lambda item: len(item[1]))
        for start in range(0, len(fresh_items), BATCH):
            part = fresh_items[start : start + BATCH]
            known.update(zip([k for k, _ in part], embedder.embed([t for _, t in part])))
        written = 0
        for start in range(0, len(nodes), BATCH):
            part = nodes[start : start + BATCH]
            keys = hashes[start : start + BATCH]
            rows = pa.table(
                {
                    "node_id": [n["node_id"] for n in part],
                    "node_type": [n["node_type"] for n in part],
                    "node_kind": [n.get("node_kind") or "entity" for n in part],
                    "name": [n["name"] for n in part],
                    "text_hash": keys,
                    "embedding_model": [embedder.model_name] * len(part),
                    "vector": vectors_column(np.stack([known[k] for k in keys])),
                }
            )
            table = self.table()
            if table is None:
                self.db.create_table(TABLE, data=rows)
            else:
                table.add(rows)
            written += len(part)
        return written, reused

    def vectors(self, node_ids: Sequence[str]) -> dict[str, np.ndarray]:
        table = self.table()
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(node_ids), BATCH):
            if table is None:
                break
            rows = (
                table.search()
                .where(f"node_id IN ({sql_list(node_ids[start : start + BATCH])})")
                .select(["node_id", "vector"])
                .limit(None)
                .to_arrow()
            )
            for node_id, vector in zip(rows.column("node_id").to_pylist(), rows.column("vector").to_numpy()):
                found[node_id] = np.asarray(vector, dtype=np.float32)
        return found

    def search(self, vector: np.ndarray, k: int = 10, node_type: str | None = None) -> list[tuple[str, float]]:
        """The ``k`` nearest nodes (of ``node_type`` if given) as (node_id, cosine similarity)."""
        table = self.table()
        if table is None:
            return []
        query = table.search(np.asarray(vector, dtype=np.float32)).metric("cosine").limit(k)
        if node_type is not None:
            query = query.where(f"node_type = '{node_type.replace(chr(39), chr(39) * 2)}'", prefilter=True)
        rows = query.select(["node_id", "_distance"]).to_arrow()
        return [
            (node_id, 1.0 - float(distance))
            for node_id, distance in zip(rows.column("node_id").to_pylist(), rows.column("_distance").to_pylist())
        ]


def sync_node_vectors(conn: duckdb.DuckDBPyConnection, store: NodeVectors, embedder) -> NodeVectorSync:
    """Make ``graph_nodes`` match the named nodes of ``kg_nodes`` (see the module doc)."""
    if store.model() not in (None, embedder.model_name) or not store.has_kinds():
        # another model, or a table from before node_kind (duplicate detection filters on it):
        # every vector is redone
        store.db.drop_table(TABLE)
    nodes = conn.execute(
        "SELECT node_id, node_type, name, description, node_kind FROM kg_nodes "
        "WHERE node_kind NOT IN (SELECT unnest(?))",
        [list(UNEMBEDDED_KINDS)],
    ).fetchall()
    have = store.hashes()
    current = {row[0] for row in nodes}
    own = own_descriptions((row[0], row[3]) for row in nodes)
    texts = [node_text(name, own[n]) for n, _, name, _, _ in nodes]  # made once, for the hash and the embedder
    stale = [
        {"node_id": n, "node_type": t, "name": name, "description": own[n], "node_kind": kind, "text": text}
        for (n, t, name, _, kind), text in zip(nodes, texts)
        if have.get(n) != text_hash(text)
    ]
    gone = [node_id for node_id in have if node_id not in current]
    store.delete(gone)
    embedded, reused = store.upsert(stale, embedder, replace=[n["node_id"] for n in stale if n["node_id"] in have])
    return NodeVectorSync(embedded=embedded, deleted=len(gone), total=len(current), reused=reused)
