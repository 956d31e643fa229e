"""One function per op, building a :class:`~layoutd.wire.Call` (a request ready to send).

The clients expose the same functions as methods (``client.query(...)``), so these signatures are the
client's too. Keyword arguments are named as in docs/PROTOCOL.md, in Python style where the wire name is
camelCase or a keyword: ``content_insets`` → ``contentInsets``, ``layout_direction`` → ``layoutDirection``,
``if_version`` → ``ifVersion``, ``return_`` → ``return``. ``extra`` is the escape hatch: its members are
added to the request as they are (and win over the named arguments), for fields this client does not
know yet. Every op takes ``timeout`` (seconds each attempt waits; ``0`` waits not at all) and
``deadline`` (seconds the request may take in all, retries included), over the client's own.

Rects and bounds may be given as mappings (``{"x", "y", "width", "height"}``) or tuples (``(x, y, width,
height)``, ``(width, height)``). Per-item size columns in ``sections`` (``heights``, ``aspectRatios``,
``widths``) of ``layout``, ``prepare`` and ``diff`` may be numpy arrays, ``array.array('d')``,
``memoryview``s or little-endian float64 ``bytes``: they are sent as binary frames after the body
(``{"frame": k}``), not as JSON (the daemon reads frames in the top-level ``sections`` only; a numpy array
inside an ``update`` goes as a JSON list).
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from .errors import InvalidInput
from .inputs import seconds
from .jobs import Section, Spec
from .models import (
    BatchResult,
    BoundsResult,
    DropResult,
    LayoutResult,
    ListResult,
    PingResult,
    PrepareResult,
    QueryResult,
)
from .wire import Call, attach_sections

__all__ = [
    "ping",
    "layout",
    "prepare",
    "query",
    "bounds",
    "update",
    "diff",
    "list_layouts",
    "drop",
    "Rect",
    "BoundsArg",
    "Format",
    "Extra",
    "as_rect",
]

#: ``{"x", "y", "width", "height"}`` or ``(x, y, width, height)``.
Rect = Mapping[str, float] | Sequence[float]
#: ``{"width", "height"}`` (``x``/``y`` allowed and ignored) or ``(width, height)``.
BoundsArg = Mapping[str, float] | Sequence[float]
#: ``format``: ``"objects"`` (default), ``"columns"`` or ``"binary"``.
Format = Literal["objects", "columns", "binary"]
#: Extra request fields, sent as they are.
Extra = Mapping[str, Any] | None


def as_rect(value: Rect, path: str = "rect") -> Mapping[str, float]:
    """A rect as the wire wants it (:class:`~layoutd.errors.InvalidInput` at ``path`` for a sequence that
    is not four numbers)."""
    kind = type(value)
    if kind is dict:
        return value  # type: ignore[return-value]
    if (kind is tuple or kind is list) and len(value) == 4:  # the common case, without the ABC checks
        x, y, w, h = typing.cast("Sequence[float]", value)
        return {"x": x, "y": y, "width": w, "height": h}
    if isinstance(value, Mapping):
        return value
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 4:
        raise InvalidInput(f"a rect is a mapping or (x, y, width, height), not {value!r}", path)
    x, y, w, h = value
    return {"x": x, "y": y, "width": w, "height": h}


def _bounds(value: BoundsArg) -> Mapping[str, float]:
    if isinstance(value, Mapping):
        return value
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and len(value) == 2:
        return {"width": value[0], "height": value[1]}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and len(value) == 4:
        return as_rect(value, "bounds")
    raise InvalidInput(f"bounds are a mapping, (width, height) or (x, y, width, height), not {value!r}", "bounds")


def _options(call: Call[Any], timeout: float | None, deadline: float | None) -> Call[Any]:
    """``call`` with the request's own ``timeout`` and ``deadline`` (seconds; 0 means 0)."""
    if timeout is None and deadline is None:
        return call
    return replace(
        call, timeout=seconds(timeout, "timeout", optional=True), deadline=seconds(deadline, "deadline", optional=True)
    )


def _fields(base: dict[str, Any], extra: Extra) -> dict[str, Any]:
    fields = {k: v for k, v in base.items() if v is not None}
    if extra:
        fields.update(extra)
    return fields


