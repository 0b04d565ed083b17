"""A lease holder in a process of its own, for the pause test: it takes a lease on argv[2] (key of
store main) with a 1 s ttl, says "holding <token>", then on each "write" line from stdin tries to
write and says what it saw as one JSON line."""
import json
import logging
import sys

import fencegate

logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
url, key = sys.argv[1], sys.argv[2]
client = fencegate.Client(url, timeout=5)
told = []
with client.lease("main/" + key, ttl=1, wait=10, on_lost=lambda lease, reason: told.append(reason.name)) as lease:
    print("holding %d" % lease.token, flush=True)
    for line in sys.stdin:
        held = lease.held  # read before the write: a holder that checks stops here
        outcome = client.put("main", key, b"late", token=lease.token)
        lease.lost.wait(5)
        print(json.dumps({"held": held, "lost": lease.lost.reason.name if lease.lost.reason else None,
                          "told": told, "outcome": type(outcome).__name__,
                          "fence": getattr(outcome, "fence", None)}), flush=True)
