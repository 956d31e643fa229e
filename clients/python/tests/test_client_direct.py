"""Direct reads (PROTOCOL.md §11, issue 25): queries at their key's owner, changes and every doubt at the
front; against real daemons (a single daemon, a cluster whose workers have direct endpoints, one with
CURVE), every request and reply checked against docs/schema."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from layoutd import AsyncClient, Behind, Client, Columns, CurveKeys, Hooks, QueryResult, UnknownLayout
from layoutd_testkit import (
    FEED_BOUNDS,
    FEED_SECTIONS,
    FEED_SPEC,
    SchemaChecker,
    Server,
    start_cluster,
    wait_until,
    write_key_files,
)

#: How long a test waits for something the cluster does in its own time (a lease, a rebuild).
SETTLE_SECONDS = 30.0


class Recorded:
    """The hooks of a client: every object goes to the schema checker, and requests are kept here."""

    def __init__(self, schema: SchemaChecker) -> None:
        self.schema = schema
        self.requests: list[dict[str, Any]] = []

    def request(self, obj: Any) -> None:
        self.requests.append(dict(obj))
        self.schema.request(obj)

    def hooks(self) -> Hooks:
        return Hooks(request=self.request, reply=self.schema.reply, event=self.schema.event, stats=self.schema.stats)

    def ops(self, op: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["op"] == op]

    def direct(self) -> list[dict[str, Any]]:
        """The requests sent to a worker's direct endpoint (only those carry ``epoch``)."""
        return [r for r in self.requests if "epoch" in r]


@pytest.fixture
def recorded(schema: SchemaChecker) -> Callable[[], Recorded]:
    return lambda: Recorded(schema)


def prepare(client: Client, key: str) -> int:
    return client.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS).version


def plain(value: Any) -> Any:
    """A query's answer in a form that compares by value (binary columns as lists)."""
    if isinstance(value, QueryResult):
        return value.version, plain(value.attributes)
    if isinstance(value, Columns):
        return {
            name: None if getattr(value, name) is None else list(getattr(value, name))
            for name in ("kind", "section", "item", "x", "y", "width", "height", "z_index")
        }, value.kinds
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


QUERIES: list[dict[str, Any]] = [
    {"rect": (0, 0, 375, 667)},
    {"rect": (0, 0, 375, 100), "format": "columns"},
    {"rect": (0, 0, 375, 667), "format": "binary"},
    {"items": [[0, 1], [1, 0]]},
    {"supplementary": {"kind": "header", "sections": [0, 1]}},
    {"rect": (0, 0, 375, 300), "pin": {"headers": True}},
]


def read_directly(client: Client, key: str, **query: Any) -> QueryResult:
    """Queries ``key`` until a worker's direct endpoint answers (a key just prepared may be read through
    the broker first: the route table may not name its owner yet)."""

    def direct() -> QueryResult | None:
        before = client.direct_stats["direct"]
        answer = client.query(key, **query)
        return answer if client.direct_stats["direct"] > before else None

    return wait_until(direct, SETTLE_SECONDS, f"a direct read of {key}")  # type: ignore[no-any-return]


def query_counts(server: Server) -> tuple[int, int]:
    """Queries counted by the broker, and by its workers (direct reads and the broker's alike)."""

    def count(endpoint: str) -> int:
        with Client(server.front, stats_endpoints=endpoint, timeout=5.0, direct_reads="off") as stats:
            return int(stats.stats().requests.get("query", 0))

    return count(server.stats), sum(count(e) for e in server.extra["worker_stats"])


