"""Direct reads of the asyncio client (docs/PROTOCOL.md §11; the decisions are :mod:`layoutd.direct`'s): a
query goes to its key's owner, after the ``route`` lookups it needs, which concurrent queries share."""

from __future__ import annotations

import asyncio
import time
from typing import Any, TypeVar

import zmq
import zmq.asyncio

from .core import (
    FALLBACK,
    ClientCore,
    new_dealer,
    route_timeout,
)
from .errors import DecodeError, LayoutdError, Timeout
from .wire import Call, split_reply

__all__ = ["AsyncDirectReads"]

T = TypeVar("T")


class _DirectLink:
    """A DEALER to one worker's direct endpoint and its reader task, which hands each answer to the
    direct attempt waiting for its id."""

    def __init__(self, client: ClientCore, socket: zmq.asyncio.Socket) -> None:
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


class AsyncDirectReads(ClientCore):
    """The direct-read part of :class:`~layoutd.AsyncClient` (which sets the attributes declared here)."""

    context: zmq.asyncio.Context
    _closed: bool
    _looked_up: asyncio.Event | None
    #: ``route`` requests under way, by the key looked up (None: the whole table), shared by the queries
    #: that wait for them.
    _lookups: dict[str | None, asyncio.Task[tuple[bool, BaseException | None]]]

    async def call(self, call: Call[T], *, timeout: float | None = None, deadline: float | None = None) -> T:
        raise NotImplementedError  # AsyncClient's

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
