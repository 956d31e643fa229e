#!/usr/bin/env python3
"""The hostile-HTTP fuzzer (docs/FUZZING.md, "The HTTP gateway"): starts a real `layoutd` with its HTTP
listener and web console on free loopback ports and, for the time given, sends from several threads mutated
requests to every route, malformed request lines, huge headers and bodies, bad Content-Lengths, chunked
garbage, bodies that are not JSON or not UTF-8, slow clients, clients that never read, floods of connections
and connections dropped mid-request. The run is split in two: a daemon with the console read-only, then one
with `console.allowChanges`.

Oracles: every complete request gets a well-formed HTTP response within a bound, an error status with the
protocol's JSON error body for a console path, never a 200 for garbage; a slow client is closed within the
console's timeout; the daemon stays up, its ZeroMQ front answers `ping` (a ZMTP client of its own, the
standard library only), its resident memory and open fds stay under the bounds given (sampled from /proc),
and it exits 0 on SIGTERM. Any finding is written to the artifacts folder (the request's bytes and why) and
the exit status is 1; 2 is a harness error. Run it through scripts/fuzz-http, which builds layoutd first.
"""
import argparse
import base64
import json
import os
import random
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_http_lib import mutate  # noqa: E402
from fuzz_http_lib.cases import CAP_MARGIN, Cases  # noqa: E402
from fuzz_http_lib.daemon import Daemon, HarnessError  # noqa: E402
from fuzz_http_lib.slow import SlowClients, Monitor  # noqa: E402
from fuzz_http_lib.wire import OpenSockets  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Run:
    """One daemon's part of the run: what the threads share."""

    def __init__(self, daemon, corpus, artifacts, seed, timeout):
        self.daemon = daemon
        self.address = ("127.0.0.1", daemon.http_port)
        self.corpus = corpus
        self.corpus_prepares = [body for body in corpus if b'"op":"prepare"' in body]
        self.artifacts = artifacts
        self.seed = seed
        self.token = None
        self.cases = None
        self.flood_ended = -1e9
        # A complete answer may take the console's timeout (the front's reply) and then some on a loaded machine.
        self.bound = timeout + 20.0
        self.timeout = timeout
        self.sockets = OpenSockets()
        self.findings = []
        self.counts = {}
        self._lock = threading.Lock()
        self.stop = threading.Event()

    def near_cap(self):
        """Whether the listener's cap of 256 connections may have closed one of ours: the fuzzer holds many, or
        a flood has just closed its own (the daemon sees those closes a moment later)."""
        return self.sockets.count >= CAP_MARGIN or time.monotonic() - self.flood_ended < 5.0

    def count(self, key, amount=1):
        with self._lock:
            self.counts[key] = self.counts.get(key, 0) + amount

    def finding(self, case, what, raw=b"", response=""):
        with self._lock:
            index = len(self.findings)
            self.findings.append((case, what))
        name = "http-%s-%s-%d" % (self.daemon.mode, case, index)
        path = os.path.join(self.artifacts, name + ".json")
        record = {"case": case, "what": what, "mode": self.daemon.mode, "seed": self.seed, "response": response,
                  "request_base64": base64.b64encode(raw).decode(), "request": raw[:2000].decode("latin-1")}
        with open(path, "w") as handle:
            json.dump(record, handle, indent=1)
        with open(os.path.join(self.artifacts, name + ".bin"), "wb") as handle:
            handle.write(raw)
        print("http-fuzz: FOUND (%s, %s) %s: %s" % (self.daemon.mode, case, what, path), file=sys.stderr, flush=True)


def worker(run, rng):
    cases = Cases(run, rng)
    while not run.stop.is_set():
        case = cases.pick()
        try:
            case()
        except OSError as error:
            # Connecting can fail while a flood holds the backlog; anything else is the daemon's doing.
            run.count("connect_errors" if "refused" not in str(error).lower() else "refused")
            if not run.daemon.alive():
                return
            time.sleep(0.05)


