#!/usr/bin/env bash
# The README's test command: unit + integration tests (Vitest, real Postgres, real
# sandboxes, real ONNX sessions), the tests that need the host to themselves (*.exclusive.test.ts:
# they saturate it), then browser tests (Playwright in Debian's Chromium).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh || exit 1
npm run --silent test:unit
unit=$?
# tests that saturate every core on purpose (a busy host must not change a reward), alone
npm run --silent test:exclusive
exclusive=$?
npx tsx scripts/e2e.ts
e2e=$?
if [ $unit -ne 0 ] || [ $exclusive -ne 0 ] || [ $e2e -ne 0 ]; then
  echo "tests failed: unit/integration exit $unit, exclusive (busy host) exit $exclusive, e2e exit $e2e" >&2
  exit 1
fi
