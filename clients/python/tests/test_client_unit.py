"""The parts that need no daemon: errors, parsing, request encoding, the retry rule, topic prefixes."""

from __future__ import annotations

import json
import math
import types
from typing import Any

import numpy as np
import pytest
import zmq

import layoutd
from layoutd import errors, ops
from layoutd.events import SubscriberCore
from layoutd.models import Columns, Stats, parse_attributes, parse_event
from layoutd.wire import Call, decode_reply, encode_body, encode_request, split_reply


@pytest.mark.parametrize("code,cls", sorted(errors.ERROR_CLASSES.items()))
def test_error_codes_map_to_classes(code: str, cls: type[errors.ReplyError]) -> None:
    reply = {"v": 1, "id": 7, "ok": False, "error": {"code": code, "message": "m", "path": "a.b"}}
    error = errors.error_from_reply(reply, op="query")
    assert type(error) is cls and isinstance(error, layoutd.LayoutdError)
    assert (error.code, error.message, error.path, error.op, error.request_id) == (code, "m", "a.b", "query", 7)
    assert str(error) == f"{code}: m (at a.b)"


def test_unknown_and_malformed_error_replies() -> None:
    unknown = errors.error_from_reply({"id": 1, "ok": False, "error": {"code": "brand_new", "message": "x"}})
    assert type(unknown) is errors.ReplyError and unknown.path is None
    with pytest.raises(errors.DecodeError):
        errors.error_from_reply({"id": 1, "ok": False, "error": "boom"})
    standby = errors.error_from_reply({"ok": False, "error": {"code": "unavailable", "message": "Standby broker"}})
    assert isinstance(standby, errors.Unavailable) and standby.standby
    busy = errors.error_from_reply({"ok": False, "error": {"code": "unavailable", "message": "no worker is serving"}})
    assert isinstance(busy, errors.Unavailable) and not busy.standby
    cause = errors.Timeout("no reply", endpoints=("tcp://a",))
    unknown_outcome = errors.OutcomeUnknown(cause, op="drop", request_id=3)
    assert unknown_outcome.code == "timeout" and unknown_outcome.cause is cause and "unknown" in unknown_outcome.message


def test_retry_rule() -> None:
    prepare = {"bounds": (1, 1), "spec": {"type": "list"}, "sections": []}
    assert all(
        c.retryable for c in (ops.ping(), ops.list_layouts(), ops.query("k", rect=(0, 0, 1, 1)), ops.layout(**prepare))
    )
    # Every change with ifVersion may be sent again: a second copy is refused (version_conflict).
    with_if_version = (
        ops.prepare("k", **prepare, if_version=0),
        ops.bounds("k", bounds=(1, 1), if_version=3),
        ops.update("k", updates=[], if_version=0),
        ops.diff("k", sections=[], if_version=2),
        ops.drop("k", if_version=5),
        ops.prepare("k", **prepare, extra={"ifVersion": 1}),
        Call("drop", {"layout": "k", "ifVersion": 1}),
    )
    assert all(c.retryable for c in with_if_version)
    assert [c.fields["ifVersion"] for c in with_if_version] == [0, 3, 0, 2, 5, 1, 1]
    # Without it, never; nor an op the client does not know.
    assert not any(
        c.retryable
        for c in (
            ops.update("k", updates=[]),
            ops.diff("k", sections=[]),
            ops.drop("k"),
            ops.bounds("k", bounds=(1, 1)),
            ops.prepare("k", **prepare),
            ops.drop("k", extra={"ifVersion": None}),
            Call("render", {}),
            Call("render", {"ifVersion": 1}),
        )
    )
    assert "ifVersion" not in ops.prepare("k", **prepare).fields


def test_request_fields_and_body() -> None:
    call = ops.prepare(
        "feed",
        bounds=(375, 667),
        spec={"type": "list"},
        sections=[],
        content_insets=4,
        layout_direction="rightToLeft",
        return_=(0, 0, 10, 10),
        format="columns",
        decorations={"sectionBackground": True},
        extra={"future": 1},
    )
    assert call.fields == {
        "layout": "feed",
        "bounds": {"width": 375, "height": 667},
        "spec": {"type": "list"},
        "contentInsets": 4,
        "decorations": {"sectionBackground": True},
        "layoutDirection": "rightToLeft",
        "sections": [],
        "return": {"rect": {"x": 0, "y": 0, "width": 10, "height": 10}},
        "format": "columns",
        "future": 1,
    }
    update = ops.update("feed", updates=[{"delete": [0, 0]}], if_version=4)
    assert update.fields == {"layout": "feed", "ifVersion": 4, "updates": [{"delete": [0, 0]}]}
    obj, body = encode_body(12, "update", update.fields)
    assert body.startswith(b'{"v":1,"id":12,"op":"update",') and json.loads(body) == obj
    _, numpy_body = encode_body(1, "query", {"layout": "k", "items": np.array([[0, 1]]), "x": np.float64(2.5)})
    assert json.loads(numpy_body)["items"] == [[0, 1]] and json.loads(numpy_body)["x"] == 2.5
    with pytest.raises(ValueError):
        encode_body(1, "layout", {"bounds": {"width": math.nan, "height": 1}})


