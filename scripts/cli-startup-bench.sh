#!/usr/bin/env bash
# How long a CLI command takes to start, against the JVM's own start in the same run:
#   scripts/cli-startup-bench.sh [runs]      (default 7 runs of each, medians printed)
# Measures `java -version`, `./taskmesh --help` and `./taskmesh tasks list` (against a port where
# nothing listens, so no gateway is needed and the command fails fast after its start-up), then the
# same Main run by java directly on the cli jar (no launcher script), and with an AppCDS archive of
# the CLI's classes (JDK 17: a dynamic archive dumped with -XX:ArchiveClassesAtExit, used with
# -XX:SharedArchiveFile; AutoCreateSharedArchive needs JDK 19). Prints the load average before
# and after: figures taken with a load over 2 (the machine's cores) are void; measure on a quiet one.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-7}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export TASKMESH_URL="http://127.0.0.1:9" # nothing listens on the discard port

"$ROOT/taskmesh" --help >/dev/null 2>&1 || true # builds first when sources changed; not measured

run() { # command...: "wall_ms cpu_ms" of one run (cpu = user + sys of the command and its children)
  local TIMEFORMAT='%R %U %S' out
  out="$({ time "$@" >/dev/null 2>&1; } 2>&1 || true)"
  awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' <<<"$(tail -1 <<<"$out")"
}
median() { # label command...: medians of RUNS runs, wall and CPU, in ms
  local label="$1" i
  shift
  for ((i = 0; i < RUNS; i++)); do run "$@"; done >"$WORK/runs"
  local wall cpu
  wall="$(awk '{print $1}' "$WORK/runs" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  cpu="$(awk '{print $2}' "$WORK/runs" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  echo "$label $wall $cpu"
}

echo "load before: $(uptime | sed 's/.*load average: //')"
echo "java: $(java -version 2>&1 | head -1)"
{
  median java-version java -version
  median help "$ROOT/taskmesh" --help
  median tasks-list "$ROOT/taskmesh" tasks list
  # the same Main straight from java, without the launcher's bash and its stale-source scan, on the
  # cli jar (AppCDS archives only jars, not target/classes); then with an AppCDS archive of it
  T="$ROOT/cli/target"
  CP="$T/cli-0.1.0-SNAPSHOT.jar$(tr ':' '\n' <"$T/modules-classpath.txt" | sed "s|^|:$T/|" | tr -d '\n'):$(cat "$T/classpath.txt")"
  median java-main-help java -Xmx512m -cp "$CP" io.taskmesh.cli.Main --help
  median java-main-tasks java -Xmx512m -cp "$CP" io.taskmesh.cli.Main tasks list
  # JIT and GC for a command that lives a second: C1 only, serial GC (not for dev, which runs long)
  LIGHT=(-Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
  median light-help java "${LIGHT[@]}" -cp "$CP" io.taskmesh.cli.Main --help
  median light-tasks java "${LIGHT[@]}" -cp "$CP" io.taskmesh.cli.Main tasks list
  ARCHIVE="$WORK/taskmesh-cli.jsa"
  java -Xmx512m -XX:ArchiveClassesAtExit="$ARCHIVE" -cp "$CP" io.taskmesh.cli.Main tasks list >/dev/null 2>&1 || true
  if [ -f "$ARCHIVE" ]; then
    median appcds-help java -Xmx512m -XX:SharedArchiveFile="$ARCHIVE" -cp "$CP" io.taskmesh.cli.Main --help
    median appcds-tasks java -Xmx512m -XX:SharedArchiveFile="$ARCHIVE" -cp "$CP" io.taskmesh.cli.Main tasks list
    median light+appcds-tasks java "${LIGHT[@]}" -XX:SharedArchiveFile="$ARCHIVE" -cp "$CP" io.taskmesh.cli.Main tasks list
  fi
} >"$WORK/medians"
echo "load after:  $(uptime | sed 's/.*load average: //')"
java_ms="$(awk '$1=="java-version" {print $2}' "$WORK/medians")"
printf '%-18s %8s %8s %s\n' "" "wall ms" "cpu ms" "wall / java -version (medians of $RUNS)"
awk -v j="$java_ms" '{printf "%-18s %8d %8d %5.1fx\n", $1, $2, $3, (j > 0 ? $2 / j : 0)}' "$WORK/medians"
