#!/bin/sh
# Hostile bundles read back (issue 30, item 7): a real 2 s bundle, then
# copies with one file grown in one shape (bench/hostile_bundle.py: arrays
# of zeros, empty arrays, empty strings, keys, 100,000 ticks of zeros,
# one-letter cells, one huge string, a frame with ~100k children per MiB,
# distinct short stacks, one huge stack; and a legitimate 24 h window) at
# sizes up to the caps and beyond, each read by `render`, `diff` and
# `history`, and as `--baseline` of a real run.  Prints wall and CPU time,
# peak RSS and the bound: 64 MiB + 2 x the largest file read (report.json,
# a .folded or a pprof file).  A row over its bound says OVER.
# usage: sh bench/bundle_bench.sh [BIN]   (SIZES="1 4 15.5 64" to change)
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${1:-./perfreport}
SIZES=${SIZES:-"1 4 15.5 64"}
SHAPES=${SHAPES:-"zeros empties strings keys ticks cells bigstr wide unique line"}
tmp=$(mktemp -d /tmp/perfreport-bundles.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export PERFREPORT_LOCK="$tmp/lock"

if ! "$BIN" -d 2 -o "$tmp/seed" --quiet >/dev/null 2>&1 && [ ! -f "$tmp/seed/report.json" ]; then
    echo "bundle bench: no seed bundle (needs root)"
    exit 0
fi
echo "Hostile bundles read back, $(date -u +%Y-%m-%dT%H:%MZ), commit" \
    "$(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs"
# measure LABEL BUNDLE -- CMD...: one row; the bound from BUNDLE's largest file
measure() {
    python3 - "$@" <<'PY'
import os, resource, subprocess, sys, time
label, bundle = sys.argv[1], sys.argv[2]
cmd = sys.argv[4:]
big = max((os.path.getsize(os.path.join(bundle, f)) for f in os.listdir(bundle)
           if f == "report.json" or f.endswith((".folded", ".pb.gz"))), default=0)
t = time.monotonic()
p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
rss = ru.ru_maxrss / 1024.0
bound = 64 + 2 * big / 1048576.0
why = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
if "refused" in why:
    why = "refused: " + why.split(": ")[-2][-60:] if ": " in why else why
print("%-26s %7.1f %5d %7.2f %7.2f %8.1f %7.1f %-4s %s" % (
    label, big / 1048576.0, p.returncode, wall, ru.ru_utime + ru.ru_stime, rss, bound,
    "ok" if rss <= bound else "OVER", why[:70]))
PY
}
printf '%-26s %7s %5s %7s %7s %8s %7s %-4s %s\n' case "MiB" exit "wall s" "CPU s" "RSS MiB" "bound" "" ""
n=0
for shape in $SHAPES long; do
    sizes=$SIZES
    [ "$shape" = long ] && sizes=0 # its own size: 86,400 ticks
    for size in $sizes; do
        n=$((n + 1))
        b=$tmp/b$n
        python3 bench/hostile_bundle.py "$tmp/seed" "$b" "$shape" "$size" || continue
        measure "render $shape $size" "$b" -- "$BIN" render "$b" -o "$tmp/r$n" -q
        rm -rf "$tmp/r$n"
        measure "diff $shape $size" "$b" -- "$BIN" diff "$tmp/seed" "$b" -o "$tmp/d$n" -q
        rm -rf "$tmp/d$n"
        mkdir "$tmp/h$n" && mv "$b" "$tmp/h$n/"
        measure "history $shape $size" "$tmp/h$n/b$n" -- "$BIN" history "$tmp/h$n" -o "$tmp/hp$n" -q
        rm -rf "$tmp/hp$n"
        # --baseline: the window must open as soon as without one (the
        # baseline is read after it, at the stages' priority)
        python3 - "$BIN" "$tmp/h$n/b$n" "$tmp/run$n" "baseline $shape $size" <<'PY'
import re, resource, subprocess, sys, time
b, base, out, label = sys.argv[1:5]
t = time.monotonic()
p = subprocess.Popen([b, "-d", "1", "-v", "--quiet", "--baseline", base, "-o", out],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
opened, cpu, note = None, "?", ""
for line in p.stderr:
    m = re.search(r"window open .*; ([0-9.]+) ms CPU since exec", line)
    if m:
        opened, cpu = time.monotonic() - t, m.group(1)
    if "baseline" in line:
        note = "; " + line.strip()[-60:]
p.wait()
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%-26s %13d %7.2f %7.2f %8.1f  window open at %s s, %s ms CPU before it%s" % (
    label, p.returncode, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0,
    "%.2f" % opened if opened is not None else "?", cpu, note))
PY
        rm -rf "$tmp/run$n" "$tmp/h$n"
    done
done
