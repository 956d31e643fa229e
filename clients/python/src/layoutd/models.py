"""Typed replies and events.

Each reply's ``result`` becomes a frozen dataclass; every one keeps the whole object it was read from in
``raw`` (the contract can grow: members this version does not know are there). Attributes come as a list
of :class:`Element` (``format="objects"``) or as one :class:`Columns` (``"columns"`` and ``"binary"``).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import DecodeError

if TYPE_CHECKING:  # pragma: no cover
    import numpy
    import numpy.typing

    ColumnValues = Sequence[Any] | memoryview | numpy.typing.NDArray[Any]
else:
    ColumnValues = Any

__all__ = [
    "Size",
    "Counts",
    "Element",
    "Columns",
    "Attributes",
    "PingResult",
    "LayoutResult",
    "PrepareResult",
    "QueryResult",
    "BoundsResult",
    "Move",
    "SectionChanges",
    "BatchResult",
    "LayoutInfo",
    "ListResult",
    "DropResult",
    "Stats",
    "Event",
    "InvalidatedEvent",
    "BatchEvent",
    "Resync",
    "OtherEvent",
    "KINDS",
    "parse_attributes",
    "parse_event",
]

#: What the ``kind`` codes of the binary format stand for (binary-spec: 0 cell, 1 header, 2 footer,
#: 3 decoration); a reply's own ``kinds`` list wins over this.
KINDS: tuple[str, ...] = ("cell", "header", "footer", "decoration")


def _raw() -> Any:
    """The ``raw`` field: the object as received (not shown in ``repr``, not compared)."""
    return field(default_factory=dict, repr=False, compare=False)


_NUM = (int, float)
#: Reads a member's value (already type-checked) into the field's value; gets the value and its path.
Convert = Callable[[Any, str], Any]


def member(
    wire: str,
    kind: type | tuple[type, ...],
    *,
    convert: Convert | None = None,
    optional: bool = False,
    default: Any = None,
    default_factory: Callable[[], Any] | None = None,
) -> Any:
    """A dataclass field read from the reply member ``wire`` by :meth:`Wire.parse`: of type ``kind`` (a
    ``bool`` is not a number), then ``convert(value, path)`` if given; required, or with ``optional`` left
    at ``default`` (or ``default_factory()``) when the member is missing or ``null``."""
    metadata = {"wire": (wire, kind if isinstance(kind, tuple) else (kind,), convert, optional)}
    if not optional:
        return field(metadata=metadata)
    if default_factory is not None:
        return field(default_factory=default_factory, metadata=metadata)
    return field(default=default, metadata=metadata)


Reader = Callable[[Any, str, Mapping[str, Any]], Any]
_READERS: dict[type, Reader] = {}
#: Exact types that pass a member's check at once (anything else goes through isinstance).
_EXACT = {int: int, float: float, str: str, bool: bool, list: list, Mapping: dict}


def _reader(cls: type) -> Reader:
    """``cls``'s reader: a function made for it (once) that reads every :func:`member` field from an object
    and builds ``cls``: the checks of :func:`member`, inline, as fast as a hand-written parser. When every
    field comes from the object (members and ``raw``), it fills the instance's slots directly, as the
    dataclass's ``__init__`` would (no ``__post_init__``, every field given), without its keyword call."""
    reader = _READERS.get(cls)
    if reader is not None:
        return reader
    every = fields(cls)
    specs = [(f, *f.metadata["wire"]) for f in every if "wire" in f.metadata]
    has_raw = "raw" in cls.__dataclass_fields__  # type: ignore[attr-defined]
    slots = {f.name: _slot(cls, f.name) for f in every}
    direct = len(specs) + has_raw == len(every) and None not in slots.values()
    names: dict[str, Any] = {
        "cls": cls,
        "Mapping": Mapping,
        "_slow": _slow,
        "_not_object": _not_object,
        "_missing": _missing,
        "new": object.__new__,
    }
    head = [
        "def read(obj, where, extra):",
        "    if type(obj) is not dict and not isinstance(obj, Mapping):",
        "        raise _not_object(where)",
        "    try:",
    ]
    body: list[str] = []
    for i, (f, wire, kinds, convert, optional) in enumerate(specs):
        names[f"kinds{i}"] = kinds
        exact = " and ".join(f"type(v{i}) is not {_EXACT[k].__name__}" for k in kinds if k in _EXACT) or "True"
        check = f"v{i} = _slow(v{i}, {wire!r}, kinds{i}, where)"
        if optional:
            body.append(f"    v{i} = obj[{wire!r}] if {wire!r} in obj else None")
            body.append(f"    if v{i} is None:")
            if f.default_factory is not MISSING:
                names[f"factory{i}"] = f.default_factory
                body.append(f"        v{i} = factory{i}()")
            else:
                names[f"default{i}"] = f.default
                body.append(f"        v{i} = default{i}")
            body.append("    else:")
            indent = "        "
        else:
            head.append(f"        v{i} = obj[{wire!r}]")
            indent = "    "
        body.append(f"{indent}if {exact}:")
        body.append(f"{indent}    {check}")
        if convert is not None:
            names[f"convert{i}"] = convert
            body.append(f"{indent}v{i} = convert{i}(v{i}, where + {'.' + wire!r})")
    if len(head) == 4:
        head.append("        pass")
    head += ["    except KeyError as error:", "        raise _missing(where, error.args[0]) from None"]
    values = [(f.name, f"v{i}") for i, (f, *_) in enumerate(specs)] + ([("raw", "obj")] if has_raw else [])
    if direct:
        body.append("    if extra:")
        body.append("        raise TypeError(f'{cls.__name__} takes no other fields: {sorted(extra)}')")
        body.append("    self = new(cls)")
        for name, value in values:
            names[f"set_{name}"] = slots[name].__set__  # type: ignore[union-attr]
            body.append(f"    set_{name}(self, {value})")
        body.append("    return self")
    else:
        body.append(f"    return cls({', '.join(f'{n}={v}' for n, v in values)}, **extra)")
    exec("\n".join(head + body), names)  # noqa: S102 - code made here, from the dataclass's own fields
    reader = _READERS[cls] = typing.cast(Reader, names["read"])
    return reader


