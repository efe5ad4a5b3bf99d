#!/usr/bin/env bash
# Start and stop of a dev stack of the bundled examples, as a terminal and a process manager do it:
#   scripts/dev-stop-bench.sh [INT|TERM] [runs]     (default INT, 1 run)
# Starts `./taskmesh dev` in a process group of its own (a job: set -m below), times the start to its gateway line,
# sends the signal to the whole group (a terminal's Ctrl-C sends INT to the foreground group), and
# times dev's exit and the moment the last process it started (Postgres included) is gone. Counts
# ERROR lines and restarts in dev's output. Prints the load average before and after: figures
# taken with a load over 2 (the machine's cores) are void.
# Job control is on (set -m): without it a script starts background commands with SIGINT ignored,
# dev would inherit that and INT would stop nothing (the wait below gives up after 120 s if so).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIG="${1:-INT}"
RUNS="${2:-1}"
set -m
"$ROOT/taskmesh" --version >/dev/null # builds first when sources changed: a build is not a start
now() { date +%s.%N; }
descendants() { # pid: every live descendant
  local kid
  for kid in $(pgrep -P "$1" || true); do
    echo "$kid"
    descendants "$kid"
  done
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((run = 1; run <= RUNS; run++)); do
  WORK="$(mktemp -d)"
  t0="$(now)"
  "$ROOT/taskmesh" dev --port 0 --mesh-port 0 --mesh-internal-port 0 --data "$WORK/data" >"$WORK/dev.log" 2>&1 &
  dev=$!
  until grep -q "Ctrl-C stops everything" "$WORK/dev.log"; do
    kill -0 "$dev" 2>/dev/null || { echo "dev exited before it was ready:"; tail -20 "$WORK/dev.log"; exit 1; }
    sleep 0.1
  done
  ready="$(now)"
  pids="$(descendants "$dev") $(head -1 "$WORK/data/postgres/data/postmaster.pid")"
  sleep 5 # let the start settle: stopping mid-start is another case
  t1="$(now)"
  kill -"$SIG" -- -"$dev"
  limit=$(($(date +%s) + 120))
  while kill -0 "$dev" 2>/dev/null; do
    if (($(date +%s) > limit)); then
      echo "dev still runs 120 s after $SIG (ignored signal?): stopping its group with TERM"
      kill -TERM -- -"$dev"
      limit=$(($(date +%s) + 60))
    fi
    sleep 0.05
  done
  exited="$(now)"
  for p in $pids; do
    while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
  done
  gone="$(now)"
  errors="$(grep -c -E ' ERROR |^ERROR|Exception' "$WORK/dev.log" || true)"
  restarts="$(grep -c -E 'restarting|starting it again' "$WORK/dev.log" || true)"
  awk -v s="$SIG" -v a="$t0" -v b="$ready" -v c="$t1" -v d="$exited" -v e="$gone" \
    -v n="$(wc -w <<<"$pids")" -v er="$errors" -v re="$restarts" 'BEGIN {
      printf "start to gateway line %.1f s; %s to the group: dev exited %.1f s, all %d processes gone %.1f s; ERROR lines %d, restarts %d\n",
        b - a, s, d - c, n, e - c, er, re }'
  rm -rf "$WORK"
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
