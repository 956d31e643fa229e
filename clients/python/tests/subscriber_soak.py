#!/usr/bin/env python3
"""A subscriber on a cluster under moves (issue 34's soak): a broker and two workers with direct endpoints,
a confirmed subscriber of every topic, a writer of updates and direct reads, and a mover that stops and
starts the workers in turn, so that keys move, the route table changes and ``route`` events flow.

    LAYOUTD_BIN=.build/debug/layoutd python3 clients/python/tests/subscriber_soak.py --minutes 10

It checks that the subscriber raises nothing, and that every change the writer saw acknowledged reaches it
exactly once, in version order per key, with no gap anywhere in each key's versions (a change whose answer
was lost, but that was made, must show up too). One repeat is allowed, and must reach the subscriber as a
``Resync``: a change answered ``unavailable`` because its worker stopped may have published its event and
still be undone by the key's rebuild, whose next change then publishes that version again (PROTOCOL.md §7,
§10.8); counted as ``superseded``. It prints one JSON line of figures and exits 1 on a
problem. ``test_subscriber_soak.py`` runs it for 20 seconds; every wait in it is bounded and polls.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # layoutd_testkit, when run as a script

import layoutd  # noqa: E402
from layoutd import Client, Event, OtherEvent, Resync, Subscriber  # noqa: E402
from layoutd_testkit import (  # noqa: E402
    FEED_BOUNDS,
    FEED_SECTIONS,
    FEED_SPEC,
    READY_SECONDS,
    Process,
    Server,
    start_cluster,
    wait_until,
)

#: How long the subscriber may take to see the writer's last changes once the writing stops.
DRAIN_SECONDS = 30.0
#: How long a version read after an unclear answer keeps being tried.
REREAD_SECONDS = 60.0
FULL_RECT = (0.0, 0.0, 375.0, 667.0)


@dataclass
class Report:
    seconds: float = 0.0
    keys: int = 0
    acknowledged: int = 0
    unclear: int = 0
    made_unacknowledged: int = 0
    queries: int = 0
    stops: int = 0
    starts: int = 0
    events: int = 0
    route_events: int = 0
    other_events: Counter[str] = field(default_factory=Counter)
    resyncs: int = 0
    superseded: int = 0
    stale: int = 0
    writer_errors: Counter[str] = field(default_factory=Counter)
    direct: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["other_events"] = dict(self.other_events)
        out["writer_errors"] = dict(self.writer_errors)
        out["problems"] = self.problems[:20]
        out["ok"] = not self.problems
        return out


class Listener:
    """The subscriber, on a thread of its own (made there: a socket stays on one thread), recording the
    version of every event of each key in arrival order, resyncs' events included."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.versions: dict[str, list[int]] = defaultdict(list)
        self.lock = threading.Lock()
        self.route_events = 0
        self.others: Counter[str] = Counter()
        self.resyncs = 0
        self.stale = 0
        self.failure: BaseException | None = None
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="subscriber", daemon=True)
        self._thread.start()
        if not self._ready.wait(READY_SECONDS) or self.failure is not None:
            self.stop()
            raise AssertionError(f"the subscriber was not confirmed: {self.failure!r}")

    def _run(self) -> None:
        try:
            # Every topic (route events and other clients' confirmations included); no client: a gap shows
            # as a Resync, which is a miss here.
            with Subscriber(self.server.events, yield_others=True) as sub:
                self._ready.set()
                while not self._stop.is_set():
                    item = sub.next(0.2)
                    if isinstance(item, OtherEvent):
                        if item.event == "route":
                            self.route_events += 1
                        else:
                            self.others[str(item.event)] += 1
                        continue
                    event = item.event if isinstance(item, Resync) else item
                    if isinstance(item, Resync):
                        self.resyncs += 1
                    if isinstance(event, Event):
                        with self.lock:
                            self.versions[event.layout].append(event.version)
                    self.stale = sub.stale
        except BaseException as error:  # reported: the soak's point is that there is none
            self.failure = error
            self._ready.set()

    def seen(self, key: str) -> list[int]:
        with self.lock:
            return list(self.versions.get(key, ()))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(READY_SECONDS)


