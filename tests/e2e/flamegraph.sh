#!/bin/sh
# `perfreport flamegraph` as a command: exit 3 leaves stdout empty, several
# input files, single-dash options, differential input, --cp's palette.map.
# No root needed.
. tests/lib.sh
BIN=$(cd "$(dirname "$PERFREPORT_BIN")" && pwd)/$(basename "$PERFREPORT_BIN")
T=$TMPD
printf 'main;work;leaf 30\nmain;idle 10\n' > "$T/a.folded"
printf 'main;work;leaf 5\nmain;other 5' > "$T/b.folded"          # no final newline
printf 'main;grow 10 30\nmain;shrink 40 10\nmain;same 5 5\n' > "$T/diff.folded"
printf 'main;grow 10 30\nmain;single 5\n' > "$T/mixed.folded"
printf 'not a folded line\n' > "$T/junk.folded"

# 1. every failure: exit 3 and not one byte on stdout
fails=""
check_fail() { # NAME ARGS...
    name=$1; shift
    "$BIN" flamegraph "$@" > "$T/out.svg" 2> "$T/err.txt" < /dev/null
    rc=$?
    if [ $rc -ne 3 ] || [ -s "$T/out.svg" ]; then
        fails="$fails $name(rc=$rc,bytes=$(wc -c < "$T/out.svg"))"
    fi
}
check_fail empty /dev/null
check_fail junk "$T/junk.folded"
check_fail mixed "$T/mixed.folded"
check_fail missing "$T/a.folded" "$T/nope.folded"
check_fail badopt --colors rainbow "$T/a.folded"
check_fail badenc --encoding UTF-16 "$T/a.folded"
check_fail badattr --nameattr "$T/junk.folded" "$T/a.folded"
[ -z "$fails" ] && ok e2e_flamegraph_exit3_no_stdout || not_ok e2e_flamegraph_exit3_no_stdout "$fails"

"$BIN" flamegraph "$T/mixed.folded" > /dev/null 2> "$T/err.txt"
grep -q 'mixed.folded:2: one count where .*mixed.folded:1 has two' "$T/err.txt" \
    && ok e2e_flamegraph_mixed_message || not_ok e2e_flamegraph_mixed_message "$(head -n 1 "$T/err.txt")"

# 2. several files, read one after the other; messages name the file and its line
printf 'main;x 1\nbroken\n' > "$T/c.folded"
if "$BIN" flamegraph "$T/a.folded" "$T/b.folded" "$T/c.folded" > "$T/multi.svg" 2> "$T/err.txt" &&
   grep -q '<title>all (51 samples, 100.00%)</title>' "$T/multi.svg" &&
   grep -q '<title>leaf (35 samples' "$T/multi.svg" &&
   grep -q '<title>other (5 samples' "$T/multi.svg" &&
   grep -q 'c.folded:2: missing count' "$T/err.txt"; then
    ok e2e_flamegraph_several_files
else
    not_ok e2e_flamegraph_several_files "$(head -n 2 "$T/err.txt")"
fi
cat "$T/a.folded" | "$BIN" flamegraph - "$T/b.folded" > "$T/stdin.svg" 2>/dev/null &&
    grep -q '<title>all (50 samples' "$T/stdin.svg" \
    && ok e2e_flamegraph_stdin_and_file || not_ok e2e_flamegraph_stdin_and_file "stdin + file"

# 3. single-dash forms, as flamegraph.pl's Getopt::Long reads them
"$BIN" flamegraph -title 'Single dash' -width 600 -countname=bytes -colors=blue -minwidth 30% \
    "$T/a.folded" > "$T/dash.svg" 2> "$T/err.txt"
if grep -q '>Single dash</text>' "$T/dash.svg" && grep -q ' width="600"' "$T/dash.svg" &&
   grep -q '<title>leaf (30 bytes' "$T/dash.svg" && ! grep -q '<title>idle' "$T/dash.svg"; then
    ok e2e_flamegraph_single_dash
else
    not_ok e2e_flamegraph_single_dash "$(head -n 1 "$T/err.txt")"
fi

# 4. differential input: red where a frame grew, blue where it shrank
if "$BIN" flamegraph "$T/diff.folded" > "$T/diff.svg" 2> "$T/err.txt" &&
   grep -q '<title>grow (30 samples, 66.67%; self +20, +44.44%)</title><rect[^>]*fill="rgb(255,' "$T/diff.svg" &&
   grep -q '<title>shrink (10 samples[^<]*</title><rect[^>]*fill="rgb(0,0,255)"' "$T/diff.svg"; then
    ok e2e_flamegraph_differential
else
    not_ok e2e_flamegraph_differential "$(head -n 1 "$T/err.txt")"
