"""What every ingestion stage is given: one small typed context instead of ten arguments.

A stage syncs one knowledge collection (``SyncScope``): it compares its input with what it last
built and does only the difference. ``SyncScope.only`` restricts a run to some documents and makes
the stages re-process them even when nothing changed (re-processing one document on purpose).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from kg_pipelines.ingestion.chunk_jobs import RetryPolicy

if TYPE_CHECKING:
    import duckdb

    from kg_pipelines.config import KGSettings
    from kg_pipelines.embedding import Embedder
    from kg_pipelines.llm.client import LLMClient
    from kg_pipelines.stores.vectors import VectorStore

# progress(stage label, total) -> tick(n): report that n more items of the stage are finished
ProgressFactory = Callable[[str, int], Callable[[int], None]]


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _no_progress(_label: str, _total: int) -> Callable[[int], None]:
    return lambda _n: None


@dataclass(frozen=True)
class SyncScope:
    """One collection, optionally restricted to (and forcing) some of its documents."""

    collection: str
    only: frozenset[str] | None = None

    def sql_filter(self, alias: str = "") -> tuple[str, list]:
        """A WHERE fragment (and its parameters) selecting the scope's rows of a table."""
        prefix = f"{alias}." if alias else ""
        if self.only is None:
            return f"{prefix}collection = ?", [self.collection]
        return (
            f"{prefix}collection = ? AND {prefix}document_id IN (SELECT unnest(?::VARCHAR[]))",
            [self.collection, sorted(self.only)],
        )

    def forced(self, document_id: str) -> bool:
        return self.only is not None and document_id in self.only


@dataclass
class StageContext:
    conn: duckdb.DuckDBPyConnection
    settings: KGSettings
    llm: LLMClient | None = None
    vectors: VectorStore | None = None
    embedder_for: Callable[[str], Embedder] | None = None
    clock: Callable[[], datetime] = _utc_now
    progress: ProgressFactory = field(default=_no_progress)

    def now(self) -> datetime:
        return self.clock()

    @property
    def retry_policy(self) -> RetryPolicy:
        jobs = self.settings.chunk_jobs
        return RetryPolicy(jobs.max_chunk_retries, jobs.backoff_base_s, jobs.backoff_max_s)

    @property
    def workers(self) -> int:
        """``chunk_jobs.workers`` for a provider that waits on the network; one thread for one
        that computes in Python (the offline heuristics), where threads only contend for the GIL."""
        if self.llm is not None and not self.llm.concurrent:
            return 1
        return self.settings.chunk_jobs.workers

    @property
    def batch_size(self) -> int:
        """Chunks (or documents) written per transaction: a crash loses at most one batch."""
        return self.settings.chunk_jobs.commit_every
