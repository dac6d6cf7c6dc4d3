#!/bin/sh
# Calm: a parallel compile (`perfreport -- make -j3`, 24 C files).  The
# CPUs are saturated, which may be reported, with the compiler as the
# culprit by command; nothing else may be a warning.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_compile "needs root"; exit 0; }
command -v make >/dev/null && command -v cc >/dev/null || { skip calm_compile "make or cc missing"; exit 0; }
P=$TMPD/proj
mkdir -p "$P"
i=0
while [ $i -lt 24 ]; do
    # enough work per file for cc1 to be busy a while
    awk -v n=$i 'BEGIN { for (f = 0; f < 300; f++) printf "static int f%d_%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d ^ (s >> 3); return s; }\n", n, f, f; printf "int g%d(int x) { return 0", n; for (f = 0; f < 300; f++) printf " + f%d_%d(x)", n, f; printf "; }\n" }' > "$P/u$i.c"
    i=$((i + 1))
done
printf 'OBJS := $(patsubst %%.c,%%.o,$(wildcard *.c))\nall: $(OBJS)\n%%.o: %%.c\n\tcc -O2 -c -o $@ $<\nclean:\n\trm -f *.o\n' > "$P/Makefile"
run=1
while [ $run -le "$CALM_RUNS" ]; do
    make -s -C "$P" clean >/dev/null
    "$PERFREPORT_BIN" -d 60 -i 0.5 -o "$TMPD/b$run" --quiet -- make -s -j3 -C "$P" \
        >/dev/null 2>"$TMPD/err$run"
    calm_result calm_compile "$run" "$TMPD/b$run" cpu.saturation || exit 0
    run=$((run + 1))
done
ok calm_compile
# when the CPUs are reported saturated, the culprit is the compiler by command
c=$(json "$TMPD/b1/report.json" "next((f['culprit'] or '') for f in d['findings'] if f['id'] == 'cpu.saturation') if any(f['id'] == 'cpu.saturation' for f in d['findings']) else 'none'")
case "$c" in
    none|cc1*) ok calm_compile_culprit_by_command ;;
    *) not_ok calm_compile_culprit_by_command "cpu.saturation culprit: $c" ;;
esac
