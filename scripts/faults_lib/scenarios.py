"""The fault scenarios. Each runs against a fresh cluster (broker + workers as real processes), with the
mixed workload recording a history, heals everything, reads every key's final state and checks it."""
import json
import os
import random
import shutil
import tempfile
import time
import zlib

from .checker import Checker
from collections import Counter

from .client import DirectReader, EventLog, Front, History, parse_route
from .cluster import Cluster
from .fault_scenarios import (
    broker_restart, compound_a, compound_b, direct_broker_restart, direct_partition, direct_pause,
    partition_long, partition_short, pause_drop_restart, worker_join, worker_kill, worker_pause, worker_sigterm,
)
from .procs import HarnessError, wait_for
from .standby import StandbyCluster
from .standby_scenarios import STANDBY_SCENARIOS
from .workload import KeyState, KeyWriter, Load, ensure, query_body


class Scale:
    def __init__(self, small):
        self.small = small
        self.keys = 8 if small else 24
        self.writers = 2 if small else 4
        self.readers = 1 if small else 2
        self.warm = 60 if small else 300          # requests before the fault
        self.during = 60 if small else 300        # requests while it lasts
        self.after = 40 if small else 200         # requests after the heal
        self.compound_keys = 20
        self.burst_keys = 8 if small else 16
        self.burst = 4
        self.direct_readers = 2 if small else 3


class S:
    """What a scenario body works with."""

    def __init__(self, run, name, root, workers):
        self.run, self.name, self.root = run, name, root
        self.args, self.scale = run.args, run.scale
        self.rng = random.Random(run.args.seed * 7919 + zlib.crc32(name.encode()))
        self.history = History()
        run.count += 1
        self.direct = name in DIRECT
        if name in STANDBY_SCENARIOS:
            self.cluster = StandbyCluster(run.ctx, run.binary, root, run.args.heartbeat_millis, run.args.liveness,
                                          net=run.net, tag=f"s{run.count}-")
        else:
            self.cluster = Cluster(run.ctx, run.binary, root, run.args.heartbeat_millis, run.args.liveness,
                                   broker_journal=run.args.broker_journal, net=run.net, tag=f"s{run.count}-",
                                   direct=self.direct, relay=name in RELAY)
        self.extra = {}           # the scenario's own figures, added to its JSON line
        self.prober = None
        self.lease_windows = []   # (victim's endpoint, first tick, last tick, keys it took back): no direct read sent there answers ok
        self.expected = set(workers)
        self.initial = list(workers)
        self.keys = []            # every KeyState whose final state is checked
        self.load = None
        self.notes = []
        self.driver_front = None
        self.driver = None
        self.burst_keys = []

    # helpers

    def phase(self, name):
        self.history.phase = name

    def start_load(self, n=None):
        keys = [KeyState(f"k{i:02d}", random.Random(self.rng.random())) for i in range(n or self.scale.keys)]
        self.keys.extend(keys)
        self.load = Load(self.run.ctx, self.cluster.front, self.history, keys, self.rng.randrange(1 << 30),
                         writers=self.scale.writers, readers=self.scale.readers, pace=0.01,
                         budget=20000, direct_readers=self.scale.direct_readers if self.direct else 0,
                         direct_timeout=min(1.0, self.args.timeout / 2)).start()
        if not self.load.wait_prepared(30):
            self.notes.append("not every key was prepared within 30 s")
        return self.load

    def requests(self, n):
        if self.load:
            self.load.wait_requests(n, timeout=30 + n * 0.05)

    def busiest_worker(self, among=None):
        stats = self.cluster.stats() or {}
        workers = [w for w in stats.get("cluster", {}).get("workers", []) if w.get("alive")]
        workers = [w for w in workers if among is None or w["id"] in among]
        if not workers:
            return sorted(among or self.expected)[0]
        return max(workers, key=lambda w: (w.get("keys", 0), w["id"]))["id"]

    def must(self, value, what):
        if not value:
            raise ScenarioStuck(what)
        return value

    def burst_then(self, action, n_keys=None, length=None):
        """A burst of pipelined updates (ifVersion chains) on the driver's own keys, `action` run right
        after the last send, then every burst key's version read back (so its model is known again)."""
        driver = self.ensure_driver()
        if not self.burst_keys:
            self.burst_keys = [KeyState(f"x{i:02d}", random.Random(self.rng.random()), kind="waterfall", items=200)
                               for i in range(n_keys or self.scale.burst_keys)]
            self.keys.extend(self.burst_keys)
            for ks in self.burst_keys:
                self.must(ensure(driver, ks, "prepare"), f"{ks.name} prepared")
        burst, known = [], {}
        for ks in self.burst_keys:
            if ks.uncertain or ks.resync or ks.gone or ks.version is None:
                continue
            v, model = ks.version, ks.model
            known[(ks.name, v)] = model
            for _ in range(length or self.scale.burst):
                ks.version, ks.model = v, model
                body, model = ks.gen_update(with_if=True)
                burst.append((body, v))
                v += 1
                known[(ks.name, v)] = model
        _burst_then(driver.front, burst, action)
        for ks in self.burst_keys:
            deadline = time.monotonic() + 30
            rec = None
            while time.monotonic() < deadline:
                rec = driver.front.call(query_body(ks.name))
                if rec.outcome in ("ok", "unknown_layout"):
                    break
                time.sleep(0.05)
            ks.uncertain, ks.pending = False, None
            if rec.outcome == "ok" and (ks.name, rec.version) in known:
                ks.version, ks.model = rec.version, known[(ks.name, rec.version)]
            elif rec.outcome == "ok":
                ks.version, ks.resync = rec.version, True
            else:
                ks.version, ks.gone = None, True

    def touch_burst_keys(self, what):
        """Every burst key takes an acknowledged update (after a fault)."""
        for ks in self.burst_keys:
            self.must(ensure(self.driver, ks, "update", timeout=30), f"{ks.name} updated {what}")

    def ensure_prober(self):
        if self.prober is None:
            self.prober = DirectReader(self.run.ctx, self.cluster.front, self.history, "probe", self.args.timeout)
        return self.prober

    def route(self):
        """The broker's route table now ({key: (epoch, endpoint, owner)}), or None."""
        reply = self.ensure_prober().front.request({"op": "route"}, timeout=2.0)
        return parse_route(reply.get("result") or {}) if reply and reply.get("ok") else None

    def direct_ok_since(self, since):
        return sum(1 for r in self.history.snapshot() if r.direct and r.outcome == "ok" and r.sent > since)

    def ensure_driver(self):
        if self.driver is None:
            self.driver_front = Front(self.run.ctx, self.cluster.front, self.history, "driver", self.args.timeout)
            self.driver = KeyWriter(self.driver_front, random.Random(self.rng.random()), drops=False)
        return self.driver


