"""Fenced reads, guarded writes and deletes, their typed outcomes, problems and timeouts."""
import socket
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import fencegate
from _gateway import STORE, URL, SilentServer, client, fresh_key, lock_of


class AnswerDroppingProxy:
    """Passes requests to the gateway. The first one's answer it swallows (it closes the caller's
    connection once the gateway has answered): a write that applied while its answer was lost."""

    def __init__(self) -> None:
        target = urlsplit(URL)
        self.target = (target.hostname, target.port)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.calls = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                caller, _ = self.sock.accept()
            except OSError:
                return
            self.calls += 1
            with caller, socket.create_connection(self.target, timeout=10) as gateway:
                caller.settimeout(10)
                gateway.sendall(_message(caller))
                answer = _message(gateway)  # the gateway has applied the write and answered
                if self.calls > 1:
                    caller.sendall(answer)

    def close(self) -> None:
        self.sock.close()


def _message(conn: socket.socket) -> bytes:
    """One HTTP message with a Content-Length body (or none)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


class WriteTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client()

    def test_a_retry_with_the_same_token_reports_already_applied(self) -> None:
        key = fresh_key("retry")
        proxy = AnswerDroppingProxy()
        try:
            lossy = fencegate.Client(proxy.url, timeout=5)
            with self.client.lease(lock_of(key), ttl=10, wait=5) as lease:
                retried = lossy.put(STORE, key, b"7", token=lease.token, retries=2)
                self.assertEqual(proxy.calls, 2, "the first answer was lost, the retry answered")
                self.assertEqual(retried, fencegate.AlreadyApplied(token=lease.token, fence=lease.token))
                self.assertTrue(retried.applied)
                self.assertEqual(self.client.get(STORE, key), fencegate.Value(b"7", lease.token))
        finally:
            proxy.close()

    def test_a_lost_answer_raises_and_a_manual_retry_tells_it_had_applied(self) -> None:
        key = fresh_key("manual")
        proxy = AnswerDroppingProxy()
        try:
            with self.client.lease(lock_of(key), ttl=10, wait=5) as lease:
                with self.assertRaises(fencegate.TransportError) as lost:
                    fencegate.Client(proxy.url, timeout=5).put(STORE, key, b"8", token=lease.token)
                self.assertNotIsInstance(lost.exception, fencegate.ConnectFailed, "it was sent")
                again = self.client.put(STORE, key, b"8", token=lease.token)  # the same token, again
                self.assertIsInstance(again, fencegate.Stale)
                self.assertTrue(again.already_applied)
        finally:
            proxy.close()

    def test_a_lower_token_is_stale_after_a_higher_one_claimed_the_item(self) -> None:
        key = fresh_key("stale")
        older = self.client.acquire(lock_of(key), ttl=0.5)
        first = self.client.put(STORE, key, "5", token=older.token)
        self.assertEqual(first, fencegate.Applied(token=older.token, previous_token=0))
        time.sleep(0.6)  # older's ttl passes, unrenewed
        with self.client.lease(lock_of(key), ttl=10, wait=10) as newer:
            read = self.client.get(STORE, key, token=newer.token)  # fenced read: claims it
            self.assertEqual(read, fencegate.Value(b"5", older.token))
            self.assertEqual(read.text, "5")
            late = self.client.put(STORE, key, b"4", token=older.token)
            self.assertEqual(late, fencegate.Stale(current_token=older.token, fence=newer.token,
                                                   attempted_token=older.token))
            self.assertFalse(late.applied)
            self.assertTrue(late.already_applied, "older's token did write the item: its first write")
            self.assertIsInstance(self.client.get(STORE, key, token=older.token), fencegate.Stale)
            self.assertIsInstance(self.client.put(STORE, key, b"4", token=newer.token), fencegate.Applied)

    def test_a_delete_leaves_a_tombstone_no_lower_token_revives(self) -> None:
        key = fresh_key("delete")
        older = self.client.acquire(lock_of(key), ttl=0.5)
        self.client.put(STORE, key, b"x", token=older.token)
        time.sleep(0.6)
        with self.client.lease(lock_of(key), ttl=10, wait=10) as newer:
            deleted = self.client.delete(STORE, key, token=newer.token)
            self.assertEqual(deleted, fencegate.Applied(token=newer.token, previous_token=older.token))
            self.assertEqual(self.client.get(STORE, key), fencegate.NotFound())
            self.assertIsInstance(self.client.put(STORE, key, b"back", token=older.token), fencegate.Stale)

    def test_errors_are_problems_with_status_and_type(self) -> None:
        key = fresh_key("problems")
        with self.client.lease(lock_of(key), ttl=10, wait=5) as lease:
            with self.assertRaises(fencegate.ProblemError) as unknown:
                self.client.get("no-such-store", key)
            self.assertEqual((unknown.exception.status, unknown.exception.kind), (404, "unknown-store"))
            with self.assertRaises(fencegate.ProblemError) as foreign:
                self.client.put(STORE, fresh_key("other"), b"x", token=lease.token)  # granted for another lock
            self.assertEqual((foreign.exception.status, foreign.exception.kind), (403, "token-not-granted"))
            with self.assertRaises(fencegate.ProblemError) as statement:
                self.client.statement(STORE, "no-such-statement", key=key, token=lease.token, params={"n": 1})
            self.assertEqual(statement.exception.status, 404)
            self.assertIn("statement", statement.exception.kind)

    def test_every_call_is_bounded_by_the_timeout(self) -> None:
        silent = SilentServer()
        try:
            quick = fencegate.Client(silent.url, timeout=0.5)
            started = time.monotonic()
            with self.assertRaises(fencegate.CallTimedOut):
                quick.put(STORE, "k", b"v", token=1)
            with self.assertRaises(fencegate.CallTimedOut):
                quick.renew("some-lease")
            self.assertLess(time.monotonic() - started, 5)
        finally:
            silent.close()

    def test_a_busy_thread_reuses_its_connection_and_threads_never_share_one(self) -> None:
        connections = []

        class Answer(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive

            def setup(self) -> None:
                connections.append(self.client_address)
                super().setup()

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "1")
                self.send_header("Fencing-Token", "1")
                self.end_headers()
                self.wfile.write(b"v")

            def log_message(self, *args) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            c = fencegate.Client("http://127.0.0.1:%d" % server.server_address[1], timeout=5)
            for _ in range(5):
                self.assertEqual(c.get(STORE, "k"), fencegate.Value(b"v", 1))
            self.assertEqual(len(connections), 1, "five calls of one thread, one connection")
            other = threading.Thread(target=lambda: c.get(STORE, "k"))
            other.start()
            other.join(10)
            self.assertEqual(len(connections), 2, "another thread opens its own")
        finally:
            server.shutdown()
            server.server_close()

    def test_an_unreachable_gateway_is_connect_failed(self) -> None:
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        closed.close()  # nobody listens there
        with self.assertRaises(fencegate.ConnectFailed):
            fencegate.Client("http://127.0.0.1:%d" % port, timeout=2).get(STORE, "k")


if __name__ == "__main__":
    unittest.main()
