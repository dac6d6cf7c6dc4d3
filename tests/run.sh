#!/bin/sh
# Runs every test suite, with the normal build and again with the ASan+UBSan
# build, and prints one closing line "N passed, N failed".
# Each suite prints lines "ok NAME", "not ok NAME: why", "skip NAME: why".
# Env: CONFIGS="build build-asan" selects the builds to test.
set -u
cd "$(dirname "$0")/.."
PERFREPORT_TOP=$(pwd)
export PERFREPORT_TOP
CONFIGS=${CONFIGS:-"build build-asan"}
log=$(mktemp /tmp/perfreport-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

# run_suite PREFIX CMD...: runs a suite, prefixing its test names.
run_suite() {
    prefix=$1; shift
    echo "== $prefix$*"
    "$@" 2>&1 | sed -n -e "s/^\(ok\|not ok\|skip\) /\1 $prefix/p" -e '/^  /p' | tee -a "$log"
}

for BUILD in $CONFIGS; do
    if [ "$BUILD" = build ]; then
        PERFREPORT_BIN=./perfreport; prefix=""
    else
        PERFREPORT_BIN=./$BUILD/perfreport; prefix="$BUILD:"
        export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    fi
    export BUILD PERFREPORT_BIN
    if [ ! -x "$BUILD/unit-tests" ]; then
        echo "not ok ${prefix}build: $BUILD/unit-tests missing" | tee -a "$log"
        continue
    fi
    run_suite "$prefix" "$BUILD/unit-tests" tests/fixtures
    for t in tests/e2e/*.sh tests/scenarios/*.sh; do
        [ -f "$t" ] && run_suite "$prefix" sh "$t"
    done
    # The browser checks the HTML, which is the same from both builds.
    if [ "$BUILD" = build ]; then
        for t in tests/browser/*.sh; do
            case $t in */setup.sh) continue ;; esac
            [ -f "$t" ] && run_suite "$prefix" sh "$t"
        done
        # valgrind needs the build without sanitizers; the fuzz targets have
        # their own (build-fuzz): each runs once over its seed corpus.
        run_suite "$prefix" sh tests/valgrind/run.sh
        run_suite "$prefix" sh tests/fuzz/run.sh --smoke
    fi
    unset ASAN_OPTIONS UBSAN_OPTIONS
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
