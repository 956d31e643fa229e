"""What the sync and asyncio clients share: every decision, none of the waiting (sans-I/O).

:class:`ClientCore` holds the configuration, the requests in flight (:class:`Slot`), the endpoint in use
and the failover state. It encodes requests, files each reply to its request and decodes it, and, when an
attempt fails (a timeout, or a standby broker's answer), decides which requests in flight are sent again
on the next endpoint and which fail, with which error. The clients add only the I/O: :class:`layoutd.Client`
sends and polls, :class:`layoutd.AsyncClient` awaits.

The rules (the ZeroMQ guide's "Lazy Pirate" and the client side of "Binary Star"): every wait is bounded by
``timeout``; when it runs out, or a broker answers ``unavailable`` saying it is a standby, the socket is
closed (linger 0) and a new one connects to the next endpoint of the list, and the requests in flight are
sent again there, each up to ``attempts`` times in all. Only requests that are safe to repeat are sent
again (:attr:`layoutd.wire.Call.retryable`): read-only ops, changes that carry ``if_version``, and the
request a standby answered (it applied nothing). Any other change that loses its answer fails with
:class:`~layoutd.errors.OutcomeUnknown`.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from typing import Any, TypeVar

from .curve import CurveKeys
from .direct import DirectReads, DirectRouter
from .direct_replies import DIRECT_ERRORS_KEPT, FALLBACK, DirectReplies, route_timeout
from .errors import Behind, DecodeError, InvalidInput, LayoutdError, OutcomeUnknown, ReplyError, Timeout
from .inputs import encode_failure, endpoint_list, seconds
from .slot import Slot
from .sockets import connect, millis, new_dealer
from .stats_requests import METRICS_BODY, STATS_BODY, StatsRequests
from .wire import (
    CHANGE_OPS,
    BinaryArrays,
    Call,
    Hooks,
    decode_reply,
    encode_body,
    encode_request,
    split_reply,
    standby_error,
)

__all__ = [
    "ClientCore",
    "Slot",
    "DEFAULT_FRONT",
    "DEFAULT_EVENTS",
    "DEFAULT_STATS",
    "DEFAULT_MAX_IN_FLIGHT",
    "endpoint_list",
    "millis",
    "connect",
    "new_dealer",
    "FALLBACK",
    "DIRECT_ERRORS_KEPT",
    "STATS_BODY",
    "METRICS_BODY",
    "route_timeout",
]

T = TypeVar("T")

#: The daemon's default endpoints (PROTOCOL.md §1).
DEFAULT_FRONT = "tcp://127.0.0.1:5555"
DEFAULT_EVENTS = "tcp://127.0.0.1:5556"
DEFAULT_STATS = "tcp://127.0.0.1:5557"


#: Requests a client keeps in flight at most by default: well under the daemon's send high-water mark
#: (10,000 replies), past which the daemon drops replies (they then wait out a timeout).
DEFAULT_MAX_IN_FLIGHT = 1000
#: How long a read answered ``behind`` waits before it is sent again (seconds).
BEHIND_PAUSE = 0.002


class ClientCore(StatsRequests, DirectReplies):
    """The sans-I/O part of a client (see the module's doc). Its subclasses own the sockets: they set
    ``_socket``, call :meth:`_open`, :meth:`_sent`, :meth:`_on_reply`, :meth:`_fail_over` and
    :meth:`_abandon`, and implement :meth:`_drop_socket`."""

    def __init__(
        self,
        endpoints: str | Sequence[str],
        *,
        stats_endpoints: str | Sequence[str] | None,
        timeout: float,
        attempts: int | None,
        curve: CurveKeys | None,
        hooks: Hooks | None,
        binary_arrays: BinaryArrays,
        backoff: float,
        direct_reads: DirectReads = "auto",
        direct_timeout: float | None = None,
        deadline: float | None = None,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
    ) -> None:
        self.endpoints = endpoint_list(endpoints, "endpoints")
        self.stats_endpoints = endpoint_list(stats_endpoints, "stats_endpoints")
        self.timeout: float = seconds(timeout, "timeout")  # type: ignore[assignment]
        #: Seconds a request may take in all, attempts included (``None``: ``attempts`` × ``timeout``).
        self.deadline = seconds(deadline, "deadline", optional=True)
        self.attempts = attempts if attempts is not None else max(3, len(self.endpoints) + 1)
        if isinstance(self.attempts, bool) or not isinstance(self.attempts, int) or self.attempts < 1:
            raise InvalidInput(f"attempts must be an integer >= 1, not {attempts!r}", "attempts")
        if isinstance(max_in_flight, bool) or not isinstance(max_in_flight, int) or max_in_flight < 1:
            raise InvalidInput(f"max_in_flight must be an integer >= 1, not {max_in_flight!r}", "max_in_flight")
        #: Requests sent and not answered yet, at most: a new one first waits for replies to make room.
        self.max_in_flight = max_in_flight
        self.curve = curve
        self.hooks = hooks or Hooks()
        self.binary_arrays: BinaryArrays = binary_arrays
        self.backoff = backoff
        self._ids = itertools.count(1)
        self._index = 0
        self._generation = 0
        self._standby_streak = 0
        self._pending: dict[int, Slot[Any]] = {}
        self._socket: Any = None
        self._stats_index = 0
        self._stats_socket: Any = None
        #: Replies that matched no request in flight (late, or unreadable with several in flight).
        self.stray_replies = 0
        #: Failovers so far (each closes the socket and moves to the next endpoint).
        self.failovers = 0
        if direct_timeout is not None:
            direct_timeout = seconds(direct_timeout, "direct_timeout")
        self._router = DirectRouter(
            direct_reads, direct_timeout if direct_timeout is not None else max(self.timeout / 2, 0.001)
        )
        self._router.endpoint = self.endpoint
        #: Reads answered ``behind`` (or older than their ``minVersion``), to send again after a short pause.
        self._behind: list[Slot[Any]] = []
        #: The sockets (or links) to workers' direct endpoints, by endpoint, made on first use.
        self._direct: dict[str, Any] = {}

    @property
    def direct_reads(self) -> DirectReads:
        """``"auto"`` (queries go to their key's owner when the front is a broker that names one) or
        ``"off"`` (docs/PROTOCOL.md §11; :mod:`layoutd.direct`)."""
        return self._router.mode

    @property
    def direct_stats(self) -> dict[str, int]:
        """``{"direct": n, "fallback": m, "routes": r}``: queries answered by a worker's direct endpoint,
        direct attempts that went to the front instead, and ``route`` requests sent (a copy)."""
        return dict(self._router.stats)

    @property
    def endpoint(self) -> str:
        """The front endpoint in use now."""
        return self.endpoints[self._index]

    # -- requests --------------------------------------------------------------------------------

    def _timeouts(self, call: Call[Any], timeout: float | None, deadline: float | None) -> tuple[float, float]:
        """The seconds each attempt of ``call`` waits and when (monotonic) it expires in all: the arguments,
        else the call's own, else the client's (0 means 0)."""
        if timeout is None:
            timeout = call.timeout if call.timeout is not None else self.timeout
        else:
            timeout = seconds(timeout, "timeout")
        if deadline is None:
            deadline = call.deadline if call.deadline is not None else self.deadline
        else:
            deadline = seconds(deadline, "deadline")
        return timeout, (math.inf if deadline is None else time.monotonic() + deadline)  # type: ignore[return-value]

    def _open(
        self, call: Call[T], timeout: float | None, slot: type[Slot[T]], owner: Any, deadline: float | None = None
    ) -> Slot[T]:
        """A new request in flight (not sent yet): its id, its body (seen by the request hook) and frames,
        as a ``slot`` (the :class:`Slot` class to make it of) with ``owner``. A ``query`` carries, as
        ``minVersion``, the newest version of its key this client has seen (decision E: reads never go back)."""
        wait, expires = self._timeouts(call, timeout, deadline)
        floor = None
        if call.op == "query":
            fields = call.fields
            key = fields.get("layout")
            floor = self._router.seen_versions.get(key) if type(key) is str else None
            if floor is not None and ("namespace" in fields or "minVersion" in fields):
                floor = fields.get("minVersion")  # the caller's own (or an admin's read: none)
                floor = floor if type(floor) is int else None
                request_id, frames = self._encode(call)
            else:
                request_id, frames = self._encode(call, floor)
        else:
            request_id, frames = self._encode(call)
        opened = slot(owner, call, request_id, frames, wait, expires, floor)
        self._pending[request_id] = opened
        return opened

    def _encode(self, call: Call[Any], min_version: int | None = None) -> tuple[int, list[Any]]:
        """A new id for ``call`` and its frames (the body seen by the request hook), with ``minVersion`` when
        given. Fields strict JSON cannot carry (NaN, infinities, objects of no JSON type) raise
        :class:`InvalidInput` at their path."""
        request_id = next(self._ids)
        try:
            if self.hooks.request is not None:
                fields = call.fields if min_version is None else {**call.fields, "minVersion": min_version}
                obj, body = encode_body(request_id, call.op, fields)
                self.hooks.request(obj)
            else:
                body = encode_request(request_id, call.op, call.fields)
                if min_version is not None:  # spliced in: no copy of the fields
                    body = b'%s,"minVersion":%d}' % (body[:-1], min_version)
        except (ValueError, TypeError) as error:
            if isinstance(error, LayoutdError):
                raise
            raise encode_failure(call.op, call.fields, error) from None
        return request_id, [b"", body, *call.attachments] if call.attachments else [b"", body]

    def _sent(self, slot: Slot[Any], queued: bool = True) -> None:
        """``slot`` was just sent (``queued``) on the socket in use, or could not even be queued (its attempt
        then ends at once: the next wait fails over)."""
        slot.attempts += 1
        slot.endpoints.append(self.endpoints[self._index])
        slot.generation = self._generation
        now = time.monotonic()
        slot.deadline = min(now + slot.timeout, slot.expires) if queued else now

    def _on_reply(self, frames: list[Any]) -> ReplyError | None:
        """Files a reply received on the socket in use: completes the request it answers, or returns the
        standby answer that calls for a failover (the caller then calls :meth:`_fail_over`)."""
        pending = self._pending
        try:
            obj, rest = split_reply(frames)
        except DecodeError as error:
            if len(pending) == 1:  # the one request in flight: this must be its reply
                slot = next(iter(pending.values()))
                error.op, error.request_id = slot.op, slot.id
                self._complete(slot, error=error)
            else:
                self.stray_replies += 1
            return None
        request_id = obj.get("id")
        found = pending.get(request_id) if type(request_id) is int else None
        if found is None:
            if request_id is None and len(pending) == 1:
                found = next(iter(pending.values()))  # the daemon could not read our id
            else:
                self.stray_replies += 1
                return None
        slot = found
        if self.hooks.reply is not None:
            try:
                self.hooks.reply(obj)
            except Exception as error:  # a hook's verdict goes to the caller
                self._complete(slot, error=error)
                return None
        try:
            value = decode_reply(obj, rest, slot.call, self.binary_arrays)
            if slot.min_version is not None and getattr(value, "version", slot.min_version) < slot.min_version:
                raise Behind(
                    "behind",
                    f"the answer is at version {value.version}, before the version {slot.min_version} this client saw",
                    "minVersion",
                    op=slot.op,
                    request_id=slot.id,
                    reply=obj,
                )
        except ReplyError as error:
            if error.code == "behind" and slot.call.retryable and self._retry_behind(slot):
                slot.behind = error
                return None
            if standby_error(error):
                error.request_id = slot.id  # the one request known not to have been applied
                return error
            if error.code == "unavailable" and slot.op in CHANGE_OPS and not slot.call.retryable:
                self._complete(slot, error=OutcomeUnknown(error, op=slot.op, request_id=slot.id))
            else:
                self._complete(slot, error=error)
        except LayoutdError as error:
            self._complete(slot, error=error)
        else:
            self._standby_streak = 0
            self._router.note(slot.call, obj)
            self._complete(slot, value=value)
        return None

    def _retry_behind(self, slot: Slot[Any]) -> bool:
        """A read answered ``behind`` goes again (through the front) while its time lasts: its deadline, or
        else its attempt's timeout. Returns False when the time is up (the caller raises the error)."""
        if time.monotonic() + BEHIND_PAUSE >= (slot.expires if slot.expires < math.inf else slot.deadline):
            return False
        if slot.expires == math.inf:
            slot.expires = slot.deadline  # one attempt's worth of time for all of the retries
        self._behind.append(slot)
        return True

    def _expired(self, slot: Slot[Any]) -> bool:
        """Did ``slot``'s overall deadline, not its attempt's timeout, end its wait? It then fails alone
        (with the ``behind`` it was asking past, or a timeout): the endpoint is not to blame, no failover."""
        if slot.expires == math.inf or time.monotonic() < slot.expires:
            return False
        error: LayoutdError = slot.behind or Timeout(
            f"no reply within the request's deadline (after {slot.attempts} attempt(s))",
            endpoints=tuple(slot.endpoints),
            op=slot.op,
            request_id=slot.id,
        )
        if not slot.call.retryable and slot.behind is None:
            error = OutcomeUnknown(error, op=slot.op, request_id=slot.id)
        self._complete(slot, error=error)
        return True

    def _take_behind(self) -> list[Slot[Any]]:
        """The reads to send again after ``behind`` (still in flight), emptying the list."""
        again, self._behind = [s for s in self._behind if not s._done], []
        return again

    def _complete(self, slot: Slot[Any], value: Any = None, error: BaseException | None = None) -> None:
        self._pending.pop(slot.id, None)
        slot._finish(value, error)

    def _timed_out(self, slot: Slot[Any]) -> Timeout:
        return Timeout(
            f"no reply from {slot.endpoints[-1] if slot.endpoints else self.endpoint} within {slot.timeout:g}s",
            op=slot.op,
            request_id=slot.id,
        )

    def _fail_over(self, cause: LayoutdError) -> tuple[list[Slot[Any]], float]:
        """Drops the socket, moves to the next endpoint and decides for every request in flight: fails those
        that may not be repeated (or have had all their attempts), and returns the others, to be sent again
        on the next socket after the returned back-off (seconds; 0 unless every endpoint answered
        "standby" in a row)."""
        failed = self.endpoint
        self._drop_socket()
        self.failovers += 1
        self._index = (self._index + 1) % len(self.endpoints)
        if len(self.endpoints) > 1:
            self._router.front_changed(self.endpoint)
        delay = 0.0
        if isinstance(cause, ReplyError):
            self._standby_streak += 1
            if self._standby_streak >= len(self.endpoints) and self.backoff > 0:
                rounds = self._standby_streak // len(self.endpoints)
                delay = min(self.backoff * 2 ** (rounds - 1), self.timeout)
        again: list[Slot[Any]] = []
        now = time.monotonic()
        for slot in list(self._pending.values()):
            # The request a standby answered was not applied there: it may go on, even a change without
            # ``if_version``. Others in flight on the same socket follow the timeout rule.
            answered = isinstance(cause, ReplyError) and cause.request_id == slot.id
            if (slot.call.retryable or answered) and slot.attempts < self.attempts and now + delay < slot.expires:
                slot.deadline = time.monotonic() + delay + slot.timeout  # until it is sent again
                again.append(slot)
                continue
            if slot.behind is not None:  # its time ran out asking again after `behind`: that is the answer
                error: LayoutdError = slot.behind
            elif slot.call.retryable or answered:
                error = (
                    cause
                    if isinstance(cause, ReplyError)
                    else Timeout(
                        f"no reply after {slot.attempts} attempt(s) of {slot.timeout:g}s "
                        f"(endpoints tried: {', '.join(slot.endpoints)})",
                        endpoints=tuple(slot.endpoints),
                        op=slot.op,
                        request_id=slot.id,
                    )
                )
            else:
                reason = cause
                if isinstance(cause, Timeout) and cause.request_id != slot.id:
                    reason = Timeout(
                        f"its connection to {failed} was replaced after another request timed out",
                        endpoints=(failed,),
                        op=slot.op,
                        request_id=slot.id,
                    )
                error = OutcomeUnknown(reason, op=slot.op, request_id=slot.id)
            self._complete(slot, error=error)
        return again, delay

    def _drop_socket(self) -> None:
        """Closes the front socket (linger 0) and forgets it; a new one is made on the next send."""
        if self._socket is not None:
            self._socket.close(linger=0)
            self._socket = None

    def _abandon(self) -> None:
        """Fails every request in flight (the client is closing) and closes the sockets."""
        for slot in list(self._pending.values()):
            cause = Timeout("the client was closed before the reply came", op=slot.op, request_id=slot.id)
            self._complete(
                slot, error=cause if slot.call.retryable else OutcomeUnknown(cause, op=slot.op, request_id=slot.id)
            )
        self._drop_socket()
        self._drop_stats_socket()
        for endpoint in list(self._direct):
            self._drop_direct(endpoint)
