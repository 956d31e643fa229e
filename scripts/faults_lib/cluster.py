"""A broker and its workers as real layoutd processes (see procs.py for the processes themselves)."""
import os

from .procs import HarnessError, Proc, Relay, _clean_environment, _tcp, free_port, http_status, stats_of, wait_for


class Cluster:
    """A broker and its workers, each in a directory of its own under `root`."""

    def __init__(self, ctx, binary, root, heartbeat_millis, liveness, worker_threads=0, broker_journal=None,
                 net=None, tag="", direct=False, relay=False):
        self.ctx, self.binary, self.root = ctx, binary, root
        self.direct = direct          # workers get a direct endpoint (PROTOCOL.md section 11)
        self.relay = relay and net is None   # loopback: each worker joins through Relays it can be cut off by
        self.relays = {}              # worker -> [Relay of back, Relay of eventsIn]
        self.direct_endpoints = {}    # worker -> its direct endpoint
        self.heartbeat, self.liveness = heartbeat_millis, liveness
        self.net, self.tag = net, tag
        self.ports = {k: free_port() for k in ("front", "events", "stats", "back", "eventsIn", "http")}
        broker_wrap, host = [], "127.0.0.1"
        if net is not None:
            ns, host = net.add(f"{tag}broker")
            broker_wrap = net.wrap(ns, [])
        self.host = host
        self.front = _tcp(self.ports["front"], host)
        self.events = _tcp(self.ports["events"], host)
        self.stats_endpoint = _tcp(self.ports["stats"], host)
        self.http = f"{host}:{self.ports['http']}"
        self.env = _clean_environment({
            "LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": str(heartbeat_millis),
            "LAYOUTD_CLUSTER_LIVENESS": str(liveness),
            "LAYOUTD_CLUSTER_RECONNECT_MILLIS": str(heartbeat_millis),
            "LAYOUTD_CLUSTER_RECONNECT_MAX_MILLIS": str(max(heartbeat_millis, 1000)),
            "LAYOUTD_LOG_LEVEL": "info",
        })
        if worker_threads:
            self.env["LAYOUTD_WORKERS"] = str(worker_threads)
        self.broker = Proc("broker", binary, [
            "--role", "broker", "--front", self.front, "--events", self.events, "--stats", self.stats_endpoint,
            "--back", _tcp(self.ports["back"], host), "--events-in", _tcp(self.ports["eventsIn"], host),
            "--http", self.http,
        ] + (["--journal", broker_journal] if broker_journal else []), os.path.join(root, "broker"), self.env,
            broker_wrap)
        self.workers = {}   # name -> Proc

    @property
    def liveness_seconds(self):
        return self.heartbeat * self.liveness / 1000.0

    def processes(self):
        return [self.broker] + list(self.workers.values())

    def start_broker(self):
        self.broker.start()
        if not wait_for(lambda: self.broker.running() and self.stats() is not None, 30):
            raise HarnessError(f"the broker did not answer stats within 30 s:\n{self.broker.log_tail()}")

    def worker(self, name):
        if name not in self.workers:
            wrap, address = [], "127.0.0.1"
            if self.net is not None:
                ns, address = self.net.add(f"{self.tag}{name}")
                wrap = self.net.wrap(ns, [])
            join, join_events = _tcp(self.ports["back"], self.host), _tcp(self.ports["eventsIn"], self.host)
            if self.relay:
                self.relays[name] = [Relay(self.ports["back"]), Relay(self.ports["eventsIn"])]
                join, join_events = (_tcp(r.port) for r in self.relays[name])
            extra = []
            if self.direct:
                self.direct_endpoints[name] = _tcp(free_port(), address)
                extra = ["--direct", self.direct_endpoints[name]]
            self.workers[name] = Proc(name, self.binary, [
                "--role", "worker", "--join", join, "--join-events", join_events, "--worker-id", name,
            ] + extra, os.path.join(self.root, name), self.env, wrap)
        return self.workers[name]

    def start_worker(self, name):
        return self.worker(name).start()

    def restart_broker(self):
        """kill -9, then the same binary, flags, working directory (so journal) and ports."""
        self.broker.kill9()
        self.broker.start()

    def stats(self):
        return stats_of(self.ctx, self.stats_endpoint)

    def alive_ids(self, stats=None):
        stats = stats or self.stats()
        if not stats or "cluster" not in stats:
            return None
        return {w["id"] for w in stats["cluster"].get("workers", []) if w.get("alive")}

    def wait_dead(self, name, timeout=30.0):
        """Polls until the broker no longer counts `name` alive."""
        return wait_for(lambda: (lambda a: a is not None and name not in a)(self.alive_ids()), timeout, 0.05)

    def wait_alive(self, names, timeout=30.0):
        names = set(names)
        return wait_for(lambda: (lambda a: a is not None and names <= a)(self.alive_ids()), timeout, 0.05)

    def serving(self, expected):
        """The broker serves: /readyz 200, exactly `expected` live workers, nothing moving or waiting."""
        if not self.broker.running() or self.broker.stopped:
            return False
        if self.readyz() != 200:
            return False
        stats = self.stats()
        if not stats or "cluster" not in stats:
            return False
        c = stats["cluster"]
        alive = {w["id"] for w in c.get("workers", []) if w.get("alive")}
        return alive == set(expected) and c.get("keysInMotion", 0) == 0 and c.get("waiting", 0) == 0

    def readyz(self):
        if self.net is not None:
            return self.net.run_in_client(lambda: http_status(self.http, "/readyz"))
        return http_status(self.http, "/readyz")

    def cut(self, name):
        """A partition of `name` from everyone: its link down (netns mode) or SIGSTOP (loopback mode)."""
        if self.net is not None:
            self.net.cut(f"{self.tag}{name}")
        else:
            self.workers[name].stop()

    def heal(self, name):
        if self.net is not None:
            self.net.heal(f"{self.tag}{name}")
        else:
            self.workers[name].cont()

    def cut_from_broker(self, name):
        """A partition between the broker and `name` alone: clients still reach both (the worker's direct
        endpoint included). netns mode: blackhole routes between the two; loopback: its relays stop."""
        if self.net is not None:
            self.net.block(f"{self.tag}broker", f"{self.tag}{name}")
        elif self.relays.get(name):
            for r in self.relays[name]:
                r.cut()
        else:
            raise HarnessError("cut_from_broker needs netns mode or a cluster started with relays")

    def heal_from_broker(self, name):
        if self.net is not None:
            self.net.unblock(f"{self.tag}broker", f"{self.tag}{name}")
        for r in self.relays.get(name, []):
            r.heal()

    def heal_all(self):
        if self.net is not None:
            for name in ["broker"] + list(self.workers):
                self.net.heal(f"{self.tag}{name}")
                if name != "broker":
                    self.net.unblock(f"{self.tag}broker", f"{self.tag}{name}")
        for relays in self.relays.values():
            for r in relays:
                r.heal()

    def stop_all(self):
        for proc in self.processes():
            proc.kill_hard()
        for relays in self.relays.values():
            for r in relays:
                r.close()
        if self.net is not None:
            for name in ["broker"] + list(self.workers):
                self.net.remove(f"{self.tag}{name}")
