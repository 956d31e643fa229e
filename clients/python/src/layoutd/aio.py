"""The asyncio client (``zmq.asyncio``; the subscriber is in :mod:`layoutd.aio_subscriber`).

:class:`AsyncClient` has the same ops and the same failover and retry rules as :class:`~layoutd.Client`
(both are :class:`layoutd.core.ClientCore`s: the decisions are shared, only the waiting differs). Many
requests may be in flight at once: start them together with ``asyncio.gather`` (the event loop files each
reply to its request by ``id``)."""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

import zmq
import zmq.asyncio

from . import ops
from .aio_direct import AsyncDirectReads, _DirectLink
from .aio_stats import AsyncStatsRequests
from .aio_subscriber import AsyncSubscriber
from .core import (
    BEHIND_PAUSE,
    DEFAULT_FRONT,
    DEFAULT_MAX_IN_FLIGHT,
    FALLBACK,
    Slot,
    new_dealer,
)
from .curve import CurveKeys
from .direct import DirectReads
from .models import LayoutInfo
from .wire import BinaryArrays, Call, Hooks, as_method

__all__ = ["AsyncClient", "AsyncSubscriber"]

T = TypeVar("T")
P = ParamSpec("P")


class _AsyncSlot(Slot[T]):
    """A request of the asyncio client: its caller awaits its owner, a future set when it is done."""

    __slots__ = ("lined_up",)

    #: When it joined the line of requests waiting for a place (``time.monotonic()``).
    lined_up: float

    def _finish(self, value: Any = None, error: BaseException | None = None) -> None:
        super()._finish(value, error)
        if not self._owner.done():
            self._owner.set_result(None)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _op(builder: Callable[P, Call[T]]) -> Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]]:
    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.call(builder(*args, **kwargs))

    as_method(method, builder, "Coroutine[Any, Any, {}]")
    return method


