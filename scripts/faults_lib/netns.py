"""Network-namespace mode: every layoutd process in a namespace of its own, each joined by a veth link to a
bridge in a hub namespace the suite creates (the host's interfaces, routes and firewall are never touched:
nothing is created in the host's namespace). A partition is the process's link taken down in the hub; a
heal, the link up again. The suite's client sockets live in a client namespace on the same bridge: their
zmq context is created by a thread that entered it, so its I/O threads (which open every connection) run
there. Addresses are 198.18.0.0/16 (reserved for benchmarks), inside these namespaces only."""
import ctypes
import os
import queue
import subprocess
import threading

import zmq

from .procs import HarnessError

CLONE_NEWNET = 0x40000000


def _ip(*args, check=True):
    r = subprocess.run(["ip"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise HarnessError(f"ip {' '.join(args)}: {r.stderr.strip()}")
    return r


def available():
    """Root, and `ip netns add` works here."""
    if os.geteuid() != 0 or subprocess.run(["which", "ip"], stdout=subprocess.DEVNULL).returncode != 0:
        return False
    probe = f"lfprobe{os.getpid()}"
    if _ip("netns", "add", probe, check=False).returncode != 0:
        return False
    ok = _ip("-n", probe, "link", "add", "b0", "type", "bridge", check=False).returncode == 0
    _ip("netns", "del", probe, check=False)
    return ok


class Net:
    def __init__(self):
        self.prefix = f"lf{os.getpid()}"
        self.hub = f"{self.prefix}-hub"
        self.namespaces = []
        self.links = {}          # member -> hub-side interface
        self.addresses = {}      # member -> its address
        self.next_host = 2
        self.next_link = 0
        self.client_ns = None
        self.client_address = None
        self._executor = None

    def create(self):
        self._add_ns(self.hub)
        _ip("-n", self.hub, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.hub, "link", "set", "br0", "up")
        self.client_ns, self.client_address = self.add("client")
        return self

    def _add_ns(self, name):
        _ip("netns", "add", name)
        self.namespaces.append(name)
        _ip("-n", name, "link", "set", "lo", "up")

    def add(self, member):
        """A namespace for `member` on the bridge; (namespace, address)."""
        ns = f"{self.prefix}-{member}"
        self._add_ns(ns)
        self.next_link += 1
        hub_side = f"h{self.next_link}"
        _ip("-n", self.hub, "link", "add", hub_side, "type", "veth", "peer", "name", "eth0", "netns", ns)
        _ip("-n", self.hub, "link", "set", hub_side, "master", "br0", "up")
        host = self.next_host
        self.next_host += 1
        address = f"198.18.{host // 250}.{host % 250 + 2}"
        _ip("-n", ns, "addr", "add", f"{address}/16", "dev", "eth0")
        _ip("-n", ns, "link", "set", "eth0", "up")
        self.links[member] = hub_side
        self.addresses[member] = address
        return ns, address

    def remove(self, member):
        ns = f"{self.prefix}-{member}"
        if ns in self.namespaces:
            _ip("netns", "del", ns, check=False)
            self.namespaces.remove(ns)
        self.links.pop(member, None)

    def cut(self, member):
        _ip("-n", self.hub, "link", "set", self.links[member], "down")

    def heal(self, member):
        _ip("-n", self.hub, "link", "set", self.links[member], "up")

    def block(self, a, b):
        """Cuts `a` and `b` off from each other only: in each one's namespace, a blackhole route to the other's
        address (packets to it are dropped where they are sent; everyone else still reaches both)."""
        for x, y in ((a, b), (b, a)):
            _ip("-n", f"{self.prefix}-{x}", "route", "replace", "blackhole", f"{self.addresses[y]}/32")

    def unblock(self, a, b):
        for x, y in ((a, b), (b, a)):
            _ip("-n", f"{self.prefix}-{x}", "route", "del", "blackhole", f"{self.addresses[y]}/32", check=False)

    def is_cut(self, member):
        r = _ip("-n", self.hub, "-o", "link", "show", self.links[member], check=False)
        return "state DOWN" in r.stdout or ",UP" not in r.stdout

    @staticmethod
    def wrap(ns, command):
        return ["ip", "netns", "exec", ns] + command

    def _enter_client(self):
        fd = os.open(f"/run/netns/{self.client_ns}", os.O_RDONLY)
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.setns(fd, CLONE_NEWNET) != 0:
                raise HarnessError(f"setns: errno {ctypes.get_errno()}")
        finally:
            os.close(fd)

    def client_context(self):
        """A zmq context whose I/O threads run in the client namespace."""
        box = {}

        def make():
            try:
                self._enter_client()
                ctx = zmq.Context()
                ctx.socket(zmq.DEALER).close()     # starts the I/O threads here
                box["ctx"] = ctx
            except Exception as e:
                box["error"] = e
        t = threading.Thread(target=make)
        t.start()
        t.join()
        if "error" in box:
            raise HarnessError(f"cannot enter the client namespace: {box['error']}")
        return box["ctx"]

    def run_in_client(self, fn):
        """Runs fn() on a thread inside the client namespace (plain sockets, such as HTTP probes)."""
        if self._executor is None:
            q = queue.Queue()

            def serve():
                self._enter_client()
                while True:
                    job = q.get()
                    if job is None:
                        return
                    f, box, done = job
                    try:
                        box["value"] = f()
                    except Exception as e:
                        box["error"] = e
                    done.set()
            threading.Thread(target=serve, daemon=True, name="netns-client").start()
            self._executor = q
        box, done = {}, threading.Event()
        self._executor.put((fn, box, done))
        done.wait()
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def destroy(self):
        if self._executor is not None:
            self._executor.put(None)
            self._executor = None
        for ns in reversed(list(self.namespaces)):
            _ip("netns", "del", ns, check=False)
        self.namespaces.clear()
