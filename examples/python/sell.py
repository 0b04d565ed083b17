#!/usr/bin/env python3
"""Sells units of one item through the fencegate gateway's HTTP API: Python 3, standard library only.

Each sale takes a lease, does a fenced read of the stock (a GET with Fencing-Token, which claims
the item for this token), then a token-guarded PUT of the stock minus one, and releases the lease.
A 409 means a newer lease holder has claimed or written the item: stop, never retry with the same
token.

    python3 sell.py http://127.0.0.1:8080 main stock/widget [units]
"""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


class Stale(Exception):
    """The gateway refused our token (409): a newer holder has claimed or written the item."""

    def __init__(self, problem):
        super().__init__(problem.get("detail", "stale token"))
        self.current_token = problem.get("currentToken")


class Gateway:
    def __init__(self, base_url, timeout=10):
        self.base = base_url.rstrip("/")
        self.timeout = timeout

    def _call(self, method, path, body=None, token=None, headers=None):
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=dict(headers or {}))
        if token is not None:
            request.add_header("Fencing-Token", str(token))
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:  # 4xx/5xx: the body is an RFC 9457 problem
            return error.code, error.read(), error.headers

    def acquire(self, lock, ttl_ms, wait_ms=0):
        """A lease as a dict (lock, leaseId, token, expiresAt), or None if the lock stayed held (423)."""
        body = json.dumps({"lock": lock, "ttlMs": ttl_ms, "waitMs": wait_ms}).encode()
        status, data, _ = self._call("POST", "/v1/leases", body, headers={"Content-Type": "application/json"})
        if status == 423:
            return None
        self._expect(status, data, 201)
        return json.loads(data)

    def release(self, lease):
        status, data, _ = self._call("DELETE", "/v1/leases/" + urllib.parse.quote(lease["leaseId"], safe=""))
        if status not in (204, 410):  # 410: it had already ended
            self._expect(status, data, 204)

    def fenced_read(self, store, key, token):
        """The item's bytes (None if missing); raises Stale if a higher token got there first."""
        status, data, _ = self._call("GET", self._item(store, key), token=token)
        if status == 404:
            return None
        if status == 409:
            raise Stale(json.loads(data))
        self._expect(status, data, 200)
        return data

    def put(self, store, key, token, value):
        status, data, _ = self._call("PUT", self._item(store, key), value, token=token,
                                     headers={"Content-Type": "application/octet-stream"})
        if status == 409:
            raise Stale(json.loads(data))
        self._expect(status, data, 200)
        return json.loads(data)

    @staticmethod
    def _item(store, key):
        # A key may hold '/': encode each segment, keep the slashes.
        return "/v1/stores/%s/items/%s" % (urllib.parse.quote(store, safe=""), urllib.parse.quote(key, safe="/"))

    @staticmethod
    def _expect(status, data, wanted):
        if status != wanted:
            raise RuntimeError("gateway answered %d: %s" % (status, data.decode(errors="replace")))


def sell_one(gateway, store, key):
    """Sells one unit under a lease of its own: True if sold, False if sold out."""
    lease = gateway.acquire(store + "/" + key, ttl_ms=10000, wait_ms=10000)  # lock = {store}/{key}
    if lease is None:
        raise RuntimeError("the lock stayed busy")
    try:
        value = gateway.fenced_read(store, key, lease["token"])
        stock = int(value) if value is not None else 0
        if stock == 0:
            return False
        written = gateway.put(store, key, lease["token"], str(stock - 1).encode())
        print("sold 1 with token %d, stock now %d (previous write: token %d)"
              % (lease["token"], stock - 1, written["previousToken"]))
        return True
    finally:
        gateway.release(lease)


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    gateway, store, key = Gateway(argv[1]), argv[2], argv[3]
    units = int(argv[4]) if len(argv) > 4 else 1
    sold = 0
    try:
        while sold < units and sell_one(gateway, store, key):
            sold += 1
    except Stale as stale:
        print("stopping: a newer holder has claimed %s (its token: %s)" % (key, stale.current_token))
    print("done: sold %d" % sold)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
