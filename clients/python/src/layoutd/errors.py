"""Exceptions raised by the layoutd client.

Every exception the package raises for a request is a :class:`LayoutdError` carrying ``code``, ``message``
and ``path`` (``None`` when no single field is at fault), so one ``except LayoutdError`` catches them all:

* :class:`ReplyError` and its subclasses: the daemon answered ``{"ok": false, "error": …}``
  (docs/PROTOCOL.md §3); one subclass per error code (:class:`InvalidRequest`, :class:`VersionConflict`,
  :class:`UnknownLayout`, :class:`Unavailable`, …). An unknown code gives a plain :class:`ReplyError`.
* :class:`ProtocolError` / :class:`DecodeError`: a reply the client cannot decode (not JSON, a missing
  member, binary frames that do not match their description).
* :class:`Timeout`: no reply within the client's bounds, after every attempt it was allowed.
* :class:`OutcomeUnknown`: a change (``prepare``, ``bounds``, ``update``, ``diff``, ``drop``) sent without
  ``ifVersion`` got no reply, or an ``unavailable`` answer, so whether it was applied is unknown. The
  client never sends such a change twice; ``cause`` holds the :class:`Timeout` or :class:`Unavailable`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "LayoutdError",
    "ReplyError",
    "InvalidJSON",
    "InvalidRequest",
    "UnknownOp",
    "UnknownLayout",
    "InvalidUpdate",
    "VersionConflict",
    "TooLarge",
    "Busy",
    "Unavailable",
    "InternalError",
    "Moved",
    "Behind",
    "InvalidInput",
    "ProtocolError",
    "DecodeError",
    "Timeout",
    "OutcomeUnknown",
    "ERROR_CLASSES",
    "error_from_reply",
]


class LayoutdError(Exception):
    """The base of every error of this package.

    Attributes:
        code: a stable code: one of PROTOCOL.md §3 for errors the daemon answered, else ``"timeout"``,
            ``"protocol_error"`` or ``"decode_error"`` (an :class:`OutcomeUnknown` takes its cause's code).
        message: for people; do not parse it.
        path: the field at fault (``sections[0].heights[1]``), or ``None``.
        op: the request's ``op``, when the error belongs to a request.
        request_id: the request's ``id``, when known.
    """

    code: str
    message: str
    path: str | None
    op: str | None
    request_id: Any

    def __init__(
        self,
        code: str,
        message: str,
        path: str | None = None,
        *,
        op: str | None = None,
        request_id: Any = None,
    ) -> None:
        self.code = code
        self.message = message
        self.path = path
        self.op = op
        self.request_id = request_id
        where = f" (at {path})" if path else ""
        super().__init__(f"{code}: {message}{where}")

    # Exceptions cross processes (multiprocessing, Celery, Dask) by pickle: rebuild from the attributes,
    # not from ``args`` (which hold the formatted text, not the constructor's arguments).
    def __reduce__(self) -> tuple[Any, ...]:
        state = {k: v for k, v in self.__dict__.items() if k != "__cause__"}
        return (_restore, (type(self), self.args, state))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, LayoutdError)
        return self.args == other.args and _comparable(self) == _comparable(other)

    def __hash__(self) -> int:
        return hash((type(self), self.code, self.message, self.path))


def _comparable(error: LayoutdError) -> dict[str, Any]:
    return {k: v for k, v in error.__dict__.items() if k != "__cause__"}


def _restore(cls: type[LayoutdError], args: tuple[Any, ...], state: dict[str, Any]) -> LayoutdError:
    """Unpickles an error of this package: the same class, message and attributes."""
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    if isinstance(state.get("cause"), BaseException):
        error.__cause__ = state["cause"]
    return error


class ReplyError(LayoutdError):
    """The daemon answered the request with an error reply (``"ok": false``).

    ``reply`` is the whole reply object as received. Each subclass stands for one error code (its ``code=``
    in the class statement files it in :data:`ERROR_CLASSES`).
    """

    reply: Mapping[str, Any]

    def __init_subclass__(cls, code: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if code is not None:
            ERROR_CLASSES[code] = cls

    def __init__(self, *args: Any, reply: Mapping[str, Any] | None = None, **context: Any) -> None:
        """``ReplyError(code, message, path=None, *, op=None, request_id=None, reply=None)``."""
        super().__init__(*args, **context)
        self.reply = reply if reply is not None else {}


#: The exception class of each error code (PROTOCOL.md §3); an unknown code gives a plain ReplyError.
ERROR_CLASSES: dict[str, type[ReplyError]] = {}


class InvalidJSON(ReplyError, code="invalid_json"):
    """``invalid_json``: the body was not one strict JSON document."""


class InvalidRequest(ReplyError, code="invalid_request"):
    """``invalid_request``: a value or shape the contract does not allow; ``path`` names the field."""


class UnknownOp(ReplyError, code="unknown_op"):
    """``unknown_op``: ``op`` names no operation."""


class UnknownLayout(ReplyError, code="unknown_layout"):
    """``unknown_layout``: no layout is kept under that key (never prepared, dropped, evicted, or another
    client's with CURVE)."""


class InvalidUpdate(ReplyError, code="invalid_update"):
    """``invalid_update``: a batch broke the batch-update rules; nothing was applied."""


class VersionConflict(ReplyError, code="version_conflict"):
    """``version_conflict``: ``ifVersion`` did not match the key's version; nothing was applied.

    After a retried change (the client sends a change again only when it carries ``ifVersion``), this can
    also mean that an earlier copy was applied and its reply was lost: query the layout to find out (a
    retried ``drop`` whose first copy was applied answers ``unknown_layout`` instead).
    """


class TooLarge(ReplyError, code="too_large"):
    """``too_large``: over a limit (body size, items, sections, nesting, store)."""


class Busy(ReplyError, code="busy"):
    """``busy``: the daemon's queue is full or it is shutting down; retry later with back-off."""


class Unavailable(ReplyError, code="unavailable"):
    """``unavailable``: a cluster could not serve the request (no worker, a worker died during a change,
    or the broker is a standby)."""

    @property
    def standby(self) -> bool:
        """True when the message says the broker answering is a standby (the client fails over)."""
        return "standby" in self.message.lower()


class InternalError(ReplyError, code="internal"):
    """``internal``: a fault in the daemon itself."""


class Moved(ReplyError, code="moved"):
    """``moved``: a worker's direct endpoint no longer owns the key (the client reads through the broker)."""


class Behind(ReplyError, code="behind"):
    """``behind``: the copy that answered is older than the read's ``minVersion`` (the newest version this
    client has seen of the key); the client asks again until its deadline, then raises this."""


class InvalidInput(LayoutdError, ValueError):
    """A request or an argument refused by the client itself, before anything was sent: ``code`` is
    ``invalid_request`` and ``path`` the field at fault, as the daemon would name it (``rect``,
    ``sections[0].heights[1]``), or the argument (``timeout``, ``stats_endpoints``). Also a ``ValueError``."""

    def __init__(self, message: str, path: str | None = None, *, op: str | None = None) -> None:
        """``InvalidInput(message, path=None, *, op=None)``."""
        super().__init__("invalid_request", message, path, op=op)


class ProtocolError(LayoutdError):
    """A reply the client cannot use (it breaks the wire contract)."""

    default_code = "protocol_error"

    def __init__(self, message: str, path: str | None = None, *, code: str | None = None, **context: Any) -> None:
        """``ProtocolError(message, path=None, *, code=None, op=None, request_id=None)``."""
        super().__init__(code or self.default_code, message, path, **context)


class DecodeError(ProtocolError):
    """A reply or event the client cannot decode: not JSON, a member missing or of the wrong type, or binary
    frames whose number, type or length disagree with their description."""

    default_code = "decode_error"


class Timeout(LayoutdError, TimeoutError):
    """No reply came within the timeout, on any of the attempts the client was allowed.

    ``endpoints`` lists the endpoints tried, in order.
    """

    endpoints: tuple[str, ...]

    def __init__(self, message: str, *, endpoints: tuple[str, ...] = (), **context: Any) -> None:
        """``Timeout(message, *, endpoints=(), op=None, request_id=None)``."""
        super().__init__("timeout", message, None, **context)
        self.endpoints = endpoints


class OutcomeUnknown(LayoutdError):
    """A change sent without ``ifVersion`` got no usable answer, so whether it was applied is unknown.

    The client does not resend it (it could be applied twice). Query the layout to learn its state, or send
    changes with ``if_version=`` so that the client may retry them. ``cause`` is the :class:`Timeout` or
    :class:`Unavailable` that ended the attempt; ``code``, ``message`` and ``path`` are the cause's.
    """

    cause: LayoutdError

    def __init__(self, cause: LayoutdError, *, op: str | None = None, request_id: Any = None) -> None:
        super().__init__(
            cause.code,
            f"the outcome of this {op or 'change'} is unknown (it may or may not have been applied; "
            f"it was not retried because it carries no ifVersion): {cause.message}",
            cause.path,
            op=op,
            request_id=request_id,
        )
        self.cause = cause
        self.__cause__ = cause


def error_from_reply(reply: Mapping[str, Any], *, op: str | None = None) -> ReplyError:
    """The exception for an error reply ``{"v": 1, "id": …, "ok": false, "error": {code, message, path}}``.

    Raises:
        DecodeError: the reply has no readable ``error`` object.
    """
    error = reply.get("error")
    if not isinstance(error, Mapping) or not isinstance(error.get("code"), str):
        raise DecodeError(
            "an error reply without an error object with a string code", op=op, request_id=reply.get("id")
        )
    code = error["code"]
    message = error.get("message")
    path = error.get("path")
    cls = ERROR_CLASSES.get(code, ReplyError)
    return cls(
        code,
        message if isinstance(message, str) else "",
        path if isinstance(path, str) else None,
        op=op,
        request_id=reply.get("id"),
        reply=reply,
    )
