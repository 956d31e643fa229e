"""Starting and talking to a real layoutd for the live tests: processes, readiness, sockets."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import zmq

from check import validate

# $LAYOUTD_BIN (as scripts/test-python sets it), else $LAYOUTD, else /work/bin/layoutd.
LAYOUTD = os.environ.get("LAYOUTD_BIN") or os.environ.get("LAYOUTD") or "/work/bin/layoutd"
TIMEOUT_MS = 15_000


def free_ports(n: int) -> list[int]:
    """n distinct free TCP ports on the loopback interface."""
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def wait_until(predicate, timeout: float, what: str, interval: float = 0.05):
    """Polls predicate until it returns a true value (returned), or raises TimeoutError after timeout s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def http_ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=0.5) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, OSError):
        return False


class Process:
    """A layoutd process this test started; stopped with SIGTERM and a bounded wait."""

    def __init__(self, args: list[str], workdir: Path, name: str):
        self.name = name
        self.log_path = workdir / f"{name}.log"
        self._log = open(self.log_path, "wb")
        # cwd: a directory without config/layoutd.yaml, so that only the flags (and --config) apply.
        self.popen = subprocess.Popen([LAYOUTD, *args], cwd=workdir, stdout=self._log, stderr=subprocess.STDOUT,
                                      env={k: v for k, v in os.environ.items() if not k.startswith("LAYOUTD_")})

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL (a crash), for the cluster's loss test."""
        if self.alive():
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait(timeout=10)

    def stop(self, timeout: float = 30) -> int | None:
        """SIGTERM, then wait at most timeout s (SIGKILL after that). Returns the exit status."""
        if self.alive():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=10)
        self._log.close()
        return self.popen.returncode


class Front:
    """A DEALER on a front socket sending `[b"", body, *frames]`; every reply is validated."""

    def __init__(self, context: zmq.Context, endpoint: str):
        self.socket = context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(endpoint)
        self.replies: list[dict] = []

    def send(self, body, frames=(), envelope=(b"",)) -> None:
        raw = body if isinstance(body, (bytes, bytearray)) else json.dumps(body).encode()
        self.socket.send_multipart([*envelope, raw, *frames])

    def receive(self, envelope_frames: int = 1) -> list[bytes]:
        if not self.socket.poll(TIMEOUT_MS):
            raise TimeoutError("no reply")
        return self.socket.recv_multipart()[envelope_frames:]

    def call_raw(self, body, frames=()) -> tuple[dict, list[bytes]]:
        """Sends, receives; returns (the decoded reply, the frames after it), validating nothing."""
        self.send(body, frames)
        reply_frames = self.receive()
        return json.loads(reply_frames[0]), reply_frames[1:]

    def call(self, body, frames=(), *, check=True) -> tuple[dict, list[bytes]]:
        """Sends, receives and validates the reply against the schema (with the request as the hint
        when it is a JSON object naming a known op)."""
        reply, extra = self.call_raw(body, frames)
        if check:
            validate_reply(body, reply)
        self.replies.append(reply)
        return reply, extra

    def close(self):
        self.socket.close(0)


def validate_reply(body, reply) -> None:
    request = body if isinstance(body, dict) else None
    if request is not None and request.get("op") in ("ping", "layout", "prepare", "query", "bounds", "update", "diff", "drop", "list", "route"):
        validate("reply", reply, request=request)
        validate("reply", reply)  # and without the hint: the result matches exactly one op's shape
        if "id" in request and isinstance(request["id"], (str, int)):
            assert reply["id"] == request["id"], (request, reply)
    else:
        validate("reply", reply)


class Stats:
    """A REQ on a stats socket."""

    def __init__(self, context: zmq.Context, endpoint: str):
        self.context = context
        self.endpoint = endpoint
        self.socket = self._open()

    def _open(self):
        s = self.context.socket(zmq.REQ)
        s.setsockopt(zmq.LINGER, 0)
        s.connect(self.endpoint)
        return s

    def ask(self, body: bytes = b"stats") -> bytes:
        self.socket.send(body)
        if not self.socket.poll(TIMEOUT_MS):
            self.socket.close(0)
            self.socket = self._open()  # Lazy Pirate: a REQ cannot send again without a reply
            raise TimeoutError("no stats answer")
        return self.socket.recv()

    def stats(self) -> dict:
        answer = json.loads(self.ask(b"stats"))
        validate("stats", answer)
        return answer

    def close(self):
        self.socket.close(0)


class Events:
    """A SUB on an events socket, subscribed to everything; every event received is validated."""

    def __init__(self, context: zmq.Context, endpoint: str, stats: Stats, at_least: int = 1):
        self.socket = context.socket(zmq.SUB)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(endpoint)
        self.socket.setsockopt(zmq.SUBSCRIBE, b"")
        self.received: list[tuple[str, dict]] = []
        # The daemon counts a subscription once it has reached it: wait for that (slow joiner).
        wait_until(lambda: stats.stats()["subscribers"] >= at_least, 15, "the events subscription to reach the daemon", 0.1)

    def drain(self, timeout_ms: int = 0) -> list[tuple[str, dict]]:
        got = []
        while self.socket.poll(timeout_ms):
            topic, body = self.socket.recv_multipart()
            event = json.loads(body)
            validate("event", event)
            topic = topic.decode()
            expected = "route" if event["event"] == "route" else f"{event['event']}:{event['layout']}"
            assert topic == expected, (topic, event)
            got.append((topic, event))
            timeout_ms = 0
        self.received += got
        return got

    def wait_for(self, predicate, timeout: float, what: str) -> tuple[str, dict]:
        def found():
            self.drain(50)
            return next((e for e in self.received if predicate(e[1])), None)

        return wait_until(found, timeout, what, 0)

    def close(self):
        self.socket.close(0)
