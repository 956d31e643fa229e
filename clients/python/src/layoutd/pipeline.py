"""Requests sent without waiting: :class:`Pending` (from :meth:`Client.submit <layoutd.Client.submit>`)
and :class:`Pipeline` (from :meth:`Client.pipeline <layoutd.Client.pipeline>`)."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from . import ops
from .core import Slot
from .wire import Call, as_method

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client

__all__ = ["Pending", "Pipeline"]

T = TypeVar("T")
P = ParamSpec("P")


class Pending(Slot[T]):
    """A request sent and not necessarily answered yet (from :meth:`Client.submit` or a :class:`Pipeline`).

    :meth:`result` waits for its reply (reading the client's socket, so other replies are filed too) and
    returns the typed result or raises the request's error.
    """

    __slots__ = ()

    def result(self) -> T:
        """The typed result; raises the request's :class:`~layoutd.errors.LayoutdError`.

        Waits at most ``timeout`` per attempt, ``attempts`` attempts in all.
        """
        if not self._done:
            self._owner._wait(self)
        return self._outcome()

    def exception(self) -> BaseException | None:
        """Waits like :meth:`result` and returns the error instead of raising it (``None`` on success)."""
        if not self._done:
            self._owner._wait(self)
        return self._error


def _piped(builder: Callable[P, Call[T]]) -> Callable[Concatenate[Pipeline, P], Pending[T]]:
    def method(self: Pipeline, /, *args: P.args, **kwargs: P.kwargs) -> Pending[T]:
        return self.submit(builder(*args, **kwargs))

    as_method(method, builder, "Pending[{}]")
    return method


class Pipeline:
    """Sends requests without waiting for their replies; :meth:`results` collects them.

    Example::

        with client.pipeline() as pipe:
            answers = [pipe.query(key, rect=r) for key, r in visible]
        results = [a.result() for a in answers]   # already in: the block waited for every reply

    Leaving the ``with`` block waits until every request is answered or failed (errors stay in each
    :class:`Pending` until :meth:`Pending.result` raises them).
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        self.pending: list[Pending[Any]] = []

    def submit(self, call: Call[T], *, timeout: float | None = None, deadline: float | None = None) -> Pending[T]:
        """Sends ``call`` now (after reading replies first when ``max_in_flight`` requests are in flight)."""
        slot = self.client.submit(call, timeout=timeout, deadline=deadline)
        self.pending.append(slot)
        return slot

    def wait(self) -> None:
        """Waits until every request sent through this pipeline is done."""
        for slot in self.pending:
            slot.exception()

    def results(self, *, return_exceptions: bool = False) -> builtins.list[Any]:
        """Every result, in the order sent; the first error is raised, or with ``return_exceptions`` put in
        its place."""
        self.wait()
        if return_exceptions:
            return [slot.exception() or slot.result() for slot in self.pending]
        return [slot.result() for slot in self.pending]

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.wait()

    ping = _piped(ops.ping)
    layout = _piped(ops.layout)
    prepare = _piped(ops.prepare)
    query = _piped(ops.query)
    bounds = _piped(ops.bounds)
    update = _piped(ops.update)
    diff = _piped(ops.diff)
    drop = _piped(ops.drop)
    list_layouts = _piped(ops.list_layouts)
    list = list_layouts  # noqa: A003
