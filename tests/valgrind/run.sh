#!/bin/sh
# The unit tests (normal build, no sanitizers) under valgrind memcheck.
# Prints one line in the tests/run.sh protocol:
#   ok valgrind_unit_tests | not ok valgrind_unit_tests: why | skip ...: why
# followed, on failure, by the first valgrind errors indented by two spaces.
# Env: BUILD (default build).
set -u
cd "$(dirname "$0")/../.."
bin=${BUILD:-build}/unit-tests
name=valgrind_unit_tests
if ! command -v valgrind >/dev/null 2>&1; then
    echo "skip $name: valgrind not installed"
    exit 0
fi
if [ ! -x "$bin" ]; then
    echo "not ok $name: $bin missing (make unit)"
    exit 0
fi
case "${ASAN_OPTIONS:-}${LD_PRELOAD:-}" in
    *asan*) echo "skip $name: sanitizer build"; exit 0 ;;
esac
log=$(mktemp /tmp/perfreport-valgrind.XXXXXX)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
    --track-fds=no -q "$bin" tests/fixtures >"$log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
summary=$(grep '^unit: ' "$log" | tail -1)
nerr=$(grep -c '^==[0-9]*== [A-Z]' "$log")
failed=$(grep -c '^not ok ' "$log")
if [ $rc -eq 0 ] && [ "$failed" -eq 0 ]; then
    echo "ok $name"
    echo "  ${summary:-unit: ?} under valgrind in ${secs}s"
    grep '^skip ' "$log" | sed -e 's/^/  /'
else
    why="valgrind exit $rc, $nerr error report(s), $failed failed test(s)"
    echo "not ok $name: $why"
    grep '^not ok ' "$log" | sed -e 's/^/  /' | head -10
    grep '^==[0-9]*==' "$log" | head -40 | sed -e 's/^/  /'
fi