def test_the_request_splice_is_the_request_body() -> None:
    # Without a request hook the client encodes the fields alone behind a fixed head: the same bytes.
    calls = [
        ops.ping(),
        ops.list_layouts(),
        ops.query("k", rect=(0, 0.5, 375, 1e3), format="binary"),
        ops.update("k", updates=[{"delete": [0, 0]}], if_version=0),
        Call('x"y', {"é": "ü", "n": None}),
        ops.prepare("k", bounds=(1, 1), spec={"type": "list"}, sections=[{"count": 2}], if_version=3),
        Call("ping", {"v": 1, "id": "theirs", "op": "no"}),
        Call("ping", types.MappingProxyType({"a": 1})),
    ]
    for request_id, call in enumerate(calls, 1):
        assert encode_request(request_id, call.op, call.fields) == encode_body(request_id, call.op, call.fields)[1]
    with pytest.raises(ValueError):
        encode_request(1, "layout", {"bounds": {"width": math.inf, "height": 1}})


def test_result_readers_check_every_member() -> None:
    element = {"kind": "cell", "section": 0, "item": 3, "x": 0.5, "y": 2, "width": 10, "height": 4.25}
    read = parse_attributes(
        [element, {**element, "kind": "decoration", "zIndex": -1, "elementKind": "sectionBackground"}]
    )
    assert isinstance(read, list) and read[0] == layoutd.Element(**{**element, "item": 3})
    assert (read[1].z_index, read[1].element_kind) == (-1, "sectionBackground") and read[0].z_index is None
    assert parse_attributes([types.MappingProxyType(element)])[0].frame == (0.5, 2, 10, 4.25)  # any Mapping
    for bad, path in (
        ({**element, "x": True}, "[1].x"),
        ({**element, "section": 1.0}, "[1].section"),
        ({**element, "height": None}, "[1].height"),
        ({**element, "zIndex": "1"}, "[1].zIndex"),
        ({k: v for k, v in element.items() if k != "kind"}, "[1].kind"),
        ([], "[1]"),
    ):
        with pytest.raises(errors.DecodeError) as error:
            parse_attributes([element, bad], "at")
        assert error.value.path == f"at{path}"
    batch = layoutd.BatchResult.parse(
        {
            "version": 2,
            "contentSize": {"width": 1, "height": 2},
            "deletes": None,
            "moves": [{"from": [0, 1], "to": [0, 0]}],
            "sections": {"moves": []},
        }
    )
    assert batch.deletes == [] and batch.moves[0].to == (0, 0) and batch.sections.inserts == []
    assert batch.raw["version"] == 2 and batch.content_size == layoutd.Size(width=1, height=2)
    with pytest.raises(errors.DecodeError) as error:
        layoutd.BatchResult.parse({"version": 2, "contentSize": {"width": 1}})
    assert error.value.path == "result.contentSize.height"
    with pytest.raises(errors.DecodeError) as error:
        layoutd.BatchResult.parse({"version": 2, "contentSize": {"width": 1, "height": 1}, "moves": [{"to": 1}]})
    assert error.value.path == "result.moves[0]"


def test_reply_decoding() -> None:
    call = ops.query("k", rect=(0, 0, 1, 1))
    obj, rest = split_reply([b"", b'{"v":1,"id":1,"ok":true,"result":{"version":2,"attributes":[]}}'])
    assert rest == [] and decode_reply(obj, rest, call).version == 2
    with pytest.raises(errors.DecodeError):
        split_reply([b"", b"[1,2]"])
    with pytest.raises(errors.DecodeError):
        split_reply([])
    with pytest.raises(errors.DecodeError) as missing:
        decode_reply({"id": 1, "ok": True, "result": {"attributes": []}}, [], call)
    assert missing.value.path == "result.version" and missing.value.op == "query"
    with pytest.raises(errors.DecodeError):
        decode_reply({"id": 1, "ok": "yes"}, [], call)
    with pytest.raises(errors.DecodeError):
        parse_attributes(
            {"kind": ["cell"], "section": [0, 1], "item": [0], "x": [0], "y": [0], "width": [1], "height": [1]}
        )
    with pytest.raises(errors.DecodeError):
        parse_attributes([{"kind": "cell", "section": 0}])


