"""Checks of what the caller gives, before anything is sent: every refusal is an
:class:`~layoutd.errors.InvalidInput` naming the field as the daemon would (``sections[0].heights[1]``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import InvalidInput

__all__ = ["bad_value_path", "encode_failure", "seconds", "endpoint_list"]


def _child(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def bad_value_path(value: Any, path: str = "") -> tuple[str, str] | None:
    """The path of the first value strict JSON cannot carry in ``value`` (NaN, an infinity, an object of
    no JSON type) and what is wrong with it, or ``None``."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, f"{value!r} is not a finite number")
    if value is None or isinstance(value, (str, int, bool)):
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return (_child(path, key), f"an object key must be a string, not {type(key).__name__}")
            found = bad_value_path(item, _child(path, key))
            if found is not None:
                return found
        return None
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, (list, tuple)):
        return bad_value_path(tolist(), path)  # numpy arrays and scalars, array.array, memoryview
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = bad_value_path(item, _child(path, i))
            if found is not None:
                return found
        return None
    return (path, f"a {type(value).__name__} is not a JSON value")


def encode_failure(op: str, fields: Mapping[str, Any], error: Exception) -> InvalidInput:
    """The :class:`InvalidInput` for ``fields`` that could not be encoded (``error`` from the encoder)."""
    found = bad_value_path(dict(fields))
    if found is None:
        return InvalidInput(f"the request cannot be encoded as JSON: {error}", op=op)
    path, what = found
    return InvalidInput(
        f"{what} (strict JSON has no NaN or infinities)" if "finite" in what else what, path or None, op=op
    )


def seconds(value: Any, name: str, *, optional: bool = False) -> float | None:
    """``value`` as a number of seconds ≥ 0 (``None`` kept when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0 or math.isinf(value):
        raise InvalidInput(f"{name} must be a finite number of seconds >= 0, not {value!r}", name)
    return float(value)


def endpoint_list(endpoints: str | Sequence[str] | None, what: str) -> list[str]:
    """``endpoints`` as a list (empty for ``None``); an empty string or list is refused."""
    if endpoints is None:
        return []
    items = [endpoints] if isinstance(endpoints, str) else list(endpoints)
    if not items or not all(isinstance(e, str) and e for e in items):
        raise InvalidInput(f"{what}: give an endpoint or a non-empty list of endpoints", what)
    return items
