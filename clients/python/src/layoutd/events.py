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

Topics are prefixes (``batch:`` gets every batch) or, with ``topics=``, exact (``batch:wall`` gets wall's
batches and not ``wall-full``'s). Events of kinds the client does not know (``route``, another subscriber's
``subscribed``) are skipped, the last ones kept in :attr:`SubscriberBase.others`.

**Confirmed subscriptions** (PROTOCOL.md §7): a subscription takes effect some time after it is made, and
events published before then are never delivered. With ``confirm=True`` (the default) the subscriber, after
its topics, subscribes to ``subscribed:<token>`` (a random token of its own) and waits until the daemon
publishes that topic: every subscription made before it is then in effect, so an event of any change made
after the constructor (or ``wait_ready``) returned reaches it.
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import zmq

from .client import Client
from .core import DEFAULT_EVENTS, millis
from .curve import CurveKeys
from .errors import InvalidInput, LayoutdError, Timeout
from .inputs import endpoint_list
from .models import Event, OtherEvent, QueryResult, Resync
from .ops import Format, Rect
from .tracking import EMPTY_RECT, Gap, SubscriberCore, VersionTracker
from .wire import Hooks

__all__ = ["VersionTracker", "Subscriber", "SubscriberBase", "SubscriberCore", "Gap", "EMPTY_RECT", "CONFIRM_SECONDS"]

