"""Leases held the way the package holds them: renewed on time, told once when lost, released on exit."""
import json
import os
import signal
import subprocess
import sys
import threading
import time
import unittest

import fencegate
from _gateway import STORE, URL, client, fresh_key, lock_of

HOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "holder.py")


class LeaseTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client()

    def test_renews_while_the_main_thread_is_blocked(self) -> None:
        key = fresh_key("blocked")
        with self.client.lease(lock_of(key), ttl=1.5, wait=5) as lease:
            time.sleep(4.5)  # three ttls with the main thread asleep: only the keep-alive thread renews
            self.assertTrue(lease.held, lease)
            self.assertFalse(lease.lost.is_set())
            self.assertIsNone(self.client.acquire(lock_of(key), ttl=1, wait=0), "the gateway still holds it for us")
            self.assertIsInstance(self.client.put(STORE, key, b"1", token=lease.token), fencegate.Applied)
        self.assertFalse(lease.held)
        self.assertFalse(lease.lost.is_set(), "a release is no loss")

    def test_releases_the_lease_when_the_block_raises(self) -> None:
        key = fresh_key("raises")
        with self.assertRaises(KeyError):
            with self.client.lease(lock_of(key), ttl=10, wait=5) as lease:
                raise KeyError("the work failed")
        self.assertFalse(lease.held)
        next_one = self.client.acquire(lock_of(key), ttl=5, wait=0)
        self.assertIsNotNone(next_one, "released on the way out, not left to its ttl")
        self.assertGreater(next_one.token, lease.token)
        self.client.release(next_one.lease_id)

    def test_a_lock_still_held_after_the_wait_raises_lock_held(self) -> None:
        key = fresh_key("held")
        with self.client.lease(lock_of(key), ttl=10):
            with self.assertRaises(fencegate.LockHeld) as refused:
                self.client.lease(lock_of(key), ttl=10, wait=0.2)
            self.assertEqual(refused.exception.status, 423)

    def test_a_lease_ended_at_the_gateway_is_told_once_as_gone(self) -> None:
        key = fresh_key("gone")
        told = []
        lease = self.client.lease(lock_of(key), ttl=0.9, on_lost=lambda l, reason: told.append(reason))
        self.assertTrue(self.client.release(lease.lease_id))  # ended behind the keep-alive's back
        self.assertTrue(lease.lost.wait(5), "the next renewal hears 410")
        self.assertEqual(lease.lost.reason, fencegate.LeaseLoss.GONE)
        self.assertFalse(lease.held)
        time.sleep(0.5)
        self.assertEqual(told, [fencegate.LeaseLoss.GONE], "told exactly once")
        self.assertFalse(lease.release(), "nothing left to release")

    def test_keep_alive_keeps_a_grant_the_caller_manages(self) -> None:
        key = fresh_key("keep")
        grant = self.client.acquire(lock_of(key), ttl=1, wait=5)
        self.assertIsNotNone(grant)
        lease = self.client.keep_alive(grant)
        try:
            time.sleep(2.5)
            self.assertTrue(lease.held)
            self.assertEqual(lease.token, grant.token)
            self.assertGreater(lease.remaining, 0)
        finally:
            self.assertTrue(lease.release())
        self.assertEqual(lease.remaining, 0)

    def test_a_holder_paused_past_its_ttl_is_refused_and_told_it_lost_the_lease(self) -> None:
        key = fresh_key("paused")
        holder = subprocess.Popen([sys.executable, HOLDER, URL, key], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = _read_line(holder, 30)
            self.assertTrue(line.startswith("holding "), line)
            old_token = int(line.split()[1])
            os.kill(holder.pid, signal.SIGSTOP)  # a real pause: no thread of it runs, none renews
            newer = self.client.acquire(lock_of(key), ttl=10, wait=20)
            self.assertIsNotNone(newer, "granted once the paused holder's ttl passed")
            self.assertGreater(newer.token, old_token)
            self.assertIsInstance(self.client.get(STORE, key, token=newer.token), fencegate.NotFound)  # claims it
            os.kill(holder.pid, signal.SIGCONT)
            holder.stdin.write("write\n")
            holder.stdin.flush()
            seen = json.loads(_read_line(holder, 30))
            self.assertEqual(seen["held"], False, "past its monotonic deadline on waking: not held")
            self.assertEqual(seen["lost"], "EXPIRED")
            self.assertEqual(seen["told"], ["EXPIRED"], "told once")
            self.assertEqual(seen["outcome"], "Stale", "its late write is refused")
            self.assertEqual(seen["fence"], newer.token)
            holder.stdin.close()
            self.assertEqual(holder.wait(30), 0, holder.stderr.read())
            self.assertIsInstance(self.client.get(STORE, key), fencegate.NotFound, "the late write left nothing")
            self.client.release(newer.lease_id)
        finally:
            if holder.poll() is None:
                os.kill(holder.pid, signal.SIGCONT)
                holder.kill()
                holder.wait(10)
            for stream in (holder.stdin, holder.stdout, holder.stderr):
                if stream and not stream.closed:
                    stream.close()


def _read_line(process: subprocess.Popen, seconds: float) -> str:
    """The next line the process prints, or a failure naming what it said on stderr."""
    found = []
    reader = threading.Thread(target=lambda: found.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    if not found or not found[0]:
        raise AssertionError("no line from the holder in %s s; exit %s" % (seconds, process.poll()))
    return found[0].strip()


if __name__ == "__main__":
    unittest.main()
