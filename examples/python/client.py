#!/usr/bin/env python3
"""A small layoutd client in Python (pyzmq), following the wire contract (docs: PROTOCOL).

    python3 client.py demo                      # ping, prepare a job, query a rect, apply an update
    python3 client.py demo --job ../jobs/waterfall.json --key pins --rect 0,0,414,600
    python3 client.py watch                     # print every event until Ctrl-C
    python3 client.py watch batch: invalidated:feed --count 5
    python3 client.py --secret-key alice.key --server-key server.pub demo   # a daemon with CURVE

Requests go to the front socket through a DEALER. A DEALER adds no envelope of its own, so each request
is sent as [b"", body]: the daemon's ROUTER then sees the same shape as from a REQ socket, and the reply
comes back as [b"", body]. Replies are matched by the request's "id"; after a timeout the socket is
replaced (the ZeroMQ guide's "Lazy Pirate"), so a late reply can never be taken for the next one.

With CURVE (docs: OPERATIONS, Security) every socket is a CURVE client: the client's secret key (its public
key follows from it) and the daemon's public key, from files as `layoutctl keygen` writes them. Event topics
then start with the client's own public key (40 characters of Z85): subscriptions get it in front, and it is
taken off the topics received.
"""

import argparse
import itertools
import json
import os
import sys
import time

import zmq

FRONT = "tcp://127.0.0.1:5555"
EVENTS = "tcp://127.0.0.1:5556"
HERE = os.path.dirname(os.path.abspath(__file__))


class ReplyError(Exception):
    """The daemon answered {"ok": false, "error": {code, message, path}}."""

    def __init__(self, error):
        self.code = error.get("code", "internal")
        self.message = error.get("message", "")
        self.path = error.get("path")
        where = f" (at {self.path})" if self.path else ""
        super().__init__(f"error {self.code}: {self.message}{where}")


def read_key(path):
    """The key in a key file: the first word of the first line that is not blank or a comment."""
    with open(path) as file:
        for line in file:
            words = line.split()
            if words and not words[0].startswith("#"):
                return words[0].encode()
    raise SystemExit(f"{path}: no key in the file")


def curve_keys(args):
    """(secret, public, server) keys in Z85 for --secret-key and --server-key; None without them."""
    if not args.secret_key and not args.server_key:
        return None
    if not (args.secret_key and args.server_key):
        raise SystemExit("--secret-key and --server-key go together: CURVE needs both")
    secret = read_key(args.secret_key)
    return secret, zmq.curve_public(secret), read_key(args.server_key)


def secure(socket, keys):
    """Makes `socket` a CURVE client (before it connects) when there are keys."""
    if keys:
        socket.curve_secretkey, socket.curve_publickey, socket.curve_serverkey = keys


class LayoutClient:
    def __init__(self, endpoint=FRONT, timeout=5.0, context=None, keys=None):
        self.endpoint = endpoint
        self.timeout = timeout
        self.context = context or zmq.Context.instance()
        self.keys = keys
        self.ids = itertools.count(1)
        self.socket = None
        self._connect()

    def _connect(self):
        if self.socket is not None:
            self.socket.close(linger=0)
        self.socket = self.context.socket(zmq.DEALER)
        self.socket.linger = 0
        secure(self.socket, self.keys)
        self.socket.connect(self.endpoint)

    def call(self, op, **fields):
        """Sends one request and returns its `result`; raises ReplyError or TimeoutError."""
        request_id = next(self.ids)
        body = {"v": 1, "id": request_id, "op": op, **fields}
        self.socket.send_multipart([b"", json.dumps(body).encode()])
        deadline = time.monotonic() + self.timeout
        while (remaining := deadline - time.monotonic()) > 0:
            if not self.socket.poll(int(remaining * 1000) + 1):
                continue
            frames = self.socket.recv_multipart()
            reply = json.loads(frames[1] if len(frames) > 1 and frames[0] == b"" else frames[0])
            # No id: the daemon could not read ours (invalid JSON). Another id: a stale reply.
            if reply.get("id") not in (request_id, None):
                continue
            if not reply.get("ok"):
                raise ReplyError(reply.get("error", {}))
            return reply.get("result", {})
        self._connect()
        raise TimeoutError(f"no reply from {self.endpoint} within {self.timeout}s")

    def close(self):
        self.socket.close(linger=0)


def size(value):
    return f"{value['width']:g}×{value['height']:g}" if value else "?"


def rows(attributes):
    """Elements as dicts, from either "format": "objects" or "format": "columns"."""
    if isinstance(attributes, dict):
        keys = list(attributes)
        return [dict(zip(keys, values)) for values in zip(*attributes.values())]
    return attributes or []


