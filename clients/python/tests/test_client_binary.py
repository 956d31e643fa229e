"""format="binary" (numpy and memoryview columns), binary attachments, and malformed binary replies."""

from __future__ import annotations

import array
import json
import struct
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import zmq

import layoutd
from layoutd import Client, Columns, DecodeError, InvalidRequest, UnknownLayout
from layoutd.wire import attach_sections, encode_attachment
from layoutd_testkit import FakeRouter, SchemaChecker, Server, reply_frames

N = 2000
HEIGHTS = [float(40 + (i * 37) % 113) + (0.5 if i % 3 == 0 else 0.0) for i in range(N)]
WATERFALL = {"type": "waterfall", "columns": 3, "cellPadding": 4, "header": 30, "footer": 12}
SECTIONS_JSON = [{"heights": HEIGHTS[:1500]}, {"heights": HEIGHTS[1500:]}]
BOUNDS = (414, 896)
RECT = (0, 1000, 414, 3000)
NUMERIC = ("section", "item", "x", "y", "width", "height")


def prepare_big(client: Client, key: str) -> None:
    client.prepare(key, bounds=BOUNDS, spec=WATERFALL, sections=SECTIONS_JSON, decorations={"sectionBackground": True})


def assert_same_columns(binary: Columns, columns: Columns, *, numpy_arrays: bool) -> None:
    assert binary.format == "binary" and columns.format == "columns"
    assert len(binary) == len(columns) > 0
    assert binary.kind_names() == columns.kind
    assert binary.kinds == ("cell", "header", "footer", "decoration")
    for name in NUMERIC:
        got = binary.column(name)
        if numpy_arrays:
            assert isinstance(got, np.ndarray)
            np.testing.assert_array_equal(got, np.asarray(columns.column(name), dtype=got.dtype))
        else:
            assert isinstance(got, memoryview)
            assert got.tolist() == columns.column(name)
    assert binary.elements() == columns.elements()


def test_binary_query_as_numpy_without_copy(client: Client, key: str) -> None:
    prepare_big(client, key)
    columns = client.query(key, rect=RECT, format="columns").attributes
    answer = client.query(key, rect=RECT, format="binary")
    binary = answer.attributes
    assert isinstance(binary, Columns) and isinstance(columns, Columns)
    assert_same_columns(binary, columns, numpy_arrays=True)
    assert {"cell", "header", "footer", "decoration"} >= set(binary.kind_names()) >= {"cell", "decoration"}
    dtypes = {name: binary.column(name).dtype.str for name in ("kind", *NUMERIC)}  # type: ignore[union-attr]
    assert dtypes == {
        "kind": "|u1",
        "section": "<i4",
        "item": "<i4",
        "x": "<f8",
        "y": "<f8",
        "width": "<f8",
        "height": "<f8",
    }
    for name in ("kind", *NUMERIC):
        column = binary.column(name)
        # numpy.frombuffer over the received zmq.Frame: no copy, read-only.
        assert isinstance(column.base, memoryview) and isinstance(column.base.obj, zmq.Frame)  # type: ignore[union-attr]
        assert not column.flags.writeable  # type: ignore[union-attr]
    assert binary.z_index is None and answer.version == 1


def test_binary_query_as_memoryviews(server: Server, make_client: Callable[..., Client], key: str) -> None:
    client = make_client(server.front, binary_arrays="memoryview")
    prepare_big(client, key)
    columns = client.query(key, rect=RECT, format="columns").attributes
    binary = client.query(key, rect=RECT, format="binary").attributes
    assert isinstance(binary, Columns) and isinstance(columns, Columns)
    assert_same_columns(binary, columns, numpy_arrays=False)
    formats = {name: binary.column(name).format for name in ("kind", *NUMERIC)}  # type: ignore[union-attr]
    assert formats == {"kind": "B", "section": "i", "item": "i", "x": "d", "y": "d", "width": "d", "height": "d"}
    assert all(binary.column(name).readonly for name in NUMERIC)  # type: ignore[union-attr]


