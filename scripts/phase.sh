#!/usr/bin/env bash
# scripts/phase.sh NAME COMMAND...: one phase of make test, timed. Prints "make test: NAME passed in N s" (or
# FAILED) and appends the line to target/test-phases.txt, which make test prints whole at its end: CI's limit is on
# the sum, and the phases are where to look when it grows.
set -u
name="$1"; shift
start=$(date +%s)
"$@"
rc=$?
line="make test: $name $([ "$rc" = 0 ] && echo passed || echo "FAILED (exit $rc)") in $(( $(date +%s) - start )) s"
echo "$line"
mkdir -p target && echo "$line" >> target/test-phases.txt
exit "$rc"
