"""Two brokers on one PostgreSQL journal (issue 32): the active one holds the lease, the other is a standby
(docs/OPERATIONS.md, "A standby broker"). The server is Debian's, run by scripts/postgres as CI runs it. Clients
send to both fronts (a DEALER connected to each: a standby answers `unavailable`, a broker that still believes
it is active answers as one), workers list both backs.

netns mode: PostgreSQL runs in a namespace of its own on the suite's bridge, each broker and worker in theirs;
the active broker's link to PostgreSQL is blackholed by routes in the two namespaces (connections stay open,
no byte passes), and a worker is cut off from one broker alone the same way. Loopback mode: each broker reaches
PostgreSQL, and each worker each broker, through a TCP relay of its own that stops forwarding."""
import os
import subprocess
import tempfile
import uuid

from .cluster import Cluster
from .procs import HarnessError, Proc, Relay, _tcp, free_port, http_status, stats_of, wait_for

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Postgres:
    """A throwaway server (scripts/postgres) in `folder`: on 127.0.0.1, or in namespace `ns` at `address`."""

    def __init__(self, folder, net=None, tag=""):
        self.folder, self.net, self.ns, self.address = folder, net, None, "127.0.0.1"
        if net is not None:
            self.ns, self.address = net.add(f"{tag}pg")
        url = self._script("start")
        if self.ns is not None:
            # Reachable from the other namespaces: listen on the bridge too, trust the suite's addresses.
            with open(os.path.join(folder, "data", "postgresql.conf"), "a") as f:
                f.write(f"listen_addresses = '127.0.0.1,{self.address}'\n")
            with open(os.path.join(folder, "data", "pg_hba.conf"), "a") as f:
                f.write("host all all 198.18.0.0/16 trust\n")
            url = self._script("restart")
        self.port = int(url.rsplit(":", 1)[1].split("/")[0])
        self.url = url.replace("127.0.0.1", self.address)

    def _script(self, command):
        args = [os.path.join(SCRIPTS, "postgres"), command, self.folder]
        if self.ns is not None:
            args = ["ip", "netns", "exec", self.ns] + args
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise HarnessError(f"scripts/postgres {command}: {r.stderr.strip()[-2000:]}")
        return r.stdout.strip()

    def stop(self):
        try:
            self._script("stop")
        except HarnessError:
            pass


