"""``make dev``'s launcher: Ctrl-C stops ``dagster dev`` and every process it started.

The webserver test starts the real launcher (``python -m kg_pipelines.dev_server``) on a free
loopback port with its own DAGSTER_HOME and data dir, waits until the webserver answers, sends
SIGINT as a terminal's Ctrl-C would (to the launcher's foreground process group) and checks that
nothing of the ``dagster dev`` session is left. The other tests drive ``DevServer`` with small
stand-in process trees that ignore signals or leave orphans behind, to cover the escalation.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from kg_pipelines.dev_server import DevServer, dagster_dev_command
from tests.conftest import REPO_ROOT, free_port, server_env

STARTUP_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def _stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, ppid, pgrp, session) of ``pid`` from /proc, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[2]), int(fields[3])


def _all_pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]


def _live_in_session(sid: int) -> list[int]:
    """Processes (zombies aside) whose session or process group is ``sid``."""
    found = []
    for pid in _all_pids():
        stat = _stat(pid)
        if stat and stat[0] != "Z" and sid in (stat[2], stat[3]):
            found.append(pid)
    return found


def _children(pid: int) -> list[int]:
    return [p for p in _all_pids() if (s := _stat(p)) and s[1] == pid]


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    # zombies still count for kill(0) until their new parent reaps them
    return not _live_in_session(pgid)


def _wait_until(predicate, timeout: float, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def _kill_session(sid: int) -> None:
    for pid in [sid, *_live_in_session(sid)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@contextmanager
def stand_in(script: str, **settings):
    """A started ``DevServer`` over a small shell tree in place of ``dagster dev``; whatever is left
    of its session is killed afterwards."""
    server = DevServer(["sh", "-c", script], **settings)
    server.start()
    try:
        yield server
    finally:
        _kill_session(server.sid)


def test_command_serves_the_given_host_port_and_workspace():
    command = dagster_dev_command("127.0.0.1", 3456, "workspace.yaml", ["--log-level", "debug"])
    assert command[:4] == [sys.executable, "-m", "dagster", "dev"]
    assert command[4:] == ["-h", "127.0.0.1", "-p", "3456", "-w", "workspace.yaml", "--log-level", "debug"]


@needs_proc
def test_signal_ignoring_tree_is_killed_after_the_grace_period(tmp_path):
    ready = tmp_path / "child.pid"
    # the leader and its child ignore SIGINT and SIGTERM (ignored dispositions survive exec)
    script = f'trap "" INT TERM; sleep 600 & echo $! > {ready}; wait; sleep 600'
    with stand_in(script, grace_s=1.0) as server:
        assert _wait_until(ready.exists, 10), "stand-in tree did not start"
        assert len(_live_in_session(server.sid)) == 2
        server.request_stop(signal.SIGINT)
        server.wait()
        assert server.killed
        assert _wait_until(lambda: _group_gone(server.sid), STOP_TIMEOUT_S), _live_in_session(server.sid)


@needs_proc
def test_processes_left_behind_by_the_leader_are_stopped(tmp_path):
    ready = tmp_path / "orphan.pid"
    # the leader starts a child and exits at once: the orphan must not outlive the launcher
    script = f"sleep 600 & echo $! > {ready}"
    with stand_in(script, grace_s=5.0, settle_s=0.5) as server:
        code = server.wait()
        assert code == 0
        assert ready.exists()
        orphan = int(ready.read_text())
        assert _wait_until(lambda: (s := _stat(orphan)) is None or s[0] == "Z", STOP_TIMEOUT_S)
        assert _wait_until(lambda: _group_gone(server.sid), STOP_TIMEOUT_S), _live_in_session(server.sid)


@needs_proc
def test_a_process_finishing_after_the_leader_is_not_signalled(tmp_path):
    # a code server still shutting down when dagster dev exits: SIGTERM would reach it as a
    # KeyboardInterrupt in the middle of its exit and print a traceback
    marks = tmp_path / "marks"
    script = f'(trap "echo TERM >> {marks}" TERM; sleep 1.5; echo done >> {marks}) &'
    with stand_in(script, grace_s=10.0, settle_s=5.0) as server:
        assert server.wait() == 0
        assert _wait_until(marks.exists, 5)
        assert marks.read_text().split() == ["done"]


@needs_proc
@pytest.mark.webserver
def test_ctrl_c_stops_dagster_dev_and_everything_it_started(tmp_path):
    data, env = server_env(tmp_path)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "dev_server.log"

    with log.open("wb") as handle:
        # its own process group stands for the terminal's foreground group of `make dev`
        launcher = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kg_pipelines.dev_server",
                "--port",
                str(port),
                "--workspace",
                str(REPO_ROOT / "workspace.yaml"),
            ],
            cwd=REPO_ROOT,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    output = lambda: log.read_text(errors="replace")[-8000:]  # noqa: E731
    dagster_sid = None
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if launcher.poll() is not None:
                pytest.fail(f"the launcher exited with code {launcher.returncode}:\n{output()}")
            try:
                if requests.get(f"{url}/server_info", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"dagster dev not serving {url} after {STARTUP_TIMEOUT_S:.0f}s:\n{output()}")
            time.sleep(0.5)

        children = _children(launcher.pid)
        assert len(children) == 1, children
        dagster_sid = children[0]
        assert _stat(dagster_sid)[3] == dagster_sid, "dagster dev must lead a session of its own"
        started = _live_in_session(dagster_sid)
        # dagster dev, its webserver and daemon (code servers come on top)
        assert len(started) >= 3, started

        os.killpg(launcher.pid, signal.SIGINT)  # what Ctrl-C sends to the foreground group
        try:
            code = launcher.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the launcher still runs {STOP_TIMEOUT_S:.0f}s after SIGINT:\n{output()}")
        assert code == 0, output()
        assert _wait_until(lambda: _group_gone(dagster_sid), STOP_TIMEOUT_S), (
            f"left behind: {_live_in_session(dagster_sid)}"
        )
        assert all(_stat(pid) is None or _stat(pid)[0] == "Z" for pid in started)
        with pytest.raises(requests.RequestException):
            requests.get(f"{url}/server_info", timeout=2)
        text = output()
        assert "stopped dagster dev" in text
        assert "Traceback" not in text, text
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait(timeout=10)
        if dagster_sid is not None:
            _kill_session(dagster_sid)
