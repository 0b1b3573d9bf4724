#!/usr/bin/env bash
# npm test: lint, then the type check and the test run side by side. The test run keeps both
# cores busy only part of the time (its tests wait on servers, queues and child processes); the
# type check takes one core for about 20 s, which it finds idle beside them. Fails when either fails.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
npx biome check . || exit 1
npx tsc --noEmit -p tsconfig.json > .tmp/typecheck.log 2>&1 &
typecheck=$!
npx vitest run
tests=$?
if wait "$typecheck"; then
  echo "typecheck: no errors"
else
  echo "typecheck failed:"
  cat .tmp/typecheck.log
  exit 1
fi
exit "$tests"
