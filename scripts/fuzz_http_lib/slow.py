"""The run's long-lived clients: slowloris connections, and the monitor of the daemon's process."""
import time



class SlowClients:
    """Holds `count` connections, each sending a valid request a byte or two a second; the daemon must close
    each within the console's timeout of its opening (plus a margin for a loaded machine)."""

    def __init__(self, run, count, rng):
        self.run = run
        self.count = count
        self.rng = rng

    def request(self):
        body = self.rng.choice(self.run.corpus)
        return b"POST /api/request HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)

    def loop(self):
        run = self.run
        held = []  # [socket, bytes left, opened at]
        margin = 10.0
        while not run.stop.is_set():
            while len(held) < self.count and not run.stop.is_set():
                try:
                    sock = run.sockets.connect(run.address, run.bound)
                except OSError:
                    break
                sock.setblocking(False)
                held.append([sock, self.request(), time.monotonic()])
                run.count("slow_clients")
            now = time.monotonic()
            kept = []
            for entry in held:
                sock, left, opened = entry
                closed = False
                try:
                    if left:
                        sock.send(left[:self.rng.randint(1, 2)])
                        entry[1] = left[2:] if len(left) > 1 else b""
                    closed = self.peer_closed(sock)
                except OSError:
                    closed = True
                if closed:
                    run.count("slow_closed")
                    run.sockets.close(sock)
                elif now - opened > run.timeout + margin:
                    run.finding("slowloris", "a slow client was kept %.1f s (console.timeoutMillis %.0f ms)"
                                % (now - opened, run.timeout * 1000))
                    run.sockets.close(sock)
                else:
                    kept.append(entry)
            held = kept
            time.sleep(1.0)
        for sock, _, _ in held:
            run.sockets.close(sock)

    @staticmethod
    def peer_closed(sock):
        try:
            sock.recv(65536)
        except BlockingIOError:
            return False
        return True  # an answer (a 408 or the like) or the end: the daemon let it go


class Monitor:
    """Samples the daemon's resident memory and open fds every half second, and pings its ZeroMQ front every
    two seconds."""

    def __init__(self, run, max_rss_mb, max_fds):
        self.run = run
        self.max_rss_limit = max_rss_mb
        self.max_fds_limit = max_fds
        self.max_rss_mb = 0.0
        self.max_fds = 0
        self.pings = 0

    def loop(self):
        run, daemon = self.run, self.run.daemon
        last_ping = 0.0
        reported = set()
        while not run.stop.is_set() and daemon.alive():
            try:
                rss, fds = daemon.rss_mb(), daemon.fds()
            except OSError:
                break
            self.max_rss_mb = max(self.max_rss_mb, rss)
            self.max_fds = max(self.max_fds, fds)
            if rss > self.max_rss_limit and "rss" not in reported:
                reported.add("rss")
                run.finding("monitor", "resident memory %.0f MiB over the bound of %.0f MiB" % (rss, self.max_rss_limit))
            if fds > self.max_fds_limit and "fds" not in reported:
                reported.add("fds")
                run.finding("monitor", "%d open fds over the bound of %d" % (fds, self.max_fds_limit))
            if time.monotonic() - last_ping >= 2.0:
                last_ping = time.monotonic()
                try:
                    if not daemon.ping(timeout=run.bound):
                        run.finding("monitor", "the front answered ping with something else")
                    self.pings += 1
                    # A change now and then, so that event streams carry events.
                    daemon.seed_layouts([self.run.corpus_prepares[self.pings % len(self.run.corpus_prepares)]])
                except Exception as error:  # noqa: BLE001 - any failure to ping is the finding
                    if daemon.alive():
                        run.finding("monitor", "the front did not answer ping: %s" % error)
            run.stop.wait(0.5)
