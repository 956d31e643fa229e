"""Test support: the schema hook, docs/schema/check.py on every message (re-exported by ``layoutd_testkit``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from layoutd import Hooks
from testkit_process import SCHEMA_DIR

#: Known disagreements between the daemon and PROTOCOL.md (so docs/schema). A message that fails
#: validation only because of one of these is validated again without it (and counted in ``tolerated``);
#: anything else still fails. None is known today; ``LAYOUTD_SCHEMA_TOLERATE`` names some to set aside.
KNOWN_DISAGREEMENTS: set[str] = set()
TOLERATED = (
    KNOWN_DISAGREEMENTS
    if "LAYOUTD_SCHEMA_TOLERATE" not in os.environ
    else set(filter(None, os.environ["LAYOUTD_SCHEMA_TOLERATE"].split(","))) - {"none"}
)


def without_known_disagreements(obj: Mapping[str, Any], request: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """``obj`` less what the tolerated disagreements add to it (the same object when nothing applies)."""
    return obj


class SchemaChecker:
    """Routes every request, reply, event and stats answer through docs/schema/check.py's ``validate``.

    Replies are checked against the request they answer (``request=``), when it is one of the schema's
    ops. ``allow_invalid_requests()`` suspends the request check for tests that send bad input on purpose
    (their replies are still checked). Failures are raised to the caller and kept in ``failures``.
    """

    def __init__(self) -> None:
        if str(SCHEMA_DIR) not in sys.path:
            sys.path.insert(0, str(SCHEMA_DIR))
        import check  # docs/schema/check.py

        self.check = check
        self.requests: dict[Any, dict[str, Any]] = {}
        self.validate_requests = True
        self.counts = {"request": 0, "reply": 0, "event": 0, "stats": 0}
        self.failures: list[str] = []
        #: Messages valid only once a known disagreement is set aside.
        self.tolerated = 0

    def _validate(self, kind: str, obj: Any, *, tolerant: Any = None, **hints: Any) -> None:
        try:
            try:
                self.check.validate(kind, obj, **hints)
            except ValueError:
                if tolerant is None or tolerant is obj:
                    raise
                self.check.validate(kind, tolerant, **hints)
                self.tolerated += 1
        except ValueError as error:
            self.failures.append(str(error))
            raise
        self.counts[kind] += 1

    def request(self, obj: Mapping[str, Any]) -> None:
        self.requests[obj.get("id")] = dict(obj)
        if self.validate_requests:
            self._validate("request", dict(obj))

    def reply(self, obj: Mapping[str, Any]) -> None:
        request = self.requests.get(obj.get("id"))
        obj = dict(obj)
        tolerant = without_known_disagreements(obj, request)
        if obj.get("ok") is True and request is not None and request.get("op") in self.check.OPS:
            self._validate("reply", obj, tolerant=tolerant, request=request)
        else:
            self._validate("reply", obj, tolerant=tolerant)

    def event(self, topic: str, obj: Mapping[str, Any]) -> None:
        self._validate("event", dict(obj))

    def stats(self, obj: Mapping[str, Any]) -> None:
        self._validate("stats", dict(obj))

    def hooks(self) -> Hooks:
        return Hooks(request=self.request, reply=self.reply, event=self.event, stats=self.stats)

    @contextmanager
    def allow_invalid_requests(self) -> Iterator[None]:
        self.validate_requests = False
        try:
            yield
        finally:
            self.validate_requests = True
