#!/usr/bin/env bash
# Start-up time of the gateway on its embedded default: from the command's start to the first
# /health UP, and to the first applied write (a lease, then a guarded PUT), median of N runs,
# for the release archive's bin/fencegate and for the source tree's ./fencegate (already built),
# interleaved run by run so that both see the same machine load.
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

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

one_run() { # label, launcher, run -> "health_ms write_ms"
  local work="$tmp/work-${1// /_}-$3"; mkdir -p "$work"
  local g="http://127.0.0.1:$port"
  # A built tree: the launcher's check finds nothing newer than its last build, and never runs Maven.
  touch gateway/gateway-server/target/classpath.txt
  local start; start=$(ms)
  (cd "$work" && exec "$2" serve --port "$port" >"$work/out.log" 2>&1) &
  local pid=$!
  until [[ "$(curl -s "$g/health" | jq -r .status 2>/dev/null)" == UP ]]; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/out.log" >&2; exit 1; }
    grep -q "building" "$work/out.log" && { echo "the launcher started a Maven build: not a built tree" >&2; kill "$pid"; exit 1; }
    sleep 0.02
  done
  local up; up=$(ms)
  local token; token=$(curl -sf -X POST "$g/v1/leases" -d '{"lock":"main/startup","ttlMs":10000}' | jq -r .token)
  curl -sf -X PUT "$g/v1/stores/main/items/startup" -H "Fencing-Token: $token" --data-binary 1 | grep -q '"applied":true'
  local written; written=$(ms)
  kill -TERM "$pid"; wait "$pid" || true
  echo "$1 run $3: health UP $((up - start)) ms, first applied write $((written - start)) ms" >&2
  echo "$((up - start)) $((written - start))"
}

labels=("archive bin/fencegate" "source tree ./fencegate")
launchers=("$archive" "$PWD/fencegate")
declare -A health write
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq 1 "$runs"); do
  for i in 0 1; do
    read -r h w < <(one_run "${labels[$i]}" "${launchers[$i]}" "$run")
    health[$i]+="$h "; write[$i]+="$w "
  done
done
for i in 0 1; do
  printf '%-26s health UP median %5s ms [%s]   first write median %5s ms [%s]\n' "${labels[$i]}" \
    "$(tr ' ' '\n' <<<"${health[$i]}" | grep . | median)" "${health[$i]% }" \
    "$(tr ' ' '\n' <<<"${write[$i]}" | grep . | median)" "${write[$i]% }"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
