"""Failover (Lazy Pirate / Binary Star client side) and the retry rule, against a real daemon."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
import zmq

from layoutd import (
    AsyncClient,
    BatchResult,
    Client,
    OutcomeUnknown,
    Timeout,
    Unavailable,
    UnknownLayout,
    VersionConflict,
)
from layoutd_testkit import FEED_BOUNDS, FEED_SECTIONS, FEED_SPEC, FakeRouter, Server, free_port, reply_frames, tcp

STANDBY = {"ok": False, "error": {"code": "unavailable", "message": "this broker is the STANDBY; ask its peer"}}


def dead_endpoint() -> str:
    """An endpoint nothing listens on."""
    return tcp(free_port())


def prepare_feed(client: Client, key: str) -> int:
    return client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS).version


def test_read_only_moves_to_the_next_endpoint(server: Server, make_client: Callable[..., Client]) -> None:
    client = make_client([dead_endpoint(), server.front], timeout=0.5)
    started = time.monotonic()
    pong = client.ping()
    elapsed = time.monotonic() - started
    assert pong.version
    assert client.endpoint == server.front and client.failovers == 1
    assert 0.45 <= elapsed < 4.0  # one timeout on the dead endpoint, then the live one
    # Later requests go straight to the live endpoint.
    started = time.monotonic()
    client.list()
    assert time.monotonic() - started < 0.45 and client.failovers == 1


def test_change_without_if_version_is_not_retried(server: Server, make_client: Callable[..., Client], key: str) -> None:
    client = make_client([dead_endpoint(), server.front], timeout=0.5)
    with pytest.raises(OutcomeUnknown) as unknown:
        client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS)
    assert unknown.value.code == "timeout" and isinstance(unknown.value.cause, Timeout)
    assert "unknown" in str(unknown.value) and unknown.value.op == "prepare"
    assert client.endpoint == server.front  # moved on, but did not resend the prepare there
    with pytest.raises(UnknownLayout):
        client.query(key, rect=(0, 0, 10, 10))

    live = make_client(server.front)
    assert prepare_feed(live, key) == 1
    mover = make_client([dead_endpoint(), server.front], timeout=0.5)
    with pytest.raises(OutcomeUnknown):
        mover.update(key, updates=[{"delete": [0, 0]}])
    with pytest.raises(OutcomeUnknown):
        make_client([dead_endpoint(), server.front], timeout=0.5).drop(key)
    assert live.query(key, items=[[0, 0]]).version == 1  # neither the update nor the drop was applied


def test_change_with_if_version_is_retried(server: Server, make_client: Callable[..., Client], key: str) -> None:
    live = make_client(server.front)
    version = prepare_feed(live, key)
    client = make_client([dead_endpoint(), server.front], timeout=0.5)
    batch = client.update(key, if_version=version, updates=[{"delete": [0, 0]}])
    assert isinstance(batch, BatchResult) and batch.version == version + 1
    assert client.failovers == 1
    diffed = make_client([dead_endpoint(), server.front], timeout=0.5).diff(
        key, if_version=batch.version, sections=[{"ids": ["b", "z"]}, {"ids": ["c"]}]
    )
    assert diffed.version == version + 2


def swallow(frames: list[bytes]) -> list[list[bytes]]:
    """A FakeRouter handler that takes every request and answers none (a request lost on its way)."""
    return []


def test_every_change_with_if_version_is_retried_after_a_timeout_and_applied_once(
    server: Server, make_client: Callable[..., Client], key: str
) -> None:
    # The first endpoint takes each request and never answers; the client times out, moves to the real
    # daemon and sends the same change there (same ifVersion): applied there, once.
    with FakeRouter(swallow) as lost:

        def client() -> Client:
            return make_client([lost.endpoint, server.front], timeout=0.5, attempts=2)

        first = client()
        prepared = first.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS, if_version=0)
        assert prepared.version == 1 and first.failovers == 1 and first.endpoint == server.front
        resized = client().bounds(key, bounds=(414, 896), if_version=1)
        assert resized.invalidated and resized.version == 2
        replaced = client().prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS, if_version=2)
        assert replaced.version == 3
        dropped = client().drop(key, if_version=3)
        assert dropped.version == 4
        assert [(r["op"], r.get("ifVersion")) for r in lost.requests()] == [
            ("prepare", 0),
            ("bounds", 1),
            ("prepare", 2),
            ("drop", 3),
        ]

    live = make_client(server.front)
    with pytest.raises(UnknownLayout):
        live.query(key, rect=(0, 0, 1, 1))
    # Each change was applied once: the versions rose by one each, and the key is at 4 (its drop's).
    assert live.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS, if_version=4).version == 5
    # A replayed change finds the version moved on: refused at path ifVersion, nothing applied.
    for replay in (
        lambda: live.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS, if_version=0),
        lambda: live.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS, if_version=4),
        lambda: live.bounds(key, bounds=(320, 480), if_version=1),
        lambda: live.update(key, updates=[{"delete": [0, 0]}], if_version=3),
        lambda: live.diff(key, sections=[{"ids": ["a"]}], if_version=2),
        lambda: live.drop(key, if_version=3),
    ):
        with pytest.raises(VersionConflict) as conflict:
            replay()
        assert conflict.value.path == "ifVersion" and conflict.value.code == "version_conflict"
    assert live.query(key, items=[[0, 0]]).version == 5
    assert live.drop(key, if_version=5).version == 6
    # A replayed drop of a layout no longer kept: unknown_layout (PROTOCOL.md says version_conflict).
    with pytest.raises(UnknownLayout):
        live.drop(key, if_version=5)


class Forwarder:
    """A FakeRouter handler that passes each request on to a real daemon and throws its reply away: the
    change is applied, and its answer lost on the way back."""

    def __init__(self, front: str) -> None:
        self.dealer = zmq.Context.instance().socket(zmq.DEALER)
        self.dealer.linger = 0
        self.dealer.connect(front)
        self.forward([b"", b'{"v":1,"id":"warm-up","op":"ping"}'])  # connected before the test starts

    def forward(self, frames: list[bytes]) -> None:
        self.dealer.send_multipart(frames)
        if not self.dealer.poll(10_000, zmq.POLLIN):
            raise AssertionError("the daemon did not answer the forwarded request within 10s")
        self.dealer.recv_multipart()

    def __call__(self, frames: list[bytes]) -> list[list[bytes]]:
        self.forward(frames)
        return []

    def close(self) -> None:
        self.dealer.close(linger=0)


def test_a_retried_change_whose_first_copy_was_applied_is_refused(
    server: Server, make_client: Callable[..., Client], key: str
) -> None:
    # The first copy reaches the daemon and is applied, but its reply is lost; the retry, with the same
    # ifVersion, is refused: the change is applied at most once, and the caller learns it from the conflict.
    forwarder = Forwarder(server.front)
    try:
        with FakeRouter(forwarder) as lossy:
            client = make_client([lossy.endpoint, server.front], timeout=1.0, attempts=2)
            with pytest.raises(VersionConflict) as conflict:
                client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS, if_version=0)
            assert conflict.value.path == "ifVersion" and client.failovers == 1
            assert len(lossy.received) == 1
    finally:
        forwarder.close()
    live = make_client(server.front)
    assert live.query(key, items=[[0, 0]]).version == 1  # applied once, by the first copy


def test_every_endpoint_dead_is_a_bounded_timeout(make_client: Callable[..., Client]) -> None:
    client = make_client([dead_endpoint(), dead_endpoint()], timeout=0.2, attempts=3)
    started = time.monotonic()
    with pytest.raises(Timeout) as timeout:
        client.ping()
    assert time.monotonic() - started < 3.0
    assert len(timeout.value.endpoints) == 3 and timeout.value.code == "timeout"
    assert isinstance(timeout.value, TimeoutError)


def test_in_flight_requests_follow_a_failover(server: Server, make_client: Callable[..., Client], key: str) -> None:
    live = make_client(server.front)
    prepare_feed(live, key)
    client = make_client([dead_endpoint(), server.front], timeout=0.5)
    pipe = client.pipeline()
    pings = [pipe.ping() for _ in range(3)]
    query = pipe.query(key, items=[[0, 1]])
    change = pipe.update(key, updates=[{"delete": [0, 0]}])
    pipe.wait()
    assert all(p.result().version for p in pings)
    assert query.result().version == 1
    with pytest.raises(OutcomeUnknown) as unknown:
        change.result()
    assert "replaced" in unknown.value.message or "no reply" in unknown.value.message
    assert client.failovers == 1


def standby_handler(frames: list[bytes]) -> list[list[bytes]]:
    return [reply_frames(frames, STANDBY)]


def test_standby_answer_moves_to_the_next_endpoint(
    server: Server, make_client: Callable[..., Client], key: str
) -> None:
    with FakeRouter(standby_handler) as standby:
        client = make_client([standby.endpoint, server.front], timeout=2.0)
        started = time.monotonic()
        assert client.ping().version
        assert time.monotonic() - started < 1.5  # no timeout: the standby's answer moved it at once
        assert client.endpoint == server.front and len(standby.received) == 1

        live = make_client(server.front)
        version = prepare_feed(live, key)
        retried = make_client([standby.endpoint, server.front], timeout=2.0)
        assert retried.update(key, if_version=version, updates=[{"delete": [0, 0]}]).version == version + 1

        # A standby applied nothing: a change it answered goes on, ifVersion or not.
        sent_on = make_client([standby.endpoint, server.front], timeout=2.0)
        assert sent_on.update(key, updates=[{"delete": [0, 0]}]).version == version + 2
        assert sent_on.endpoint == server.front
        assert live.query(key, items=[[0, 0]]).version == version + 2

        ops = [r["op"] for r in standby.requests()]
        assert ops == ["ping", "update", "update"]


def test_standby_everywhere_gives_up_with_the_answer(make_client: Callable[..., Client]) -> None:
    with FakeRouter(standby_handler) as first, FakeRouter(standby_handler) as second:
        client = make_client([first.endpoint, second.endpoint], timeout=2.0, attempts=4, backoff=0.01)
        started = time.monotonic()
        with pytest.raises(Unavailable) as unavailable:
            client.ping()
        assert unavailable.value.standby and time.monotonic() - started < 2.0
        assert len(first.received) + len(second.received) == 4


def test_async_failover_and_retry_rule(
    server: Server, make_async_client: Callable[..., AsyncClient], make_client: Callable[..., Client], key: str
) -> None:
    live = make_client(server.front)
    version = prepare_feed(live, key)
    other = f"{key}-new"

    async def main(lost: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with make_async_client([dead_endpoint(), server.front], timeout=0.5) as client:
            out["ping"] = await client.ping()
            out["failovers"] = client.failovers
        async with make_async_client([dead_endpoint(), server.front], timeout=0.5) as client:
            try:
                await client.update(key, updates=[{"delete": [0, 0]}])
            except OutcomeUnknown as error:
                out["unknown"] = error
        async with make_async_client([dead_endpoint(), server.front], timeout=0.5) as client:
            out["retried"] = await client.update(key, if_version=version, updates=[{"delete": [0, 0]}])
        async with make_async_client([lost, server.front], timeout=0.5, attempts=2) as client:
            out["prepared"], out["bounds"] = await asyncio.gather(
                client.prepare(other, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS, if_version=0),
                client.bounds(key, bounds=(414, 896), if_version=version + 1),
            )
            out["dropped"] = await client.drop(other, if_version=1)  # on the live endpoint now
            out["async_failovers"] = client.failovers
        return out

    with FakeRouter(swallow) as lost:
        out = asyncio.run(asyncio.wait_for(main(lost.endpoint), 20))
        swallowed = sorted(r["op"] for r in lost.requests())
    assert out["ping"].version and out["failovers"] == 1
    assert isinstance(out["unknown"], OutcomeUnknown) and isinstance(out["unknown"].cause, Timeout)
    assert out["retried"].version == version + 1  # the update without ifVersion was not applied
    assert out["prepared"].version == 1 and out["bounds"].version == version + 2 and out["dropped"].version == 2
    assert swallowed == ["bounds", "prepare"] and out["async_failovers"] == 1
    assert live.query(key, items=[[0, 0]]).version == version + 2


def test_async_standby_answer_moves_on(
    server: Server, make_async_client: Callable[..., AsyncClient], make_client: Callable[..., Client], key: str
) -> None:
    live = make_client(server.front)
    version = prepare_feed(live, key)

    async def main(standby: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with make_async_client([standby, server.front], timeout=2.0) as client:
            started = time.monotonic()
            pings = await asyncio.gather(*(client.ping() for _ in range(5)))
            out["elapsed"] = time.monotonic() - started
            out["pings"] = pings
            out["endpoint"] = client.endpoint
        async with make_async_client([standby, server.front], timeout=2.0) as client:
            out["dropped"] = await client.drop(key)  # a standby applied nothing: the drop goes on
        return out

    with FakeRouter(standby_handler) as standby:
        out = asyncio.run(asyncio.wait_for(main(standby.endpoint), 20))
    assert len(out["pings"]) == 5 and all(p.version for p in out["pings"])
    assert out["elapsed"] < 1.5 and out["endpoint"] == server.front
    assert out["dropped"].version == version + 1
    with pytest.raises(UnknownLayout):
        live.query(key, items=[[0, 0]])  # dropped on the live daemon
