#!/usr/bin/env python3
"""layoutd's real-process fault suite (issue 14): a broker and N workers as real `layoutd` processes on
free loopback ports, a mixed workload from an independent pyzmq client recording a history, faults
(kill -9, SIGSTOP past liveness, SIGTERM, a broker restart, a join, compound cases), and a checker of
issue 14's invariants over the history (scripts/faults_lib/checker.py), with each key's acknowledged
changes replayed through a reference daemon (`--journal none`). The direct-* scenarios (issue 25) give the
workers direct endpoints and add clients reading straight from each key's owner (PROTOCOL.md section 11):
no read may be stale, and a worker paused or cut off from its broker must stop answering once its read
lease has lapsed.

Prints one JSON line per scenario, then a summary line. Exit status: 0 all passed, 1 a violation,
2 a harness error. Run it through scripts/faults, which builds layoutd first:

  scripts/faults                       # every scenario, full size
  scripts/faults --small               # the quick scenarios, scaled down (CI: under 3 minutes)
  scripts/faults --only worker-kill,compound-a --seed 7
  scripts/faults --self-check          # the checker must catch a fabricated rollback, lost change, stale read

Partitions: as root where `ip netns add` works, every process runs in a network namespace of its own, joined
to a bridge in a hub namespace the suite makes and removes, and a partition is a link taken down (netns
mode; scripts/faults_lib/netns.py). Elsewhere, or with --loopback, everything is on loopback and a
partition is SIGSTOP/SIGCONT of the process cut off. Pauses are SIGSTOP in both modes. direct-partition
cuts a worker off from its broker only (clients still reach its direct endpoint): blackhole routes between
the two namespaces, or on loopback the TCP relays the worker joins through stop forwarding. Logs of a failed
scenario are kept and their directory printed on stderr.
"""
import argparse
import atexit
import json
import os
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import zmq  # noqa: E402

from faults_lib import netns  # noqa: E402
from faults_lib.self_check import self_check  # noqa: E402
from faults_lib.procs import HarnessError, Reference, cleanup_all, install_cleanup  # noqa: E402
from faults_lib.scenarios import SCENARIOS, Runner  # noqa: E402


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--layoutd", required=True, help="the layoutd binary")
    p.add_argument("--small", action="store_true", help="fewer keys and requests, quick scenarios only")
    p.add_argument("--only", help="comma-separated scenario names: " + ",".join(SCENARIOS))
    p.add_argument("--seed", type=int, default=1, help="seed of the workload's random choices")
    p.add_argument("--workers", type=int, default=3, help="workers per cluster (compound-a always uses 2)")
    p.add_argument("--loopback", action="store_true",
                   help="every process on loopback, a partition as SIGSTOP/SIGCONT (default where network "
                        "namespaces cannot be made: not root, or `ip netns add` fails)")
    p.add_argument("--heartbeat-millis", type=int, default=200, help="cluster.heartbeatMillis")
    p.add_argument("--liveness", type=int, default=3, help="cluster.liveness")
    p.add_argument("--timeout", type=float, default=5.0, help="client timeout of one request, seconds")
    p.add_argument("--broker-journal", help="the broker's --journal (default: its own, sqlite:data/layoutd-broker.db "
                   "in its directory); 'none' shows the suite catching what a broker without a journal loses")
    p.add_argument("--keep", action="store_true", help="keep every scenario's logs and history")
    p.add_argument("--self-check", action="store_true", help="check the checker on a fabricated history")
    args = p.parse_args()
    if args.workers < 2:
        p.error("--workers must be at least 2")
    return args


def main():
    args = parse()
    binary = os.path.abspath(args.layoutd)
    if not os.access(binary, os.X_OK):
        print(f"faults: {binary} is not an executable", file=sys.stderr)
        return 2
    install_cleanup()
    ctx = zmq.Context()
    root = tempfile.mkdtemp(prefix="layoutd-faults.")
    reference = Reference(ctx, binary, root)
    status = 0
    net = None
    client_ctx = ctx
    try:
        reference.start()
        if args.self_check:
            failures, result = self_check(reference)
            for v in result.violations:
                print(json.dumps({"selfCheck": True, "caught": v["invariant"], "key": v["key"],
                                  "message": v["message"]}))
            print(json.dumps({"selfCheck": True, "ok": not failures, "failures": failures,
                              "lost": result.lost, "rolledBack": result.rolled_back, "stale": result.stale}))
            return 0 if not failures else 1
        if args.only:
            names = [n.strip() for n in args.only.split(",") if n.strip()]
            unknown = [n for n in names if n not in SCENARIOS]
            if unknown:
                print(f"faults: unknown scenario(s) {unknown}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
                return 2
        else:
            names = [n for n, (_, _, quick) in SCENARIOS.items() if quick or not args.small]
        if not args.loopback and netns.available():
            net = netns.Net()
            atexit.register(net.destroy)
            net.create()
            client_ctx = net.client_context()
        print(f"faults: mode {'netns (a partition is a link down)' if net else 'loopback (a partition is SIGSTOP)'}",
              file=sys.stderr)
        runner = Runner(args, client_ctx, binary, reference, root, net)
        passed = lost = rolled = stale = 0
        for name in names:
            started = time.monotonic()
            try:
                line, counts = runner.run(name)
            except HarnessError as e:
                status = 2
                print(json.dumps({"scenario": name, "ok": False, "harnessError": str(e).splitlines()[0],
                                  "seconds": round(time.monotonic() - started, 1)}), flush=True)
                print(f"faults: {name}: harness error: {e}\nfaults: logs kept in {root}", file=sys.stderr)
                continue
            print(json.dumps(line), flush=True)
            passed += line["ok"]
            lost += counts["lost"]
            rolled += counts["rolledBack"]
            stale += counts["stale"]
            if not line["ok"] and status == 0:
                status = 1
        print(json.dumps({"summary": True, "scenarios": len(names), "passed": passed, "lost": lost,
                          "rolledBack": rolled, "stale": stale}), flush=True)
        return status
    except HarnessError as e:
        print(f"faults: harness error: {e}", file=sys.stderr)
        status = 2
        return 2
    except Exception:
        import traceback
        traceback.print_exc()
        status = 2
        return 2
    finally:
        reference.stop()
        cleanup_all()
        if client_ctx is not ctx:
            client_ctx.destroy(linger=0)
        if net is not None:
            net.destroy()
        ctx.destroy(linger=0)
        if status == 0 and not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        elif os.path.isdir(root):
            print(f"faults: kept {root}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
