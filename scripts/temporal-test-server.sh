#!/usr/bin/env bash
# Gathers Temporal's Java test server (time-skipping) from Maven Central into the versioned tool
# cache and writes a wrapper the TS testing package can start as an 'existing-path' executable.
# @temporalio/testing's own createTimeSkipping() downloads a binary, which cannot work here.
# Idempotent and quiet when already present; safe to run concurrently (flock).
# Prints the wrapper path on stdout.
set -euo pipefail

VERSION="${TEMPORAL_TEST_SERVER_VERSION:-1.32.1}"
TOOLS_DIR="${TOOLS_DIR:-${HOME:-/root}/.cache/cadastral-geoportal/tools}"
DIR="$TOOLS_DIR/temporal-test-server-$VERSION"
WRAPPER="$DIR/temporal-test-server"

if [[ -f "$DIR/.complete" && -x "$WRAPPER" ]]; then
  echo "$WRAPPER"
  exit 0
fi

mkdir -p "$TOOLS_DIR"
exec 9>"$TOOLS_DIR/.temporal-test-server-$VERSION.lock"
flock 9
# Another run may have finished while we waited for the lock.
if [[ -f "$DIR/.complete" && -x "$WRAPPER" ]]; then
  echo "$WRAPPER"
  exit 0
fi

WORK="$(mktemp -d "$TOOLS_DIR/.temporal-test-server-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.geoportal</groupId>
  <artifactId>temporal-test-server-fetch</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>$VERSION</version>
    </dependency>
  </dependencies>
</project>
POM

echo "temporal-test-server $VERSION: fetching jars from Maven Central..." >&2
# Maven's output only matters when it fails.
if ! mvn -q -B --no-transfer-progress -Dstyle.color=never -f "$WORK/pom.xml" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$WORK/lib" >"$WORK/mvn.log" 2>&1; then
  cat "$WORK/mvn.log" >&2
  echo "temporal-test-server $VERSION: Maven could not gather the jars (see above)" >&2
  exit 1
fi

rm -rf "$DIR"
mkdir -p "$DIR"
mv "$WORK/lib" "$DIR/lib"
cat >"$WRAPPER" <<SH
#!/bin/sh
exec java -cp "$DIR/lib/*" io.temporal.testserver.TestServer "\$@"
SH
chmod +x "$WRAPPER"
touch "$DIR/.complete"
echo "$WRAPPER"
