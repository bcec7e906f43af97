"""``make dev``: run ``dagster dev`` so that Ctrl-C or SIGTERM stops every process it started.

``dagster dev`` starts a webserver, a daemon, code servers and (through the daemon) run workers.
Run straight from ``make`` some of them outlive the interrupt. This launcher starts ``dagster dev``
as the leader of a session and process group of its own, so that the whole tree can be addressed
at once:

- SIGINT, SIGTERM or SIGHUP to the launcher interrupts ``dagster dev``, which shuts its services
  down; once it has exited, whatever is left of its group or session gets ``--settle`` seconds
  to finish on its own (code servers shut down after their parent) and then SIGTERM;
- whatever is still alive after ``--grace`` seconds (or at a second Ctrl-C) gets SIGKILL;
- if ``dagster dev`` ends on its own, what it leaves behind is stopped the same way.

A terminal's Ctrl-C reaches only the launcher (``dagster dev`` is not in the terminal's
foreground process group), so the shutdown always goes through here.

It prints one line when done (``stopped dagster dev``) and never a traceback. Plain Python, no
dagster import: usable before the code location loads.

    python -m kg_pipelines.dev_server [--host 127.0.0.1] [--port 3000] [--workspace workspace.yaml]
                                       [--grace 15] [--settle 5] [-- extra dagster dev arguments]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 3000
DEFAULT_GRACE_S = 15.0
# Dagster's processes turn SIGTERM into KeyboardInterrupt: one that arrives while a code server
# is already exiting prints a traceback from its thread-pool shutdown, so leftovers get time first
DEFAULT_SETTLE_S = 5.0
_POLL_S = 0.2
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def dagster_dev_command(host: str, port: int, workspace: str, extra: Sequence[str] = ()) -> list[str]:
    return [sys.executable, "-m", "dagster", "dev", "-h", host, "-p", str(port), "-w", workspace, *extra]


def session_members(sid: int) -> list[int]:
    """Live (non-zombie) processes of session ``sid``; without /proc, of process group ``sid``."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        try:
            os.killpg(sid, 0)
        except ProcessLookupError:
            return []
        except PermissionError:
            pass
        return [sid]
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) >= 4 and fields[0] != "Z" and (int(fields[2]) == sid or int(fields[3]) == sid):
            members.append(int(entry.name))
    return members


def signal_session(sid: int, sig: int) -> None:
    """Send ``sig`` to the process group ``sid`` and to any member of the session outside it."""
    try:
        os.killpg(sid, sig)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in session_members(sid):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


class DevServer:
    """One ``dagster dev`` process tree in its own session, stopped as a whole."""

    def __init__(
        self,
        command: Sequence[str],
        grace_s: float = DEFAULT_GRACE_S,
        env: dict | None = None,
        settle_s: float = DEFAULT_SETTLE_S,
    ):
        self.command = list(command)
        self.grace_s = grace_s
        self.settle_s = settle_s
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.stop_signal: int | None = None
        self.deadline: float | None = None
        self.killed = False

    def start(self) -> None:
        self.proc = subprocess.Popen(self.command, env=self.env, start_new_session=True)

    @property
    def sid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def request_stop(self, signum: int) -> None:
        """Interrupt ``dagster dev``; a second request kills the whole group at once.

        The signal goes to the leader only: ``dagster dev`` then stops its webserver and daemon
        through their shutdown pipes and logs "Dagster services shut down". (Signalling every
        process at once makes them race their own shutdown and print "Aborted!".) Whatever is
        left when the leader is gone gets SIGTERM, and everything still alive at the deadline
        gets SIGKILL.
        """
        if self.stop_signal is None:
            self.stop_signal = signum
            self.deadline = time.monotonic() + self.grace_s
            try:
                os.kill(self.sid, signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)
            except ProcessLookupError:
                pass
        else:
            self.deadline = time.monotonic()
            self._kill_if_overdue()

    def _kill_if_overdue(self) -> None:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.killed = self.killed or bool(session_members(self.sid))
            signal_session(self.sid, signal.SIGKILL)

    def wait(self) -> int:
        """Wait for the leader, then for (or stop) what it left behind; the leader's exit code."""
        assert self.proc is not None
        while True:
            try:
                code = self.proc.wait(timeout=_POLL_S)
                break
            except subprocess.TimeoutExpired:
                self._kill_if_overdue()
        self._wait_for_session(until=time.monotonic() + self.settle_s)
        if session_members(self.sid):
            # what dagster dev left behind (a code server, a run worker) is stopped too
            if self.deadline is None:
                self.deadline = time.monotonic() + self.grace_s
            signal_session(self.sid, signal.SIGTERM)
        self._wait_for_session()
        return code

    def _wait_for_session(self, until: float | None = None) -> None:
        """Poll until nothing of the session is left (or ``until`` passes), killing it once overdue."""
        while session_members(self.sid) and (until is None or time.monotonic() < until):
            self._kill_if_overdue()
            time.sleep(_POLL_S)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kg_pipelines.dev_server",
        description="Run `dagster dev`; Ctrl-C or SIGTERM stops every process it started.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST)
    # a string default goes through type=int too: a bad $PORT is a usage error, not a traceback
    parser.add_argument("--port", type=int, default=os.environ.get("PORT") or str(DEFAULT_PORT))
    parser.add_argument("--workspace", "-w", default="workspace.yaml")
    parser.add_argument("--grace", type=float, default=DEFAULT_GRACE_S, help="seconds before SIGKILL (default 15)")
    parser.add_argument(
        "--settle",
        type=float,
        default=DEFAULT_SETTLE_S,
        help="seconds left to what outlives dagster dev before SIGTERM (default 5)",
    )
    args, extra = parser.parse_known_args(argv)
    if extra[:1] == ["--"]:
        extra = extra[1:]
    if not 0 < args.port < 65536:
        parser.error(f"--port {args.port}: expected 1..65535")

    server = DevServer(
        dagster_dev_command(args.host, args.port, args.workspace, extra), args.grace, settle_s=args.settle
    )
    # handlers first: a signal that arrives while the child starts is still forwarded
    pending: list[int] = []

    def on_signal(signum, _frame):
        if server.proc is None:
            pending.append(signum)
        else:
            server.request_stop(signum)

    for sig in _FORWARDED:
        signal.signal(sig, on_signal)
    try:
        server.start()
    except OSError as exc:
        print(f"dev_server: cannot start dagster dev: {exc}", file=sys.stderr)
        return 1
    print(f"dagster dev on http://{args.host}:{args.port} (process group {server.sid}); Ctrl-C stops it", flush=True)
    for signum in pending:
        server.request_stop(signum)
    code = server.wait()

    if server.stop_signal is not None:
        name = signal.Signals(server.stop_signal).name
        how = " (killed what was still running after the grace period)" if server.killed else ""
        print(f"stopped dagster dev on {name}{how}", flush=True)
        return 0
    print(f"dagster dev exited with code {code}", flush=True)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