class ScenarioStuck(Exception):
    """The cluster did not reach a state a scenario waits for within its bound: reported as a violation."""


def _burst_then(front, items, action):
    """call_many with `action` run right after the last send (before any reply is awaited)."""
    import json as _json
    from .client import Record, strip, tick
    records, pending = [], {}
    for body, base in items:
        front.counter += 1
        rid = f"{front.name}-{front.counter}"
        body = dict(body, v=1, id=rid)
        rec = Record(client=front.name, key=body["layout"], op=body["op"], body=strip(body), sent=0, base=base,
                     phase=front.history.phase)
        rec.sent = tick()
        front.socket.send_multipart([b"", _json.dumps(body).encode()])
        pending[rid] = rec
        records.append(rec)
    action()
    deadline = time.monotonic() + front.timeout + 2
    while pending:
        left = deadline - time.monotonic()
        if left <= 0 or not front.socket.poll(int(left * 1000) + 1):
            break
        frames = front.socket.recv_multipart()
        received = tick()
        try:
            reply = _json.loads(frames[-1])
        except ValueError:
            continue
        rec = pending.pop(reply.get("id"), None)
        if rec is not None:
            rec.received = received
            front._fill(rec, reply)
    if pending:
        now = tick()
        for rec in pending.values():
            rec.received, rec.outcome = now, "timeout"
        front._open()
    for rec in records:
        front.history.add(rec)
    return records


SCENARIOS = {
    # name: (function, workers (None: --workers), quick)
    "worker-kill": (worker_kill, None, True),
    "broker-restart": (broker_restart, None, True),
    "worker-pause": (worker_pause, None, True),
    "partition-short": (partition_short, None, True),
    "partition-long": (partition_long, None, False),
    "worker-sigterm": (worker_sigterm, None, True),
    "worker-join": (worker_join, None, True),
    "compound-a": (compound_a, ["worker-a", "worker-b"], True),
    "compound-b": (compound_b, None, True),
    "pause-drop-restart": (pause_drop_restart, None, False),
    "direct-pause": (direct_pause, None, True),
    "direct-partition": (direct_partition, None, True),
    "direct-broker-restart": (direct_broker_restart, None, True),
}
SCENARIOS.update(STANDBY_SCENARIOS)
DIRECT = {"direct-pause", "direct-partition", "direct-broker-restart"} | set(STANDBY_SCENARIOS)   # direct endpoints
RELAY = {"direct-partition"}     # loopback mode: workers join through relays (Cluster.cut_from_broker)


def _lease_violations(s, records):
    """A direct read sent to a cut-off or paused worker once its lease had surely lapsed, before the heal,
    must not be answered ok (PROTOCOL.md section 11, read leases)."""
    out = []
    for endpoint, lapsed, healed, retaken in s.lease_windows:
        bad = [r for r in records if r.direct and r.endpoint == endpoint and r.outcome == "ok"
               and lapsed < r.sent <= healed and r.key not in retaken]
        if bad:
            out.append({"invariant": "6-lease", "key": bad[0].key,
                        "message": f"{len(bad)} direct read(s) sent to {endpoint} after its read lease had lapsed "
                                   f"were answered ok", "history": [r.brief() for r in bad[:10]]})
    return out


