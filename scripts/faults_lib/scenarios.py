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

from .client import DirectReader, EventLog, Front, History, direct_reads, parse_route, tick
from .procs import Cluster, HarnessError, wait_for
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


# The scenarios. Each takes S, runs its faults; the runner heals and checks afterwards.

def _rounds(s):
    return 1 if s.scale.small else 2


def _lose_busiest_worker(s, fault, gone):
    """Rounds of: the busiest worker taken away under load by `fault(victim)`, `gone(victim)` checked,
    load meanwhile, then the worker started again and joined."""
    s.start_load()
    for round_ in range(_rounds(s)):
        s.requests(s.scale.warm)
        victim = s.busiest_worker()
        s.phase("fault")
        s.burst_then(lambda: fault(victim))
        gone(victim)
        s.requests(s.scale.during)
        s.phase("heal")
        s.cluster.start_worker(victim)
        s.must(s.cluster.wait_alive(s.expected), f"{victim} joined again")
    s.requests(s.scale.after)


def worker_kill(s):
    _lose_busiest_worker(
        s, lambda victim: s.cluster.workers[victim].kill9(),
        lambda victim: s.must(s.cluster.wait_dead(victim), f"{victim} declared dead after kill -9"))


def broker_restart(s):
    s.start_load()
    for round_ in range(1 if s.scale.small else 3):
        s.requests(s.scale.warm)
        s.phase("fault")
        s.burst_then(s.cluster.restart_broker)
        s.phase("heal")
        s.must(wait_for(lambda: s.cluster.serving(s.expected), 30), "the restarted broker serving every worker")
    s.requests(s.scale.after)


