"""How every socket of the package is set up (linger 0, CURVE client, a send timeout), and ZeroMQ's
milliseconds."""

from __future__ import annotations

import math
from typing import Any

import zmq

from .curve import CurveKeys

__all__ = ["millis", "connect", "new_dealer"]


def millis(seconds: float) -> int:
    """``seconds`` as whole milliseconds, rounded up (ZeroMQ's timeouts)."""
    return max(0, int(math.ceil(seconds * 1000)))


def connect(socket: Any, endpoint: str, curve: CurveKeys | None, send_timeout: float | None = None) -> Any:
    """Sets up ``socket`` as every socket of this package is (linger 0, CURVE client, a send timeout) and
    connects it to ``endpoint``."""
    socket.linger = 0
    if send_timeout is not None:
        socket.sndtimeo = millis(send_timeout)
    if curve is not None:
        curve.apply(socket)
    socket.connect(endpoint)
    return socket


def new_dealer(context: Any, endpoint: str, curve: CurveKeys | None, send_timeout: float | None = None) -> Any:
    """A DEALER of ``context`` (sync or asyncio) connected to ``endpoint``."""
    return connect(context.socket(zmq.DEALER), endpoint, curve, send_timeout)
