"""The asyncio client and subscriber (``zmq.asyncio``).

:class:`AsyncClient` has the same ops and the same failover and retry rules as :class:`~layoutd.Client`
(both are :class:`layoutd.core.ClientCore`s: the decisions are shared, only the waiting differs). Many
requests may be in flight at once: start them together with ``asyncio.gather`` (one reader task files each
reply to its request by ``id``).
"""

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
from .core import (
    BEHIND_PAUSE,
    DEFAULT_EVENTS,
    DEFAULT_FRONT,
    DEFAULT_MAX_IN_FLIGHT,
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
from .events import CONFIRM_SECONDS, Gap, SubscriberBase
from .models import Event, LayoutInfo, OtherEvent, QueryResult, Resync, Stats
from .ops import Format
from .wire import BinaryArrays, Call, Hooks, as_method, split_reply

__all__ = ["AsyncClient", "AsyncSubscriber"]

T = TypeVar("T")
P = ParamSpec("P")


class _AsyncSlot(Slot[T]):
    """A request of the asyncio client: its caller awaits its owner, a future set when it is done."""

    __slots__ = ()

    def _finish(self, value: Any = None, error: BaseException | None = None) -> None:
        super()._finish(value, error)
        if not self._owner.done():
            self._owner.set_result(None)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _DirectLink:
    """A DEALER to one worker's direct endpoint and its reader task, which hands each answer to the
    direct attempt waiting for its id."""

    def __init__(self, client: AsyncClient, socket: zmq.asyncio.Socket) -> None:
        self.client = client
        self.socket = socket
        self.waiting: dict[int, asyncio.Future[tuple[dict[str, Any], list[Any]] | None]] = {}
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                frames = await self.socket.recv_multipart(copy=False)
                try:
                    obj, rest = split_reply(frames)
                except DecodeError:
                    self.client.stray_replies += 1
                    continue
                request_id = obj.get("id")
                future = self.waiting.pop(request_id, None) if type(request_id) is int else None
                if future is None or future.done():
                    self.client.stray_replies += 1  # a late answer to an attempt that gave up
                    continue
                future.set_result((obj, rest))
        except (asyncio.CancelledError, zmq.ZMQError):
            return

    def close(self, linger: int = 0) -> None:
        """Stops the reader and closes the socket; attempts still waiting go to the front."""
        if self.reader is not asyncio.current_task():
            self.reader.cancel()
        self.socket.close(linger=linger)
        for future in self.waiting.values():
            if not future.done():
                future.set_result(None)
        self.waiting.clear()


def _op(builder: Callable[P, Call[T]]) -> Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]]:
    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.call(builder(*args, **kwargs))

    as_method(method, builder, "Coroutine[Any, Any, {}]")
    return method


