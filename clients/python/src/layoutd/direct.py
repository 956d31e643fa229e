"""Direct reads (docs/PROTOCOL.md §11): what a client keeps to send a ``query`` straight to the cluster
worker that owns its key, without I/O (the sync and asyncio clients do the sending).

The rules, as the Swift ``LayoutClient``'s (``DirectReads.automatic``):

- Before the first ``query`` of a key the client looks that key up at its front (``route`` with ``layout``:
  never the whole table, which in a large cluster costs more than the read). A single daemon answers
  ``route`` with ``"role": "daemon"`` (an older one with ``unknown_op``): the client remembers that of the
  endpoint and never asks it again (every request goes to the front). Direct reads are used only against
  a broker.
- A ``query`` of key k goes to the direct endpoint of k's owner, with k's ``epoch`` from the table and, as
  ``minVersion``, the newest version of k the client has seen (in a change's reply, or an earlier read's),
  so that its reads never go back.
- On ``moved``, ``behind`` (or ``read_only``), a timeout of the direct attempt (:attr:`DirectRouter.timeout`,
  shorter than a request's own), an undecodable answer, or a key the table names no owner with a direct
  endpoint for, the query goes to the front as it would have without direct reads. After ``moved`` that
  key is looked up again (one lookup); after a timeout, every key of that worker.
- After this client's ``prepare`` or ``drop`` of k, k is looked up again (``route`` with ``layout``) before
  its next query. A key the table does not list (another client prepared it since), or lists without an
  owner (it was moving), is looked up alone too, at most once per :attr:`DirectRouter.lookup_interval`
  seconds.
- ``query`` naming a ``namespace`` (an admin's read of another namespace) always goes to the front, as do
  every change, ``layout``, ``list``, ``ping``, and requests sent with ``submit``/pipelines.

The ``route`` event is not subscribed to: a ``moved`` answer (or a timeout) is what makes the client look
its keys up again.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard

from .wire import Call

__all__ = ["DirectReads", "DirectRouter", "RouteTable", "RouteEntry", "FALLBACK_CODES"]

#: ``"auto"``: queries go to their key's owner when the front is a broker with direct endpoints;
#: ``"off"``: every request goes to the front.
DirectReads = Literal["auto", "off"]

#: Error codes of a direct endpoint after which the read goes to the front instead (PROTOCOL.md §3).
FALLBACK_CODES = frozenset({"moved", "behind", "read_only"})


@dataclass(frozen=True)
class RouteEntry:
    """A key's place in the route table: its epoch and its owner's direct endpoint (``None`` when the key is
    moving or its owner has no direct endpoint)."""

    epoch: int
    endpoint: str | None


#: Ops whose successful reply carries the key's version.
_VERSIONED_OPS = frozenset({"query", "prepare", "bounds", "update", "diff", "drop"})


def _integer(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


class RouteTable:
    """The broker's route table as a client keeps it: each key's :class:`RouteEntry`."""

    def __init__(self, entries: Mapping[str, RouteEntry] | None = None) -> None:
        self.entries: dict[str, RouteEntry] = dict(entries or {})

    @classmethod
    def parse(cls, result: Mapping[str, Any]) -> RouteTable:
        """The table in a ``route`` reply's ``result``; keys without a settled owner get no endpoint."""
        endpoints: dict[str, str] = {}
        for worker in result.get("workers") or ():
            if (
                isinstance(worker, Mapping)
                and isinstance(worker.get("worker"), str)
                and isinstance(worker.get("direct"), str)
            ):
                endpoints[worker["worker"]] = worker["direct"]
        entries: dict[str, RouteEntry] = {}
        for key in result.get("keys") or ():
            if not isinstance(key, Mapping):
                continue
            layout, epoch, owner = key.get("layout"), key.get("epoch"), key.get("worker")
            if isinstance(layout, str) and _integer(epoch):
                entries[layout] = RouteEntry(epoch, endpoints.get(owner) if isinstance(owner, str) else None)
        return cls(entries)

    def merge(self, other: RouteTable, asked: str) -> None:
        """Takes ``other``'s entries (a lookup of ``asked`` alone), forgetting ``asked`` if it is not kept."""
        self.entries.pop(asked, None)
        self.entries.update(other.entries)