class Mover:
    """Stops a worker (SIGTERM: its keys move to the other), waits until the broker counts one alive, starts
    it again and waits until both are alive and named in the route table, then the other worker: round
    after round, ``pause`` seconds between steps, until :meth:`finish` (and at least one full round). The
    thread lives on until :meth:`close`: a worker it started gets SIGTERM when it ends (PR_SET_PDEATHSIG
    follows the thread that forked)."""

    def __init__(self, server: Server, workdir: Path, pause: float) -> None:
        self.server = server
        self.workdir = workdir
        self.pause = pause
        self.stops = 0
        self.starts = 0
        self.failure: BaseException | None = None
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._closing = threading.Event()
        self._stats = Client(server.front, stats_endpoints=server.stats, timeout=1.0, attempts=1, direct_reads="off")
        self._thread = threading.Thread(target=self._run, name="mover", daemon=True)
        self._thread.start()

    def _alive(self, count: int) -> bool:
        if not self.server.processes[0].alive():
            raise AssertionError(f"the broker exited:\n{self.server.processes[0].log()}")
        try:
            cluster = self._stats.stats().cluster or {}
        except (layoutd.Timeout, layoutd.Unavailable):
            return False
        return (cluster.get("totals") or {}).get("alive") == count

    def _all_direct(self) -> bool:
        try:
            table = self._stats.request("route")
        except (layoutd.Timeout, layoutd.Unavailable):
            return False
        return sorted(w.get("direct") for w in table["workers"]) == sorted(self.server.extra["direct"])

    def _run(self) -> None:
        try:
            turn = 0
            while not self._stop.wait(self.pause) or self.starts == 0:  # pacing, not a wait for a condition
                index = 1 + turn % 2  # processes[0] is the broker
                old = self.server.processes[index]
                old.stop()
                self.stops += 1
                wait_until(lambda: self._alive(1), READY_SECONDS, "the broker to count one worker alive")
                self._stop.wait(self.pause)
                self.server.processes[index] = Process(f"{old.name.split('.')[0]}.{turn + 1}", old.args, self.workdir)
                self.starts += 1
                wait_until(lambda: self._alive(2), READY_SECONDS, "the restarted worker alive at the broker")
                wait_until(self._all_direct, READY_SECONDS, "both direct endpoints in the route table")
                turn += 1
        except BaseException as error:
            self.failure = error
        finally:
            self._stats.close()
            self._idle.set()
        self._closing.wait()

    def finish(self) -> None:
        """Ends the moves (after the round under way) and returns once the mover rests."""
        self._stop.set()
        if not self._idle.wait(4 * READY_SECONDS):
            raise AssertionError("the mover did not finish its round")

    def close(self) -> None:
        self._stop.set()
        self._closing.set()
        self._thread.join(4 * READY_SECONDS)


def _version_now(client: Client, key: str) -> int:
    """The key's version as the cluster answers it now (tried again while the cluster moves it)."""
    deadline = time.monotonic() + REREAD_SECONDS
    while True:
        try:
            return client.query(key, rect=FULL_RECT).version
        except (layoutd.Timeout, layoutd.Unavailable, layoutd.Busy, layoutd.Moved, layoutd.Behind):
            if time.monotonic() >= deadline:
                raise


def _check_key(
    key: str, acknowledged: list[int], unclear: set[int], first: int, last: int, seen: list[int]
) -> tuple[list[str], int]:
    """Every version from ``first`` through ``last`` once, in order, so every acknowledged one; a version
    whose change got an unclear answer may come twice (its event, then the change that took its place).
    Returns the problems and the count of such repeats."""
    problems = []
    repeats = [v for v, n in Counter(seen).items() if n == 2 and v in unclear]
    once = [v for i, v in enumerate(seen) if i == 0 or v != seen[i - 1] or v not in repeats]
    if once != list(range(first, last + 1)):
        missing = sorted(set(range(first, last + 1)) - set(seen))
        repeated = sorted(v for v, n in Counter(seen).items() if n > 1)
        extra = sorted(set(seen) - set(range(first, last + 1)))
        problems.append(
            f"{key}: versions {first}..{last} expected once in order; missing {missing[:10]}, "
            f"repeated {repeated[:10]}, beyond {extra[:10]}, out of order {seen != sorted(seen)}"
        )
    lost = sorted(set(acknowledged) - set(seen))
    if lost:
        problems.append(f"{key}: acknowledged changes without their event: {lost[:10]}")
    return problems, len(repeats)