def demo(args):
    client = LayoutClient(args.front, args.timeout, keys=curve_keys(args))

    pong = client.call("ping")
    print(f"layoutd {pong['version']}, up {pong['uptimeSeconds']:.0f}s, layouts: {', '.join(pong['layouts'])}")

    with open(args.job) as file:
        job = json.load(file)
    prepared = client.call("prepare", layout=args.key, **job)
    counts = prepared["counts"]
    print(f"prepared {args.key} v{prepared['version']}: {counts['items']} items, "
          f"content {size(prepared['contentSize'])}")

    x, y, width, height = (float(part) for part in args.rect.split(","))
    answer = client.call("query", layout=args.key, rect={"x": x, "y": y, "width": width, "height": height},
                         format=args.format)
    elements = rows(answer["attributes"])
    print(f"query {args.rect}: {len(elements)} element{'' if len(elements) == 1 else 's'}")
    for element in elements[:args.limit]:
        print(f"  {element['kind']:<10} {element['section']:>3} {element['item']:>5}  "
              f"x {element['x']:g} y {element['y']:g} w {element['width']:g} h {element['height']:g}")
    if len(elements) > args.limit:
        print(f"  … {len(elements) - args.limit} more")

    if args.updates:
        with open(args.updates) as file:
            updates = json.load(file)
        if isinstance(updates, dict):
            updates = updates["updates"]
        try:
            batch = client.call("update", layout=args.key, updates=updates, ifVersion=prepared["version"])
        except ReplyError as error:
            # A batch that does not fit this job (indices out of range) is refused whole; the
            # layout is left as it was.
            print(f"update refused: {error}")
        else:
            print(f"updated {args.key} v{batch['version']}: -{len(batch['deletes'])} +{len(batch['inserts'])} "
                  f"moves {len(batch['moves'])} reloads {len(batch['reloads'])} → content {size(batch['contentSize'])}")
    client.close()


def watch(args):
    keys = curve_keys(args)
    # With CURVE the daemon publishes our events under our own public key.
    own = keys[1] if keys else b""
    socket = zmq.Context.instance().socket(zmq.SUB)
    secure(socket, keys)
    socket.connect(args.events)
    for prefix in args.prefixes or [""]:
        socket.setsockopt(zmq.SUBSCRIBE, own + prefix.encode())
    last = {}
    seen = 0
    try:
        while args.count is None or seen < args.count:
            topic, body = socket.recv_multipart()
            topic = topic[len(own):]
            event = json.loads(body)
            seen += 1
            layout, version = event.get("layout"), event.get("version")
            # Versions rise by one per change: a gap means events were missed (PUB drops them for
            # slow subscribers), so re-query the layout.
            if layout in last and version > last[layout] + 1:
                print(f"missed {version - last[layout] - 1} event(s) of {layout}: re-query it")
            # After a drop or an eviction the key may be prepared again (the count goes on); start
            # afresh then rather than report a false gap.
            if event.get("reason") in ("dropped", "evicted"):
                last.pop(layout, None)
            else:
                last[layout] = version
            if event.get("event") == "batch":
                print(f"batch {layout} v{version}: -{len(event['deletes'])} +{len(event['inserts'])} "
                      f"moves {len(event['moves'])} reloads {len(event['reloads'])} → content {size(event.get('contentSize'))}")
            elif event.get("event") == "invalidated":
                print(f"invalidated {layout} v{version} ({event.get('reason')}) → content {size(event.get('contentSize'))}")
            else:
                print(topic.decode(), body.decode())
            sys.stdout.flush()
    except KeyboardInterrupt:
        pass
    finally:
        socket.close(linger=0)


def main():
    parser = argparse.ArgumentParser(description="A pyzmq client for layoutd.")
    parser.add_argument("--front", default=FRONT, help=f"front endpoint (default {FRONT})")
    parser.add_argument("--events", default=EVENTS, help=f"events endpoint (default {EVENTS})")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for a reply")
    parser.add_argument("--secret-key", help="CURVE: this client's secret key file (from layoutctl keygen)")
    parser.add_argument("--server-key", help="CURVE: the daemon's public key file")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("demo", help="ping, prepare a job, query a rect, apply an update")
    run.add_argument("--job", default=f"{HERE}/../jobs/list.json")
    run.add_argument("--key", default="feed")
    run.add_argument("--rect", default="0,0,375,400", help="x,y,width,height")
    run.add_argument("--updates", default=f"{HERE}/../updates/list-batch.json",
                     help="an update batch file ('' to skip)")
    run.add_argument("--limit", type=int, default=20, help="elements to print")
    run.add_argument("--format", choices=["objects", "columns"], default="objects",
                     help="how the query lists its elements (the output is the same)")
    run.set_defaults(handler=demo)

    listen = commands.add_parser("watch", help="print events until Ctrl-C or --count")
    listen.add_argument("prefixes", nargs="*", help="topic prefixes (default: everything)")
    listen.add_argument("--count", type=int)
    listen.set_defaults(handler=watch)

    args = parser.parse_args()
    try:
        args.handler(args)
    except (ReplyError, TimeoutError) as error:
        print(error if isinstance(error, ReplyError) else f"error timeout: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
