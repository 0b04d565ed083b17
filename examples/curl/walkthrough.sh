#!/usr/bin/env bash
# README's walkthrough: a read-modify-write that a paused holder cannot break (curl and jq).
# Run it against a running gateway: ./fencegate serve, then bash examples/curl/walkthrough.sh
# (FENCEGATE=http://host:port to point elsewhere). WalkthroughIT runs this file and checks that
# README.md shows it as it is, from the line after this header to the end.
set -euo pipefail

G=${FENCEGATE:-http://127.0.0.1:8080}
lease() { curl -sf -X POST "$G/v1/leases" -d "{\"lock\":\"main/stock/widget\",\"ttlMs\":$1}"; }

# Stock one widget. The lock guarding an item is {store}/{key}.
L=$(lease 10000); T=$(jq -r .token <<<"$L")
curl -sf -X PUT "$G/v1/stores/main/items/stock/widget" -H "Fencing-Token: $T" --data-binary 1; echo
curl -sf -X DELETE "$G/v1/leases/$(jq -r .leaseId <<<"$L")"

# Holder A: a 1 s lease, a fenced read (stock = 1), then a pause past its ttl.
A=$(lease 1000); A_TOKEN=$(jq -r .token <<<"$A")
echo "A reads: $(curl -sf "$G/v1/stores/main/items/stock/widget" -H "Fencing-Token: $A_TOKEN")"
sleep 2

# Holder B: the lock is free again; B's fenced read claims the item, B sells the widget.
B=$(lease 10000); B_TOKEN=$(jq -r .token <<<"$B")
echo "B reads: $(curl -sf "$G/v1/stores/main/items/stock/widget" -H "Fencing-Token: $B_TOKEN")"
curl -sf -X PUT "$G/v1/stores/main/items/stock/widget" -H "Fencing-Token: $B_TOKEN" --data-binary 0; echo

# A wakes up and sells the same widget: refused, 409, with the item's token and fence.
curl -s -w ' -> %{http_code}\n' -X PUT "$G/v1/stores/main/items/stock/widget" -H "Fencing-Token: $A_TOKEN" --data-binary 0
curl -sf -X DELETE "$G/v1/leases/$(jq -r .leaseId <<<"$B")"
echo "stock: $(curl -sf "$G/v1/stores/main/items/stock/widget")"