def _slot(cls: type, name: str) -> types.MemberDescriptorType | None:
    """The slot descriptor of field ``name`` (``None`` when the field is not a slot)."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            return found if isinstance(found, types.MemberDescriptorType) else None
    return None


def _missing(where: str, wire: str) -> DecodeError:
    return DecodeError(f"{where} has no {wire!r}", path=f"{where}.{wire}")


def _slow(value: Any, wire: str, kinds: tuple[type, ...], where: str) -> Any:
    """A member's value of no exact type of its ``kinds``: itself if it is an instance of one of them (a
    ``bool`` only where ``bool`` is named), else the :class:`~layoutd.errors.DecodeError`."""
    if value is None:
        raise DecodeError(f"{where} has no {wire!r}", path=f"{where}.{wire}")
    if isinstance(value, kinds) and (type(value) is not bool or bool in kinds):
        return value
    names = " or ".join(k.__name__ for k in kinds)
    raise DecodeError(f"{where}.{wire} is {type(value).__name__}, not {names}", path=f"{where}.{wire}")


def _not_object(where: str) -> DecodeError:
    return DecodeError(f"{where} is not an object", path=where)


W = TypeVar("W", bound="Wire")
_NO_EXTRA: Mapping[str, Any] = {}


class Wire:
    """A result read from a reply object: ``parse`` fills the :func:`member` fields (and ``raw``)."""

    __slots__ = ()
    #: Where the object stands in the reply, for errors' paths.
    WHERE = "result"

    @classmethod
    def parse(cls: type[W], obj: Any, where: str | None = None) -> W:
        """Reads ``obj`` (found at ``where``, for errors' paths).

        Raises:
            DecodeError: ``obj`` is not an object, a required member is missing, or one is of the wrong type.
        """
        reader = _READERS.get(cls) or _reader(cls)
        return reader(obj, where or cls.WHERE, _NO_EXTRA)  # type: ignore[no-any-return]

    @classmethod
    def parse_with(cls: type[W], obj: Any, where: str | None = None, **extra: Any) -> W:
        """As :meth:`parse`, with ``extra`` giving the fields not read from ``obj`` (an event's ``topic``)."""
        return _reader(cls)(obj, where or cls.WHERE, extra)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True, kw_only=True)
class Size(Wire):
    """A ``{"width", "height"}`` pair (``contentSize``)."""

    WHERE = "contentSize"

    width: float = member("width", _NUM)
    height: float = member("height", _NUM)


@dataclass(frozen=True, slots=True, kw_only=True)
class Counts(Wire):
    """``counts`` of a ``layout`` or ``prepare`` reply; ``widow_count`` and ``hidden_items`` for ``justified``."""

    WHERE = "counts"

    sections: int = member("sections", int)
    items: int = member("items", int)
    elements: int = member("elements", int)
    widow_count: int | None = member("widowCount", int, optional=True)
    hidden_items: int | None = member("hiddenItems", int, optional=True)
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class Element(Wire):
    """One element of a layout (``format="objects"``): a cell, header, footer or decoration."""

    kind: str = member("kind", str)
    section: int = member("section", int)
    item: int = member("item", int)
    x: float = member("x", _NUM)
    y: float = member("y", _NUM)
    width: float = member("width", _NUM)
    height: float = member("height", _NUM)
    element_kind: str | None = member("elementKind", str, optional=True)
    z_index: int | None = member("zIndex", int, optional=True)

    @property
    def frame(self) -> tuple[float, float, float, float]:
        """``(x, y, width, height)``."""
        return (self.x, self.y, self.width, self.height)


_COLUMN_FIELDS = ("kind", "section", "item", "x", "y", "width", "height")


@dataclass(frozen=True, slots=True, kw_only=True)
class Columns:
    """Attributes as one sequence per field (``format="columns"`` or ``"binary"``).

    With ``"columns"`` every column is a ``list`` and ``kind`` holds names (``"cell"``, …). With
    ``"binary"`` every column is a numpy array viewing the received frame without a copy (read-only), or,
    without numpy (or with ``binary_arrays="memoryview"``), a ``memoryview`` cast to the column's type;
    ``kind`` then holds codes indexing :attr:`kinds`. :meth:`kind_names` gives names in both cases.
    ``z_index`` is there only for a ``query`` with ``pin``.
    """

    format: str
    kind: ColumnValues
    section: ColumnValues
    item: ColumnValues
    x: ColumnValues
    y: ColumnValues
    width: ColumnValues
    height: ColumnValues
    z_index: ColumnValues | None = None
    kinds: tuple[str, ...] | None = None
    raw: Mapping[str, Any] = _raw()

    def __len__(self) -> int:
        return len(self.kind)

    def kind_names(self) -> list[str]:
        """``kind`` as names, whatever the format."""
        if self.kinds is None:
            return [str(k) for k in self.kind]
        names = self.kinds
        return [names[int(k)] for k in self.kind]

    def column(self, name: str) -> ColumnValues | None:
        """A column by its wire name (``"zIndex"`` or ``"z_index"`` both work)."""
        value: ColumnValues | None = getattr(self, "z_index" if name in ("zIndex", "z_index") else name)
        return value

    def to_lists(self) -> dict[str, list[Any]]:
        """Every column as a plain list, keyed by wire name (``kind`` as names), as ``"columns"`` sends them."""
        out: dict[str, list[Any]] = {"kind": self.kind_names()}
        for name in _COLUMN_FIELDS[1:]:
            out[name] = [_plain(v) for v in getattr(self, name)]
        if self.z_index is not None:
            out["zIndex"] = [_plain(v) for v in self.z_index]
        return out

    def elements(self) -> list[Element]:
        """The same elements as ``format="objects"`` would list (``elementKind`` set for decorations)."""
        lists = self.to_lists()
        z = lists.get("zIndex")
        out = []
        for i, kind in enumerate(lists["kind"]):
            out.append(
                Element(
                    kind=kind,
                    section=int(lists["section"][i]),
                    item=int(lists["item"][i]),
                    x=lists["x"][i],
                    y=lists["y"][i],
                    width=lists["width"][i],
                    height=lists["height"][i],
                    element_kind="sectionBackground" if kind == "decoration" else None,
                    z_index=int(z[i]) if z is not None else (-1 if kind == "decoration" else None),
                )
            )
        return out

    def __iter__(self) -> Iterator[Element]:
        return iter(self.elements())


def _plain(value: Any) -> Any:
    item = getattr(value, "item", None)
    return item() if callable(item) else value


#: ``attributes`` of a reply: elements (``"objects"``) or columns (``"columns"``, ``"binary"``).
Attributes = list[Element] | Columns


def parse_attributes(value: Any, where: str = "result.attributes") -> Attributes:
    """Reads ``attributes`` in the objects or columns format (binary columns are built by the client)."""
    if isinstance(value, Columns):
        return value
    if isinstance(value, list):
        read = _reader(Element)
        try:
            return [read(obj, where, _NO_EXTRA) for obj in value]
        except DecodeError:
            for i, obj in enumerate(value):  # again, for the path of the element at fault
                Element.parse(obj, f"{where}[{i}]")
            raise
    if isinstance(value, Mapping):
        columns: dict[str, list[Any]] = {}
        length = None
        for name in (*_COLUMN_FIELDS, "zIndex"):
            col = value.get(name)
            if col is None and name == "zIndex":
                continue
            if not isinstance(col, list):
                raise DecodeError(f"{where}.{name} is not an array", path=f"{where}.{name}")
            if length is not None and len(col) != length:
                raise DecodeError(f"{where}.{name} has {len(col)} values, not {length}", path=f"{where}.{name}")
            length = len(col)
            columns[name] = col
        return Columns(
            format="columns",
            kind=columns["kind"],
            section=columns["section"],
            item=columns["item"],
            x=columns["x"],
            y=columns["y"],
            width=columns["width"],
            height=columns["height"],
            z_index=columns.get("zIndex"),
            raw=value,
        )
    raise DecodeError(f"{where} is neither an array nor an object")


#: The types ``attributes`` may have once the client decoded binary frames (checked by parse_attributes).
_ATTRIBUTES = (list, Mapping, Columns)


@dataclass(frozen=True, slots=True, kw_only=True)
class PingResult(Wire):
    """``ping``: the daemon's version, its layout types and its uptime."""

    version: str = member("version", str)
    layouts: list[str] = member("layouts", list)
    uptime_seconds: float = member("uptimeSeconds", _NUM)
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class LayoutResult(Wire):
    """``layout``: the computed layout (nothing is kept). ``attributes`` is ``None`` with ``return_="none"``."""

    content_size: Size = member("contentSize", Mapping, convert=Size.parse)
    counts: Counts = member("counts", Mapping, convert=Counts.parse)
    attributes: Attributes | None = member("attributes", _ATTRIBUTES, convert=parse_attributes, optional=True)
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class PrepareResult(Wire):
    """``prepare``: the key, its new version, content size and counts; ``attributes`` only with ``return_``."""

    layout: str = member("layout", str)
    version: int = member("version", int)
    content_size: Size = member("contentSize", Mapping, convert=Size.parse)
    counts: Counts = member("counts", Mapping, convert=Counts.parse)
    attributes: Attributes | None = member("attributes", _ATTRIBUTES, convert=parse_attributes, optional=True)
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryResult(Wire):
    """``query``: the layout's current version and the elements asked for, in layout order."""

    version: int = member("version", int)
    attributes: Attributes = member("attributes", _ATTRIBUTES, convert=parse_attributes)
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class BoundsResult(Wire):
    """``bounds``: whether the size changed (``invalidated``), the version, the content size."""

    invalidated: bool = member("invalidated", bool)
    version: int = member("version", int)
    content_size: Size | None = member("contentSize", Mapping, convert=Size.parse, optional=True)
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class Move:
    """A move in a normalized batch: ``from_`` and ``to`` are ``(section, item)`` (or section indices)."""

    from_: Any
    to: Any


def _index_path(value: Any) -> tuple[int, int] | None:
    if isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value):
        return (value[0], value[1])
    return None


