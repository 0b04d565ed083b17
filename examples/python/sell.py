#!/usr/bin/env python3
"""Sells units of one item through the fencegate gateway with the fencegate package
(pip install ../../clients/python).

Each sale holds a lease, renewed in the background while it works, does a fenced read of the stock
(which claims the item for the lease's token), then writes the stock minus one with the same
token, and releases the lease on the way out. A Stale answer means a newer lease holder has claimed
or written the item: stop, never retry with the same token. A lease found lost before the write
(lease.held is false: renewals failed, or this process was paused past its ttl) stops too.

    python3 sell.py http://127.0.0.1:8080 main stock/widget [units]
"""
import sys

import fencegate


class Stop(Exception):
    """This seller must stop: a newer holder got there first, or the lease was lost."""


def sell_one(client: fencegate.Client, store: str, key: str) -> bool:
    """Sells one unit under a lease of its own: True if sold, False if sold out."""
    with client.lease(store + "/" + key, ttl=10, wait=10) as lease:  # lock = {store}/{key}
        read = client.get(store, key, token=lease.token)
        if isinstance(read, fencegate.Stale):
            raise Stop("a newer holder has claimed %s (its token: %d)" % (key, read.fence))
        stock = int(read.value) if isinstance(read, fencegate.Value) else 0
        if stock == 0:
            return False
        if not lease.held:
            raise Stop("lease lost before the write: %s" % lease.lost.reason)
        written = client.put(store, key, str(stock - 1), token=lease.token)
        if isinstance(written, fencegate.Stale):
            raise Stop("a newer holder has claimed %s (its token: %d)" % (key, written.fence))
        print("sold 1 with token %d, stock now %d (previous write: token %d)"
              % (lease.token, stock - 1, written.previous_token))
        return True


def main(argv: list) -> int:
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    client, store, key = fencegate.Client(argv[1], timeout=10), argv[2], argv[3]
    units = int(argv[4]) if len(argv) > 4 else 1
    sold = 0
    try:
        while sold < units and sell_one(client, store, key):
            sold += 1
    except Stop as stop:
        print("stopping: %s" % stop)
    print("done: sold %d" % sold)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
