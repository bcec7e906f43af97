"""The LanceDB vector store: one chunk table and one question table per collection.

LanceDB lives in a folder of the data dir by default, or on object storage (``vectors.uri:
s3://bucket/prefix`` with ``vectors.storage_options``, e.g. the endpoint of an S3-compatible
server): ``connect_lancedb`` is the one place a LanceDB connection is made.

A collection may use its own embedding model, so vectors of different collections are never mixed
in one table; each row records the model that embedded it. Writes replace a set of documents'
rows (delete, then add). Every LanceDB write creates a table version; consolidation compacts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa

from kg_pipelines.collections import validate_collection_name

KINDS = ("chunks", "questions")


def table_name(kind: str, collection: str) -> str:
    """``<kind>__<collection>``: one table per valid collection name, an invalid name is refused."""
    if kind not in KINDS:
        raise ValueError(f"unknown vector table kind {kind!r}")
    return f"{kind}__{validate_collection_name(collection)}"


def is_remote(location: str | Path) -> bool:
    """Object storage (``s3://``, ``gs://``, ``az://``, ...) rather than a folder."""
    return "://" in str(location) and not str(location).startswith("file://")


def connect_lancedb(location: str | Path, storage_options: dict[str, str] | None = None):
    """A LanceDB connection to a folder (created if missing) or to object storage."""
    if is_remote(location):
        return lancedb.connect(str(location), storage_options=dict(storage_options or {}))
    Path(location).mkdir(parents=True, exist_ok=True)
    return lancedb.connect(str(location))


def vectors_exist(settings) -> bool:
    """Whether anything can have been written yet (a local folder that does not exist: nothing
    was ingested; object storage is asked when it is opened)."""
    return is_remote(settings.vectors_location) or settings.lancedb_dir.exists()


def open_table_if_ready(db, name: str):
    """The table ``name``, or None when it does not exist yet. A table another process is creating
    is listed (its folder is there) before it can be opened (its first version is not written
    yet): a reader, the API among them, sees it as absent, as it would have a moment earlier,
    rather than failing."""
    if name not in db.list_tables().tables:
        return None
    try:
        return db.open_table(name)
    except ValueError as exc:
        if "was not found" in str(exc):  # being created, or dropped since the listing
            return None
        raise


def sql_list(values: Iterable[str]) -> str:
    """Values as the quoted list of a LanceDB filter's ``IN (...)`` (a quote doubled, so a value
    never ends the string)."""
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


class VectorStore:
    def __init__(self, location: Path | str, storage_options: dict[str, str] | None = None):
        self.location = str(location)
        self.db = connect_lancedb(location, storage_options)

    @classmethod
    def for_settings(cls, settings) -> VectorStore:
        return cls(settings.vectors_location, settings.vectors.storage_options)

    def table_names(self) -> list[str]:
        return list(self.db.list_tables().tables)

    def open(self, kind: str, collection: str):
        return open_table_if_ready(self.db, table_name(kind, collection))

    def replace(
        self,
        kind: str,
        collection: str,
        key_column: str,
        keys: Sequence[str],
        rows: pa.Table | None,
    ) -> int:
        """Delete the rows whose ``key_column`` is in ``keys``, then add ``rows`` (with a ``vector`` column)."""
        name = table_name(kind, collection)
        table = self.open(kind, collection)
        if table is not None and rows is not None and rows.num_rows:
            existing = table.schema.field("vector").type
            if existing != rows.schema.field("vector").type:
                models = set(rows.column("embedding_model").to_pylist())
                raise ValueError(
                    f"LanceDB table {name} holds vectors of type {existing}, the new rows "
                    f"{rows.schema.field('vector').type} (model {', '.join(models)}): the collection's "
                    "embedding model changed; remove the collection's documents and ingest them again"
                )
        if table is not None and keys:
            table.delete(f"{key_column} IN ({sql_list(keys)})")
        if rows is None or rows.num_rows == 0:
            return 0
        if table is None:
            self.db.create_table(name, data=rows)
        else:
            table.add(rows)
        return rows.num_rows

    def drop_if_model_changed(self, kind: str, collection: str, model_name: str) -> bool:
        """Drop the collection's table when its vectors come from another model (they are re-embedded:
        the stage's cache key includes the model, so every row of the collection is written again)."""
        table = self.open(kind, collection)
        if table is None or table.count_rows() == 0:
            return False
        if table.head(1).column("embedding_model")[0].as_py() == model_name:
            return False
        self.db.drop_table(table_name(kind, collection))
        return True

    def delete_chunks(self, kind: str, collection: str, chunk_ids: Sequence[str]) -> None:
        self.replace(kind, collection, "chunk_id", chunk_ids, None)

    def keys_present(self, kind: str, collection: str, key_column: str, keys: Sequence[str]) -> set[str]:
        """Which of ``keys`` have a row (a filtered scan of the key column: for the few chunks a
        run re-chunks, not for every chunk of a collection)."""
        table = self.open(kind, collection)
        present: set[str] = set()
        keys = list(keys)
        for start in range(0, len(keys) if table is not None else 0, 1024):
            rows = (
                table.search()
                .where(f"{key_column} IN ({sql_list(keys[start : start + 1024])})")
                .select([key_column])
                .limit(None)
                .to_arrow()
            )
            present.update(rows.column(key_column).to_pylist())
        return present

    def count(self, kind: str, collection: str) -> int:
        table = self.open(kind, collection)
        return 0 if table is None else table.count_rows()


def vectors_column(vectors: np.ndarray) -> pa.FixedSizeListArray:
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2:
        raise ValueError(f"expected a 2-d array of vectors, got shape {vectors.shape}")
    return pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), vectors.shape[1])


def embedded_table(rows: list[dict], columns: Sequence[str], text_column: str, embedder) -> pa.Table:
    """``columns`` of ``rows`` plus the embedder's name and the vectors of ``text_column``."""
    data = {name: [r[name] for r in rows] for name in columns}
    data["embedding_model"] = [embedder.model_name] * len(rows)
    data["vector"] = vectors_column(embedder.embed([r[text_column] for r in rows]))
    return pa.table(data)
