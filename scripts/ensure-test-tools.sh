#!/usr/bin/env bash
# Installs the programs the cli module's integration tests drive and a fresh machine lacks:
# tmux (the terminal test of ./taskmesh call) and Chromium with its WebDriver (the dashboard test).
# Run by Maven before the cli integration tests (pre-integration-test); quiet when all are there.
# Installs only as root with apt-get; otherwise it names what is missing and leaves it to the tests,
# which fail under Maven when a tool they need is absent.
set -euo pipefail

missing=()
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
# a font with it: without recommends, chromium alone draws the screenshots in docs/img as boxes
command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-dejavu-core)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-test-tools: missing ${missing[*]}; install them (apt-get install -y ${missing[*]})" >&2
  exit 0
fi
echo "ensure-test-tools: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# the package lists of a fresh machine may be empty or old: update once when a package is not known
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/ensure-test-tools.log 2>&1; then
  apt-get update -q >>/tmp/ensure-test-tools.log 2>&1
  if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/ensure-test-tools.log 2>&1; then
    tail -20 /tmp/ensure-test-tools.log >&2
    echo "ensure-test-tools: could not install ${missing[*]} (log: /tmp/ensure-test-tools.log)" >&2
    exit 1
  fi
fi
