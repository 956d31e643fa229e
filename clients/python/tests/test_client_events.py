"""Events: typed events from the real daemon and cluster, gaps and resyncs, the tracker's rules."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
import zmq

from layoutd import (
    AsyncClient,
    AsyncSubscriber,
    BatchEvent,
    Client,
    DecodeError,
    Event,
    InvalidatedEvent,
    Resync,
    Subscriber,
    UnknownLayout,
    VersionTracker,
)
from layoutd_testkit import FEED_BOUNDS, FEED_SECTIONS, FEED_SPEC, SchemaChecker, Server, free_port, tcp

EVENT_WAIT = 5.0


def prepare_feed(client: Client, key: str) -> int:
    return client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS).version


def sync_subscription(sub: Subscriber, client: Client, bound: float = 20.0) -> None:
    """Waits until ``sub``'s subscription has reached the daemon (ZeroMQ's slow joiner): re-prepares a
    probe key (each publishes ``invalidated``/``replaced``) until its event arrives. Bounded."""
    probe = f"probe-{uuid.uuid4().hex[:8]}"
    sub.subscribe(f"invalidated:{probe}")
    prepare_feed(client, probe)
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        prepare_feed(client, probe)
        while (item := sub.next(0.2)) is not None:
            if item.layout == probe if isinstance(item, Event) else item.layout == probe:
                sub.unsubscribe(f"invalidated:{probe}")
                return
    raise AssertionError(f"the subscription did not reach the daemon within {bound:g}s")


def next_for(sub: Subscriber, layout: str, timeout: float = EVENT_WAIT) -> Event | Resync:
    """The next event or resync about ``layout`` (others skipped), within ``timeout``."""
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        item = sub.next(remaining)
        if item is not None and item.layout == layout:
            return item
    raise AssertionError(f"no event for {layout} within {timeout:g}s")


def test_events_are_typed_and_in_order(server: Server, make_client: Callable[..., Client], key: str) -> None:
    client = make_client(server.front)
    with Subscriber(server.events, ["batch:", "invalidated:"], client=client) as sub:
        sync_subscription(sub, client)
        version = prepare_feed(client, key)  # the first prepare publishes nothing
        sub.track(key, version, rect=(0, 0, 375, 667))

        client.update(key, if_version=version, updates=[{"delete": [0, 0]}, {"move": [[0, 1], [1, 0]]}])
        batch = next_for(sub, key)
        assert isinstance(batch, BatchEvent)
        assert (batch.event, batch.topic, batch.layout, batch.version) == ("batch", f"batch:{key}", key, 2)
        assert batch.deletes == [(0, 0)] and [(m.from_, m.to) for m in batch.moves] == [((0, 1), (1, 0))]
        assert batch.content_size is not None and batch.content_size.width == 375

        client.bounds(key, bounds=(414, 896))
        resized = next_for(sub, key)
        assert isinstance(resized, InvalidatedEvent)
        assert (resized.reason, resized.version, resized.topic) == ("bounds", 3, f"invalidated:{key}")
        assert resized.content_size is not None and resized.content_size.width == 414

        client.drop(key)
        dropped = next_for(sub, key)
        assert isinstance(dropped, InvalidatedEvent) and (dropped.reason, dropped.version) == ("dropped", 4)
        prepare_feed(client, key)
        replaced = next_for(sub, key)
        assert isinstance(replaced, InvalidatedEvent) and (replaced.reason, replaced.version) == ("replaced", 5)
        assert sub.resyncs == 0


def test_gap_is_detected_and_resynced(server: Server, make_client: Callable[..., Client], key: str) -> None:
    client = make_client(server.front)
    version = prepare_feed(client, key)
    with Subscriber(
        server.events, [f"batch:{key}", f"invalidated:{key}"], client=client, versions={key: version}
    ) as sub:
        sub.track(key, rect=(0, 0, 375, 100))
        client.update(key, updates=[{"delete": [0, 0]}])  # v2 and v3
        client.update(key, updates=[{"insert": [0, 0], "item": {"id": "n", "height": 10}}])
        assert [next_for(sub, key).version for _ in range(2)] == [2, 3]
        # As if the subscriber had missed 2 and 3 (a cluster may still deliver events published before a
        # subscription was confirmed, so missing them is made here, not by subscribing late).
        sub.tracker.reset(key, version)
        client.update(key, updates=[{"delete": [0, 0]}])  # v4
        resync = next_for(sub, key)
        assert isinstance(resync, Resync)
        assert (resync.layout, resync.last_version, resync.event.version) == (key, 1, 4)
        assert resync.error is None and resync.result is not None
        assert resync.version == resync.result.version == 4
        # The resync query asked for the tracked rect: the layout as it stands at version 4.
        assert [(a.kind, a.y, a.height) for a in resync.result.attributes] == [("header", 0, 28), ("cell", 36, 60)]
        assert sub.resyncs == 1 and sub.tracker.known(key) == 4

        client.update(key, updates=[{"delete": [0, 0]}])  # v5: in order again
        after = next_for(sub, key)
        assert isinstance(after, BatchEvent) and after.version == 5


def test_async_subscriber(
    server: Server, make_client: Callable[..., Client], make_async_client: Callable[..., AsyncClient], key: str
) -> None:
    sync_client = make_client(server.front)
    version = prepare_feed(sync_client, key)
    sync_client.update(key, updates=[{"delete": [0, 0]}])  # v2, missed

    async def main() -> list[Any]:
        seen: list[Any] = []
        async with make_async_client(server.front) as client:
            async with AsyncSubscriber(server.events, [f"batch:{key}"], client=client, versions={key: version}) as sub:
                deadline = time.monotonic() + 20
                # Poll until the subscription is live: each update is a new version; the first that
                # arrives after v2 is a gap (resync), then they come in order.
                while len(seen) < 2 and time.monotonic() < deadline:
                    await client.update(key, updates=[{"insert": [0, 0], "item": {"id": uuid.uuid4().hex}}])
                    while (item := await sub.next(0.2)) is not None:
                        seen.append(item)
        return seen

    seen = asyncio.run(asyncio.wait_for(main(), 30))
    assert len(seen) >= 2
    assert isinstance(seen[0], Resync) and seen[0].last_version == 1 and seen[0].result is not None
    assert isinstance(seen[1], BatchEvent) and seen[1].version == seen[0].version + 1


class FakePublisher:
    """An XPUB on a free port: waits (bounded) for the subscriber's subscription, then publishes."""

    def __init__(self) -> None:
        self.endpoint = tcp(free_port())
        self.socket = zmq.Context.instance().socket(zmq.XPUB)
        self.socket.linger = 0
        self.socket.bind(self.endpoint)

    def wait_subscribed(self, timeout: float = 10.0) -> bytes:
        if not self.socket.poll(int(timeout * 1000), zmq.POLLIN):
            raise AssertionError("no subscription reached the fake publisher")
        return self.socket.recv()

    def publish(self, topic: str, body: Any) -> None:
        self.socket.send_multipart([topic.encode(), body if isinstance(body, bytes) else json.dumps(body).encode()])

    def close(self) -> None:
        self.socket.close(linger=0)


