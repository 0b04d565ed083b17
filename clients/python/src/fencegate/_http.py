"""One HTTP exchange with the gateway, bounded by a timeout, on the standard library's http.client.

Each thread keeps its own keep-alive connection: nothing is shared between threads, so the
keep-alive threads and the caller's threads never wait on each other's sockets, and a busy thread
does not pay a new TCP connection a call. A connection idle for more than REUSE_IDLE seconds is
closed and a new one opened instead: far below any server's or proxy's idle timeout (the gateway's
is twice its request timeout, 60 s by default), so a reused connection is never one the other side
is closing, and a failed exchange is a real failure, reported as such (a write may have applied), never
sent again behind the caller's back.
"""
from __future__ import annotations

import atexit
import http.client
import socket
import ssl
import threading
import time
import weakref
from typing import Dict, NamedTuple, Optional
from urllib.parse import urlsplit

from ._errors import CallTimedOut, ConnectFailed, TransportError

REUSE_IDLE = 2.0  # seconds a thread's connection may sit idle and still be reused


class Answer(NamedTuple):
    status: int
    content_type: str
    headers: Dict[str, str]
    body: bytes


class _Idle:
    """A thread's idle connection. Closed when dropped: when its thread ends (the thread's locals go
    away with it) or its client is discarded, so no socket is left for the garbage collector."""

    __slots__ = ("conn", "since", "__weakref__")

    def __init__(self, conn: http.client.HTTPConnection, since: float) -> None:
        self.conn: Optional[http.client.HTTPConnection] = conn
        self.since = since
        _ALL_IDLE.add(self)

    def take(self) -> Optional[http.client.HTTPConnection]:
        conn, self.conn = self.conn, None
        return conn

    def __del__(self) -> None:
        if self.conn is not None:
            self.conn.close()


_ALL_IDLE: "weakref.WeakSet[_Idle]" = weakref.WeakSet()


@atexit.register
def _close_idle() -> None:
    """At exit the threads' locals may outlive the interpreter's collector: close what is left."""
    for idle in list(_ALL_IDLE):
        conn = idle.take()
        if conn is not None:
            conn.close()


class Transport:
    def __init__(self, url: str, api_key: Optional[str], ssl_context: Optional[ssl.SSLContext]) -> None:
        if not isinstance(url, str):
            raise TypeError("url must be a str, got %s" % type(url).__name__)
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("url must be http://HOST[:PORT] or https://HOST[:PORT], got %r" % url)
        if parts.query or parts.fragment:
            raise ValueError("url must have no query or fragment, got %r" % url)
        try:
            port = parts.port
        except ValueError as e:
            raise ValueError("url has a bad port: %r" % url) from e
        if api_key is not None:
            if not isinstance(api_key, str) or not api_key or any(c in api_key for c in "\r\n\0 "):
                raise ValueError("api_key must be a non-empty str without spaces or line breaks")
        if ssl_context is not None and not isinstance(ssl_context, ssl.SSLContext):
            raise TypeError("ssl_context must be an ssl.SSLContext")
        self.secure = parts.scheme == "https"
        self.host = parts.hostname
        self.port = port
        self.prefix = parts.path.rstrip("/")
        self.authorization = None if api_key is None else "Bearer " + api_key
        self.ssl_context = ssl_context
        self.url = url
        self._idle = threading.local()  # this thread's connection, and when its last exchange ended

    def exchange(self, method: str, path: str, timeout: float, body: Optional[bytes] = None,
                 headers: Optional[Dict[str, str]] = None) -> Answer:
        """Sends one request; the whole exchange ends within about ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        conn = self._take(timeout)
        all_headers = {"Accept": "application/json, application/problem+json, */*"}
        if self.authorization:
            all_headers["Authorization"] = self.authorization
        all_headers.update(headers or {})
        kept = False
        try:
            if conn.sock is None:
                try:
                    conn.connect()
                except (socket.timeout, OSError) as e:
                    raise ConnectFailed("cannot connect to %s: %s" % (self.url, e)) from e
            try:
                conn.request(method, self.prefix + path, body=body, headers=all_headers)
                _shrink(conn, deadline)
                response = conn.getresponse()
                _shrink(conn, deadline)
                data = response.read()
            except socket.timeout as e:
                raise CallTimedOut("%s %s: no answer within %.3g s" % (method, path, timeout)) from e
            except (OSError, http.client.HTTPException) as e:
                raise TransportError("%s %s: %s: %s" % (method, path, type(e).__name__, e)) from e
            kept = not response.will_close
            return Answer(response.status, response.getheader("Content-Type", "") or "",
                          {k.lower(): v for k, v in response.getheaders()}, data)
        finally:
            if kept:
                self._idle.kept = _Idle(conn, time.monotonic())
            else:
                conn.close()

    def _take(self, timeout: float) -> http.client.HTTPConnection:
        """This thread's idle connection if it was used within REUSE_IDLE seconds, else a new one."""
        idle: Optional[_Idle] = getattr(self._idle, "kept", None)
        self._idle.kept = None
        conn = None if idle is None else idle.take()
        if conn is not None:
            if conn.sock is not None and time.monotonic() - idle.since <= REUSE_IDLE:
                conn.timeout = timeout
                conn.sock.settimeout(timeout)
                return conn
            conn.close()
        if self.secure:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self.ssl_context)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)


def _shrink(conn: http.client.HTTPConnection, deadline: float) -> None:
    """Socket timeouts count per operation: cut the next wait to what is left of the call's."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise socket.timeout("timed out")
    if conn.sock is not None:
        conn.sock.settimeout(left)
