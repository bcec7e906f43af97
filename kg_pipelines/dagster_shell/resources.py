"""One resource, ``kg``: the settings of a graph and handles on its stores, LLM and embedders."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Iterator

import duckdb
from dagster import ConfigurableResource
from pydantic import Field, PrivateAttr

from kg_pipelines.ingestion.chunk_jobs import RetryPolicy
from kg_pipelines.config import KGSettings, load_settings
from kg_pipelines.embedding import Embedder, embedder_for
from kg_pipelines.llm.client import LLMClient
from kg_pipelines.llm.providers import make_provider
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.source_registry import SourceRegistry
from kg_pipelines.stores.vectors import VectorStore


class KGResource(ConfigurableResource):
    """Where the graph lives (``data_dir``, default ``KG_DATA_DIR`` or ./data) and its settings file."""

    data_dir: str = Field(default="", description="Folder of every store; empty: KG_DATA_DIR, else ./data")
    config_path: str = Field(default="", description="Settings YAML; empty: KG_CONFIG, else <data_dir>/kg.yaml")
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
        return VectorStore(self.settings.lancedb_dir)

    def registry(self) -> SourceRegistry:
        return SourceRegistry(self.settings.source_registry_path)

    def llm_client(self) -> LLMClient:
        s = self.settings
        return LLMClient(make_provider(s.llm), s.resolved_entity_types, s.questions_min, s.questions_max)

    def embedder(self, collection: str) -> Embedder:
        return embedder_for(self.settings.embedding_model_for(collection), self.settings.llm)

    def retry_policy(self) -> RetryPolicy:
        jobs = self.settings.chunk_jobs
        return RetryPolicy(jobs.max_chunk_retries, jobs.backoff_base_s, jobs.backoff_max_s)

    @property
    def workers(self) -> int:
        return self.settings.chunk_jobs.workers

    @staticmethod
    def now() -> datetime:
        return datetime.now(timezone.utc)
