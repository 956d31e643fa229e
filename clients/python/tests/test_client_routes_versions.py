"""No stray probes (decision A), route lookups of the keys read (D), monotonic reads (E) and `list` in
pages (C): issue 34, against real daemons and fake fronts."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from layoutd import Behind, Client, Hooks, Timeout
from layoutd_testkit import FEED_BOUNDS, FEED_SECTIONS, FEED_SPEC, FakeRouter, Server, reply_frames


def prepare(client: Client, key: str) -> int:
    return client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS).version


class Sent:
    """A request hook keeping every request object."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def hooks(self) -> Hooks:
        return Hooks(request=lambda obj: self.requests.append(dict(obj)))

    def ops(self, op: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["op"] == op]


def test_a_single_daemon_counts_no_error_for_new_clients(
    single_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    stats = make_client(single_server.front, stats_endpoints=single_server.stats)
    prepare(stats, key)
    before = stats.stats().errors
    for _ in range(5):  # new clients, each telling the daemon apart once
        sent = Sent()
        client = make_client(single_server.front, hooks=sent.hooks())
        for _ in range(3):
            client.query(key, items=[[0, 0]])
        assert len(sent.ops("route")) == 1 and not client._direct
    assert stats.stats().errors == before


def test_lookups_name_the_keys_read_and_a_move_costs_one(
    cluster_direct_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    sent = Sent()
    client = make_client(cluster_direct_server.front, hooks=sent.hooks())
    keys = [f"{key}-{i}" for i in range(3)]
    for name in keys:
        prepare(client, name)
    for name in keys:
        client.query(name, items=[[0, 0]])
    routes = sent.ops("route")
    assert routes and all(r.get("layout") in keys or set(r.get("layouts", ())) <= set(keys) for r in routes)
    assert all("layout" in r or "layouts" in r for r in routes)  # never the whole table

    # The table names an epoch the owner's copy is not of (as after a move): `moved`, one lookup of that key.
    table = client._router.table
    assert table is not None
    entry = table.entries[keys[0]]
    table.entries[keys[0]] = type(entry)(entry.epoch - 1, entry.endpoint)
    client.query(keys[0], items=[[0, 0]])
    count = len(sent.ops("route"))
    client.query(keys[0], items=[[0, 0]])
    client.query(keys[1], items=[[0, 0]])
    after = sent.ops("route")[count:]
    assert [r.get("layout") for r in after] == [keys[0]]


def test_a_silent_front_says_no_reply_not_route_table() -> None:
    with FakeRouter(lambda frames: []) as front, Client(front.endpoint, timeout=0.2, attempts=1) as client:
        with pytest.raises(Timeout) as failure:
            client.query("k", items=[[0, 0]])
        assert "route" not in failure.value.message and failure.value.op == "query"


def test_reads_carry_the_newest_version_seen(
    single_server: Server, make_client: Callable[..., Client], key: str
) -> None:
    sent = Sent()
    client = make_client(single_server.front, hooks=sent.hooks(), direct_reads="off")
    version = prepare(client, key)
    client.query(key, items=[[0, 0]])
    version = client.update(key, updates=[{"delete": [0, 0]}], if_version=version).version
    with client.pipeline() as pipe:
        pipe.query(key, items=[[0, 0]])
    queries = sent.ops("query")
    assert [q.get("minVersion") for q in queries] == [1, version]


def test_an_older_answer_is_never_returned() -> None:
    """A front that answers the query with an older version than the client saw (or `behind`): the client
    asks again until its deadline, then raises `behind`; a fresh answer is returned."""
    state: dict[str, Any] = {"answer": 1, "behind": 0}

    def handler(frames: list[bytes]) -> list[list[bytes]]:
        body = json.loads(frames[1])
        if body["op"] == "prepare":
            return [
                reply_frames(
                    frames,
                    {
                        "ok": True,
                        "result": {
                            "layout": "k",
                            "version": 3,
                            "contentSize": {"width": 1, "height": 1},
                            "counts": {"sections": 1, "items": 1, "elements": 1},
                        },
                    },
                )
            ]
        if body["op"] == "query" and state["behind"]:
            state["behind"] -= 1
            return [
                reply_frames(
                    frames, {"ok": False, "error": {"code": "behind", "message": "older", "path": "minVersion"}}
                )
            ]
        return [reply_frames(frames, {"ok": True, "result": {"version": state["answer"], "attributes": []}})]

    with FakeRouter(handler) as front, Client(front.endpoint, timeout=2, direct_reads="off") as client:
        client.prepare("k", bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS)
        with pytest.raises(Behind) as failure:
            client.query("k", items=[[0, 0]], deadline=0.2)
        assert failure.value.path == "minVersion"
        queries = [r for r in front.requests() if r["op"] == "query"]
        assert len(queries) > 1 and all(q["minVersion"] == 3 for q in queries)
        state.update(answer=3, behind=2)
        assert client.query("k", items=[[0, 0]]).version == 3
        assert [r["op"] for r in front.requests()][-3:] == ["query"] * 3


def test_list_in_pages(single_server: Server, make_client: Callable[..., Client], key: str) -> None:
    client = make_client(single_server.front)
    keys = sorted(f"{key}/{i}" for i in range(5))
    for name in keys:
        prepare(client, name)
    page = client.list(prefix=f"{key}/", limit=2)
    assert [i.layout for i in page] == keys[:2] and page.next == keys[1]
    page = client.list(prefix=f"{key}/", limit=2, after=page.next)
    assert [i.layout for i in page] == keys[2:4]
    assert [i.layout for i in client.iter_layouts(prefix=f"{key}/", limit=2)] == keys
