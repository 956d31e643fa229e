#!/usr/bin/env python3
"""A short layoutd client on the Python package in clients/python (pip install ./clients/python).

    python3 client.py demo                      # prepare a job, query a rect, update it with ifVersion, show events
    python3 client.py demo --job ../jobs/waterfall.json --key pins --rect 0,0,414,600 --updates ''
    python3 client.py watch batch: invalidated:feed --count 5     # print events
    python3 client.py --secret-key alice.key --server-key server.pub demo   # a daemon with CURVE
    python3 client.py --front tcp://a:5555,tcp://b:5555 demo      # a cluster's two brokers: fail over between them

The package does the wire work: DEALER sockets with timeouts and failover (several --front endpoints,
comma-separated or the option repeated: a timeout or a standby broker's answer moves to the next one),
typed replies and errors, events with the CURVE key prefix handled and gaps resynchronised by a query.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import layoutd
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python", "src"))
    import layoutd

from layoutd import BatchEvent, Client, CurveKeys, InvalidatedEvent, LayoutdError, Resync, Subscriber


def show(item: layoutd.Event | Resync) -> None:
    if isinstance(item, Resync):
        print(f"missed events of {item.layout} (v{item.last_version} → v{item.event.version}): "
              f"re-queried, now v{item.version}" + (f" ({item.error.code})" if item.error else ""))
    elif isinstance(item, BatchEvent):
        print(f"batch {item.layout} v{item.version}: -{len(item.deletes)} +{len(item.inserts)} "
              f"moves {len(item.moves)} reloads {len(item.reloads)}")
    elif isinstance(item, InvalidatedEvent):
        print(f"invalidated {item.layout} v{item.version} ({item.reason})")


def demo(args: argparse.Namespace, curve: CurveKeys | None) -> None:
    with Client(args.front, timeout=args.timeout, curve=curve) as client, \
            Subscriber(args.events, [f"batch:{args.key}", f"invalidated:{args.key}"], client=client) as events:
        pong = client.ping()
        print(f"layoutd {pong.version}, layouts: {', '.join(pong.layouts)}")

        with open(args.job) as file:
            job = json.load(file)
        prepared = client.prepare(args.key, bounds=job["bounds"], spec=job["spec"], sections=job["sections"],
                                  content_insets=job.get("contentInsets"), decorations=job.get("decorations"))
        print(f"prepared {args.key} v{prepared.version}: {prepared.counts.items} items, "
              f"content {prepared.content_size.width:g}×{prepared.content_size.height:g}")
        rect = tuple(float(part) for part in args.rect.split(","))
        events.track(args.key, prepared.version, rect=rect)  # ignore older events; a resync queries this rect

        visible = client.query(args.key, rect=rect, format=args.format)
        elements = list(visible.attributes)  # objects, or columns turned into elements
        print(f"query {args.rect}: {len(elements)} elements")
        for e in elements[:args.limit]:
            print(f"  {e.kind:<10} {e.section:>3} {e.item:>5}  x {e.x:g} y {e.y:g} w {e.width:g} h {e.height:g}")

        if args.updates:
            with open(args.updates) as file:
                updates = json.load(file)
            try:  # ifVersion: applied only to the layout we just saw, and safe to resend after a timeout
                batch = client.update(args.key, updates=updates["updates"] if isinstance(updates, dict) else updates,
                                      if_version=prepared.version)
                print(f"updated {args.key} v{batch.version}: -{len(batch.deletes)} +{len(batch.inserts)} "
                      f"moves {len(batch.moves)} reloads {len(batch.reloads)}")
            except LayoutdError as error:
                print(f"update refused: {error}")
        # Events published before the subscription reached the daemon are not delivered: show what came.
        for item in events.iter(idle_timeout=1.0):
            show(item)


def watch(args: argparse.Namespace, curve: CurveKeys | None) -> None:
    with Subscriber(args.events, args.prefixes or [""], curve=curve) as events:
        seen = 0
        try:
            while args.count is None or seen < args.count:
                item = events.next()
                if item is not None:
                    show(item)
                    seen += 1
        except KeyboardInterrupt:
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description="A layoutd client on the layoutd Python package.")
    parser.add_argument("--front", action="append",
                        help="front endpoint; several, comma-separated or repeated, to fail over between")
    parser.add_argument("--events", default=layoutd.DEFAULT_EVENTS)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for each reply")
    parser.add_argument("--secret-key", help="CURVE: this client's secret key file (layoutctl keygen)")
    parser.add_argument("--server-key", help="CURVE: the daemon's public key file")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("demo", help="prepare, query, update with ifVersion, show the events")
    run.add_argument("--job", default=os.path.join(HERE, "..", "jobs", "list.json"))
    run.add_argument("--key", default="feed")
    run.add_argument("--rect", default="0,0,375,400", help="x,y,width,height")
    run.add_argument("--updates", default=os.path.join(HERE, "..", "updates", "list-batch.json"),
                     help="an update batch file ('' to skip)")
    run.add_argument("--limit", type=int, default=20, help="elements to print")
    run.add_argument("--format", choices=["objects", "columns", "binary"], default="objects")
    listen = commands.add_parser("watch", help="print events until Ctrl-C or --count")
    listen.add_argument("prefixes", nargs="*", help="topic prefixes (default: everything)")
    listen.add_argument("--count", type=int)
    args = parser.parse_args()
    args.front = [e.strip() for option in args.front or [layoutd.DEFAULT_FRONT] for e in option.split(",")]
    if not all(args.front):
        parser.error("--front: an empty endpoint in the list")
    if bool(args.secret_key) != bool(args.server_key):
        parser.error("--secret-key and --server-key go together: CURVE needs both")
    curve = CurveKeys.from_files(args.secret_key, args.server_key) if args.secret_key else None
    try:
        (demo if args.command == "demo" else watch)(args, curve)
    except LayoutdError as error:
        print(f"error {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