class StandbyCluster(Cluster):
    """Brokers b0 (started first: it takes the lease) and b1, and workers joining both."""

    def __init__(self, ctx, binary, root, heartbeat_millis, liveness, net=None, tag="", direct=True,
                 lease_millis=1500):
        super().__init__(ctx, binary, root, heartbeat_millis, liveness, net=net, tag=tag, direct=direct)
        # Not under `root`: the server runs as another user (scripts/postgres, as root), which may not enter
        # the suite's private temporary folders; the script makes the folder, `stop` removes it.
        self.postgres = Postgres(os.path.join(tempfile.gettempdir(), f"layoutd-faults-pg-{uuid.uuid4().hex}"), net, tag)
        self.lease_millis = lease_millis
        self.env.update({
            "LAYOUTD_CLUSTER_LEASE_MILLIS": str(lease_millis),
            # The new broker waits for workers to register again: heartbeat × liveness + reconnect.
            "LAYOUTD_CLUSTER_REJOIN_MILLIS": str(heartbeat_millis * (liveness + 1)),
            "LAYOUTD_JOURNAL_DURABILITY": "sync",
        })
        self.brokers, self.fronts, self.stats_endpoints, self.https, self.backs = [], [], [], [], []
        self.pg_relays = []         # loopback: broker -> its relay to PostgreSQL
        self.back_relays = {}       # loopback: (worker, broker) -> [Relay of back, Relay of eventsIn]
        self.hosts = []
        for index in range(2):
            ports = {k: free_port() for k in ("front", "events", "stats", "back", "eventsIn", "http")}
            wrap, host = [], "127.0.0.1"
            if net is not None:
                ns, host = net.add(f"{tag}b{index}")
                wrap = net.wrap(ns, [])
            url = self.postgres.url
            if net is None:
                relay = Relay(self.postgres.port)
                self.pg_relays.append(relay)
                url = url.replace(f":{self.postgres.port}/", f":{relay.port}/")
            env = dict(self.env, LAYOUTD_JOURNAL_URL=url)
            self.hosts.append(host)
            self.fronts.append(_tcp(ports["front"], host))
            self.stats_endpoints.append(_tcp(ports["stats"], host))
            self.https.append(f"{host}:{ports['http']}")
            self.backs.append((ports["back"], ports["eventsIn"], host))
            self.brokers.append(Proc(f"b{index}", binary, [
                "--role", "broker", "--front", self.fronts[-1], "--events", _tcp(ports["events"], host),
                "--stats", self.stats_endpoints[-1], "--back", _tcp(ports["back"], host),
                "--events-in", _tcp(ports["eventsIn"], host), "--http", self.https[-1],
            ], os.path.join(root, f"b{index}"), env, wrap))
        self.front = ",".join(self.fronts)
        # Events from b0's socket (the suite's event log): a standby forwards the workers' events too.
        self.events = self.brokers[0].args[self.brokers[0].args.index("--events") + 1]

    # The active broker: the one whose stats socket answers (a standby binds none).

    def active_index(self):
        for index, endpoint in enumerate(self.stats_endpoints):
            if self.brokers[index].running() and not self.brokers[index].stopped and stats_of(self.ctx, endpoint, 0.5):
                return index
        return None

    @property
    def broker(self):
        index = self.active_index()
        return self.brokers[0 if index is None else index]

    @broker.setter
    def broker(self, _value):
        pass    # Cluster.__init__ makes one broker; the pair replaces it

    def processes(self):
        return list(self.brokers) + list(self.workers.values())

    def start_broker(self):
        self.brokers[0].start()
        if not wait_for(lambda: self.active_index() == 0, 30):
            raise HarnessError(f"b0 did not take the lease within 30 s:\n{self.brokers[0].log_tail()}")
        self.brokers[1].start()

    def stats(self):
        index = self.active_index()
        return None if index is None else stats_of(self.ctx, self.stats_endpoints[index])

    def readyz(self):
        index = self.active_index()
        if index is None:
            return None
        if self.net is not None:
            return self.net.run_in_client(lambda: http_status(self.https[index], "/readyz"))
        return http_status(self.https[index], "/readyz")

    def serving(self, expected):
        index = self.active_index()
        if index is None or self.readyz() != 200:
            return False
        stats = self.stats()
        if not stats or "cluster" not in stats:
            return False
        c = stats["cluster"]
        alive = {w["id"] for w in c.get("workers", []) if w.get("alive")}
        return alive == set(expected) and c.get("keysInMotion", 0) == 0 and c.get("waiting", 0) == 0

    def worker(self, name):
        if name not in self.workers:
            wrap, address = [], "127.0.0.1"
            if self.net is not None:
                ns, address = self.net.add(f"{self.tag}{name}")
                wrap = self.net.wrap(ns, [])
            joins, events = [], []
            for index, (back, events_in, host) in enumerate(self.backs):
                if self.net is None:
                    relays = [Relay(back), Relay(events_in)]
                    self.back_relays[(name, index)] = relays
                    back, events_in, host = relays[0].port, relays[1].port, "127.0.0.1"
                joins.append(_tcp(back, host))
                events.append(_tcp(events_in, host))
            extra = []
            if self.direct:
                self.direct_endpoints[name] = _tcp(free_port(), address)
                extra = ["--direct", self.direct_endpoints[name]]
            self.workers[name] = Proc(name, self.binary, [
                "--role", "worker", "--join", ",".join(joins), "--join-events", ",".join(events), "--worker-id", name,
            ] + extra, os.path.join(self.root, name), self.env, wrap)
        return self.workers[name]

    def restart_broker(self):
        """kill -9 of the active broker; it starts again (a standby, once the other has the lease)."""
        victim = self.broker
        victim.kill9()
        victim.start()

    # Partitions.

    def cut_database(self, index):
        """Broker `index`'s link to PostgreSQL blackholed; workers and clients still reach it."""
        if self.net is not None:
            self.net.block(f"{self.tag}b{index}", f"{self.tag}pg")
        else:
            self.pg_relays[index].cut()

    def heal_database(self, index):
        if self.net is not None:
            self.net.unblock(f"{self.tag}b{index}", f"{self.tag}pg")
        else:
            self.pg_relays[index].heal()

    def cut_worker_from(self, name, index):
        """`name` and broker `index` cut off from each other only."""
        if self.net is not None:
            self.net.block(f"{self.tag}b{index}", f"{self.tag}{name}")
        else:
            for r in self.back_relays[(name, index)]:
                r.cut()

    def heal_worker_from(self, name, index):
        if self.net is not None:
            self.net.unblock(f"{self.tag}b{index}", f"{self.tag}{name}")
        else:
            for r in self.back_relays.get((name, index), []):
                r.heal()

    def heal_all(self):
        for index in range(2):
            self.heal_database(index)
            for name in self.workers:
                self.heal_worker_from(name, index)
        for proc in self.brokers:
            if proc.stopped:
                proc.cont()
        # A broker that lost its lease exits; restarted, it is a standby.
        for proc in self.brokers:
            if not proc.running():
                proc.start()

    def stop_all(self):
        for proc in self.processes():
            proc.kill_hard()
        for relay in self.pg_relays + [r for rs in self.back_relays.values() for r in rs]:
            relay.close()
        self.postgres.stop()
        if self.net is not None:
            for name in ["broker", "b0", "b1", "pg"] + list(self.workers):
                self.net.remove(f"{self.tag}{name}")


def check_environment():
    """PostgreSQL's server must be installed (scripts/ensure-deps --tests): a harness error otherwise."""
    installed = os.path.isdir("/usr/lib/postgresql") and any(
        os.access(f"/usr/lib/postgresql/{v}/bin/initdb", os.X_OK) for v in os.listdir("/usr/lib/postgresql"))
    if not installed:
        raise HarnessError("the standby scenarios need PostgreSQL's server: run scripts/ensure-deps --tests")
