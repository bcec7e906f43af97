"""What a run did per document, kept for the run's metadata table in bounded memory.

A stage's report used to keep a dict entry for every document of the run (about 0.5 KB each, for
the whole run, in each of four stages), while the asset shows only the first ``ACTIVITY_ROWS``
documents by id and a count of the rest. ``RunActivity`` keeps just those: the ``keep`` documents
of smallest id seen so far (a document with a larger id, once ``keep`` are held, can never be among
the first again, so its record is dropped as soon as it is made), the number of documents recorded,
and the same for the documents recorded with an error. Its size is at most ``2 x keep`` records
whatever the run's size (``tests/test_run_activity.py`` holds it to that).

The one contract with callers: a document is recorded either once (``set``) or by consecutive
calls (``add``, as the chunk stages do: their chunks come ordered by document), so that counting
documents needs no set of every id.
"""

from __future__ import annotations

import bisect

ACTIVITY_ROWS = 50  # documents a run's activity table shows


class _Smallest:
    """The ``keep`` records of smallest document id, by id."""

    def __init__(self, keep: int):
        self.keep = keep
        self.rows: dict[str, dict] = {}
        self._ids: list[str] = []  # the keys of ``rows``, sorted

    def offer(self, document_id: str, row: dict) -> dict | None:
        """``row`` kept under ``document_id`` (the record kept, or None when it is not among the first)."""
        if document_id in self.rows:
            self.rows[document_id] = row
            return row
        if len(self._ids) >= self.keep and document_id > self._ids[-1]:
            return None
        bisect.insort(self._ids, document_id)
        self.rows[document_id] = row
        if len(self._ids) > self.keep:
            del self.rows[self._ids.pop()]
        return self.rows.get(document_id)


class RunActivity:
    """``rows``: the first ``keep`` documents (by id) and what the run did for each;
    ``documents``: how many documents the run recorded; ``errors`` / ``documents_with_error``: the
    same for the documents whose record has an ``error``."""

    def __init__(self, keep: int | None = None):
        keep = ACTIVITY_ROWS if keep is None else keep
        self._all, self._errors = _Smallest(keep), _Smallest(keep)
        self.documents = 0
        self.documents_with_error = 0
        self._last: str | None = None  # the document ``add`` sums into
        self._last_row: dict | None = None  # its record while it is being added to, kept or not

    @property
    def rows(self) -> dict[str, dict]:
        return self._all.rows

    @property
    def errors(self) -> dict[str, dict]:
        return self._errors.rows

    def held(self) -> int:
        """Records held (at most twice ``keep``, plus the one being added to): what the run keeps."""
        return len(self._all.rows) + len(self._errors.rows) + (self._last_row is not None)

    def set(self, document_id: str, row: dict) -> None:
        """Record ``row`` for a document recorded once."""
        self._finish()
        self.documents += 1
        self._all.offer(document_id, row)
        if row.get("error"):
            self.documents_with_error += 1
            self._errors.offer(document_id, row)

    def add(self, document_id: str, counts: dict, **fields) -> None:
        """Sum ``counts`` into the document's record (started at zeros), and set ``fields``
        (a non-empty ``error`` is kept): the calls for one document come one after the other."""
        if document_id != self._last:
            self._finish()
            self._last, self._last_row = document_id, {**dict.fromkeys(counts, 0), "error": None}
            self.documents += 1
            self._all.offer(document_id, self._last_row)
        row = self._last_row
        for key, n in counts.items():
            row[key] = row.get(key, 0) + n
        row.update({k: v for k, v in fields.items() if v is not None or k not in row})

    def _finish(self) -> None:
        """The document added to last is complete: count it among those with an error if it has one."""
        if self._last_row is not None and self._last_row.get("error"):
            self.documents_with_error += 1
            self._errors.offer(self._last, self._last_row)
        self._last, self._last_row = None, None

    def done(self) -> RunActivity:
        """Every document is recorded (call before reading ``errors``)."""
        self._finish()
        return self
