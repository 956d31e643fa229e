"""One request in flight, as both clients keep it (:class:`Slot`)."""

from __future__ import annotations

import math
from typing import Any, Generic, TypeVar

from .errors import ReplyError
from .wire import Call

__all__ = ["Slot"]

T = TypeVar("T")


class Slot(Generic[T]):
    """One request: its call, id and frames, and where it stands (attempts, endpoints tried, deadline of
    the attempt under way, and once done its value or error). ``owner`` is the client's own (the sync
    client waits through it, the asyncio client's caller awaits it)."""

    __slots__ = (
        "_owner",
        "call",
        "id",
        "frames",
        "timeout",
        "attempts",
        "deadline",
        "endpoints",
        "generation",
        "expires",
        "min_version",
        "behind",
        "_done",
        "_value",
        "_error",
    )

    _value: Any  # set when done

    def __init__(
        self,
        owner: Any,
        call: Call[T],
        request_id: int,
        frames: list[Any],
        timeout: float,
        expires: float = math.inf,
        min_version: int | None = None,
    ) -> None:
        self._owner = owner
        self.call = call
        self.id = request_id
        self.frames = frames
        self.timeout = timeout
        #: When the request's overall deadline runs out (``time.monotonic()``; ``inf``: none).
        self.expires = expires
        #: The ``minVersion`` it carries: a reply older than it is never returned.
        self.min_version = min_version
        #: The last ``behind`` answer, raised if the deadline runs out before a fresh one comes.
        self.behind: ReplyError | None = None
        self.attempts = 0
        self.endpoints: list[str] = []
        self.deadline = 0.0
        self.generation = -1
        self._done = False
        self._error: BaseException | None = None

    @property
    def op(self) -> str:
        return self.call.op

    def done(self) -> bool:
        """True once the reply (or the error) is in."""
        return self._done

    def _finish(self, value: Any = None, error: BaseException | None = None) -> None:
        self._done = True
        self._value = value
        self._error = error

    def _outcome(self) -> T:
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        state = "done" if self._done else "pending"
        return f"<{type(self).__name__} {self.call.op} id={self.id} {state}>"
