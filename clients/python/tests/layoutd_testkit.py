"""Test support: real layoutd processes on free ports, the schema hook, fake ZeroMQ peers.

Every wait here is bounded and polls; nothing sleeps for a fixed time.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

import layoutd
from layoutd import Client, CurveKeys, Hooks

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


#: Known disagreements between the daemon and PROTOCOL.md (so docs/schema). A message that fails
#: validation only because of one of these is validated again without it (and counted in ``tolerated``);
#: anything else still fails. None is known today; ``LAYOUTD_SCHEMA_TOLERATE`` names some to set aside.
KNOWN_DISAGREEMENTS: set[str] = set()
TOLERATED = (
    KNOWN_DISAGREEMENTS
    if "LAYOUTD_SCHEMA_TOLERATE" not in os.environ
    else set(filter(None, os.environ["LAYOUTD_SCHEMA_TOLERATE"].split(","))) - {"none"}
)


def without_known_disagreements(obj: Mapping[str, Any], request: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """``obj`` less what the tolerated disagreements add to it (the same object when nothing applies)."""
    return obj


class SchemaChecker:
    """Routes every request, reply, event and stats answer through docs/schema/check.py's ``validate``.

    Replies are checked against the request they answer (``request=``), when it is one of the schema's
    ops. ``allow_invalid_requests()`` suspends the request check for tests that send bad input on purpose
    (their replies are still checked). Failures are raised to the caller and kept in ``failures``.
    """

    def __init__(self) -> None:
        if str(SCHEMA_DIR) not in sys.path:
            sys.path.insert(0, str(SCHEMA_DIR))
        import check  # docs/schema/check.py

        self.check = check
        self.requests: dict[Any, dict[str, Any]] = {}
        self.validate_requests = True
        self.counts = {"request": 0, "reply": 0, "event": 0, "stats": 0}
        self.failures: list[str] = []
        #: Messages valid only once a known disagreement is set aside.
        self.tolerated = 0

    def _validate(self, kind: str, obj: Any, *, tolerant: Any = None, **hints: Any) -> None:
        try:
            try:
                self.check.validate(kind, obj, **hints)
            except ValueError:
                if tolerant is None or tolerant is obj:
                    raise
                self.check.validate(kind, tolerant, **hints)
                self.tolerated += 1
        except ValueError as error:
            self.failures.append(str(error))
            raise
        self.counts[kind] += 1

    def request(self, obj: Mapping[str, Any]) -> None:
        self.requests[obj.get("id")] = dict(obj)
        if self.validate_requests:
            self._validate("request", dict(obj))

    def reply(self, obj: Mapping[str, Any]) -> None:
        request = self.requests.get(obj.get("id"))
        obj = dict(obj)
        tolerant = without_known_disagreements(obj, request)
        if obj.get("ok") is True and request is not None and request.get("op") in self.check.OPS:
            self._validate("reply", obj, tolerant=tolerant, request=request)
        else:
            self._validate("reply", obj, tolerant=tolerant)

    def event(self, topic: str, obj: Mapping[str, Any]) -> None:
        self._validate("event", dict(obj))

    def stats(self, obj: Mapping[str, Any]) -> None:
        self._validate("stats", dict(obj))

    def hooks(self) -> Hooks:
        return Hooks(request=self.request, reply=self.reply, event=self.event, stats=self.stats)

    @contextmanager
    def allow_invalid_requests(self) -> Iterator[None]:
        self.validate_requests = False
        try:
            yield
        finally:
            self.validate_requests = True


@dataclass
class Server:
    """A running single daemon or cluster, as its clients see it."""

    role: str
    front: str
    events: str
    stats: str
    http: str
    processes: list[Process] = field(default_factory=list)
    curve_server_public: bytes | None = None
    workdir: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name} (pid {p.pid}, alive {p.alive()}) ---\n{p.log()}" for p in self.processes)

    def check_alive(self) -> None:
        dead = [p for p in self.processes if not p.alive()]
        if dead:
            raise AssertionError(f"layoutd exited early:\n{self.logs()}")

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.stop()


def _ping_once(front: str, curve: CurveKeys | None = None) -> bool:
    client = Client(front, timeout=0.5, attempts=1, curve=curve, direct_reads="off")
    try:
        client.ping()
        return True
    except (layoutd.Timeout, layoutd.Unavailable):  # a broker answers unavailable until a worker joins
        return False
    finally:
        client.close()


def wait_ready(server: Server, curve: CurveKeys | None = None) -> None:
    """Polls ``ping`` (0.5 s per try) until the daemon answers, within READY_SECONDS."""
    deadline = time.monotonic() + READY_SECONDS
    while True:
        server.check_alive()
        if _ping_once(server.front, curve):
            return
        if time.monotonic() >= deadline:
            raise AssertionError(f"layoutd not ready within {READY_SECONDS:g}s:\n{server.logs()}")


def start_single(
    workdir: Path, *, args: Sequence[str] = (), curve: CurveKeys | None = None, name: str = "layoutd"
) -> Server:
    """A single daemon on free ports (front, events, stats and the HTTP listener)."""
    workdir.mkdir(parents=True, exist_ok=True)
    front, events, stats, http = (free_port() for _ in range(4))
    server = Server("single", tcp(front), tcp(events), tcp(stats), f"127.0.0.1:{http}", workdir=workdir)
    server.processes.append(
        Process(
            name,
            [
                layoutd_binary(),
                "--front",
                server.front,
                "--events",
                server.events,
                "--stats",
                server.stats,
                "--http",
                server.http,
                "--workers",
                "2",
                *args,
            ],
            workdir,
        )
    )
    try:
        wait_ready(server, curve)
    except BaseException:
        server.stop()
        raise
    return server


def start_cluster(
    workdir: Path,
    *,
    workers: int = 2,
    broker_args: Sequence[str] = (),
    worker_args: Callable[[int], Sequence[str]] = lambda i: (),
    curve: CurveKeys | None = None,
    direct: bool = False,
) -> Server:
    """A broker and ``workers`` workers, every socket on a free port; ready once a ping through the broker
    is answered and every worker is alive in the broker's stats (``curve``: an admin's keys, with CURVE).

    With ``direct`` each worker also answers reads on a direct endpoint of its own (``--direct``, PROTOCOL.md
    §11; ``extra["direct"]``, by worker index), and the cluster is ready once the broker's route table
    names every one (the broker learns them from the workers' READY)."""
    workdir.mkdir(parents=True, exist_ok=True)
    front, events, stats, http, back, events_in = (free_port() for _ in range(6))
    server = Server("cluster", tcp(front), tcp(events), tcp(stats), f"127.0.0.1:{http}", workdir=workdir)
    server.extra.update(back=tcp(back), events_in=tcp(events_in), worker_stats=[], worker_http=[], direct=[])
    binary = layoutd_binary()
    server.processes.append(
        Process(
            "broker",
            [
                binary,
                "--role",
                "broker",
                "--front",
                server.front,
                "--events",
                server.events,
                "--stats",
                server.stats,
                "--http",
                server.http,
                "--back",
                tcp(back),
                "--events-in",
                tcp(events_in),
                *broker_args,
            ],
            workdir,
        )
    )
    try:
        for i in range(workers):
            w_stats, w_http = free_port(), free_port()
            server.extra["worker_stats"].append(tcp(w_stats))
            server.extra["worker_http"].append(f"127.0.0.1:{w_http}")
            direct_args: list[str] = []
            if direct:
                server.extra["direct"].append(tcp(free_port()))
                direct_args = ["--direct", server.extra["direct"][-1]]
            server.processes.append(
                Process(
                    f"worker-{i}",
                    [
                        binary,
                        "--role",
                        "worker",
                        "--join",
                        tcp(back),
                        "--join-events",
                        tcp(events_in),
                        "--worker-id",
                        f"worker-{i}",
                        "--worker-stats",
                        tcp(w_stats),
                        "--worker-http",
                        f"127.0.0.1:{w_http}",
                        "--workers",
                        "1",
                        *direct_args,
                        *worker_args(i),
                    ],
                    workdir,
                )
            )
        wait_ready(server, curve)
        stats_client = Client(
            server.front, stats_endpoints=server.stats, timeout=1.0, attempts=1, curve=curve, direct_reads="off"
        )
        try:

            def all_alive() -> bool:
                server.check_alive()
                cluster = stats_client.stats().cluster or {}
                return (cluster.get("totals") or {}).get("alive") == workers

            def all_direct() -> bool:
                server.check_alive()
                try:  # a broker that has just started holds `route` until its workers had the time to join
                    table = stats_client.request("route")
                except (layoutd.Timeout, layoutd.Unavailable):
                    return False
                return sorted(w.get("direct") for w in table["workers"]) == sorted(server.extra["direct"])

            wait_until(all_alive, READY_SECONDS, f"{workers} workers alive at the broker")
            if direct:
                wait_until(all_direct, READY_SECONDS, "every worker's direct endpoint in the route table")
        finally:
            stats_client.close()
    except BaseException:
        server.stop()
        raise
    return server


class FakeRouter:
    """A tiny ROUTER peer on a free port, answering each request with ``handler(frames)``.

    ``handler`` gets the frames after the routing id (``[b"", body, *attachments]``) and returns a list of
    replies, each a list of frames to send after the routing id (``[]``: no answer). Runs in a thread that
    polls in short intervals until :meth:`close`.
    """

    def __init__(self, handler: Callable[[list[bytes]], list[list[bytes]]]) -> None:
        self.handler = handler
        self.endpoint = tcp(free_port())
        self.received: list[list[bytes]] = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise AssertionError("the fake router did not start")

    def _run(self) -> None:
        context = zmq.Context.instance()
        router = context.socket(zmq.ROUTER)
        router.linger = 0
        try:
            router.bind(self.endpoint)
            self._ready.set()
            while not self._stop.is_set():
                if not router.poll(50, zmq.POLLIN):
                    continue
                identity, *frames = router.recv_multipart()
                self.received.append(frames)
                for reply in self.handler(frames):
                    router.send_multipart([identity, *reply])
        except BaseException as error:  # surfaced by close()
            self.error = error
            self._ready.set()
        finally:
            router.close(linger=0)

    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies received so far."""
        return [json.loads(frames[1] if frames and frames[0] == b"" else frames[0]) for frames in self.received]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        if self.error is not None:
            raise self.error

    def __enter__(self) -> FakeRouter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def reply_frames(request_frames: list[bytes], reply: dict[str, Any], *extra: bytes) -> list[bytes]:
    """``[b"", json(reply with the request's id), *extra]``."""
    body = json.loads(request_frames[1] if request_frames[0] == b"" else request_frames[0])
    reply = {"v": 1, "id": body.get("id"), **reply}
    return [b"", json.dumps(reply).encode(), *extra]


def write_key_files(directory: Path, prefix: str) -> tuple[bytes, bytes]:
    """A CURVE key pair written as ``layoutctl keygen --out PREFIX`` does: ``PREFIX.key`` (secret, mode 600,
    a comment naming the public key) and ``PREFIX.pub``. Returns (public, secret)."""
    public, secret = zmq.curve_keypair()
    key_path = directory / f"{prefix}.key"
    key_path.write_text(f"# layoutd CURVE secret key; public key: {public.decode()}\n{secret.decode()}\n")
    key_path.chmod(0o600)
    (directory / f"{prefix}.pub").write_text(f"{public.decode()}\n")
    return public, secret


#: PROTOCOL.md §5's running example.
FEED_SPEC = {"type": "list", "itemHeight": 44, "sectionInsets": {"top": 8, "bottom": 8}, "header": 28}
FEED_SECTIONS = [{"items": [{"id": "a"}, {"id": "b", "height": 60}]}, {"count": 1, "ids": ["c"]}]
FEED_BOUNDS = {"width": 375, "height": 667}
