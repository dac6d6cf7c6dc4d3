#!/bin/sh
# Runs every test suite and prints one closing line "N passed, N failed".
# Each suite prints lines "ok NAME", "not ok NAME: why", "skip NAME: why".
# Env: PERFREPORT_BIN (binary under test), BUILD (build dir), SANITIZED=1.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PERFREPORT_BIN=${PERFREPORT_BIN:-./perfreport}
export BUILD PERFREPORT_BIN
export PERFREPORT_TOP=$(pwd)
log=$(mktemp /tmp/perfreport-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

run_suite() {
    name=$1; shift
    echo "== $name"
    "$@" 2>&1 | tee -a "$log" | grep -E '^(ok|not ok|skip) ' || true
}

run_suite unit "$BUILD/unit-tests" tests/fixtures
for t in tests/e2e/*.sh tests/scenarios/*.sh tests/browser/*.sh; do
    [ -f "$t" ] || continue
    run_suite "$t" sh "$t"
done

pass=$(grep -c '^ok ' "$log")
fail=$(grep -c '^not ok ' "$log")
skip=$(grep -c '^skip ' "$log")
if [ "$fail" -gt 0 ]; then
    echo
    echo "Failures:"
    grep '^not ok ' "$log"
fi
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
