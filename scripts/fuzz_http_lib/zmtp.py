"""A DEALER speaking ZMTP 3.0 with the NULL mechanism over a plain TCP socket (the standard library only),
enough to send `ping` to the daemon's front and read the reply: the HTTP fuzzer's independent check that
the ZeroMQ side still serves while the HTTP side is under attack."""
import socket
import struct
import time


class ZMTPError(Exception):
    pass


class Dealer:
    def __init__(self, host, port, timeout=10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + b"\x00" * 31
        self.sock.sendall(greeting)
        peer = self._exact(64)
        if peer[0] != 0xFF or peer[9] != 0x7F or peer[10] < 3:
            raise ZMTPError("not a ZMTP 3 peer: %r" % peer[:12])
        ready = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
        self.sock.sendall(b"\x04" + bytes([len(ready)]) + ready)
        flags, body = self._frame()
        if not flags & 0x04 or not body.startswith(b"\x05READY"):
            raise ZMTPError("no READY from the peer")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, frames):
        out = bytearray()
        for index, frame in enumerate(frames):
            more = 0x01 if index < len(frames) - 1 else 0x00
            if len(frame) < 256:
                out += bytes([more, len(frame)])
            else:
                out += bytes([more | 0x02]) + struct.pack(">Q", len(frame))
            out += frame
        self.sock.sendall(bytes(out))

    def receive(self):
        """The frames of the next message (commands, such as PING, are skipped)."""
        frames = []
        while True:
            flags, body = self._frame()
            if flags & 0x04:
                continue
            frames.append(body)
            if not flags & 0x01:
                return frames

    def _frame(self):
        flags = self._exact(1)[0]
        size = struct.unpack(">Q", self._exact(8))[0] if flags & 0x02 else self._exact(1)[0]
        if size > 64 << 20:
            raise ZMTPError("frame of %d bytes" % size)
        return flags, self._exact(size)

    def _exact(self, count):
        data = bytearray()
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise ZMTPError("the peer closed the connection")
            data += chunk
        return bytes(data)


def request(host, port, body, timeout=10.0):
    """Sends one body (`[empty delimiter, body]`, as REQ does) and returns the reply's last frame."""
    dealer = Dealer(host, port, timeout)
    try:
        dealer.send([b"", body])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            frames = dealer.receive()
            if frames:
                return frames[-1]
        raise ZMTPError("no reply within %.0f s" % timeout)
    finally:
        dealer.close()