def batch(layout: str, version: int) -> dict[str, Any]:
    return {
        "event": "batch",
        "layout": layout,
        "version": version,
        "deletes": [],
        "inserts": [[0, 0]],
        "moves": [],
        "reloads": [],
        "sections": {"deletes": [], "inserts": [], "moves": [], "reloads": []},
        "contentSize": {"width": 10, "height": 20},
    }


def test_fake_stream_gap_repeat_stale_and_lost_keys(
    single_server: Server, make_client: Callable[..., Client], schema: SchemaChecker, key: str
) -> None:
    client = make_client(single_server.front)
    prepare_feed(client, key)
    client.update(key, updates=[{"delete": [0, 0]}])
    client.update(key, updates=[{"delete": [0, 0]}])  # the real layout is at version 3
    gone = f"{key}-gone"
    publisher = FakePublisher()
    try:
        with Subscriber(publisher.endpoint, ["batch:"], client=client, confirm=False) as sub:
            assert publisher.wait_subscribed() == b"\x01batch:"
            stream = [
                batch(key, 1),
                batch(key, 2),
                batch(key, 2),
                batch(key, 3),
                batch(key, 2),
                batch(key, 4),
                batch(gone, 1),
                batch(gone, 5),
                batch(gone, 6),
            ]
            for body in stream:
                publisher.publish(f"batch:{body['layout']}", body)
            items = []
            while (item := sub.next(1.0)) is not None:
                items.append(item)
            publisher.publish("batch:x", b"not json")
            with pytest.raises(DecodeError):
                sub.next(EVENT_WAIT)
    finally:
        publisher.close()
    summary = [(type(i).__name__, i.layout, i.version) for i in items]
    assert summary == [
        ("BatchEvent", key, 1),
        ("BatchEvent", key, 2),
        ("Resync", key, 3),  # version 2 twice in the stream: a gap; the query says 3
        # 3 and 2 again: at or below the resync's version, ignored
        ("BatchEvent", key, 4),
        ("BatchEvent", gone, 1),
        ("Resync", gone, 5),  # 1 then 5: a gap; the key is not kept, so the query failed
        ("BatchEvent", gone, 6),
    ]
    resync_gone = items[5]
    assert isinstance(resync_gone, Resync) and isinstance(resync_gone.error, UnknownLayout)
    assert resync_gone.result is None and resync_gone.last_version == 1
    assert sub.stale == 2 and sub.resyncs == 2
    assert schema.counts["event"] >= len(stream)


