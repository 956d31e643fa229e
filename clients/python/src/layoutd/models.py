"""Typed replies and events (the events and the parts of a batch are in :mod:`layoutd.event_types` and
:mod:`layoutd.batches`, re-exported here).

Each reply's ``result`` becomes a frozen dataclass; every one keeps the whole object it was read from in
``raw`` (the contract can grow: members this version does not know are there). Attributes come as a list
of :class:`Element` (``format="objects"``) or as one :class:`Columns` (``"columns"`` and ``"binary"``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .batches import Move, SectionChanges, Size, _item_moves, _paths
from .errors import DecodeError
from .event_types import BatchEvent, Event, InvalidatedEvent, OtherEvent, Resync, parse_event
from .reading import _NO_EXTRA, _NUM, Wire, _raw, _reader, member

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
