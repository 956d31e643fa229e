"""CURVE credentials (docs/OPERATIONS.md, Security).

A client of a daemon with CURVE needs its own key pair (its public key listed in the daemon's clients
file) and the daemon's public key. Keys are 40 characters of Z85. Key files are as ``layoutctl keygen``
writes them: the key on the first line that is not blank or a comment (``#``); ``PREFIX.key`` holds the
secret key, ``PREFIX.pub`` the public key.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Union

import zmq

__all__ = ["CurveKeys", "read_key_file", "z85_key"]

KeyLike = bytes | str
PathLike = Union[str, "os.PathLike[str]"]  # noqa: UP007 - a forward reference

_Z85 = set(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")


def z85_key(key: KeyLike, what: str = "key") -> bytes:
    """``key`` as 40 bytes of Z85.

    Raises:
        ValueError: not 40 characters of Z85.
    """
    data = key.encode("ascii", "replace") if isinstance(key, str) else bytes(key)
    data = data.strip()
    if len(data) != 40 or not set(data) <= _Z85:
        raise ValueError(f"the {what} is not a CURVE key (40 characters of Z85)")
    return data


def read_key_file(path: PathLike) -> bytes:
    """The key in a key file: the first word of the first line that is not blank or a comment.

    Raises:
        ValueError: no key in the file, or a first word that is not a key. OSError: the file cannot be read.
    """
    with open(path, encoding="utf-8") as file:
        for line in file:
            words = line.split()
            if words and not words[0].startswith("#"):
                return z85_key(words[0], f"first word of {os.fspath(path)}")
    raise ValueError(f"{os.fspath(path)}: no key in the file")


@dataclass(frozen=True)
class CurveKeys:
    """A client's CURVE credentials: its secret key, its public key (derived from the secret key when not
    given) and the daemon's (or broker's) public key, each as 40 bytes of Z85.

    Pass it as ``curve=`` to ``Client``, ``AsyncClient``, ``Subscriber`` and ``AsyncSubscriber``. With it,
    event topics start with :attr:`public_key`; the subscribers add and strip that prefix for you.
    """

    secret_key: bytes
    server_key: bytes
    public_key: bytes = field(default=b"")

    def __post_init__(self) -> None:
        object.__setattr__(self, "secret_key", z85_key(self.secret_key, "secret key"))
        object.__setattr__(self, "server_key", z85_key(self.server_key, "server key"))
        public = self.public_key or zmq.curve_public(self.secret_key)
        object.__setattr__(self, "public_key", z85_key(public, "public key"))

    @classmethod
    def from_files(
        cls,
        secret_key_file: PathLike,
        server_key_file: PathLike,
        public_key_file: PathLike | None = None,
    ) -> CurveKeys:
        """Reads the keys from files as ``layoutctl keygen`` writes them (``alice.key``, ``server.pub``)."""
        return cls(
            secret_key=read_key_file(secret_key_file),
            server_key=read_key_file(server_key_file),
            public_key=read_key_file(public_key_file) if public_key_file is not None else b"",
        )

    @property
    def topic_prefix(self) -> bytes:
        """What every event topic starts with for this client: its public key in Z85."""
        return self.public_key

    def apply(self, socket: Any) -> None:
        """Makes ``socket`` a CURVE client with these keys (call before ``connect``)."""
        socket.curve_secretkey = self.secret_key
        socket.curve_publickey = self.public_key
        socket.curve_serverkey = self.server_key

    def __repr__(self) -> str:  # never print the secret key
        return f"CurveKeys(public_key={self.public_key!r}, server_key={self.server_key!r})"
