#!/usr/bin/env bash
# Lints the Python runtime and the example actors with flake8 (pyflakes: unused or undefined
# names, and pycodestyle). Our machines reach Debian's packages but not PyPI, so flake8 is found
# as Debian installs it (/usr/bin/python3 -m flake8), or in the Python on PATH, or installed here
# when this runs as root with apt-get; else it stops with how to install it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

find_flake8() {
  local py
  for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null && "$py" -m flake8 --version >/dev/null 2>&1; then
      echo "$py"
      return 0
    fi
  done
  return 1
}

if ! py="$(find_flake8)"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "lint: flake8 is missing; installing Debian's package flake8" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q flake8 || { apt-get update -q && apt-get install -y -q flake8; }; } >&2
  fi
  py="$(find_flake8)" || {
    echo "lint: flake8 not found. Install it: apt-get install flake8 (Debian), or pip install flake8" >&2
    exit 1
  }
fi

cd "$root"
"$py" -m flake8 --config lint/flake8.cfg runtime examples
echo "lint: flake8 found nothing in runtime/ and examples/"
