"""Real layoutd processes for the fault suite: free loopback ports, one working directory and log per
process, and cleanup of everything started (SIGSTOPped ones included) however the suite ends."""
import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request

import zmq

from .client import fresh_dealer

_ALL = []          # every Proc ever started, for cleanup
_TAKEN = set()     # ports handed out in this run
_SETPRIV = shutil.which("setpriv")


class HarnessError(Exception):
    """A fault of the suite or its environment, not of layoutd (exit status 2)."""


def free_port():
    """A loopback port nothing listens on now, never handed out before in this run."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _TAKEN:
            _TAKEN.add(port)
            return port
    raise HarnessError("no free port")


def wait_for(condition, timeout=30.0, interval=0.05, what="condition"):
    """Polls `condition` until it returns a truthy value (returned) or `timeout` passes (None)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval)


def cleanup_all():
    """SIGCONT then SIGKILL every process still running; reaps them."""
    for proc in list(_ALL):
        proc.kill_hard()


def _on_signal(signum, _frame):
    cleanup_all()
    raise SystemExit(128 + signum)


def install_cleanup():
    atexit.register(cleanup_all)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _on_signal)


def _clean_environment(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAYOUTD_")}
    env.update(extra)
    return env


class Proc:
    """One layoutd process: started in `cwd`, output appended to `cwd/layoutd.log`."""

    def __init__(self, name, binary, args, cwd, env, wrap=None):
        self.name, self.binary, self.args, self.cwd, self.env = name, binary, list(args), cwd, env
        self.wrap = wrap or []    # e.g. ["ip", "netns", "exec", NS]: it execs, so the pid stays the daemon's
        self.popen = None
        self.stopped = False
        self.log_path = os.path.join(cwd, "layoutd.log")
        os.makedirs(cwd, exist_ok=True)

    def start(self):
        if self.running():
            raise HarnessError(f"{self.name} is already running")
        log = open(self.log_path, "ab")
        log.write(f"==== {time.strftime('%H:%M:%S')} start {self.name}\n".encode())
        log.flush()
        command = self.wrap + [self.binary] + self.args
        if _SETPRIV:
            # The daemon dies with the suite even when the suite is killed with SIGKILL.
            command = [_SETPRIV, "--pdeathsig", "KILL", "--"] + command
        self.popen = subprocess.Popen(command, cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL,
                                      stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.stopped = False
        if self not in _ALL:
            _ALL.append(self)
        return self

    @property
    def pid(self):
        return self.popen.pid if self.popen else None

    def running(self):
        return self.popen is not None and self.popen.poll() is None

    def signal(self, sig):
        if self.running():
            os.kill(self.popen.pid, sig)

    def stop(self):
        """SIGSTOP: the loopback stand-in for a partition or a hung process."""
        self.signal(signal.SIGSTOP)
        self.stopped = True

    def cont(self):
        self.signal(signal.SIGCONT)
        self.stopped = False

    def kill9(self):
        if self.running():
            os.kill(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=30)
        self.stopped = False

    def term(self):
        self.signal(signal.SIGTERM)

    def wait_exit(self, timeout=30.0):
        if self.popen is None:
            return True
        try:
            self.popen.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill_hard(self):
        if self.running():
            try:
                os.kill(self.popen.pid, signal.SIGCONT)
                os.kill(self.popen.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.stopped = False

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-lines:]).decode(errors="replace")
        except OSError:
            return ""


class Relay:
    """A TCP relay on loopback between a worker and one of the broker's sockets (loopback mode's stand-in for
    a broker-worker link): `cut()` stops forwarding both ways without closing anything (bytes wait in the
    kernel's buffers; a connection opened meanwhile is accepted but not carried on until `heal()`), so the
    two sides see a silent link, as with a partition, while the worker's other endpoints stay reachable."""

    def __init__(self, upstream_port, host="127.0.0.1"):
        self.upstream = (host, upstream_port)
        self.port = free_port()
        self.flowing = threading.Event()
        self.flowing.set()
        self.stopping = threading.Event()
        self.sockets = []
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, self.port))
        self.listener.listen(16)
        self.listener.settimeout(0.05)
        threading.Thread(target=self._accept, daemon=True, name=f"relay-{self.port}").start()

    def _wait_flowing(self):
        while not self.stopping.is_set():
            if self.flowing.wait(0.05):
                return True
        return False

    def _accept(self):
        while not self.stopping.is_set():
            try:
                down, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self._connect, args=(down,), daemon=True).start()

    def _connect(self, down):
        with self.lock:
            self.sockets.append(down)
        if not self._wait_flowing():
            return
        try:
            up = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            down.close()
            return
        with self.lock:
            self.sockets.append(up)
        for a, b in ((down, up), (up, down)):
            a.settimeout(0.05)
            threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, a, b):
        try:
            while self._wait_flowing():
                try:
                    data = a.recv(65536)
                except socket.timeout:
                    continue
                if not data:
                    break
                if not self._wait_flowing():    # read as the cut came: held until the heal
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        self.flowing.clear()

    def heal(self):
        self.flowing.set()

    def close(self):
        self.stopping.set()
        self.flowing.set()
        self.listener.close()
        with self.lock:
            for s in self.sockets:
                try:
                    s.close()
                except OSError:
                    pass
            self.sockets.clear()


def _tcp(port, host="127.0.0.1"):
    return f"tcp://{host}:{port}"


def http_status(address, path, timeout=1.0):
    try:
        with urllib.request.urlopen(f"http://{address}{path}", timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code
    except Exception:
        return None


def stats_of(ctx, endpoint, timeout=2.0):
    """The stats socket's bare JSON object, or None."""
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    try:
        s.connect(endpoint)
        s.send(b"stats")
        if not s.poll(int(timeout * 1000)):
            return None
        return json.loads(s.recv_multipart()[-1])
    except Exception:
        return None
    finally:
        s.close(linger=0)


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


class Reference:
    """A single daemon without a journal on its own ports: replays acknowledged changes."""

    def __init__(self, ctx, binary, root):
        self.ctx = ctx
        ports = [free_port() for _ in range(4)]
        self.front = _tcp(ports[0])
        self.http = f"127.0.0.1:{ports[3]}"
        self.proc = Proc("reference", binary, [
            "--role", "single", "--journal", "none", "--front", self.front, "--events", _tcp(ports[1]),
            "--stats", _tcp(ports[2]), "--http", self.http,
        ], os.path.join(root, "reference"), _clean_environment({"LAYOUTD_LOG_LEVEL": "warning"}))
        self.socket = None
        self.counter = 0

    def start(self):
        self.proc.start()
        if not wait_for(lambda: http_status(self.http, "/readyz") == 200, 30):
            raise HarnessError(f"the reference daemon did not start:\n{self.proc.log_tail()}")
        self._open()

    def _open(self):
        self.socket = fresh_dealer(self.ctx, self.front, self.socket)

    def call(self, body, timeout=10.0):
        """One request; the decoded reply. A reference that does not answer is a harness error."""
        self.counter += 1
        body = dict(body, id=f"ref-{self.counter}")
        self.socket.send_multipart([b"", json.dumps(body).encode()])
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not self.socket.poll(int(left * 1000) + 1):
                self._open()
                raise HarnessError(f"the reference daemon did not answer {body.get('op')} within {timeout} s")
            reply = json.loads(self.socket.recv_multipart()[-1])
            if reply.get("id") == body["id"]:
                return reply

    def stop(self):
        if self.socket is not None:
            self.socket.close(linger=0)
        self.proc.kill_hard()
