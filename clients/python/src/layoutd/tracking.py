"""What a subscriber decides without I/O (shared by :class:`~layoutd.Subscriber` and
:class:`~layoutd.AsyncSubscriber`): the last version known per key and what a new event's version means
against it (:class:`VersionTracker`), and the subscriptions, decoding and per-event verdicts
(:class:`SubscriberCore`). :mod:`layoutd.events` has the rules in full.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

from . import ops
from .curve import CurveKeys
from .errors import DecodeError
from .models import Event, OtherEvent, QueryResult, Resync, parse_event
from .ops import Format, Rect, as_rect
from .wire import Call, Hooks

__all__ = ["VersionTracker", "SubscriberCore", "Gap", "EMPTY_RECT", "KNOWN_KINDS", "Verdict"]

#: The event kinds a subscriber hands over as typed events.
KNOWN_KINDS = frozenset({"batch", "invalidated"})

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
        #: Topic prefixes and exact topics subscribed to (without the CURVE key), each with its count.
        self.prefixes: dict[str, int] = {}
        self.exact: dict[str, int] = {}
        #: The token of the confirmation awaited (its topic is ``subscribed:<token>``), or ``None``.
        self.token: str | None = None
        self.confirmed = False
        #: The last events of kinds this client does not know, skipped (the newest last).
        self.others: deque[OtherEvent] = deque(maxlen=64)
        self.yield_others = False

    def wire_prefix(self, prefix: str) -> bytes:
        return self.topic_prefix + prefix.encode()

    def subscribed(self, topic: str, exact: bool, add: bool) -> None:
        """Counts a subscription to ``topic`` (or its undoing)."""
        table = self.exact if exact else self.prefixes
        count = table.get(topic, 0) + (1 if add else -1)
        if count > 0:
            table[topic] = count
        else:
            table.pop(topic, None)

    def wanted(self, topic: str) -> bool:
        """Was ``topic`` subscribed to (a prefix of it, or it exactly)? ZeroMQ filters by prefix only, so an
        exact subscription to ``batch:wall`` also lets ``batch:wall-full`` through: it stops here."""
        if not self.exact or topic in self.exact:
            return True
        return any(topic.startswith(prefix) for prefix in self.prefixes)

    def decode(self, frames: Sequence[bytes]) -> Event | OtherEvent | None:
        """The event in ``frames``: typed, an :class:`OtherEvent` (a kind this client does not know), or
        ``None`` when no subscription asked for its topic (or it is this subscriber's confirmation)."""
        if len(frames) != 2:
            raise DecodeError(f"an event of {len(frames)} frames, not 2 (topic, body)")
        topic_bytes, body = frames
        if self.topic_prefix and topic_bytes.startswith(self.topic_prefix):
            topic_bytes = topic_bytes[len(self.topic_prefix) :]
        topic = topic_bytes.decode("utf-8", "replace")
        if self.token is not None and topic == "subscribed:" + self.token:
            self.confirmed = True
            return None
        if not self.wanted(topic):
            return None
        try:
            obj = json.loads(body)
        except (UnicodeDecodeError, ValueError) as error:
            raise DecodeError(f"an event body that is not JSON: {error}") from None
        if self.hooks.event is not None and isinstance(obj, Mapping):
            self.hooks.event(topic, obj)
        kind = obj.get("event") if isinstance(obj, Mapping) else None
        if kind not in KNOWN_KINDS:  # PROTOCOL.md §7: ignore event kinds you do not know
            other = OtherEvent(topic, kind if isinstance(kind, str) else None, obj)
            self.others.append(other)
            return other
        return parse_event(topic, obj)

    def step(self, frames: Sequence[bytes]) -> Event | OtherEvent | Gap | None:
        """What a received event means: hand it over (the event), ignore it (``None``: stale, unknown or
        not subscribed to) or resync (a :class:`Gap`: issue its query, then call :meth:`resynced`)."""
        event = self.decode(frames)
        if event is None:
            return None
        if isinstance(event, OtherEvent):
            return event if self.yield_others else None
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
        return Resync(
            layout=event.layout, last_version=gap.last, event=event, version=version, result=result, error=error
        )
