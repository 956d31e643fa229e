"""The wire format: request bodies and their binary attachments, reply frames, binary columns.

Nothing here touches a socket, so the sync and asyncio clients share it (and tests can drive it directly).
"""

from __future__ import annotations

import array
import functools
import inspect
import json
import re
import sys
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

import zmq

from .errors import DecodeError, LayoutdError, Unavailable, error_from_reply
from .models import KINDS, Columns

__all__ = [
    "Call",
    "Hooks",
    "READ_ONLY_OPS",
    "CHANGE_OPS",
    "IF_VERSION_OPS",
    "BinaryArrays",
    "encode_body",
    "encode_attachment",
    "attach_sections",
    "split_reply",
    "decode_binary_attributes",
    "numpy_available",
]

T = TypeVar("T")

#: Ops that change nothing: the client may send them again after a timeout or a standby's answer.
READ_ONLY_OPS = frozenset({"ping", "layout", "query", "list", "route", "stats", "metrics"})
#: Ops that change a kept layout: never sent twice unless they carry an ``ifVersion``.
CHANGE_OPS = frozenset({"prepare", "bounds", "update", "diff", "drop"})
#: Changes whose ``ifVersion`` the daemon checks (PROTOCOL.md §5, "Changes at most once"): all of them.
#: With it a second copy of a change finds the key's version moved on and is refused, so such a change
#: may be sent again after a timeout or a standby's answer.
IF_VERSION_OPS = CHANGE_OPS

#: How binary columns are given to the caller: ``"numpy"`` arrays, ``"memoryview"``s, or ``"auto"``
#: (numpy when it can be imported).
BinaryArrays = Literal["auto", "numpy", "memoryview"]

_TYPES: dict[str, tuple[int, str, str]] = {
    # wire type: (size, memoryview/array format, numpy dtype)
    "uint8": (1, "B", "<u1"),
    "int32": (4, "i", "<i4"),
    "float64": (8, "d", "<f8"),
}
_SIZE_COLUMNS = ("heights", "aspectRatios", "widths")
_LITTLE = sys.byteorder == "little"


def numpy_available() -> bool:
    """True when numpy can be imported."""
    try:
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        return False
    return True


