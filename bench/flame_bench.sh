#!/bin/sh
# Flamegraph benchmark (design section 9): `perfreport flamegraph` on 200k
# unique stacks / 1M samples, depth 10-60, from bench/gen_stacks.py (fixed
# seed).  Budget: <= 1 s wall and <= 256 MiB peak RSS.  With FLAMEGRAPH_DIR
# pointing at a FlameGraph checkout, flamegraph.pl is timed on the same input
# (FG_RUNS times, default 1: it takes minutes) and the script prints how many
# times faster and leaner perfreport is, against the goals of issue 14:
# >= 35x faster and <= 1/9 of flamegraph.pl's peak RSS.  The ratios use the
# median of perfreport's runs.
# Env: PERFREPORT_BIN (default ./perfreport), RUNS (default 3), FG_RUNS,
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
runs=""
i=1
while [ "$i" -le "$RUNS" ]; do
    set -- $(python3 "$tmp/measure.py" "$tmp/out.svg" "$BIN" flamegraph "$tmp/stacks.folded")
    [ "$3" = 0 ] || { echo "flame bench: exit status $3"; exit 1; }
    printf '%-4s %10s %14s %12s\n' "$i" "$1" "$2" "$(( $(wc -c < "$tmp/out.svg") / 1024 ))"
    runs="$runs $1:$2"
    i=$((i + 1))
done
# "best median best_rss median_rss": the RSS of the best and of the median run
set -- $(python3 -c '
import sys
r = sorted((float(w), float(m)) for w, m in (x.split(":") for x in sys.argv[1:]))
b, m = r[0], r[(len(r) - 1) // 2]
print(b[0], m[0], b[1], m[1])' $runs)
best=$1 median=$2 best_rss=$3 median_rss=$4
echo "best: ${best} s, ${best_rss} MiB; median: ${median} s, ${median_rss} MiB" \
     "  (budget: <= 1 s, <= 256 MiB)"
python3 -c "import sys; sys.exit(not (float('$best') <= 1.0 and float('$best_rss') <= 256))" \
    && echo "within budget" || echo "OVER BUDGET"

if [ -n "${FLAMEGRAPH_DIR:-}" ]; then
    if [ ! -f "$FLAMEGRAPH_DIR/flamegraph.pl" ]; then
        echo "flame bench: no flamegraph.pl in FLAMEGRAPH_DIR=$FLAMEGRAPH_DIR"
        exit 1
    fi
    fgruns=""
    i=1
    while [ "$i" -le "${FG_RUNS:-1}" ]; do
        set -- $(python3 "$tmp/measure.py" "$tmp/fg.svg" perl "$FLAMEGRAPH_DIR/flamegraph.pl" "$tmp/stacks.folded")
        [ "$3" = 0 ] || { echo "flame bench: flamegraph.pl exit status $3"; exit 1; }
        echo "flamegraph.pl run $i: $1 s, $2 MiB"
        fgruns="$fgruns $1:$2"
        i=$((i + 1))
    done
    python3 -c '
import sys
med, med_rss = float(sys.argv[1]), float(sys.argv[2])
r = sorted((float(w), float(m)) for w, m in (x.split(":") for x in sys.argv[3:]))
fg, fg_rss = r[(len(r) - 1) // 2]
speed, mem = fg / med, fg_rss / med_rss
print("flamegraph.pl (median of %d): %.2f s, %.1f MiB" % (len(r), fg, fg_rss))
print("perfreport is %.1fx faster (goal >= 35x: %s) and uses 1/%.1f of the memory"
      " (goal <= 1/9: %s)" % (speed, "met" if speed >= 35 else "NOT MET",
                              mem, "met" if mem >= 9 else "NOT MET"))' \
        "$median" "$median_rss" $fgruns
fi
