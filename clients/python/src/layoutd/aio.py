"""The asyncio client and subscriber (``zmq.asyncio``).

:class:`AsyncClient` has the same ops and the same failover and retry rules as :class:`~layoutd.Client`
(both are :class:`layoutd.core.ClientCore`s: the decisions are shared, only the waiting differs). Many
requests may be in flight at once: start them together with ``asyncio.gather`` (one reader task files each
reply to its request by ``id``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable, Concatenate, Coroutine, Iterable, Mapping, ParamSpec, Sequence, TypeVar

import zmq
import zmq.asyncio

from . import ops
from .core import DEFAULT_EVENTS, DEFAULT_FRONT, METRICS_BODY, STATS_BODY, ClientCore, Slot, new_dealer
from .curve import CurveKeys
from .errors import LayoutdError
from .events import Gap, SubscriberBase
from .models import Event, QueryResult, Resync, Stats
from .ops import Format
from .wire import BinaryArrays, Call, Hooks, as_method

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


def _op(builder: Callable[P, Call[T]]) -> Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]]:
    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.call(builder(*args, **kwargs))

    as_method(method, builder, "Coroutine[Any, Any, {}]")
    return method


class AsyncClient(ClientCore):
    """An asyncio layoutd client. The arguments are :class:`~layoutd.Client`'s (``context`` is a
    ``zmq.asyncio.Context``). Use it inside one event loop; ``async with`` closes it.

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
    ) -> None:
        super().__init__(endpoints, stats_endpoints=stats_endpoints, timeout=timeout, attempts=attempts,
                         curve=curve, hooks=hooks, binary_arrays=binary_arrays, backoff=backoff)
        self.context = context if context is not None else zmq.asyncio.Context.instance()
        self._reader: asyncio.Task[None] | None = None
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
            self._reader = asyncio.get_running_loop().create_task(self._read(socket))
        return socket

    def _drop_socket(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
        super()._drop_socket()

    async def _read(self, socket: zmq.asyncio.Socket) -> None:
        """The reader of one socket: files each reply, until the socket is replaced or closed."""
        try:
            while socket is self._socket:
                frames = await socket.recv_multipart(copy=False)
                if socket is not self._socket:
                    return
                standby = self._on_reply(frames)
                if standby is not None:
                    self._resend(*self._fail_over(standby))
                    return
        except (asyncio.CancelledError, zmq.ZMQError):
            return

    async def _send(self, slot: Slot[Any]) -> None:
        socket = self._front()
        try:  # bounded by the socket's send timeout; attachments go without a copy
            await socket.send_multipart(slot.frames, copy=not slot.call.attachments)
        except zmq.Again:
            queued = False  # not even queued: its wait fails over at once
        except zmq.ZMQError:
            if socket is self._socket:
                raise
            return  # the socket was replaced while this send waited: the failover sends it again
        else:
            queued = True
        if socket is self._socket:
            self._sent(slot, queued)

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
                await self._send(slot)

    async def call(self, call: Call[T], *, timeout: float | None = None) -> T:
        """Sends ``call`` and returns its typed result (the failover and retry rules of the module's doc)."""
        slot: _AsyncSlot[T] = self._open(call, timeout, _AsyncSlot, asyncio.get_running_loop().create_future())  # type: ignore[assignment]
        try:
            await self._send(slot)
            while not slot._done:
                remaining = slot.deadline - time.monotonic()
                if remaining > 0:
                    await asyncio.wait((slot._owner,), timeout=remaining)
                elif slot.generation == self._generation and self._socket is not None:
                    self._resend(*self._fail_over(self._timed_out(slot)))
                else:  # its socket was replaced and it is being sent again (a send held up past its deadline)
                    await asyncio.wait((slot._owner,), timeout=slot.timeout)
                    if not slot._done and slot.generation != self._generation:
                        self._complete(slot, error=self._timed_out(slot))  # the new attempt never went out
        finally:
            if not slot._done:  # cancelled: forget it (and never send it again)
                self._complete(slot, error=asyncio.CancelledError())
        return slot._outcome()

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

    async def _stats_request(self, body: bytes, timeout: float | None) -> bytes:
        if self._stats_lock is None:
            self._stats_lock = asyncio.Lock()
        wait = timeout or self.timeout
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
        for task in list(self._resending):
            task.cancel()
        self._abandon()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        tasks = [t for t in (self._reader, *self._resending) if t is not None]
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
    resyncs through an :class:`AsyncClient`."""

    def __init__(
        self,
        endpoints: str | Sequence[str] = DEFAULT_EVENTS,
        prefixes: Sequence[str] = ("",),
        *,
        client: AsyncClient | None = None,
        curve: CurveKeys | None = None,
        context: zmq.asyncio.Context | None = None,
        versions: Mapping[str, int] | None = None,
        resync_format: Format | None = None,
        hooks: Hooks | None = None,
    ) -> None:
        super().__init__(endpoints, prefixes, client, curve,
                         context if context is not None else zmq.asyncio.Context.instance(), versions,
                         resync_format, hooks)
        self.client: AsyncClient | None = client

    async def next(self, timeout: float | None = None) -> Event | Resync | None:
        """The next event or resync, or ``None`` after ``timeout`` seconds without one."""
        deadline = self._deadline(timeout)
        while True:
            if await self._socket.poll(self._poll_ms(deadline)):
                item = await self._handle(await self._socket.recv_multipart())
                if item is not None:
                    return item
            elif self._expired(deadline):
                return None

    async def _handle(self, frames: Sequence[bytes]) -> Event | Resync | None:
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
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
