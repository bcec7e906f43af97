"""The seed's job queue, per document: chunks processed by a worker pool, each chunk retried.

Every chunk-level LLM stage (summarize, extract, questions) runs its calls through here:
- ``run_with_retries`` makes one chunk's call, retrying with exponential backoff and jitter up to
  ``max_chunk_retries`` times, and returns a ``ChunkOutcome`` with the attempts, the last error
  and its kind (schema / api / timeout), so that nothing fails silently;
- ``run_chunk_jobs`` spreads many chunks over a thread pool of ``workers``.
The outcome becomes a ``chunk_state`` row; a chunk that exhausted its retries is ``failed``, its
document ``PartiallyFailed``, and the next run processes only the failed chunks again.
"""

from __future__ import annotations

import random
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable, TypeVar

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
    error_kind: str | None  # schema | api | timeout | internal
    last_error: str | None
    next_run_at: datetime | None  # when a later run may try a failed chunk again


def run_with_retries(
    chunk_id: str,
    call: Callable[[], T],
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
) -> ChunkOutcome:
    last_kind = last_error = None
    attempts = 0
    for attempt in range(policy.max_retries + 1):
        if attempt:
            sleep(policy.delay(chunk_id, attempt))
        attempts += 1
        try:
            return ChunkOutcome(chunk_id, True, call(), attempts, last_kind, last_error, None)
        except LLMError as exc:
            last_kind, last_error = exc.kind, exc.message
        except Exception as exc:  # a bug or an unexpected failure: recorded, never silent
            last_kind, last_error = "internal", f"{type(exc).__name__}: {exc}"
    retry_at = datetime.now(timezone.utc) + timedelta(seconds=policy.delay(chunk_id, attempts))
    return ChunkOutcome(chunk_id, False, None, attempts, last_kind, last_error, retry_at)


def run_chunk_jobs(
    jobs: Iterable[tuple[str, Callable[[], T]]],
    policy: RetryPolicy,
    workers: int,
    on_done: Callable[[ChunkOutcome], None] | None = None,
) -> dict[str, ChunkOutcome]:
    """Run ``(chunk_id, call)`` jobs on a pool of ``workers`` threads; outcomes by chunk id."""
    jobs = list(jobs)
    outcomes: dict[str, ChunkOutcome] = {}
    if workers <= 1 or len(jobs) <= 1:
        for chunk_id, call in jobs:
            outcomes[chunk_id] = run_with_retries(chunk_id, call, policy)
            if on_done:
                on_done(outcomes[chunk_id])
        return outcomes
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="chunk-worker") as pool:
        futures = [pool.submit(run_with_retries, chunk_id, call, policy) for chunk_id, call in jobs]
        for future in futures:
            outcome = future.result()
            outcomes[outcome.chunk_id] = outcome
            if on_done:
                on_done(outcome)
    return outcomes
