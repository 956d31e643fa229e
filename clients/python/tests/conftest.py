"""Fixtures: a real layoutd (single daemon and cluster), clients wired to the schema checker."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from layoutd import AsyncClient, Client
from layoutd_testkit import SchemaChecker, Server, start_cluster, start_single


@pytest.fixture(scope="session")
def single_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_single(tmp_path_factory.mktemp("single"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def cluster_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_cluster(tmp_path_factory.mktemp("cluster"), workers=2)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def cluster_direct_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A broker with 2 workers that also answer reads on direct endpoints of their own (PROTOCOL.md §11)."""
    server = start_cluster(tmp_path_factory.mktemp("cluster-direct"), workers=2, direct=True)
    yield server
    server.stop()


@pytest.fixture(params=["single", "cluster", "cluster-direct"])
def server(request: pytest.FixtureRequest) -> Server:
    """Each test that takes it runs against a single daemon, a broker with 2 workers, and a broker whose 2
    workers have direct endpoints (where the clients' queries go to the workers: ``direct_reads="auto"``)."""
    return request.getfixturevalue(f"{request.param.replace('-', '_')}_server")  # type: ignore[no-any-return]


@pytest.fixture
def schema() -> Iterator[SchemaChecker]:
    """The docs/schema/check.py hook; a test fails if anything it sent or received did not validate."""
    checker = SchemaChecker()
    yield checker
    assert not checker.failures, "schema mismatches:\n" + "\n".join(checker.failures)


@pytest.fixture
def make_client(schema: SchemaChecker) -> Iterator[Callable[..., Client]]:
    """Builds sync clients wired to the schema checker; all are closed after the test."""
    clients: list[Client] = []

    def make(endpoints: Any, **options: Any) -> Client:
        options.setdefault("timeout", 5.0)
        options.setdefault("hooks", schema.hooks())
        client = Client(endpoints, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def client(server: Server, make_client: Callable[..., Client]) -> Client:
    """A sync client of ``server`` (single and cluster), with its stats socket."""
    return make_client(server.front, stats_endpoints=server.stats)


@pytest.fixture
def make_async_client(schema: SchemaChecker) -> Callable[..., AsyncClient]:
    """Builds asyncio clients wired to the schema checker (close them inside the event loop)."""

    def make(endpoints: Any, **options: Any) -> AsyncClient:
        options.setdefault("timeout", 5.0)
        options.setdefault("hooks", schema.hooks())
        return AsyncClient(endpoints, **options)

    return make


@pytest.fixture
def key(request: pytest.FixtureRequest) -> str:
    """A layout key of this test's own."""
    return f"{request.node.name[:40]}-{uuid.uuid4().hex[:8]}"
