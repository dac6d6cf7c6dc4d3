#!/bin/sh
# Runs the libFuzzer targets built by `make fuzz-build` (build-fuzz/fuzz/).
#   tests/fuzz/run.sh [NAME...]          fuzz each for FUZZ_SECONDS (20), seeded
#                                        from tests/fuzz/corpus/NAME; new inputs
#                                        go to build-fuzz/corpus/NAME, crashes to
#                                        build-fuzz/crashes/NAME/
#   tests/fuzz/run.sh --smoke [NAME...]  no mutation: each target runs once over
#                                        its seed corpus; prints "ok fuzz_smoke_NAME"
#                                        lines (tests/run.sh protocol), building
#                                        the targets first when clang can.
set -u
cd "$(dirname "$0")/../.."
B=build-fuzz
smoke=0
if [ "${1:-}" = --smoke ]; then
    smoke=1
    shift
fi
names="$*"
[ -n "$names" ] || names=$(for f in tests/fuzz/fuzz_*.c; do n=${f#tests/fuzz/fuzz_}; echo "${n%.c}"; done)

# libFuzzer's runtime comes with clang (Debian: libclang-rt-14-dev).
fuzzer_runtime() {
    d=$(mktemp -d /tmp/perfreport-fuzzchk.XXXXXX) || return 1
    printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$d/t.c"
    ${FUZZ_CC:-clang} -fsanitize=fuzzer,address,undefined -o "$d/t" "$d/t.c" >/dev/null 2>&1
    rc=$?
    rm -rf "$d"
    return $rc
}

if [ $smoke = 1 ]; then
    if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1 || ! fuzzer_runtime; then
        for n in $names; do
            echo "skip fuzz_smoke_$n: clang -fsanitize=fuzzer does not link (install clang and libclang-rt-dev)"
        done
        exit 0
    fi
    log=$(mktemp /tmp/perfreport-fuzzbuild.XXXXXX)
    if ! make -s -j"$(nproc 2>/dev/null || echo 2)" fuzz-build >"$log" 2>&1; then
        echo "not ok fuzz_build: make fuzz-build failed"
        sed -e 's/^/  /' "$log" | tail -20
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
    for n in $names; do
        bin=$B/fuzz/fuzz_$n
        out=$(mktemp /tmp/perfreport-fuzzsmoke.XXXXXX)
        # File arguments: each input runs once, no mutation.
        if find "tests/fuzz/corpus/$n" -type f -print0 | xargs -0 -r \
                "$bin" -runs=1 >"$out" 2>&1; then
            echo "ok fuzz_smoke_$n"
        else
            echo "not ok fuzz_smoke_$n: a seed input failed"
            grep -E 'ERROR|SUMMARY|Running:|runtime error' "$out" | head -8 | sed -e 's/^/  /'
        fi
        rm -f "$out"
    done
    exit 0
fi

secs=${FUZZ_SECONDS:-20}
summary=""
failed=0
for n in $names; do
    bin=$B/fuzz/fuzz_$n
    if [ ! -x "$bin" ]; then
        summary="$summary
  $n: MISSING ($bin; run make fuzz-build)"
        failed=$((failed + 1))
        continue
    fi
    mkdir -p "$B/corpus/$n" "$B/crashes/$n"
    out=$B/fuzz/fuzz_$n.log
    echo "== fuzz $n (${secs}s)"
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$B/crashes/$n/" "$B/corpus/$n" "tests/fuzz/corpus/$n" >"$out" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$out" | tail -1)
    if [ $rc -eq 0 ]; then
        summary="$summary
  $n: ok (${execs:-?} runs, ${cov:-cov: ?})"
    else
        failed=$((failed + 1))
        art=$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$out" | tail -1)
        why=$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|deadly signal' "$out")
        summary="$summary
  $n: FAILED ($why) input: ${art:-?}, log: $out"
    fi
done
echo
echo "fuzz summary (${secs}s per target):$summary"
[ $failed -eq 0 ]
