"""Test support: real layoutd processes on free ports, the schema hook, fake ZeroMQ peers.

Every wait here is bounded and polls; nothing sleeps for a fixed time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import layoutd
from layoutd import Client, CurveKeys

# The pieces live in modules of their own; tests import them all from here.
from testkit_fakes import FakeRouter as FakeRouter
from testkit_fakes import reply_frames as reply_frames
from testkit_fakes import write_key_files as write_key_files
from testkit_process import DEFAULT_BIN as DEFAULT_BIN
from testkit_process import READY_SECONDS as READY_SECONDS
from testkit_process import REPO as REPO
from testkit_process import SCHEMA_DIR as SCHEMA_DIR
from testkit_process import STOP_SECONDS as STOP_SECONDS
from testkit_process import Process as Process
from testkit_process import free_port as free_port
from testkit_process import layoutd_binary as layoutd_binary
from testkit_process import tcp as tcp
from testkit_process import wait_until as wait_until
from testkit_schema import KNOWN_DISAGREEMENTS as KNOWN_DISAGREEMENTS
from testkit_schema import TOLERATED as TOLERATED
from testkit_schema import SchemaChecker as SchemaChecker
from testkit_schema import without_known_disagreements as without_known_disagreements


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


#: PROTOCOL.md §5's running example.
FEED_SPEC = {"type": "list", "itemHeight": 44, "sectionInsets": {"top": 8, "bottom": 8}, "header": 28}
FEED_SECTIONS = [{"items": [{"id": "a"}, {"id": "b", "height": 60}]}, {"count": 1, "ids": ["c"]}]
FEED_BOUNDS = {"width": 375, "height": 667}
