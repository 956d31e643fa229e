"""The `layoutd` under test: a child process on free loopback ports, its log in a file of its own."""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from fuzz_http_lib import zmtp


class HarnessError(Exception):
    pass


def free_ports(count):
    socks, ports = [], []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            socks.append(sock)
            ports.append(sock.getsockname()[1])
    finally:
        for sock in socks:
            sock.close()
    return ports


class Daemon:
    def __init__(self, executable, mode, timeout_millis):
        self.mode = mode
        front, events, stats, http = free_ports(4)
        self.front_port, self.http_port = front, http
        self.folder = tempfile.mkdtemp(prefix="layoutd-http-fuzz-")
        self.log_path = os.path.join(self.folder, "layoutd.log")
        environment = {key: value for key, value in os.environ.items() if not key.startswith("LAYOUTD_")}
        environment.update({
            "LAYOUTD_JOURNAL_URL": "none",
            "LAYOUTD_CONSOLE_ALLOW_CHANGES": "true" if mode == "read-write" else "false",
            "LAYOUTD_CONSOLE_TIMEOUT_MILLIS": str(timeout_millis),
            "LAYOUTD_SHUTDOWN_GRACE_SECONDS": "10",
            "SWIFT_BACKTRACE": "enable=yes,interactive=no",
        })
        arguments = [executable, "--front", "tcp://127.0.0.1:%d" % front, "--events", "tcp://127.0.0.1:%d" % events,
                     "--stats", "tcp://127.0.0.1:%d" % stats, "--http", "127.0.0.1:%d" % http, "--log-level", "warning"]
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(arguments, env=environment, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise HarnessError("layoutd exited at start: %s" % self.log_tail())
            if self.ready():
                return
            time.sleep(0.05)
        self.close(keep_log=False)
        raise HarnessError("layoutd not ready within 60 s: %s" % self.log_tail())

    def ready(self):
        try:
            with socket.create_connection(("127.0.0.1", self.http_port), timeout=1) as sock:
                sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return sock.recv(64).startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    def seed_layouts(self, corpus):
        """Keeps the corpus's `prepare` layouts (list, mosaic, …) through the front, so reads find them."""
        for body in corpus:
            if b'"op":"prepare"' in body:
                reply = zmtp.request("127.0.0.1", self.front_port, body, timeout=30)
                if b'"ok":true' not in reply[:200]:
                    raise HarnessError("a seed prepare failed: %r" % reply[:300])

    def ping(self, timeout):
        reply = zmtp.request("127.0.0.1", self.front_port, b'{"v":1,"id":"fuzz-ping","op":"ping"}', timeout=timeout)
        return reply.startswith(b'{"v":1,"id":"fuzz-ping","ok":true')

    def alive(self):
        return self.process.poll() is None

    def status(self):
        return self.process.poll()

    def rss_mb(self):
        with open("/proc/%d/status" % self.process.pid) as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.process.pid))

    def terminate(self, timeout):
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def log_tail(self, lines=8):
        try:
            with open(self.log_path, "rb") as handle:
                return " | ".join(handle.read().decode("utf-8", "replace").splitlines()[-lines:])
        except OSError:
            return ""

    def close(self, keep_log, artifacts=None):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()
        if keep_log and artifacts:
            shutil.copy(self.log_path, os.path.join(artifacts, "http-%s-layoutd.log" % self.mode))
        shutil.rmtree(self.folder, ignore_errors=True)