def worker_pause(s, factor=3.0, partition=False):
    cut = s.cluster.cut if partition else (lambda name: s.cluster.workers[name].stop())
    heal = s.cluster.heal if partition else (lambda name: s.cluster.workers[name].cont())
    s.start_load()
    for round_ in range(_rounds(s)):
        s.requests(s.scale.warm)
        victim = s.busiest_worker()
        s.phase("fault")
        stopped = time.monotonic()
        s.burst_then(lambda: cut(victim))
        s.must(s.cluster.wait_dead(victim), f"{victim} declared dead while paused or cut off")
        until = stopped + factor * s.cluster.liveness_seconds
        while time.monotonic() < until:      # the fault's own length, while the load runs
            time.sleep(0.05)
        s.requests(s.scale.during // 2)
        s.phase("heal")
        heal(victim)
        s.must(s.cluster.wait_alive(s.expected), f"{victim} joined again after the heal")
    s.requests(s.scale.after)


def partition_short(s):
    s.start_load()
    s.requests(s.scale.warm)
    s.phase("fault")
    for i in range(3 if s.scale.small else 6):
        victim = s.busiest_worker() if i % 2 == 0 else sorted(s.expected)[i % len(s.expected)]
        if i % 2 == 0:
            s.burst_then(lambda: s.cluster.cut(victim))
        else:
            s.cluster.cut(victim)
        # The fault's length: a quarter of liveness, so the worker's silence (its last heartbeat before
        # the stop included) stays under the broker's limit even on a loaded machine.
        time.sleep(0.25 * s.cluster.liveness_seconds)
        s.cluster.heal(victim)
        s.requests(s.scale.during // 3)
    s.phase("heal")
    s.requests(s.scale.after)


def partition_long(s):
    worker_pause(s, factor=1.5, partition=True)


def worker_sigterm(s):
    def gone(victim):
        s.must(s.cluster.workers[victim].wait_exit(30), f"{victim} exited after SIGTERM")
        s.must(s.cluster.wait_dead(victim), f"{victim} no longer alive after leaving")
    _lose_busiest_worker(s, lambda victim: s.cluster.workers[victim].term(), gone)


def worker_join(s):
    s.start_load()
    for round_ in range(_rounds(s)):
        s.requests(s.scale.warm)
        s.phase("fault")
        name = f"worker-{len(s.expected)}"
        s.expected.add(name)
        s.burst_then(lambda: s.cluster.start_worker(name))
        s.must(s.cluster.wait_alive(s.expected), f"{name} joined")
        s.requests(s.scale.during)
    s.phase("heal")
    s.requests(s.scale.after)


def compound_a(s):
    """Issue 14, measured case 1: A paused past liveness, its keys rebuilt on B and all updated; B
    paused, the broker killed and restarted on the same endpoints, A resumed first, then B."""
    a, b = s.initial
    driver = s.ensure_driver()
    keys = [KeyState(f"wf{i:02d}", random.Random(s.rng.random()), kind="waterfall") for i in range(s.scale.compound_keys)]
    s.keys.extend(keys)
    s.phase("prepare")
    for ks in keys:
        s.must(ensure(driver, ks, "prepare"), f"{ks.name} prepared")
    for ks in keys:
        s.must(ensure(driver, ks, "update"), f"{ks.name} updated")
    s.phase("fault")
    s.cluster.workers[a].stop()
    s.must(s.cluster.wait_dead(a), f"{a} declared dead while paused")
    for ks in keys:
        s.must(ensure(driver, ks, "update", timeout=30), f"{ks.name} updated while {a} is paused")
    s.cluster.workers[b].stop()
    s.cluster.restart_broker()
    s.cluster.workers[a].cont()
    s.must(s.cluster.wait_alive({a}), f"{a} joined the restarted broker")
    s.must(wait_for(lambda: s.cluster.serving({a}), 30), f"the restarted broker serving with {a} only")
    s.phase("a-only")
    for ks in keys:      # read while B is still paused: must answer the acknowledged versions
        rec = driver.front.call(query_body(ks.name))
        if rec.outcome == "timeout":
            driver.front.call(query_body(ks.name))
    s.phase("heal")
    s.cluster.workers[b].cont()
    s.must(s.cluster.wait_alive({a, b}), f"{b} joined after SIGCONT")


def compound_b(s):
    """A worker paused while changes run on it (right after a burst of updates), every key changed after
    its death, the broker killed and restarted, then the worker resumed."""
    s.start_load(max(4, s.scale.keys // 2))
    s.requests(s.scale.warm // 2)
    s.burst_then(lambda: None)          # prepares the burst keys (and one burst in calm)
    victim = s.busiest_worker()
    s.phase("fault")
    s.burst_then(lambda: s.cluster.workers[victim].stop())
    s.must(s.cluster.wait_dead(victim), f"{victim} declared dead while paused")
    s.touch_burst_keys(f"after {victim}'s death")
    s.cluster.restart_broker()
    others = s.expected - {victim}
    s.must(wait_for(lambda: s.cluster.serving(others), 30), f"the restarted broker serving without {victim}")
    s.requests(s.scale.during // 2)
    s.phase("heal")
    s.cluster.workers[victim].cont()
    s.must(s.cluster.wait_alive(s.expected), f"{victim} joined after SIGCONT")
    s.requests(s.scale.after)


def pause_drop_restart(s):
    """A worker paused past liveness, its keys rebuilt elsewhere; half of every key dropped (acknowledged),
    the others updated; the broker killed and restarted; the worker resumed. A dropped key must stay
    dropped (unknown_layout) and never answer again at an older version from the paused worker's copy."""
    driver = s.ensure_driver()
    keys = [KeyState(f"d{i:02d}", random.Random(s.rng.random()), kind="list", items=40)
            for i in range(s.scale.compound_keys)]
    s.keys.extend(keys)
    s.phase("prepare")
    for ks in keys:
        s.must(ensure(driver, ks, "prepare"), f"{ks.name} prepared")
        s.must(ensure(driver, ks, "update"), f"{ks.name} updated")
    victim = s.busiest_worker()
    s.phase("fault")
    s.cluster.workers[victim].stop()
    s.must(s.cluster.wait_dead(victim), f"{victim} declared dead while paused")
    for i, ks in enumerate(keys):
        if i % 2 == 0:
            rec = driver.front.call({"op": "drop", "layout": ks.name, "ifVersion": ks.version}, base=ks.version)
            if rec.outcome == "ok":
                ks.version, ks.gone = rec.version, True
        else:
            s.must(ensure(driver, ks, "update", timeout=30), f"{ks.name} updated while {victim} is paused")
    s.cluster.restart_broker()
    others = s.expected - {victim}
    s.must(wait_for(lambda: s.cluster.serving(others), 30), f"the restarted broker serving without {victim}")
    s.phase("heal")
    s.cluster.workers[victim].cont()
    s.must(s.cluster.wait_alive(s.expected), f"{victim} joined after SIGCONT")


def _lease_fault(s, cut, heal, paused):
    """Rounds of: the busiest worker cut off from its broker (`cut`) while direct readers keep reading and
    writers write; once its lease has surely lapsed, every direct read it is sent must answer `moved` (a
    lease window the runner checks); its keys must settle at other workers and take changes; then its old
    keys are read at it directly with their old epochs (the probe: a paused worker reads them as it resumes,
    the probe having been sent before the SIGCONT); then `heal`, and it joins again."""
    lease = s.cluster.heartbeat * (s.cluster.liveness - 1) / 1000.0
    s.start_load()
    prober = s.ensure_prober()
    probes = Counter()
    for round_ in range(_rounds(s)):
        s.requests(s.scale.warm)
        started = tick()
        s.must(wait_for(lambda: s.direct_ok_since(started), 30), "direct reads answered ok before the fault")
        victim = s.busiest_worker()
        endpoint = s.cluster.direct_endpoints[victim]
        table = s.must(s.route(), "the route table before the fault")
        owned = {k: e for k, (e, _, owner) in table.items() if owner == victim}
        s.phase("fault")
        at = {}

        def act():
            cut(victim)
            at["cut"] = time.monotonic()
        s.burst_then(act)
        s.must(wait_for(lambda: time.monotonic() >= at["cut"] + lease + 0.1, 30), "the lease's length")
        lapsed = tick()
        s.must(s.cluster.wait_dead(victim), f"{victim} declared dead")

        def moved_away():
            t = s.route()
            return t is not None and all(t.get(k) is None or (t[k][2] is not None and t[k][2] != victim)
                                         for k in owned)
        s.must(wait_for(moved_away, 30), f"{victim}'s keys settled at other workers")
        s.requests(s.scale.during // 2)
        items = [(query_body(k), e, None) for k, e in sorted(owned.items())]
        if paused:
            def resume():
                at["healed"] = tick()
                heal(victim)
            recs = direct_reads(prober, endpoint, items, resume, 10.0)
            healed = at["healed"]
        else:
            recs = direct_reads(prober, endpoint, items, None, 5.0)
            healed = tick()
        probes.update(r.outcome for r in recs)
        # Keys the paused victim takes back when it joins again, at the epoch the probe named: a probe read
        # that libzmq delivers to it only after that (it sat in the kernel's buffers while the process was
        # stopped) is answered under the new connection's lease, rightly. Staleness is still checked.
        retaken = set()
        s.lease_windows.append((endpoint, lapsed, healed, retaken))
        s.phase("heal")
        if not paused:
            heal(victim)
        s.must(s.cluster.wait_alive(s.expected), f"{victim} joined again after the heal")
        if paused:
            after = s.route() or {}
            retaken.update(k for k, e in owned.items() if k in after and after[k][0] == e and after[k][2] == victim)

        def victim_direct():
            """The victim's direct counts in the broker's stats once a heartbeat counted the probe's moved."""
            for x in (s.cluster.stats() or {}).get("cluster", {}).get("workers") or []:
                if x.get("id") == victim and x.get("alive") and x.get("direct") is not None:
                    return x["direct"]
            return None
        moved = sum(1 for r in recs if r.outcome == "moved")
        wait_for(lambda: (victim_direct() or {}).get("moved", 0) >= moved, 5)   # figures only: no verdict
        s.extra.setdefault("victims", []).append({"worker": victim, "keys": len(owned), "direct": victim_direct()})
    s.extra["probe"] = dict(probes)
    s.requests(s.scale.after)


def direct_pause(s):
    _lease_fault(s, lambda name: s.cluster.workers[name].stop(), lambda name: s.cluster.workers[name].cont(),
                 paused=True)


def direct_partition(s):
    s.extra["cut"] = "netns blackhole routes" if s.cluster.net is not None else "loopback relay stopped"
    _lease_fault(s, s.cluster.cut_from_broker, s.cluster.heal_from_broker, paused=False)


def direct_broker_restart(s):
    s.start_load()
    for round_ in range(1 if s.scale.small else 3):
        s.requests(s.scale.warm)
        started = tick()
        s.must(wait_for(lambda: s.direct_ok_since(started), 30), "direct reads answered ok before the restart")
        s.phase("fault")
        s.burst_then(s.cluster.restart_broker)
        restarted = tick()
        s.phase("heal")
        s.must(wait_for(lambda: s.cluster.serving(s.expected), 30), "the restarted broker serving every worker")
        s.must(wait_for(lambda: s.direct_ok_since(restarted), 30), "direct reads answered ok after the restart")
    s.requests(s.scale.after)


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
