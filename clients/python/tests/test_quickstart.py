"""README's quickstart, run as printed (only the gateway's address changed) in a process of its own."""
import os
import re
import subprocess
import sys
import unittest

import fencegate
from _gateway import STORE, URL, client

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def quickstart() -> str:
    with open(README, encoding="utf-8") as f:
        text = f.read()
    found = re.search(r"<!-- quickstart:begin -->\s*```python\n(.*?)```\s*<!-- quickstart:end -->", text, re.S)
    if not found:
        raise AssertionError("README.md has no quickstart block")
    return found.group(1)


class QuickstartTest(unittest.TestCase):
    def test_the_quickstart_sells_one_unit_under_a_renewed_lease(self) -> None:
        code = quickstart()
        self.assertLessEqual(len(code.strip().splitlines()), 10, "a 10-line quickstart")
        c = client()
        with c.lease("main/stock/widget", ttl=10, wait=10) as lease:
            c.put(STORE, "stock/widget", b"3", token=lease.token)
        run = subprocess.run([sys.executable, "-c", code.replace("http://127.0.0.1:8080", URL)],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("sold one: Applied(", run.stdout)
        self.assertIn("stock was 3", run.stdout)
        self.assertEqual(c.get(STORE, "stock/widget").value, b"2")
        self.assertIsNotNone(c.acquire("main/stock/widget", ttl=1, wait=0), "released on exit")


if __name__ == "__main__":
    unittest.main()
