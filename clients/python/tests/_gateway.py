"""What every test shares: the gateway under test (FENCEGATE_URL) and names of its own."""
import os
import socket
import threading
import uuid
from typing import List

import fencegate

URL = os.environ.get("FENCEGATE_URL", "")
if not URL:
    raise RuntimeError("set FENCEGATE_URL to a gateway started with tests/gateway.yaml"
                       " (fencegate serve --config clients/python/tests/gateway.yaml)")

STORE = "main"


def client(timeout: float = 10.0) -> fencegate.Client:
    return fencegate.Client(URL, timeout=timeout)


def fresh_key(what: str) -> str:
    """A key no other test touches: its lock is main/<key>."""
    return "py/%s/%s" % (what, uuid.uuid4().hex[:12])


def lock_of(key: str) -> str:
    return STORE + "/" + key


class SilentServer:
    """A loopback socket that accepts connections and never answers; counts what connected."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.accepted: List[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.accepted:
            conn.close()
