"""One HTTP exchange with the gateway, bounded by a timeout, on the standard library's http.client.

A new connection per call: nothing is shared between threads, so the keep-alive threads and the
caller's threads never wait on each other's sockets.
"""
from __future__ import annotations

import http.client
import socket
import ssl
import time
from typing import Dict, NamedTuple, Optional
from urllib.parse import urlsplit

from ._errors import CallTimedOut, ConnectFailed, TransportError


class Answer(NamedTuple):
    status: int
    content_type: str
    headers: Dict[str, str]
    body: bytes


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

    def exchange(self, method: str, path: str, timeout: float, body: Optional[bytes] = None,
                 headers: Optional[Dict[str, str]] = None) -> Answer:
        """Sends one request; the whole exchange ends within about ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        if self.secure:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                self.host, self.port, timeout=timeout, context=self.ssl_context)
        else:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        all_headers = {"Accept": "application/json, application/problem+json, */*"}
        if self.authorization:
            all_headers["Authorization"] = self.authorization
        all_headers.update(headers or {})
        try:
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
            return Answer(response.status, response.getheader("Content-Type", "") or "",
                          {k.lower(): v for k, v in response.getheaders()}, data)
        finally:
            conn.close()


def _shrink(conn: http.client.HTTPConnection, deadline: float) -> None:
    """Socket timeouts count per operation: cut the next wait to what is left of the call's."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise socket.timeout("timed out")
    if conn.sock is not None:
        conn.sock.settimeout(left)
