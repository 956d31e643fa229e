"""What a client makes of a worker's direct answer (docs/PROTOCOL.md §11): the typed result, or a fallback
to the front."""

from __future__ import annotations

from typing import Any, TypeVar

from .direct import DirectRouter
from .errors import LayoutdError, ReplyError, Timeout
from .wire import BinaryArrays, Call, Hooks, decode_reply

__all__ = ["DirectReplies", "FALLBACK", "DIRECT_ERRORS_KEPT", "route_timeout"]

T = TypeVar("T")

#: What a direct attempt gives when its query must go to the front instead.
FALLBACK: Any = object()
#: Error codes a worker's direct endpoint answers that the front would answer alike (the request itself
#: is wrong); any other error sends the read to the front.
DIRECT_ERRORS_KEPT = frozenset({"invalid_request", "too_large", "invalid_json"})


class DirectReplies:
    """The direct-read answers of :class:`~layoutd.core.ClientCore` (which sets the attributes declared here)."""

    _router: DirectRouter
    _direct: dict[str, Any]
    hooks: Hooks
    binary_arrays: BinaryArrays

    def _timeouts(self, call: Call[Any], timeout: float | None, deadline: float | None) -> tuple[float, float]:
        raise NotImplementedError  # ClientCore's

    def _direct_timeout(self, call: Call[Any], timeout: float | None) -> float:
        """How long a direct attempt waits: the router's bound, and less than the request's own timeout."""
        wait, _ = self._timeouts(call, timeout, None)
        return min(self._router.timeout, wait / 2)

    def _drop_direct(self, endpoint: str) -> None:
        """Closes the socket to a worker's direct endpoint (linger 0): a late answer must not meet the
        next read, and the next read there connects again."""
        link = self._direct.pop(endpoint, None)
        if link is not None:
            link.close(linger=0)

    def _direct_reply(self, call: Call[T], obj: dict[str, Any], rest: list[Any]) -> Any:
        """The typed result of a direct endpoint's answer to ``call``, or :data:`FALLBACK` when the query
        must go to the front (``moved``, ``behind``, any error the front might answer otherwise, a reply
        that cannot be decoded). Raises the errors the front would give alike (a wrong request)."""
        router = self._router
        if self.hooks.reply is not None:
            self.hooks.reply(obj)
        if router.falls_back(obj, call.fields.get("layout")):
            return FALLBACK
        if obj.get("ok") is False:
            error = obj.get("error")
            if not isinstance(error, dict) or error.get("code") not in DIRECT_ERRORS_KEPT or rest:
                router.stats["fallback"] += 1
                return FALLBACK
        try:
            value = decode_reply(obj, rest, call, self.binary_arrays)
        except ReplyError:
            router.answered()
            raise
        except LayoutdError:  # undecodable: the front's answer will tell
            router.stats["fallback"] += 1
            return FALLBACK
        router.answered()
        router.note(call, obj)
        return value


def route_timeout(cause: Timeout, call: Call[Any]) -> Timeout:
    """The error of a query whose ``route`` lookup got no answer from the front on any attempt: the query
    is not sent (the front would not answer it either), and fails as it would have there."""
    return Timeout(cause.message, endpoints=cause.endpoints, op=call.op)
