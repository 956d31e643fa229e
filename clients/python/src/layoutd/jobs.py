"""Typed job builders: TypedDicts for a layout's spec, its per-section ``params``, sections and items
(PROTOCOL.md §4), so that an editor completes a job and mypy checks it. They are plain dicts at run time:
``prepare(spec={"type": "list", "itemHeight": 44})`` and ``prepare(spec=ListSpec(type="list", itemHeight=44))``
send the same request. Their members are those of docs/schema/common.schema.json (a test checks that they
stay the same).

Example::

    from layoutd.jobs import ListSpec, Section

    spec = ListSpec(type="list", itemHeight=44, sectionInsets={"top": 8, "bottom": 8})
    sections = [Section(count=3, ids=["a", "b", "c"], heights=[44, 60, 44])]
    client.prepare("feed", bounds=(375, 667), spec=spec, sections=sections)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

__all__ = [
    "Insets",
    "Item",
    "Section",
    "Spec",
    "Params",
    "LAYOUT_TYPES",
    "ColumnFlowParams",
    "ColumnFlowSpec",
    "MosaicParams",
    "MosaicSpec",
    "WaterfallParams",
    "WaterfallSpec",
    "ListParams",
    "ListSpec",
    "ColumnsParams",
    "ColumnsSpec",
    "FlowParams",
    "FlowSpec",
    "JustifiedParams",
    "JustifiedSpec",
]

#: The layouts ``spec.type`` picks from.
LAYOUT_TYPES = ("columnFlow", "mosaic", "waterfall", "list", "columns", "flow", "justified")


class Sides(TypedDict, total=False):
    """Insets side by side (missing sides are 0)."""

    top: float
    left: float
    bottom: float
    right: float


#: A number (all four sides) or :class:`Sides`.
Insets = float | Sides


class ColumnFlowParams(TypedDict, total=False):
    """``columnFlow`` parameters (PROTOCOL.md §4.4): a section's ``params``, and the members of its spec."""

    header: float
    footer: float
    minColumnWidth: float
    cellHeight: float
    margins: Insets
    interitemSpacing: float
    lineSpacing: float


class ColumnFlowSpec(ColumnFlowParams):
    """A ``columnFlow`` spec: ``{"type": "columnFlow", parameters…}``."""

    type: Literal["columnFlow"]


class MosaicParams(TypedDict, total=False):
    """``mosaic`` parameters (PROTOCOL.md §4.4): a section's ``params``, and the members of its spec."""

    header: float
    footer: float
    segmentHeight: float
    spacing: float


class MosaicSpec(MosaicParams):
    """A ``mosaic`` spec: ``{"type": "mosaic", parameters…}``."""

    type: Literal["mosaic"]


class WaterfallParams(TypedDict, total=False):
    """``waterfall`` parameters (PROTOCOL.md §4.4): a section's ``params``, and the members of its spec."""

    header: float
    footer: float
    columns: int
    cellPadding: float
    itemHeight: float
    columnWidth: float | None
    columnSpacing: float
    interitemSpacing: float
    sectionInsets: Insets
    tieBreak: Literal["first", "last"]


class WaterfallSpec(WaterfallParams):
    """A ``waterfall`` spec: ``{"type": "waterfall", parameters…}``."""

    type: Literal["waterfall"]


class ListParams(TypedDict, total=False):
    """``list`` parameters (PROTOCOL.md §4.4): a section's ``params``, and the members of its spec."""

    header: float
    footer: float
    itemHeight: float
    spacing: float
    sectionInsets: Insets
    insetSupplementaryViews: bool


class ListSpec(ListParams):
    """A ``list`` spec: ``{"type": "list", parameters…}``."""

    type: Literal["list"]


class ColumnsParams(TypedDict, total=False):
    """``columns`` parameters (PROTOCOL.md §4.4): a section's ``params``, and the members of its spec."""

    header: float
    footer: float
    columnCount: int
    columnSpacing: float
    interitemSpacing: float
    itemHeight: float
    sectionInsets: Insets
    insetSupplementaryViews: bool
    placement: Literal["leftToRight", "rightToLeft", "shortestFirst"]


class ColumnsSpec(ColumnsParams):
    """A ``columns`` spec: ``{"type": "columns", parameters…}``."""

    type: Literal["columns"]


class FlowParams(TypedDict, total=False):
    """``flow`` parameters (PROTOCOL.md §4.4): a section's ``params``, and the members of its spec."""

    header: float
    footer: float
    interitemSpacing: float
    interspanSpacing: float | None
    spanGroupSpacingBefore: float | None
    spanGroupSpacingAfter: float | None
    defaultItemSize: Mapping[str, float]
    sectionInsets: Insets
    rowTransform: Literal["none", "center", "fill"]
    fillMaxScale: float


class FlowSpec(FlowParams):
    """A ``flow`` spec: ``{"type": "flow", parameters…}``."""

    type: Literal["flow"]


class JustifiedParams(TypedDict, total=False):
    """``justified`` parameters (PROTOCOL.md §4.4): a section's ``params``, and the members of its spec."""

    header: float
    footer: float
    targetRowHeight: float
    targetRowHeightTolerance: float
    boxSpacing: Mapping[str, float] | float
    maxNumRows: int | None
    forceAspectRatio: Any | float | None
    showWidows: bool
    fullWidthBreakoutRowCadence: Any | int | None
    widowLayoutStyle: Literal["left", "justify", "center"]
    sectionInsets: Insets


class JustifiedSpec(JustifiedParams):
    """A ``justified`` spec: ``{"type": "justified", parameters…}``."""

    type: Literal["justified"]


class Item(TypedDict, total=False):
    """An item of a section's ``items`` (PROTOCOL.md §4.5): every member optional."""

    id: str | int
    height: float
    aspectRatio: float
    width: float
    span: bool


#: Any layout's spec.
Spec = ColumnFlowSpec | MosaicSpec | WaterfallSpec | ListSpec | ColumnsSpec | FlowSpec | JustifiedSpec
#: Any layout's parameters (a section's ``params``).
Params = ColumnFlowParams | MosaicParams | WaterfallParams | ListParams | ColumnsParams | FlowParams | JustifiedParams


class Section(TypedDict, total=False):
    """A section (PROTOCOL.md §4.5): ``count`` alone, ``items``, or columns (``heights``, ``aspectRatios``,
    ``widths`` as lists, or numpy arrays, ``array.array('d')``, bytes sent as binary frames), with ``ids``,
    ``header``/``footer`` heights and ``params`` overriding the spec's."""

    count: int
    items: Sequence[Item]
    heights: Any
    aspectRatios: Any
    widths: Any
    spans: Sequence[bool | None]
    ids: Sequence[str | int]
    header: float | None
    footer: float | None
    params: Params
