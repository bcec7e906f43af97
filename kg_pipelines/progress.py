"""Progress of long stages: logged, and shown as a bar by the CLI.

Stages report through ``StageProgress``; anyone in the same process (the CLI's progress bar) can
listen with ``add_listener``. Dagster runs launched in-process by the CLI therefore drive the bar,
and runs launched from the UI log their progress at most every ``LOG_EVERY_S`` seconds, and the end
of a stage that logged its progress before (each log line is an event in Dagster's event log, a
write to its storage: a stage done within ``LOG_EVERY_S`` logs nothing, its counts are in the
asset's metadata).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

LOG_EVERY_S = 10.0

Listener = Callable[[str, int, int], None]  # (stage, done, total)
_listeners: list[Listener] = []


def add_listener(listener: Listener) -> None:
    _listeners.append(listener)


def remove_listener(listener: Listener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


class StageProgress:
    def __init__(self, stage: str, total: int, log: Callable[[str], None] | None = None):
        self.stage, self.total, self.done = stage, total, 0
        self._log = log
        self._logged = False  # a line was logged: the end is logged too
        self._last_log = time.monotonic()
        self._lock = threading.Lock()
        self._notify()

    def __call__(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            now = time.monotonic()
            if self._log and ((self.done == self.total and self._logged) or now - self._last_log >= LOG_EVERY_S):
                self._log(f"{self.stage}: {self.done}/{self.total}")
                self._last_log, self._logged = now, True
            self._notify()

    def _notify(self) -> None:
        for listener in list(_listeners):
            listener(self.stage, self.done, self.total)
