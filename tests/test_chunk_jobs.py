"""The per-chunk job runner: retries with exponential backoff and jitter, error kinds, the pool."""

import threading
import time

from kg_pipelines.ingestion.chunk_jobs import RetryPolicy, run_chunk_jobs, run_with_retries
from kg_pipelines.llm.client import LLMError


def test_backoff_grows_exponentially_with_bounded_jitter_and_a_cap():
    policy = RetryPolicy(max_retries=6, base_s=1.0, max_s=10.0)
    delays = [policy.delay("chunk-a", attempt) for attempt in range(1, 7)]
    for attempt, d in enumerate(delays, 1):
        ceiling = min(10.0, 2 ** (attempt - 1))
        assert ceiling * 0.5 <= d <= ceiling
    assert delays[3] > delays[0] * 2
    assert policy.delay("chunk-a", 2) == policy.delay("chunk-a", 2)  # reproducible per chunk
    assert policy.delay("chunk-a", 2) != policy.delay("chunk-b", 2)  # spread across chunks


def test_retries_then_succeeds_and_counts_attempts():
    sleeps, calls = [], []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise LLMError("api", "HTTP 500")
        return "ok"

    outcome = run_with_retries("c1", flaky, RetryPolicy(3, 0.5, 8), sleep=sleeps.append)
    assert outcome.ok and outcome.value == "ok" and outcome.attempts == 3
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] * 0.9


def test_exhausted_retries_mark_the_chunk_failed_with_kind_and_message():
    def broken():
        raise LLMError("schema", "extract: entities.0.entity_type: not a configured type")

    outcome = run_with_retries("c2", broken, RetryPolicy(2, 0, 0), sleep=lambda s: None)
    assert not outcome.ok and outcome.attempts == 3
    assert outcome.error_kind == "schema" and "entity_type" in outcome.last_error
    assert outcome.next_run_at is not None


def test_unexpected_exceptions_are_recorded_as_internal_not_raised():
    outcome = run_with_retries("c3", lambda: 1 / 0, RetryPolicy(0, 0, 0))
    assert not outcome.ok and outcome.error_kind == "internal" and "ZeroDivisionError" in outcome.last_error


def test_pool_runs_chunks_concurrently_and_reports_every_chunk():
    active, peak, lock = [0], [0], threading.Lock()

    def work(i):
        def call():
            with lock:
                active[0] += 1
                peak[0] = max(peak[0], active[0])
            time.sleep(0.05)
            with lock:
                active[0] -= 1
            if i == 3:
                raise LLMError("timeout", "slow")
            return i * 10

        return call

    done = []
    outcomes = run_chunk_jobs([(f"c{i}", work(i)) for i in range(8)], RetryPolicy(0, 0, 0), workers=4, on_done=done.append)
    assert len(outcomes) == 8 and len(done) == 8
    assert peak[0] > 1
    assert outcomes["c5"].value == 50
    assert not outcomes["c3"].ok and outcomes["c3"].error_kind == "timeout"