fi

# 5. --cp: palette.map written in the current directory, reused by the next graph
mkdir "$T/cp"
fill() { grep -o "<title>$1 ([^<]*</title><rect[^>]*fill=\"[^\"]*\"" "$2" | sed 's/.*fill=//'; }
if (cd "$T/cp" && "$BIN" flamegraph --cp --random "$T/a.folded" > one.svg &&
    "$BIN" flamegraph --cp --random "$T/b.folded" > two.svg) 2> "$T/err.txt" &&
   [ -s "$T/cp/palette.map" ] && grep -q '^leaf->rgb(' "$T/cp/palette.map" &&
   grep -q '^other->rgb(' "$T/cp/palette.map" &&
   [ "$(fill leaf "$T/cp/one.svg")" = "$(fill leaf "$T/cp/two.svg")" ]; then
    ok e2e_flamegraph_cp
else
    not_ok e2e_flamegraph_cp "$(head -n 1 "$T/err.txt")"
fi
printf 'garbage line\nleaf->rgb(1,2,3)\n' > "$T/cp/palette.map"
(cd "$T/cp" && "$BIN" flamegraph --cp "$T/a.folded" > three.svg 2> "$T/err.txt")
if grep -q 'palette.map: 1 lines' "$T/err.txt" && [ "$(fill leaf "$T/cp/three.svg")" = '"rgb(1,2,3)"' ] &&
   ! grep -q garbage "$T/cp/palette.map"; then
    ok e2e_flamegraph_cp_bad_lines
else
    not_ok e2e_flamegraph_cp_bad_lines "$(head -n 1 "$T/err.txt")"
fi

# 6. fractional counts summed exactly, as flamegraph.pl sums them (issue 35, 1):
#    rounded per line, e was 14.29 % of a total of 7
printf 'a;b 1.5\na;c 1.5\na;d 1.5\na;e 0.5\n' | "$BIN" flamegraph --total 10 > "$T/frac.svg" 2> "$T/err.txt"
printf 'a;b 1.5\na;c 1.5\na;d 1.5\na;e 0.5\n' | "$BIN" flamegraph > "$T/frac1.svg" 2>> "$T/err.txt"
if grep -q '<title>e (0.5 samples, 10.00%)</title><rect x="[0-9.]*" y="[0-9.]*" width="118.00"' "$T/frac1.svg" &&
   grep -q '<title>b (1.5 samples, 30.00%)</title>' "$T/frac1.svg" &&
   grep -q '<title>all (5 samples, 100.00%)</title>' "$T/frac1.svg" &&
   grep -q '<title>e (0.5 samples, 5.00%)</title>' "$T/frac.svg" &&
   grep -q '<title>all (10 samples, 100.00%)</title>' "$T/frac.svg"; then
    ok e2e_flamegraph_fractional_counts
else
    not_ok e2e_flamegraph_fractional_counts "$(grep -o '<title>e ([^<]*' "$T/frac1.svg") $(head -n 1 "$T/err.txt")"
fi

# 7. inferno's options and input: '#' comment lines, --stroke-color (checked:
#    it goes into a style), --truncate-text-right (names cut on the right)
printf '# written by some tool\nmain;work 3\n#main;hidden 5\n' | "$BIN" flamegraph --stroke-color '#123456' \
    > "$T/inf.svg" 2> "$T/err.txt"; rc=$?
if [ $rc = 0 ] && grep -q '<title>all (3 samples' "$T/inf.svg" && ! grep -q 'hidden' "$T/inf.svg" &&
   grep -q '<style>.fg-frames rect{stroke:#123456;stroke-width:1}</style>' "$T/inf.svg" && [ ! -s "$T/err.txt" ]; then
    ok e2e_flamegraph_inferno_comments_stroke
else
    not_ok e2e_flamegraph_inferno_comments_stroke "exit $rc; $(head -n 1 "$T/err.txt")"
fi
check_fail badstroke --stroke-color 'red;}text{fill:red' "$T/a.folded"
[ -z "$fails" ] && ok e2e_flamegraph_stroke_refused || not_ok e2e_flamegraph_stroke_refused "$fails"
printf 'main;a_function_name_far_too_long_for_its_frame_at_all 40\nmain;x 60\n' |
    "$BIN" flamegraph --truncate-text-right --width 400 > "$T/trunc.svg" 2> "$T/err.txt"
grep -q '>a_[a-z_]*\.\.</text>' "$T/trunc.svg" \
    && ok e2e_flamegraph_truncate_text_right || not_ok e2e_flamegraph_truncate_text_right "$(grep -o '>a_[^<]*<' "$T/trunc.svg")"