def _section_index(value: Any) -> int | None:
    return value if type(value) is int else None


def _each(value: list[Any], where: str, read: Callable[[Any], Any], what: str) -> list[Any]:
    out = []
    for i, v in enumerate(value):
        got = read(v)
        if got is None:
            raise DecodeError(f"{where}[{i}] is not {what}", path=f"{where}[{i}]")
        out.append(got)
    return out


def _paths(value: list[Any], where: str) -> list[tuple[int, int]]:
    return _each(value, where, _index_path, "an index path")


def _ints(value: list[Any], where: str) -> list[int]:
    return _each(value, where, _section_index, "an integer")


def _mover(index: Callable[[Any], Any]) -> Callable[[Any], Move | None]:
    def move(m: Any) -> Move | None:
        if not isinstance(m, Mapping):
            return None
        source, target = index(m.get("from")), index(m.get("to"))
        return None if source is None or target is None else Move(from_=source, to=target)

    return move


_ITEM_MOVE, _SECTION_MOVE = _mover(_index_path), _mover(_section_index)


def _item_moves(value: list[Any], where: str) -> list[Move]:
    return _each(value, where, _ITEM_MOVE, "a move")


def _section_moves(value: list[Any], where: str) -> list[Move]:
    return _each(value, where, _SECTION_MOVE, "a move")


