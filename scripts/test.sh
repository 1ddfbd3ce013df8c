#!/usr/bin/env bash
# The README's test command: unit + integration tests (Vitest, real Postgres, real
# sandboxes, real ONNX sessions), then browser tests (Playwright in Debian's Chromium).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh || exit 1
npx vitest run
unit=$?
npx tsx scripts/e2e.ts
e2e=$?
if [ $unit -ne 0 ] || [ $e2e -ne 0 ]; then
  echo "tests failed: unit/integration exit $unit, e2e exit $e2e" >&2
  exit 1
fi
