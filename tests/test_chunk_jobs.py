"""The per-chunk job runner: retries with exponential backoff and jitter, error kinds, the pool, and
bugs that propagate instead of being recorded as chunk failures."""

import threading
import traceback

import pytest

from kg_pipelines.ingestion.chunk_jobs import RetryPolicy, run_chunk_jobs, run_with_retries
from kg_pipelines.llm.client import LLMError

WAIT_S = 10  # an upper bound for waits between threads, never reached when the code is right


def test_backoff_grows_exponentially_with_bounded_jitter_and_a_cap():
    policy = RetryPolicy(max_retries=6, base_s=1.0, max_s=10.0)
    delays = [policy.delay("chunk-a", attempt) for attempt in range(1, 7)]
    for attempt, d in enumerate(delays, 1):
        ceiling = min(10.0, 2 ** (attempt - 1))
        assert ceiling * 0.5 <= d <= ceiling
    assert policy.delay("chunk-a", 2) == RetryPolicy(6, 1.0, 10.0).delay("chunk-a", 2)  # reproducible per chunk
    assert policy.delay("chunk-a", 2) != policy.delay("chunk-b", 2)  # spread across chunks


def test_retries_then_succeeds_and_counts_attempts():
    sleeps, calls = [], []
    policy = RetryPolicy(3, 0.5, 8)

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise LLMError("api", "HTTP 500")
        return "ok"

    outcome = run_with_retries("c1", flaky, policy, sleep=sleeps.append)
    assert outcome.ok and outcome.value == "ok" and outcome.attempts == 3
    assert sleeps == [policy.delay("c1", 1), policy.delay("c1", 2)]  # the backoff before retries 1 and 2
    assert outcome.next_run_at is None


def test_exhausted_retries_mark_the_chunk_failed_with_kind_and_message():
    calls = []

    def broken():
        calls.append(1)
        raise LLMError("schema", "extract: entities.0.entity_type: not a configured type")

    outcome = run_with_retries("c2", broken, RetryPolicy(2, 0, 0), sleep=lambda s: None)
    assert not outcome.ok and outcome.attempts == 3 and len(calls) == 3
    assert outcome.error_kind == "schema" and "entity_type" in outcome.last_error
    assert outcome.next_run_at is not None  # a failed chunk is scheduled for a later run


def test_ungrounded_answers_are_retried_and_recorded_like_other_llm_errors():
    answers = [LLMError("ungrounded", "extract: entity 'X': the name does not occur in the chunk"), "fine"]

    def flaky():
        a = answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a

    def always():
        raise LLMError("ungrounded", "extract: entity 'X': the name does not occur in the chunk")

    assert run_with_retries("c1", flaky, RetryPolicy(1, 0, 0), sleep=lambda s: None).value == "fine"
    failed = run_with_retries("c2", always, RetryPolicy(1, 0, 0), sleep=lambda s: None)
    assert (failed.ok, failed.attempts, failed.error_kind) == (False, 2, "ungrounded")
    assert failed.last_error == "extract: entity 'X': the name does not occur in the chunk"


# -- a bug is not a chunk failure ----------------------------------------------------------------
def _buggy_extraction():
    return {"entities": []}["relationships"]  # a programming error: KeyError


def test_a_bug_propagates_from_run_with_retries_without_retry():
    calls = []

    def call():
        calls.append(1)
        return _buggy_extraction()

    with pytest.raises(KeyError) as info:
        run_with_retries("c3", call, RetryPolicy(3, 0, 0), sleep=lambda s: pytest.fail("a bug must not be retried"))
    assert calls == [1]
    assert info.traceback[-1].name == "_buggy_extraction"  # the original traceback, where the bug is


def test_a_bug_stops_a_sequential_run():
    ran = []

    def job(i):
        def call():
            ran.append(i)
            if i == 1:
                _buggy_extraction()
            return i

        return call

    with pytest.raises(KeyError):
        run_chunk_jobs([(f"c{i}", job(i)) for i in range(5)], RetryPolicy(0, 0, 0), workers=1)
    assert ran == [0, 1]


def test_a_bug_in_the_pool_is_raised_at_once_and_no_further_chunk_starts():
    started, lock = [], threading.Lock()
    release = threading.Event()
    released_in_time = []

    def job(i):
        def call():
            with lock:
                started.append(i)
            if i == 0:
                _buggy_extraction()
            # the other chunk in flight stays busy until the test has seen the exception
            released_in_time.append(release.wait(WAIT_S))
            return i

        return call

    with pytest.raises(KeyError) as info:
        run_chunk_jobs([(f"c{i}", job(i)) for i in range(50)], RetryPolicy(0, 0, 0), workers=2)
    release.set()

    assert info.traceback[-1].name == "_buggy_extraction"
    assert "_buggy_extraction" in "".join(traceback.format_exception(info.value))
    assert set(started) <= {0, 1}  # only the first window of `workers` jobs ever started
    # the exception came out while chunk 1 was still running (it was released only afterwards)
    assert False not in released_in_time


def test_llm_errors_in_the_pool_are_outcomes_not_exceptions():
    def job(i):
        def call():
            if i % 3 == 0:
                raise LLMError("timeout", "slow")
            return i * 10

        return call

    outcomes = run_chunk_jobs([(f"c{i}", job(i)) for i in range(9)], RetryPolicy(1, 0, 0), workers=3)
    assert list(outcomes) == [f"c{i}" for i in range(9)]  # in job order, whatever the finishing order
    assert [o.ok for o in outcomes.values()] == [i % 3 != 0 for i in range(9)]
    assert outcomes["c5"].value == 50
    assert outcomes["c3"].error_kind == "timeout" and outcomes["c3"].attempts == 2


def test_pool_runs_workers_chunks_at_once_and_reports_every_chunk():
    workers = 4
    together = threading.Barrier(workers, timeout=WAIT_S)  # breaks unless `workers` calls run at once

    def job(i):
        def call():
            together.wait()
            return i

        return call

    done = []
    outcomes = run_chunk_jobs([(f"c{i}", job(i)) for i in range(8)], RetryPolicy(0, 0, 0), workers, on_done=done.append)
    assert sorted(o.chunk_id for o in done) == sorted(outcomes) == sorted(f"c{i}" for i in range(8))
    assert all(o.ok for o in outcomes.values())
