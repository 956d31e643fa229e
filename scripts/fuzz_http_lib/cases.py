"""What the HTTP fuzzer sends, one connection (or a few) per case, and what it expects back."""
import random
import socket
import time

from fuzz_http_lib.mutate import mutate, random_path, ASSETS
from fuzz_http_lib.wire import Closed, Hang, Malformed, Reader, console_owns, protocol_error_problem, strict_json

METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]
# The daemon closes at most this many of the fuzzer's connections for its cap of 256 open at once.
CAP_MARGIN = 200
# console.maxBodyBytes, as the fuzzer's daemons run.
MAX_BODY_BYTES = 1 << 20


class Cases:
    def __init__(self, run, rng):
        self.run = run
        self.rng = rng

    # One request, or several on one connection, each held to the oracles.

    def exchange(self, case, requests, reset=False):
        """Sends `requests` ((bytes, method, path) each) on one connection, one after the other, reading
        each answer. Returns the responses read."""
        run = self.run
        sock = run.sockets.connect(run.address, run.bound)
        reader = Reader(sock, run.bound)
        responses = []
        last_activity = opened = time.monotonic()
        try:
            for raw, method, path in requests:
                # The daemon closes a connection that has been idle for console.timeoutMillis (a loaded
                # machine can stall this thread that long between two requests).
                idle = time.monotonic() - last_activity
                cut_short = False
                try:
                    sock.sendall(raw)
                except OSError:
                    cut_short = True  # the daemon may answer and close before all of a large request is sent
                run.count("requests")
                try:
                    response = reader.response(head_request=method == "HEAD")
                except Closed:
                    if cut_short or len(raw) > MAX_BODY_BYTES:
                        # Refused (413) before all of it was read: the daemon's close resets the connection,
                        # which may discard the answer before it is read.
                        run.count("reset_after_refusal")
                    elif idle > run.timeout / 2:
                        run.count("closed_when_idle")
                    elif time.monotonic() - opened >= run.timeout:
                        # Closed at the deadline: the request was not read within console.timeoutMillis of the
                        # connection opening (a starved event loop on a loaded machine), not a lost answer.
                        run.count("closed_at_deadline")
                    elif run.near_cap():
                        run.count("refused_at_cap")
                    else:
                        run.finding(case, "the connection closed without an answer (idle %.2f s before the request, %d of "
                                    "the fuzzer's connections open)" % (idle, run.sockets.count), raw)
                    return responses
                except Hang as hang:
                    run.finding(case, str(hang), raw)
                    return responses
                except Malformed as malformed:
                    run.finding(case, "malformed answer: %s" % malformed, raw)
                    return responses
                run.count("status_%d" % response.status)
                problem = self.judge(method, path, raw, response)
                if problem:
                    run.finding(case, problem, raw, response.summary())
                    return responses
                last_activity = time.monotonic()
                responses.append(response)
                if (response.header("Connection") or "").lower() == "close" or response.body == b"" and self.streams(response):
                    break
        finally:
            run.sockets.close(sock, reset=reset)
        return responses

    def judge(self, method, path, raw, response):
        """Why `response` breaks an oracle, or None."""
        status = response.status
        if path is None or any(byte > 126 or byte < 32 for byte in raw.split(b"\r\n", 1)[0]):
            # Garbage: an error with the protocol's body, never a success.
            if status < 400:
                return "a %d for a request that is not HTTP" % status
            # The answer to a HEAD has no body to read (the daemon may not know it was one: it was not HTTP).
            return None if method == "HEAD" else protocol_error_problem(response)
        plain = path.split("?", 1)[0]
        if plain in ("/metrics", "/healthz", "/readyz"):
            expected = (200,) if method in ("GET", "HEAD") else (405,)
            return None if status in expected else "%s %s answered %d" % (method, plain, status)
        if not console_owns(plain):
            return None if status == 404 else "%s %s answered %d, not 404" % (method, plain, status)
        if status >= 400:
            return None if method == "HEAD" else protocol_error_problem(response)
        if plain == "/api/events" and method == "GET" and status == 200:
            return None if self.streams(response) else "a 200 from /api/events that is not an event stream"

        if status != 200:
            return "%s %s answered %d" % (method, plain, status)
        if plain == "/api/request":
            body = raw.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in raw else b""
            if method != "POST":
                return "%s /api/request answered 200" % method
            if b"chunked" not in raw.split(b"\r\n\r\n", 1)[0].lower() and strict_json(body) is None:
                return "a 200 for a body that is not JSON"
            reply = strict_json(response.body)
            if not isinstance(reply, dict) or reply.get("ok") is not True:
                return "a 200 whose body is not a success reply"
        elif plain in ("/api/stats", "/api/console") and method == "GET":
            if not isinstance(strict_json(response.body), dict):
                return "a 200 from %s whose body is not a JSON object" % plain
        elif plain.startswith("/api/"):
            return "%s %s answered 200" % (method, plain)
        elif method not in ("GET", "HEAD"):
            return "%s %s answered 200" % (method, plain)
        return None

    @staticmethod
    def streams(response):
        return (response.header("Content-Type") or "").startswith("text/event-stream")

    def request(self, method, path, body=b"", headers=(), version=b"HTTP/1.1", close=False):
        lines = [method.encode() + b" " + path.encode("latin-1", "replace") + b" " + version, b"Host: 127.0.0.1"]
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(b"Content-Length: %d" % len(body))
        if self.run.token:
            lines.append(b"Authorization: Bearer " + self.run.token.encode())
        if close:
            lines.append(b"Connection: close")
        lines += list(headers)
        return b"\r\n".join(lines) + b"\r\n\r\n" + body

    # The cases.

    def api_request(self):
        rng = self.rng
        requests = []
        for _ in range(rng.randint(1, 4)):
            body = rng.choice(self.run.corpus)
            if rng.random() < 0.8:
                body = mutate(body, rng)
            requests.append((self.request("POST", "/api/request", body), "POST", "/api/request"))
        self.exchange("api-request", requests)

    def routes(self):
        rng = self.rng
        requests = []
        for _ in range(rng.randint(1, 4)):
            method = rng.choice(METHODS) if rng.random() < 0.3 else rng.choice(["GET", "GET", "HEAD"])
            path = random_path(rng)
            body = rng.choice(self.run.corpus) if method == "POST" else b""
            requests.append((self.request(method, path, body), method, path))
        self.exchange("routes", requests)

    def malformed_line(self):
        rng = self.rng
        choice = rng.randrange(8)
        if choice == 0:
            raw = bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))) + b"\r\n\r\n"
        elif choice == 1:
            raw = b"GET /\r\n\r\n"
        elif choice == 2:
            raw = b"GET / HTTP/" + rng.choice([b"9.9", b"2.0", b"1.x", b"", b"0.9", b"1.1 extra"]) + b"\r\nHost: x\r\n\r\n"
        elif choice == 3:
            raw = rng.choice([b"get", b"FOO", b"G\x00T", b"GET\tGET", b"\x16\x03\x01"]) + b" / HTTP/1.1\r\n\r\n"
        elif choice == 4:
            raw = b"GET /" + b"a" * rng.choice([1000, 70_000, 200_000]) + b" HTTP/1.1\r\n\r\n"
        elif choice == 5:
            raw = b"GET /api/stats HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"
        elif choice == 6:
            raw = b"GET /api/\xff\xfe?topic=\x00 HTTP/1.1\r\n\r\n"
        else:
            raw = b"GET / HTTP/1.1\nHost: x\n\x00\n\n"
        # A long path within NIO's 80 KiB is a request like any other, for a path nobody serves.
        path = raw.split(b" ")[1].decode() if choice == 4 and len(raw) < 80 * 1024 else None
        self.exchange("malformed-line", [(raw, "GET", path)], reset=rng.random() < 0.5)

    def huge_headers(self):
        rng = self.rng
        if rng.random() < 0.5:
            extra = [b"X-Big: " + b"v" * rng.choice([60_000, 100_000, 1_000_000])]
        else:
            extra = [b"X-H%d: %d" % (index, index) for index in range(rng.choice([2_000, 10_000]))]
        path = rng.choice(["/api/stats", "/", "/metrics"])
        raw = self.request("GET", path, headers=extra)
        # NIO's decoder takes up to 80 KiB of request line and headers.
        self.exchange("huge-headers", [(raw, "GET", None if len(raw) > 80 * 1024 else path)])

    def huge_body(self):
        rng = self.rng
        size = rng.choice([(1 << 20) + 1, 2 << 20, 8 << 20])
        body = b'{"v":1,"id":1,"op":"layout","x":"' + b"a" * size + b'"}'
        if rng.random() < 0.5:
            raw = self.request("POST", "/api/request", body)
        else:
            raw = self.chunked("/api/request", body, rng.choice([4096, 65536]))
        self.exchange("huge-body", [(raw, "POST", "/api/request")])

    def chunked(self, path, body, size):
        head = b"POST " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        if self.run.token:
            head += b"Authorization: Bearer " + self.run.token.encode() + b"\r\n"
        chunks = [b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size]) for i in range(0, len(body), size)]
        return head + b"\r\n" + b"".join(chunks) + b"0\r\n\r\n"

    def bad_length(self):
        rng = self.rng
        body = rng.choice(self.run.corpus)
        value = rng.choice([b"abc", b"-1", b"1, 2", b"99999999999999999999999", b"0x10", b" 5"])
        choice = rng.randrange(4)
        head = b"POST /api/request HTTP/1.1\r\nHost: x\r\n"
        if choice == 0:
            raw = head + b"Content-Length: " + value + b"\r\n\r\n" + body
        elif choice == 1:
            raw = head + b"Content-Length: 5\r\nContent-Length: 7\r\n\r\n" + body
        elif choice == 2:
            raw = head + b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n" % len(body) + body
        else:
            raw = head + b"Transfer-Encoding: chunked\r\n\r\n" + rng.choice([b"zz\r\n", b"5\r\nab\r\n0\r\n\r\n", b"-1\r\n", b"ffffffffffffffffff\r\n"]) + body
        self.exchange("bad-length", [(raw, "POST", None)])

    def short_body(self):
        """A Content-Length longer than what is sent: the daemon must close it within its timeout."""
        run = self.run
        body = self.rng.choice(run.corpus)
        raw = self.request("POST", "/api/request", body)
        raw = raw.replace(b"Content-Length: %d" % len(body), b"Content-Length: %d" % (len(body) + 10))
        sock = run.sockets.connect(run.address, run.bound)
        try:
            sock.sendall(raw)
            run.count("requests")
            if not Reader(sock, run.bound).closes(run.bound):
                run.finding("short-body", "a request whose body never ends was kept open past %.0f s" % run.bound, raw)
        finally:
            run.sockets.close(sock)

    def dropped(self):
        rng = self.rng
        raw = self.request("POST", "/api/request", rng.choice(self.run.corpus))
        sock = self.run.sockets.connect(self.run.address, self.run.bound)
        try:
            sock.sendall(raw[: rng.randint(1, len(raw))])
            self.run.count("dropped")
            time.sleep(rng.random() * 0.2)
        finally:
            self.run.sockets.close(sock, reset=rng.random() < 0.7)

    def never_reads(self):
        """Pipelines requests for large answers and reads none of them."""
        run, rng = self.run, self.rng
        sock = run.sockets.connect(run.address, run.bound)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            path = rng.choice(["/console/" + ASSETS[2], "/metrics", "/api/stats", "/console/" + ASSETS[0]])
            one = self.request("GET", path)
            if rng.random() < 0.3:
                one = self.request("POST", "/api/request", b'{"v":1,"id":1,"op":"query","layout":"list","rect":{"x":0,"y":0,"width":9999,"height":99999}}')
            sock.setblocking(False)
            sent, deadline = 0, time.monotonic() + rng.uniform(1, 4)
            while time.monotonic() < deadline and sent < (8 << 20):
                try:
                    sent += sock.send(one * 64)
                except BlockingIOError:
                    time.sleep(0.05)
                except OSError:
                    break
            run.count("never_read", sent // len(one))
        finally:
            run.sockets.close(sock, reset=rng.random() < 0.5)

    def events(self):
        run, rng = self.run, self.rng
        topic = rng.choice(["", "batch:", "invalidated:list", "%ff%00", "a" * 3000])
        raw = self.request("GET", "/api/events?topic=" + topic)
        sock = run.sockets.connect(run.address, run.bound)
        reader = Reader(sock, run.bound)
        try:
            sock.sendall(raw)
            run.count("streams")
            try:
                response = reader.response()
            except (Closed, Hang, Malformed) as error:
                if not isinstance(error, Closed) or not run.near_cap():
                    run.finding("events", "stream: %s" % (error or "closed without an answer"), raw)
                return
            if response.status == 200:
                if not (response.header("Content-Type") or "").startswith("text/event-stream"):
                    run.finding("events", "a 200 stream that is not text/event-stream", raw, response.summary())
                elif rng.random() < 0.5:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                    time.sleep(rng.uniform(1, 6))  # holds it without reading
                else:
                    reader.closes(rng.uniform(0.5, 3))
            elif response.status != 503 or protocol_error_problem(response):
                run.finding("events", "a stream answered %s" % response.summary(), raw)
        finally:
            run.sockets.close(sock, reset=rng.random() < 0.5)

    def flood(self):
        """More connections at once than the daemon keeps (256): the extra ones are closed, none hangs."""
        run = self.run
        socks = []
        try:
            for _ in range(self.rng.randint(50, 300)):
                try:
                    socks.append(run.sockets.connect(run.address, run.bound))
                except OSError:
                    break
            run.count("flood_connections", len(socks))
            time.sleep(0.5)
        finally:
            for sock in socks:
                run.sockets.close(sock, reset=True)
            run.flood_ended = time.monotonic()

    NAMES = ["api-request", "routes", "malformed-line", "huge-headers", "huge-body", "bad-length", "short-body", "dropped",
             "never-reads", "events", "flood"]

    def pick(self):
        weighted = [(self.api_request, 30), (self.routes, 20), (self.malformed_line, 8), (self.huge_headers, 4),
                    (self.huge_body, 3), (self.bad_length, 8), (self.short_body, 1), (self.dropped, 8),
                    (self.never_reads, 4), (self.events, 6), (self.flood, 1)]
        if self.run.cases:
            weighted = [entry for name, entry in zip(self.NAMES, weighted) if name in self.run.cases]
        total = sum(weight for _, weight in weighted)
        point = self.rng.uniform(0, total)
        for case, weight in weighted:
            point -= weight
            if point <= 0:
                return case
        return weighted[0][0]