def test_binary_pin_layout_prepare_and_empty(client: Client, key: str) -> None:
    prepare_big(client, key)
    pinned_columns = client.query(key, rect=RECT, pin={"headers": True, "footers": True}, format="columns")
    pinned = client.query(key, rect=RECT, pin={"headers": True, "footers": True}, format="binary")
    assert isinstance(pinned.attributes, Columns) and isinstance(pinned_columns.attributes, Columns)
    assert pinned.attributes.z_index is not None
    assert list(pinned.attributes.z_index) == pinned_columns.attributes.z_index
    assert_same_columns(pinned.attributes, pinned_columns.attributes, numpy_arrays=True)

    by_items = client.query(key, items=[[1, 3], [0, 0]], format="binary").attributes
    assert isinstance(by_items, Columns) and list(by_items.item) == [0, 3] and list(by_items.kind) == [0, 0]

    laid = client.layout(bounds=BOUNDS, spec=WATERFALL, sections=SECTIONS_JSON, format="binary")
    laid_columns = client.layout(bounds=BOUNDS, spec=WATERFALL, sections=SECTIONS_JSON, format="columns")
    assert isinstance(laid.attributes, Columns) and isinstance(laid_columns.attributes, Columns)
    assert laid.counts.elements == len(laid.attributes) == N + 4
    assert_same_columns(laid.attributes, laid_columns.attributes, numpy_arrays=True)

    again = client.prepare(
        key, bounds=BOUNDS, spec=WATERFALL, sections=SECTIONS_JSON, return_={"rect": RECT}, format="binary"
    )
    assert isinstance(again.attributes, Columns) and again.version == 2
    none = client.prepare(key, bounds=BOUNDS, spec=WATERFALL, sections=SECTIONS_JSON, format="binary")
    assert none.attributes is None  # nothing listed: a single JSON frame

    empty = client.query(key, rect=(0, 10**7, 10, 10), format="binary").attributes
    assert isinstance(empty, Columns) and len(empty) == 0 and empty.elements() == []


def assert_broker_refuses_frames(client: Client, key: str) -> None:
    """PROTOCOL.md, "Binary frames after the body": a cluster's broker answers a request with frames after
    its body invalid_request (send sizes as JSON through a broker); the connection keeps working."""
    with pytest.raises(InvalidRequest) as refused:
        client.prepare(key, bounds=BOUNDS, spec=WATERFALL, sections=[{"heights": np.array(HEIGHTS)}])
    assert "frame" in refused.value.message
    with pytest.raises(UnknownLayout):
        client.query(key, items=[[0, 0]])
    assert client.prepare(key, bounds=BOUNDS, spec=WATERFALL, sections=SECTIONS_JSON).counts.items == N


def test_attachments_give_the_same_layout_as_json(server: Server, client: Client, key: str) -> None:
    if server.role == "cluster":
        assert_broker_refuses_frames(client, key)
        return
    client.prepare(key, bounds=BOUNDS, spec=WATERFALL, sections=SECTIONS_JSON)
    expected = client.query(key, rect=(0, 0, 414, 10**6), format="columns").attributes
    assert isinstance(expected, Columns) and len(expected) == N + 4
    first, second = HEIGHTS[:1500], HEIGHTS[1500:]
    variants: dict[str, list[Any]] = {
        "numpy": [np.array(first), np.array(second, dtype=np.float32)],  # converted to <f8
        "bytes": [struct.pack(f"<{len(first)}d", *first), bytearray(struct.pack(f"<{len(second)}d", *second))],
        "array": [array.array("d", first), array.array("d", second)],
        "memoryview": [memoryview(array.array("d", first)), memoryview(struct.pack(f"<{len(second)}d", *second))],
    }
    for name, (a, b) in variants.items():
        prepared = client.prepare(
            f"{key}-{name}", bounds=BOUNDS, spec=WATERFALL, sections=[{"heights": a}, {"heights": b}]
        )
        assert prepared.counts.items == N, name
        got = client.query(f"{key}-{name}", rect=(0, 0, 414, 10**6), format="columns").attributes
        assert got == expected, name
    laid = client.layout(
        bounds=BOUNDS,
        spec=WATERFALL,
        sections=[{"heights": np.array(first)}, {"count": len(second), "heights": second}],
        format="columns",
    )
    assert laid.attributes == expected

    # justified: aspect ratios; flow: widths and heights, each as its own frame.
    ratios = np.linspace(0.5, 2.0, 50)
    justified_json = client.layout(
        bounds=(800, 600), spec={"type": "justified"}, sections=[{"aspectRatios": ratios.tolist()}]
    )
    justified_bin = client.layout(bounds=(800, 600), spec={"type": "justified"}, sections=[{"aspectRatios": ratios}])
    assert justified_bin.attributes == justified_json.attributes
    widths, heights = np.arange(10, 60, dtype=float), np.arange(20, 70, dtype=float)
    flow_json = client.layout(
        bounds=(320, 600), spec={"type": "flow"}, sections=[{"widths": widths.tolist(), "heights": heights.tolist()}]
    )
    flow_bin = client.layout(
        bounds=(320, 600), spec={"type": "flow"}, sections=[{"widths": widths, "heights": heights}]
    )
    assert flow_bin.attributes == flow_json.attributes

    # diff with a binary column
    diffed = client.diff(
        key, sections=[{"ids": list(range(3)), "heights": np.array([10.0, 20.0, 30.0])}, {"ids": [99]}]
    )
    assert diffed.version == 2
    assert [e.height for e in client.query(key, items=[[0, 0], [0, 1], [0, 2]]).attributes] == [10.0, 20.0, 30.0]


