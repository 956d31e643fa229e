"""The asyncio subscriber: :class:`~layoutd.events.Subscriber` on ``zmq.asyncio``."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING

import zmq
import zmq.asyncio

from .core import (
    DEFAULT_EVENTS,
    millis,
)
from .curve import CurveKeys
from .errors import LayoutdError
from .events import CONFIRM_SECONDS, Gap, SubscriberBase
from .models import Event, OtherEvent, QueryResult, Resync
from .ops import Format
from .wire import Hooks

if TYPE_CHECKING:  # pragma: no cover
    from .aio import AsyncClient

__all__ = ["AsyncSubscriber"]


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
