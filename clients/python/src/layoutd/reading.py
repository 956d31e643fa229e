"""How replies and events become typed values: :func:`member` fields, read by :class:`Wire`'s ``parse``
through a reader generated once per class (:func:`_reader`)."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, field, fields
from typing import Any, TypeVar

from .errors import DecodeError

__all__ = ["Wire", "member", "Convert", "Reader"]


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
