#!/usr/bin/env bash
# The scale-out run (issue 23 item 5): builds the benchmarks module's class path, then runs
# ScaleOutBench, which starts its own brokers, Postgres, gateways and actors. Arguments go to the
# program:
#   scripts/scale-out-bench.sh [--tasks N] [--inflight K] [--down SECONDS]
# (not `mvn exec:java`: the brokers are child JVMs started with the plain class path, which
# exec:java does not give them)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -o -q -pl benchmarks -am test-compile
exec java -Xmx2g -Dtaskmesh.root="$PWD" \
  -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  io.taskmesh.cli.ScaleOutBench "$@"
