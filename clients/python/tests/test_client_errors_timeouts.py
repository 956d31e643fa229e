"""Errors that pickle, local input errors with the daemon's paths, and timeouts (issue 34)."""

from __future__ import annotations

import asyncio
import json
import math
import pickle
from collections.abc import Callable

import pytest
import zmq

from layoutd import (
    AsyncClient,
    Client,
    DecodeError,
    InvalidInput,
    LayoutdError,
    OutcomeUnknown,
    Timeout,
    UnknownLayout,
)
from layoutd_testkit import FEED_BOUNDS, FEED_SECTIONS, FEED_SPEC, FakeRouter, Server


def round_trip(error: LayoutdError) -> LayoutdError:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and copy == error and str(copy) == str(error)
    assert (copy.code, copy.message, copy.path, copy.op, copy.request_id) == (
        error.code,
        error.message,
        error.path,
        error.op,
        error.request_id,
    )
    return copy  # type: ignore[no-any-return]


def test_every_error_pickles_and_round_trips_equal(
    single_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    client = make_client(single_server.front)
    with pytest.raises(UnknownLayout) as unknown:
        client.query(key, rect=(0, 0, 1, 1))
    assert round_trip(unknown.value).reply == unknown.value.reply
    with FakeRouter(lambda frames: []) as silent, Client(silent.endpoint, timeout=0.1, attempts=1) as lost:
        with pytest.raises(Timeout) as timeout:
            lost.ping()
        assert round_trip(timeout.value).endpoints == timeout.value.endpoints
        assert not str(pickle.loads(pickle.dumps(timeout.value))).startswith("timeout: timeout:")
        with pytest.raises(OutcomeUnknown) as unknown_outcome:
            lost.update(key, updates=[{"delete": [0, 0]}])
        assert round_trip(unknown_outcome.value).cause == unknown_outcome.value.cause
    with FakeRouter(lambda frames: [[b"", b"not json"]]) as garbled, Client(garbled.endpoint) as bad:
        with pytest.raises(DecodeError) as decode:
            bad.ping()
        round_trip(decode.value)
    with pytest.raises(InvalidInput) as invalid:
        client.query(key, rect=(0, 0, 1))
    round_trip(invalid.value)


def daemon_path(front: str, body: bytes) -> str | None:
    """The ``path`` the daemon gives for a raw request ``body``."""
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.linger = 0
    try:
        dealer.connect(front)
        dealer.send_multipart([b"", body])
        assert dealer.poll(10_000), "no reply from the daemon"
        reply = json.loads(dealer.recv_multipart()[-1])
        assert reply["ok"] is False
        return reply["error"].get("path")  # type: ignore[no-any-return]
    finally:
        dealer.close(linger=0)


def test_non_finite_numbers_are_refused_at_the_daemons_path(
    single_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    client = make_client(single_server.front)
    sections = [{"count": 3, "heights": [44.0, math.nan, 44.0]}]
    with pytest.raises(InvalidInput) as nan:
        client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=sections)
    body = (
        f'{{"v":1,"id":1,"op":"prepare","layout":"{key}","bounds":{{"width":375,"height":667}},'
        f'"spec":{json.dumps(FEED_SPEC)},"sections":[{{"count":3,"heights":[44,1e999,44]}}]}}'
    ).encode()
    assert nan.value.path == daemon_path(single_server.front, body) == "sections[0].heights[1]"
    assert isinstance(nan.value, ValueError) and nan.value.code == "invalid_request"

    client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS)
    with pytest.raises(InvalidInput) as inf:
        client.query(key, rect=(0, math.inf, 375, 667))
    body = f'{{"v":1,"id":2,"op":"query","layout":"{key}","rect":{{"x":0,"y":1e999,"width":375,"height":667}}}}'
    assert inf.value.path == daemon_path(single_server.front, body.encode()) == "rect.y"


def test_local_input_errors_are_layoutd_errors_with_a_path(
    single_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    client = make_client(single_server.front)
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: client.query(key, rect=(0, 0, 1)), "rect"),
        (lambda: client.bounds(key, bounds=(1, 2, 3)), "bounds"),
        (lambda: client.query(key, rect=(0, 0, 1, 1), timeout=-1), "timeout"),
        (lambda: client.query(key, rect=(0, 0, 1, 1), extra={"x": object()}), "x"),
        (lambda: client.stats(), "stats_endpoints"),
        (lambda: client.list(limit=0), "limit"),
        (lambda: Client([]), "endpoints"),
        (lambda: Client(single_server.front, timeout=math.nan), "timeout"),
        (lambda: Client(single_server.front, attempts=0), "attempts"),
    ]
    for action, path in cases:
        with pytest.raises(LayoutdError) as failure:
            action()
        assert isinstance(failure.value, InvalidInput) and failure.value.path == path, (path, failure.value)


def test_every_op_takes_a_timeout_and_zero_means_zero() -> None:
    with (
        FakeRouter(lambda frames: []) as silent,
        Client(silent.endpoint, timeout=60, attempts=1, direct_reads="off") as client,
    ):
        for op in (
            lambda: client.ping(timeout=0),
            lambda: client.query("k", items=[[0, 0]], timeout=0),
            lambda: client.list(timeout=0),
            lambda: client.drop("k", if_version=1, timeout=0),
        ):
            with pytest.raises(Timeout) as failure:
                op()
            assert "within 0s" in failure.value.message or "of 0s" in failure.value.message
        zero = Client(silent.endpoint, timeout=0, attempts=1, stats_endpoints=silent.endpoint)
        with pytest.raises(Timeout) as stats:
            zero.stats()
        assert "of 0s" in stats.value.message
        zero.close()


def test_a_deadline_bounds_every_attempt() -> None:
    """``deadline`` equal to ``timeout``: one attempt however many are allowed, for the client's deadline
    and for an op's."""
    with FakeRouter(lambda frames: []) as silent:
        with Client(silent.endpoint, timeout=0.2, attempts=5, deadline=0.2, direct_reads="off") as client:
            with pytest.raises(Timeout):
                client.ping()
        assert len(silent.received) == 1
        with Client(silent.endpoint, timeout=0.2, attempts=5, direct_reads="off") as client:
            with pytest.raises(Timeout):
                client.query("k", items=[[0, 0]], deadline=0.2)
        assert len(silent.received) == 2

        async def main() -> None:
            async with AsyncClient(silent.endpoint, timeout=0.2, attempts=5, direct_reads="off") as aclient:
                with pytest.raises(Timeout):
                    await aclient.ping(deadline=0.2)

        asyncio.run(asyncio.wait_for(main(), 30))
        assert len(silent.received) == 3
