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
* ``layout_1e6_binary``: one ``layout`` of a 10^6-item mosaic, ``"format": "binary"``, ``"return": "all"``:
  the time to a ``LayoutResult`` whose columns are numpy arrays, through the package, against the time for
  the raw multipart reply to arrive with bare pyzmq (``recv_multipart(copy=False)``) for the same body.
  Medians of R alternating rounds. Goal: package ≤ 1.5 × bare.

``--profile FIGURE`` adds a cProfile of the package's side of that figure (to stderr).
"""

from __future__ import annotations

import argparse
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
from layoutd import Client, Columns, ops  # noqa: E402

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


def pipelined(front: str, ops_count: int, window: int, rounds: int, profile: bool) -> dict[str, Any]:
    with Client(front, timeout=REPLY_SECONDS) as client:
        prepared = client.prepare(KEY, bounds=BOUNDS, spec=MOSAIC, sections=[{"count": 10_000}])
    height = prepared.content_size.height
    rects = [(0.0, float((i * 7919) % int(height - 100)), 375.0, 100.0) for i in range(ops_count)]
    cpu_per_op: dict[str, list[float]] = {"package": [], "bare": []}  # this process's CPU time per op, µs

    def package() -> float:
        with Client(front, timeout=REPLY_SECONDS) as client:
            client.ping()  # connected before the clock starts
            in_flight: deque[Any] = deque()
            elements = 0
            cpu, started = time.process_time(), time.perf_counter()
            for rect in rects:
                if len(in_flight) >= window:
                    elements += len(in_flight.popleft().result().attributes)
                in_flight.append(client.submit(ops.query(KEY, rect=rect)))
            while in_flight:
                elements += len(in_flight.popleft().result().attributes)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        assert elements > 0
        cpu_per_op["package"].append(cpu / ops_count * 1e6)
        return ops_count / elapsed

    def bare() -> float:
        dealer = bare_dealer(front)
        try:
            dealer.send_multipart([b"", b'{"v":1,"id":0,"op":"ping"}'])
            dealer.recv_multipart()  # connected before the clock starts
            waiting: dict[int, tuple[float, ...]] = {}
            sent = done = elements = 0
            cpu, started = time.process_time(), time.perf_counter()
            while done < ops_count:
                while sent < ops_count and sent - done < window:
                    sent += 1
                    x, y, w, h = rects[sent - 1]
                    body = json.dumps(
                        {
                            "v": 1,
                            "id": sent,
                            "op": "query",
                            "layout": KEY,
                            "rect": {"x": x, "y": y, "width": w, "height": h},
                        }
                    ).encode()
                    dealer.send_multipart([b"", body])
                    waiting[sent] = rects[sent - 1]
                reply = json.loads(dealer.recv_multipart()[-1])
                del waiting[reply["id"]]
                if reply["ok"] is not True:
                    raise RuntimeError(f"bare query failed: {reply}")
                elements += len(reply["result"]["attributes"])
                done += 1
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        finally:
            dealer.close(linger=0)
        assert elements > 0
        cpu_per_op["bare"].append(cpu / ops_count * 1e6)
        return ops_count / elapsed

    package_rates, bare_rates = [], []
    for i in range(rounds):  # alternate, and swap who goes first each round
        order = (package, bare) if i % 2 == 0 else (bare, package)
        for run in order:
            gc.collect()
            if run is package:
                package_rates.append(profiled(profile and i == rounds - 1, package))
            else:
                bare_rates.append(bare())
    ratio = statistics.median(package_rates) / statistics.median(bare_rates)
    return {
        "figure": "pipelined_query",
        "ops": ops_count,
        "in_flight": window,
        "rounds": rounds,
        "items": 10_000,
        "rect": "375x100",
        "package_ops_per_s": summary(package_rates, 1),
        "bare_ops_per_s": summary(bare_rates, 1),
        "ratio": round(ratio, 3),
        "package_cpu_us_per_op": summary(cpu_per_op["package"], 2),
        "bare_cpu_us_per_op": summary(cpu_per_op["bare"], 2),
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
    parser.add_argument("--profile", choices=["pipelined", "layout"], help="cProfile the package's side")
    args = parser.parse_args()
    ops_count, rounds, layout_rounds = (4_000, 3, 3) if args.quick else (20_000, 7, 9)
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
    try:
        first = pipelined(daemon.front, ops_count, 64, rounds, args.profile == "pipelined")
        print(json.dumps({**first, **common}), flush=True)
        second = big_layout(daemon.front, 1_000_000, layout_rounds, args.profile == "layout")
        print(json.dumps({**second, **common}), flush=True)
    finally:
        daemon.stop()
    goals = {
        "pipelined_query": {"ratio": first["ratio"], "goal": ">= 0.8", "met": first["ratio"] >= 0.8},
        "layout_1e6_binary": {"ratio": second["ratio"], "goal": "<= 1.5", "met": second["ratio"] <= 1.5},
    }
    print(json.dumps({"goals": goals, "all_met": all(g["met"] for g in goals.values())}), flush=True)


if __name__ == "__main__":
    main()
