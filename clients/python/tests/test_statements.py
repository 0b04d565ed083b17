"""Named statements (gateway.yaml's `note` on store main) run under the key's guard row."""
import unittest

import fencegate
from _gateway import STORE, client, fresh_key, lock_of


class StatementTest(unittest.TestCase):
    def test_a_statement_runs_under_the_guard_row_and_a_lower_token_is_stale(self) -> None:
        c = client()
        key = fresh_key("statement")
        older = c.acquire(lock_of(key), ttl=0.5)
        with c.lease(lock_of(key), ttl=10, wait=10) as newer:
            done = c.statement(STORE, "note", key=key, token=newer.token, params={"id": key, "note": "newer"})
            self.assertIsInstance(done, fencegate.Executed)
            self.assertEqual((done.token, done.rows), (newer.token, 1))
            late = c.statement(STORE, "note", key=key, token=older.token, params={"id": key + "/late", "note": "older"})
            self.assertEqual(late, fencegate.Stale(current_token=newer.token, fence=newer.token,
                                                   attempted_token=older.token))


if __name__ == "__main__":
    unittest.main()
