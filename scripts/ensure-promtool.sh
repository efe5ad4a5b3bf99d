#!/usr/bin/env bash
# Prints the path of a promtool (Prometheus' rule and query checker), fetching one when none is
# there. Used by the build (cli's PrometheusRulesTest) to test compose/prometheus/rules.yml and the
# Grafana dashboard's queries. Looks, in order, at:
#   1. $PROMTOOL, then promtool on PATH;
#   2. the copy this script extracted before: ${TASKMESH_TOOLS:-~/.cache/taskmesh/tools}/promtool;
#   3. Debian's prometheus package: downloaded with apt-get download (no root, no dependencies,
#      about 19 MB) and only usr/bin/promtool extracted from it (one static-ish binary, libc only).
#      Lighter than apt-get install -y prometheus (96 MB, a service user, JavaScript packages).
# Exit 1 with what to install when none of these works.
set -euo pipefail

if [ -n "${PROMTOOL:-}" ] && [ -x "$PROMTOOL" ]; then
  echo "$PROMTOOL"
  exit 0
fi
if command -v promtool >/dev/null 2>&1; then
  command -v promtool
  exit 0
fi
CACHE="${TASKMESH_TOOLS:-$HOME/.cache/taskmesh/tools}"
if [ -x "$CACHE/promtool" ]; then
  echo "$CACHE/promtool"
  exit 0
fi

missing() {
  echo "ensure-promtool: promtool is missing ($1). Install Debian's prometheus package" \
    "(apt-get install -y prometheus), or put promtool from a Prometheus release on PATH," \
    "or set PROMTOOL to its path." >&2
  exit 1
}
command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 ||
  missing "no apt-get here to fetch it"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
log="$WORK/apt.log"
fetch() { (cd "$WORK" && apt-get download -q prometheus) >>"$log" 2>&1; }
# a fresh machine's package lists may be empty or old: update once (as root) when the download fails
if ! fetch; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q >>"$log" 2>&1 || true
  fi
  fetch || { tail -5 "$log" >&2; missing "apt-get download prometheus failed"; }
fi
mkdir -p "$CACHE"
dpkg-deb --fsys-tarfile "$WORK"/prometheus_*.deb | tar -x -C "$WORK" ./usr/bin/promtool
mv "$WORK/usr/bin/promtool" "$CACHE/promtool.tmp.$$"
mv "$CACHE/promtool.tmp.$$" "$CACHE/promtool" # atomic: a parallel run sees all of it or none
echo "ensure-promtool: extracted $("$CACHE/promtool" --version 2>&1 | head -1) to $CACHE/promtool" >&2
echo "$CACHE/promtool"
