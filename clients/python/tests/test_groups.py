"""Lease groups, transactions across items and fenced multi-reads, against the gateway's SQL store."""
import os
import re
import subprocess
import sys
import time
import unittest

import fencegate
from _gateway import STORE, URL, SilentServer, client, fresh_key, lock_of

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


class GroupTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client()

    def test_a_group_is_granted_renewed_and_released_together(self) -> None:
        a, b = fresh_key("group-a"), fresh_key("group-b")
        # A ttl of 4.5 s renewed every 1.5 s: a loaded machine (load 40 here: a 3 s ttl was lost) has
        # 3 s for a renewal's round trip.
        with self.client.leases([lock_of(a), lock_of(b)], ttl=4.5, wait=5) as group:
            self.assertEqual(sorted(group.tokens), sorted([lock_of(a), lock_of(b)]))
            self.assertTrue(group.group_id.startswith("lg1~"), group.group_id)
            time.sleep(5)  # past the ttl: only the group's renewals keep both members
            self.assertTrue(group.held, group)
            self.assertIsNone(self.client.acquire(lock_of(b), ttl=1, wait=0), "every member is still held")
            for key in (a, b):
                self.assertIsInstance(self.client.put(STORE, key, b"1", token=group.token(lock_of(key))), fencegate.Applied)
        self.assertFalse(group.held)
        self.assertFalse(group.lost.is_set(), "a release is no loss")
        for key in (a, b):
            after = self.client.acquire(lock_of(key), ttl=5, wait=0)
            self.assertIsNotNone(after, "released on the way out, not left to its ttl")
            self.client.release(after.lease_id)

    def test_a_stale_token_refuses_the_whole_transaction_and_is_named(self) -> None:
        a, b = fresh_key("tx-a"), fresh_key("tx-b")
        older = self.client.acquire(lock_of(a), ttl=5)
        self.client.release(older.lease_id)
        with self.client.leases([lock_of(a), lock_of(b)], ttl=10, wait=5) as group:
            ta, tb = group.token(lock_of(a)), group.token(lock_of(b))
            self.assertEqual(self.client.get(STORE, a, token=ta), fencegate.NotFound())  # claims a for ta
            # older's token on a, a good one on b: nothing may apply, and the refusal names a alone.
            refused = self.client.transaction(STORE).put(b, b"9", token=tb).put(a, "x", token=older.token).commit()
            self.assertEqual(refused, fencegate.Refused({a: fencegate.Stale(current_token=0, fence=ta,
                                                                             attempted_token=older.token)}))
            self.assertFalse(refused.applied)
            self.assertEqual(self.client.get(STORE, b), fencegate.NotFound(), "b's put was not applied")
            # Under strict a token writes an item once: had b's put applied, this would be refused.
            done = self.client.transaction(STORE).put(a, "4", token=ta).put(b, b"9", token=tb).commit()
            self.assertEqual(done, fencegate.Committed({a: fencegate.Applied(ta, 0), b: fencegate.Applied(tb, 0)}))
            self.assertTrue(done.applied)
            self.assertEqual(self.client.get(STORE, a), fencegate.Value(b"4", ta))
            self.assertEqual(self.client.get(STORE, b), fencegate.Value(b"9", tb))

    def test_a_fenced_multi_read_claims_every_item(self) -> None:
        a, b = fresh_key("claim-a"), fresh_key("claim-b")
        older = self.client.acquire(lock_of(a), ttl=5)
        self.client.put(STORE, a, b"old", token=older.token)
        self.client.release(older.lease_id)
        with self.client.leases([lock_of(a), lock_of(b)], ttl=10, wait=5) as group:
            ta = group.token(lock_of(a))
            read = self.client.get_all(STORE, {a: ta, b: group.token(lock_of(b))})
            self.assertEqual(read, fencegate.Claimed({a: fencegate.Value(b"old", older.token), b: fencegate.NotFound()}))
            late = self.client.put(STORE, a, b"late", token=older.token)  # a lower token, after the claim
            self.assertEqual(late, fencegate.Stale(current_token=older.token, fence=ta, attempted_token=older.token))
            again = self.client.get_all(STORE, [(a, older.token)])
            self.assertEqual(again, fencegate.Refused({a: fencegate.Stale(older.token, ta, older.token)}))
        self.assertEqual(self.client.get(STORE, a), fencegate.Value(b"old", older.token))


    def test_the_readme_moves_one_unit_under_a_group_in_one_transaction(self) -> None:
        with open(README, encoding="utf-8") as f:
            found = re.search(r"<!-- groups:begin -->\s*```python\n(.*?)```\s*<!-- groups:end -->", f.read(), re.S)
        self.assertIsNotNone(found, "README.md has a groups block")
        for key, stock in (("stock/a", b"3"), ("stock/b", b"0")):
            with self.client.lease(lock_of(key), ttl=10, wait=10) as lease:
                self.client.put(STORE, key, stock, token=lease.token)
        run = subprocess.run([sys.executable, "-c", found.group(1).replace("http://127.0.0.1:8080", URL)],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("Committed(items={'stock/a': Applied(", run.stdout)
        self.assertEqual((self.client.get(STORE, "stock/a").value, self.client.get(STORE, "stock/b").value), (b"2", b"1"))


class GroupBadInputTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = SilentServer()  # anything sent would connect here
        self.client = fencegate.Client(self.server.url, timeout=1)

    def tearDown(self) -> None:
        self.server.close()

    def refused(self, error: type, words: str, call) -> None:
        with self.assertRaises(error) as raised:
            call()
        self.assertIn(words, str(raised.exception))

    def test_bad_groups_transactions_and_multi_reads_send_nothing(self) -> None:
        c = self.client
        self.refused(TypeError, "locks", lambda: c.leases("main/a", ttl=1))
        self.refused(ValueError, "locks", lambda: c.leases([], ttl=1))
        self.refused(ValueError, "distinct", lambda: c.acquire_all(["main/a", "main/a"], ttl=1))
        self.refused(ValueError, "1 to 8", lambda: c.acquire_all(["main/%d" % i for i in range(9)], ttl=1))
        self.refused(ValueError, "locks[1]", lambda: c.leases(["main/a", ""], ttl=1))
        self.refused(ValueError, "ttl", lambda: c.leases(["main/a"], ttl=0))
        self.refused(ValueError, "at least one", lambda: c.transaction("main").commit())
        self.refused(ValueError, "already in this transaction", lambda: c.transaction("main").put("k", b"v", token=1).delete("k", token=2))
        self.refused(ValueError, "token", lambda: c.transaction("main").put("k", b"v", token=0))
        self.refused(ValueError, "key", lambda: c.transaction("main").delete("a/../b", token=1))
        self.refused(TypeError, "value", lambda: c.transaction("main").put("k", 5, token=1))
        self.refused(ValueError, "store", lambda: c.transaction(""))
        self.refused(ValueError, "at least one", lambda: c.get_all("main", {}))
        self.refused(TypeError, "token", lambda: c.get_all("main", {"k": "5"}))
        self.refused(ValueError, "twice", lambda: c.get_all("main", [("k", 1), ("k", 2)]))
        self.refused(TypeError, "tokens", lambda: c.get_all("main", "k"))
        self.refused(TypeError, "pairs", lambda: c.get_all("main", [("k",)]))
        self.assertEqual(self.server.accepted, [])


if __name__ == "__main__":
    unittest.main()
