#!/usr/bin/env bash
# `npm test`: static checks, then the whole jest suite (unit, integration, workflow, end-to-end)
# against a real stack started once for the run on the test profile (ports +100, data in
# .data/test), so it can run beside `npm start`.
set -euo pipefail
cd "$(dirname "$0")/.."
export STACK_PROFILE=test NODE_ENV=test
export PATH="$PWD/node_modules/.bin:$PATH"
export NODE_OPTIONS="${NODE_OPTIONS:-} --experimental-vm-modules --no-warnings=ExperimentalWarning"

mkdir -p test-results .data
stack_pid= newcomer_pid=
cleanup() {
  # The newcomer check runs in a process group of its own (setsid): its clone's bootstrap and
  # stack stop with it.
  if [ -n "$newcomer_pid" ]; then kill -TERM -- "-$newcomer_pid" 2>/dev/null || true; fi
  if [ -n "$stack_pid" ]; then kill -TERM "$stack_pid" 2>/dev/null || true; fi
  for pid in $newcomer_pid $stack_pid; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# The newcomer's path (issue 12): once per CI run, a fresh clone of this commit alone must
# bootstrap and bring its stack to ready (scripts/newcomer-check.sh). It runs beside the static
# checks, the test stack's start and the launcher's restarts, which leave the second core mostly
# idle; the main jest run starts once it has passed.
newcomer_log=.data/newcomer-check.log
if [ -n "${CI:-}" ] || [ "${NEWCOMER_CHECK:-}" = 1 ]; then
  echo "[test] newcomer check: a fresh clone of this commit alone, in the background (log: $newcomer_log)"
  setsid bash scripts/newcomer-check.sh > "$newcomer_log" 2>&1 &
  newcomer_pid=$!
fi

echo "[test] typecheck"
tsc --noEmit
echo "[test] lint"
eslint --max-warnings=0 .
# No import cycle anywhere, type imports counted (.dependency-cruiser.cjs).
depcruise --config .dependency-cruiser.cjs .
# The tile gateway (native/tilegate, Go): formatted, vetted, its own tests under the race detector.
echo "[test] the tile gateway: gofmt, go vet, go test -race"
(cd native/tilegate && unformatted=$(gofmt -l .) && { [ -z "$unformatted" ] || { echo "not gofmt-formatted: $unformatted"; exit 1; }; } &&
  go vet ./... && GOFLAGS=-buildvcs=false go test -race -count=1 ./...)

ready=.data/test-stack.ready; log=.data/test-stack.log
rm -f "$ready"
tsx scripts/stack.ts --fresh --ready-file "$ready" > $log 2>&1 &
stack_pid=$!
echo "[test] starting the test stack (log: $log)"
for _ in $(seq 1 600); do
  [ -f "$ready" ] && break
  if ! kill -0 "$stack_pid" 2>/dev/null; then
    echo "[test] the stack failed to start:"; tail -n 60 $log; exit 1
  fi
  sleep 1
done
[ -f "$ready" ] || { echo "[test] the stack did not come up in 10 minutes"; tail -n 60 $log; exit 1; }

# The newcomer check's verdict, before the main jest run (which then has both cores).
await_newcomer() {
  [ -n "$newcomer_pid" ] || return 0
  local newcomer_status=0
  wait "$newcomer_pid" || newcomer_status=$?
  newcomer_pid=
  cat "$newcomer_log"
  [ "$newcomer_status" -eq 0 ] || { echo "[test] the newcomer check failed"; exit 1; }
}

status=0
rm -f test-results/jest*.json
if [ "$#" -gt 0 ]; then
  await_newcomer
  echo "[test] jest $*"
  jest --ci --json --outputFile=test-results/jest.json "$@" || status=$?
else
  # Two files run alone:
  #  - the launcher's restarts, which SIGKILL the stack's shared workers and DWG sidecar: a suite
  #    beside it that reads the workers' metrics port, waits on their tasks or converts a
  #    drawing would meet the gap. First, beside the newcomer check if it is still running.
  #  - the API fuzz run (schemathesis, CPU-bound generation in one Python thread against an
  #    in-process app): beside the other suites on two cores it took five times as long. Last:
  #    what it writes as Dan (tags, vault items, strings of every length) would be on the pages
  #    the end-to-end suites walk.
  restarts=/test/integration/stack-restart fuzz=/test/integration/api-fuzz
  echo "[test] jest: the launcher's restarts, alone"
  jest --ci --json --outputFile=test-results/jest-alone.json --runInBand "$restarts" || status=$?
  await_newcomer
  echo "[test] jest"
  jest --ci --json --outputFile=test-results/jest.json --testPathIgnorePatterns /node_modules/ /.data/ /build/ "$restarts" "$fuzz" || status=$?
  echo "[test] jest: the API fuzz run, alone"
  jest --ci --json --outputFile=test-results/jest-fuzz.json --runInBand "$fuzz" || status=$?
fi
node -e '
  const fs = require("fs");
  const runs = ["jest-alone.json", "jest.json", "jest-fuzz.json"].map((f) => "./test-results/" + f).filter((f) => fs.existsSync(f)).map((f) => require(f));
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
