#!/bin/sh
# `perfreport collapse`: folded stacks on stdout as stackcollapse-perf.pl
# writes them (the expected files were written by it, see
# tests/unit/test_collapse.c), exit 3 with nothing on stdout on bad options
# or unreadable input, exit 0 with nothing on stdout when no stack is found, and `perfreport flamegraph` drawing `perf script` text
# through the same collapser.  Needs no root.
. tests/lib.sh
if [ ! -x "$PERFREPORT_BIN" ]; then skip collapse "binary $PERFREPORT_BIN not built"; exit 0; fi
FX=tests/fixtures/flame/collapse

# expect_fail NAME ARGS...: exit 3, nothing on stdout, a message on stderr
expect_fail() {
    name=$1; shift
    "$PERFREPORT_BIN" collapse "$@" > "$TMPD/out" 2> "$TMPD/err" < /dev/null
    rc=$?
    if [ $rc = 3 ] && [ ! -s "$TMPD/out" ] && [ -s "$TMPD/err" ]; then ok "$name"
    else not_ok "$name" "exit $rc, $(wc -c < "$TMPD/out") bytes on stdout, stderr: $(head -c 200 "$TMPD/err")"; fi
}

"$PERFREPORT_BIN" collapse "$FX/period.txt" > "$TMPD/p.out" 2> "$TMPD/p.err"; rc=$?
if [ $rc = 0 ] && cmp -s "$TMPD/p.out" "$FX/period.folded" && [ ! -s "$TMPD/p.err" ]; then
    ok e2e_collapse_file
else
    not_ok e2e_collapse_file "exit $rc; $(diff "$TMPD/p.out" "$FX/period.folded" | head -3)"
fi

cat "$FX/pidtid.txt" | "$PERFREPORT_BIN" collapse --tid > "$TMPD/s.out"; rc=$?
if [ $rc = 0 ] && cmp -s "$TMPD/s.out" "$FX/pidtid--tid.folded"; then ok e2e_collapse_stdin_tid
else not_ok e2e_collapse_stdin_tid "exit $rc; $(diff "$TMPD/s.out" "$FX/pidtid--tid.folded" | head -3)"; fi

# several files are one stream, as the Perl script reads them
"$PERFREPORT_BIN" collapse --event-filter cycles:k "$FX/events.txt" - < "$FX/period.txt" \
    > "$TMPD/m.out" 2> "$TMPD/m.err"; rc=$?
if [ $rc = 0 ] && cmp -s "$TMPD/m.out" "$FX/events--event-filter-cycles-k.folded" &&
   grep -q "2 samples of event 'cycles:u' skipped" "$TMPD/m.err" &&
   grep -q "4 samples of event 'cpu-clock' skipped" "$TMPD/m.err"; then
    ok e2e_collapse_event_filter
else
    not_ok e2e_collapse_event_filter "exit $rc; $(head -c 300 "$TMPD/m.err")"
fi

"$PERFREPORT_BIN" collapse "$FX/bad_lines.txt" > "$TMPD/b.out" 2> "$TMPD/b.err"; rc=$?
if [ $rc = 0 ] && cmp -s "$TMPD/b.out" "$FX/bad_lines.folded" &&
   grep -q "3 lines not understood; the first, .*bad_lines.txt:8: neither a sample header nor a frame line: ignored: '" "$TMPD/b.err" &&
   [ "$(wc -l < "$TMPD/b.err")" = 1 ]; then
    ok e2e_collapse_bad_lines_warned
else
    not_ok e2e_collapse_bad_lines_warned "exit $rc; $(head -c 300 "$TMPD/b.err")"
fi
"$PERFREPORT_BIN" collapse -q "$FX/bad_lines.txt" > /dev/null 2> "$TMPD/q.err"
[ ! -s "$TMPD/q.err" ] && ok e2e_collapse_quiet || not_ok e2e_collapse_quiet "$(head -c 200 "$TMPD/q.err")"

