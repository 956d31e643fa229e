"""The stats socket of the asyncio client (PROTOCOL.md §8): ``stats`` and ``metrics``, one at a time."""

from __future__ import annotations

import asyncio

import zmq
import zmq.asyncio

from .core import METRICS_BODY, STATS_BODY, ClientCore, new_dealer
from .models import Stats
from .wire import Call

__all__ = ["AsyncStatsRequests"]


class AsyncStatsRequests(ClientCore):
    """The stats requests of :class:`~layoutd.AsyncClient` (which sets the attributes declared here)."""

    context: zmq.asyncio.Context
    _stats_lock: asyncio.Lock | None

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