def soak(workdir: Path, seconds: float, *, keys: int = 8, pause: float = 3.0) -> Report:
    """Runs the soak for ``seconds`` (and at least one stop and start of a worker) and returns its figures."""
    report = Report(keys=keys)
    server = start_cluster(workdir, workers=2, direct=True)
    listener: Listener | None = None
    mover: Mover | None = None
    client = Client(server.front, timeout=2.0)
    try:
        listener = Listener(server)  # confirmed: every change from here on must reach it
        names = [f"soak-{i}" for i in range(keys)]
        known = {
            k: client.prepare(k, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS).version for k in names
        }
        first = {k: v + 1 for k, v in known.items()}
        acknowledged: dict[str, list[int]] = defaultdict(list)
        unclear: dict[str, set[int]] = defaultdict(set)
        mover = Mover(server, workdir, pause)
        started = time.monotonic()
        turn = 0
        while time.monotonic() - started < seconds or mover.starts == 0:
            if mover.failure is not None or listener.failure is not None:
                break
            key = names[turn % keys]
            # Insert then delete the same item, so that the layout stays small however long this runs.
            change = {"insert": [0, 0], "item": {"id": f"x{turn}"}} if known[key] % 2 == 1 else {"delete": [0, 0]}
            try:
                known[key] = client.update(key, updates=[change], if_version=known[key]).version
                acknowledged[key].append(known[key])
                report.acknowledged += 1
            except (layoutd.ReplyError, layoutd.Timeout, layoutd.OutcomeUnknown) as error:
                report.writer_errors[type(error).__name__] += 1
                if len(report.notes) < 10:
                    report.notes.append(f"{key} at {known[key]}: {error}")
                report.unclear += 1
                unclear[key].add(known[key] + 1)
                now = _version_now(client, key)
                report.made_unacknowledged += now - known[key]
                known[key] = now
            if turn % 4 == 0:
                read = names[(turn // 4) % keys]
                version = client.query(read, rect=FULL_RECT).version
                if version < known[read]:
                    report.problems.append(f"{read}: a read went back to {version} from {known[read]}")
                report.queries += 1
            turn += 1
        report.seconds = round(time.monotonic() - started, 1)
        mover.finish()
        for key in names:  # a change whose answer was unclear may have been made after the read that followed
            known[key] = _version_now(client, key)

        def caught_up() -> bool:
            return all(listener is not None and len(listener.seen(k)) >= known[k] - first[k] + 1 for k in names)

        try:
            wait_until(caught_up, DRAIN_SECONDS, "the subscriber to see the last changes")
        except AssertionError as error:
            report.problems.append(str(error))
        listener.stop()
        for failure, who in ((listener.failure, "subscriber"), (mover.failure, "mover")):
            if failure is not None:
                report.problems.append(f"the {who} raised {type(failure).__name__}: {failure}")
        for key in names:
            problems, repeats = _check_key(
                key, acknowledged[key], unclear[key], first[key], known[key], listener.seen(key)
            )
            report.problems += problems
            report.superseded += repeats
        report.stops, report.starts = mover.stops, mover.starts
        report.events = sum(len(listener.seen(k)) for k in names)
        report.route_events, report.other_events = listener.route_events, listener.others
        report.resyncs, report.stale = listener.resyncs, listener.stale
        if report.resyncs != report.superseded or report.stale:
            report.problems.append(
                f"{report.resyncs} resyncs for {report.superseded} superseded versions; {report.stale} stale events"
            )
        report.direct = client.direct_stats
        return report
    finally:
        client.close()
        if listener is not None:
            listener.stop()
        server.stop()
        if mover is not None:
            mover.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to write and move (default 10)")
    parser.add_argument("--keys", type=int, default=8)
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between the mover's steps")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="layoutd-soak-") as workdir:
        report = soak(Path(workdir), args.minutes * 60, keys=args.keys, pause=args.pause)
    print(json.dumps(report.figures()), flush=True)
    sys.exit(1 if report.problems else 0)


if __name__ == "__main__":
    main()