def test_attachment_errors_are_typed(server: Server, client: Client, schema: SchemaChecker, key: str) -> None:
    if server.role == "cluster":
        assert_broker_refuses_frames(client, key)
        return

    def layout(sections: Any) -> Any:
        return client.layout(bounds=(300, 600), spec={"type": "list"}, sections=sections)

    with pytest.raises(InvalidRequest) as ragged:
        layout([{"heights": b"\x00" * 12}])
    assert ragged.value.path == "sections[0].heights"
    with pytest.raises(InvalidRequest) as negative:
        layout([{"heights": np.array([1.0, -2.0])}])
    assert negative.value.path == "sections[0].heights[1]"
    with pytest.raises(InvalidRequest) as infinite:
        layout([{"heights": np.array([1.0, np.inf])}])
    assert infinite.value.path == "sections[0].heights[1]"
    with pytest.raises(InvalidRequest) as disagree:
        layout([{"count": 3, "heights": np.array([1.0, 2.0])}])
    assert disagree.value.path is not None and disagree.value.path.startswith("sections[0]")
    with schema.allow_invalid_requests():
        with pytest.raises(InvalidRequest) as missing:
            client.request(
                "layout",
                {
                    "bounds": {"width": 300, "height": 600},
                    "spec": {"type": "list"},
                    "sections": [{"heights": {"frame": 2}}],
                },
                attachments=[b"\x00" * 8],
            )
        assert missing.value.path == "sections[0].heights.frame"
    assert client.ping().version  # the connection keeps working


def test_attachment_encoding() -> None:
    attachments: list[Any] = []
    sections = attach_sections(
        [
            {"heights": np.array([1, 2], dtype=np.int64)},
            {"heights": [1.0, None], "widths": array.array("f", [3.0])},
            {"count": 2},
        ],
        attachments,
    )
    assert sections == [{"heights": {"frame": 1}}, {"heights": [1.0, None], "widths": {"frame": 2}}, {"count": 2}]
    assert bytes(attachments[0]) == struct.pack("<2d", 1, 2) and bytes(attachments[1]) == struct.pack("<d", 3)
    assert bytes(encode_attachment(memoryview(array.array("d", [5.0])))) == struct.pack("<d", 5)
    with pytest.raises(ValueError):
        encode_attachment(np.zeros((2, 2)))
    call = layoutd.ops.prepare("k", bounds=(1, 1), spec={"type": "list"}, sections=[{"heights": np.ones(3)}])
    assert call.fields["sections"] == [{"heights": {"frame": 1}}] and len(call.attachments) == 1


# -- malformed binary replies, from a fake ROUTER -----------------------------------------------------

COLUMNS = [
    ("kind", "uint8", 1),
    ("section", "int32", 4),
    ("item", "int32", 4),
    ("x", "float64", 8),
    ("y", "float64", 8),
    ("width", "float64", 8),
    ("height", "float64", 8),
]


def descriptor(count: int, **change: Any) -> dict[str, Any]:
    columns = [
        {"name": n, "type": t, "count": count, "byteOrder": "little", "frame": i + 1}
        for i, (n, t, _) in enumerate(COLUMNS)
    ]
    return {
        "format": "binary",
        "count": count,
        "kinds": ["cell", "header", "footer", "decoration"],
        "columns": columns,
        **change,
    }


