"""A crashed run never wedges the next one.

Ingestion steps hold a slot of the Dagster pool ``duckdb`` (DuckDB admits one writer). A run killed
with -9 keeps its claim, and Dagster's in-process executor then waits for that slot forever (busy,
and deaf to Ctrl-C). So before a CLI run starts, ``wait_for_pool``:
- finds the runs that hold or wait for the pool, and the ingestion runs still marked as going;
- marks those whose process is gone as failed, with the reason, and frees their slots (every step
  of ours tags its run with the process id, host and process start time: ``process_tags``);
- waits for live ones, saying what it waits for, and gives up after ``runs.pool_wait_timeout_s``
  with a clear message.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from pathlib import Path

from dagster import DagsterInstance, DagsterRunStatus, RunsFilter

POOL = "duckdb"
INGESTION_TAG = "kg/ingestion"
PID_TAG, HOST_TAG, STARTED_TAG = "kg/pid", "kg/host", "kg/pid_started"
GOING = [DagsterRunStatus.STARTING, DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]


class PoolWaitTimeout(RuntimeError):
    pass


def _process_start(pid: int) -> str:
    """The process's start time in clock ticks since boot (tells a reused pid apart), or ''."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


def process_tags(pid: int) -> dict[str, str]:
    return {PID_TAG: str(pid), HOST_TAG: socket.gethostname(), STARTED_TAG: _process_start(pid)}


def process_alive(tags: dict[str, str]) -> bool | None:
    """Is the process that ran a run alive? None when it cannot be told (no tags, another host)."""
    if PID_TAG not in tags or tags.get(HOST_TAG) != socket.gethostname():
        return None
    pid = int(tags[PID_TAG])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, owned by someone else
    started = tags.get(STARTED_TAG)
    return not (started and _process_start(pid) and _process_start(pid) != started)


def ensure_pool_limit(instance: DagsterInstance, limit: int = 1) -> None:
    """The ``duckdb`` pool by name (not as the default for every pool): one writer at a time."""
    storage = instance.event_log_storage
    if storage.supports_global_concurrency_limits and storage.get_concurrency_info(POOL).slot_count != limit:
        storage.set_concurrency_slots(POOL, limit)


def free_dead_runs(instance: DagsterInstance, exclude: str | None = None) -> tuple[list[str], list[str]]:
    """(freed run ids, live run ids) among the runs that hold the pool or are marked as going."""
    storage = instance.event_log_storage
    holders: set[str] = set()
    if storage.supports_global_concurrency_limits:
        info = storage.get_concurrency_info(POOL)
        holders = {s.run_id for s in info.claimed_slots} | {s.run_id for s in info.pending_steps}
    going = {r.run_id for r in instance.get_runs(RunsFilter(statuses=GOING, tags={INGESTION_TAG: "true"}))}
    freed, live = [], []
    for run_id in sorted((holders | going) - {exclude}):
        run = instance.get_run_by_id(run_id)
        alive = None if run is None else process_alive(dict(run.tags))
        if run is not None and not run.is_finished and alive is False:
            instance.report_run_failed(
                run,
                f"marked failed by a later run: its process (pid {run.tags.get(PID_TAG)}) is gone "
                "(killed, or the machine stopped); its pool slots were freed",
            )
        if run is None or run.is_finished or alive is False:
            if run_id in holders:
                storage.free_concurrency_slots_for_run(run_id)
            freed.append(run_id)
        else:
            live.append(run_id)
    return freed, live


def wait_for_pool(
    instance: DagsterInstance,
    timeout_s: float,
    echo: Callable[[str], None],
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> list[str]:
    """Free what dead runs hold, then wait until no live run holds the pool; the freed run ids."""
    deadline = clock() + timeout_s
    freed_all: list[str] = []
    told: set[str] = set()
    while True:
        freed, live = free_dead_runs(instance)
        for run_id in freed:
            echo(f"freed the duckdb pool slot of run {run_id[:8]} (its process is gone or it has ended)")
        freed_all += freed
        if not live:
            return freed_all
        if set(live) != told:
            described = ", ".join(_describe(instance, r) for r in live)
            echo(
                f"waiting for {described} to finish: it writes the warehouse (pool duckdb); "
                f"giving up after {timeout_s:.0f} s (runs.pool_wait_timeout_s)"
            )
            told = set(live)
        if clock() >= deadline:
            raise PoolWaitTimeout(
                f"gave up after {timeout_s:.0f} s waiting for {', '.join(_describe(instance, r) for r in live)} "
                "(pool duckdb). Let it finish, or cancel it in the Dagster UI, then run the command again; "
                "raise runs.pool_wait_timeout_s in kg.yaml to wait longer."
            )
        sleep(min(1.0, max(0.0, deadline - clock())))


def _describe(instance: DagsterInstance, run_id: str) -> str:
    run = instance.get_run_by_id(run_id)
    if run is None:
        return f"run {run_id[:8]}"
    where = f"pid {run.tags[PID_TAG]}" if PID_TAG in run.tags else "launched from the UI or a sensor"
    partition = run.tags.get("dagster/partition")
    return f"run {run_id[:8]} ({run.job_name}{' ' + partition if partition else ''}, {where})"
