#!/usr/bin/env python3
"""The web console's figures (issue 35's goals), measured in a real headless Chromium against a real daemon:

- page weight: every file the console loads, uncompressed (goal: at most 150 KB);
- scrolling a 10^6-item layout: frame time p95 from requestAnimationFrame (goal: at most 16 ms), requests in
  flight per scroll step (goal: at most 1), and the daemon's CPU while it scrolls (goal: at most 5 % of a core);
- an update seen in the inspector's picture, from the update's reply (goal: within 1 s);
- the gateway's `query` round trip against a DEALER's over the same front, both over loopback (goal: at most 2x).

    LAYOUTD_BIN=.build/release/layoutd python3 tests/browser/bench_console.py [--frames 600] [--round-trips 2000]

It prints figures; it asserts nothing (timing goals live here, not in the tests)."""
from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python" / "src"))

import zmq  # noqa: E402
from conftest import make_driver  # noqa: E402
from layoutd import Client  # noqa: E402
from layoutd_testkit import start_single  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=600, help="animation frames scrolled")
    parser.add_argument("--step", type=int, default=40, help="pixels scrolled per frame")
    parser.add_argument("--round-trips", type=int, default=2000)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="console-bench-"))
    server = start_single(workdir, args=["--journal", "none"])
    driver = make_driver()
    try:
        base = f"http://{server.http}/"
        client = Client(server.front, timeout=30.0, attempts=1, direct_reads="off")
        client.request("prepare", {"layout": "million", "bounds": {"width": 390, "height": 800},
                                   "spec": {"type": "list", "itemHeight": 44, "header": 28},
                                   "sections": [{"count": 500_000}, {"count": 500_000}]})
        client.request("prepare", {"layout": "feed", "bounds": {"width": 390, "height": 800},
                                   "spec": {"type": "list", "itemHeight": 44}, "sections": [{"count": 200}]})

        # Page weight: every page visited, every resource the browser fetched.
        driver.get(base)
        for page in ("overview", "layouts", "events", "playground"):
            driver.execute_script(f"location.hash = '{page}'")
            time.sleep(0.5)
        weight = driver.execute_script("""
          const nav = performance.getEntriesByType('navigation')[0];
          const files = performance.getEntriesByType('resource').filter((r) => !r.name.includes('/api/'));
          return {bytes: nav.decodedBodySize + files.reduce((s, r) => s + r.decodedBodySize, 0), files: files.length + 1};""")
        print(f"page weight: {weight['bytes'] / 1000:.1f} KB in {weight['files']} files (goal <= 150 KB)")

        # Scrolling 10^6 items, one step per animation frame.
        driver.get("about:blank")
        driver.get(base + "#layouts/million")
        deadline = time.monotonic() + 60
        while not driver.execute_script("const m = window.__console; return m && m.elements > 0 && m.inFlight === 0"):
            if time.monotonic() > deadline:
                raise SystemExit("the inspector did not draw")
            time.sleep(0.05)
        before = driver.execute_script("return {...window.__console}")
        pid = server.processes[0].pid
        cpu0, wall0 = cpu_seconds(pid), time.monotonic()
        frames = driver.execute_async_script("""
          const [count, step, done] = arguments;
          const v = document.getElementById('viewport');
          const times = [];
          let n = 0;
          function frame(t) {
            times.push(t);
            if (n++ >= count) { done(times); return; }
            v.scrollTop += step;
            requestAnimationFrame(frame);
          }
          requestAnimationFrame(frame);""", args.frames, args.step)
        cpu1, wall1 = cpu_seconds(pid), time.monotonic()
        after = driver.execute_script("return {...window.__console}")
        intervals = [b - a for a, b in zip(frames, frames[1:])]
        steps = after["steps"] - before["steps"]
        requests = after["requests"] - before["requests"]
        print(f"scroll 10^6 items: {len(intervals)} frames of {args.step} px, frame time p50 {percentile(intervals, 50):.1f} ms, "
              f"p95 {percentile(intervals, 95):.1f} ms, max {max(intervals):.1f} ms (goal p95 <= 16 ms)")
        print(f"  requests: {requests} for {steps} scroll steps ({requests / max(1, steps):.2f} a step), "
              f"at most {after['maxInFlight']} in flight (goal <= 1); elements drawn at the end: {after['elements']}")
        print(f"  daemon CPU while scrolling: {100 * (cpu1 - cpu0) / (wall1 - wall0):.1f} % of one core (goal <= 5 %)")

        # An update by another client, seen in the picture.
        driver.get("about:blank")
        driver.get(base + "#layouts/feed")
        while not driver.execute_script("const m = window.__console; return m && m.elements > 0 && m.inFlight === 0"):
            time.sleep(0.05)
        time.sleep(1.0)  # the page's event stream subscribes a moment after it opens
        delays = []
        for _ in range(10):
            sent = time.monotonic()
            version = client.request("update", {"layout": "feed", "updates": [{"insert": [0, 0], "item": {"height": 60}}]})["version"]
            while driver.execute_script("return document.getElementById('version').textContent") != str(version):
                if time.monotonic() - sent > 10:
                    break
                time.sleep(0.005)
            delays.append((time.monotonic() - sent) * 1000)
        print(f"update -> picture: median {statistics.median(delays):.0f} ms, max {max(delays):.0f} ms over {len(delays)} updates (goal <= 1000 ms)")
        client.close()

        # Gateway round trip vs a DEALER, the same small query, one at a time.
        query = {"v": 1, "id": 1, "op": "query", "layout": "feed", "rect": {"x": 0, "y": 0, "width": 390, "height": 800}}
        body = json.dumps(query).encode()
        host, port = server.http.rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        def over_http() -> None:
            connection.request("POST", "/api/request", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            assert response.status == 200
        context = zmq.Context()
        dealer = context.socket(zmq.DEALER)
        dealer.connect(server.front)
        def over_dealer() -> None:
            dealer.send_multipart([b"", body])
            dealer.recv_multipart()
        results = {}
        for name, once in (("dealer", over_dealer), ("gateway", over_http)):
            for _ in range(100):
                once()
            samples = []
            for _ in range(args.round_trips):
                start = time.perf_counter()
                once()
                samples.append((time.perf_counter() - start) * 1e6)
            results[name] = samples
            print(f"query round trip, {name}: p50 {percentile(samples, 50):.0f} µs, p95 {percentile(samples, 95):.0f} µs")
        ratio = percentile(results["gateway"], 50) / percentile(results["dealer"], 50)
        print(f"gateway / dealer (p50): {ratio:.2f}x (goal <= 2x)")
        dealer.close(0)
        context.term()
        connection.close()
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
