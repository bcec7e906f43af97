"""Writing a stage's output batch by batch: for each batch, its work (LLM calls, rows), then its
vectors, then its DuckDB transaction. Vectors go first: a crash between the two leaves vectors
that the next run rewrites, never rows without vectors; a crash loses at most the batch in flight.
(The chunk stage embeds several batches' chunks in one call after their rows: its ``vectors``
step only drops the vectors its rows make stale; ``chunking.sync_chunks`` says how it recovers.)

Embedding batch k in a background thread while batch k+1's LLM work runs was measured on the
2-core machine with the offline provider: slower (torch's threads and the heuristics' Python
contend for the cores), so batches run one after the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

B = TypeVar("B")  # a batch of input
P = TypeVar("P")  # a prepared batch: what its work produced


def write_in_batches(
    batches: Iterable[B],
    prepare: Callable[[B], P],
    write_vectors: Callable[[P], None] | None,
    commit: Callable[[P], None],
) -> None:
    """For each batch: ``prepare`` it, ``write_vectors`` (if any), then ``commit`` it."""
    for batch in batches:
        prepared = prepare(batch)
        if write_vectors is not None:
            write_vectors(prepared)
        commit(prepared)
