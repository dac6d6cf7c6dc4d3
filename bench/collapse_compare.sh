#!/bin/sh
# `perfreport collapse` against stackcollapse-perf.pl on public `perf script`
# captures: for each capture and each option set, both run on the same file
# and their stdout must be byte for byte the same.
#
# Usage: bench/collapse_compare.sh [DIR...]
#   FLAMEGRAPH_DIR  a FlameGraph checkout: its stackcollapse-perf.pl is the
#                   reference; its test/*.txt and example-perf-stacks.txt.gz
#                   are captures
#   INFERNO_DIR     an inferno checkout: tests/data/collapse-perf/*.txt and
#                   tests/data/collapse-guess/*.txt are captures
#   DIR...          more directories of captures (*.txt, *.txt.gz)
#   OPTS            option sets, ';'-separated (default: the default and each
#                   option FlameGraph's test.sh uses: pid tid kernel jit all addrs)
#   VERBOSE=1       prints the first lines of each difference
# Prints "skip ..." and exits 0 when the reference or every capture is
# missing.  Last line: "N of M identical".
set -u
BIN=${PERFREPORT_BIN:-./perfreport}
FG=${FLAMEGRAPH_DIR:-}
REF=$FG/stackcollapse-perf.pl
if [ -z "$FG" ] || [ ! -f "$REF" ]; then
    echo "skip collapse_compare: FLAMEGRAPH_DIR (with stackcollapse-perf.pl) not set or absent"
    exit 0
fi
command -v perl >/dev/null 2>&1 || { echo "skip collapse_compare: no perl"; exit 0; }
[ -x "$BIN" ] || { echo "skip collapse_compare: $BIN not built"; exit 0; }

files=$(mktemp /tmp/collapse-compare.XXXXXX)
tmp=$(mktemp -d /tmp/collapse-compare.XXXXXX)
trap 'rm -rf "$files" "$tmp"' EXIT
for d in "$FG/test" ${INFERNO_DIR:+"$INFERNO_DIR/tests/data/collapse-perf"} \
         ${INFERNO_DIR:+"$INFERNO_DIR/tests/data/collapse-guess"} "$@"; do
    [ -d "$d" ] && ls "$d"/*.txt "$d"/*.txt.gz 2>/dev/null >> "$files"
done
[ -f "$FG/example-perf-stacks.txt.gz" ] && echo "$FG/example-perf-stacks.txt.gz" >> "$files"
if [ ! -s "$files" ]; then
    echo "skip collapse_compare: no captures found"
    exit 0
fi

OPTS=${OPTS:-"-;--pid;--tid;--kernel;--jit;--all;--addrs"}
same=0 total=0 diffs=0
IFS_SAVE=$IFS
while IFS= read -r f; do
    shown=$f
    case $f in
    *.gz) gzip -dc "$f" > "$tmp/capture.txt" || continue; f=$tmp/capture.txt ;;
    esac
    IFS=';'
    for opt in $OPTS; do
        IFS=$IFS_SAVE
        [ "$opt" = - ] && opt=
        total=$((total + 1))
        # $opt unquoted: empty for the default run
        perl "$REF" $opt "$f" > "$tmp/ref" 2>/dev/null
        "$BIN" collapse $opt "$f" > "$tmp/ours" 2>/dev/null
        if cmp -s "$tmp/ref" "$tmp/ours"; then
            same=$((same + 1))
        else
            diffs=$((diffs + 1))
            echo "mismatch: ${opt:-default} $shown ($(wc -l < "$tmp/ref") vs $(wc -l < "$tmp/ours") lines)"
            [ "${VERBOSE:-0}" = 1 ] && diff "$tmp/ref" "$tmp/ours" | head -8
        fi
        IFS=';'
    done
    IFS=$IFS_SAVE
done < "$files"
echo "captures: $(wc -l < "$files"), runs: $total (option sets: $OPTS)"
echo "$same of $total identical"
[ "$diffs" = 0 ]
