"""One resource, ``kg``: the settings of a graph and handles on its stores, LLM and embedders.

Its ``reprocess_document_ids`` setting (in the launchpad: ``resources: kg: config:``) restricts a
run to those documents of the partition's collection and re-processes them even when unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import duckdb
from dagster import ConfigurableResource, Failure
from pydantic import Field, PrivateAttr

from kg_pipelines.config import KGSettings, load_settings
from kg_pipelines.embedding import Embedder, embedder_for
from kg_pipelines.ingestion.chunk_state import next_retry_at
from kg_pipelines.ingestion.context import StageContext, SyncScope
from kg_pipelines.llm.client import LLMClient
from kg_pipelines.llm.providers import make_provider
from kg_pipelines.progress import StageProgress
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.source_registry import SourceRegistry
from kg_pipelines.stores.vectors import VectorStore

from .run_guard import process_tags


class KGResource(ConfigurableResource):
    """Where the graph lives (``data_dir``, default ``KG_DATA_DIR`` or ./data) and its settings file."""

    data_dir: str = Field(default="", description="Folder of every store; empty: KG_DATA_DIR, else ./data")
    config_path: str = Field(default="", description="Settings YAML; empty: KG_CONFIG, else <data_dir>/kg.yaml")
    reprocess_document_ids: list[str] = Field(
        default_factory=list,
        description="Restrict the run to these documents of the collection and re-process them even if unchanged",
    )
    _settings: KGSettings | None = PrivateAttr(default=None)

    @property
    def settings(self) -> KGSettings:
        if self._settings is None:
            self._settings = load_settings(self.data_dir or None, self.config_path or None)
        return self._settings

    @contextmanager
    def warehouse(self) -> Iterator[duckdb.DuckDBPyConnection]:
        conn = warehouse.connect(self.settings.warehouse_path)
        try:
            yield conn
        finally:
            conn.close()

    def vectors(self) -> VectorStore:
        return VectorStore.for_settings(self.settings)

    def registry(self) -> SourceRegistry:
        return SourceRegistry(self.settings.source_registry_path)

    def llm_client(self) -> LLMClient:
        """A client per step, so the counters in a step's metadata are that step's."""
        s = self.settings
        return LLMClient(make_provider(s.llm), s.resolved_entity_types, s.questions_min, s.questions_max)

    def embedder(self, collection: str) -> Embedder:
        return embedder_for(self.settings.embedding_model_for(collection), self.settings.llm)

    @staticmethod
    def now() -> datetime:
        return datetime.now(UTC)

    # -- what an asset of a collection partition works with -------------------------------------
    def scope(self, context) -> SyncScope:
        """The run's collection (its partition key), checked: a stray key fails with a clear message."""
        collection = context.partition_key
        known = self.registry().collections()
        if collection not in known:
            raise Failure(
                f"unknown collection {collection!r}: no document was ever registered for it in "
                f"{self.settings.source_registry_path}. Known collections: {', '.join(known) or 'none'}. "
                f"Add files under {self.settings.inbox}/{collection}/ (the sensor registers them) or run "
                f"`kg-pipelines ingest DIR --collection {collection}`; delete the stray partition in the UI."
            )
        only = frozenset(self.reprocess_document_ids) if self.reprocess_document_ids else None
        return SyncScope(collection, only)

    @contextmanager
    def stage(self, context) -> Iterator[tuple[StageContext, SyncScope]]:
        """The stage context and scope of an asset step; marks the run with this process's id, so a
        later run can tell whether a run that holds the duckdb pool is still alive."""
        scope = self.scope(context)
        _mark_run_process(context)

        def progress(label: str, total: int):
            return StageProgress(label, total, context.log.info)

        with self.warehouse() as conn:
            yield (
                StageContext(
                    conn=conn,
                    settings=self.settings,
                    llm=self.llm_client(),
                    vectors=self.vectors(),
                    embedder_for=self.embedder,
                    clock=self.now,
                    progress=progress,
                ),
                scope,
            )

    def publish_retries(self, conn: duckdb.DuckDBPyConnection, collection: str) -> None:
        """Tell the retry sensor (which must not open DuckDB) when the collection's failed chunks are due."""
        quarantined = conn.execute(
            "SELECT count(*) FROM chunk_state WHERE collection = ? AND status = 'quarantined'", [collection]
        ).fetchone()[0]
        self.registry().publish_retries(collection, next_retry_at(conn, collection), quarantined)


def _mark_run_process(context) -> None:
    tags = process_tags(os.getpid())
    if any(context.run.tags.get(k) != v for k, v in tags.items()):
        context.instance.add_run_tags(context.run_id, tags)
