"""One analysis per chunk for the offline provider's three tasks (summary, extraction, questions).

Ingestion runs the tasks as three passes over a run's chunks, one stage after the other (the
chunk stage summarizes every chunk, then extraction reads them all, then the question stage),
and the analysis of a text (``entities.analyze``: sentences, tokens, mentions, cues) is most of
what each task costs. Kept from the summary pass to the question pass, it is computed once
instead of three times. It costs about 55 bytes per character of text, so the cache is bounded
by the characters it holds (``budget_chars``; the memory stays flat however large the run), and
what it admits follows the order of the passes, so that a run larger than the budget still has
the last ``budget_chars`` it summarized analysed once, not a cache that every pass flushes:

- ``retain`` (the summary, the first pass) admits the text, evicting the least recently used
  entries over the budget (those of an earlier run first);
- ``get`` (extraction, and any other reader) keeps what it had to analyse only while there is
  room: evicting would throw out the entries the next pass is about to read, for one that it
  reads after they are gone (a pass over more than the budget would then hit nothing);
- ``release`` (the questions, the last pass) drops the entry: nothing reads it after them.

Entries are keyed by a digest of the text. Thread-safe (the API answers questions in threads).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

A = TypeVar("A")


class AnalysisCache(Generic[A]):
    def __init__(self, analyse: Callable[[str], A], budget_chars: int):
        self._analyse = analyse
        self.budget_chars = budget_chars
        self._entries: OrderedDict[bytes, tuple[A, int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def get(self, text: str) -> A:
        """The text's analysis, kept if there is room (without evicting anything)."""
        return self._get(text, evict=False)

    def retain(self, text: str) -> A:
        """The text's analysis, kept for the passes to come (the least recently used make room)."""
        return self._get(text, evict=True)

    def release(self, text: str) -> None:
        with self._lock:
            entry = self._entries.pop(self._key(text), None)
            if entry is not None:
                self._chars -= entry[1]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = 0

    @property
    def chars(self) -> int:
        return self._chars

    def __len__(self) -> int:
        return len(self._entries)

    def _get(self, text: str, evict: bool) -> A:
        key = self._key(text)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry[0]
            self.misses += 1
        analysis = self._analyse(text)  # outside the lock: another thread may analyse the same text
        size = len(text)
        with self._lock:
            if key in self._entries or size > self.budget_chars:
                return analysis
            if evict:
                while self._entries and self._chars + size > self.budget_chars:
                    self._chars -= self._entries.popitem(last=False)[1][1]
            if self._chars + size <= self.budget_chars:
                self._entries[key] = (analysis, size)
                self._chars += size
        return analysis
