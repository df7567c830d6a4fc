#!/usr/bin/env bash
# The newcomer's path (issue 12): a fresh `git clone` of this commit into an empty folder, with
# no design folder beside it, must pass the bootstrap and bring the whole stack to ready. It may
# reuse the machine's tools cache (Go builds, virtualenvs), never this checkout's node_modules or
# .data. `npm test` runs it once per CI run (CI=true) or when NEWCOMER_CHECK=1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
say() { echo "[newcomer] $*"; }

work=$(mktemp -d /tmp/cgp-newcomer.XXXXXX)
# The postgres user must reach the clone's data directory (initdb refuses root).
chmod 755 "$work"
stack_pid=
cleanup() {
  if [ -n "$stack_pid" ]; then kill -TERM "$stack_pid" 2>/dev/null || true; wait "$stack_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# Stopped by scripts/test.sh (its checks failed, or ^C): the EXIT trap stops the clone's stack and removes it.
trap 'exit 143' TERM INT

commit=$(git rev-parse HEAD)
say "cloning $commit alone into $work/geoportal"
git clone -q --no-hardlinks "$ROOT" "$work/geoportal"
cd "$work/geoportal"
git checkout -q "$commit"
[ ! -e "$work/shared" ] || { say "a folder named shared/ is beside the clone"; exit 1; }

say "bootstrap"
start=$(date +%s)
bash scripts/bootstrap
say "bootstrap done in $(( $(date +%s) - start )) s"

# Its own ports (+400) and data, beside the test stack of the checkout under test.
export STACK_PROFILE=test STACK_PORT_SHIFT=400 NODE_ENV=test
ready=.data/newcomer.ready
bash scripts/with-node tsx scripts/stack.ts --fresh --ready-file "$ready" > .data/newcomer-stack.log 2>&1 &
stack_pid=$!
for _ in $(seq 1 600); do
  [ -f "$ready" ] && break
  if ! kill -0 "$stack_pid" 2>/dev/null; then say "the stack of the fresh clone failed to start:"; tail -n 60 .data/newcomer-stack.log; exit 1; fi
  sleep 1
done
[ -f "$ready" ] || { say "the stack of the fresh clone did not come up in 10 minutes"; tail -n 60 .data/newcomer-stack.log; exit 1; }
version=$(curl -sf "http://127.0.0.1:3400/api/version")
echo "$version" | grep -q "\"commit\":\"$commit\"" || { say "unexpected /api/version: $version"; exit 1; }
say "the fresh clone's stack is ready and serves commit ${commit:0:12} ($(( $(date +%s) - start )) s from clone to ready)"