class AsyncClient(ClientCore):
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
        #: Calls holding a place (at most ``max_in_flight``), and those waiting for one, first come first.
        self._in_flight = 0
        self._waiting_room: deque[asyncio.Future[None]] = deque()
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
        a ``query`` goes to its key's owner when it can: see ``direct_reads``). Waits first for a place
        when ``max_in_flight`` requests are in flight."""
        if self._router.wants(call):
            value = await self._query_directly(call, timeout)
            if value is not FALLBACK:
                return value  # type: ignore[no-any-return]
        if self._in_flight < self.max_in_flight and not self._waiting_room:
            self._in_flight += 1
        else:
            await self._enter()
        try:
            return await self._call_front(call, timeout, deadline)
        finally:
            self._leave()

    async def _enter(self) -> None:
        """Waits until a call that leaves hands its place over (a semaphore without its coroutines on the
        way in and out, which every call pays for)."""
        place: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting_room.append(place)
        try:
            await place
        except asyncio.CancelledError:
            if place.done() and not place.cancelled():  # handed over just as it was cancelled: pass it on
                self._leave()
            raise

    def _leave(self) -> None:
        waiting = self._waiting_room
        while waiting:
            place = waiting.popleft()
            if not place.done():
                place.set_result(None)  # the place goes to the next caller: the count stays
                return
        self._in_flight -= 1

    async def _call_front(self, call: Call[T], timeout: float | None, deadline: float | None) -> T:
        slot: _AsyncSlot[T] = self._open(
            call,
            timeout,
            _AsyncSlot,  # type: ignore[assignment]
            asyncio.get_running_loop().create_future(),
            deadline,
        )
        try:
            self._send(slot)
            while not slot._done:
                if slot.deadline > time.monotonic():
                    owner: asyncio.Future[None] = slot._owner
                    if owner.done():  # woken before: a new future to wait on
                        owner = slot._owner = self._loop.create_future()
                    if slot.deadline < self._watch_at:
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

    @staticmethod
    async def _until(slot: Slot[Any], seconds: float) -> None:
        """Waits until ``slot`` is done or ``seconds`` passed: its future, woken by a timer (cheaper than
        ``asyncio.wait``, which makes a waiter and callbacks each time)."""
        owner: asyncio.Future[None] = slot._owner
        loop = asyncio.get_running_loop()
        if owner.done():
            owner = slot._owner = loop.create_future()
        timer = loop.call_later(seconds, _wake, owner)
        try:
            await owner
        finally:
            timer.cancel()

    async def _query_directly(self, call: Call[T], timeout: float | None) -> Any:
        """``call`` (a query) answered by its key's owner, or ``FALLBACK``: send it to the front."""
        router = self._router
        key = call.fields["layout"]
        while not router.front_known and self._lookups:  # the first answer tells a single daemon apart
            if self._looked_up is None:
                self._looked_up = asyncio.Event()
            await self._looked_up.wait()
            if not router.wants(call):
                return FALLBACK
        for _ in range(3):  # the key, then again after a doubtful answer (a bound: each answer settles one)
            lookup = router.next_lookup(key)
            if lookup is None:
                break
            if not await self._look_up(lookup, timeout, call):
                return FALLBACK
        entry = router.entry(key)
        if entry is None or entry.endpoint is None:
            return FALLBACK
        direct = router.direct_call(call, entry)
        request_id, frames = self._encode(direct)
        answer = await self._direct_exchange(entry.endpoint, request_id, frames, self._direct_timeout(call, timeout))
        if answer is None:
            router.timed_out(entry.endpoint)
            return FALLBACK
        return self._direct_reply(direct, *answer)

    async def _look_up(self, lookup: Call[Any], timeout: float | None, call: Call[Any]) -> bool:
        """Sends ``lookup`` (a ``route``), or waits for the same one already under way. Raises the
        :class:`~layoutd.errors.Timeout` of ``call`` when the front answered it on no attempt."""
        name = lookup.fields.get("layout")
        task = self._lookups.get(name)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._fetch_routes(lookup, timeout))
            self._lookups[name] = task

            def forget(done: asyncio.Task[tuple[bool, BaseException | None]], name: str | None = name) -> None:
                if self._lookups.get(name) is done:
                    del self._lookups[name]
                if self._looked_up is not None:  # wake the queries that waited for a first answer
                    self._looked_up.set()
                    self._looked_up = None

            task.add_done_callback(forget)
        answered, error = await asyncio.shield(task)  # one caller's cancellation does not stop the others'
        if isinstance(error, Timeout):  # the front did not answer on any attempt: nor would it the query
            raise route_timeout(error, call) from error
        return answered

    async def _fetch_routes(self, lookup: Call[Any], timeout: float | None) -> tuple[bool, BaseException | None]:
        try:
            result, error = await self.call(lookup, timeout=timeout), None
        except (LayoutdError, RuntimeError, asyncio.CancelledError) as failure:  # RuntimeError: closed
            result, error = None, failure
        return self._router.routes_answered(lookup, result, error), error

    async def _direct_exchange(
        self, endpoint: str, request_id: int, frames: list[Any], wait: float
    ) -> tuple[dict[str, Any], list[Any]] | None:
        """Sends ``frames`` to a worker's direct endpoint and returns the answer to ``request_id``, or
        ``None`` when none came within ``wait`` seconds (the socket is then closed)."""
        if self._closed:
            return None
        link: _DirectLink | None = self._direct.get(endpoint)
        if link is None:
            link = self._direct[endpoint] = _DirectLink(self, new_dealer(self.context, endpoint, self.curve, wait))
        future: asyncio.Future[tuple[dict[str, Any], list[Any]] | None] = asyncio.get_running_loop().create_future()
        link.waiting[request_id] = future
        deadline = time.monotonic() + wait
        try:
            await asyncio.wait_for(link.socket.send_multipart(frames), wait)
            await asyncio.wait((future,), timeout=max(0.0, deadline - time.monotonic()))
        except (asyncio.TimeoutError, zmq.ZMQError):
            pass
        finally:
            link.waiting.pop(request_id, None)
        if future.done() and not future.cancelled() and future.result() is not None:
            return future.result()
        if self._direct.get(endpoint) is link:  # no answer: a late one must not meet the next read
            self._drop_direct(endpoint)
        return None

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

    async def _stats_request(self, body: bytes, timeout: float | None) -> bytes:
        if self._stats_lock is None:
            self._stats_lock = asyncio.Lock()
        wait = self._timeouts(Call("stats", {}), timeout, None)[0]
        tried: list[str] = []
        async with self._stats_lock:  # stats answers carry no id: one at a time
            for _ in range(self.attempts):
                endpoint = self._stats_endpoint()
                if self._stats_socket is None:
                    self._stats_socket = new_dealer(self.context, endpoint, self.curve, self.timeout)
                socket = self._stats_socket
                tried.append(endpoint)
                try:
                    await asyncio.wait_for(socket.send_multipart([b"", body]), wait)
                    frames = await asyncio.wait_for(socket.recv_multipart(), wait)
                    return bytes(frames[-1])
                except (asyncio.TimeoutError, zmq.Again):
                    pass
                self._drop_stats_socket(move_on=True)
        raise self._stats_timeout(tried, wait)

    async def stats(self, *, timeout: float | None = None) -> Stats:
        """The stats socket's numbers (PROTOCOL.md §8)."""
        return self._parse_stats(await self._stats_request(STATS_BODY, timeout))

    async def metrics(self, *, timeout: float | None = None) -> str:
        """The Prometheus text."""
        return self._metrics_text(await self._stats_request(METRICS_BODY, timeout))

    def close(self) -> None:
        """Closes the sockets; requests in flight fail."""
        self._closed = True
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