def good_frames(count: int) -> list[bytes]:
    return [bytes(count * size) for _, _, size in COLUMNS]


def binary_reply(frames: list[bytes], attributes: dict[str, Any], data: list[bytes]) -> list[bytes]:
    return reply_frames(frames, {"ok": True, "result": {"version": 1, "attributes": attributes}}, *data)


def bad_column(index: int, **change: Any) -> dict[str, Any]:
    d = descriptor(3)
    d["columns"][index] = {**d["columns"][index], **change}
    return d


MALFORMED: dict[str, Callable[[list[bytes]], list[bytes]]] = {
    "short float frame": lambda f: binary_reply(
        f, descriptor(3), [*good_frames(3)[:3], bytes(16), *good_frames(3)[4:]]
    ),
    "long int frame": lambda f: binary_reply(f, descriptor(3), [good_frames(3)[0], bytes(13), *good_frames(3)[2:]]),
    "frames missing": lambda f: binary_reply(f, descriptor(3), good_frames(3)[:5]),
    "no frames at all": lambda f: binary_reply(f, descriptor(3), []),
    "a frame too many": lambda f: binary_reply(f, descriptor(3), [*good_frames(3), bytes(8)]),
    "unknown type": lambda f: binary_reply(f, bad_column(3, type="float32"), good_frames(3)),
    "big-endian": lambda f: binary_reply(f, bad_column(4, byteOrder="big"), good_frames(3)),
    "frame out of range": lambda f: binary_reply(f, bad_column(6, frame=9), good_frames(3)),
    "frame used twice": lambda f: binary_reply(f, bad_column(6, frame=1), good_frames(3)),
    "column count differs": lambda f: binary_reply(f, bad_column(2, count=2), good_frames(3)),
    "kind code out of range": lambda f: binary_reply(f, descriptor(3), [bytes([0, 9, 0]), *good_frames(3)[1:]]),
    "column missing": lambda f: binary_reply(
        f, {**descriptor(3), "columns": descriptor(3)["columns"][:6]}, good_frames(3)[:6]
    ),
    "frames with JSON attributes": lambda f: binary_reply(
        f, {"kind": [], "section": [], "item": [], "x": [], "y": [], "width": [], "height": []}, [bytes(8)]
    ),
    "header not JSON": lambda f: [b"", b"{not json", *good_frames(3)],
    "error reply with frames": lambda f: [
        *reply_frames(f, {"ok": False, "error": {"code": "internal", "message": "x"}}),
        bytes(8),
    ],
}


def test_malformed_binary_replies_raise_decode_errors(make_client: Callable[..., Client]) -> None:
    mode: dict[str, str] = {"case": ""}

    def handler(frames: list[bytes]) -> list[list[bytes]]:
        body = json.loads(frames[1])
        if body["op"] == "ping":
            return [
                reply_frames(frames, {"ok": True, "result": {"version": "fake", "layouts": [], "uptimeSeconds": 0}})
            ]
        return [MALFORMED[mode["case"]](frames)]

    with FakeRouter(handler) as fake:
        client = make_client(fake.endpoint, timeout=5.0, hooks=layoutd.Hooks())
        for case in MALFORMED:
            mode["case"] = case
            started = time.monotonic()
            with pytest.raises(DecodeError) as error:
                client.query("k", rect=(0, 0, 1, 1), format="binary")
            assert time.monotonic() - started < 2.5, f"{case}: waited for the timeout instead of failing"
            assert error.value.code == "decode_error" and error.value.op == "query", case
            assert isinstance(error.value, layoutd.ProtocolError) and isinstance(error.value, layoutd.LayoutdError)
            assert client.ping().version == "fake", case  # the client goes on working
        well_formed = good_frames(3)
        mode["case"] = "good"
        MALFORMED["good"] = lambda f: binary_reply(f, descriptor(3), well_formed)
        try:
            ok = client.query("k", rect=(0, 0, 1, 1), format="binary").attributes
        finally:
            del MALFORMED["good"]
        assert isinstance(ok, Columns) and len(ok) == 3 and ok.kind_names() == ["cell"] * 3
        assert client.failovers == 0
