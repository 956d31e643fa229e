#!/usr/bin/env python3
"""Benchmarks of the Python client against bare pyzmq, on a daemon of its own.

    python3 clients/python/bench/bench.py            # full run
    python3 clients/python/bench/bench.py --quick    # fewer ops and rounds (a smoke run)
    LAYOUTD_BIN=.build/debug/layoutd python3 clients/python/bench/bench.py --profile pipelined

Starts layoutd (``$LAYOUTD_BIN``, else ``.build/release/layoutd`` of this repository) on free loopback
ports in an empty directory, runs the figures, stops it (SIGTERM, then SIGKILL if it lingers), and prints
one JSON line per figure, then one line of goals:

* ``pipelined_query``: N ``query`` requests of a small rect on a prepared 10^4-item mosaic, with W in
  flight, through the package (``Client.submit`` → typed ``QueryResult``s) and through a bare pyzmq DEALER
  sending the same bodies (``json.dumps`` of each, id first) and matching the replies by ``id``
  (``json.loads``). Ops/s of each, medians of R rounds that alternate package and bare, so that load on
  the machine hits both alike. Goal: package ≥ 0.8 × bare.
  This figure, ``asyncio_query`` and ``pipeline_20k_one_call`` also give each side's CPU per op: the
  process's (``*_cpu_us_per_op``, ZeroMQ's I/O thread included) and the main thread's
  (``*_main_thread_cpu_us_per_op``: the Python side alone, which the load on the machine skews least).
* ``asyncio_query``: the same N queries through ``asyncio.gather`` on an ``AsyncClient(max_in_flight=64)``,
  against the same bare DEALER with 64 in flight. Goal: ≥ 0.7 × bare.
* ``pipeline_20k_one_call``: 20,000 queries in one ``client.pipeline()`` block (``max_in_flight`` 1,000
  bounds the wire), against a bare DEALER that keeps 1,000 in flight, reading while it sends; ``timeouts``
  counts the package's failovers. Goal: ≥ 0.8 × bare, 0 timeouts.
* ``sequential_query``: one query at a time, the p50 latency of ``client.query`` against a bare DEALER's
  send and receive. Goal: ≤ 1.2 × bare.
* ``layout_1e6_binary``: one ``layout`` of a 10^6-item mosaic, ``"format": "binary"``, ``"return": "all"``:
  the time to a ``LayoutResult`` whose columns are numpy arrays, through the package, against the time for
  the raw multipart reply to arrive with bare pyzmq (``recv_multipart(copy=False)``) for the same body.
  Medians of R alternating rounds. Goal: package ≤ 1.5 × bare.

``--profile FIGURE`` adds a cProfile of the package's side of that figure (to stderr); ``--only a,b`` runs
those figures alone (``pipelined``, ``asyncio``, ``pipeline``, ``sequential``, ``layout``).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import pstats
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE.parent / "src"))  # the package as it stands in this tree

import zmq  # noqa: E402

import layoutd  # noqa: E402
from layoutd import AsyncClient, Client, Columns, ops  # noqa: E402

READY_SECONDS = 60.0
REPLY_SECONDS = 120.0
KEY = "bench-mosaic"
BOUNDS = {"width": 375, "height": 667}
MOSAIC = {"type": "mosaic"}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def daemon_binary() -> str:
    path = os.environ.get("LAYOUTD_BIN") or str(REPO / ".build" / "release" / "layoutd")
    if not os.access(path, os.X_OK):
        sys.exit(f"bench: no layoutd at {path} (build it with 'swift build -c release', or set LAYOUTD_BIN)")
    return path


class Daemon:
    """layoutd on free loopback ports, in an empty working directory (so no config file is read)."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.workdir = tempfile.TemporaryDirectory(prefix="layoutd-bench-")
        self.front = f"tcp://127.0.0.1:{free_port()}"
        ports = [free_port() for _ in range(3)]
        self.log = open(Path(self.workdir.name) / "layoutd.log", "wb")
        self.process = subprocess.Popen(
            [
                binary,
                "--front",
                self.front,
                "--events",
                f"tcp://127.0.0.1:{ports[0]}",
                "--stats",
                f"tcp://127.0.0.1:{ports[1]}",
                "--http",
                f"127.0.0.1:{ports[2]}",
            ],
            cwd=self.workdir.name,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + READY_SECONDS
        while True:  # ping (0.5 s per try) until it answers, within READY_SECONDS
            if self.process.poll() is not None:
                raise RuntimeError(f"layoutd exited with {self.process.returncode}: {self.log_text()}")
            with Client(self.front, timeout=0.5, attempts=1) as probe:
                try:
                    probe.ping()
                    return
                except layoutd.Timeout:
                    pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"layoutd not ready within {READY_SECONDS:g}s: {self.log_text()}")

    def log_text(self) -> str:
        self.log.flush()
        return (Path(self.workdir.name) / "layoutd.log").read_text(errors="replace")[-2000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(15)
        self.log.close()
        self.workdir.cleanup()


def bare_dealer(front: str) -> zmq.Socket[Any]:
    dealer: zmq.Socket[Any] = zmq.Context.instance().socket(zmq.DEALER)
    dealer.linger = 0
    dealer.rcvtimeo = int(REPLY_SECONDS * 1000)
    dealer.connect(front)
    return dealer


def summary(values: list[float], digits: int = 4) -> dict[str, Any]:
    return {"median": round(statistics.median(values), digits), "rounds": [round(v, digits) for v in values]}


def profiled(enabled: bool, run: Callable[[], float]) -> float:
    if not enabled:
        return run()
    profile = cProfile.Profile()
    value = profile.runcall(run)
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(25)
    print(out.getvalue(), file=sys.stderr)
    return value


# -- pipelined small ops ---------------------------------------------------------------------------


def query_rects(front: str, ops_count: int) -> list[tuple[float, float, float, float]]:
    """Prepares the bench's mosaic and returns ``ops_count`` small rects spread over it."""
    with Client(front, timeout=REPLY_SECONDS) as client:
        prepared = client.prepare(KEY, bounds=BOUNDS, spec=MOSAIC, sections=[{"count": 10_000}])
    height = prepared.content_size.height
    return [(0.0, float((i * 7919) % int(height - 100)), 375.0, 100.0) for i in range(ops_count)]


def bare_window(front: str, rects: list[tuple[float, ...]], window: int) -> tuple[float, float, float]:
    """A bare DEALER that keeps ``window`` queries in flight, reading while it sends (ops/s, CPU µs/op)."""
    ops_count = len(rects)
    dealer = bare_dealer(front)
    try:
        dealer.send_multipart([b"", b'{"v":1,"id":0,"op":"ping"}'])
        dealer.recv_multipart()  # connected before the clock starts
        waiting: dict[int, tuple[float, ...]] = {}
        sent = done = elements = 0
        cpu, main, started = time.process_time(), time.thread_time(), time.perf_counter()
        while done < ops_count:
            while sent < ops_count and sent - done < window:
                sent += 1
                x, y, w, h = rects[sent - 1]
                rect = {"x": x, "y": y, "width": w, "height": h}
                body = json.dumps({"v": 1, "id": sent, "op": "query", "layout": KEY, "rect": rect}).encode()
                dealer.send_multipart([b"", body])
                waiting[sent] = rects[sent - 1]
            reply = json.loads(dealer.recv_multipart()[-1])
            del waiting[reply["id"]]
            if reply["ok"] is not True:
                raise RuntimeError(f"bare query failed: {reply}")
            elements += len(reply["result"]["attributes"])
            done += 1
        elapsed, cpu, main = time.perf_counter() - started, time.process_time() - cpu, time.thread_time() - main
    finally:
        dealer.close(linger=0)
    assert elements > 0
    return ops_count / elapsed, cpu / ops_count * 1e6, main / ops_count * 1e6


def package_window(front: str, rects: list[tuple[float, ...]], window: int) -> tuple[float, float, float]:
    """The package's ``submit`` with ``window`` requests in flight (ops/s, CPU µs/op)."""
    with Client(front, timeout=REPLY_SECONDS) as client:
        client.ping()  # connected before the clock starts
        in_flight: deque[Any] = deque()
        elements = 0
        cpu, main, started = time.process_time(), time.thread_time(), time.perf_counter()
        for rect in rects:
            if len(in_flight) >= window:
                elements += len(in_flight.popleft().result().attributes)
            in_flight.append(client.submit(ops.query(KEY, rect=rect)))
        while in_flight:
            elements += len(in_flight.popleft().result().attributes)
        elapsed, cpu, main = time.perf_counter() - started, time.process_time() - cpu, time.thread_time() - main
    assert elements > 0
    return len(rects) / elapsed, cpu / len(rects) * 1e6, main / len(rects) * 1e6


def package_pipeline(front: str, rects: list[tuple[float, ...]], timeouts: list[int]) -> tuple[float, float, float]:
    """Every query in one pipeline call (``max_in_flight`` bounds the wire); failovers go to ``timeouts``."""
    with Client(front, timeout=REPLY_SECONDS) as client:
        client.ping()
        cpu, main, started = time.process_time(), time.thread_time(), time.perf_counter()
        with client.pipeline() as pipe:
            answers = [pipe.query(KEY, rect=rect) for rect in rects]
        elements = sum(len(a.result().attributes) for a in answers)
        elapsed, cpu, main = time.perf_counter() - started, time.process_time() - cpu, time.thread_time() - main
        timeouts.append(client.failovers)
    assert elements > 0
    return len(rects) / elapsed, cpu / len(rects) * 1e6, main / len(rects) * 1e6


def package_asyncio(front: str, rects: list[tuple[float, ...]], window: int) -> tuple[float, float, float]:
    """``asyncio.gather`` of every query on an ``AsyncClient(max_in_flight=window)``."""

    async def run() -> tuple[float, float, float]:
        async with AsyncClient(front, timeout=REPLY_SECONDS, max_in_flight=window) as client:
            await client.ping()
            cpu, main, started = time.process_time(), time.thread_time(), time.perf_counter()
            results = await asyncio.gather(*(client.query(KEY, rect=rect) for rect in rects))
            elapsed, cpu, main = time.perf_counter() - started, time.process_time() - cpu, time.thread_time() - main
        assert sum(len(r.attributes) for r in results) > 0
        return len(rects) / elapsed, cpu / len(rects) * 1e6, main / len(rects) * 1e6

    return asyncio.run(run())


def compare(
    figure: str,
    package: Callable[[], tuple[float, float, float]],
    bare: Callable[[], tuple[float, float, float]],
    rounds: int,
    profile: bool,
    **about: Any,
) -> dict[str, Any]:
    """Rounds that alternate package and bare (who goes first swaps each round); medians and their ratio."""
    rates: dict[str, list[float]] = {"package": [], "bare": []}
    cpu: dict[str, list[float]] = {"package": [], "bare": []}
    main: dict[str, list[float]] = {"package": [], "bare": []}
    for i in range(rounds):
        for side in ("package", "bare") if i % 2 == 0 else ("bare", "package"):
            gc.collect()
            if side == "package":
                rate, per_op, main_per_op = profiled(profile and i == rounds - 1, package)  # type: ignore[arg-type]
            else:
                rate, per_op, main_per_op = bare()
            rates[side].append(rate)
            cpu[side].append(per_op)
            main[side].append(main_per_op)
    ratio = statistics.median(rates["package"]) / statistics.median(rates["bare"])
    return {
        "figure": figure,
        **about,
        "rounds": rounds,
        "package_ops_per_s": summary(rates["package"], 1),
        "bare_ops_per_s": summary(rates["bare"], 1),
        "ratio": round(ratio, 3),
        "package_cpu_us_per_op": summary(cpu["package"], 2),
        "bare_cpu_us_per_op": summary(cpu["bare"], 2),
        "package_main_thread_cpu_us_per_op": summary(main["package"], 2),
        "bare_main_thread_cpu_us_per_op": summary(main["bare"], 2),
    }


def sequential(front: str, rects: list[tuple[float, ...]], rounds: int, profile: bool) -> dict[str, Any]:
    """One query at a time: the median latency of the package's ``client.query`` against a bare DEALER's
    send and receive of the same body (p50 of each round, then the median over rounds)."""

    def package() -> float:
        with Client(front, timeout=REPLY_SECONDS) as client:
            client.query(KEY, rect=rects[0])  # connected (and the front told apart) before the clock starts
            times = []
            for rect in rects:
                started = time.perf_counter()
                client.query(KEY, rect=rect)
                times.append(time.perf_counter() - started)
        return statistics.median(times)

    def bare() -> float:
        dealer = bare_dealer(front)
        try:
            dealer.send_multipart([b"", b'{"v":1,"id":0,"op":"ping"}'])
            dealer.recv_multipart()
            times = []
            for i, (x, y, w, h) in enumerate(rects, 1):
                started = time.perf_counter()
                rect = {"x": x, "y": y, "width": w, "height": h}
                dealer.send_multipart(
                    [b"", json.dumps({"v": 1, "id": i, "op": "query", "layout": KEY, "rect": rect}).encode()]
                )
                reply = json.loads(dealer.recv_multipart()[-1])
                assert reply["id"] == i and reply["ok"] is True
                len(reply["result"]["attributes"])
                times.append(time.perf_counter() - started)
        finally:
            dealer.close(linger=0)
        return statistics.median(times)

    p50: dict[str, list[float]] = {"package": [], "bare": []}
    for i in range(rounds):
        for side in ("package", "bare") if i % 2 == 0 else ("bare", "package"):
            gc.collect()
            run = package if side == "package" else bare
            p50[side].append(profiled(profile and side == "package" and i == rounds - 1, run) * 1e6)
    ratio = statistics.median(p50["package"]) / statistics.median(p50["bare"])
    return {
        "figure": "sequential_query",
        "ops": len(rects),
        "rounds": rounds,
        "package_p50_us": summary(p50["package"], 1),
        "bare_p50_us": summary(p50["bare"], 1),
        "ratio": round(ratio, 3),
    }


# -- a 10^6-item layout in the binary format ------------------------------------------------------


def big_layout(front: str, items: int, rounds: int, profile: bool) -> dict[str, Any]:
    sections = [{"count": items}]
    body = json.dumps(
        {
            "v": 1,
            "id": 1,
            "op": "layout",
            "bounds": BOUNDS,
            "spec": MOSAIC,
            "sections": sections,
            "format": "binary",
            "return": "all",
        }
    ).encode()

    def package(client: Client) -> float:
        started = time.perf_counter()
        result = client.layout(bounds=BOUNDS, spec=MOSAIC, sections=sections, format="binary", return_="all")
        elapsed = time.perf_counter() - started
        columns = result.attributes
        assert isinstance(columns, Columns) and len(columns) == result.counts.elements == items
        assert type(columns.y).__module__ == "numpy" and columns.y.shape == (items,)  # type: ignore[union-attr]
        return elapsed

    def bare(dealer: zmq.Socket[Any]) -> float:
        started = time.perf_counter()
        dealer.send_multipart([b"", body])
        frames = dealer.recv_multipart(copy=False)
        elapsed = time.perf_counter() - started
        assert len(frames) == 9 and len(frames[-1]) == 8 * items
        return elapsed

    package_times, bare_times = [], []
    with Client(front, timeout=REPLY_SECONDS) as client:
        dealer = bare_dealer(front)
        try:
            client.ping()
            dealer.send_multipart([b"", b'{"v":1,"id":0,"op":"ping"}'])
            dealer.recv_multipart()
            package(client)  # a warm-up of each (first large allocations on both sides)
            bare(dealer)
            for i in range(rounds):
                gc.collect()
                if i % 2 == 0:
                    package_times.append(profiled(profile and i == 0, lambda: package(client)))
                    bare_times.append(bare(dealer))
                else:
                    bare_times.append(bare(dealer))
                    package_times.append(package(client))
        finally:
            dealer.close(linger=0)
    ratio = statistics.median(package_times) / statistics.median(bare_times)
    return {
        "figure": "layout_1e6_binary",
        "items": items,
        "rounds": rounds,
        "reply_bytes": 41 * items,
        "package_s": summary(package_times),
        "bare_s": summary(bare_times),
        "ratio": round(ratio, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer ops and rounds")
    parser.add_argument(
        "--profile", choices=["pipelined", "pipeline", "asyncio", "sequential", "layout"], help="cProfile a figure"
    )
    parser.add_argument("--only", help="comma-separated figures to run (default: all)")
    args = parser.parse_args()
    ops_count, rounds, layout_rounds = (4_000, 3, 3) if args.quick else (20_000, 7, 9)
    big_ops = 20_000  # the pipeline in one call: twice the daemon's send high-water mark
    only = set(args.only.split(",")) if args.only else None
    binary = daemon_binary()
    common = {
        "daemon": binary,
        "python": sys.version.split()[0],
        "pyzmq": zmq.__version__,
        "libzmq": zmq.zmq_version(),
        "cpus": os.cpu_count(),
        "quick": args.quick,
    }
    daemon = Daemon(binary)
    results: dict[str, dict[str, Any]] = {}

    def emit(figure: dict[str, Any]) -> None:
        results[figure["figure"]] = figure
        print(json.dumps({**figure, **common}), flush=True)

    def wanted(name: str) -> bool:
        return only is None or name in only

    try:
        front = daemon.front
        rects = query_rects(front, max(ops_count, big_ops))
        small = rects[:ops_count]
        if wanted("pipelined"):
            emit(
                compare(
                    "pipelined_query",
                    lambda: package_window(front, small, 64),
                    lambda: bare_window(front, small, 64),
                    rounds,
                    args.profile == "pipelined",
                    ops=ops_count,
                    in_flight=64,
                    items=10_000,
                    rect="375x100",
                )
            )
        if wanted("asyncio"):
            emit(
                compare(
                    "asyncio_query",
                    lambda: package_asyncio(front, small, 64),
                    lambda: bare_window(front, small, 64),
                    rounds,
                    args.profile == "asyncio",
                    ops=ops_count,
                    in_flight=64,
                    items=10_000,
                    rect="375x100",
                )
            )
        if wanted("pipeline"):
            timeouts: list[int] = []
            figure = compare(
                "pipeline_20k_one_call",
                lambda: package_pipeline(front, rects[:big_ops], timeouts),
                lambda: bare_window(front, rects[:big_ops], 1000),
                max(3, rounds // 2),
                args.profile == "pipeline",
                ops=big_ops,
                max_in_flight=1000,
                bare_in_flight=1000,
            )
            emit({**figure, "timeouts": sum(timeouts)})
        if wanted("sequential"):
            emit(sequential(front, rects[: max(500, ops_count // 10)], rounds, args.profile == "sequential"))
        if wanted("layout"):
            emit(big_layout(front, 1_000_000, layout_rounds, args.profile == "layout"))
    finally:
        daemon.stop()
    goal_table = {
        "pipelined_query": (">= 0.8", lambda r: r >= 0.8),
        "asyncio_query": (">= 0.7", lambda r: r >= 0.7),
        "pipeline_20k_one_call": (">= 0.8, 0 timeouts", lambda r: r >= 0.8),
        "sequential_query": ("<= 1.2", lambda r: r <= 1.2),
        "layout_1e6_binary": ("<= 1.5", lambda r: r <= 1.5),
    }
    goals = {}
    for name, figure in results.items():
        text, test = goal_table[name]
        met = test(figure["ratio"]) and figure.get("timeouts", 0) == 0
        goals[name] = {"ratio": figure["ratio"], "goal": text, "met": met}
    print(json.dumps({"goals": goals, "all_met": all(g["met"] for g in goals.values())}), flush=True)


if __name__ == "__main__":
    main()