def test_columns_and_events() -> None:
    columns = parse_attributes(
        {
            "kind": ["header", "decoration"],
            "section": [0, 0],
            "item": [0, 0],
            "x": [0, 0],
            "y": [0, 0],
            "width": [5, 5],
            "height": [1, 9],
        }
    )
    assert isinstance(columns, Columns) and len(columns) == 2
    assert [(e.kind, e.element_kind, e.z_index) for e in columns] == [
        ("header", None, None),
        ("decoration", "sectionBackground", -1),
    ]
    event = parse_event(
        "batch:k",
        {
            "event": "batch",
            "layout": "k",
            "version": 3,
            "deletes": [[0, 1]],
            "moves": [{"from": [0, 0], "to": [1, 0]}],
            "sections": {"inserts": [2]},
            "contentSize": {"width": 1, "height": 2},
        },
    )
    assert isinstance(event, layoutd.BatchEvent) and event.inserts == [] and event.sections.inserts == [2]
    assert event.moves[0].from_ == (0, 0)
    other = parse_event("x:k", {"event": "later", "layout": "k", "version": 1})
    assert type(other) is layoutd.Event and other.content_size is None
    with pytest.raises(errors.DecodeError):
        parse_event("batch:k", {"event": "batch", "layout": "k"})
    with pytest.raises(errors.DecodeError):
        parse_event("batch:k", {"event": "batch", "layout": "k", "version": True})
    stats = Stats.parse({"uptimeSeconds": 1, "requests": {"ping": 2}})
    assert stats.requests == {"ping": 2} and stats.cluster is None and stats.errors == {}


def test_curve_topic_prefix_is_taken_off() -> None:
    public, secret = zmq.curve_keypair()
    _, server = zmq.curve_keypair()
    keys = layoutd.CurveKeys(secret_key=secret, server_key=server)
    assert keys.public_key == public
    seen: list[Any] = []
    core = SubscriberCore(keys, layoutd.Hooks(event=lambda topic, body: seen.append(topic)), None, None)
    assert core.wire_prefix("batch:") == public + b"batch:"
    event = core.decode(
        [public + b"invalidated:feed", b'{"event":"invalidated","layout":"feed","version":2,"reason":"bounds"}']
    )
    assert event.topic == "invalidated:feed" and seen == ["invalidated:feed"]
    with pytest.raises(errors.DecodeError):
        core.decode([b"only-one-frame"])


def test_client_arguments() -> None:
    with pytest.raises(ValueError):
        layoutd.Client([])
    with pytest.raises(layoutd.InvalidInput):  # a LayoutdError and a ValueError
        layoutd.Client("tcp://127.0.0.1:1", timeout=-1)
    layoutd.Client("tcp://127.0.0.1:1", timeout=0).close()  # 0 means 0: no wait
    client = layoutd.Client(["tcp://127.0.0.1:1", "tcp://127.0.0.1:2"])
    assert client.attempts == 3 and client.endpoint == "tcp://127.0.0.1:1"
    with pytest.raises(layoutd.InvalidInput):
        client.stats()
    client.close()


def test_the_schema_hook_rejects_what_the_schema_rejects() -> None:
    from layoutd_testkit import SchemaChecker

    checker = SchemaChecker()
    checker.request({"v": 1, "id": 1, "op": "query", "layout": "k", "rect": {"x": 0, "y": 0, "width": 1, "height": 1}})
    checker.reply({"v": 1, "id": 1, "ok": True, "result": {"version": 1, "attributes": []}})
    with pytest.raises(ValueError):
        checker.reply({"v": 1, "id": 1, "ok": True, "result": {"version": 1, "attributes": [], "bogus": 1}})
    with pytest.raises(ValueError):
        checker.request({"v": 1, "id": 2, "op": "query", "layout": "k", "rectangle": {}})
    with pytest.raises(ValueError):
        checker.event("batch:k", {"event": "batch", "layout": "k"})
    with pytest.raises(ValueError):
        checker.stats({"uptimeSeconds": "soon"})
    assert len(checker.failures) == 4 and checker.counts["reply"] == 1


def test_one_version_and_the_package_metadata() -> None:
    import importlib.metadata

    metadata = importlib.metadata.metadata("layoutd")
    assert importlib.metadata.version("layoutd") == layoutd.__version__
    assert metadata["License"] and metadata["Author-email"] and metadata["Requires-Python"] == ">=3.10"
