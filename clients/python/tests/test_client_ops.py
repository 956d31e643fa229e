"""Every op against a real daemon and a real cluster: typed results, typed errors, the escape hatch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import layoutd
from layoutd import (
    BatchResult,
    BoundsResult,
    Client,
    Columns,
    DropResult,
    Element,
    InvalidRequest,
    InvalidUpdate,
    LayoutResult,
    ListResult,
    PingResult,
    PrepareResult,
    QueryResult,
    UnknownLayout,
    UnknownOp,
    VersionConflict,
)
from layoutd_testkit import FEED_BOUNDS, FEED_SECTIONS, FEED_SPEC, SchemaChecker, Server

FEED_ELEMENTS = [
    ("header", 0, 0, 0, 0, 375, 28),
    ("cell", 0, 0, 0, 36, 375, 44),
    ("cell", 0, 1, 0, 80, 375, 60),
    ("header", 1, 0, 0, 148, 375, 28),
    ("cell", 1, 0, 0, 184, 375, 44),
]


def frames(elements: Any) -> list[tuple[Any, ...]]:
    return [(e.kind, e.section, e.item, e.x, e.y, e.width, e.height) for e in elements]


def prepare_feed(client: Client, key: str) -> PrepareResult:
    return client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS)


def test_ping(client: Client) -> None:
    pong = client.ping()
    assert isinstance(pong, PingResult)
    assert pong.version and isinstance(pong.version, str)
    assert {"list", "waterfall", "justified"} <= set(pong.layouts)
    assert pong.uptime_seconds >= 0


def test_layout_objects_columns_and_return(client: Client) -> None:
    done = client.layout(bounds=(375, 667), spec=FEED_SPEC, sections=FEED_SECTIONS)
    assert isinstance(done, LayoutResult)
    assert (done.content_size.width, done.content_size.height) == (375, 236)
    assert (done.counts.sections, done.counts.items, done.counts.elements) == (2, 3, 5)
    assert isinstance(done.attributes, list) and all(isinstance(e, Element) for e in done.attributes)
    assert frames(done.attributes) == FEED_ELEMENTS

    columns = client.layout(bounds=(375, 667), spec=FEED_SPEC, sections=FEED_SECTIONS, format="columns")
    assert isinstance(columns.attributes, Columns) and columns.attributes.format == "columns"
    assert columns.attributes.kind == ["header", "cell", "cell", "header", "cell"]
    assert frames(columns.attributes.elements()) == FEED_ELEMENTS

    none = client.layout(bounds=(375, 667), spec=FEED_SPEC, sections=FEED_SECTIONS, return_="none")
    assert none.attributes is None and none.counts.elements == 5

    in_rect = client.layout(bounds=(375, 667), spec=FEED_SPEC, sections=FEED_SECTIONS, return_=(0, 140, 375, 20))
    assert isinstance(in_rect.attributes, list)
    assert frames(in_rect.attributes) == [FEED_ELEMENTS[3]]


def test_layout_justified_counts(client: Client) -> None:
    done = client.layout(
        bounds=(400, 800), spec={"type": "justified", "maxNumRows": 1}, sections=[{"count": 20}], return_="none"
    )
    assert done.counts.hidden_items is not None and done.counts.hidden_items > 0
    assert done.counts.widow_count is not None


def test_prepare_and_query_every_way(client: Client, key: str) -> None:
    prepared = prepare_feed(client, key)
    assert isinstance(prepared, PrepareResult)
    assert prepared.layout == key and prepared.version == 1 and prepared.attributes is None
    assert (prepared.content_size.width, prepared.content_size.height) == (375, 236)

    by_rect = client.query(key, rect={"x": 0, "y": 0, "width": 375, "height": 100})
    assert isinstance(by_rect, QueryResult) and by_rect.version == 1
    assert frames(by_rect.attributes) == FEED_ELEMENTS[:3]

    by_items = client.query(key, items=[[1, 0], [0, 1], [7, 7]])
    assert frames(by_items.attributes) == [FEED_ELEMENTS[2], FEED_ELEMENTS[4]]

    headers = client.query(key, supplementary={"kind": "header", "sections": [1]})
    assert frames(headers.attributes) == [FEED_ELEMENTS[3]]

    pinned = client.query(key, rect=(0, 130, 375, 100), pin={"headers": True})
    assert isinstance(pinned.attributes, list)
    first = pinned.attributes[0]
    assert (first.kind, first.y, first.z_index) == ("header", 120, 1)

    pinned_columns = client.query(key, rect=(0, 130, 375, 100), pin={"headers": True}, format="columns")
    assert isinstance(pinned_columns.attributes, Columns)
    assert pinned_columns.attributes.z_index == [1, 0, 1, 0]

    sprung = client.query(key, rect=(0, 0, 375, 300), dynamics={"scrollDelta": -20, "touch": {"x": 187.5, "y": 100}})
    ys = [e.y for e in sprung.attributes]
    assert ys[1] == pytest.approx(35.44) and ys[4] == pytest.approx(185.41333333333333)

    with_return = client.prepare(
        key,
        bounds=FEED_BOUNDS,
        spec=FEED_SPEC,
        sections=FEED_SECTIONS,
        return_={"rect": (0, 0, 375, 30)},
        format="columns",
    )
    assert with_return.version == 2
    assert isinstance(with_return.attributes, Columns) and with_return.attributes.kind == ["header"]


def test_bounds_update_diff_list_drop(client: Client, key: str) -> None:
    prepare_feed(client, key)
    resized = client.bounds(key, bounds={"x": 0, "y": 0, "width": 414, "height": 896})
    assert isinstance(resized, BoundsResult)
    assert resized.invalidated is True and resized.version == 2
    assert resized.content_size is not None and resized.content_size.width == 414
    same = client.bounds(key, bounds=(0, 300, 414, 896))  # a scroll only: same size
    assert same.invalidated is False and same.version == 2

    batch = client.update(
        key,
        if_version=2,
        updates=[
            {"delete": [0, 0]},
            {"insert": [0, 0], "item": {"id": "x", "height": 30}},
            {"move": [[0, 1], [1, 0]]},
            {"reload": [1, 0], "item": {"height": 80}},
        ],
    )
    assert isinstance(batch, BatchResult)
    assert batch.version == 3 and (batch.content_size.width, batch.content_size.height) == (414, 258)
    assert batch.deletes == [(0, 0)] and batch.inserts == [(0, 0)] and batch.reloads == [(1, 0)]
    assert [(m.from_, m.to) for m in batch.moves] == [((0, 1), (1, 0))]
    assert batch.sections.deletes == [] and batch.sections.moves == []

    diffed = client.diff(key, sections=[{"ids": ["x", "y"], "heights": [30, 20]}, {"ids": ["c"], "heights": [44]}])
    assert diffed.version == 4 and (diffed.content_size.width, diffed.content_size.height) == (414, 182)
    assert diffed.deletes == [(1, 0)] and diffed.inserts == [(0, 1)] and diffed.reloads == [(1, 1)]

    diffed_again = client.diff(key, if_version=4, sections=[{"ids": ["x"], "heights": [30]}, {"ids": ["c"]}])
    assert diffed_again.version == 5

    listed = client.list()
    assert isinstance(listed, ListResult)
    entry = listed.get(key)
    assert entry is not None and entry.version == 5 and entry.items == 2 and entry.bytes > 0
    assert [info.layout for info in listed] == sorted(info.layout for info in listed)

    dropped = client.drop(key)
    assert isinstance(dropped, DropResult) and (dropped.layout, dropped.version) == (key, 6)
    assert client.list().get(key) is None
    again = prepare_feed(client, key)
    assert again.version == 7  # the count goes on after a drop


def test_errors_are_typed(client: Client, key: str, schema: SchemaChecker) -> None:
    with schema.allow_invalid_requests():
        with pytest.raises(InvalidRequest) as negative:
            client.layout(bounds=(375, 667), spec={"type": "list"}, sections=[{"heights": [10, -5]}])
        assert negative.value.code == "invalid_request"
        assert negative.value.path == "sections[0].heights[1]"
        assert "-5" in negative.value.message
        assert negative.value.op == "layout" and negative.value.reply["ok"] is False

        with pytest.raises(InvalidRequest) as misspelt:
            client.layout(bounds=(375, 667), spec={"type": "list", "itemHieght": 50}, sections=[])
        assert misspelt.value.path == "spec.itemHieght"

        with pytest.raises(InvalidRequest) as insets:
            client.layout(
                bounds=(375, 667),
                spec={"type": "list", "sectionInsets": {"left": 200, "right": 200}},
                sections=[{"count": 1}],
            )
        assert insets.value.path == "spec.sectionInsets"

        with pytest.raises(UnknownOp) as unknown_op:
            client.request("render")
        assert (unknown_op.value.code, unknown_op.value.path) == ("unknown_op", "op")

        with pytest.raises(InvalidRequest) as bad_update:
            prepare_feed(client, key)
            client.update(key, updates=[{"delete": "x"}])
        assert bad_update.value.path is not None and bad_update.value.path.startswith("updates[0]")

    with pytest.raises(UnknownLayout) as unknown:
        client.query(f"{key}-nosuch", rect=(0, 0, 10, 10))
    assert (unknown.value.code, unknown.value.path) == ("unknown_layout", "layout")
    assert isinstance(unknown.value, layoutd.ReplyError) and isinstance(unknown.value, layoutd.LayoutdError)

    with pytest.raises(InvalidUpdate) as out_of_range:
        client.update(key, updates=[{"delete": [0, 9]}])
    assert (out_of_range.value.code, out_of_range.value.path) == ("invalid_update", "updates[0]")

    with pytest.raises(VersionConflict) as conflict:
        client.update(key, if_version=99, updates=[{"delete": [0, 0]}])
    assert conflict.value.code == "version_conflict"
    assert client.query(key, items=[[0, 0]]).version == 1  # nothing was applied


def test_extra_fields_escape_hatch(client: Client, key: str) -> None:
    # Unknown top-level fields are ignored by the daemon; named ones can be overridden through extra.
    assert client.ping(extra={"futureField": {"a": 1}}).version
    prepare_feed(client, key)
    answer = client.query(key, rect=(0, 0, 375, 100), extra={"format": "columns"})
    assert isinstance(answer.attributes, Columns)
    raw = client.request("query", {"layout": key, "items": [[0, 0]], "format": "columns"})
    assert raw["version"] == 1 and raw["attributes"]["kind"] == ["cell"]


def test_stats_and_metrics(server: Server, client: Client) -> None:
    client.ping()
    stats = client.stats()
    assert stats.uptime_seconds >= 0 and stats.requests.get("ping", 0) >= 1
    assert stats.auth_failures == 0
    if server.role == "cluster":
        assert stats.cluster is not None and stats.cluster["role"] == "broker"
        assert stats.cluster["totals"]["alive"] == 2
    else:
        assert stats.cluster is None
    text = client.metrics()
    assert "layoutd_requests_total" in text


def test_hooks_see_every_message(server: Server, make_client: Callable[..., Client], key: str) -> None:
    seen: dict[str, list[Any]] = {"request": [], "reply": [], "stats": []}
    hooks = layoutd.Hooks(request=seen["request"].append, reply=seen["reply"].append, stats=seen["stats"].append)
    client = make_client(server.front, stats_endpoints=server.stats, hooks=hooks, direct_reads="off")
    prepare_feed(client, key)
    client.query(key, items=[[0, 0]])
    client.stats()
    assert [r["op"] for r in seen["request"]] == ["prepare", "query"]
    assert [r["id"] for r in seen["reply"]] == [r["id"] for r in seen["request"]]
    assert len(seen["stats"]) == 1
    # With direct reads (the default) the first query asks for the route table first, and a query sent
    # to a worker's direct endpoint is seen by the hooks too.
    for kind in seen.values():
        kind.clear()
    auto = make_client(server.front, hooks=hooks)
    auto.query(key, items=[[0, 0]])
    auto.query(key, items=[[0, 1]])
    ops = [r["op"] for r in seen["request"]]
    assert ops[:2] == ["route", "query"] and ops.count("route") == 1 and ops.count("query") >= 2
    assert [r["id"] for r in seen["reply"]] == [r["id"] for r in seen["request"]]