expect_fail e2e_collapse_bad_option --no-such-option "$FX/period.txt"
expect_fail e2e_collapse_empty_event_filter --event-filter "" "$FX/period.txt"
expect_fail e2e_collapse_missing_file "$FX/period.txt" "$TMPD/does-not-exist"
expect_fail e2e_collapse_directory "$TMPD"
# no stack: exit 0 and nothing on stdout, as stackcollapse-perf.pl; a warning
# (none with -q)
expect_empty() { # NAME FILE [OPTION]
    "$PERFREPORT_BIN" collapse $3 "$2" > "$TMPD/out" 2> "$TMPD/err" < /dev/null
    rc=$?
    if [ $rc = 0 ] && [ ! -s "$TMPD/out" ] &&
       { [ -n "$3" ] || grep -q "perfreport collapse: no stack found" "$TMPD/err"; } &&
       { [ -z "$3" ] || [ ! -s "$TMPD/err" ]; }; then ok "$1"
    else not_ok "$1" "exit $rc, $(wc -c < "$TMPD/out") bytes on stdout, stderr: $(head -c 200 "$TMPD/err")"; fi
}
printf '' > "$TMPD/empty.txt"
expect_empty e2e_collapse_empty_input "$TMPD/empty.txt"
expect_empty e2e_collapse_empty_input_quiet "$TMPD/empty.txt" -q
printf 'ab 1 1.0: 3 ev:\n\t1 f (m)\n' > "$TMPD/open.txt"
expect_empty e2e_collapse_no_closed_sample "$TMPD/open.txt"
grep -q "open.txt:1: the last sample has no blank line" "$TMPD/err" \
    && ok e2e_collapse_open_sample_named || not_ok e2e_collapse_open_sample_named "$(head -c 200 "$TMPD/err")"
# getopt's messages name the command too
"$PERFREPORT_BIN" collapse --no-such-option 2> "$TMPD/err" < /dev/null
grep -q "^perfreport collapse: unrecognized option '--no-such-option'" "$TMPD/err" \
    && ok e2e_collapse_option_message_prefix || not_ok e2e_collapse_option_message_prefix "$(head -c 200 "$TMPD/err")"

# `perf script -F +srcline` puts a source line under each frame: one summary
# line (count and the first), not one warning per line
{ printf 'a.out 35081 252436.005167:     667783 cycles:\n'
  i=0; while [ $i -lt 500 ]; do
      printf '\t408ebb some_method_name+0x8b (/full/path/to/a.out)\n  uniform_int_dist.h:300\n'
      i=$((i + 1)); done
  printf '\n'; } > "$TMPD/srcline.txt"
"$PERFREPORT_BIN" collapse "$TMPD/srcline.txt" > "$TMPD/sl.out" 2> "$TMPD/sl.err"; rc=$?
if [ $rc = 0 ] && [ "$(wc -l < "$TMPD/sl.err")" = 1 ] &&
   grep -q "500 lines not understood; the first, .*srcline.txt:3: .*: '  uniform_int_dist.h:300'" "$TMPD/sl.err"; then
    ok e2e_collapse_srcline_one_summary
else
    not_ok e2e_collapse_srcline_one_summary "exit $rc, $(wc -l < "$TMPD/sl.err") lines: $(head -c 300 "$TMPD/sl.err")"
fi
"$PERFREPORT_BIN" collapse --help > "$TMPD/h.out"; rc=$?
[ $rc = 0 ] && grep -q -- '--event-filter EVENT' "$TMPD/h.out" && ok e2e_collapse_help || not_ok e2e_collapse_help "exit $rc"