#: How long a subscriber waits for its subscriptions' confirmation by default (seconds).
CONFIRM_SECONDS = 10.0


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
        topics: Sequence[str] = (),
        yield_others: bool = False,
    ) -> None:
        if isinstance(prefixes, str):
            prefixes = [prefixes]
        if isinstance(topics, str):
            topics = [topics]
        self.endpoints = endpoint_list(endpoints, "endpoints")
        self.client = client
        if client is not None:
            curve = curve if curve is not None else client.curve
            hooks = hooks if hooks is not None else client.hooks
        self._core = SubscriberCore(curve, hooks, versions, resync_format)
        self._core.yield_others = yield_others
        #: Items received while waiting for the confirmation, handed over first.
        self._early: deque[Any] = deque()
        self.context = context
        self._socket = context.socket(zmq.SUB)
        self._socket.linger = 0
        if curve is not None:
            curve.apply(self._socket)
        for endpoint in self.endpoints:
            self._socket.connect(endpoint)
        for prefix in prefixes:
            self.subscribe(prefix)
        for topic in topics:
            self.subscribe(topic, exact=True)

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

    @property
    def others(self) -> deque[OtherEvent]:
        """The last events of kinds this client does not know (skipped unless ``yield_others``)."""
        return self._core.others

    @property
    def ready(self) -> bool:
        """Has the daemon confirmed every subscription made before the last :meth:`wait_ready`?"""
        return self._core.confirmed

    def subscribe(self, topic: str, *, exact: bool = False) -> None:
        """Receives events whose topic starts with ``topic`` or, with ``exact``, is ``topic`` (the CURVE key
        goes in front by itself). Call :meth:`wait_ready` after it to know it is in effect."""
        if not isinstance(topic, str):
            raise InvalidInput(f"a topic is a string, not {type(topic).__name__}", "topics" if exact else "prefixes")
        self._socket.setsockopt(zmq.SUBSCRIBE, self._core.wire_prefix(topic))
        self._core.subscribed(topic, exact, True)

    def unsubscribe(self, topic: str, *, exact: bool = False) -> None:
        """Undoes one :meth:`subscribe`."""
        self._socket.setsockopt(zmq.UNSUBSCRIBE, self._core.wire_prefix(topic))
        self._core.subscribed(topic, exact, False)

    def _start_confirmation(self) -> str:
        """Subscribes to ``subscribed:<a new token>`` (after every subscription so far) and returns its topic."""
        token = secrets.token_hex(12)
        self._core.token, self._core.confirmed = token, False
        topic = "subscribed:" + token
        self._socket.setsockopt(zmq.SUBSCRIBE, self._core.wire_prefix(topic))
        if self._core.topic_prefix:
            # With CURVE the confirmation comes under our key (the subscription above lets it through this
            # socket's filter); a daemon that recognises the token only without the key (it files every
            # subscription under the subscriber's key itself) gets it so too, after the others.
            self._socket.setsockopt(zmq.SUBSCRIBE, topic.encode())
        return topic

    def _end_confirmation(self, topic: str) -> None:
        self._socket.setsockopt(zmq.UNSUBSCRIBE, self._core.wire_prefix(topic))
        if self._core.topic_prefix:
            self._socket.setsockopt(zmq.UNSUBSCRIBE, topic.encode())
        self._core.token = None

    @staticmethod
    def _unconfirmed(timeout: float) -> Timeout:
        return Timeout(
            f"the daemon did not confirm the subscriptions within {timeout:g}s (a daemon that "
            "predates confirmed subscriptions never does: pass confirm=False)",
            op="subscribe",
        )

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
            prepared = client.prepare("feed", ...)      # the subscription is confirmed: no event is lost
            sub.track("feed", prepared.version, rect=(0, 0, 375, 667))
            for item in sub:                            # or sub.iter(idle_timeout=5)
                if isinstance(item, Resync): redraw(item.result)
                else: apply(item)

    Args:
        endpoints: the events endpoint, or several (a SUB connects to all of them: with a pair of brokers
            it hears whichever publishes).
        prefixes: topic prefixes to subscribe to (``""``: everything; ``"batch:feed"``; …).
        topics: exact topics to subscribe to (``"batch:feed"`` gets feed's batches, not ``feed-7``'s).
        client: the configuration of the client that issues the resync queries: the subscriber makes a
            client of its own like it (:meth:`layoutd.Client.clone`), on the thread that reads events, so
            that ``client`` stays free for its own thread. Without one a :class:`~layoutd.models.Resync`
            carries no result, and you re-query yourself.
        curve: CURVE keys (default: the client's).
        versions: known versions to start from, ``{layout: version}`` (as :meth:`track`).
        resync_format: ``format`` of the resync queries.
        hooks: its ``event`` callback sees every event body.
        confirm: wait, before returning, until the daemon confirms the subscriptions (see the module's doc;
            :class:`~layoutd.errors.Timeout` after ``confirm_timeout`` seconds). With ``False``, call
            :meth:`wait_ready` when you need it.
        yield_others: hand over events of unknown kinds (:class:`~layoutd.models.OtherEvent`) too.
    """

    def __init__(
        self,
        endpoints: str | Sequence[str] = DEFAULT_EVENTS,
        prefixes: Sequence[str] = ("",),
        *,
        topics: Sequence[str] = (),
        client: Client | None = None,
        curve: CurveKeys | None = None,
        context: zmq.Context[Any] | None = None,
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
            context if context is not None else zmq.Context.instance(),
            versions,
            resync_format,
            hooks,
            topics,
            yield_others,
        )
        self.client: Client | None = client
        self._resync_client: Client | None = None
        if confirm:
            try:
                self.wait_ready(confirm_timeout)
            except BaseException:
                self.close()
                raise

    def wait_ready(self, timeout: float = CONFIRM_SECONDS) -> None:
        """Returns once every subscription made so far is in effect (the daemon published this subscriber's
        ``subscribed:<token>``); events that came meanwhile are kept for :meth:`next`.

        Raises:
            Timeout: no confirmation within ``timeout`` seconds.
        """
        topic = self._start_confirmation()
        deadline = time.monotonic() + timeout
        try:
            while not self._core.confirmed:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._socket.poll(millis(remaining), zmq.POLLIN):
                    raise self._unconfirmed(timeout)
                item = self._handle(self._socket.recv_multipart())
                if item is not None:
                    self._early.append(item)
        finally:
            self._end_confirmation(topic)

    def next(self, timeout: float | None = None) -> Event | Resync | OtherEvent | None:
        """The next event (or :class:`~layoutd.models.Resync`), or ``None`` when none came within
        ``timeout`` seconds (``None``: wait without limit). Stale events and events of unknown kinds are
        skipped.

        Raises:
            DecodeError: an event that is not two frames with a JSON object body (it is consumed).
        """
        if self._early:
            return self._early.popleft()  # type: ignore[no-any-return]
        deadline = self._deadline(timeout)
        while True:
            if self._socket.poll(self._poll_ms(deadline), zmq.POLLIN):
                item = self._handle(self._socket.recv_multipart())
                if item is not None:
                    return item
            elif self._expired(deadline):
                return None

    def iter(self, idle_timeout: float) -> Iterator[Event | Resync | OtherEvent]:
        """Events until none comes for ``idle_timeout`` seconds."""
        while (item := self.next(idle_timeout)) is not None:
            yield item

    def __iter__(self) -> Iterator[Event | Resync | OtherEvent]:
        """Events without end (``for event in subscriber``)."""
        while True:
            item = self.next()
            if item is not None:
                yield item

    def _handle(self, frames: Sequence[bytes]) -> Event | Resync | OtherEvent | None:
        step = self._core.step(frames)
        if not isinstance(step, Gap):
            return step
        if self.client is None:
            return self._core.resynced(step)
        if self._resync_client is None:  # made here, on the thread that reads events
            self._resync_client = self.client.clone()
        try:
            result: QueryResult = self._resync_client.call(step.query)
        except LayoutdError as error:
            return self._core.resynced(step, error=error)
        return self._core.resynced(step, result)

    def close(self) -> None:
        """Closes the socket (and the subscriber's own resync client)."""
        if self._resync_client is not None:
            self._resync_client.close()
        super().close()

    def __enter__(self) -> Subscriber:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