def _input_call(
    op: str,
    decode: Any,
    head: dict[str, Any],
    bounds: BoundsArg,
    spec: Spec | Mapping[str, Any],
    sections: Sequence[Section | Mapping[str, Any]],
    content_insets: Any,
    decorations: Mapping[str, Any] | None,
    layout_direction: str | None,
    return_: Any,
    format: str | None,
    extra: Extra,
) -> Call[Any]:
    """A ``layout`` or ``prepare``: ``head`` (the key, ``ifVersion``) and the layout input (§4), binary size
    columns attached as frames."""
    if isinstance(return_, (tuple, list)):
        return_ = {"rect": as_rect(return_, "return.rect")}
    elif isinstance(return_, Mapping) and "rect" in return_:
        return_ = {**return_, "rect": as_rect(return_["rect"], "return.rect")}
    attachments: list[Any] = []
    fields = {
        **head,
        "bounds": _bounds(bounds),
        "spec": spec,
        "contentInsets": content_insets,
        "decorations": decorations,
        "layoutDirection": layout_direction,
        "sections": attach_sections(sections, attachments),
        "return": return_,
        "format": format,
    }
    return Call(op, _fields(fields, extra), tuple(attachments), decode)


def ping(*, extra: Extra = None, timeout: float | None = None, deadline: float | None = None) -> Call[PingResult]:
    """``ping``: the daemon's version, layout types and uptime (§5.1)."""
    return _options(Call("ping", _fields({}, extra), (), PingResult.parse), timeout, deadline)


