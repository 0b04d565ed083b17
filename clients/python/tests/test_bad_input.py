"""Bad input raises ValueError or TypeError naming the argument, and nothing is sent."""
import unittest

import fencegate
from _gateway import SilentServer


class BadInputTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = SilentServer()  # anything sent would connect here
        self.client = fencegate.Client(self.server.url, timeout=1)

    def tearDown(self) -> None:
        self.server.close()

    def refused(self, error: type, words: str, call) -> None:
        with self.assertRaises(error) as raised:
            call()
        self.assertIn(words, str(raised.exception))

    def test_bad_tokens_are_refused_before_sending(self) -> None:
        for bad in (0, -1, 2 ** 63):
            self.refused(ValueError, "token", lambda: self.client.put("main", "k", b"v", token=bad))
        for bad in (True, "5", 5.0, None):
            self.refused(TypeError, "token", lambda: self.client.delete("main", "k", token=bad))
        self.refused(ValueError, "token", lambda: self.client.get("main", "k", token=0))

    def test_bad_keys_and_stores_are_refused_before_sending(self) -> None:
        for bad in ("", "a//b", "/a", "a/", "a/../b", ".", "a\0b", "\ud800"):
            self.refused(ValueError, "key", lambda: self.client.put("main", bad, b"v", token=1))
        self.refused(TypeError, "key", lambda: self.client.get("main", 42))
        self.refused(ValueError, "store", lambda: self.client.get("", "k"))
        self.refused(TypeError, "value", lambda: self.client.put("main", "k", 5, token=1))

    def test_bad_lease_arguments_are_refused_before_sending(self) -> None:
        self.refused(ValueError, "ttl", lambda: self.client.acquire("main/k", ttl=0))
        self.refused(ValueError, "ttl", lambda: self.client.acquire("main/k", ttl=0.05))
        self.refused(ValueError, "ttl", lambda: self.client.lease("main/k", ttl=float("inf")))
        self.refused(TypeError, "ttl", lambda: self.client.lease("main/k", ttl="10"))
        self.refused(ValueError, "wait", lambda: self.client.acquire("main/k", ttl=1, wait=-1))
        self.refused(ValueError, "lock", lambda: self.client.lease("", ttl=1))
        self.refused(ValueError, "lease_id", lambda: self.client.release(""))
        self.refused(TypeError, "grant", lambda: self.client.keep_alive("lease-id"))

    def test_bad_modes_and_permits_are_refused_before_sending(self) -> None:
        self.refused(ValueError, "mode", lambda: self.client.lease("main/k", ttl=1, mode="exclusive"))
        self.refused(ValueError, "mode", lambda: self.client.acquire("main/k", ttl=1, mode="READ"))
        self.refused(TypeError, "mode", lambda: self.client.acquire("main/k", ttl=1, mode=None))
        for bad in (0, -1, 1001):
            self.refused(ValueError, "permits", lambda: self.client.permit("main/pool", permits=bad, ttl=1))
        for bad in (True, 2.0, "2", None):
            self.refused(TypeError, "permits", lambda: self.client.acquire_permit("main/pool", permits=bad, ttl=1))
        self.refused(ValueError, "semaphore", lambda: self.client.permit("", permits=2, ttl=1))
        self.refused(ValueError, "ttl", lambda: self.client.permit("main/pool", permits=2, ttl=0))

    def test_bad_statement_arguments_are_refused_before_sending(self) -> None:
        self.refused(TypeError, "params", lambda: self.client.statement("main", "s", key="k", token=1, params={"x": object()}))
        self.refused(TypeError, "params", lambda: self.client.statement("main", "s", key="k", token=1, params=[1]))
        self.refused(ValueError, "name", lambda: self.client.statement("main", "", key="k", token=1))

    def test_bad_client_settings_are_refused(self) -> None:
        self.refused(ValueError, "url", lambda: fencegate.Client("ftp://127.0.0.1:1"))
        self.refused(ValueError, "url", lambda: fencegate.Client("127.0.0.1:8080"))
        self.refused(ValueError, "timeout", lambda: fencegate.Client(self.server.url, timeout=0))
        self.refused(ValueError, "api_key", lambda: fencegate.Client(self.server.url, api_key="a\r\nX-Evil: 1"))

    def test_nothing_was_sent(self) -> None:
        self.test_bad_tokens_are_refused_before_sending()
        self.test_bad_keys_and_stores_are_refused_before_sending()
        self.test_bad_lease_arguments_are_refused_before_sending()
        self.test_bad_modes_and_permits_are_refused_before_sending()
        self.test_bad_statement_arguments_are_refused_before_sending()
        self.assertEqual(self.server.accepted, [])


if __name__ == "__main__":
    unittest.main()
