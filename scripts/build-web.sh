#!/usr/bin/env bash
# Builds the web explorer: type-checks web/src with tsc, then bundles it with Vite
# into web/dist, which `credence node` serves. Only the inputs are committed; web/dist is not.
# Needs the npm packages of package-lock.json (scripts/setup.sh runs npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/vite ] || [ ! -x node_modules/.bin/tsc ]; then
    echo "build-web: node_modules lacks vite or typescript; run scripts/setup.sh (npm ci)" >&2
    exit 1
fi
root=$PWD
cd web
"$root/node_modules/.bin/tsc" -p tsconfig.json
"$root/node_modules/.bin/vite" build --logLevel warn
echo "build-web: web/dist ($(find dist -type f | wc -l) files)"
