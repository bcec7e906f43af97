"""The real openai client path inside the pipeline: a fake OpenAI-compatible server on loopback
answers badly, and every failure ends up in chunk_state with its kind, the document is
PartiallyFailed, nothing is half-written, and a later run redoes only the failed chunks."""

import pytest

from tests.fake_openai import (
    delay,
    fake_openai,  # noqa: F401  (fixture)
    http_error,
    json_content,
    text_content,
)

DOC = (
    "# Metformin and AMPK\n"
    + " ".join(f"Metformin activates AMPK in hepatocyte culture number {i}." for i in range(40))
    + "\n\n"
    + " ".join(f"Rapamycin inhibits mTORC1 in yeast strain number {i}." for i in range(40))
)


def configure(graph, fake, **llm):
    # small chunks so the document has several; one worker so requests arrive in order
    graph.configure(
        chunk_tokens=200,
        llm={"provider": "openai", "base_url": fake.base_url, "timeout_s": llm.pop("timeout_s", 5), **llm},
        chunk_jobs={"workers": 1, "max_chunk_retries": 1, "backoff_base_s": 0, "backoff_max_s": 0, "round_delay_s": 0},
    )


def chunk_ids(graph):
    return [r[0] for r in graph.rows("SELECT chunk_id FROM chunks ORDER BY seq")]


def extract_calls(fake):
    return [
        r.headers.get("x-conversation-id")
        for r in fake.requests_to("chat")
        if r.body["response_format"]["json_schema"]["name"] == "entities_relationships"
    ]


@pytest.mark.parametrize(
    "behaviour, kind, message",
    [
        (text_content("{not json at all"), "schema", "not valid JSON"),
        (
            json_content(
                {
                    "entities": [{"entity_name": "X", "entity_type": "starship", "entity_description": "d"}],
                    "relationships": [],
                }
            ),
            "schema",
            "starship",
        ),
        (
            json_content(
                {
                    "entities": [{"entity_name": "X", "entity_type": "gene", "entity_description": ""}],
                    "relationships": [],
                }
            ),
            "schema",
            "entity_description",
        ),
        (http_error(429, "Rate limit reached", retry_after=1), "api", "429"),
        (http_error(500, "upstream exploded"), "api", "500"),
        (delay(2.0), "timeout", "timeout"),
    ],
)
def test_failed_extraction_is_recorded_and_retried_later(graph, fake_openai, behaviour, kind, message):  # noqa: F811
    configure(graph, fake_openai, timeout_s=0.5 if kind == "timeout" else 5)
    graph.write("bio/metformin.md", DOC)
    graph.ingest("bio")
    chunks = chunk_ids(graph)
    assert len(chunks) >= 3
    bad = chunks[1]

    # version 2 of the document changes every chunk; extraction of one chunk fails on every attempt
    graph.write("bio/metformin.md", DOC.replace("number", "no."))
    fake_openai.rule("entities_relationships", behaviour, conversation_id=bad)
    outcome = graph.ingest("bio")
    assert outcome.failed_runs == 0  # a failed chunk is data, not a crashed run

    state = graph.rows(
        "SELECT status, attempts, error_kind, last_error FROM chunk_state WHERE chunk_id = ? AND stage = 'extract'",
        [bad],
    )
    assert state[0][0] == "failed" and state[0][1] == 2 and state[0][2] == kind
    assert message in state[0][3]
    assert graph.one("SELECT status FROM document_status") == "PartiallyFailed"
    # the failed chunk has no rows (none half-written, none stale from version 1); the others have theirs
    assert graph.one("SELECT count(*) FROM entities WHERE chunk_id = ?", [bad]) == 0
    others = graph.rows(
        "SELECT c.chunk_id, count(e.entity_id) FROM chunks c LEFT JOIN entities e USING (chunk_id) "
        "WHERE c.chunk_id <> ? GROUP BY 1",
        [bad],
    )
    assert len(others) == graph.one("SELECT count(*) FROM chunks") - 1 and all(n > 0 for _, n in others)
    assert graph.one("SELECT count(*) FROM kg_edges WHERE source_id NOT IN (SELECT node_id FROM kg_nodes)") == 0

    # the endpoint recovers: the next run extracts only the failed chunk
    fake_openai.clear_rules()
    fake_openai.reset()
    graph.ingest("bio")
    assert extract_calls(fake_openai) == [bad]
    assert graph.one("SELECT status FROM chunk_state WHERE chunk_id = ? AND stage = 'extract'", [bad]) == "done"
    assert graph.one("SELECT count(*) FROM entities WHERE chunk_id = ?", [bad]) > 0
    assert graph.one("SELECT status FROM document_status") == "Done"


def test_summaries_and_questions_failures_are_recorded_per_stage(graph, fake_openai):  # noqa: F811
    configure(graph, fake_openai)
    fake_openai.rule("atomic_questions", json_content({"questions": ["Only one?"]}))
    fake_openai.rule("chunk_summary", http_error(503, "overloaded"), conversation_id="bio/a.md#c0000")
    graph.write("bio/a.md", DOC)
    graph.ingest("bio")
    rows = dict(
        ((stage, status), n)
        for stage, status, n in graph.rows("SELECT stage, status, count(*) FROM chunk_state GROUP BY 1, 2")
    )
    n_chunks = graph.one("SELECT count(*) FROM chunks")
    assert rows[("questions", "failed")] == n_chunks  # every chunk: too few questions is a schema error
    assert rows[("summarize", "failed")] == 1
    assert graph.one("SELECT error_kind FROM chunk_state WHERE stage = 'summarize' AND status = 'failed'") == "api"
    assert graph.one("SELECT error_kind FROM chunk_state WHERE stage = 'questions' LIMIT 1") == "schema"
    # the chain of summaries went on after the failed first block
    assert graph.one("SELECT summary FROM chunks WHERE seq = 0") == ""
    assert graph.one("SELECT count(*) FROM chunks WHERE seq > 0 AND summary <> ''") == n_chunks - 1
    assert graph.one("SELECT count(*) FROM atomic_questions") == 0
    assert graph.one("SELECT status FROM document_status") == "PartiallyFailed"