# On a terminal an escape sequence in a name is shown, not obeyed; in a pipe
# the bytes stay as the Perl script writes them.
printf 'ab 1 1.0: 3 ev:\n\t1 evil\033[31mred (m)\n\n' > "$TMPD/esc.txt"
if command -v script >/dev/null 2>&1; then
    script -qc "$PERFREPORT_BIN collapse $TMPD/esc.txt" /dev/null > "$TMPD/tty.out" 2>&1
    if grep -q 'evil\\e\[31mred 3' "$TMPD/tty.out" && ! grep -q "$(printf '\033')" "$TMPD/tty.out"; then
        ok e2e_collapse_terminal_escaped
    else
        not_ok e2e_collapse_terminal_escaped "$(od -c "$TMPD/tty.out" | head -3)"
    fi
else
    skip e2e_collapse_terminal_escaped "script(1) missing"
fi
"$PERFREPORT_BIN" collapse "$TMPD/esc.txt" > "$TMPD/pipe.out"
[ "$(cat "$TMPD/pipe.out")" = "$(printf 'ab;evil\033[31mred 3')" ] && ok e2e_collapse_pipe_bytes_kept \
    || not_ok e2e_collapse_pipe_bytes_kept "$(od -c "$TMPD/pipe.out" | head -3)"

# flamegraph: unindented frames are taken for perf script, and the graph is
# the one drawn from `collapse --all` output
"$PERFREPORT_BIN" flamegraph "$FX/unindented.txt" > "$TMPD/u1.svg" 2> "$TMPD/u1.err"; rc1=$?
"$PERFREPORT_BIN" collapse --all "$FX/unindented.txt" | "$PERFREPORT_BIN" flamegraph > "$TMPD/u2.svg"; rc2=$?
if [ $rc1 = 0 ] && [ $rc2 = 0 ] && cmp -s "$TMPD/u1.svg" "$TMPD/u2.svg" &&
   grep -q '_dl_sysdep_start' "$TMPD/u1.svg" && ! grep -q 'missing count' "$TMPD/u1.err"; then
    ok e2e_collapse_flamegraph_agrees
else
    not_ok e2e_collapse_flamegraph_agrees "exit $rc1/$rc2; $(head -c 200 "$TMPD/u1.err")"
fi
"$PERFREPORT_BIN" flamegraph --input-format perf "$FX/unindented.txt" > "$TMPD/u3.svg"; rc=$?
[ $rc = 0 ] && grep -q 'pvm_save_fl' "$TMPD/u3.svg" && ok e2e_collapse_flamegraph_perf_format \
    || not_ok e2e_collapse_flamegraph_perf_format "exit $rc"

# several perf script files through flamegraph: a bad line is named by its
# own file and line
"$PERFREPORT_BIN" flamegraph "$FX/period.txt" "$FX/bad_lines.txt" > /dev/null 2> "$TMPD/fm.err"; rc=$?
[ $rc = 0 ] && grep -q "the first, .*bad_lines.txt:8: neither a sample header" "$TMPD/fm.err" \
    && ok e2e_collapse_flamegraph_files_lines || not_ok e2e_collapse_flamegraph_files_lines "exit $rc; $(head -c 300 "$TMPD/fm.err")"

# a live capture, if perf can record here: the same stacks as the folded
# text perfreport collapse writes for it (names, counts weighted by period)
if command -v perf >/dev/null 2>&1 &&
   perf record -q -e cpu-clock -F 499 -g -o "$TMPD/perf.data" -- "$WL/burner" 1 >/dev/null 2>&1 &&
   perf script -i "$TMPD/perf.data" > "$TMPD/perf.txt" 2>/dev/null; then
    "$PERFREPORT_BIN" collapse "$TMPD/perf.txt" > "$TMPD/live.folded"; rc=$?
    got=$(awk '$1 ~ /^burner;/ && /burn_leaf/ {s += $NF} END {print s + 0}' "$TMPD/live.folded")
    if [ $rc = 0 ] && [ "$got" -gt 0 ]; then ok e2e_collapse_live_perf
    else not_ok e2e_collapse_live_perf "exit $rc, burn_leaf weight $got"; fi
else
    skip e2e_collapse_live_perf "perf record failed or perf missing"
fi
