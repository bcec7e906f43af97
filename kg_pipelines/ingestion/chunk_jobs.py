"""The seed's job queue, per document: chunks processed by a worker pool, each chunk retried.

Every chunk-level LLM stage (summarize, extract, questions) runs its calls through here:
- ``run_with_retries`` makes one chunk's call, retrying with exponential backoff and jitter up to
  ``max_chunk_retries`` times, and returns a ``ChunkOutcome`` with the attempts, the last error
  and its kind (schema / ungrounded / api / timeout), so that nothing fails silently;
- ``run_chunk_jobs`` spreads many chunks over a thread pool of ``workers``.
The outcome becomes a ``chunk_state`` row; a chunk that exhausted its retries is ``failed``, its
document ``PartiallyFailed``, and the next run processes only the failed chunks again.

Only ``LLMError`` is a chunk failure. Any other exception is a bug (or a broken environment), not
data: it is neither retried nor recorded, it propagates out of ``run_with_retries`` and
``run_chunk_jobs`` with its original traceback, and the pool starts no further chunk.
"""

from __future__ import annotations

import random
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from kg_pipelines.llm.client import LLMError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    base_s: float = 1.0
    max_s: float = 30.0

    def delay(self, chunk_id: str, attempt: int) -> float:
        """Backoff before retry ``attempt`` (1-based): exponential, capped, with +-50% jitter.

        The jitter is seeded by chunk id and attempt, so concurrent chunks spread out while a
        given chunk's schedule is reproducible.
        """
        ceiling = min(self.max_s, self.base_s * (2 ** (attempt - 1)))
        rng = random.Random(zlib.crc32(f"{chunk_id}:{attempt}".encode()))
        return ceiling * (0.5 + rng.random() / 2)


@dataclass(frozen=True)
class ChunkOutcome:
    chunk_id: str
    ok: bool
    value: Any
    attempts: int
    error_kind: str | None  # the LLMError kind: schema | ungrounded | api | timeout
    last_error: str | None
    next_run_at: datetime | None  # when a later run may try a failed chunk again
    model_s: float = 0.0  # seconds spent inside the call (every attempt, not the backoff between them)


class _Abandoned(Exception):
    """Raised inside a worker whose run was given up (another chunk raised): no further attempt."""


def run_with_retries(
    chunk_id: str,
    call: Callable[[], T],
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
    abandoned: threading.Event | None = None,
) -> ChunkOutcome:
    """Call ``call`` until it returns, retrying on ``LLMError`` up to ``policy.max_retries`` times.

    Any other exception propagates at once (no retry). With ``abandoned`` set (by the pool when
    another chunk raised), no further attempt is made and the backoff sleep is cut short.
    """
    last_kind = last_error = None
    attempts = 0
    model_s = 0.0
    for attempt in range(policy.max_retries + 1):
        if attempt:
            if abandoned is None:
                sleep(policy.delay(chunk_id, attempt))
            elif abandoned.wait(policy.delay(chunk_id, attempt)):
                raise _Abandoned(chunk_id)
        if abandoned is not None and abandoned.is_set():
            raise _Abandoned(chunk_id)
        attempts += 1
        started = time.perf_counter()
        try:
            value = call()
        except LLMError as exc:
            last_kind, last_error = exc.kind, exc.message
            continue
        finally:
            model_s += time.perf_counter() - started
        return ChunkOutcome(chunk_id, True, value, attempts, last_kind, last_error, None, model_s)
    retry_at = datetime.now(UTC) + timedelta(seconds=policy.delay(chunk_id, attempts))
    return ChunkOutcome(chunk_id, False, None, attempts, last_kind, last_error, retry_at, model_s)


def run_chunk_jobs(
    jobs: Iterable[tuple[str, Callable[[], T]]],
    policy: RetryPolicy,
    workers: int,
    on_done: Callable[[ChunkOutcome], None] | None = None,
) -> dict[str, ChunkOutcome]:
    """Run ``(chunk_id, call)`` jobs on a pool of ``workers`` threads; outcomes by chunk id, in job
    order (``on_done`` sees them as they finish).

    At most ``workers`` jobs are in flight; the next one is submitted when one finishes. When a
    job raises anything but ``LLMError``, that exception is raised here as soon as it is seen: no
    further job is submitted, jobs not yet started are cancelled, and jobs in flight make no
    further attempt (their results are discarded; the pool's threads end on their own).
    """
    jobs = list(jobs)
    outcomes: dict[str, ChunkOutcome] = {}
    if workers <= 1 or len(jobs) <= 1:
        for chunk_id, call in jobs:
            outcomes[chunk_id] = run_with_retries(chunk_id, call, policy)
            if on_done:
                on_done(outcomes[chunk_id])
        return outcomes
    abandoned = threading.Event()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="chunk-worker")
    pending = iter(jobs)
    in_flight: set[Future] = set()

    def submit_next() -> None:
        job = next(pending, None)
        if job is not None:
            chunk_id, call = job
            in_flight.add(pool.submit(run_with_retries, chunk_id, call, policy, abandoned=abandoned))

    try:
        for _ in range(workers):
            submit_next()
        while in_flight:
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                in_flight.discard(future)
                outcome = future.result()  # re-raises a worker's exception with its traceback
                outcomes[outcome.chunk_id] = outcome
                if on_done:
                    on_done(outcome)
                submit_next()
    except BaseException:
        abandoned.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return {chunk_id: outcomes[chunk_id] for chunk_id, _ in jobs}  # in job order
