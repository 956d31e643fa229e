"""The parts of a normalized batch (PROTOCOL.md §5.6), shared by ``update``/``diff`` results and ``batch``
events: moves and section changes; and the content size both carry."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import DecodeError
from .reading import _NUM, Wire, member

__all__ = ["Size", "Move", "SectionChanges"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Size(Wire):
    """A ``{"width", "height"}`` pair (``contentSize``)."""

    WHERE = "contentSize"

    width: float = member("width", _NUM)
    height: float = member("height", _NUM)


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