def test_version_tracker_rules() -> None:
    tracker = VersionTracker({"a": 3})
    assert tracker.classify("a", 3) == "stale"  # the event of the change the reply showed
    assert tracker.classify("a", 2) == "stale"
    assert tracker.classify("a", 4) == "new"
    assert tracker.classify("a", 6) == "gap"
    tracker.accept("a", 4)
    assert tracker.classify("a", 4) == "gap"  # the same version twice in the stream (cluster, §10.8)
    assert tracker.classify("a", 5) == "new"
    tracker.baseline("a", 2)  # a baseline never moves back
    assert tracker.known("a") == 4
    tracker.baseline("a", 4)  # a reply confirms the version: 4 again is now stale
    assert tracker.classify("a", 4) == "stale"
    assert tracker.classify("b", 17) == "new"  # the first event of a key is taken as it comes
    tracker.reset("a", 1)
    assert tracker.known("a") == 1
    tracker.forget("a")
    assert tracker.known("a") is None and tracker.classify("a", 9) == "new"


def test_subscriber_without_client_reports_gaps() -> None:
    publisher = FakePublisher()
    try:
        with Subscriber(publisher.endpoint, "", versions={"k": 1}, confirm=False) as sub:
            publisher.wait_subscribed()
            publisher.publish(
                "invalidated:k",
                {
                    "event": "invalidated",
                    "layout": "k",
                    "version": 3,
                    "reason": "bounds",
                    "contentSize": {"width": 1, "height": 2},
                },
            )
            publisher.publish(
                "invalidated:k",
                {
                    "event": "invalidated",
                    "layout": "k",
                    "version": 4,
                    "reason": "evicted",
                    "contentSize": {"width": 1, "height": 2},
                },
            )
            first, second = sub.next(EVENT_WAIT), sub.next(EVENT_WAIT)
    finally:
        publisher.close()
    assert isinstance(first, Resync) and first.result is None and first.error is None and first.version == 3
    assert isinstance(second, InvalidatedEvent) and second.reason == "evicted" and second.version == 4