class Runner:
    def __init__(self, args, ctx, binary, reference, root, net=None):
        self.args, self.ctx, self.binary, self.reference, self.root = args, ctx, binary, reference, root
        self.net = net
        self.count = 0
        self.scale = Scale(args.small)
        self.checker = Checker(reference)

    def run(self, name):
        fn, workers, _ = SCENARIOS[name]
        workers = workers or [f"worker-{i}" for i in range(self.args.workers)]
        started = time.monotonic()
        root = tempfile.mkdtemp(prefix=f"{name}-", dir=self.root)
        s = S(self, name, root, workers)
        violations, events = [], None
        try:
            s.cluster.start_broker()
            for w in workers:
                s.cluster.start_worker(w)
            if not wait_for(lambda: s.cluster.serving(set(workers)), 30):
                raise HarnessError(f"the cluster did not serve within 30 s:\n{s.cluster.broker.log_tail()}")
            events = EventLog(self.ctx, s.cluster.events).start()
            wait_for(lambda: ((s.cluster.stats() or {}).get("subscribers") or 0) >= 1, 10)
            s.phase("load")
            try:
                fn(s)
            except ScenarioStuck as e:
                violations.append({"invariant": "liveness", "message": f"not reached within its bound: {e}"})
            violations += self._heal_and_read(s)
            records = s.history.snapshot()
            result = self.checker.check(records, events.snapshot())
            violations += result.violations
            violations += _lease_violations(s, records)
            if s.load and s.load.errors:
                raise HarnessError(f"workload thread failed: {s.load.errors[0]}")
        finally:
            if s.load:
                s.load.stop()
            if s.driver_front:
                s.driver_front.close()
            if s.prober:
                s.prober.close()
            if events:
                events.stop()
            s.cluster.stop_all()
        records = s.history.snapshot()
        line = {
            "scenario": name,
            "ok": not violations,
            "requests": len(records),
            "acknowledged": sum(1 for r in records if r.is_change and r.outcome == "ok"),
            "indeterminate": sum(1 for r in records if r.indeterminate),
            "stale": result.stale, "lost": result.lost, "rolledBack": result.rolled_back,
        }
        if s.direct:
            fell = Counter(r.fallback for r in records if r.fallback)
            line.update({"directOk": sum(1 for r in records if r.direct and r.outcome == "ok"),
                         "directNotOk": dict(Counter(r.outcome for r in records if r.direct and r.outcome != "ok")),
                         "fellBack": sum(fell.values()), "fellBackBy": dict(fell)})
        line.update(s.extra)
        line.update({
            "violations": violations[:25] + ([{"more": len(violations) - 25}] if len(violations) > 25 else []),
            "seconds": round(time.monotonic() - started, 1),
        })
        counts = {"lost": result.lost, "rolledBack": result.rolled_back, "stale": result.stale}
        if violations or self.args.keep:
            with open(os.path.join(root, "history.jsonl"), "w") as f:
                for r in sorted(records, key=lambda r: r.sent):
                    f.write(json.dumps(r.to_json()) + "\n")
                for e in (events.snapshot() if events else []):
                    f.write(json.dumps({"event": e}) + "\n")
            with open(os.path.join(root, "violations.json"), "w") as f:
                json.dump(violations, f, indent=1)
            if s.notes:
                violations_note = "; ".join(s.notes)
                print(f"faults: {name}: {violations_note}", file=__import__("sys").stderr)
            print(f"faults: {name}: logs, history and violations kept in {root}", file=__import__("sys").stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
        return line, counts

    def _heal_and_read(self, s):
        """SIGCONT every paused process, start what should run, wait until the cluster serves, stop the
        load, then read every key twice (a second pass once the cluster has settled again)."""
        violations = []
        c = s.cluster
        c.heal_all()
        for p in c.processes():
            if p.stopped:
                p.cont()
        if not c.broker.running():
            c.broker.start()
        for name in s.expected:
            if not c.worker(name).running():
                c.start_worker(name)
        if not wait_for(lambda: c.serving(s.expected), 30):
            violations.append({"invariant": "liveness", "message": "the healed cluster did not serve within 30 s",
                               "stats": (c.stats() or {}).get("cluster", {}).get("totals")})
        if s.load:
            s.load.stop()
        front = Front(self.ctx, c.front, s.history, "final", self.args.timeout)
        try:
            for round_ in (1, 2):
                s.phase("final")
                wait_for(lambda: c.serving(s.expected), 30)
                for ks in s.keys:
                    if not ks.prepared:
                        continue
                    deadline = time.monotonic() + 30
                    while time.monotonic() < deadline:
                        rec = front.call(query_body(ks.name))
                        if rec.outcome in ("ok", "unknown_layout"):
                            break
                        time.sleep(0.1)
                if round_ == 1:
                    time.sleep(2 * c.liveness_seconds)   # let a late rejoin or supersede show in the second pass
        finally:
            front.close()
        return violations
