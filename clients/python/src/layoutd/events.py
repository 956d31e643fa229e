"""Events (PROTOCOL.md §7): a SUB socket, typed events, gap detection and resynchronisation.

Versions rise by exactly one per change of a layout, so a subscriber knows when it missed events: ZeroMQ
drops events for subscribers that fall behind, and events published before a subscription reached the
daemon are never delivered. :class:`Subscriber` keeps, per layout key, the last version it knows and:

* hands over an event whose version is the next one (or the first it sees of a key);
* ignores an event at or below a version it already knows from a reply (:meth:`Subscriber.track`), as the
  protocol asks ("subscribe first, then query or prepare, and ignore events at or below the version in
  your reply");
* on a gap (a version more than one ahead, or the same version seen twice in the stream, which a cluster
  can publish after a change whose worker died, §10.8) does not hand over the event: it issues **one
  query** for that key through its client and reports a :class:`~layoutd.models.Resync` carrying the
  query's answer, whose version becomes the new baseline. The query asks for the rect given to
  :meth:`Subscriber.track` for that key (your visible rect), or, without one, for an empty rect at the
  origin: that answers the version alone, with no elements (re-query what you show then).

With CURVE every topic starts with the client's public key (40 characters of Z85): the subscriber puts it
in front of each prefix it subscribes to and takes it off each topic it receives, so you subscribe and
read topics exactly as without CURVE.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, NamedTuple

import zmq

from . import ops
from .client import Client
from .core import DEFAULT_EVENTS, endpoint_list, millis
from .curve import CurveKeys
from .errors import DecodeError, LayoutdError
from .models import Event, QueryResult, Resync, parse_event
from .ops import Format, Rect, as_rect
from .wire import Call, Hooks

__all__ = ["VersionTracker", "Subscriber", "SubscriberBase", "SubscriberCore", "Gap", "EMPTY_RECT"]

#: The rect a resync asks for when none was given for the key: no element overlaps it.
EMPTY_RECT: Mapping[str, float] = {"x": 0, "y": 0, "width": 0, "height": 0}

Verdict = Literal["new", "stale", "gap"]


class VersionTracker:
    """The last version known per layout key, and what a new event's version means against it.

    A version known from a reply (:meth:`baseline`) and one known from an event (:meth:`accept`) differ in
    one case: the same version arriving again in the event stream is a gap (the cluster published a
    version twice), while an event at the version of a reply is just the event of a change the reply
    already showed.
    """

    def __init__(self, versions: Mapping[str, int] | None = None) -> None:
        self._known: dict[str, tuple[int, bool]] = {}
        for layout, version in (versions or {}).items():
            self.baseline(layout, version)

    def known(self, layout: str) -> int | None:
        """The version known for ``layout``, or ``None``."""
        entry = self._known.get(layout)
        return None if entry is None else entry[0]

    def baseline(self, layout: str, version: int) -> None:
        """``version`` came in a reply (``prepare``, ``query``, ``update``, …): events at or below it are
        ignored. A baseline never moves back."""
        entry = self._known.get(layout)
        if entry is None or version >= entry[0]:
            self._known[layout] = (version, False)

    def reset(self, layout: str, version: int) -> None:
        """Sets the baseline to ``version`` even if it is older (after a resync's query)."""
        self._known[layout] = (version, False)

    def accept(self, layout: str, version: int) -> None:
        """An event of ``version`` was handed over."""
        self._known[layout] = (version, True)

    def forget(self, layout: str) -> None:
        """Stops tracking ``layout``: its next event is taken as it comes."""
        self._known.pop(layout, None)

    def classify(self, layout: str, version: int) -> Verdict:
        """``"new"`` (hand it over), ``"stale"`` (ignore it) or ``"gap"`` (events were missed: resync)."""
        entry = self._known.get(layout)
        if entry is None:
            return "new"
        known, from_event = entry
        if version == known + 1:
            return "new"
        if version > known + 1 or (version == known and from_event):
            return "gap"
        return "stale"


class Gap(NamedTuple):
    """An event that showed a gap: ``last`` was the version known, ``query`` the resync to issue."""

    event: Event
    last: int
    query: Call[QueryResult]


class SubscriberCore:
    """What the sync and asyncio subscribers decide, without I/O: prefixes, topic prefix, decoding, the
    tracker, and what each event means (:meth:`step`)."""

    def __init__(
        self,
        curve: CurveKeys | None,
        hooks: Hooks | None,
        versions: Mapping[str, int] | None,
        resync_format: Format | None,
    ) -> None:
        self.curve = curve
        self.topic_prefix = curve.topic_prefix if curve is not None else b""
        self.hooks = hooks or Hooks()
        self.tracker = VersionTracker(versions)
        self.rects: dict[str, Mapping[str, float]] = {}
        self.resync_format: Format | None = resync_format
        #: Events ignored as stale so far, and resyncs made.
        self.stale = 0
        self.resyncs = 0

    def wire_prefix(self, prefix: str) -> bytes:
        return self.topic_prefix + prefix.encode()

    def decode(self, frames: Sequence[bytes]) -> Event:
        if len(frames) != 2:
            raise DecodeError(f"an event of {len(frames)} frames, not 2 (topic, body)")
        topic_bytes, body = frames
        if self.topic_prefix and topic_bytes.startswith(self.topic_prefix):
            topic_bytes = topic_bytes[len(self.topic_prefix):]
        topic = topic_bytes.decode("utf-8", "replace")
        try:
            obj = json.loads(body)
        except (UnicodeDecodeError, ValueError) as error:
            raise DecodeError(f"an event body that is not JSON: {error}") from None
        if self.hooks.event is not None and isinstance(obj, Mapping):
            self.hooks.event(topic, obj)
        return parse_event(topic, obj)

    def step(self, frames: Sequence[bytes]) -> Event | Gap | None:
        """What a received event means: hand it over (the event), ignore it (``None``: stale) or resync
        (a :class:`Gap`: issue its query, then call :meth:`resynced`)."""
        event = self.decode(frames)
        verdict = self.tracker.classify(event.layout, event.version)
        if verdict == "stale":
            self.stale += 1
            return None
        if verdict == "new":
            self.tracker.accept(event.layout, event.version)
            return event
        last = self.tracker.known(event.layout)
        assert last is not None
        rect = self.rects.get(event.layout, EMPTY_RECT)
        return Gap(event, last, ops.query(event.layout, rect=rect, format=self.resync_format))

    def track(self, layout: str, version: int | None, rect: Rect | None) -> None:
        if rect is not None:
            self.rects[layout] = as_rect(rect)
        if version is not None:
            self.tracker.baseline(layout, version)

    def resynced(self, gap: Gap, result: QueryResult | None = None, error: Exception | None = None) -> Resync:
        """The :class:`Resync` to report for ``gap``, given its query's ``result`` (or ``error``, or neither
        without a client); the result's version becomes the baseline."""
        self.resyncs += 1
        event = gap.event
        if result is not None:
            self.tracker.reset(event.layout, result.version)
            version = result.version
        else:
            self.tracker.accept(event.layout, event.version)
            version = event.version
        return Resync(layout=event.layout, last_version=gap.last, event=event, version=version, result=result,
                      error=error)


class SubscriberBase:
    """The SUB socket and the bookkeeping of both subscribers (see :class:`Subscriber` for the arguments);
    ``context`` is a ``zmq.Context`` or a ``zmq.asyncio.Context``, whose sockets they read."""

    def __init__(
        self,
        endpoints: str | Sequence[str],
        prefixes: Sequence[str],
        client: Any,
        curve: CurveKeys | None,
        context: Any,
        versions: Mapping[str, int] | None,
        resync_format: Format | None,
        hooks: Hooks | None,
    ) -> None:
        if isinstance(prefixes, str):
            prefixes = [prefixes]
        self.endpoints = endpoint_list(endpoints, "endpoints")
        self.client = client
        if client is not None:
            curve = curve if curve is not None else client.curve
            hooks = hooks if hooks is not None else client.hooks
        self._core = SubscriberCore(curve, hooks, versions, resync_format)
        self.context = context
        self._socket = context.socket(zmq.SUB)
        self._socket.linger = 0
        if curve is not None:
            curve.apply(self._socket)
        for endpoint in self.endpoints:
            self._socket.connect(endpoint)
        for prefix in prefixes:
            self.subscribe(prefix)

    @property
    def tracker(self) -> VersionTracker:
        """The versions known per key."""
        return self._core.tracker

    @property
    def resyncs(self) -> int:
        """How many resyncs this subscriber made."""
        return self._core.resyncs

    @property
    def stale(self) -> int:
        """How many events it ignored as at or below a known version."""
        return self._core.stale

    def subscribe(self, prefix: str) -> None:
        """Receives events whose topic starts with ``prefix`` (the CURVE key goes in front by itself)."""
        self._socket.setsockopt(zmq.SUBSCRIBE, self._core.wire_prefix(prefix))

    def unsubscribe(self, prefix: str) -> None:
        """Undoes one :meth:`subscribe`."""
        self._socket.setsockopt(zmq.UNSUBSCRIBE, self._core.wire_prefix(prefix))

    def track(self, layout: str, version: int | None = None, *, rect: Rect | None = None) -> None:
        """Tells the subscriber what you know of ``layout``: the ``version`` of a reply (events at or below
        it are ignored) and the ``rect`` you show (what a resync queries)."""
        self._core.track(layout, version, rect)

    def forget(self, layout: str) -> None:
        """Stops tracking ``layout``."""
        self._core.tracker.forget(layout)
        self._core.rects.pop(layout, None)

    def close(self) -> None:
        """Closes the socket."""
        self._socket.close(linger=0)

    @staticmethod
    def _deadline(timeout: float | None) -> float | None:
        return None if timeout is None else time.monotonic() + timeout

    @staticmethod
    def _poll_ms(deadline: float | None) -> int | None:
        """A poll's timeout until ``deadline`` (``None``: no limit)."""
        return None if deadline is None else millis(deadline - time.monotonic())

    @staticmethod
    def _expired(deadline: float | None) -> bool:
        return deadline is not None and time.monotonic() >= deadline


class Subscriber(SubscriberBase):
    """A subscriber to the events socket, with gap detection and resync (see the module's doc).

    Example::

        with Client(front) as client, Subscriber(events, ["batch:", "invalidated:"], client=client) as sub:
            prepared = client.prepare("feed", ...)
            sub.track("feed", prepared.version, rect=(0, 0, 375, 667))
            for item in sub.iter(idle_timeout=5):
                if isinstance(item, Resync): redraw(item.result)
                else: apply(item)

    Args:
        endpoints: the events endpoint, or several (a SUB connects to all of them: with a pair of brokers
            it hears whichever publishes).
        prefixes: topic prefixes to subscribe to (``""``: everything; ``"batch:feed"``; …).
        client: the client that issues the resync queries (without one a :class:`~layoutd.models.Resync`
            carries no result, and you re-query yourself).
        curve: CURVE keys (default: the client's).
        versions: known versions to start from, ``{layout: version}`` (as :meth:`track`).
        resync_format: ``format`` of the resync queries.
        hooks: its ``event`` callback sees every event body.
    """

    def __init__(
        self,
        endpoints: str | Sequence[str] = DEFAULT_EVENTS,
        prefixes: Sequence[str] = ("",),
        *,
        client: Client | None = None,
        curve: CurveKeys | None = None,
        context: zmq.Context[Any] | None = None,
        versions: Mapping[str, int] | None = None,
        resync_format: Format | None = None,
        hooks: Hooks | None = None,
    ) -> None:
        super().__init__(endpoints, prefixes, client, curve, context if context is not None else zmq.Context.instance(),
                         versions, resync_format, hooks)
        self.client: Client | None = client

    def next(self, timeout: float | None = None) -> Event | Resync | None:
        """The next event (or :class:`~layoutd.models.Resync`), or ``None`` when none came within
        ``timeout`` seconds (``None``: wait without limit). Stale events are skipped.

        Raises:
            DecodeError: an event that is not two frames with a JSON object body (it is consumed).
        """
        deadline = self._deadline(timeout)
        while True:
            if self._socket.poll(self._poll_ms(deadline), zmq.POLLIN):
                item = self._handle(self._socket.recv_multipart())
                if item is not None:
                    return item
            elif self._expired(deadline):
                return None

    def iter(self, idle_timeout: float) -> Iterator[Event | Resync]:
        """Events until none comes for ``idle_timeout`` seconds."""
        while (item := self.next(idle_timeout)) is not None:
            yield item

    def _handle(self, frames: Sequence[bytes]) -> Event | Resync | None:
        step = self._core.step(frames)
        if not isinstance(step, Gap):
            return step
        if self.client is None:
            return self._core.resynced(step)
        try:
            result: QueryResult = self.client.call(step.query)
        except LayoutdError as error:
            return self._core.resynced(step, error=error)
        return self._core.resynced(step, result)

    def __enter__(self) -> Subscriber:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
