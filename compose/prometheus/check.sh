#!/usr/bin/env bash
# Scrapes a running taskmesh dev stack with a real Prometheus server that loads rules.yml (beside
# this script) and asks it whether the stack is healthy: the recording rules' answers and no alert
# pending or firing. Installs Debian's prometheus package if missing. URLs that serve one registry
# (a dev stack's gateway and mesh-api: one JVM) are scraped once, so no task is counted twice.
#
#   compose/prometheus/check.sh                      # starts ./taskmesh dev on free ports, then stops it
#   compose/prometheus/check.sh http://127.0.0.1:8000 [http://127.0.0.1:8080]
#                                                    # a dev stack that already runs (gateway, mesh-api)
#
# Exit 0 when every target is up and every health query answers as expected; 1 otherwise.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="$(mktemp -d)"
PROM_PORT="${PROM_PORT:-9099}"
DEV_PID=""
PROM_PID=""

cleanup() {
  [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null || true
  [ -n "$DEV_PID" ] && kill -TERM "$DEV_PID" 2>/dev/null && wait "$DEV_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  echo "check: installing Debian's prometheus package" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y prometheus >/dev/null
fi
echo "check: $(prometheus --version 2>&1 | head -1)"

GATEWAY="${1:-}"
MESH_API="${2:-}"
if [ -z "$GATEWAY" ]; then
  echo "check: starting ./taskmesh dev (data in $WORK/data)"
  "$ROOT/taskmesh" dev --port 0 --mesh-port 0 --mesh-internal-port 0 --data "$WORK/data" >"$WORK/dev.log" 2>&1 &
  DEV_PID=$!
  for _ in $(seq 1 600); do
    GATEWAY="$(sed -n 's/^gateway: \(http[^ ]*\).*/\1/p' "$WORK/dev.log" | head -1)"
    MESH_API="$(sed -n 's/^mesh-api: \(http[^ ]*\).*/\1/p' "$WORK/dev.log" | head -1)"
    [ -n "$GATEWAY" ] && curl -fsS "$GATEWAY/ready" >/dev/null 2>&1 && break
    kill -0 "$DEV_PID" 2>/dev/null || { cat "$WORK/dev.log"; echo "check: dev stopped" >&2; exit 1; }
    sleep 0.5
  done
fi
[ -n "$GATEWAY" ] || { echo "check: no gateway URL" >&2; exit 1; }
echo "check: gateway $GATEWAY, mesh-api ${MESH_API:-none}"
echo "check: gateway /ready -> $(curl -sS "$GATEWAY/ready")"

run_tasks() { # n: start n shout tasks and wait until each is final
  local ids=() id
  for _ in $(seq 1 "$1"); do
    id="$(curl -fsS "$GATEWAY/tools/call" -H 'Content-Type: application/json' \
      -d '{"name":"shout","arguments":{"text":"prometheus check"}}' |
      python3 -c 'import json,sys; print(json.loads(json.load(sys.stdin)["content"][0]["text"])["task_id"])')"
    ids+=("$id")
  done
  for id in "${ids[@]}"; do
    for _ in $(seq 1 120); do
      curl -fsS "$GATEWAY/tasks/$id" 2>/dev/null | grep -qE '"status":"(succeeded|failed|canceled)"' && break
      sleep 0.5
    done
  done
}
# one task first, so every series exists for the linter
run_tasks 1

# the naming conventions, checked by Prometheus' own linter on the text exposition
curl -fsS "$GATEWAY/metrics" >"$WORK/metrics.txt"
echo "check: promtool check metrics (taskmesh_* only):"
grep -E '^(# (HELP|TYPE) )?taskmesh_' "$WORK/metrics.txt" | promtool check metrics && echo "  no problems"

for prefix in taskmesh_ jvm_ kafka_consumer_ kafka_producer_ kafka_stream_; do
  printf 'check: %-16s %4s series\n' "$prefix" "$(grep -c "^$prefix" "$WORK/metrics.txt" || true)"
done
grep -o '^kafka_stream_[a-z_]*alive[a-z_]*' "$WORK/metrics.txt" | sort -u | sed 's/^/check: /' || true

target() { printf '%s' "$1" | sed 's|^https\?://||; s|/.*$||'; }
# which registry a URL serves: its host and its JVM's start time (UptimeMetrics, to the
# millisecond). Two URLs with the same answer are one registry: a dev stack is one JVM whose
# gateway and mesh-api serve the same /metrics, and scraping both would count every task twice.
registry() {
  local host start
  host="$(target "$1" | sed 's|:[0-9]*$||')"
  start="$(curl -fsS "$1/metrics" | sed -n 's/^process_start_time_seconds \(.*\)$/\1/p' | head -1)"
  printf '%s@%s' "${start:-$1}" "$host"
}
GATEWAY_REGISTRY="$(registry "$GATEWAY")"
if [ -n "$MESH_API" ] && [ "$(registry "$MESH_API")" = "$GATEWAY_REGISTRY" ]; then
  echo "check: mesh-api serves the gateway's registry (one process): scraping it once"
  SCRAPE_MESH_API=""
else
  SCRAPE_MESH_API="$MESH_API"
fi
{
  echo "global: {scrape_interval: 2s, evaluation_interval: 2s}"
  echo "rule_files: ['$ROOT/compose/prometheus/rules.yml']"
  echo "scrape_configs:"
  echo "  - job_name: taskmesh-gateway"
  echo "    static_configs: [{targets: ['$(target "$GATEWAY")']}]"
  if [ -n "$SCRAPE_MESH_API" ]; then
    echo "  - job_name: taskmesh-mesh-api"
    echo "    static_configs: [{targets: ['$(target "$SCRAPE_MESH_API")']}]"
  fi
} >"$WORK/prometheus.yml"
promtool check config "$WORK/prometheus.yml" >/dev/null
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PROM_PID=$!
API="http://127.0.0.1:$PROM_PORT/api/v1/query"

query() { curl -fsS --get "$API" --data-urlencode "query=$1"; }
# the first value of an instant query's result, or "none"
value() { query "$1" | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'; }

for _ in $(seq 1 60); do
  [ "$(value 'count(taskmesh_tasks_finished_total)' 2>/dev/null || echo none)" != none ] && \
    [ "$(value 'min(up)' 2>/dev/null || echo none)" = 1 ] && break
  sleep 1
done
# tasks while Prometheus watches, so rate() and the histograms have something to show
run_tasks 10
sleep 6 # three more scrapes
[ -n "$MESH_API" ] && echo "check: mesh-api /ready -> $(curl -sS "$MESH_API/ready")"

failures=0
check() { # name, query, python condition on v (a float, or None when the query returned nothing)
  local v
  v="$(value "$2")"
  if python3 -c "import sys; v=None if '$v'=='none' else float('$v'); sys.exit(0 if ($3) else 1)"; then
    printf '  ok    %-38s %-12s %s\n' "$1" "$v" "$2"
  else
    printf '  FAIL  %-38s %-12s %s\n' "$1" "$v" "$2"
    failures=$((failures + 1))
  fi
}
echo "check: Prometheus queries (the recording rules of rules.yml, and raw counts)"
check "every target up" 'min(up)' 'v == 1'
check "tasks finished (any status)" 'sum(taskmesh_tasks_finished_total)' 'v is not None and v >= 11'
check "failed counter born at 0" 'count(taskmesh_tasks_finished_total{flow="shout",status="failed"})' 'v == 1'
check "tasks in flight" 'sum(flow:taskmesh_tasks_in_flight)' 'v == 0'
check "task failure ratio (5m)" 'taskmesh_task_failure_ratio:rate5m' 'v is not None and v <= 0.05'
check "p99 task duration, shout (s)" 'flow:taskmesh_task_duration_seconds:p99_5m{flow="shout"}' 'v is None or v < 30'
check "envelopes dead-lettered or timed out" 'sum(taskmesh_actor_envelopes_total{outcome=~"dlq|timeout"})' 'v == 0'
check "largest actor consumer lag (records)" 'max(actor:taskmesh_actor_consumer_lag_records:max)' 'v is not None and v < 1000'
check "p99 runtime call (s)" 'max(actor:taskmesh_actor_runtime_call_duration_seconds:p99_5m)' 'v is None or v < 10'
check "p99 commit (s)" 'max(actor:taskmesh_actor_commit_duration_seconds:p99_5m)' 'v is None or v < 1'
check "heap used / max" 'max(instance:jvm_heap_used:ratio)' 'v is not None and v < 0.9'
check "Streams threads alive" 'sum(kafka_stream_alive_stream_threads)' 'v is not None and v >= 1'
# the alerting rules: none pending or firing (those with a 'for' cannot fire in a run this short,
# but they show as pending as soon as their condition holds)
check "alerts pending or firing" 'count(ALERTS)' 'v is None'
query 'ALERTS' | python3 -c 'import json,sys; [print("  alert", r["metric"]) for r in json.load(sys.stdin)["data"]["result"]]'

if [ "$failures" -gt 0 ]; then
  echo "check: $failures query(ies) failed"
  exit 1
fi
echo "check: healthy"
