#!/usr/bin/env bash
# Lints the dashboard's script with eslint (pinned in lint/package.json, installed here with
# npm ci the first time and again whenever package-lock.json changes).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"

command -v npm >/dev/null || {
  echo "lint: npm not found. Install Node.js 20 or newer with npm (Debian: apt-get install nodejs npm)" >&2
  exit 1
}
stamp="$here/node_modules/.taskmesh-lock.json"
if ! cmp -s "$here/package-lock.json" "$stamp"; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$here/package-lock.json" "$stamp"
fi

cd "$root"
"$here/node_modules/.bin/eslint" -c lint/eslint.config.mjs --max-warnings=0 \
  gateway-http/src/main/resources/io/taskmesh/gateway/ui/app.js
echo "lint: eslint found nothing in the dashboard's app.js"
