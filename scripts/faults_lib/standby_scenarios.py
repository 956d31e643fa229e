"""The standby scenarios (issue 32): two brokers on one PostgreSQL (scripts/faults_lib/standby.py), direct reads
on, the client load running throughout, both fronts in every client's list. Each must end with 0 stale, 0 lost,
0 rolled back: no read answered ok (through either broker, or straight at a worker) older than a change
acknowledged before it was sent, whichever broker acknowledged it."""
import os
import time

from .procs import wait_for


def _took(s, index):
    """How many times broker `index` took the lease (its log says so each time)."""
    try:
        with open(s.cluster.brokers[index].log_path, "rb") as f:
            return f.read().count(b"took the broker lease: active")
    except OSError:
        return 0


def _serving_at(s, index, expected):
    """Broker `index` holds the lease and serves `expected` workers (its stats say so)."""
    from .procs import stats_of
    stats = stats_of(s.cluster.ctx, s.cluster.stats_endpoints[index], 1.0)
    if not stats or "cluster" not in stats:
        return False
    alive = {w["id"] for w in stats["cluster"].get("workers", []) if w.get("alive")}
    return set(expected) <= alive


def _takeover(s, before, what):
    """Waits until the standby b1 took the lease (its log), then until it serves some worker."""
    lease = s.cluster.lease_millis / 1000.0
    s.must(wait_for(lambda: _took(s, 1) > before, 30 + 4 * lease), f"b1 took the lease after {what}")


def _hold(s, seconds):
    """The load runs on for `seconds` (reads and changes through both fronts, direct reads at owners)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.05)


def standby_kill(s):
    """kill -9 of the active broker: b1 takes the lease, the workers join it, the load goes on."""
    s.start_load()
    s.requests(s.scale.warm)
    before = _took(s, 1)
    s.phase("fault")
    s.cluster.brokers[0].kill9()
    _takeover(s, before, "b0's kill -9")
    s.must(wait_for(lambda: _serving_at(s, 1, s.expected), 60), "b1 serving every worker")
    s.phase("heal")
    s.cluster.brokers[0].start()
    s.requests(s.scale.after)


def standby_blackhole(s):
    """b0's link to PostgreSQL blackholed (workers and clients still reach it); b1 takes the lease; a worker
    restarted listing b1 first joins it (as a rescheduled pod does), and b1 changes keys while b0 still runs:
    nothing b0 answers may be older than what b1 acknowledged."""
    s.start_load()
    s.requests(s.scale.warm)
    before = _took(s, 1)
    s.phase("fault")
    s.cluster.cut_database(0)
    _takeover(s, before, "b0's link to PostgreSQL went dark")
    moved = sorted(s.expected)[-1]
    proc = s.cluster.workers[moved]
    proc.kill9()
    joins = proc.args.index("--join") + 1
    events = proc.args.index("--join-events") + 1
    proc.args[joins] = ",".join(reversed(proc.args[joins].split(",")))
    proc.args[events] = ",".join(reversed(proc.args[events].split(",")))
    proc.start()
    s.must(wait_for(lambda: _serving_at(s, 1, {moved}), 60), f"{moved} serving at b1")
    # Past the old broker's renewal timeout as built (30 s) would be the whole window: the lease (and the
    # read leases under it) must end it long before. The load runs through it.
    _hold(s, max(4 * s.cluster.lease_millis / 1000.0, 6.0))
    s.phase("heal")
    s.cluster.heal_database(0)
    s.requests(s.scale.after)


def standby_split(s):
    """One worker joined to each broker: b0 cut off from PostgreSQL and from worker-B, which joins b1 once b1
    has the lease; worker-A cut off from b1, so it stays with b0. Reads through both fronts and at both
    workers must never go back."""
    s.start_load()
    s.requests(s.scale.warm)
    names = sorted(s.expected)
    stay, move = names[0], names[-1]
    before = _took(s, 1)
    s.phase("fault")
    s.cluster.cut_worker_from(stay, 1)
    s.cluster.cut_worker_from(move, 0)
    s.cluster.cut_database(0)
    _takeover(s, before, "b0's link to PostgreSQL went dark")
    s.must(wait_for(lambda: _serving_at(s, 1, {move}), 60), f"{move} serving at b1")
    _hold(s, max(4 * s.cluster.lease_millis / 1000.0, 6.0))
    s.phase("heal")
    s.cluster.heal_database(0)
    s.cluster.heal_worker_from(stay, 1)
    s.cluster.heal_worker_from(move, 0)
    s.requests(s.scale.after)


def standby_pause(s):
    """The active broker paused (SIGSTOP) past its lease: b1 takes it and the workers join b1; then b0 runs
    again, with requests waiting in its socket, before its keeper can tell it the lease is gone."""
    s.start_load()
    s.requests(s.scale.warm)
    before = _took(s, 1)
    s.phase("fault")
    s.cluster.brokers[0].stop()
    _takeover(s, before, "b0's SIGSTOP")
    s.must(wait_for(lambda: _serving_at(s, 1, s.expected), 60), "b1 serving every worker")
    s.requests(s.scale.during // 2)
    s.phase("heal")
    s.cluster.brokers[0].cont()
    s.requests(s.scale.after)


# name: (function, workers (None: --workers), quick). standby-blackhole and standby-split fail as built at
# 529106f (stale reads through the old broker and at its workers: issue 32, finding 1) and stay out of --small,
# which CI runs, until the broker acts only inside its lease (branch `lease`): then LEASE_FIXES_MERGED becomes
# True (LAYOUTD_FAULTS_STANDBY_ALL=1 puts them in --small meanwhile; --only runs any).
LEASE_FIXES_MERGED = os.environ.get("LAYOUTD_FAULTS_STANDBY_ALL") == "1" or False
STANDBY_SCENARIOS = {
    "standby-kill": (standby_kill, None, True),
    "standby-blackhole": (standby_blackhole, None, LEASE_FIXES_MERGED),
    "standby-split": (standby_split, None, LEASE_FIXES_MERGED),
    "standby-pause": (standby_pause, None, True),
}
