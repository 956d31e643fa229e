"""Test support: layoutd processes and free loopback ports (re-exported by ``layoutd_testkit``).

Every wait here is bounded and polls; nothing sleeps for a fixed time.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
SCHEMA_DIR = REPO / "docs" / "schema"
DEFAULT_BIN = "/work/bin/layoutd"

#: Overall bound on a daemon or cluster becoming ready.
READY_SECONDS = 60.0
#: Bound on a daemon exiting after SIGTERM before it is killed.
STOP_SECONDS = 15.0


def layoutd_binary() -> str:
    """The daemon under test: $LAYOUTD_BIN, else the lead's current build."""
    path = os.environ.get("LAYOUTD_BIN") or DEFAULT_BIN
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"no layoutd binary at {path!r}: set LAYOUTD_BIN")
    return path


_ports: set[int] = set()
_ports_lock = threading.Lock()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listened on a moment ago, never handed out twice per run."""
    with _ports_lock:
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            if port not in _ports:
                _ports.add(port)
                return port


def tcp(port: int) -> str:
    return f"tcp://127.0.0.1:{port}"


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    """Polls ``predicate`` until it returns something truthy; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(interval)  # the interval of a bounded poll


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the test process dies, so that a killed test run leaves no
    daemon behind (Linux prctl PR_SET_PDEATHSIG; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Process:
    """One daemon process, its output in a log file."""

    def __init__(self, name: str, args: Sequence[str], workdir: Path) -> None:
        self.name = name
        self.args = list(args)
        self.log_path = workdir / f"{name}.log"
        self._log = open(self.log_path, "wb")
        # The daemon reads config/layoutd.yaml relative to its working directory: run it in an empty one.
        self.popen = subprocess.Popen(
            self.args,
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def log(self, limit: int = 4000) -> str:
        self._log.flush()
        text = self.log_path.read_text(errors="replace")
        return text[-limit:]

    def stop(self) -> int | None:
        """SIGTERM, then SIGKILL if it has not exited within STOP_SECONDS. Returns its exit status."""
        if self.alive():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(STOP_SECONDS)
        self._log.close()
        return self.popen.returncode

    def kill(self) -> None:
        if self.alive():
            self.popen.kill()
            self.popen.wait(STOP_SECONDS)
