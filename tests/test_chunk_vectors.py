"""The chunk stage embeds several commit batches' chunks in one call, after their rows: a run that
dies between the rows and the vectors is completed by the next run, every chunk with one vector."""

from __future__ import annotations

import numpy as np
import pytest

from kg_pipelines.ingestion import chunking
from kg_pipelines.ingestion.context import StageContext, SyncScope
from kg_pipelines.ingestion.documents import sync_documents
from kg_pipelines.ingestion.inbox import scan_directory
from kg_pipelines.ingestion.tokens import default_token_counter
from kg_pipelines.llm.client import LLMClient
from kg_pipelines.llm.providers import make_provider
from kg_pipelines.stores import warehouse
from kg_pipelines.stores.source_registry import SourceRegistry
from kg_pipelines.stores.vectors import VectorStore

TOPICS = ["Metformin activates AMPK", "Rapamycin inhibits mTORC1", "Spermidine induces autophagy"]


class CountingEmbedder:
    """Vectors from the text's length; ``fail_on`` makes that call raise (the process dies there)."""

    model_name = "counting-embedder"

    def __init__(self, fail_on: int | None = None):
        self.calls: list[int] = []
        self.fail_on = fail_on

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(len(texts))
        if len(self.calls) == self.fail_on:
            raise KeyboardInterrupt("killed while embedding")
        vectors = np.asarray([[len(t), 1.0, 0.0, 0.0] for t in texts], dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture
def collection(graph):
    for i in range(12):
        graph.write(f"bio/doc{i:02d}.md", f"# Study {i}\n" + " ".join(f"{t} in study {i}." for t in TOPICS) + "\n")
    graph.configure(chunk_jobs={"workers": 1, "commit_every": 2})  # six commit batches of two documents
    registry = SourceRegistry(graph.settings.source_registry_path)
    registry.register([f.to_source() for f in scan_directory(graph.root.parent / "docs" / "bio", "bio")])
    conn = warehouse.connect(graph.settings.warehouse_path)
    s = graph.settings
    ctx = StageContext(
        conn=conn,
        settings=s,
        llm=LLMClient(make_provider(s.llm), s.resolved_entity_types, s.questions_min, s.questions_max),
        vectors=VectorStore.for_settings(s),
    )
    sync_documents(ctx, SyncScope("bio"), registry.for_collection("bio"))
    yield ctx
    conn.close()


def chunk_vectors(ctx) -> list[str]:
    table = ctx.vectors.open("chunks", "bio")
    return sorted(table.to_arrow().column("chunk_id").to_pylist()) if table is not None else []


def test_a_window_of_commit_batches_is_embedded_in_one_call(collection, monkeypatch):
    ctx = collection
    embedder = CountingEmbedder()
    ctx.embedder_for = lambda _c: embedder
    monkeypatch.setattr(ctx.settings.chunk_jobs, "embed_every", 8)
    report = chunking.sync_chunks(ctx, SyncScope("bio"), default_token_counter())
    assert report.chunks == report.chunks_embedded == 12
    assert embedder.calls == [8, 4]  # not six calls of two
    assert chunk_vectors(ctx) == sorted(r[0] for r in ctx.conn.execute("SELECT chunk_id FROM chunks").fetchall())


def test_a_run_killed_between_rows_and_vectors_is_completed_by_the_next_run(collection, monkeypatch):
    ctx = collection
    monkeypatch.setattr(ctx.settings.chunk_jobs, "embed_every", 4)
    dying = CountingEmbedder(fail_on=2)  # the first window's vectors are written, the second's not
    ctx.embedder_for = lambda _c: dying
    with pytest.raises(KeyboardInterrupt):
        chunking.sync_chunks(ctx, SyncScope("bio"), default_token_counter())
    written = ctx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    marked = ctx.conn.execute("SELECT count(*) FROM document_chunking").fetchone()[0]
    assert len(chunk_vectors(ctx)) == marked == 4 < written  # rows without vectors, their documents unmarked

    embedder = CountingEmbedder()
    ctx.embedder_for = lambda _c: embedder
    report = chunking.sync_chunks(ctx, SyncScope("bio"), default_token_counter())
    assert report.summaries_reused == written - 4  # the dead run's summaries are not made again
    assert report.chunks_embedded == 12 - 4
    chunks = sorted(r[0] for r in ctx.conn.execute("SELECT chunk_id FROM chunks").fetchall())
    assert len(chunks) == 12 and chunk_vectors(ctx) == chunks  # one vector each, none twice
    assert ctx.conn.execute("SELECT count(*) FROM document_chunking").fetchone()[0] == 12
    assert chunking.sync_chunks(ctx, SyncScope("bio"), default_token_counter()).chunks_embedded == 0