def test_queries_go_to_the_owner_and_answer_as_the_front(
    cluster_direct_server: Server, make_client: Callable[..., Client], recorded: Callable[[], Recorded]
) -> None:
    server = cluster_direct_server
    record = recorded()
    auto = make_client(server.front, hooks=record.hooks())
    front = make_client(server.front, direct_reads="off")
    assert auto.direct_reads == "auto" and front.direct_reads == "off"
    # Keys prepared by another client (the table lists them) and by this one (looked up after its prepare).
    theirs = [f"theirs-{uuid.uuid4().hex[:8]}" for _ in range(4)]
    ours = [f"ours-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    for key in theirs:
        prepare(front, key)
    for key in ours:
        prepare(auto, key)
    for key in theirs + ours:
        read_directly(auto, key, items=[[0, 0]])

    broker_before, workers_before = query_counts(server)
    stats_before = auto.direct_stats
    front_queries = 0
    for key in theirs + ours:
        for query in QUERIES:
            assert plain(auto.query(key, **query)) == plain(front.query(key, **query)), (key, query)
            front_queries += 1
    stats = auto.direct_stats
    direct = stats["direct"] - stats_before["direct"]
    fallbacks = stats["fallback"] - stats_before["fallback"]
    assert direct >= 1 and direct + fallbacks == front_queries, stats
    broker_after, workers_after = query_counts(server)
    # The broker saw the front client's queries and the fallbacks only; the workers saw those, the direct
    # reads, and the direct attempts they answered `moved` or `behind`.
    assert broker_after - broker_before == front_queries + fallbacks
    assert direct <= (workers_after - workers_before) - (broker_after - broker_before) <= direct + fallbacks
    assert set(auto._direct) <= set(server.extra["direct"]) and auto._direct
    assert all(r["op"] == "query" for r in record.direct())
    assert not record.ops("route") or all(set(r) <= {"v", "id", "op", "layout"} for r in record.ops("route"))


def test_off_sends_nothing_direct(
    cluster_direct_server: Server, make_client: Callable[..., Client], recorded: Callable[[], Recorded], key: str
) -> None:
    record = recorded()
    client = make_client(cluster_direct_server.front, hooks=record.hooks(), direct_reads="off")
    prepare(client, key)
    for query in QUERIES:
        client.query(key, **query)
    assert client.direct_stats == {"direct": 0, "fallback": 0, "routes": 0}
    assert not record.direct() and not record.ops("route") and not client._direct


def test_changes_go_to_the_front_and_reads_name_the_newest_version(
    cluster_direct_server: Server, make_client: Callable[..., Client], recorded: Callable[[], Recorded], key: str
) -> None:
    record = recorded()
    client = make_client(cluster_direct_server.front, hooks=record.hooks())
    version = prepare(client, key)
    read_directly(client, key, items=[[0, 0]])
    batch = client.update(key, updates=[{"insert": [0, 0], "item": {"id": "new"}}], if_version=version)
    answer = read_directly(client, key, items=[[0, 0]])
    assert answer.version == batch.version
    last = record.direct()[-1]
    assert last["minVersion"] == batch.version and last["layout"] == key and isinstance(last["epoch"], int)
    # Changes never go direct: only queries carry an epoch.
    assert {r["op"] for r in record.direct()} == {"query"}
    # After a drop the key is looked up again; the front answers for a key no longer kept.
    client.drop(key)
    routes = client.direct_stats["routes"]
    with pytest.raises(UnknownLayout):
        client.query(key, items=[[0, 0]])
    assert client.direct_stats["routes"] == routes + 1
    assert record.ops("route")[-1].get("layout") == key


def test_namespaced_queries_go_to_the_front(
    cluster_direct_server: Server, make_client: Callable[..., Client], recorded: Callable[[], Recorded], key: str
) -> None:
    record = recorded()
    client = make_client(cluster_direct_server.front, hooks=record.hooks())
    prepare(client, key)
    read_directly(client, key, items=[[0, 0]])
    sent = len(record.requests)
    with pytest.raises(UnknownLayout):  # without CURVE, another namespace holds nothing (PROTOCOL.md §5.4)
        client.query(key, items=[[0, 0]], namespace="someone")
    assert [r["op"] for r in record.requests[sent:]] == ["query"] and "epoch" not in record.requests[-1]


def test_a_single_daemon_is_asked_route_once(
    single_server: Server, make_client: Callable[..., Client], recorded: Callable[[], Recorded], key: str
) -> None:
    record = recorded()
    client = make_client(single_server.front, hooks=record.hooks())
    prepare(client, key)
    answers = [plain(client.query(key, **query)) for query in QUERIES * 2]
    assert len(record.ops("route")) == 1 and client.direct_stats == {"direct": 0, "fallback": 0, "routes": 1}
    assert not record.direct() and not client._direct
    front = make_client(single_server.front, direct_reads="off")
    assert answers == [plain(front.query(key, **query)) for query in QUERIES * 2]


def test_a_stale_table_falls_back_and_is_fetched_again(
    cluster_direct_server: Server, make_client: Callable[..., Client], recorded: Callable[[], Recorded], key: str
) -> None:
    record = recorded()
    client = make_client(cluster_direct_server.front, hooks=record.hooks())
    front = make_client(cluster_direct_server.front, direct_reads="off")
    prepare(client, key)
    expected = plain(read_directly(client, key, rect=(0, 0, 375, 667)))

    # The table names an epoch the owner's copy is not of (as after the key moved): `moved`, so the
    # front answers, and the table is fetched again.
    table = client._router.table
    assert table is not None
    entry = table.entries[key]
    table.entries[key] = type(entry)(entry.epoch - 1, entry.endpoint)
    before = client.direct_stats
    assert plain(client.query(key, rect=(0, 0, 375, 667))) == expected
    after = client.direct_stats
    assert after["fallback"] == before["fallback"] + 1 and after["direct"] == before["direct"]
    assert key in client._router.keys_to_look_up  # that key alone is looked up again (decision D)
    assert plain(read_directly(client, key, rect=(0, 0, 375, 667))) == expected
    assert client.direct_stats["routes"] > after["routes"]

    # Another client changed the key: the next read names the version this one saw, and is answered with
    # the newer one.
    front.update(key, updates=[{"delete": [0, 0]}])
    assert client.query(key, items=[[0, 0]]).version == 2

    # This client saw a version the owner does not hold (yet): `behind`, the read goes to the front, which
    # answers an older version too: the client never returns it (decision E) and raises `behind`.
    client._router.seen_versions[key] = 99
    before = client.direct_stats
    with pytest.raises(Behind):
        client.query(key, rect=(0, 0, 375, 667), deadline=0.5)
    assert client.direct_stats["fallback"] == before["fallback"] + 1
    assert record.direct()[-1]["minVersion"] == 99 and record.ops("query")[-1]["minVersion"] == 99


def test_async_queries_go_to_the_owner(
    cluster_direct_server: Server,
    single_server: Server,
    make_async_client: Callable[..., AsyncClient],
    make_client: Callable[..., Client],
    recorded: Callable[[], Recorded],
) -> None:
    server = cluster_direct_server
    keys = [f"async-{uuid.uuid4().hex[:8]}" for _ in range(4)]
    front = make_client(server.front, direct_reads="off")
    for key in keys:
        prepare(front, key)
    expected = {key: plain(front.query(key, rect=(0, 0, 375, 667))) for key in keys}
    record, single_record = recorded(), recorded()

    async def main() -> None:
        async with make_async_client(server.front, hooks=record.hooks()) as client:
            answers = await asyncio.gather(*(client.query(k, rect=(0, 0, 375, 667)) for k in keys * 4))
            assert [plain(a) for a in answers] == [expected[k] for k in keys * 4]
            if client.direct_stats["fallback"] == 0:  # the queries of a key shared one lookup of it
                assert sorted(r["layout"] for r in record.ops("route")) == sorted(keys), record.ops("route")
            deadline = time.monotonic() + SETTLE_SECONDS
            while client.direct_stats["direct"] < len(keys):
                assert time.monotonic() < deadline, f"no direct reads: {client.direct_stats}"
                answers = await asyncio.gather(*(client.query(k, rect=(0, 0, 375, 667)) for k in keys * 4))
                assert [plain(a) for a in answers] == [expected[k] for k in keys * 4]
            # A stale epoch: `moved`, the front answers.
            table = client._router.table
            assert table is not None
            entry = table.entries[keys[0]]
            table.entries[keys[0]] = type(entry)(entry.epoch - 1, entry.endpoint)
            fallbacks = client.direct_stats["fallback"]
            assert plain(await client.query(keys[0], rect=(0, 0, 375, 667))) == expected[keys[0]]
            assert client.direct_stats["fallback"] == fallbacks + 1
        async with make_async_client(single_server.front, hooks=single_record.hooks()) as client:
            failures = await asyncio.gather(
                *(client.query(f"none-{i}", items=[[0, 0]]) for i in range(8)), return_exceptions=True
            )
            assert all(isinstance(f, UnknownLayout) for f in failures), failures
            for _ in range(3):
                with pytest.raises(UnknownLayout):
                    await client.query("none", items=[[0, 0]])
            assert len(single_record.ops("route")) == 1 and client.direct_stats["routes"] == 1

    asyncio.run(main())


def test_a_killed_owner_falls_back_within_the_bound(
    tmp_path: Path, make_client: Callable[..., Client], recorded: Callable[[], Recorded]
) -> None:
    server = start_cluster(tmp_path, workers=2, direct=True)
    try:
        record = recorded()
        timeout, direct_timeout = 4.0, 0.5
        client = make_client(server.front, hooks=record.hooks(), timeout=timeout, direct_timeout=direct_timeout)
        front = make_client(server.front, direct_reads="off", timeout=timeout)
        keys = [f"k{i}" for i in range(4)]
        for key in keys:
            prepare(front, key)
        expected = {key: plain(read_directly(client, key, rect=(0, 0, 375, 667))) for key in keys}
        owner = front.request("route", {"layout": keys[0]})["keys"][0]["worker"]
        victim = next(p for p in server.processes if p.name == owner)
        victim.kill()

        before = client.direct_stats
        started = time.monotonic()
        answer = client.query(keys[0], rect=(0, 0, 375, 667))  # the owner is gone: no direct answer
        elapsed = time.monotonic() - started
        assert plain(answer) == expected[keys[0]]
        assert client.direct_stats["fallback"] == before["fallback"] + 1, client.direct_stats
        assert elapsed < direct_timeout + client.attempts * timeout  # the bound: never more than that
        assert keys[0] in client._router.keys_to_look_up  # the dead owner's keys are looked up again

        # Every key is answered as before, and reads go direct again once the survivor owns them.
        for key in keys:
            assert plain(client.query(key, rect=(0, 0, 375, 667))) == expected[key]
        survivor = [e for e in server.extra["direct"] if e != server.extra["direct"][int(owner.split("-")[1])]]
        read_directly(client, keys[0], rect=(0, 0, 375, 667))
        assert set(client._direct) <= set(survivor)
    finally:
        server.stop()


# -- CURVE ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def curve_direct(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, CurveKeys, CurveKeys]]:
    """A cluster with CURVE whose workers have direct endpoints (secured with the broker's key): the
    server, alice (an admin) and bob."""
    keys = tmp_path_factory.mktemp("curve-direct")
    write_key_files(keys, "server")
    alice_public, _ = write_key_files(keys, "alice")
    bob_public, _ = write_key_files(keys, "bob")
    lines = [f"{alice_public.decode()}  alice  admin", bob_public.decode()]
    for i in range(2):
        worker_public, _ = write_key_files(keys, f"worker-{i}")
        lines.append(f"{worker_public.decode()}  worker-{i}  admin")
    (keys / "clients.keys").write_text("\n".join(lines) + "\n")
    alice = CurveKeys.from_files(keys / "alice.key", keys / "server.pub")
    security = ["--server-secret-key-file", str(keys / "server.key"), "--client-keys-file", str(keys / "clients.keys")]
    server = start_cluster(
        keys / "run",
        workers=2,
        broker_args=security,
        curve=alice,
        direct=True,
        worker_args=lambda i: [
            "--worker-secret-key-file",
            str(keys / f"worker-{i}.key"),
            "--server-public-key-file",
            str(keys / "server.pub"),
            *security,
        ],
    )
    try:
        yield server, alice, CurveKeys.from_files(keys / "bob.key", keys / "server.pub")
    finally:
        server.stop()


def test_curve_direct_reads(
    curve_direct: tuple[Server, CurveKeys, CurveKeys],
    make_client: Callable[..., Client],
    recorded: Callable[[], Recorded],
) -> None:
    server, alice_keys, bob_keys = curve_direct
    record = recorded()
    bob = make_client(server.front, curve=bob_keys, hooks=record.hooks())
    alice = make_client(server.front, curve=alice_keys)
    key = f"curve-{uuid.uuid4().hex[:8]}"
    prepare(bob, key)
    answer = read_directly(bob, key, rect=(0, 0, 375, 667))  # over CURVE, with the broker's public key
    bob_front = make_client(server.front, curve=bob_keys, direct_reads="off")
    assert plain(answer) == plain(bob_front.query(key, rect=(0, 0, 375, 667)))
    # Alice's own namespace does not hold bob's key: answered by the front (her table does not list it).
    with pytest.raises(UnknownLayout):
        alice.query(key, items=[[0, 0]])
    # An admin's read of bob's namespace goes to the front.
    sent = alice.direct_stats
    assert alice.query(key, items=[[0, 0]], namespace=bob_keys.public_key.decode()).version == answer.version
    assert alice.direct_stats["direct"] == sent["direct"]
