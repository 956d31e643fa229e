"""Raw HTTP/1.1 over sockets, without the standard library's client (which refuses to send what the fuzzer
sends and hides what the daemon answers), and the oracles every answer is held to."""
import json
import re
import socket
import threading
import time

STATUS_LINE = re.compile(rb"^HTTP/1\.[01] ([1-5][0-9][0-9]) ([^\r\n]*)$")


class Hang(Exception):
    """No complete answer within the bound."""


class Closed(Exception):
    """The peer closed (or reset) the connection before any byte of an answer."""


class Malformed(Exception):
    """Bytes came back that are not an HTTP/1.1 response."""


class Response:
    def __init__(self, status, reason, headers, body):
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def summary(self):
        return "%d %s %r" % (self.status, self.reason, self.body[:300])


class OpenSockets:
    """The fuzzer's own open connections, so that a connection the daemon's cap closes (256 at once) is told
    apart from one it drops for no reason."""

    def __init__(self):
        self._lock = threading.Lock()
        self.count = 0
        self.opened = 0

    def connect(self, address, timeout):
        sock = socket.create_connection(address, timeout=timeout)
        with self._lock:
            self.count += 1
            self.opened += 1
        return sock

    def close(self, sock, reset=False):
        if sock is None:
            return
        try:
            if reset:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            sock.close()
        except OSError:
            pass
        with self._lock:
            self.count -= 1


class Reader:
    """Reads responses off one connection, bytes left over kept for the next."""

    def __init__(self, sock, bound):
        self.sock = sock
        self.bound = bound
        self.buffer = bytearray()
        self.received = 0

    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Hang("no complete answer within %.1f s" % self.bound)
        self.sock.settimeout(min(remaining, 1.0))
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return True
        except (ConnectionResetError, BrokenPipeError):
            chunk = b""
        if not chunk:
            return False
        self.received += len(chunk)
        self.buffer += chunk
        return True

    def response(self, head_request=False):
        deadline = time.monotonic() + self.bound
        while b"\r\n\r\n" not in self.buffer:
            if len(self.buffer) > 256 * 1024:
                raise Malformed("a response head over 256 KiB")
            if not self._fill(deadline):
                if self.buffer:
                    raise Malformed("closed inside a response head: %r" % bytes(self.buffer[:200]))
                raise Closed()
        end = self.buffer.index(b"\r\n\r\n")
        lines = bytes(self.buffer[:end]).split(b"\r\n")
        del self.buffer[: end + 4]
        match = STATUS_LINE.match(lines[0])
        if not match:
            raise Malformed("status line %r" % lines[0][:200])
        headers = []
        for line in lines[1:]:
            name, colon, value = line.partition(b":")
            if not colon or not name or name.strip() != name:
                raise Malformed("header line %r" % line[:200])
            headers.append((name.decode("latin-1"), value.strip().decode("latin-1")))
        response = Response(int(match.group(1)), match.group(2).decode("latin-1"), headers, b"")
        if head_request or response.status in (204, 304) or response.status < 200:
            return response
        if (response.header("Content-Type") or "").startswith("text/event-stream"):
            return response
        length = response.header("Content-Length")
        if length is None or not length.isdigit():
            raise Malformed("a response without a Content-Length: %s" % response.summary())
        size = int(length)
        while len(self.buffer) < size:
            if not self._fill(deadline):
                raise Malformed("closed %d bytes into a %d-byte body" % (len(self.buffer), size))
        response.body = bytes(self.buffer[:size])
        del self.buffer[:size]
        return response

    def closes(self, bound):
        """Whether the peer closes the connection within `bound` seconds (what it sends meanwhile is kept)."""
        deadline = time.monotonic() + bound
        while time.monotonic() < deadline:
            if not self._fill(deadline):
                return True
        return False


def strict_json(data):
    """The value of `data` if it is one JSON text by RFC 8259 (UTF-8, no NaN or Infinity), else None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None

    def refuse(_):
        raise ValueError("not JSON")

    try:
        return json.loads(text, parse_constant=refuse)
    except (ValueError, RecursionError):
        return None


def protocol_error_problem(response):
    """Why `response` is not an answer with the protocol's error body (PROTOCOL.md), or None when it is."""
    if not (response.header("Content-Type") or "").startswith("application/json"):
        return "an API error without a JSON body: %s (Content-Type %r)" % (response.summary(), response.header("Content-Type"))
    value = strict_json(response.body)
    if not isinstance(value, dict) or value.get("v") != 1 or value.get("ok") is not False or "id" not in value:
        return "an API error that is not the protocol's error body: %s" % response.summary()
    error = value.get("error")
    if not isinstance(error, dict) or not isinstance(error.get("code"), str) or not isinstance(error.get("message"), str):
        return "an API error whose error has no code or message: %s" % response.summary()
    return None


def console_owns(path):
    return path == "/" or path.startswith("/console/") or path.startswith("/api/")
