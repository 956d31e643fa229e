"""Test support: fake ZeroMQ peers and CURVE key files (re-exported by ``layoutd_testkit``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq

from testkit_process import free_port, tcp


class FakeRouter:
    """A tiny ROUTER peer on a free port, answering each request with ``handler(frames)``.

    ``handler`` gets the frames after the routing id (``[b"", body, *attachments]``) and returns a list of
    replies, each a list of frames to send after the routing id (``[]``: no answer). Runs in a thread that
    polls in short intervals until :meth:`close`.
    """

    def __init__(self, handler: Callable[[list[bytes]], list[list[bytes]]]) -> None:
        self.handler = handler
        self.endpoint = tcp(free_port())
        self.received: list[list[bytes]] = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise AssertionError("the fake router did not start")

    def _run(self) -> None:
        context = zmq.Context.instance()
        router = context.socket(zmq.ROUTER)
        router.linger = 0
        try:
            router.bind(self.endpoint)
            self._ready.set()
            while not self._stop.is_set():
                if not router.poll(50, zmq.POLLIN):
                    continue
                identity, *frames = router.recv_multipart()
                self.received.append(frames)
                for reply in self.handler(frames):
                    router.send_multipart([identity, *reply])
        except BaseException as error:  # surfaced by close()
            self.error = error
            self._ready.set()
        finally:
            router.close(linger=0)

    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies received so far."""
        return [json.loads(frames[1] if frames and frames[0] == b"" else frames[0]) for frames in self.received]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        if self.error is not None:
            raise self.error

    def __enter__(self) -> FakeRouter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def reply_frames(request_frames: list[bytes], reply: dict[str, Any], *extra: bytes) -> list[bytes]:
    """``[b"", json(reply with the request's id), *extra]``."""
    body = json.loads(request_frames[1] if request_frames[0] == b"" else request_frames[0])
    reply = {"v": 1, "id": body.get("id"), **reply}
    return [b"", json.dumps(reply).encode(), *extra]


def write_key_files(directory: Path, prefix: str) -> tuple[bytes, bytes]:
    """A CURVE key pair written as ``layoutctl keygen --out PREFIX`` does: ``PREFIX.key`` (secret, mode 600,
    a comment naming the public key) and ``PREFIX.pub``. Returns (public, secret)."""
    public, secret = zmq.curve_keypair()
    key_path = directory / f"{prefix}.key"
    key_path.write_text(f"# layoutd CURVE secret key; public key: {public.decode()}\n{secret.decode()}\n")
    key_path.chmod(0o600)
    (directory / f"{prefix}.pub").write_text(f"{public.decode()}\n")
    return public, secret
