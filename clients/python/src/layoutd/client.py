"""The synchronous client: a DEALER on the front socket, with pipelining and failover.

Failover follows the ZeroMQ guide's "Lazy Pirate" and the client side of "Binary Star": every wait is
bounded by ``timeout``; when it runs out (or a broker answers ``unavailable`` saying it is a standby), the
socket is closed (linger 0) and a new one connects to the next endpoint of the list, and the requests in
flight are sent again there, each up to ``attempts`` times in all. Only requests that are safe to repeat
are sent again (:attr:`layoutd.wire.Call.retryable`): read-only ops, and changes (``prepare``, ``bounds``,
``update``, ``diff``, ``drop``) with ``if_version``. Any other change that loses its answer raises
:class:`~layoutd.errors.OutcomeUnknown`. The decisions are :class:`layoutd.core.ClientCore`'s, shared with
the asyncio client; this module only sends and polls.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

import zmq

from . import ops
from .core import (
    BEHIND_PAUSE,
    DEFAULT_EVENTS,
    DEFAULT_FRONT,
    DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_STATS,
    FALLBACK,
    METRICS_BODY,
    STATS_BODY,
    ClientCore,
    Slot,
    millis,
    new_dealer,
    route_timeout,
)
from .curve import CurveKeys
from .direct import DirectReads
from .errors import DecodeError, LayoutdError, Timeout
from .models import LayoutInfo, Stats
from .pipeline import Pending, Pipeline
from .wire import BinaryArrays, Call, Hooks, as_method, split_reply

__all__ = ["Client", "Pending", "Pipeline", "DEFAULT_FRONT", "DEFAULT_EVENTS", "DEFAULT_STATS"]

T = TypeVar("T")
P = ParamSpec("P")


def _op(builder: Callable[P, Call[T]]) -> Callable[Concatenate[Client, P], T]:
    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.call(builder(*args, **kwargs))

    as_method(method, builder, "{}")
    return method


class Client(ClientCore):
    """A synchronous layoutd client (one thread; ZeroMQ sockets are not thread-safe).

    Example::

        with Client(["tcp://10.0.0.1:5555", "tcp://10.0.0.2:5555"], timeout=2.0) as client:
            prepared = client.prepare("feed", bounds=(375, 667), spec={"type": "list"},
                                      sections=[{"count": 100}])
            visible = client.query("feed", rect=(0, 0, 375, 667), format="columns")
            client.update("feed", updates=[{"delete": [0, 0]}], if_version=prepared.version)

    Args:
        endpoints: the front endpoint, or several (a cluster's brokers, in failover order).
        stats_endpoints: the stats endpoint(s), for :meth:`stats` and :meth:`metrics`.
        timeout: seconds to wait for each attempt's reply (and for a send to be queued); 0 waits not at
            all. Every op takes its own ``timeout=`` too.
        deadline: seconds a request may take in all, every attempt and retry included (default: no bound
            but ``attempts`` × ``timeout``). Every op takes its own ``deadline=`` too.
        max_in_flight: requests in flight at most (default 1000, well under the daemon's send high-water
            mark of 10,000 replies): :meth:`submit` and pipelines read replies while they send, so any
            number of requests completes at the wire's rate.
        attempts: how many times a request that may be repeated is sent in all (default: one more than
            the number of endpoints, at least 3).
        curve: CURVE keys, for a daemon with CURVE.
        context: the ZeroMQ context (default: the process's shared one).
        hooks: callbacks seeing every request and reply object (:class:`~layoutd.wire.Hooks`).
        binary_arrays: how ``format="binary"`` columns come: ``"auto"`` (numpy when installed),
            ``"numpy"`` or ``"memoryview"``.
        backoff: seconds to wait before trying again once every endpoint answered "standby" in a row
            (doubling each round, up to ``timeout``).
        direct_reads: ``"auto"`` (default): against a cluster's broker, :meth:`query` goes straight to the
            worker that owns the key, and to the front on any doubt (docs/PROTOCOL.md §11,
            :mod:`layoutd.direct`); ``"off"``: every request goes to the front.
        direct_timeout: seconds a direct attempt waits before the query goes to the front (default and
            at most: half of the request's timeout).
    """

    def __init__(
        self,
        endpoints: str | Sequence[str] = DEFAULT_FRONT,
        *,
        stats_endpoints: str | Sequence[str] | None = None,
        timeout: float = 5.0,
        attempts: int | None = None,
        curve: CurveKeys | None = None,
        context: zmq.Context[Any] | None = None,
        hooks: Hooks | None = None,
        binary_arrays: BinaryArrays = "auto",
        backoff: float = 0.1,
        direct_reads: DirectReads = "auto",
        direct_timeout: float | None = None,
        deadline: float | None = None,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
    ) -> None:
        super().__init__(
            endpoints,
            stats_endpoints=stats_endpoints,
            timeout=timeout,
            attempts=attempts,
            curve=curve,
            hooks=hooks,
            binary_arrays=binary_arrays,
            backoff=backoff,
            direct_reads=direct_reads,
            direct_timeout=direct_timeout,
            deadline=deadline,
            max_in_flight=max_in_flight,
        )
        self.context: zmq.Context[Any] = context if context is not None else zmq.Context.instance()

    def clone(self) -> Client:
        """A new client with this one's configuration (and context), and sockets of its own: for another
        thread, since a client, like its ZeroMQ sockets, belongs to one thread."""
        return Client(
            self.endpoints,
            stats_endpoints=self.stats_endpoints or None,
            timeout=self.timeout,
            attempts=self.attempts,
            curve=self.curve,
            context=self.context,
            hooks=self.hooks,
            binary_arrays=self.binary_arrays,
            backoff=self.backoff,
            direct_reads=self._router.mode,
            direct_timeout=self._router.timeout,
            deadline=self.deadline,
            max_in_flight=self.max_in_flight,
        )

    # -- sockets ---------------------------------------------------------------------------------

    def _front(self) -> zmq.Socket[Any]:
        socket: zmq.Socket[Any] | None = self._socket
        if socket is None:
            socket = self._socket = new_dealer(self.context, self.endpoint, self.curve, self.timeout)
            self._generation += 1
        return socket

    def close(self) -> None:
        """Closes the sockets (linger 0). Requests still in flight fail with ``OutcomeUnknown``/``Timeout``."""
        self._abandon()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests --------------------------------------------------------------------------------

    def submit(self, call: Call[T], *, timeout: float | None = None, deadline: float | None = None) -> Pending[T]:
        """Sends ``call`` and returns without its reply, which is read by :meth:`Pending.result` (or while
        waiting for any other request). Replies are matched by ``id``. With ``max_in_flight`` requests in
        flight already, it first reads replies until one is done (so the daemon never drops a reply)."""
        if len(self._pending) >= self.max_in_flight:
            self._make_room()
        slot = self._open(call, timeout, Pending, self, deadline)
        self._send(slot)
        return slot  # type: ignore[return-value]

    def call(self, call: Call[T], *, timeout: float | None = None, deadline: float | None = None) -> T:
        """Sends ``call`` and waits for its typed result (a ``query`` at its key's owner when it can: see
        ``direct_reads``)."""
        if self._router.wants(call):
            value = self._query_directly(call, timeout)
            if value is not FALLBACK:
                return value  # type: ignore[no-any-return]
        slot = self.submit(call, timeout=timeout, deadline=deadline)
        if not slot._done:
            self._wait(slot)
        return slot._outcome()

    def request(
        self,
        op: str,
        fields: Mapping[str, Any] | None = None,
        *,
        attachments: Iterable[Any] = (),
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """The escape hatch: any ``op`` with any fields; returns the raw ``result`` object (binary attributes
        decoded to :class:`~layoutd.models.Columns`). Retried after a timeout only when ``op`` is read-only,
        or a change (``prepare``, ``bounds``, ``update``, ``diff``, ``drop``) with ``ifVersion``."""
        return self.call(Call(op, dict(fields or {}), tuple(attachments)), timeout=timeout)

    def iter_layouts(
        self, *, prefix: str | None = None, limit: int | None = None, timeout: float | None = None
    ) -> Iterator[LayoutInfo]:
        """Every kept layout (whose key starts with ``prefix``), sorted by key, one ``list`` page of at most
        ``limit`` entries at a time (each page after the previous one's ``next``)."""
        after: str | None = None
        while True:
            page = self.call(ops.list_layouts(after=after, limit=limit, prefix=prefix), timeout=timeout)
            # A daemon without pages answers every key: keep the prefix's.
            yield from (info for info in page.layouts if prefix is None or info.layout.startswith(prefix))
            if page.next is None or page.next == after:
                return
            after = page.next

    def pipeline(self) -> Pipeline:
        """A :class:`Pipeline`: the ops as methods that send without waiting and return :class:`Pending`s."""
        return Pipeline(self)

    def _send(self, slot: Slot[Any]) -> None:
        socket = self._front()
        try:
            socket.send_multipart(slot.frames, copy=not slot.call.attachments)  # attachments: no copy
        except zmq.Again:
            self._sent(slot, queued=False)  # not even queued: the next wait fails over at once
        else:
            self._sent(slot)

    def _wait(self, slot: Slot[Any]) -> None:
        while not slot._done:
            self._step(slot)

    def _make_room(self) -> None:
        """Reads replies until fewer than ``max_in_flight`` requests are in flight."""
        while len(self._pending) >= self.max_in_flight:
            self._step(next(iter(self._pending.values())))  # the oldest: the first to time out

    def _step(self, slot: Slot[Any]) -> None:
        """One wait for replies, bounded by ``slot``'s deadline; past it, a failover."""
        remaining = slot.deadline - time.monotonic()
        if remaining <= 0:
            if self._socket is not None:
                self._drain(self._socket)  # replies that came while nobody was reading count
                if slot._done:
                    return
            if self._expired(slot):
                return
            again, delay = self._fail_over(self._timed_out(slot))
            self._resend(again, delay)
            return
        socket = self._front()
        # zmq_poll itself: Socket.poll builds a Poller (and a dict of its answer) for every wait.
        if zmq.zmq_poll([(socket, zmq.POLLIN)], millis(remaining)):
            self._drain(socket)

    def _drain(self, socket: zmq.Socket[Any]) -> None:
        """Files every reply waiting on ``socket`` (without blocking)."""
        recv = socket.recv
        while socket is self._socket:
            try:
                part = recv(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                # Reading ZMQ_EVENTS makes libzmq take in what its I/O thread delivered: a non-blocking
                # receive does not always see replies that arrived while nobody was reading.
                if socket.get(zmq.EVENTS) & zmq.POLLIN:
                    continue
                return
            frames = [part]
            while part.more:  # the rest of a message is there once its first frame is
                part = recv(copy=False)
                frames.append(part)
            standby = self._on_reply(frames)
            if standby is not None:
                again, delay = self._fail_over(standby)
                self._resend(again, delay)
                return
            if self._behind:  # reads whose answer was older than they may take: ask again shortly
                self._resend(self._take_behind(), BEHIND_PAUSE)
            if not self._pending:  # nothing else to wait for (zmq_poll sees any late reply next time)
                return

    def _resend(self, again: list[Slot[Any]], delay: float) -> None:
        if delay > 0:
            time.sleep(delay)  # every endpoint answered "standby": back off before the next round
        for slot in again:
            self._send(slot)

    # -- direct reads ----------------------------------------------------------------------------

    def _query_directly(self, call: Call[T], timeout: float | None) -> Any:
        """``call`` (a query) answered by its key's owner, or ``FALLBACK``: send it to the front."""
        router = self._router
        key = call.fields["layout"]
        for _ in range(3):  # the table, then the key alone (a bound: each answer settles one question)
            lookup = router.next_lookup(key)
            if lookup is None:
                break
            try:
                result, error = self.call(lookup, timeout=timeout), None
            except Timeout as failure:  # the front did not answer on any attempt: nor would it the query
                raise route_timeout(failure, call) from failure
            except LayoutdError as failure:
                result, error = None, failure
            if not router.routes_answered(lookup, result, error):
                return FALLBACK
        entry = router.entry(key)
        if entry is None or entry.endpoint is None:
            return FALLBACK
        direct = router.direct_call(call, entry)
        request_id, frames = self._encode(direct)
        answer = self._direct_exchange(entry.endpoint, request_id, frames, self._direct_timeout(call, timeout))
        if answer is None:
            router.timed_out(entry.endpoint)
            return FALLBACK
        return self._direct_reply(direct, *answer)

    def _direct_exchange(
        self, endpoint: str, request_id: int, frames: list[Any], wait: float
    ) -> tuple[dict[str, Any], list[Any]] | None:
        """Sends ``frames`` to a worker's direct endpoint and returns the answer to ``request_id`` (its
        object and frames), or ``None`` when none came within ``wait`` seconds (the socket is then closed)."""
        socket = self._direct.get(endpoint)
        if socket is None:
            socket = self._direct[endpoint] = new_dealer(self.context, endpoint, self.curve, wait)
        deadline = time.monotonic() + wait
        try:
            socket.send_multipart(frames)
            while (remaining := deadline - time.monotonic()) > 0 and socket.poll(millis(remaining), zmq.POLLIN):
                try:
                    obj, rest = split_reply(socket.recv_multipart(copy=False))
                except DecodeError:
                    break
                if obj.get("id") == request_id:
                    return obj, rest
                self.stray_replies += 1  # a late answer to an earlier attempt
        except zmq.ZMQError:  # zmq.Again: not even queued
            pass
        self._drop_direct(endpoint)
        return None

    # -- stats -----------------------------------------------------------------------------------

    def _stats_request(self, body: bytes, timeout: float | None) -> bytes:
        wait = self._timeouts(Call("stats", {}), timeout, None)[0]
        tried: list[str] = []
        for _ in range(self.attempts):
            endpoint = self._stats_endpoint()
            if self._stats_socket is None:
                self._stats_socket = new_dealer(self.context, endpoint, self.curve, self.timeout)
            socket = self._stats_socket
            tried.append(endpoint)
            try:
                socket.send_multipart([b"", body])
                if socket.poll(millis(wait), zmq.POLLIN):
                    return bytes(socket.recv_multipart()[-1])
            except zmq.Again:
                pass
            self._drop_stats_socket(move_on=True)
        raise self._stats_timeout(tried, wait)

    def stats(self, *, timeout: float | None = None) -> Stats:
        """The stats socket's numbers (PROTOCOL.md §8). With CURVE, only admin keys get an answer."""
        return self._parse_stats(self._stats_request(STATS_BODY, timeout))

    def metrics(self, *, timeout: float | None = None) -> str:
        """The same numbers in the Prometheus text format."""
        return self._metrics_text(self._stats_request(METRICS_BODY, timeout))

    # -- ops -------------------------------------------------------------------------------------

    ping = _op(ops.ping)
    layout = _op(ops.layout)
    prepare = _op(ops.prepare)
    query = _op(ops.query)
    bounds = _op(ops.bounds)
    update = _op(ops.update)
    diff = _op(ops.diff)
    drop = _op(ops.drop)
    list_layouts = _op(ops.list_layouts)
    list = list_layouts  # noqa: A003 - the op's name
