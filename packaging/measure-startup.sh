#!/usr/bin/env bash
# Start-up time of the gateway on its embedded default: from the command's start to the first
# /health UP, and to the first applied write (a lease, then a guarded PUT), median of N runs,
# for the release archive's bin/fencegate and for the source tree's ./fencegate (already built).
#   packaging/measure-startup.sh [runs]     (default 5; needs curl and jq; dist/target/*.tar.gz built)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
port=18290
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf dist/target/fencegate-*.tar.gz -C "$tmp"
archive=$(echo "$tmp"/fencegate-*/bin/fencegate)
if [[ ! -f gateway/gateway-server/target/classpath.txt ]]; then
  echo "build the tree first: mvn -B install -DskipTests -pl gateway/gateway-server -am" >&2; exit 2
fi
touch gateway/gateway-server/target/classpath.txt   # a built tree: the launcher finds nothing to rebuild

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

measure() { # label, launcher
  local health=() write=()
  for run in $(seq 1 "$runs"); do
    local work="$tmp/work-$1-$run"; mkdir -p "$work"
    local g="http://127.0.0.1:$port"
    local start; start=$(ms)
    (cd "$work" && exec "$2" serve --port "$port" >"$work/out.log" 2>&1) &
    local pid=$!
    until [[ "$(curl -s "$g/health" | jq -r .status 2>/dev/null)" == UP ]]; do
      kill -0 "$pid" 2>/dev/null || { cat "$work/out.log" >&2; exit 1; }
      sleep 0.02
    done
    local up; up=$(ms)
    local token; token=$(curl -sf -X POST "$g/v1/leases" -d '{"lock":"main/startup","ttlMs":10000}' | jq -r .token)
    curl -sf -X PUT "$g/v1/stores/main/items/startup" -H "Fencing-Token: $token" --data-binary 1 | grep -q '"applied":true'
    local written; written=$(ms)
    kill -TERM "$pid"; wait "$pid" || true
    health+=($((up - start))); write+=($((written - start)))
    echo "$1 run $run: health UP $((up - start)) ms, first applied write $((written - start)) ms" >&2
  done
  printf '%-28s health UP median %5s ms [%s]   first write median %5s ms [%s]\n' "$1" \
    "$(printf '%s\n' "${health[@]}" | median)" "${health[*]}" "$(printf '%s\n' "${write[@]}" | median)" "${write[*]}"
}

measure "archive bin/fencegate" "$archive"
measure "source tree ./fencegate" "$PWD/fencegate"