def fuzz(args, mode, seconds, corpus):
    daemon = Daemon(args.layoutd, mode, args.timeout_millis)
    run = Run(daemon, corpus, args.artifacts, args.seed, args.timeout_millis / 1000)
    run.cases = set(args.cases.split(",")) if args.cases else None
    try:
        daemon.seed_layouts(corpus)
        monitor = Monitor(run, args.max_rss_mb, args.max_fds)
        slow = SlowClients(run, args.slow_clients, random.Random(args.seed * 7919 + 1))
        threads = [threading.Thread(target=monitor.loop, daemon=True), threading.Thread(target=slow.loop, daemon=True)]
        for index in range(args.threads):
            rng = random.Random(args.seed * 1_000 + index + (500 if mode == "read-write" else 0))
            threads.append(threading.Thread(target=worker, args=(run, rng), daemon=True))
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and daemon.alive():
            time.sleep(0.2)
        run.stop.set()
        for thread in threads:
            thread.join(timeout=run.bound + 10)
            if thread.is_alive():
                run.finding("harness", "a client thread did not finish within %.0f s" % (run.bound + 10))
        if not daemon.alive():
            run.finding("daemon", "layoutd exited during the run (status %s): %s" % (daemon.status(), daemon.log_tail()))
        else:
            status = daemon.terminate(30)
            if status != 0:
                run.finding("daemon", "SIGTERM: exit status %s (None: no exit within 30 s): %s" % (status, daemon.log_tail()))
        run.counts.update({"max_rss_mb": monitor.max_rss_mb, "max_fds": monitor.max_fds, "pings": monitor.pings})
        return run
    finally:
        daemon.close(keep_log=bool(run.findings), artifacts=args.artifacts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layoutd", required=True, help="the layoutd executable")
    parser.add_argument("--seconds", type=float, default=30, help="in all, split between the two modes (default 30)")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    parser.add_argument("--threads", type=int, default=4, help="client threads running cases (default 4)")
    parser.add_argument("--slow-clients", type=int, default=32, help="slowloris connections held open (default 32)")
    parser.add_argument("--timeout-millis", type=int, default=3000, help="the daemon's console.timeoutMillis (default 3000)")
    parser.add_argument("--max-rss-mb", type=float, default=512, help="resident memory bound (default 512)")
    parser.add_argument("--max-fds", type=int, default=512, help="open file descriptor bound (default 512)")
    parser.add_argument("--artifacts", default=os.path.join(ROOT, "Fuzz", "artifacts"))
    parser.add_argument("--cases", help="comma-separated case names to run (default: all): " + ",".join(Cases.NAMES))
    parser.add_argument("--only", choices=["read-only", "read-write"], help="one mode for the whole time")
    args = parser.parse_args()
    os.makedirs(args.artifacts, exist_ok=True)
    seeds = os.path.join(ROOT, "Fuzz", "corpus-seed")
    corpus = [open(os.path.join(seeds, name), "rb").read().strip() for name in sorted(os.listdir(seeds))]
    mutate.WORDS[:] = mutate.load_words(os.path.join(ROOT, "Fuzz", "request.dict"))
    modes = [args.only] if args.only else ["read-only", "read-write"]
    started = time.monotonic()
    totals, findings = {}, []
    try:
        for mode in modes:
            run = fuzz(args, mode, args.seconds / len(modes), corpus)
            findings += run.findings
            for key, value in run.counts.items():
                totals[key] = max(totals.get(key, 0), value) if key.startswith("max_") else totals.get(key, 0) + value
            totals["connections"] = totals.get("connections", 0) + run.sockets.opened
    except HarnessError as error:
        print("http-fuzz: harness error: %s" % error, file=sys.stderr)
        return 2
    elapsed = time.monotonic() - started
    summary = {"seed": args.seed, "seconds": round(elapsed, 1), "findings": len(findings)}
    summary.update(sorted(totals.items()))
    print(json.dumps(summary))
    print("http-fuzz: %d requests on %d connections in %.0f s (seed %d); max RSS %.0f MiB, max fds %d; %d findings"
          % (totals.get("requests", 0), totals.get("connections", 0), elapsed, args.seed, totals.get("max_rss_mb", 0),
             totals.get("max_fds", 0), len(findings)))
    if findings:
        print("http-fuzz: findings in %s" % args.artifacts, file=sys.stderr)
        return 1
    print("http-fuzz: nothing found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