class AsyncSubscriber(SubscriberBase):
    """The asyncio :class:`~layoutd.events.Subscriber`: the same arguments, the same gap detection,
    resyncs through its :class:`AsyncClient` (one event loop: no thread shares it). The constructor cannot
    wait: with ``confirm=True`` (the default) ``async with`` waits for the confirmation, or the first
    :meth:`next` does; ``await wait_ready()`` at any time.

    Example::

        async with AsyncSubscriber(events, topics=["batch:feed"], client=client) as sub:
            await client.update("feed", updates=[...])      # its event reaches sub
            async for item in sub:
                ...
    """

    def __init__(
        self,
        endpoints: str | Sequence[str] = DEFAULT_EVENTS,
        prefixes: Sequence[str] = ("",),
        *,
        topics: Sequence[str] = (),
        client: AsyncClient | None = None,
        curve: CurveKeys | None = None,
        context: zmq.asyncio.Context | None = None,
        versions: Mapping[str, int] | None = None,
        resync_format: Format | None = None,
        hooks: Hooks | None = None,
        confirm: bool = True,
        confirm_timeout: float = CONFIRM_SECONDS,
        yield_others: bool = False,
    ) -> None:
        super().__init__(
            endpoints,
            prefixes,
            client,
            curve,
            context if context is not None else zmq.asyncio.Context.instance(),
            versions,
            resync_format,
            hooks,
            topics,
            yield_others,
        )
        self.client: AsyncClient | None = client
        self._confirm = confirm
        self._confirm_timeout = confirm_timeout

    async def wait_ready(self, timeout: float = CONFIRM_SECONDS) -> None:
        """Returns once every subscription made so far is in effect (see :meth:`Subscriber.wait_ready`).

        Raises:
            Timeout: no confirmation within ``timeout`` seconds.
        """
        self._confirm = False
        topic = self._start_confirmation()
        deadline = time.monotonic() + timeout
        try:
            while not self._core.confirmed:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not await self._socket.poll(millis(remaining)):
                    raise self._unconfirmed(timeout)
                item = await self._handle(await self._socket.recv_multipart())
                if item is not None:
                    self._early.append(item)
        finally:
            self._end_confirmation(topic)

    async def next(self, timeout: float | None = None) -> Event | Resync | OtherEvent | None:
        """The next event or resync, or ``None`` after ``timeout`` seconds without one."""
        if self._confirm:
            await self.wait_ready(self._confirm_timeout)
        if self._early:
            return self._early.popleft()  # type: ignore[no-any-return]
        deadline = self._deadline(timeout)
        while True:
            if await self._socket.poll(self._poll_ms(deadline)):
                item = await self._handle(await self._socket.recv_multipart())
                if item is not None:
                    return item
            elif self._expired(deadline):
                return None

    async def __aiter__(self) -> AsyncIterator[Event | Resync | OtherEvent]:
        """Events without end (``async for event in subscriber``)."""
        while True:
            item = await self.next()
            if item is not None:
                yield item

    async def _handle(self, frames: Sequence[bytes]) -> Event | Resync | OtherEvent | None:
        step = self._core.step(frames)
        if not isinstance(step, Gap):
            return step
        if self.client is None:
            return self._core.resynced(step)
        try:
            result: QueryResult = await self.client.call(step.query)
        except LayoutdError as error:
            return self._core.resynced(step, error=error)
        return self._core.resynced(step, result)

    async def __aenter__(self) -> AsyncSubscriber:
        if self._confirm:
            try:
                await self.wait_ready(self._confirm_timeout)
            except BaseException:
                self.close()
                raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