class DirectRouter:
    """What a client keeps to route its queries by itself (see the module's doc). One per client; its
    methods decide, the client sends.

    Attributes:
        mode: ``"auto"`` or ``"off"``.
        timeout: seconds a direct attempt waits for its answer before the query goes to the front.
        lookup_interval: the shortest time between two lookups of one key the table names no owner for.
        table: what the client knows of the route table: the keys it looked up.
        not_clusters: the front endpoints known to be single daemons (never asked ``route`` again).
        endpoint: the front endpoint in use (set by the client).
        seen_versions: the newest version seen of each key (the next direct read's ``minVersion``).
        stats: ``{"direct": n, "fallback": m, "routes": r}``: queries answered by a worker's direct endpoint,
            direct attempts that went to the front instead (``moved``, ``behind``, a timeout…), and ``route``
            requests sent.
    """

    def __init__(self, mode: DirectReads, timeout: float, lookup_interval: float = 1.0) -> None:
        if mode not in ("auto", "off"):
            raise ValueError(f'direct_reads must be "auto" or "off", not {mode!r}')
        if timeout <= 0:
            raise ValueError("direct_timeout must be > 0")
        self.mode = mode
        self.timeout = float(timeout)
        self.lookup_interval = lookup_interval
        self.table: RouteTable | None = None
        self.not_clusters: set[str] = set()
        #: The front endpoints known to be brokers (a ``route`` answer that is not a single daemon's).
        self.clusters: set[str] = set()
        self.endpoint = ""
        self.seen_versions: dict[str, int] = {}
        #: Keys this client prepared or dropped since the table was fetched: looked up before their next read.
        self.keys_to_look_up: set[str] = set()
        #: When each key without an owner in the table was last looked up alone, and the table fetched.
        self.looked_up_at: dict[str, float] = {}
        self.table_fetched_at = 0.0
        self.stats = {"direct": 0, "fallback": 0, "routes": 0}

    # -- which requests -----------------------------------------------------------------------------

    @property
    def front_known(self) -> bool:
        """Is it known whether the front endpoint in use is a broker or a single daemon?"""
        return self.endpoint in self.clusters or self.endpoint in self.not_clusters

    @property
    def front_has_no_routes(self) -> bool:
        """Is the front endpoint in use known to be a single daemon?"""
        return self.endpoint in self.not_clusters

    def wants(self, call: Call[Any]) -> bool:
        """Is ``call`` a read this router may send directly (a ``query`` of a key, no ``namespace``, no
        frames), with direct reads on and a front that is not known to be a single daemon?"""
        return (
            self.mode == "auto"
            and self.endpoint not in self.not_clusters
            and call.op == "query"
            and not call.attachments
            and isinstance(call.fields.get("layout"), str)
            and "namespace" not in call.fields
        )

    # -- the table ----------------------------------------------------------------------------------

    def next_lookup(self, key: str) -> Call[Any] | None:
        """The ``route`` request to send before reading ``key`` (``key`` alone: decision D), or ``None`` when
        the table can answer now."""
        if self.table is None or (key not in self.table.entries and key not in self.looked_up_at):
            return Call("route", {"layout": key})
        if key in self.keys_to_look_up:
            return Call("route", {"layout": key})
        entry = self.table.entries.get(key)
        if entry is None or entry.endpoint is None:
            last = max(self.looked_up_at.get(key, self.table_fetched_at), self.table_fetched_at)
            if time.monotonic() - last >= self.lookup_interval:
                return Call("route", {"layout": key})
        return None

    def routes_answered(self, lookup: Call[Any], result: Mapping[str, Any] | None, error: BaseException | None) -> bool:
        """Takes the answer to ``lookup`` (a ``result``, or the ``error`` it raised). Returns whether the
        table can now be consulted (False: the query goes to the front)."""
        self.stats["routes"] += 1
        if error is not None or not isinstance(result, Mapping):
            if getattr(error, "code", None) == "unknown_op":  # a single daemon from before `route` answered
                self.not_clusters.add(self.endpoint)
            return False
        if result.get("role") == "daemon":  # a single daemon: no direct reads, never ask it again
            self.not_clusters.add(self.endpoint)
            return False
        self.clusters.add(self.endpoint)
        table = RouteTable.parse(result)
        alone = lookup.fields.get("layout")
        now = time.monotonic()
        if alone is None:
            self.table = table
            self.table_fetched_at = now
            self.keys_to_look_up.clear()
            self.looked_up_at.clear()
        else:
            if self.table is None:  # dropped meanwhile (a failover, a `moved`): start from this key
                self.table = RouteTable()
            self.table.merge(table, alone)
            self.keys_to_look_up.discard(alone)
            self.looked_up_at[alone] = now
        return True

    def entry(self, key: str) -> RouteEntry | None:
        """``key``'s entry when it names an owner with a direct endpoint, else ``None``."""
        entry = self.table.entries.get(key) if self.table is not None else None
        return entry if entry is not None and entry.endpoint is not None else None

    # -- the direct request -------------------------------------------------------------------------

    def direct_call(self, call: Call[Any], entry: RouteEntry) -> Call[Any]:
        """``call`` as sent to the owner: with the key's ``epoch`` and ``minVersion``."""
        fields = dict(call.fields)
        fields["epoch"] = entry.epoch
        seen = self.seen_versions.get(call.fields["layout"])
        if seen is not None:
            fields["minVersion"] = seen
        return Call(call.op, fields, call.attachments, call.decode)

    def falls_back(self, obj: Mapping[str, Any], key: str | None = None) -> bool:
        """Does the direct endpoint's answer ``obj`` send the read to the front (``moved``, ``behind``,
        ``read_only``)? After ``moved`` ``key`` is looked up again before its next query."""
        if obj.get("ok") is not False:
            return False
        error = obj.get("error")
        code = error.get("code") if isinstance(error, Mapping) else None
        if code not in FALLBACK_CODES:
            return False
        if code == "moved" and key is not None:
            self.keys_to_look_up.add(key)
        self.stats["fallback"] += 1
        return True

    def timed_out(self, endpoint: str | None = None) -> None:
        """No answer from the direct endpoint in time (or none could be sent): the worker may be gone, so its
        keys are looked up again (each on its next read)."""
        if self.table is not None:
            for key, entry in self.table.entries.items():
                if endpoint is None or entry.endpoint == endpoint:
                    self.keys_to_look_up.add(key)
        self.stats["fallback"] += 1

    def answered(self) -> None:
        self.stats["direct"] += 1

    # -- what replies say -------------------------------------------------------------------------

    def note(self, call: Call[Any], obj: Mapping[str, Any]) -> None:
        """Remembers what a successful reply to ``call`` (front or direct) says of its key's version and,
        after a ``prepare`` or ``drop``, that the table may be wrong about the key. Versions are kept with
        direct reads off too: every read carries the newest as ``minVersion``."""
        fields = call.fields
        key = fields.get("layout")
        if not (type(key) is str or isinstance(key, str)) or "namespace" in fields:  # exact types first: hot
            return
        result = obj.get("result")
        version = result.get("version") if type(result) is dict or isinstance(result, Mapping) else None
        if (
            (type(version) is int or _integer(version))
            and call.op in _VERSIONED_OPS
            and version > self.seen_versions.get(key, -1)
        ):
            self.seen_versions[key] = version
        if call.op in ("prepare", "drop"):
            self.keys_to_look_up.add(key)

    def front_changed(self, endpoint: str) -> None:
        """The client moved to another front endpoint: its keys are looked up again there (unless it is known
        to be a single daemon)."""
        self.endpoint = endpoint
        self.table = None
        self.keys_to_look_up.clear()
        self.looked_up_at.clear()