def layout(
    *,
    bounds: BoundsArg,
    spec: Spec | Mapping[str, Any],
    sections: Sequence[Section | Mapping[str, Any]],
    content_insets: Any = None,
    decorations: Mapping[str, Any] | None = None,
    layout_direction: str | None = None,
    return_: Any = None,
    format: Format | None = None,
    extra: Extra = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> Call[LayoutResult]:
    """``layout``: compute a layout and answer it, keeping nothing (§5.2).

    Args:
        bounds: the view's size.
        spec: ``{"type": …, parameters…}`` (§4.4).
        sections: the sections (§4.5); size columns may be binary (see the module's doc).
        content_insets: ``contentInsets`` (§4.2).
        decorations: e.g. ``{"sectionBackground": True}`` (§4.3).
        layout_direction: ``"leftToRight"`` or ``"rightToLeft"`` (§4.8).
        return_: ``"all"`` (default here), ``"none"``, ``{"rect": …}`` or a rect tuple (§6).
        format: ``"objects"``, ``"columns"`` or ``"binary"`` (§6).
        extra: more request fields, sent as they are.
    """
    return _options(
        _input_call(
            "layout",
            LayoutResult.parse,
            {},
            bounds,
            spec,
            sections,
            content_insets,
            decorations,
            layout_direction,
            return_,
            format,
            extra,
        ),
        timeout,
        deadline,
    )


def prepare(
    layout: str,
    *,
    bounds: BoundsArg,
    spec: Spec | Mapping[str, Any],
    sections: Sequence[Section | Mapping[str, Any]],
    content_insets: Any = None,
    decorations: Mapping[str, Any] | None = None,
    layout_direction: str | None = None,
    return_: Any = None,
    format: Format | None = None,
    if_version: int | None = None,
    extra: Extra = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> Call[PrepareResult]:
    """``prepare``: compute a layout and keep it under the key ``layout`` (§5.3).

    The same input as :func:`layout`; ``return_`` defaults to ``"none"`` here. Replacing a kept layout
    raises its version and publishes ``invalidated`` (``replaced``).

    Args:
        if_version: ``ifVersion``: prepare only if the key is at this version: ``0`` for a key never
            prepared ("create, never replace"), else its kept layout's version, or the version of its last
            ``dropped``/``evicted``/``lost`` event (else :class:`~layoutd.errors.VersionConflict`). With it
            the client may send the prepare again after a timeout or a standby's answer (a second copy is
            refused); without it an unanswered prepare raises :class:`~layoutd.errors.OutcomeUnknown`.
    """
    return _options(
        _input_call(
            "prepare",
            PrepareResult.parse,
            {"layout": layout, "ifVersion": if_version},
            bounds,
            spec,
            sections,
            content_insets,
            decorations,
            layout_direction,
            return_,
            format,
            extra,
        ),
        timeout,
        deadline,
    )


def query(
    layout: str,
    *,
    rect: Rect | None = None,
    items: Sequence[Sequence[int]] | None = None,
    supplementary: Mapping[str, Any] | None = None,
    pin: Mapping[str, bool] | None = None,
    dynamics: Mapping[str, Any] | None = None,
    format: Format | None = None,
    namespace: str | None = None,
    extra: Extra = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> Call[QueryResult]:
    """``query``: elements of a kept layout, by exactly one of ``rect``, ``items`` or ``supplementary`` (§5.4).

    Args:
        layout: the key.
        rect: elements overlapping it; with ``pin`` (``{"headers": True, "footers": True}``) and/or
            ``dynamics`` (``{"scrollDelta", "touch", "resistance"}``) it is the visible bounds.
        items: index paths ``[[section, item], …]``.
        supplementary: ``{"kind": "header"|"footer"|"decoration", "sections": [...]}``.
        format: ``"objects"``, ``"columns"`` or ``"binary"``.
        namespace: an admin's read of another namespace (CURVE).
    """
    fields: dict[str, Any] = {"layout": layout}  # (the hot path of small reads: no _fields pass)
    if rect is not None:
        fields["rect"] = as_rect(rect)
    if items is not None:
        fields["items"] = items
    if supplementary is not None:
        fields["supplementary"] = supplementary
    if pin is not None:
        fields["pin"] = pin
    if dynamics is not None:
        fields["dynamics"] = dynamics
    if format is not None:
        fields["format"] = format
    if namespace is not None:
        fields["namespace"] = namespace
    if extra:
        fields.update(extra)
    return _options(Call("query", fields, (), QueryResult.parse), timeout, deadline)


def bounds(
    layout: str,
    *,
    bounds: BoundsArg,
    if_version: int | None = None,
    extra: Extra = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> Call[BoundsResult]:
    """``bounds``: new bounds for a kept layout; it changes (version + 1, ``invalidated``/``bounds``) only
    when the size does (§5.5). ``if_version`` as for :func:`update`."""
    fields = {"layout": layout, "ifVersion": if_version, "bounds": _bounds(bounds)}
    return _options(Call("bounds", _fields(fields, extra), (), BoundsResult.parse), timeout, deadline)


def update(
    layout: str,
    *,
    updates: Sequence[Mapping[str, Any]],
    if_version: int | None = None,
    extra: Extra = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> Call[BatchResult]:
    """``update``: apply a batch all or nothing (§5.6); the reply is the normalized batch.

    Args:
        updates: ``{"delete": [s, i]}``, ``{"insert": [s, i], "item": {…}}``, ``{"move": …}``, …
        if_version: ``ifVersion``: apply only at this version (else :class:`~layoutd.errors.VersionConflict`).
            With it the client may send the change again after a timeout or a standby's answer (a second
            copy is refused, never applied twice); without it an unanswered change raises
            :class:`~layoutd.errors.OutcomeUnknown`. The same holds for ``prepare``, ``bounds`` and ``drop``.
    """
    fields = {"layout": layout, "ifVersion": if_version, "updates": updates}
    return _options(Call("update", _fields(fields, extra), (), BatchResult.parse), timeout, deadline)


def diff(
    layout: str,
    *,
    sections: Sequence[Any],
    if_version: int | None = None,
    extra: Extra = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> Call[BatchResult]:
    """``diff``: send the complete new contents (every non-empty section with ids); the daemon finds,
    applies and answers the batch (§5.7). ``if_version`` as for :func:`update`."""
    attachments: list[Any] = []
    fields = {"layout": layout, "ifVersion": if_version, "sections": attach_sections(sections, attachments)}
    return _options(Call("diff", _fields(fields, extra), tuple(attachments), BatchResult.parse), timeout, deadline)


def list_layouts(
    *,
    after: str | None = None,
    limit: int | None = None,
    prefix: str | None = None,
    extra: Extra = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> Call[ListResult]:
    """``list``: the kept layouts, sorted by key (§5.8), a page at a time: ``after`` a key (the previous
    page's ``next``), at most ``limit`` of them (1…10000; the daemon's page without it), only those whose key
    starts with ``prefix``. The result's ``next`` is set when more remain (``Client.iter_layouts`` follows it)."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000):
        raise InvalidInput(f"limit must be an integer from 1 to 10000, not {limit!r}", "limit")
    fields = _fields({"after": after, "limit": limit, "prefix": prefix}, extra)
    return _options(Call("list", fields, (), ListResult.parse), timeout, deadline)


def drop(
    layout: str,
    *,
    if_version: int | None = None,
    extra: Extra = None,
    timeout: float | None = None,
    deadline: float | None = None,
) -> Call[DropResult]:
    """``drop``: forget a kept layout (publishes ``invalidated``/``dropped``) (§5.9). ``if_version`` as for
    :func:`update`: only a layout kept at that version is dropped. (A second copy of a drop that was applied
    finds no layout: the daemon answers it ``unknown_layout``, :class:`~layoutd.errors.UnknownLayout`.)"""
    return _options(
        Call("drop", _fields({"layout": layout, "ifVersion": if_version}, extra), (), DropResult.parse),
        timeout,
        deadline,
    )
