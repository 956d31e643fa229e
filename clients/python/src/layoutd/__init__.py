"""A Python client for layoutd: the collection-view layout daemon (JSON over ZeroMQ).

* :class:`Client` (sync) and :class:`AsyncClient` (asyncio): the ops of docs/PROTOCOL.md as methods
  (``ping``, ``layout``, ``prepare``, ``query``, ``bounds``, ``update``, ``diff``, ``list``, ``drop``,
  and ``stats``/``metrics`` on the stats socket), typed results, typed errors, pipelining, failover over
  several endpoints, ``format="binary"`` columns as numpy arrays or memoryviews, size columns sent as
  binary frames.
* :class:`Subscriber` and :class:`AsyncSubscriber`: typed events, per-key gap detection, resync by query.
* :class:`CurveKeys`: CURVE credentials from Z85 keys or ``layoutctl keygen`` files.
"""

from . import errors, jobs, models, ops
from .aio import AsyncClient, AsyncSubscriber
from .client import Client, Pending, Pipeline
from .core import DEFAULT_EVENTS, DEFAULT_FRONT, DEFAULT_STATS
from .curve import CurveKeys, read_key_file
from .errors import *  # noqa: F401,F403 - every exception (errors.__all__)
from .events import EMPTY_RECT, Subscriber, VersionTracker
from .models import *  # noqa: F401,F403 - every result, event and column type (models.__all__)
from .wire import Call, Hooks

__version__ = "0.1.0"

__all__ = [
    "ops",
    "jobs",
    "Client",
    "AsyncClient",
    "Pending",
    "Pipeline",
    "Subscriber",
    "AsyncSubscriber",
    "VersionTracker",
    "EMPTY_RECT",
    "CurveKeys",
    "read_key_file",
    "Call",
    "Hooks",
    "DEFAULT_FRONT",
    "DEFAULT_EVENTS",
    "DEFAULT_STATS",
]
__all__ += errors.__all__
__all__ += models.__all__
