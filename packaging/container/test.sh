#!/usr/bin/env bash
# Builds the container image from the release archive (dist/target/fencegate-*.tar.gz) on a base
# assembled offline (base.sh), then runs two containers on the shared PostgreSQL (own schema:
# store and the Redis issuer's token mark) and the shared Redis (own key prefix), on two ports:
# a lease from one, writes through the other, the stale write refused; the HEALTHCHECK passes;
# a third runs the image's default config (the embedded default in its volume); `podman stop`
# (SIGTERM) drains all three. Fails, never skips, when it cannot run. Needs root.
#   bash packaging/container/test.sh        (after `mvn -B package` or `install`)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
started=$(date +%s)
fail() { echo "container test: FAILED: $*" >&2; exit 1; }

missing=()
for tool in podman runc debootstrap curl jq psql redis-cli; do command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || missing+=("$tool"); done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "container test: installing ${missing[*]}"
  pkgs=("${missing[@]/psql/postgresql-client}"); pkgs=("${pkgs[@]/redis-cli/redis-tools}")
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi
. "$here/podman.env"

archive=$(ls "$repo"/dist/target/fencegate-*.tar.gz 2>/dev/null | head -n1) || true
[[ -f "$archive" ]] || fail "no release archive in dist/target: run mvn -B package first"
version=$(basename "$archive" .tar.gz); version=${version#fencegate-}

base=$("$here/base.sh") || fail "could not assemble the base image"
ctx=$(mktemp -d)
run_id="ct$$"
schema="fencegate_container_$run_id"
prefix="fencegate-container-$run_id:"
names=("fencegate-$run_id-1" "fencegate-$run_id-2" "fencegate-$run_id-default")
ports=(18471 18472 18473)
cleanup() {
  for n in "${names[@]}"; do pod rm -f -t 0 "$n" >/dev/null 2>&1 || true; pod volume rm -f "$n" >/dev/null 2>&1 || true; done
  psql -h 127.0.0.1 -U postgres -d test -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  redis-cli -h 127.0.0.1 --scan --pattern "$prefix*" | xargs -r redis-cli -h 127.0.0.1 del >/dev/null 2>&1 || true
  rm -rf "$ctx"
}
trap cleanup EXIT

tar -xzf "$archive" -C "$ctx"
cp "$here/Containerfile" "$here/fencegate.yaml" "$ctx/"
image="localhost/fencegate:$version"
pod build -q --format docker --network=host --build-arg BASE="$base" --build-arg VERSION="$version" \
  -f "$ctx/Containerfile" -t "$image" "$ctx" >/dev/null || fail "podman build"

# Both gateways share the store (own schema) and the Redis issuer (own key prefix, its durable
# token mark a row in the same schema).
psql -h 127.0.0.1 -U postgres -d test -qc "CREATE SCHEMA $schema" >/dev/null
cat >"$ctx/shared.yaml" <<YAML
server: { host: 127.0.0.1, port: 8080 }
issuer:
  type: redis
  uri: redis://127.0.0.1:6379
  keyPrefix: "$prefix"
  highWaterMarkUrl: jdbc:postgresql://127.0.0.1:5432/test?currentSchema=$schema
  highWaterMarkUser: postgres
stores:
  main:
    type: postgres
    host: 127.0.0.1
    database: test
    schema: $schema
    user: postgres
YAML
chmod 644 "$ctx/shared.yaml"
for i in 0 1; do
  # --health-interval=disable: no systemd timer here; `podman healthcheck run` checks it below.
  pod run -d --name "${names[$i]}" --network=host --health-interval=disable -v "${names[$i]}:/var/lib/fencegate" \
    -v "$ctx/shared.yaml:/etc/fencegate/fencegate.yaml:ro" -e FENCEGATE_SERVER_PORT="${ports[$i]}" \
    "$image" >/dev/null || fail "podman run ${names[$i]}"
done
# The image as shipped: its own config, data in its volume.
pod run -d --name "${names[2]}" --network=host --health-interval=disable -v "${names[2]}:/var/lib/fencegate" \
  -e FENCEGATE_SERVER_PORT="${ports[2]}" "$image" >/dev/null || fail "podman run ${names[2]}"
for i in 0 1 2; do
  for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:${ports[$i]}/health" >/dev/null && break
    [[ "$(pod inspect -f '{{.State.Running}}' "${names[$i]}")" == true ]] || { pod logs "${names[$i]}" >&2; fail "${names[$i]} exited"; }
    sleep 0.5
  done
  curl -sf "http://127.0.0.1:${ports[$i]}/health" >/dev/null || { pod logs "${names[$i]}" >&2; fail "${names[$i]} not healthy"; }
  pod healthcheck run "${names[$i]}" >/dev/null || fail "HEALTHCHECK of ${names[$i]}"
done
[[ "$(pod exec "${names[0]}" id -u)" != 0 ]] || fail "the gateway runs as root"

G1="http://127.0.0.1:${ports[0]}"; G2="http://127.0.0.1:${ports[1]}"
item="/v1/stores/main/items/stock/widget"
lease() { curl -sf -X POST "$1/v1/leases" -d "{\"lock\":\"main/stock/widget\",\"ttlMs\":$2}"; }
# A lease from gateway 1, its write through gateway 2, released through gateway 2.
L=$(lease "$G1" 10000); T=$(jq -r .token <<<"$L")
curl -sf -X PUT "$G2$item" -H "Fencing-Token: $T" --data-binary 1 | grep -q '"applied":true' || fail "write through the other gateway"
curl -sf -X DELETE "$G2/v1/leases/$(jq -r .leaseId <<<"$L")" || fail "release through the other gateway"
# Holder A (gateway 1) reads, pauses past its ttl; B (gateway 2) reads and sells; A's write is refused.
A=$(lease "$G1" 1000); A_TOKEN=$(jq -r .token <<<"$A")
[[ "$(curl -sf "$G1$item" -H "Fencing-Token: $A_TOKEN")" == 1 ]] || fail "A's fenced read"
sleep 1.5
B=$(lease "$G2" 10000); B_TOKEN=$(jq -r .token <<<"$B")
[[ "$(curl -sf "$G2$item" -H "Fencing-Token: $B_TOKEN")" == 1 ]] || fail "B's fenced read"
curl -sf -X PUT "$G2$item" -H "Fencing-Token: $B_TOKEN" --data-binary 0 | grep -q '"applied":true' || fail "B's write"
stale=$(curl -s -o /dev/null -w '%{http_code}' -X PUT "$G1$item" -H "Fencing-Token: $A_TOKEN" --data-binary 0)
[[ "$stale" == 409 ]] || fail "A's stale write answered $stale, not 409"
[[ "$(curl -sf "$G1$item")" == 0 ]] || fail "stock is not 0"
echo "container test: lease on one gateway, write through the other, stale write refused (409)"

# SIGTERM: both drain and stop well inside podman's grace period.
pod stop -t 30 "${names[@]}" >/dev/null
for n in "${names[@]}"; do
  logs=$(pod logs "$n" 2>&1)
  grep -q "fencegate stopping: draining requests in flight" <<<"$logs" && grep -q "fencegate stopped" <<<"$logs" \
    || { echo "$logs" >&2; fail "$n did not drain on SIGTERM"; }
  code=$(pod inspect -f '{{.State.ExitCode}}' "$n")
  [[ "$code" == 143 ]] || fail "$n exited with $code, not 143 (SIGTERM)"
done
echo "container test: passed in $(( $(date +%s) - started )) s (image $image on $base)"
