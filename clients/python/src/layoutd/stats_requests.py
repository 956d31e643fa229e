"""The stats socket's requests, as both clients make them (PROTOCOL.md §8)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .errors import DecodeError, InvalidInput, Timeout
from .models import Stats
from .wire import Hooks

__all__ = ["StatsRequests", "STATS_BODY", "METRICS_BODY"]

STATS_BODY = b'{"op":"stats"}'
METRICS_BODY = b'{"op":"metrics"}'


class StatsRequests:
    """The stats part of :class:`~layoutd.core.ClientCore` (which sets the attributes declared here)."""

    stats_endpoints: list[str]
    _stats_index: int
    _stats_socket: Any
    hooks: Hooks

    def _stats_endpoint(self) -> str:
        """The stats endpoint to ask now (``ValueError`` when the client has none)."""
        if not self.stats_endpoints:
            raise InvalidInput(
                "this client has no stats_endpoints: give them to the client to ask for stats",
                "stats_endpoints",
                op="stats",
            )
        return self.stats_endpoints[self._stats_index]

    def _drop_stats_socket(self, move_on: bool = False) -> None:
        """Closes the stats socket; with ``move_on`` the next stats request goes to the next endpoint."""
        if self._stats_socket is not None:
            self._stats_socket.close(linger=0)
            self._stats_socket = None
        if move_on:
            self._stats_index = (self._stats_index + 1) % len(self.stats_endpoints)

    @staticmethod
    def _stats_timeout(tried: Sequence[str], wait: float) -> Timeout:
        return Timeout(
            f"no stats answer after {len(tried)} attempt(s) of {wait:g}s (tried {', '.join(tried)})",
            endpoints=tuple(tried),
            op="stats",
        )

    def _parse_stats(self, raw: bytes) -> Stats:
        try:
            obj = json.loads(raw)
        except ValueError as error:
            raise DecodeError(f"the stats answer is not JSON: {error}", op="stats") from None
        if self.hooks.stats is not None:
            self.hooks.stats(obj)
        return Stats.parse(obj)

    @staticmethod
    def _metrics_text(raw: bytes) -> str:
        return raw.decode("utf-8", "replace")
