"""Guarded PUTs through the Python client, or a plain http.client loop on the same route, from
CONCURRENCY threads: run by the bench (ClientLanguages), one measurement per run.

    python_writes.py URL STORE TOKEN client|plain CONCURRENCY WARM_UP_S MEASURE_S KEYS

Prints one JSON line: {"ops": N, "seconds": S, "latenciesMicros": [...]} (measured operations only).
The plain loop is what a user writes with the standard library: one keep-alive HTTPConnection per
thread, the Fencing-Token header, the status checked.
"""
import http.client
import json
import random
import sys
import threading
import time
from urllib.parse import urlsplit

import fencegate

VALUE = bytes(range(100))  # 100 bytes, as the other write benchmarks


def main() -> None:
    url, store, token, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    concurrency, warm_up, measure, keys = int(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7]), int(sys.argv[8])
    record_from = time.monotonic() + warm_up
    stop_at = record_from + measure
    latencies = [[] for _ in range(concurrency)]
    failures = []

    def worker(slot: int) -> None:
        put = client_put(url, store, token) if mode == "client" else plain_put(url, store, token)
        mine = latencies[slot]
        try:
            while True:
                key = "k%d" % random.randint(1, keys)
                before = time.monotonic()
                if before >= stop_at and (mine or before >= stop_at + 30):
                    return
                put(key)
                if before >= record_from:
                    mine.append(int((time.monotonic() - before) * 1e6))
        except Exception as e:  # reported, and the run fails
            failures.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        print(failures[0], file=sys.stderr)
        sys.exit(1)
    seconds = max(stop_at, time.monotonic()) - record_from
    everything = [v for slot in latencies for v in slot]
    print(json.dumps({"ops": len(everything), "seconds": seconds, "latenciesMicros": everything}))


def client_put(url: str, store: str, token: int):
    client = fencegate.Client(url, timeout=30)

    def put(key: str) -> None:
        outcome = client.put(store, key, VALUE, token=token)
        if not isinstance(outcome, fencegate.Applied):
            raise RuntimeError("not applied: %r" % (outcome,))
    return put


def plain_put(url: str, store: str, token: int):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    headers = {"Fencing-Token": str(token), "Content-Type": "application/octet-stream"}

    def put(key: str) -> None:
        conn.request("PUT", "/v1/stores/%s/items/%s" % (store, key), body=VALUE, headers=headers)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError("PUT answered %d: %r" % (response.status, body[:200]))
    return put


if __name__ == "__main__":
    main()
