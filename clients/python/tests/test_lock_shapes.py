"""Read leases and semaphore permits against a real gateway: shared reads, read tokens that never
write, permits that take slots in turn and run out."""
import unittest

import fencegate
from _gateway import STORE, client, fresh_key, lock_of


class LockShapesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client()

    def test_two_read_leases_share_a_lock_and_keep_a_writer_out(self) -> None:
        key = fresh_key("shared")
        with self.client.lease(lock_of(key), ttl=10, mode="read") as first, \
                self.client.lease(lock_of(key), ttl=10, mode="read") as second:
            self.assertEqual((first.mode, second.mode), ("read", "read"))
            self.assertTrue(first.held and second.held)
            self.assertIsNone(first.slot)
            self.assertGreater(second.token, first.token, "every grant takes the lock's next token")
            self.assertIsInstance(self.client.get(STORE, key, token=second.token), fencegate.NotFound,
                                  "a read token makes fenced reads")
            self.assertIsNone(self.client.acquire(lock_of(key), ttl=5, wait=0), "no writer beside readers")
        writer = self.client.acquire(lock_of(key), ttl=5, wait=5)
        self.assertIsNotNone(writer, "the readers released the lock on leaving the block")
        self.assertEqual(writer.mode, "write")
        self.client.release(writer.lease_id)

    def test_a_read_token_is_refused_every_write_and_nothing_changes(self) -> None:
        key = fresh_key("read-token")
        with self.client.lease(lock_of(key), ttl=10) as writer:
            self.assertEqual(writer.mode, "write")
            self.assertIsInstance(self.client.put(STORE, key, b"before", token=writer.token), fencegate.Applied)
        with self.client.lease(lock_of(key), ttl=10, wait=5, mode="read") as reader:
            for write in (lambda: self.client.put(STORE, key, b"after", token=reader.token),
                          lambda: self.client.delete(STORE, key, token=reader.token)):
                with self.assertRaises(fencegate.ProblemError) as refused:
                    write()
                self.assertEqual(refused.exception.status, 403)
                self.assertEqual(refused.exception.type, "urn:fencegate:problem:read-token")
                self.assertEqual(refused.exception.kind, "read-token")
        read = self.client.get(STORE, key)
        self.assertEqual((read.value, read.token), (b"before", writer.token), "nothing was written")

    def test_a_permit_takes_slot_0_then_1_and_the_third_waits_then_gets_none(self) -> None:
        semaphore = lock_of(fresh_key("pool"))
        with self.client.permit(semaphore, permits=2, ttl=10) as p0, \
                self.client.permit(semaphore, permits=2, ttl=10) as p1:
            self.assertEqual([(p.slot, p.lock, p.mode) for p in (p0, p1)],
                             [(0, semaphore + "/0", "write"), (1, semaphore + "/1", "write")])
            self.assertTrue(p0.held and p1.held)
            slot_key = semaphore[len(STORE) + 1:] + "/1"
            self.assertIsInstance(self.client.put(STORE, slot_key, b"busy", token=p1.token), fencegate.Applied,
                                  "a permit's token writes its slot's item")
            with self.assertRaises(fencegate.LockHeld) as none_free:
                self.client.permit(semaphore, permits=2, ttl=10, wait=0.3)
            self.assertEqual(none_free.exception.status, 423)
            self.assertIsNone(self.client.acquire_permit(semaphore, permits=2, ttl=10, wait=0))
            with self.assertRaises(fencegate.ProblemError) as resized:
                self.client.acquire_permit(semaphore, permits=3, ttl=10)
            self.assertEqual(resized.exception.status, 400, "the count is the semaphore's first")
        again = self.client.acquire_permit(semaphore, permits=2, ttl=5, wait=5)
        self.assertEqual(again.slot, 0, "released on leaving the block")
        self.client.release(again.lease_id)


if __name__ == "__main__":
    unittest.main()
