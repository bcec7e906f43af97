"""A run's per-document bookkeeping stays bounded (issue 22: memory flat per document): the stages
keep what the run's metadata table shows (the first documents by id, a count of the rest), not a
record for every document of the run, and what they keep is what an unbounded record would show."""

from __future__ import annotations

import random

import pytest

import kg_pipelines.ingestion.activity as activity_module
from kg_pipelines.dagster_shell.metadata import activity_table
from kg_pipelines.ingestion.activity import RunActivity
from kg_pipelines.ingestion.context import StageContext, SyncScope
from kg_pipelines.ingestion.extraction import extract_chunks
from kg_pipelines.llm.client import LLMClient, LLMError
from kg_pipelines.llm.providers import make_provider
from kg_pipelines.stores import warehouse

KEEP = 5
DOCUMENTS = 40  # eight times what is kept
TEXT = "SIRT{n} deacetylates PGC-1alpha in muscle cells. Resveratrol activates SIRT{n} in yeast."  # for this test


def test_a_documents_record_set_once_keeps_the_first_ids_and_counts_the_rest():
    ids = [f"doc{i:03d}" for i in range(DOCUMENTS)]
    shuffled = random.Random(7).sample(ids, len(ids))
    bounded, full = RunActivity(keep=KEEP), {}
    for i, document_id in enumerate(shuffled):
        row = {"status": "read", "error": "unreadable" if i % 3 == 0 else None}
        bounded.set(document_id, row)
        full[document_id] = row
        assert bounded.held() <= 2 * KEEP + 1
    assert bounded.documents == DOCUMENTS
    assert sorted(bounded.rows) == sorted(full)[:KEEP]
    with_error = sorted(d for d, row in full.items() if row["error"])
    assert bounded.documents_with_error == len(with_error)
    assert sorted(bounded.errors) == with_error[:KEEP]
    columns = ["status", "error"]
    assert activity_table(bounded, columns, cap=KEEP).value == activity_table(full, columns, cap=KEEP).value


@pytest.fixture
def stage(graph, monkeypatch):
    """Two chunks for each of ``DOCUMENTS`` documents, and the offline extraction stage's context."""
    monkeypatch.setattr(activity_module, "ACTIVITY_ROWS", KEEP)
    conn = warehouse.connect(graph.settings.warehouse_path)
    rows = [
        (f"bio/d{d:03d}.md#c{seq:04d}", f"bio/d{d:03d}.md", seq, TEXT.format(n=d + seq), f"h{d}.{seq}")
        for d in range(DOCUMENTS)
        for seq in range(2)
    ]
    conn.executemany(
        "INSERT INTO chunks (chunk_id, document_id, collection, seq, text, token_count, text_hash) "
        "VALUES (?, ?, 'bio', ?, ?, 20, ?)",
        rows,
    )
    s = graph.settings
    s.chunk_jobs.commit_every = 7  # a document's two chunks fall into two batches now and then
    s.chunk_jobs.max_chunk_retries = 1
    s.chunk_jobs.backoff_base_s = 0.0
    llm = LLMClient(make_provider(s.llm), s.resolved_entity_types, s.questions_min, s.questions_max)
    yield StageContext(conn=conn, settings=s, llm=llm), conn
    conn.close()


def test_a_chunk_stage_keeps_the_first_documents_and_their_counts_not_every_document(stage, monkeypatch):
    ctx, conn = stage
    extract = ctx.llm.extract

    def sometimes_broken(chunk_id, text):
        if chunk_id.endswith("#c0001") and int(chunk_id[5:8]) % 4 == 1:  # d001, d005, ...: second chunk fails
            raise LLMError("api", "upstream 503")
        return extract(chunk_id, text)

    monkeypatch.setattr(ctx.llm, "extract", sometimes_broken)
    report = extract_chunks(ctx, SyncScope("bio"))
    activity = report.activity
    assert activity.held() <= 2 * KEEP  # not one record per document of the run
    assert activity.documents == DOCUMENTS
    assert sorted(activity.rows) == [f"bio/d{d:03d}.md" for d in range(KEEP)]
    stored = dict(conn.execute("SELECT document_id, count(*) FROM entities GROUP BY 1").fetchall())
    for document_id, done in activity.rows.items():  # the counts summed over the document's chunks
        broken = int(document_id[5:8]) % 4 == 1
        assert done["chunks"] == 2 and done["failed"] == int(broken)
        assert done["entities"] == stored[document_id] > 0
        assert (done["error"] == "api: upstream 503") == broken
    assert activity.documents_with_error == DOCUMENTS // 4
    assert sorted(activity.errors) == [f"bio/d{d:03d}.md" for d in range(1, DOCUMENTS, 4)][:KEEP]
