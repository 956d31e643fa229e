"""Typed events of the events socket (PROTOCOL.md §7), and what a subscriber reports instead of one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .batches import Move, SectionChanges, Size, _item_moves, _paths
from .errors import DecodeError
from .reading import Wire, _raw, member

__all__ = ["Event", "InvalidatedEvent", "BatchEvent", "Resync", "OtherEvent", "parse_event"]


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
