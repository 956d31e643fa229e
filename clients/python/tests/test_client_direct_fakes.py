"""Direct reads (PROTOCOL.md §11, issue 25) against fake peers: a front and a direct endpoint that answer as
told (what a client sends them, an owner refusing or silent, a silent front)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from layoutd import AsyncClient, Client, Timeout
from layoutd_testkit import FakeRouter, reply_frames

EPOCH = 5


def body(frames: list[bytes]) -> dict[str, Any]:
    return json.loads(frames[1] if frames[0] == b"" else frames[0])  # type: ignore[no-any-return]


class FakeCluster:
    """A fake broker front whose route table names key ``k`` at a fake worker's direct endpoint, which
    answers each query with ``direct_answer(request)`` (None: no answer). The front answers queries with
    version 1, and ``prepare`` with the next of ``prepared`` versions."""

    def __init__(self, direct_answer: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
        self.prepared = iter(range(7, 100))
        self.direct = FakeRouter(self._direct)
        self.direct_answer = direct_answer
        self.front = FakeRouter(self._front)

    def _direct(self, frames: list[bytes]) -> list[list[bytes]]:
        answer = self.direct_answer(body(frames))
        return [] if answer is None else [reply_frames(frames, answer)]

    def _front(self, frames: list[bytes]) -> list[list[bytes]]:
        request = body(frames)
        if request["op"] == "route":
            keys = [{"layout": "k", "epoch": EPOCH, "version": 1, "worker": "w0"}]
            if request.get("layout") not in (None, "k"):
                keys = []
            table = {
                "version": 1,
                "epoch": EPOCH,
                "workers": [{"worker": "w0", "direct": self.direct.endpoint}],
                "keys": keys,
            }
            return [reply_frames(frames, {"ok": True, "result": table})]
        if request["op"] == "prepare":
            return [
                reply_frames(
                    frames, {"ok": True, "result": {"layout": request["layout"], "version": next(self.prepared)}}
                )
            ]
        return [reply_frames(frames, {"ok": True, "result": {"version": 1, "attributes": []}})]

    def front_ops(self) -> list[tuple[str, Any]]:
        return [(r["op"], r.get("layout")) for r in self.front.requests()]

    def close(self) -> None:
        self.front.close()
        self.direct.close()


@pytest.fixture
def fake_cluster() -> Iterator[Callable[..., FakeCluster]]:
    made: list[FakeCluster] = []

    def make(direct_answer: Callable[[dict[str, Any]], dict[str, Any] | None]) -> FakeCluster:
        made.append(FakeCluster(direct_answer))
        return made[-1]

    yield make
    for cluster in made:
        cluster.close()


def test_fake_owner_answers_with_epoch_and_min_version(fake_cluster: Callable[..., FakeCluster]) -> None:
    cluster = fake_cluster(lambda r: {"ok": True, "result": {"version": 9, "attributes": []}})
    with Client(cluster.front.endpoint, timeout=2.0) as client:
        assert client.request("prepare", {"layout": "k"})["version"] == 7
        assert client.query("k", items=[[0, 0]]).version == 9  # the owner's answer
        assert client.query("k", items=[[0, 0]]).version == 9
        client.request("prepare", {"layout": "k"})  # version 8: k is looked up again before its next read
        assert client.query("k", items=[[0, 0]]).version == 9
        assert client.direct_stats == {"direct": 3, "fallback": 0, "routes": 2}
    assert cluster.front_ops() == [("prepare", "k"), ("route", "k"), ("prepare", "k"), ("route", "k")]
    sent = cluster.direct.requests()
    assert [(r["op"], r["layout"], r["epoch"], r["minVersion"]) for r in sent] == [
        ("query", "k", EPOCH, 7),
        ("query", "k", EPOCH, 9),
        ("query", "k", EPOCH, 9),
    ]


@pytest.mark.parametrize("code", ["moved", "behind"])
def test_fake_owner_refusing_sends_the_read_to_the_front(fake_cluster: Callable[..., FakeCluster], code: str) -> None:
    cluster = fake_cluster(lambda r: {"ok": False, "error": {"code": code, "message": "ask the broker"}})
    with Client(cluster.front.endpoint, timeout=2.0) as client:
        assert client.query("k", items=[[0, 0]]).version == 1  # the front's answer
        assert client.query("k", items=[[0, 0]]).version == 1
        assert client.direct_stats == {"direct": 0, "fallback": 2, "routes": 2 if code == "moved" else 1}
    # After `moved` the key is looked up again; after `behind` the table still holds.
    routes = [("route", "k")] * (2 if code == "moved" else 1)
    assert [op for op in cluster.front_ops() if op[0] == "route"] == routes
    assert [op for op in cluster.front_ops() if op[0] == "query"] == [("query", "k")] * 2
    assert len(cluster.direct.requests()) == 2


def test_fake_owner_silent_times_out_within_the_bound(fake_cluster: Callable[..., FakeCluster]) -> None:
    cluster = fake_cluster(lambda r: None)
    timeout, direct_timeout = 2.0, 0.2
    with Client(cluster.front.endpoint, timeout=timeout, direct_timeout=direct_timeout) as client:
        for _ in range(2):
            started = time.monotonic()
            assert client.query("k", items=[[0, 0]]).version == 1
            assert time.monotonic() - started < direct_timeout + timeout  # the bound: never more
        assert client.direct_stats == {"direct": 0, "fallback": 2, "routes": 2}
        assert not client._direct  # closed after each timeout: a late answer cannot meet the next read
    assert len(cluster.direct.requests()) == 2


def test_async_fake_owner_silent_and_answering(fake_cluster: Callable[..., FakeCluster]) -> None:
    answers: list[dict[str, Any] | None] = [None]
    cluster = fake_cluster(lambda r: answers[0])

    async def main() -> None:
        async with AsyncClient(cluster.front.endpoint, timeout=2.0, direct_timeout=0.2) as client:
            results = await asyncio.gather(*(client.query("k", items=[[0, 0]]) for _ in range(4)))
            assert [r.version for r in results] == [1] * 4 and client.direct_stats["fallback"] == 4
            answers[0] = {"ok": True, "result": {"version": 3, "attributes": []}}
            results = await asyncio.gather(*(client.query("k", items=[[0, 0]]) for _ in range(4)))
            assert [r.version for r in results] == [3] * 4 and client.direct_stats["direct"] == 4
            # One shared `route` per gather (the first table, then again after the timeouts).
            assert client.direct_stats["routes"] == 2

    asyncio.run(asyncio.wait_for(main(), 30))


@pytest.mark.parametrize("use_async", [False, True])
def test_a_silent_front_fails_the_query_without_sending_it(use_async: bool) -> None:
    with FakeRouter(lambda frames: []) as front:
        if use_async:

            async def main() -> None:
                async with AsyncClient(front.endpoint, timeout=0.3, attempts=2) as client:
                    await client.query("k", items=[[0, 0]])

            with pytest.raises(Timeout) as failure:
                asyncio.run(asyncio.wait_for(main(), 30))
        else:
            with Client(front.endpoint, timeout=0.3, attempts=2) as client, pytest.raises(Timeout) as failure:
                client.query("k", items=[[0, 0]])
        assert failure.value.op == "query"
        assert [r["op"] for r in front.requests()] == ["route", "route"]