@dataclass(frozen=True)
class Hooks:
    """Callbacks that see every JSON object the client sends and receives (for logging, tracing or
    validating against a schema). Each gets the decoded object; an exception it raises is raised to the
    caller of the request (or of the subscriber's ``next``) instead of the result.

    Attributes:
        request: each request body, just before it is sent (``{"v", "id", "op", …}``; attachments are
            referenced as ``{"frame": k}``).
        reply: each reply object received on the front socket (for a binary reply, its header frame).
        event: each event body received (with ``topic`` as the first argument).
        stats: each stats answer (a bare object).
    """

    request: Callable[[Mapping[str, Any]], None] | None = None
    reply: Callable[[Mapping[str, Any]], None] | None = None
    event: Callable[[str, Mapping[str, Any]], None] | None = None
    stats: Callable[[Mapping[str, Any]], None] | None = None


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request, ready to send: its ``op``, its JSON fields (without ``v``, ``id`` and ``op``), the binary
    frames attached after the body, and how to turn the reply's ``result`` into ``T``.

    Build one with the functions of :mod:`layoutd.ops`; pass it to ``Client.call`` / ``Client.submit``.
    """

    op: str
    fields: Mapping[str, Any]
    attachments: tuple[Any, ...] = ()
    decode: Callable[[Mapping[str, Any]], T] = field(default=lambda r: r)
    #: Seconds each attempt waits for the reply (``None``: the client's ``timeout``; ``0`` waits not at all).
    timeout: float | None = field(default=None, compare=False)
    #: Seconds the request may take in all, attempts and retries included (``None``: the client's ``deadline``).
    deadline: float | None = field(default=None, compare=False)

    @property
    def retryable(self) -> bool:
        """May this request be sent again after a timeout or a standby's answer?

        Read-only ops always; a change (``prepare``, ``bounds``, ``update``, ``diff``, ``drop``) only with an
        ``ifVersion`` (a second copy is then refused, ``version_conflict``, instead of being applied twice);
        any other op never.
        """
        if self.op in CHANGE_OPS:
            return self.op in IF_VERSION_OPS and self.fields.get("ifVersion") is not None
        return self.op in READ_ONLY_OPS


def _json_default(value: Any) -> Any:
    tolist = getattr(value, "tolist", None)
    if callable(tolist):  # numpy arrays and scalars, array.array, memoryview
        return tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


_DECODE = json.JSONDecoder().decode
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_json_default).encode


def encode_body(request_id: Any, op: str, fields: Mapping[str, Any]) -> tuple[dict[str, Any], bytes]:
    """The request object (``id`` first, so the daemon can echo it even when it refuses the body unread)
    and its UTF-8 strict-JSON bytes. NaN and infinities are refused here (``ValueError``): strict JSON has
    none."""
    obj: dict[str, Any] = {"v": 1, "id": request_id, "op": op}
    for key, value in fields.items():
        if key not in ("v", "id", "op"):
            obj[key] = value
        elif key == "v":
            obj["v"] = value
    return obj, _ENCODE(obj).encode()


_OP_JSON: dict[str, str] = {}


def encode_request(request_id: int, op: str, fields: Mapping[str, Any]) -> bytes:
    """The bytes :func:`encode_body` makes, without building the request object (when no hook needs it):
    the head ``{"v":1,"id":…,"op":…`` and the fields, encoded once."""
    if "v" in fields or "id" in fields or "op" in fields:
        return encode_body(request_id, op, fields)[1]
    quoted = _OP_JSON.get(op)
    if quoted is None:
        quoted = _OP_JSON[op] = _ENCODE(op)
    rest = _ENCODE(fields if type(fields) is dict else dict(fields))
    return f'{{"v":1,"id":{request_id:d},"op":{quoted}{"," if len(rest) > 2 else ""}{rest[1:]}'.encode()


def _is_buffer(value: Any) -> bool:
    if isinstance(value, (bytes, bytearray, memoryview, array.array)):
        return True
    return hasattr(value, "__array_interface__") and hasattr(value, "dtype")


def encode_attachment(value: Any) -> Any:
    """A per-item size column as the frame to attach: little-endian float64 values, packed.

    ``bytes``/``bytearray`` (and byte-format ``memoryview``s) are sent as they are: they must already hold
    little-endian float64 values. A numpy array is converted (without a copy when it already is contiguous
    ``<f8``), an ``array.array`` or a typed ``memoryview`` likewise.
    """
    if isinstance(value, (bytes, bytearray)):
        return value
    if isinstance(value, memoryview):
        if value.format in ("B", "b", "c"):
            return value if value.contiguous else value.tobytes()
        if value.format in ("d", "<d", "=d") and _LITTLE and value.c_contiguous and value.ndim == 1:
            return value.cast("B")
        return encode_attachment(array.array("d", value.tolist()))
    if isinstance(value, array.array):
        if value.typecode != "d":
            value = array.array("d", value)
        if not _LITTLE:  # pragma: no cover - big-endian hosts
            value = array.array("d", value)
            value.byteswap()
        return memoryview(value).cast("B")
    if hasattr(value, "__array_interface__") and hasattr(value, "dtype"):
        import numpy

        arr = numpy.ascontiguousarray(value, dtype="<f8")
        if arr.ndim != 1:
            raise ValueError(f"a size column must be one-dimensional, not of shape {arr.shape}")
        return arr
    raise TypeError(f"cannot send a {type(value).__name__} as a binary column")


def attach_sections(sections: Any, attachments: list[Any]) -> Any:
    """``sections`` with every binary ``heights``/``aspectRatios``/``widths`` column (a numpy array,
    ``array.array``, ``bytes`` or ``memoryview``) replaced by ``{"frame": k}``, its frame appended to
    ``attachments`` (frame 1 is the first after the body). Lists, tuples and ``{"frame": k}`` stay."""
    if not isinstance(sections, (list, tuple)):
        return sections
    out = []
    for section in sections:
        if isinstance(section, Mapping) and any(_is_buffer(section.get(c)) for c in _SIZE_COLUMNS):
            section = dict(section)
            for column in _SIZE_COLUMNS:
                if _is_buffer(section.get(column)):
                    attachments.append(encode_attachment(section[column]))
                    section[column] = {"frame": len(attachments)}
        out.append(section)
    return out


def frame_bytes(frame: Any) -> bytes:
    """The bytes of a received frame (a ``zmq.Frame`` or ``bytes``)."""
    data = getattr(frame, "bytes", frame)
    return data if isinstance(data, bytes) else bytes(data)


def frame_buffer(frame: Any) -> memoryview:
    """A zero-copy view of a received frame."""
    buffer = getattr(frame, "buffer", None)
    return buffer if isinstance(buffer, memoryview) else memoryview(frame)


def split_reply(frames: Sequence[Any]) -> tuple[dict[str, Any], list[Any]]:
    """The reply object (the frame after the empty delimiter, or the first one) and the frames after it.

    Raises:
        DecodeError: no frames, or a body that is not a JSON object.
    """
    at = 1 if len(frames) >= 2 and len(frames[0]) == 0 else 0  # after the empty delimiter
    if not frames:
        raise DecodeError("an empty reply")
    head = frames[at]
    try:
        obj = _DECODE((head.bytes if type(head) is zmq.Frame else frame_bytes(head)).decode())
    except (UnicodeDecodeError, ValueError) as error:
        raise DecodeError(f"the reply is not JSON: {error}") from None
    if not isinstance(obj, dict):
        raise DecodeError("the reply is not a JSON object")
    return obj, list(frames[at + 1 :]) if len(frames) > at + 1 else []


def decode_binary_attributes(descriptor: Any, frames: Sequence[Any], arrays: BinaryArrays = "auto") -> Columns:
    """Builds :class:`Columns` from a binary reply's ``attributes`` description and its frames.

    Each column must name a frame that exists, a known ``type``, ``"little"`` byte order and the common
    ``count``, and its frame must be exactly ``count × size(type)`` bytes; every frame must be used. Numpy
    arrays view the frames without a copy (``numpy.frombuffer``); memoryviews are cast to the column's
    type (on a big-endian host they are copies, swapped).

    Raises:
        DecodeError: any disagreement between the description and the frames.
    """
    where = "result.attributes"
    if not isinstance(descriptor, Mapping) or descriptor.get("format") != "binary":
        raise DecodeError("binary frames came with a reply whose attributes are not binary", path=where)
    count = descriptor.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise DecodeError(f"{where}.count is not an integer >= 0", path=f"{where}.count")
    kinds = descriptor.get("kinds", list(KINDS))
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        raise DecodeError(f"{where}.kinds is not an array of strings", path=f"{where}.kinds")
    columns = descriptor.get("columns")
    if not isinstance(columns, list):
        raise DecodeError(f"{where}.columns is not an array", path=f"{where}.columns")
    use_numpy = arrays == "numpy" or (arrays == "auto" and numpy_available())
    if use_numpy:
        import numpy
    values: dict[str, Any] = {}
    used: set[int] = set()
    for i, col in enumerate(columns):
        at = f"{where}.columns[{i}]"
        if not isinstance(col, Mapping):
            raise DecodeError(f"{at} is not an object", path=at)
        name, kind, number = col.get("name"), col.get("type"), col.get("frame")
        if not isinstance(name, str):
            raise DecodeError(f"{at}.name is not a string", path=f"{at}.name")
        if kind not in _TYPES:
            raise DecodeError(f"{at}.type {kind!r} is not one of {sorted(_TYPES)}", path=f"{at}.type")
        if col.get("byteOrder", "little") != "little":
            raise DecodeError(f'{at}.byteOrder is not "little"', path=f"{at}.byteOrder")
        if col.get("count", count) != count:
            raise DecodeError(
                f"{at}.count {col.get('count')!r} is not the attributes' count {count}", path=f"{at}.count"
            )
        if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= len(frames):
            raise DecodeError(f"{at}.frame {number!r} names no frame of the {len(frames)} received", path=f"{at}.frame")
        if number in used:
            raise DecodeError(f"{at}.frame {number} is used twice", path=f"{at}.frame")
        used.add(number)
        size, fmt, dtype = _TYPES[kind]
        buffer = frame_buffer(frames[number - 1])
        if buffer.nbytes != count * size:
            raise DecodeError(
                f"column {name!r}: frame {number} has {buffer.nbytes} bytes, not {count} × {size} = {count * size}",
                path=f"{at}.frame",
            )
        if use_numpy:
            column = numpy.frombuffer(buffer, dtype=dtype, count=count)
            column.flags.writeable = False  # a view of the received frame: read it, do not write it
            values[name] = column
        elif _LITTLE or size == 1:
            values[name] = typing.cast(Any, buffer.cast("B")).cast(fmt).toreadonly()
        else:  # pragma: no cover - big-endian hosts
            swapped = array.array(fmt, buffer.tobytes())
            swapped.byteswap()
            values[name] = memoryview(swapped)
    if len(used) != len(frames):
        raise DecodeError(f"{len(frames)} frames came but the attributes describe {len(used)}", path=where)
    missing = [n for n in ("kind", "section", "item", "x", "y", "width", "height") if n not in values]
    if missing:
        raise DecodeError(f"{where}.columns lacks {', '.join(missing)}", path=f"{where}.columns")
    kind_codes = values["kind"]
    if count and int(kind_codes.max() if use_numpy else max(kind_codes)) >= len(kinds):
        raise DecodeError(f"a kind code is beyond the {len(kinds)} kinds named", path=f"{where}.kinds")
    return Columns(
        format="binary",
        kind=kind_codes,
        section=values["section"],
        item=values["item"],
        x=values["x"],
        y=values["y"],
        width=values["width"],
        height=values["height"],
        z_index=values.get("zIndex"),
        kinds=tuple(kinds),
        raw=descriptor,
    )


def decode_reply(
    obj: Mapping[str, Any],
    frames: Sequence[Any],
    call: Call[T],
    arrays: BinaryArrays = "auto",
) -> T:
    """The typed result of a matched reply, or the exception it stands for (returned, not raised).

    Raises:
        ReplyError: (returned) for an error reply; DecodeError for anything undecodable.
    """
    ok = obj.get("ok")
    if ok is False:
        if frames:
            raise DecodeError(
                f"an error reply with {len(frames)} frames after it", op=call.op, request_id=obj.get("id")
            )
        raise error_from_reply(obj, op=call.op)
    if ok is not True:
        raise DecodeError("a reply whose ok is neither true nor false", path="ok", op=call.op, request_id=obj.get("id"))
    result = obj.get("result")
    if not isinstance(result, dict):
        raise DecodeError("a reply without a result object", path="result", op=call.op, request_id=obj.get("id"))
    attributes = result.get("attributes")
    if frames or (
        type(attributes) is not list and isinstance(attributes, Mapping) and attributes.get("format") == "binary"
    ):
        try:
            result = dict(result)
            result["attributes"] = decode_binary_attributes(attributes, frames, arrays)
        except DecodeError as error:
            error.op, error.request_id = call.op, obj.get("id")
            raise
    try:
        return call.decode(result)
    except LayoutdError as error:
        error.op, error.request_id = call.op, obj.get("id")
        raise
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise DecodeError(f"cannot read the {call.op} result: {error}", op=call.op, request_id=obj.get("id")) from None


def standby_error(error: BaseException) -> bool:
    """Is ``error`` an ``unavailable`` answer from a standby broker (the client then fails over)?"""
    return isinstance(error, Unavailable) and error.standby


def as_method(method: Callable[..., Any], builder: Callable[..., Any], returns: str) -> None:
    """Gives ``method`` (an op method wrapping the :mod:`layoutd.ops` function ``builder``) the builder's
    name and doc, and a signature with ``self`` first and ``returns`` (``{}`` is the result type) as its
    return annotation, for ``help()`` and editors."""
    functools.update_wrapper(method, builder)
    del method.__wrapped__  # type: ignore[attr-defined]
    signature = inspect.signature(builder)
    match = re.fullmatch(r"Call\[(.+)\]", str(signature.return_annotation))
    result = match.group(1) if match else "Any"
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    setattr(  # noqa: B010 - a function has no declared __signature__
        method,
        "__signature__",
        signature.replace(
            parameters=[self_param, *signature.parameters.values()], return_annotation=returns.format(result)
        ),
    )
