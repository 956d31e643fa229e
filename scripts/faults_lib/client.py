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
    direct: bool = False            # query: sent to a worker's direct endpoint (PROTOCOL.md section 11)
    endpoint: str = None            # that endpoint
    fallback: str = None            # query through the broker after a direct attempt: why (moved, timeout...)

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
        if self.direct:
            b["direct"] = self.endpoint or True
        if self.fallback:
            b["fallback"] = self.fallback
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
    replaced (Lazy Pirate), so a late reply never answers a later request. Endpoints separated by commas
    (every broker's front) are all connected: requests go to each in turn."""
    if old is not None:
        old.close(linger=0)
    socket = ctx.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    if reconnect_ivl is not None:
        socket.setsockopt(zmq.RECONNECT_IVL, reconnect_ivl)
    if "," in endpoint:
        # Only to brokers it is connected to: a request queued for one that is down would wait there (and
        # a fresh socket would queue its first request for the same one again).
        socket.setsockopt(zmq.IMMEDIATE, 1)
    for one in endpoint.split(","):
        socket.connect(one)
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

    def call(self, body, base=None, phase=None, record=True):
        return self.call_many([(body, base)], phase=phase, record=record)[0]

    def request(self, body, timeout=None):
        """One request left out of the history (the route table): the decoded reply, or None on a timeout."""
        self.counter += 1
        rid = f"{self.name}-{self.counter}"
        self.socket.send_multipart([b"", json.dumps(dict(body, v=1, id=rid)).encode()])
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not self.socket.poll(int(left * 1000) + 1):
                self._open()
                return None
            try:
                reply = json.loads(self.socket.recv_multipart()[-1])
            except ValueError:
                continue
            if reply.get("id") == rid:
                return reply

    def call_many(self, items, phase=None, timeout=None, record=True):
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
        if record:
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


def parse_route(result):
    """A `route` reply's table (PROTOCOL.md section 11): {key: (epoch, owner's direct endpoint or None, owner)}."""
    endpoints = {w.get("worker"): w.get("direct") for w in result.get("workers") or [] if isinstance(w, dict)}
    table = {}
    for k in result.get("keys") or []:
        owner = k.get("worker")
        table[k.get("layout")] = (k.get("epoch"), endpoints.get(owner) if owner else None, owner)
    return table


class DirectReader:
    """A client reading keys straight from their owners' direct endpoints (PROTOCOL.md section 11), with raw
    pyzmq: it keeps the route table (fetched again after `moved` or a timeout, and for a key it does not list
    with an owner at most twice a second), sends each `query` to the key's owner with the key's `epoch` and,
    as `minVersion`, the newest version of the key it has read, and on `moved`, `behind`, `read_only`, a
    timeout or no owner sends it to the broker instead. Every read is recorded: a direct attempt with
    `direct` (and its endpoint), a read through the broker after one with `fallback` (why)."""

    def __init__(self, ctx, endpoint, history, name, timeout=5.0, direct_timeout=1.0):
        self.ctx, self.history, self.name = ctx, history, name
        self.front = Front(ctx, endpoint, history, name, timeout)
        self.direct_timeout = direct_timeout
        self.table, self.stale, self.looked_up = {}, True, 0.0
        self.seen = {}          # key -> the newest version this client read
        self.sockets = {}       # direct endpoint -> DEALER
        self.counter = 0

    def close(self):
        self.front.close()
        for sock in self.sockets.values():
            sock.close(linger=0)
        self.sockets.clear()

    def refresh(self):
        self.looked_up = time.monotonic()
        reply = self.front.request({"op": "route"}, timeout=max(self.direct_timeout, 1.0))
        if reply and reply.get("ok"):
            self.table, self.stale = parse_route(reply.get("result") or {}), False

    def read(self, body):
        key = body["layout"]
        entry = self.table.get(key)
        if self.stale or ((entry is None or entry[1] is None) and time.monotonic() - self.looked_up > 0.5):
            self.refresh()
            entry = self.table.get(key)
        reason = "noRoute"
        if entry is not None and entry[1] is not None:
            rec = self.direct(entry[1], body, entry[0], self.seen.get(key))
            if rec.outcome == "ok":
                return rec
            reason = rec.outcome
            if rec.outcome in ("moved", "timeout"):
                self.stale = True
        rec = self.front.call(body, record=False)
        rec.fallback = reason
        self._saw(rec)
        self.history.add(rec)
        return rec

    def _saw(self, rec):
        if rec.outcome == "ok" and rec.version is not None:
            self.seen[rec.key] = max(self.seen.get(rec.key, 0), rec.version)

    def direct(self, endpoint, body, epoch, min_version=None, timeout=None):
        """One read at `endpoint`, recorded with `direct`; Lazy Pirate on a timeout."""
        return direct_reads(self, endpoint, [(body, epoch, min_version)], None,
                            self.direct_timeout if timeout is None else timeout)[0]

    def socket(self, endpoint, fresh=False):
        sock = self.sockets.get(endpoint)
        if sock is None or fresh:
            sock = fresh_dealer(self.ctx, endpoint, sock, reconnect_ivl=50)
            self.sockets[endpoint] = sock
        return sock


def direct_reads(reader, endpoint, items, action, timeout):
    """Sends every (body, epoch, minVersion) to `endpoint` at once, runs `action` (if any) before awaiting any
    reply, then waits up to `timeout` for the answers; records each with `direct` set."""
    sock = reader.socket(endpoint)
    pending, records = {}, []
    for body, epoch, min_version in items:
        reader.counter += 1
        rid = f"{reader.name}-d{reader.counter}"
        body = dict(body, v=1, id=rid, epoch=epoch)
        if min_version is not None:
            body["minVersion"] = min_version
        rec = Record(client=reader.name, key=body["layout"], op=body["op"], body=strip(body), sent=0,
                     phase=reader.history.phase, direct=True, endpoint=endpoint)
        rec.sent = tick()
        sock.send_multipart([b"", json.dumps(body).encode()])
        pending[rid] = rec
        records.append(rec)
    if action is not None:
        action()
    deadline = time.monotonic() + timeout
    while pending:
        left = deadline - time.monotonic()
        if left <= 0 or not sock.poll(int(left * 1000) + 1):
            break
        frames = sock.recv_multipart()
        received = tick()
        try:
            reply = json.loads(frames[-1])
        except ValueError:
            continue
        rec = pending.pop(reply.get("id"), None)
        if rec is not None:
            rec.received = received
            Front._fill(rec, reply)
    if pending:
        now = tick()
        for rec in pending.values():
            rec.received, rec.outcome = now, "timeout"
        reader.socket(endpoint, fresh=True)
    for rec in records:
        if hasattr(reader, "_saw"):
            reader._saw(rec)
        reader.history.add(rec)
    return records


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
