#!/usr/bin/env bash
# `npm test`: static checks, then the whole jest suite (unit, integration, workflow, end-to-end)
# against a real stack started once for the run on the test profile (ports +100, data in
# .data/test), so it can run beside `npm start`.
set -euo pipefail
cd "$(dirname "$0")/.."
export STACK_PROFILE=test NODE_ENV=test
export PATH="$PWD/node_modules/.bin:$PATH"
export NODE_OPTIONS="${NODE_OPTIONS:-} --experimental-vm-modules --no-warnings=ExperimentalWarning"

echo "[test] typecheck"
tsc --noEmit
echo "[test] lint"
eslint --max-warnings=0 .
# No import cycle anywhere, type imports counted (.dependency-cruiser.cjs).
depcruise --config .dependency-cruiser.cjs .

# The newcomer's path (issue 12): once per CI run, a fresh clone of this commit alone must
# bootstrap and bring its stack to ready (scripts/newcomer-check.sh).
if [ -n "${CI:-}" ] || [ "${NEWCOMER_CHECK:-}" = 1 ]; then
  echo "[test] newcomer check: a fresh clone of this commit alone"
  bash scripts/newcomer-check.sh
fi

mkdir -p test-results
ready=.data/test-stack.ready; log=.data/test-stack.log; mkdir -p .data
rm -f "$ready"
tsx scripts/stack.ts --fresh --ready-file "$ready" > $log 2>&1 &
stack_pid=$!
cleanup() {
  kill -TERM "$stack_pid" 2>/dev/null || true
  wait "$stack_pid" 2>/dev/null || true
}
trap cleanup EXIT
echo "[test] starting the test stack (log: $log)"
for _ in $(seq 1 600); do
  [ -f "$ready" ] && break
  if ! kill -0 "$stack_pid" 2>/dev/null; then
    echo "[test] the stack failed to start:"; tail -n 60 $log; exit 1
  fi
  sleep 1
done
[ -f "$ready" ] || { echo "[test] the stack did not come up in 10 minutes"; tail -n 60 $log; exit 1; }

status=0
rm -f test-results/jest*.json
if [ "$#" -gt 0 ]; then
  echo "[test] jest $*"
  jest --ci --json --outputFile=test-results/jest.json "$@" || status=$?
else
  # Two files run alone, one after the other, after the rest:
  #  - the API fuzz run (schemathesis, CPU-bound generation against an in-process app): beside
  #    the other suites on two cores it took five times as long;
  #  - the launcher's restarts, which SIGKILL the stack's shared workers and DWG sidecar: a suite
  #    beside it that reads the workers' metrics port, waits on their tasks or converts a
  #    drawing would meet the gap.
  alone=(/test/integration/api-fuzz /test/integration/stack-restart)
  echo "[test] jest"
  jest --ci --json --outputFile=test-results/jest.json --testPathIgnorePatterns /node_modules/ /.data/ /build/ "${alone[@]}" || status=$?
  echo "[test] jest: the API fuzz run and the launcher's restarts, alone"
  jest --ci --json --outputFile=test-results/jest-alone.json --runInBand "${alone[@]}" || status=$?
fi
node -e '
  const fs = require("fs");
  const runs = ["jest.json", "jest-alone.json"].map((f) => "./test-results/" + f).filter((f) => fs.existsSync(f)).map((f) => require(f));
  const sum = (k) => runs.reduce((n, r) => n + r[k], 0);
  console.log(`${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed` + (sum("numPendingTests") ? `, ${sum("numPendingTests")} skipped` : ""));
' || true
if [ "$status" -ne 0 ]; then
  echo "[test] stack log tail:"; tail -n 40 $log
  # A service that died mid-run (restarted by the launcher) explains a run of connection errors:
  # its last words, then the launcher's own lines, last, where a truncated CI log keeps them.
  # (A long service name fills its prefix column: "dwg-converter| …", no space before the bar.)
  for svc in $( (grep -aoE '^stack +\| [a-z0-9-]+ stopped unexpectedly' $log || true) | awk '{print $3}' | sort -u); do
    echo "[test] last lines of $svc before it stopped:"
    (grep -aB1000 -E "^stack +\| $svc stopped unexpectedly" $log || true) | (grep -aE "^$svc *\|" || true) | tail -n 25 | cut -c1-400
  done
  echo "[test] the launcher's lines:"; (grep -aE '^stack +\|' $log || true) | tail -n 30
fi
exit "$status"