class AsyncClient(AsyncDirectReads, AsyncStatsRequests):
    """An asyncio layoutd client. The arguments are :class:`~layoutd.Client`'s (``context`` is a
    ``zmq.asyncio.Context``). Use it inside one event loop; ``async with`` (or :meth:`aclose`) closes it.

    At most ``max_in_flight`` requests are in flight (default 1000): further calls wait for a place, so
    ``asyncio.gather`` of any number of queries completes at the wire's rate.

    Example::

        async with AsyncClient(front) as client:
            answers = await asyncio.gather(*(client.query(k, rect=r) for k, r in views))
    """

    def __init__(
        self,
        endpoints: str | Sequence[str] = DEFAULT_FRONT,
        *,
        stats_endpoints: str | Sequence[str] | None = None,
        timeout: float = 5.0,
        attempts: int | None = None,
        curve: CurveKeys | None = None,
        context: zmq.asyncio.Context | None = None,
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
        #: Requests on the wire (at most ``max_in_flight``), and those waiting in line, first come first.
        self._in_flight = 0
        self._line: deque[_AsyncSlot[Any]] = deque()
        self._pump_soon = False
        #: The one timer that wakes requests whose attempt ran out (instead of a timer per request), and
        #: when it fires (``time.monotonic()``; ``inf``: not set).
        self._watch: asyncio.TimerHandle | None = None
        self._watch_at = math.inf
        #: A read of the socket is scheduled for this loop iteration already.
        self._read_soon = False
        self._looked_up: asyncio.Event | None = None
        self._plain: zmq.Socket[Any] = None  # type: ignore[assignment]  # set with _socket
        self._fd: Any = None
        self._loop: asyncio.AbstractEventLoop = None  # type: ignore[assignment]
        self.context = context if context is not None else zmq.asyncio.Context.instance()
        #: ``route`` requests under way, by the key looked up (None: the whole table), shared by the
        #: queries that wait for them.
        self._lookups: dict[str | None, asyncio.Task[tuple[bool, BaseException | None]]] = {}
        self._resending: set[asyncio.Task[None]] = set()
        self._stats_lock: asyncio.Lock | None = None
        self._closed = False

    def _front(self) -> zmq.asyncio.Socket:
        if self._closed:
            raise RuntimeError("the client is closed")
        socket: zmq.asyncio.Socket | None = self._socket
        if socket is None:
            self._generation += 1
            socket = self._socket = new_dealer(self.context, self.endpoint, self.curve, self.timeout)
            # The same libzmq socket without futures: a send that queues at once and a receive of what is
            # there already cost a few µs instead of a future each. The loop watches the socket's FD and
            # files every reply there is at each wake-up (one wake-up per batch of replies).
            self._plain = plain = zmq.Socket[Any].shadow(socket.underlying)
            plain.sndhwm = 0  # the client bounds its requests in flight itself (max_in_flight)
            self._loop = loop = asyncio.get_running_loop()
            self._fd = plain.FD
            loop.add_reader(self._fd, self._readable, socket)
            loop.call_soon(self._readable, socket)
        return socket

    def _drop_socket(self) -> None:
        if self._socket is not None and self._fd is not None:
            try:
                self._loop.remove_reader(self._fd)
            except RuntimeError:  # the loop is closed already: nothing watches the FD
                pass
            self._fd = None
        super()._drop_socket()

    def _readable(self, socket: zmq.asyncio.Socket) -> None:
        """Files every reply waiting on ``socket`` (without blocking), if it is still the one in use. The
        socket's FD is edge-triggered: reading ZMQ_EVENTS until it shows no input re-arms it."""
        self._read_soon = False
        plain = self._plain
        recv = plain.recv
        try:
            while socket is self._socket:
                try:
                    part = recv(zmq.NOBLOCK, copy=False)
                except zmq.Again:
                    if int(plain.get(zmq.EVENTS)) & zmq.POLLIN:
                        continue
                    return
                frames = [part]
                while part.more:  # the rest of a message is there once its first frame is
                    part = recv(copy=False)
                    frames.append(part)
                standby = self._on_reply(frames)
                if standby is not None:
                    self._resend(*self._fail_over(standby))
                    return
                if self._behind:  # reads whose answer was older than they may take: ask again shortly
                    self._resend(self._take_behind(), BEHIND_PAUSE)
        except zmq.ZMQError:
            return

    def _send(self, slot: Slot[Any]) -> None:
        socket = self._front()
        plain = self._plain
        try:  # queued at once (no high-water mark: max_in_flight bounds it); attachments without a copy
            plain.send_multipart(slot.frames, zmq.NOBLOCK, copy=not slot.call.attachments)
        except zmq.Again:
            queued = False  # not even queued: its wait fails over at once
        except zmq.ZMQError:
            if socket is self._socket:
                raise
            return
        else:
            queued = True
        self._sent(slot, queued)
        if slot.deadline < self._watch_at:
            self._watch_until(slot.deadline)
        # A send can take in what the I/O thread delivered and leave the edge-triggered FD quiet: look once
        # this loop iteration is through (one read for every send of the iteration, so replies go in batches).
        if not self._read_soon and int(plain.get(zmq.EVENTS)) & zmq.POLLIN:
            self._read_soon = True
            self._loop.call_soon(self._readable, socket)

    def _watch_until(self, when: float) -> None:
        """Makes the watch timer fire at ``when`` (``time.monotonic()``)."""
        if self._watch is not None:
            self._watch.cancel()
        self._watch_at = when
        self._watch = self._loop.call_later(max(0.0, when - time.monotonic()), self._on_watch)

    def _on_watch(self) -> None:
        """Wakes every request whose attempt (or deadline) ran out, and sets the timer for the next one. It
        fires about once per ``timeout`` while replies come, so looking at each request in flight costs
        little; a timer per request would cost a heap entry and a cancel per reply."""
        self._watch, self._watch_at = None, math.inf
        now = time.monotonic()
        soonest = math.inf
        for slot in self._pending.values():
            if slot.deadline <= now:
                _wake(slot._owner)
            elif slot.deadline < soonest:
                soonest = slot.deadline
        if soonest < math.inf and not self._closed:
            self._watch_until(soonest)

    def _resend(self, again: list[Slot[Any]], delay: float) -> None:
        """Sends ``again`` on the new socket, after ``delay``, in a task of its own (so that no caller's
        cancellation can stop it half-way)."""
        if again:
            task = asyncio.get_running_loop().create_task(self._send_again(again, delay))
            self._resending.add(task)
            task.add_done_callback(self._resending.discard)

    async def _send_again(self, again: list[Slot[Any]], delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)  # every endpoint answered "standby": back off before the next round
        for slot in again:
            if not slot._done and not self._closed:
                self._send(slot)

    async def call(self, call: Call[T], *, timeout: float | None = None, deadline: float | None = None) -> T:
        """Sends ``call`` and returns its typed result (the failover and retry rules of the module's doc;
        a ``query`` goes to its key's owner when it can: see ``direct_reads``). With ``max_in_flight``
        requests in flight it waits in line: the reply that frees a place sends the next request in line
        (so a caller in line wakes once, for its reply)."""
        if self._router.wants(call):
            value = await self._query_directly(call, timeout)
            if value is not FALLBACK:
                return value  # type: ignore[no-any-return]
        slot: _AsyncSlot[T] = self._open(
            call,
            timeout,
            _AsyncSlot,  # type: ignore[assignment]
            asyncio.get_running_loop().create_future(),
            deadline,
        )
        try:
            if self._in_flight < self.max_in_flight and not self._line:
                self._in_flight += 1
                self._send(slot)
            else:
                del self._pending[slot.id]  # not on the wire: no failover sends or fails it
                slot.lined_up = time.monotonic()
                self._line.append(slot)
            while not slot._done:
                if slot.generation < 0 or slot.deadline > time.monotonic():  # in line, or sent and in time
                    owner: asyncio.Future[None] = slot._owner
                    if owner.done():  # woken before: a new future to wait on
                        owner = slot._owner = self._loop.create_future()
                    if slot.generation >= 0 and slot.deadline < self._watch_at:
                        self._watch_until(slot.deadline)
                    await owner  # set by the reply, or by the watch timer once the attempt ran out
                elif self._expired(slot):
                    break
                elif slot.generation == self._generation and self._socket is not None:
                    self._resend(*self._fail_over(self._timed_out(slot)))
                else:  # its socket was replaced and it is being sent again (a send held up past its deadline)
                    await self._until(slot, slot.timeout)
                    if not slot._done and slot.generation != self._generation:
                        self._complete(slot, error=self._timed_out(slot))  # the new attempt never went out
        finally:
            if not slot._done:  # cancelled: forget it (and never send it again)
                self._complete(slot, error=asyncio.CancelledError())
        return slot._outcome()

    def _complete(self, slot: Slot[Any], value: Any = None, error: BaseException | None = None) -> None:
        if self._pending.pop(slot.id, None) is not None:  # it was on the wire: its place is free
            self._in_flight -= 1
            if self._line and not self._pump_soon:
                self._pump_soon = True
                self._loop.call_soon(self._pump)
        slot._finish(value, error)

    def _pump(self) -> None:
        """Sends the requests in line while there is room (once per loop iteration, however many replies
        made room in it)."""
        self._pump_soon = False
        line = self._line
        while line and self._in_flight < self.max_in_flight:
            slot = line.popleft()
            if slot._done:  # cancelled in line
                continue
            if self._closed:
                slot._finish(error=RuntimeError("the client is closed"))
                continue
            slot.expires += time.monotonic() - slot.lined_up  # its deadline counts from when it goes out
            self._pending[slot.id] = slot
            self._in_flight += 1
            try:
                self._send(slot)
            except (zmq.ZMQError, RuntimeError) as error:
                self._complete(slot, error=error)

    @staticmethod
    async def _until(slot: Slot[Any], seconds: float) -> None:
        """Waits until ``slot`` is done or ``seconds`` passed (a timer on its future: no ``asyncio.wait``)."""
        owner: asyncio.Future[None] = slot._owner
        loop = asyncio.get_running_loop()
        if owner.done():
            owner = slot._owner = loop.create_future()
        timer = loop.call_later(seconds, _wake, owner)
        try:
            await owner
        finally:
            timer.cancel()

    async def request(
        self,
        op: str,
        fields: Mapping[str, Any] | None = None,
        *,
        attachments: Iterable[Any] = (),
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Any ``op`` with any fields; the raw ``result`` (see :meth:`layoutd.Client.request`)."""
        return await self.call(Call(op, dict(fields or {}), tuple(attachments)), timeout=timeout)

    async def iter_layouts(
        self, *, prefix: str | None = None, limit: int | None = None, timeout: float | None = None
    ) -> AsyncIterator[LayoutInfo]:
        """Every kept layout (whose key starts with ``prefix``), one ``list`` page at a time (see
        :meth:`layoutd.Client.iter_layouts`)."""
        after: str | None = None
        while True:
            page = await self.call(ops.list_layouts(after=after, limit=limit, prefix=prefix), timeout=timeout)
            for info in page.layouts:
                if prefix is None or info.layout.startswith(prefix):
                    yield info
            if page.next is None or page.next == after:
                return
            after = page.next

    def close(self) -> None:
        """Closes the sockets; requests in flight fail."""
        self._closed = True
        for slot in self._line:  # as a call that found the client closed when its turn came
            if not slot._done:
                slot._finish(error=RuntimeError("the client is closed"))
        self._line.clear()
        if self._watch is not None:
            self._watch.cancel()
            self._watch, self._watch_at = None, math.inf
        for task in list(self._resending):
            task.cancel()
        self._abandon()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the client and waits for its tasks (readers, resends, lookups) to end."""
        links: list[_DirectLink] = list(self._direct.values())
        tasks = [
            t for t in (*self._resending, *self._lookups.values(), *(link.reader for link in links)) if t is not None
        ]
        self.close()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    ping = _op(ops.ping)
    layout = _op(ops.layout)
    prepare = _op(ops.prepare)
    query = _op(ops.query)
    bounds = _op(ops.bounds)
    update = _op(ops.update)
    diff = _op(ops.diff)
    drop = _op(ops.drop)
    list_layouts = _op(ops.list_layouts)
    list = list_layouts  # noqa: A003
