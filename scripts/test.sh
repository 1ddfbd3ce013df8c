#!/usr/bin/env bash
# The README's test command, in phases (Vitest projects in vitest.config.ts, named by file suffix):
#   unit         *.unit.test.ts: pure code, no Postgres, no sandboxes (seconds)
#   integration  *.test.ts and *.system.test.ts: real Postgres, sandboxes, ONNX sessions; several
#                processes and learning runs (system); one pool of forks, longest files first
#   exclusive    *.exclusive.test.ts: tests that saturate every core on purpose (a busy host must
#                not change a reward), alone, one file at a time, after the rest
#   e2e          Playwright in Debian's Chromium against the built app
# Every phase runs even when an earlier one fails; the summary names the failures.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh || exit 1
failed=()
timings=()
phase() {
  local name=$1 start=$SECONDS
  shift
  echo "── test phase: $name" >&2
  "$@" || failed+=("$name")
  timings+=("$name $((SECONDS - start))s")
}
phase unit npx vitest run --project unit
phase integration+system npx vitest run --project integration --project system
phase exclusive npx vitest run --project exclusive
phase e2e npx tsx scripts/e2e.ts
(IFS=,; echo "test phases: ${timings[*]}" >&2)
if [ ${#failed[@]} -ne 0 ]; then
  echo "tests failed: ${failed[*]}" >&2
  exit 1
fi