@dataclass(frozen=True, slots=True, kw_only=True)
class SectionChanges(Wire):
    """The section part of a normalized batch (a missing member is empty)."""

    deletes: list[int] = member("deletes", list, convert=_ints, optional=True, default_factory=list)
    inserts: list[int] = member("inserts", list, convert=_ints, optional=True, default_factory=list)
    moves: list[Move] = member("moves", list, convert=_section_moves, optional=True, default_factory=list)
    reloads: list[int] = member("reloads", list, convert=_ints, optional=True, default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchResult(Wire):
    """``update`` and ``diff``: the normalized batch (PROTOCOL.md §5.6), the new version and content size.
    (A member of the batch that is missing is empty.)"""

    version: int = member("version", int)
    content_size: Size = member("contentSize", Mapping, convert=Size.parse)
    deletes: list[tuple[int, int]] = member("deletes", list, convert=_paths, optional=True, default_factory=list)
    inserts: list[tuple[int, int]] = member("inserts", list, convert=_paths, optional=True, default_factory=list)
    moves: list[Move] = member("moves", list, convert=_item_moves, optional=True, default_factory=list)
    reloads: list[tuple[int, int]] = member("reloads", list, convert=_paths, optional=True, default_factory=list)
    sections: SectionChanges = member(
        "sections", Mapping, convert=SectionChanges.parse, optional=True, default_factory=SectionChanges
    )
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class LayoutInfo(Wire):
    """One entry of ``list``; ``namespace`` only in an admin's list with CURVE."""

    layout: str = member("layout", str)
    version: int = member("version", int)
    items: int = member("items", int)
    bytes: int = member("bytes", int)
    namespace: str | None = member("namespace", str, optional=True)
    raw: Mapping[str, Any] = _raw()


def _layout_infos(value: list[Any], where: str) -> list[LayoutInfo]:
    return [LayoutInfo.parse(obj, f"{where}[{i}]") for i, obj in enumerate(value)]


@dataclass(frozen=True, slots=True, kw_only=True)
class ListResult(Wire):
    """``list``: the kept layouts, sorted by key (by namespace, then key, for an admin)."""

    layouts: list[LayoutInfo] = member("layouts", list, convert=_layout_infos)
    #: The key to pass as ``after`` for the next page; ``None`` on the last page.
    next: str | None = member("next", str, optional=True)
    raw: Mapping[str, Any] = _raw()

    def __iter__(self) -> Iterator[LayoutInfo]:
        return iter(self.layouts)

    def __len__(self) -> int:
        return len(self.layouts)

    def get(self, layout: str) -> LayoutInfo | None:
        """The entry of ``layout``, or ``None``."""
        return next((info for info in self.layouts if info.layout == layout), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class DropResult(Wire):
    """``drop``: the key and the version its ``invalidated`` (``dropped``) event carries."""

    layout: str = member("layout", str)
    version: int = member("version", int)
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class Stats(Wire):
    """The stats socket's answer (PROTOCOL.md §8); ``cluster`` only from a cluster's broker."""

    WHERE = "stats"

    uptime_seconds: float = member("uptimeSeconds", _NUM)
    requests: Mapping[str, int] = member("requests", Mapping)
    errors: Mapping[str, int] = member("errors", Mapping, optional=True, default_factory=dict)
    in_flight: int | None = member("inFlight", int, optional=True)
    queued: int | None = member("queued", int, optional=True)
    workers: Mapping[str, Any] = member("workers", Mapping, optional=True, default_factory=dict)
    latency_micros: Mapping[str, Any] = member("latencyMicros", Mapping, optional=True, default_factory=dict)
    items_prepared: int | None = member("itemsPrepared", int, optional=True)
    layouts: Mapping[str, Any] = member("layouts", Mapping, optional=True, default_factory=dict)
    events_published: int | None = member("eventsPublished", int, optional=True)
    subscribers: int | None = member("subscribers", int, optional=True)
    auth_failures: int | None = member("authFailures", int, optional=True)
    cluster: Mapping[str, Any] | None = member("cluster", Mapping, optional=True)
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class Event(Wire):
    """An event of the events socket (PROTOCOL.md §7). ``topic`` is without the CURVE key prefix."""

    WHERE = "event"

    event: str = member("event", str)
    topic: str
    layout: str = member("layout", str)
    version: int = member("version", int)
    content_size: Size | None = member("contentSize", Mapping, convert=Size.parse, optional=True)
    raw: Mapping[str, Any] = _raw()


@dataclass(frozen=True, slots=True, kw_only=True)
class InvalidatedEvent(Event):
    """``invalidated:<layout>``: ``reason`` is ``replaced``, ``bounds``, ``dropped``, ``evicted`` or ``lost``."""

    reason: str = member("reason", str)


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchEvent(Event):
    """``batch:<layout>``: the normalized batch an ``update`` or ``diff`` applied (as in :class:`BatchResult`)."""

    deletes: list[tuple[int, int]] = member("deletes", list, convert=_paths, optional=True, default_factory=list)
    inserts: list[tuple[int, int]] = member("inserts", list, convert=_paths, optional=True, default_factory=list)
    moves: list[Move] = member("moves", list, convert=_item_moves, optional=True, default_factory=list)
    reloads: list[tuple[int, int]] = member("reloads", list, convert=_paths, optional=True, default_factory=list)
    sections: SectionChanges = member(
        "sections", Mapping, convert=SectionChanges.parse, optional=True, default_factory=SectionChanges
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Resync:
    """Reported by a subscriber instead of an event that showed a gap (PROTOCOL.md §7, Gaps).

    The subscriber saw ``event`` (version ``event.version``) after ``last_version`` (a jump, or a repeated
    version), did not apply it, and issued one ``query`` for ``layout`` through its client. ``result`` is
    that query's answer (its ``version`` is the new baseline, ``version`` here), or ``None`` when the query
    failed (``error``: e.g. :class:`~layoutd.errors.UnknownLayout` after a drop) or there was no client.
    """

    layout: str
    last_version: int
    event: Event
    version: int
    result: Any = None
    error: Exception | None = None


@dataclass(frozen=True, slots=True)
class OtherEvent:
    """An event of a kind this client does not know (``route``, another subscriber's ``subscribed``, a
    newer daemon's): subscribers skip it (PROTOCOL.md §7), keeping the last ones in ``Subscriber.others``,
    or hand it over with ``yield_others=True``. ``event`` is the body's ``event`` member, if a string."""

    topic: str
    event: str | None
    raw: Any = field(repr=False)


_EVENT_CLASSES: dict[str, type[Event]] = {"invalidated": InvalidatedEvent, "batch": BatchEvent}


def parse_event(topic: str, body: Any) -> Event:
    """Reads an event body; an ``event`` other than ``invalidated``/``batch`` gives a plain :class:`Event`.

    Raises:
        DecodeError: not an object, or ``event``, ``layout`` or ``version`` missing.
    """
    if not isinstance(body, Mapping):
        raise DecodeError("an event body that is not a JSON object")
    kind = body.get("event")
    cls = _EVENT_CLASSES.get(kind, Event) if isinstance(kind, str) else Event
    return cls.parse_with(body, "event", topic=topic)
