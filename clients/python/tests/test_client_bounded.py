"""Bounded in-flight requests (issue 34): any number of pipelined requests completes at the wire's rate,
never past the daemon's send high-water mark (10,000 replies), so no reply is dropped and none waits out a
timeout."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from layoutd import AsyncClient, Client, InvalidInput, QueryResult
from layoutd_testkit import FEED_BOUNDS, FEED_SECTIONS, FEED_SPEC, FakeRouter, Server, reply_frames, wait_until

#: More than twice the daemon's send high-water mark: unbounded, thousands of replies would be dropped.
MANY = 25_000


def rect(i: int) -> tuple[float, float, float, float]:
    return (0.0, float(i % 50), 375.0, 40.0)


def test_a_pipeline_far_past_the_high_water_mark_loses_no_reply(
    single_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    client = make_client(single_server.front, timeout=20.0, direct_reads="off", hooks=None)
    client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS)
    with client.pipeline() as pipe:
        answers = [pipe.query(key, rect=rect(i)) for i in range(MANY)]
        assert len(client._pending) <= client.max_in_flight  # it read replies while it sent
    results = [a.result() for a in answers]
    assert all(isinstance(r, QueryResult) and r.version == 1 for r in results)
    assert (client.failovers, client.stray_replies) == (0, 0)
    # Replies in order of the requests: each query's elements are those of its own rect.
    assert [len(r.attributes) for r in results[:50]] == [
        len(client.query(key, rect=rect(i)).attributes) for i in range(50)
    ]


def test_asyncio_gather_far_past_the_high_water_mark_loses_no_reply(
    single_server: Server, make_async_client: Callable[..., AsyncClient], key: str
) -> None:
    async def main() -> None:
        async with make_async_client(single_server.front, timeout=20.0, direct_reads="off", hooks=None) as client:
            await client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS)
            results = await asyncio.gather(*(client.query(key, rect=rect(i)) for i in range(MANY)))
            assert all(r.version == 1 for r in results)
            assert (client.failovers, client.stray_replies) == (0, 0)

    asyncio.run(asyncio.wait_for(main(), 300))


def test_no_more_than_max_in_flight_reach_the_wire() -> None:
    """A front that holds every request and answers them only once it holds 4: with ``max_in_flight=3``
    the fourth is never sent before a reply comes, so the client times the first out instead."""
    held: list[list[bytes]] = []

    def handler(frames: list[bytes]) -> list[list[bytes]]:
        held.append(frames)
        if len(held) < 4:
            return []
        replies = [reply_frames(f, {"ok": True, "result": {"version": 1, "attributes": []}}) for f in held]
        held.clear()
        return replies

    with (
        FakeRouter(handler) as front,
        Client(front.endpoint, timeout=0.5, attempts=1, max_in_flight=3, direct_reads="off") as client,
    ):
        with client.pipeline() as pipe:
            answers = [pipe.query("k", items=[[0, 0]]) for _ in range(3)]
            wait_until(lambda: len(front.received) == 3, 10, "three requests at the front")
            fourth = pipe.query("k", items=[[0, 0]])  # waits for room: the first three time out
        assert [type(a.exception()).__name__ for a in answers] == ["Timeout"] * 3
        assert len(front.received) == 4 and fourth.done()


def test_max_in_flight_is_checked(single_server: Server) -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InvalidInput) as failure:
            Client(single_server.front, max_in_flight=bad)  # type: ignore[arg-type]
        assert failure.value.path == "max_in_flight"


def test_asyncio_callers_past_max_in_flight_wait_in_line() -> None:
    """A front that answers nothing, ``max_in_flight=2``, four queries: two reach the front, two wait in
    line; one cancelled in line never goes out, and closing the client fails the other as a call that found
    it closed (the two sent time out as closed)."""

    async def main() -> None:
        with FakeRouter(lambda frames: []) as front:
            client = AsyncClient(front.endpoint, timeout=30.0, attempts=1, max_in_flight=2, direct_reads="off")
            calls = [asyncio.ensure_future(client.query("k", items=[[0, 0]])) for _ in range(4)]
            for _ in range(1000):  # a bounded poll: the loop runs the calls, the front's thread counts them
                if len(front.received) == 2 and len(client._line) == 2:
                    break
                await asyncio.sleep(0.01)
            assert len(front.received) == 2 and len(client._line) == 2
            calls[2].cancel()
            outcomes = await asyncio.gather(calls[2], return_exceptions=True)
            assert isinstance(outcomes[0], asyncio.CancelledError)
            await client.aclose()
            outcomes = await asyncio.gather(*calls, return_exceptions=True)
            assert [type(o).__name__ for o in outcomes] == ["Timeout", "Timeout", "CancelledError", "RuntimeError"]
            assert len(front.received) == 2  # neither call in line went out
            assert client._in_flight == 0 and not client._line

    asyncio.run(asyncio.wait_for(main(), 60))
