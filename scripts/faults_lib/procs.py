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
