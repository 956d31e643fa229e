"""Many requests in flight: the sync pipeline and asyncio.gather, replies matched by id."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from layoutd import AsyncClient, Client, InvalidRequest, ops
from layoutd_testkit import FEED_BOUNDS, FEED_SECTIONS, FEED_SPEC, SchemaChecker, Server


def test_pipeline_matches_replies_by_id(client: Client, key: str) -> None:
    client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS)
    # Stateless layouts of very different sizes run in parallel, so their replies may come back in any
    # order; each must reach the request it answers.
    sizes = [20000, 1, 5000, 3, 10000, 2, 7, 1000] * 3
    with client.pipeline() as pipe:
        layouts = [
            pipe.layout(
                bounds=(300, 600), spec={"type": "list", "itemHeight": 10}, sections=[{"count": n}], return_="none"
            )
            for n in sizes
        ]
        queries = [pipe.query(key, items=[[0, i % 2]]) for i in range(10)]
        lists = pipe.list()
    assert all(p.done() for p in layouts + queries)
    assert [p.result().counts.items for p in layouts] == sizes
    assert [p.result().content_size.height for p in layouts] == [10 * n for n in sizes]
    assert [p.result().attributes[0].item for p in queries] == [i % 2 for i in range(10)]  # type: ignore[index]
    assert lists.result().get(key) is not None
    assert client.stray_replies == 0
    results = pipe.results()
    assert len(results) == len(sizes) + 11


def test_pipeline_keeps_errors_per_request(client: Client, schema: SchemaChecker) -> None:
    with schema.allow_invalid_requests():
        pipe = client.pipeline()
        good = pipe.ping()
        bad = pipe.layout(bounds=(300, 600), spec={"type": "list"}, sections=[{"heights": [-1]}])
        also_good = pipe.submit(ops.ping())
        results = pipe.results(return_exceptions=True)
    assert good.result().version and also_good.result().version
    assert isinstance(bad.exception(), InvalidRequest)
    with pytest.raises(InvalidRequest):
        bad.result()
    assert isinstance(results[1], InvalidRequest) and results[0] is good.result()


def test_submit_and_call_low_level(client: Client, key: str) -> None:
    call = ops.prepare(key, bounds=(375, 667), spec={"type": "list"}, sections=[{"count": 3}])
    assert call.op == "prepare" and not call.retryable
    assert ops.update(key, updates=[], if_version=1).retryable and not ops.update(key, updates=[]).retryable
    assert ops.query(key, items=[[0, 0]]).retryable
    pending = client.submit(call)
    assert client.call(ops.ping()).version
    assert pending.result().version == 1


def test_async_client_every_op_and_gather(
    server: Server, make_async_client: Callable[..., AsyncClient], key: str
) -> None:
    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with make_async_client(server.front, stats_endpoints=server.stats) as client:
            out["ping"] = await client.ping()
            out["prepare"] = await client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS)
            out["layout"] = await client.layout(
                bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS, format="columns"
            )
            out["gathered"] = await asyncio.gather(
                *(client.query(key, rect=(0, y, 375, 50)) for y in range(0, 250, 10)),
                *(
                    client.layout(bounds=(200, 400), spec={"type": "list"}, sections=[{"count": n}], return_="none")
                    for n in (5000, 1, 300, 2)
                ),
            )
            out["bounds"] = await client.bounds(key, bounds=(414, 896))
            out["update"] = await client.update(key, if_version=2, updates=[{"delete": [0, 0]}])
            out["diff"] = await client.diff(key, sections=[{"ids": ["b", "q"]}, {"ids": ["c"]}])
            out["list"] = await client.list()
            out["drop"] = await client.drop(key)
            out["stats"] = await client.stats()
            out["metrics"] = await client.metrics()
            try:
                await client.query(key, rect=(0, 0, 1, 1))
            except Exception as error:  # noqa: BLE001 - checked below
                out["gone"] = error
            out["stray"] = client.stray_replies
            out["direct"] = client.direct_stats["direct"]
        return out

    out = asyncio.run(asyncio.wait_for(main(), 30))
    assert out["ping"].version and out["prepare"].version == 1
    assert out["layout"].attributes.kind == ["header", "cell", "cell", "header", "cell"]
    queries, layouts = out["gathered"][:25], out["gathered"][25:]
    for i, answer in enumerate(queries):
        y = i * 10
        expected = [e for e in ((0, 28), (36, 44), (80, 60), (148, 28), (184, 44)) if e[0] < y + 50 and e[0] + e[1] > y]
        assert [(a.y, a.height) for a in answer.attributes] == expected
    assert [r.counts.items for r in layouts] == [5000, 1, 300, 2]
    assert out["bounds"].invalidated and out["update"].version == 3 and out["diff"].version == 4
    assert out["list"].get(key).version == 4 and out["drop"].version == 5
    # (the broker counts the queries its workers' direct endpoints did not answer)
    assert out["stats"].requests["query"] + out["direct"] >= 25 and "layoutd_requests_total" in out["metrics"]
    assert out["gone"].code == "unknown_layout"
    assert out["stray"] == 0


def test_replies_read_late_still_count(server: Server, make_client: Callable[..., Client]) -> None:
    # Collect the replies only after every deadline has passed: the replies are already in the socket,
    # so no failover and no timeout.
    client = make_client(server.front, timeout=0.3)
    pending = [client.submit(ops.ping()) for _ in range(5)]
    probe = make_client(server.front)
    deadline = time.monotonic() + 0.6
    while time.monotonic() < deadline:  # busy elsewhere, past the 0.3 s timeout (bounded loop)
        probe.ping()
    assert all(p.result().version for p in pending)
    assert client.failovers == 0
