"""An independent client of the broker's front and events sockets (raw pyzmq), and the history it records."""
import hashlib
import itertools
import json
import threading
import time
from dataclasses import dataclass, field

import zmq

CHANGES = ("prepare", "update", "diff", "bounds", "drop")
# Outcomes of a change that leave it unknown whether it was applied.
INDETERMINATE = ("timeout", "unavailable", "internal")

_SEQ = itertools.count(1)   # one clock for sends, replies and events: next() is atomic under the GIL


def tick():
    return next(_SEQ)


def digest_of(attributes):
    return hashlib.sha256(json.dumps(attributes, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def strip(body):
    """The body as the checker and the replay need it (no id)."""
    return {k: v for k, v in body.items() if k != "id"}


@dataclass
class Record:
    client: str
    key: str
    op: str
    body: dict
    sent: int
    received: int = 0
    outcome: str = "timeout"        # ok, an error code, or timeout
    version: int = None
    digest: str = None              # query: sha256 of the attributes
    invalidated: bool = None        # bounds: whether the size changed
    base: int = None                # change: the version the client believed current when it sent it
    phase: str = ""
    message: str = ""

    @property
    def is_change(self):
        return self.op in CHANGES

    @property
    def indeterminate(self):
        return self.is_change and self.outcome in INDETERMINATE

    @property
    def if_version(self):
        return self.body.get("ifVersion")

    def brief(self):
        b = {"op": self.op, "key": self.key, "client": self.client, "sent": self.sent, "received": self.received,
             "outcome": self.outcome, "version": self.version, "phase": self.phase}
        if self.if_version is not None:
            b["ifVersion"] = self.if_version
        if self.base is not None and self.if_version is None and self.is_change:
            b["base"] = self.base
        if self.digest:
            b["digest"] = self.digest[:12]
        if self.op == "bounds":
            b["invalidated"] = self.invalidated
        return b

    def to_json(self):
        d = self.brief()
        if self.digest:
            d["digest"] = self.digest
        d["body"] = self.body
        if self.message:
            d["message"] = self.message
        return d


class History:
    def __init__(self):
        self.records = []
        self.lock = threading.Lock()
        self.phase = ""

    def add(self, record):
        with self.lock:
            self.records.append(record)

    def snapshot(self):
        with self.lock:
            return list(self.records)


FULL_RECT = {"x": 0, "y": 0, "width": 100000, "height": 100000000}


def fresh_dealer(ctx, endpoint, old=None, reconnect_ivl=None):
    """A new DEALER connected to `endpoint`, closing `old` first: a socket whose request timed out is
    replaced (Lazy Pirate), so a late reply never answers a later request."""
    if old is not None:
        old.close(linger=0)
    socket = ctx.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    if reconnect_ivl is not None:
        socket.setsockopt(zmq.RECONNECT_IVL, reconnect_ivl)
    socket.connect(endpoint)
    return socket


class Front:
    """A DEALER on the broker's front, owned by one thread. Requests are matched to replies by id;
    after a timeout the socket is replaced (Lazy Pirate), so a late reply never answers a later request."""

    def __init__(self, ctx, endpoint, history, name, timeout=5.0):
        self.ctx, self.endpoint, self.history, self.name, self.timeout = ctx, endpoint, history, name, timeout
        self.counter = 0
        self.socket = None
        self._open()

    def _open(self):
        self.socket = fresh_dealer(self.ctx, self.endpoint, self.socket, reconnect_ivl=50)

    def close(self):
        if self.socket is not None:
            self.socket.close(linger=0)
            self.socket = None

    def call(self, body, base=None, phase=None):
        return self.call_many([(body, base)], phase=phase)[0]

    def call_many(self, items, phase=None, timeout=None):
        """Sends every (body, base) at once, then waits for all replies; a Record per request."""
        timeout = self.timeout if timeout is None else timeout
        pending = {}
        records = []
        for body, base in items:
            self.counter += 1
            rid = f"{self.name}-{self.counter}"
            body = dict(body, v=1, id=rid)
            rec = Record(client=self.name, key=body.get("layout", ""), op=body["op"], body=strip(body),
                         sent=0, base=base, phase=phase if phase is not None else self.history.phase)
            payload = json.dumps(body).encode()
            rec.sent = tick()
            self.socket.send_multipart([b"", payload])
            pending[rid] = rec
            records.append(rec)
        deadline = time.monotonic() + timeout
        while pending:
            left = deadline - time.monotonic()
            if left <= 0 or not self.socket.poll(int(left * 1000) + 1):
                break
            frames = self.socket.recv_multipart()
            received = tick()
            try:
                reply = json.loads(frames[-1])
            except ValueError:
                continue
            rec = pending.pop(reply.get("id"), None)
            if rec is None:
                continue
            rec.received = received
            self._fill(rec, reply)
        if pending:
            now = tick()
            for rec in pending.values():
                rec.received = now
                rec.outcome = "timeout"
            self._open()
        for rec in records:
            self.history.add(rec)
        return records

    @staticmethod
    def _fill(rec, reply):
        if reply.get("ok"):
            rec.outcome = "ok"
            result = reply.get("result") or {}
            rec.version = result.get("version")
            if rec.op == "query":
                rec.digest = digest_of(result.get("attributes"))
            if rec.op == "bounds":
                rec.invalidated = bool(result.get("invalidated"))
        else:
            error = reply.get("error") or {}
            rec.outcome = error.get("code", "error")
            rec.message = error.get("message", "")


class EventLog:
    """A SUB on the broker's events socket for the whole scenario (it reconnects by itself after a
    broker restart). Each event is kept with the tick it was received at."""

    def __init__(self, ctx, endpoint):
        self.ctx, self.endpoint = ctx, endpoint
        self.events = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="events", daemon=True)
        self.ready = threading.Event()

    def start(self):
        self.thread.start()
        self.ready.wait(5)
        return self

    def _run(self):
        sub = self.ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.RECONNECT_IVL, 50)
        sub.setsockopt(zmq.RCVHWM, 1000000)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect(self.endpoint)
        self.ready.set()
        try:
            while not self.stopping.is_set():
                if not sub.poll(100):
                    continue
                frames = sub.recv_multipart()
                received = tick()
                try:
                    event = json.loads(frames[1])
                except (ValueError, IndexError):
                    continue
                event["_received"] = received
                with self.lock:
                    self.events.append(event)
        finally:
            sub.close(linger=0)

    def stop(self):
        self.stopping.set()
        self.thread.join(5)

    def snapshot(self):
        with self.lock:
            return list(self.events)
