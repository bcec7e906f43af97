"""Seed 003's per-chunk metrics line: chunk id, entity and relationship counts, model latency and
attempts, logged at DEBUG by the extraction stage (one record per batch), including failed chunks."""

from __future__ import annotations

import logging
import re

import pytest

from kg_pipelines.ingestion.chunk_jobs import RetryPolicy, run_with_retries
from kg_pipelines.ingestion.context import StageContext, SyncScope
from kg_pipelines.ingestion.extraction import extract_chunks
from kg_pipelines.llm.client import LLMClient, LLMError
from kg_pipelines.llm.providers import make_provider
from kg_pipelines.stores import warehouse

LOGGER = "kg_pipelines.ingestion.chunk_stage"
TEXTS = [  # written for this test
    "SIRT1 deacetylates PGC-1alpha in muscle cells. Resveratrol activates SIRT1 in yeast.",
    "SIRT3 regulates mitochondrial acetylation in the liver. Fasting raises SIRT3 levels.",
]
LINE = re.compile(
    r"^extract chunk (\S+): (\d+) entities, (\d+) relationships; model (\d+\.\d{3}) s, (\d+) attempt\(s\)$"
)


@pytest.fixture
def stage(graph):
    """A warehouse with two chunks of one document and the offline extraction stage's context."""
    conn = warehouse.connect(graph.settings.warehouse_path)
    for seq, text in enumerate(TEXTS):
        conn.execute(
            "INSERT INTO chunks (chunk_id, document_id, collection, seq, text, token_count, text_hash) "
            "VALUES (?, 'bio/sirtuins.md', 'bio', ?, ?, 20, ?)",
            [f"bio/sirtuins.md#c{seq:04d}", seq, text, f"h{seq}"],
        )
    s = graph.settings
    llm = LLMClient(make_provider(s.llm), s.resolved_entity_types, s.questions_min, s.questions_max)
    yield StageContext(conn=conn, settings=s, llm=llm), conn
    conn.close()


def test_every_chunk_extracted_gets_its_line_with_counts_and_model_latency(stage, caplog):
    ctx, conn = stage
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        report = extract_chunks(ctx, SyncScope("bio"))
    assert report.chunks_processed == 2
    records = [r for r in caplog.records if r.name == LOGGER]
    assert len(records) == 1 and records[0].levelno == logging.DEBUG  # one record per batch, not per chunk
    lines = [LINE.match(line) for line in records[0].getMessage().splitlines()[1:]]
    assert all(lines) and len(lines) == 2
    stored = dict(
        conn.execute(
            "SELECT chunk_id, count(*) FROM entities GROUP BY 1 UNION ALL "
            "SELECT chunk_id || '/r', count(*) FROM relationships GROUP BY 1"
        ).fetchall()
    )
    for line in lines:
        chunk_id, entities, relationships, model_s, attempts = line.groups()
        assert int(entities) == stored[chunk_id] > 0  # the counts are what the chunk wrote
        assert int(relationships) == stored.get(f"{chunk_id}/r", 0)
        assert float(model_s) >= 0 and attempts == "1"
    assert {line.group(1) for line in lines} == {"bio/sirtuins.md#c0000", "bio/sirtuins.md#c0001"}


def test_a_failed_chunk_gets_its_line_with_the_error_and_attempts(stage, caplog, monkeypatch):
    ctx, _conn = stage
    ctx.settings.chunk_jobs.max_chunk_retries = 1
    ctx.settings.chunk_jobs.backoff_base_s = 0.0

    def broken(chunk_id, text):
        raise LLMError("api", "upstream 503")

    monkeypatch.setattr(ctx.llm, "extract", broken)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        report = extract_chunks(ctx, SyncScope("bio"))
    assert report.chunks_failed == 2
    message = next(r for r in caplog.records if r.name == LOGGER).getMessage()
    assert "2 chunk(s) done, 2 failed" in message
    assert "extract chunk bio/sirtuins.md#c0000: failed (api: upstream 503); model " in message
    assert "2 attempt(s)" in message


def test_nothing_is_formatted_when_debug_is_off(stage, caplog):
    ctx, _conn = stage
    with caplog.at_level(logging.INFO, logger=LOGGER):
        extract_chunks(ctx, SyncScope("bio"))
    assert not [r for r in caplog.records if r.name == LOGGER]


def test_model_latency_is_the_time_inside_the_calls_not_the_backoff():
    calls = iter([LLMError("api", "timeout"), "ok"])
    slept = []

    def call():
        import time

        time.sleep(0.05)
        answer = next(calls)
        if isinstance(answer, Exception):
            raise answer
        return answer

    outcome = run_with_retries("c1", call, RetryPolicy(max_retries=2, base_s=1.0), sleep=slept.append)
    assert outcome.ok and outcome.attempts == 2 and slept  # one backoff, not slept for real
    assert 0.1 <= outcome.model_s < 0.5  # both attempts counted, the 0.5-1 s backoff not
