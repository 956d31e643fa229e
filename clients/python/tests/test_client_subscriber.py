"""Subscribers (issue 34): confirmed subscriptions (PROTOCOL.md §7), exact topics, unknown event kinds
skipped, iteration, and resyncs that never touch the caller's client."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator

import pytest
import zmq

from layoutd import (
    AsyncClient,
    AsyncSubscriber,
    BatchEvent,
    Client,
    Event,
    OtherEvent,
    Resync,
    Subscriber,
    Timeout,
    ops,
)
from layoutd_testkit import FEED_BOUNDS, FEED_SECTIONS, FEED_SPEC, Server, free_port, tcp

EVENT_WAIT = 10.0


def prepare(client: Client, key: str) -> int:
    return client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS).version


class FakePublisher:
    """A PUB socket on a free port that publishes ``events`` (topic, body) again and again, from a thread of
    its own, until closed: whatever a subscriber's slow join misses comes again."""

    def __init__(self, events: list[tuple[str, dict[str, object]]]) -> None:
        self.endpoint = tcp(free_port())
        self.events = events
        self._stop = threading.Event()
        self._bound = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._bound.wait(10), "the fake publisher did not start"

    def _run(self) -> None:
        pub = zmq.Context.instance().socket(zmq.PUB)
        pub.linger = 0
        try:
            pub.bind(self.endpoint)
            self._bound.set()
            while not self._stop.wait(0.02):  # the interval of a republishing loop
                for topic, body in self.events:
                    pub.send_multipart([topic.encode(), json.dumps(body).encode()])
        finally:
            pub.close(linger=0)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)


@pytest.fixture
def publisher() -> Iterator[Callable[[list[tuple[str, dict[str, object]]]], FakePublisher]]:
    made: list[FakePublisher] = []

    def make(events: list[tuple[str, dict[str, object]]]) -> FakePublisher:
        made.append(FakePublisher(events))
        return made[-1]

    yield make
    for pub in made:
        pub.close()


def test_unknown_event_kinds_are_skipped_and_kept(publisher: Callable[..., FakePublisher]) -> None:
    pub = publisher(
        [
            ("route", {"event": "route", "version": 7}),
            ("batch:feed", {"event": "batch", "layout": "feed", "version": 2}),
        ]
    )
    with Subscriber(pub.endpoint, confirm=False) as sub:
        item = sub.next(EVENT_WAIT)  # the route event (no `layout`) never raises
        assert isinstance(item, BatchEvent) and item.layout == "feed"
        assert any(o.topic == "route" and o.event == "route" and o.raw["version"] == 7 for o in sub.others)
    with Subscriber(pub.endpoint, confirm=False, yield_others=True) as sub:
        kinds = {type(sub.next(EVENT_WAIT)) for _ in range(6)}
        assert OtherEvent in kinds


def test_an_unconfirmed_subscription_times_out(publisher: Callable[..., FakePublisher]) -> None:
    pub = publisher([("batch:feed", {"event": "batch", "layout": "feed", "version": 2})])
    with pytest.raises(Timeout) as failure:
        Subscriber(pub.endpoint, confirm_timeout=0.3)
    assert "confirm" in failure.value.message


def test_a_confirmed_subscription_misses_no_event(server: Server, make_client: Callable[..., Client], key: str) -> None:
    """Five times over: a new subscriber, then at once a change; its event arrives every time."""
    client = make_client(server.front)
    version = prepare(client, key)
    for i in range(5):
        with Subscriber(server.events, topics=[f"batch:{key}"], client=client) as sub:
            assert sub.ready
            insert = [{"insert": [0, 0], "item": {"id": f"new-{i}"}}]
            version = client.update(key, updates=insert, if_version=version).version
            item = sub.next(EVENT_WAIT)
            assert isinstance(item, BatchEvent) and (item.layout, item.version) == (key, version)


def test_everything_on_a_cluster_with_route_events(
    cluster_direct_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    """A subscriber of every topic on a cluster with direct endpoints sees `route` events (and other
    subscribers' confirmations) among its own: it skips them, and hands over the batches."""
    client = make_client(cluster_direct_server.front)
    with Subscriber(cluster_direct_server.events, client=client) as sub:
        versions = {}
        for i in range(4):  # new keys: the route table changes
            versions[f"{key}-{i}"] = prepare(client, f"{key}-{i}")
            sub.track(f"{key}-{i}", versions[f"{key}-{i}"])
        with Subscriber(cluster_direct_server.events, ["batch:"]):  # another's confirmation, seen by sub
            pass
        for name, version in versions.items():
            client.update(name, updates=[{"delete": [0, 0]}], if_version=version)
        seen = set()
        for item in sub.iter(idle_timeout=EVENT_WAIT):
            assert isinstance(item, (Event, Resync))
            seen.add(item.layout)
            if seen >= set(versions):
                break
        assert seen >= set(versions)


def test_exact_topics_deliver_that_key_alone(
    single_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    client = make_client(single_server.front)
    versions = {name: prepare(client, name) for name in (key, f"{key}-full", f"{key}x")}
    with Subscriber(single_server.events, [f"invalidated:{key}-"], topics=[f"batch:{key}"]) as sub:
        for name, version in versions.items():
            client.update(name, updates=[{"delete": [0, 0]}], if_version=version)
        client.bounds(f"{key}-full", bounds=(414, 896))
        got = [sub.next(EVENT_WAIT), sub.next(EVENT_WAIT)]
        assert [(type(e).__name__, e.topic) for e in got if e is not None] == [
            ("BatchEvent", f"batch:{key}"),
            ("InvalidatedEvent", f"invalidated:{key}-full"),
        ]
        assert sub.next(0.3) is None


def test_iterating_a_subscriber(single_server: Server, make_client: Callable[..., Client], key: str) -> None:
    client = make_client(single_server.front)
    version = prepare(client, key)
    with Subscriber(single_server.events, topics=[f"batch:{key}"]) as sub:
        client.update(key, updates=[{"delete": [0, 0]}], if_version=version)
        for item in sub:
            assert isinstance(item, BatchEvent) and item.version == version + 1
            break

    async def main() -> None:
        async with (
            AsyncClient(single_server.front) as aclient,
            AsyncSubscriber(single_server.events, topics=[f"batch:{key}"], client=aclient) as asub,
        ):
            assert asub.ready
            await aclient.update(key, updates=[{"delete": [0, 0]}], if_version=version + 1)
            async for item in asub:
                assert isinstance(item, BatchEvent) and item.version == version + 2
                break

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_resync_does_not_read_the_callers_client(
    single_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    """The resync query goes through a client of the subscriber's own: a request the caller has in flight
    on its client is not read (nor answered) by the subscriber."""
    client = make_client(single_server.front, direct_reads="off")
    version = prepare(client, key)
    with Subscriber(single_server.events, topics=[f"batch:{key}"], client=client) as sub:
        sub.tracker.reset(key, version - 1)  # as if an event were missed: the next one is a gap
        pending = client.submit(ops.ping())
        make_client(single_server.front).update(key, updates=[{"delete": [0, 0]}])
        item = sub.next(EVENT_WAIT)
        assert isinstance(item, Resync) and item.result is not None and item.version == version + 1
        assert not pending.done()  # nobody read the caller's socket
        assert pending.result().version
