#!/bin/sh
# Flamegraph benchmark (design section 9): `perfreport flamegraph` on 200k
# unique stacks / 1M samples, depth 10-60, from bench/gen_stacks.py (fixed
# seed).  Budget: <= 1 s wall and <= 256 MiB peak RSS.  With FLAMEGRAPH_DIR
# pointing at a FlameGraph checkout, flamegraph.pl is timed on the same input.
# Env: PERFREPORT_BIN (default ./perfreport), RUNS (default 3),
#      UNIQUE / SAMPLES to change the input size.
set -eu
cd "$(dirname "$0")/.."
BIN=${PERFREPORT_BIN:-./perfreport}
RUNS=${RUNS:-3}
UNIQUE=${UNIQUE:-200000}
SAMPLES=${SAMPLES:-1000000}
if [ ! -x "$BIN" ]; then
    echo "flame bench: $BIN not built; skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/perfreport-flamebench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

python3 bench/gen_stacks.py "$UNIQUE" "$SAMPLES" > "$tmp/stacks.folded"
echo "## perfreport flamegraph: $UNIQUE unique stacks, $SAMPLES samples," \
     "$(wc -c < "$tmp/stacks.folded") bytes of folded input, $RUNS runs"
# measure.py CMD...: runs CMD with stdout to a file, prints "wall_s rss_mib"
cat > "$tmp/measure.py" <<'PY'
import resource, subprocess, sys, time
out = open(sys.argv[1], "wb")
t0 = time.monotonic()
rc = subprocess.call(sys.argv[2:], stdout=out)
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
print("%.3f %.1f %d" % (wall, rss, rc))
PY
printf '%-4s %10s %14s %12s\n' run "wall s" "peak RSS MiB" "SVG KiB"
best=""
i=1
while [ "$i" -le "$RUNS" ]; do
    set -- $(python3 "$tmp/measure.py" "$tmp/out.svg" "$BIN" flamegraph "$tmp/stacks.folded")
    [ "$3" = 0 ] || { echo "flame bench: exit status $3"; exit 1; }
    printf '%-4s %10s %14s %12s\n' "$i" "$1" "$2" "$(( $(wc -c < "$tmp/out.svg") / 1024 ))"
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(not float('$1') < float('$best'))"; then
        best=$1; best_rss=$2
    fi
    i=$((i + 1))
done
echo "best: ${best} s, ${best_rss} MiB   (budget: <= 1 s, <= 256 MiB)"
python3 -c "import sys; sys.exit(not (float('$best') <= 1.0 and float('$best_rss') <= 256))" \
    && echo "within budget" || echo "OVER BUDGET"

if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -x "$FLAMEGRAPH_DIR/flamegraph.pl" ]; then
    set -- $(python3 "$tmp/measure.py" "$tmp/fg.svg" perl "$FLAMEGRAPH_DIR/flamegraph.pl" "$tmp/stacks.folded")
    echo "flamegraph.pl: $1 s, $2 MiB (exit $3); ratio $(python3 -c "print('%.1fx' % (float('$1') / float('$best')))") slower"
fi
