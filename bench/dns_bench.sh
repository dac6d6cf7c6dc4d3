#!/bin/sh
# Cost of the DNS probes per lookup (collector dns: a uprobe on the entry
# and a uretprobe on the return of getaddrinfo).  tests/workloads/dnsloop
# calls getaddrinfo("localhost") in a tight loop (answered from /etc/hosts:
# no network, so the probe's share is as large as it gets) while perfreport
# runs, once with every collector and once with every collector but dns
# (PERFREPORT_FAULT=dns:start:fail); the loop starts when the window is
# open.  Pairs alternate their order (the VM's speed drifts); the medians
# of ns per call and of the pairs' differences are printed, with the
# lookups the collector counted against those the loop made.
set -eu
cd "$(dirname "$0")/.."
BIN=${PERFREPORT_BIN:-./perfreport}
LOOP=${WL:-build/workloads}/dnsloop
PAIRS=${PAIRS:-7}
SECS=${SECS:-3}
NAME=${NAME:-localhost}
tmp=$(mktemp -d /tmp/perfreport-dnsbench.XXXXXX)
export PERFREPORT_LOCK="$tmp/lock"
trap 'kill $(cat "$tmp/pr" 2>/dev/null) 2>/dev/null; rm -rf "$tmp"' EXIT
[ -x "$LOOP" ] || { echo "build the workloads first (make workloads)" >&2; exit 1; }

# one run: $1 = on|off|bare; prints "ns_per_call counted made"
one() {
    if [ "$1" = bare ]; then
        "$LOOP" "$SECS" "$NAME" | awk '{print $4, "-", $2}'
        return
    fi
    fault=""
    [ "$1" = off ] && fault=dns:start:fail
    rm -rf "$tmp/b"
    PERFREPORT_FAULT=$fault "$BIN" -d $((SECS + 3)) -o "$tmp/b" --quiet -v 2> "$tmp/err" &
    p=$!
    echo "$p" > "$tmp/pr"
    w=0
    until grep -q "perfreport: window open" "$tmp/err"; do
        [ $w -lt 600 ] || { echo "no window after 60 s" >&2; exit 1; }
        sleep 0.1; w=$((w + 1))
    done
    out=$("$LOOP" "$SECS" "$NAME")
    rc=0; wait "$p" || rc=$?
    rm -f "$tmp/pr"
    [ "$rc" != 3 ] || { echo "perfreport failed (exit 3)" >&2; exit 1; }
    counted=$(python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['metrics']
print(int(m['dns.lookups']['value']) if 'dns.lookups' in m else '-')" "$tmp/b/report.json")
    echo "$out" | awk -v c="$counted" '{print $4, c, $2}'
}

: > "$tmp/rows"
i=1
while [ "$i" -le "$PAIRS" ]; do
    b=$(one bare)
    if [ $((i % 2)) = 1 ]; then off=$(one off); on=$(one on); else on=$(one on); off=$(one off); fi
    echo "$b $off $on" >> "$tmp/rows"
    echo "pair $i: bare $b | without dns $off | with dns $on" >&2
    i=$((i + 1))
done
python3 - "$tmp/rows" "$PAIRS" "$NAME" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
bare = [float(r[0]) for r in rows]
off = [float(r[3]) for r in rows]
on = [float(r[6]) for r in rows]
diff = [b - a for a, b in zip(off, on)]
print("getaddrinfo(\"%s\") in a tight loop, median of %s alternating pairs:" % (sys.argv[3], sys.argv[2]))
print("  no perfreport:             %8.0f ns per lookup" % statistics.median(bare))
print("  perfreport without dns:    %8.0f ns per lookup" % statistics.median(off))
print("  perfreport with dns:       %8.0f ns per lookup" % statistics.median(on))
print("  probe cost (pairs' diffs): %8.0f ns per lookup (pairs: %s)" % (
    statistics.median(diff), ", ".join("%.0f" % d for d in diff)))
cnt = [(r[7], r[8]) for r in rows]
print("  lookups counted by the collector / made by the loop: %s" % ", ".join("%s/%s" % c for c in cnt))
PY
