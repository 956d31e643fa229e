"""CURVE: key files, namespaces, admin-only stats, and the event topic prefix (single daemon and cluster)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import zmq

from layoutd import BatchEvent, Client, CurveKeys, Resync, Subscriber, Timeout, UnknownLayout, read_key_file
from layoutd_testkit import FEED_BOUNDS, FEED_SECTIONS, FEED_SPEC, Server, start_cluster, start_single, write_key_files


@dataclass
class CurveSetup:
    server: Server
    alice: CurveKeys  # listed as "alice", admin
    bob: CurveKeys  # listed without a name or admin
    stranger: CurveKeys  # not listed


@pytest.fixture(scope="module", params=["single", "cluster"])
def curve_setup(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CurveSetup]:
    keys = tmp_path_factory.mktemp(f"curve-{request.param}")
    server_public, _ = write_key_files(keys, "server")
    alice_public, _ = write_key_files(keys, "alice")
    bob_public, _ = write_key_files(keys, "bob")
    write_key_files(keys, "stranger")
    lines = [
        "# clients admitted by the test daemon",
        f"{alice_public.decode()}  alice  admin",
        f"{bob_public.decode()}",
    ]
    workers = []
    if request.param == "cluster":
        for i in range(2):  # a worker joins with a key listed as admin
            worker_public, _ = write_key_files(keys, f"worker-{i}")
            lines.append(f"{worker_public.decode()}  worker-{i}  admin")
            workers.append(keys / f"worker-{i}.key")
    (keys / "clients.keys").write_text("\n".join(lines) + "\n")
    alice = CurveKeys.from_files(keys / "alice.key", keys / "server.pub")
    security = ["--server-secret-key-file", str(keys / "server.key"), "--client-keys-file", str(keys / "clients.keys")]
    if request.param == "single":
        server = start_single(keys / "run", args=security, curve=alice)
    else:
        server = start_cluster(
            keys / "run",
            workers=2,
            broker_args=security,
            curve=alice,
            worker_args=lambda i: [
                "--worker-secret-key-file",
                str(workers[i]),
                "--server-public-key-file",
                str(keys / "server.pub"),
            ],
        )
    server.curve_server_public = server_public
    try:
        yield CurveSetup(
            server,
            alice,
            CurveKeys.from_files(keys / "bob.key", keys / "server.pub"),
            CurveKeys.from_files(keys / "stranger.key", keys / "server.pub"),
        )
    finally:
        server.stop()


def test_key_files(tmp_path: Path) -> None:
    public, secret = write_key_files(tmp_path, "k")
    assert read_key_file(tmp_path / "k.key") == secret and read_key_file(tmp_path / "k.pub") == public
    keys = CurveKeys.from_files(tmp_path / "k.key", tmp_path / "k.pub")
    assert keys.public_key == public and keys.topic_prefix == public and len(keys.topic_prefix) == 40
    assert secret.decode() not in repr(keys)
    (tmp_path / "empty.key").write_text("# nothing\n\n")
    with pytest.raises(ValueError):
        read_key_file(tmp_path / "empty.key")
    (tmp_path / "bad.key").write_text("not-a-key\n")
    with pytest.raises(ValueError):
        read_key_file(tmp_path / "bad.key")
    with pytest.raises(ValueError):
        CurveKeys(secret_key=b"short", server_key=public)


def test_admitted_clients_have_their_own_namespaces(
    curve_setup: CurveSetup, make_client: Callable[..., Client]
) -> None:
    server = curve_setup.server
    alice = make_client(server.front, stats_endpoints=server.stats, curve=curve_setup.alice)
    bob = make_client(server.front, stats_endpoints=server.stats, curve=curve_setup.bob, timeout=1.0, attempts=1)
    key = f"feed-{uuid.uuid4().hex[:8]}"
    assert alice.ping().version
    assert alice.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS).version == 1
    with pytest.raises(UnknownLayout):
        bob.query(key, rect=(0, 0, 10, 10))
    assert bob.prepare(key, bounds=(100, 100), spec={"type": "list"}, sections=[{"count": 1}]).version == 1
    assert bob.list().get(key) is not None and alice.query(key, items=[[0, 1]]).version == 1

    listed = alice.list()  # an admin's list names every namespace
    namespaces = {info.namespace for info in listed if info.layout == key}
    assert "alice" in namespaces and curve_setup.bob.public_key.decode() in namespaces
    assert alice.stats().auth_failures is not None
    with pytest.raises(Timeout):
        bob.stats(timeout=0.5)  # the stats socket answers admins only


def test_strangers_get_nothing(curve_setup: CurveSetup, make_client: Callable[..., Client]) -> None:
    server = curve_setup.server
    plain = make_client(server.front, timeout=0.5, attempts=1)
    with pytest.raises(Timeout):
        plain.ping()
    stranger = make_client(server.front, timeout=0.5, attempts=1, curve=curve_setup.stranger)
    with pytest.raises(Timeout):
        stranger.ping()


def test_events_carry_the_key_prefix(curve_setup: CurveSetup, make_client: Callable[..., Client]) -> None:
    server = curve_setup.server
    alice = make_client(server.front, curve=curve_setup.alice)
    key = f"ev-{uuid.uuid4().hex[:8]}"
    version = alice.prepare(key, bounds=FEED_BOUNDS, spec=FEED_SPEC, sections=FEED_SECTIONS).version

    # A raw SUB socket shows the wire: topics start with alice's public key.
    raw = zmq.Context.instance().socket(zmq.SUB)
    raw.linger = 0
    curve_setup.alice.apply(raw)
    raw.connect(server.events)
    raw.setsockopt(zmq.SUBSCRIBE, curve_setup.alice.public_key + f"batch:{key}".encode())
    with Subscriber(server.events, [f"batch:{key}"], client=alice) as sub:
        sub.track(key, version)
        deadline = time.monotonic() + 20
        event = None
        # Poll until the subscription is live. Events published before it are lost, so the first one
        # that arrives may be reported as a gap (a Resync); the next is in order.
        while not isinstance(event, BatchEvent) and time.monotonic() < deadline:
            version = alice.update(
                key, if_version=version, updates=[{"insert": [0, 0], "item": {"id": uuid.uuid4().hex}}]
            ).version
            event = sub.next(0.3)
            if isinstance(event, Resync):
                assert event.event.topic == f"batch:{key}" and event.result is not None
        assert isinstance(event, BatchEvent), "no event reached the CURVE subscriber within 20 s"
        assert event.topic == f"batch:{key}" and event.layout == key  # the key prefix was taken off
        assert event.version <= version
    try:
        # Its subscription may go live later than the Subscriber's: keep changing the key until one
        # reaches it too (bounded).
        deadline = time.monotonic() + 20
        while not raw.poll(300, zmq.POLLIN):
            assert time.monotonic() < deadline, "no event reached the raw CURVE subscriber within 20 s"
            version = alice.update(
                key, if_version=version, updates=[{"insert": [0, 0], "item": {"id": uuid.uuid4().hex}}]
            ).version
        topic, _ = raw.recv_multipart()
        assert topic.startswith(curve_setup.alice.public_key) and topic[40:] == f"batch:{key}".encode()
    finally:
        raw.close(linger=0)
