#!/bin/sh
# Kernel-side I/O and scheduler collectors (runqlat, biolat, iolayers) on
# this host, with workloads that produce a known pattern.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip kio_all "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip kio_all "needs root for BPF"
    exit 0
fi
for w in fsyncer burner sleeper; do
    if [ ! -x "$WL/$w" ]; then
        skip kio_all "workload $WL/$w not built (make workloads)"
        exit 0
    fi
done

ran() { # bundle collector
    json "$1/report.json" "[c['status'] for c in d['collectors'] if c['name']=='$2']"
}

# The data file must be on a real disk: /tmp may be tmpfs (no block I/O).
DATA=$(mktemp -d /var/tmp/perfreport-kio.XXXXXX)
on_cleanup "rm -rf '$DATA'"
if [ "$(stat -f -c %T "$DATA")" = tmpfs ]; then
    skip kio_all "/var/tmp is tmpfs here; no block device to measure"
    exit 0
fi

# (a) fsync loop: biolat sees the disk, io.fsync names fsyncer.
# The workloads outlast the run and are stopped after it: a slow (ASan)
# start must not move the window past their end.
"$WL/fsyncer" "$DATA/fsync.dat" 60 >/dev/null &
track $!
sleep 0.5
"$PERFREPORT_BIN" -d 4 -o "$TMPD/fsync" --quiet
if [ "$(ran "$TMPD/fsync" biolat)" != "['ran']" ] || [ "$(ran "$TMPD/fsync" iolayers)" != "['ran']" ]; then
    not_ok kio_fsync "biolat/iolayers did not run: $(json "$TMPD/fsync/report.json" "[(c['name'],c['reason']) for c in d['collectors'] if c['name'] in ('biolat','iolayers')]")"
else
    dev=$(json "$TMPD/fsync/report.json" "sorted((h['name'],h['count']) for h in d['histograms'] if h['name'].startswith('biolat.') and h['name'].endswith('.write') and h['count']>0)")
    case "$dev" in
        *"'biolat.vda.write'"*|*"biolat."*) ok kio_biolat_histogram ;;
        *) not_ok kio_biolat_histogram "no non-empty biolat write histogram: $dev" ;;
    esac
    f=$(json "$TMPD/fsync/report.json" "[(f['severity'],f['title']) for f in d['findings'] if f['id']=='io.fsync']")
    case "$f" in
        *fsyncer*) ok kio_fsync_finding ;;
        *) not_ok kio_fsync_finding "io.fsync finding: $f; io.fsync rows: $(json "$TMPD/fsync/report.json" "[t['rows'][:2] for t in d['tables'] if t['name']=='io.fsync']")" ;;
    esac
    tbl=$(json "$TMPD/fsync/report.json" "[r['device'] for t in d['tables'] if t['name']=='disk.latency' for r in t['rows']]")
    case "$tbl" in *vd*|*sd*|*nvme*) ok kio_disk_latency_table ;; *) not_ok kio_disk_latency_table "$tbl" ;; esac
    if xmllint --noout "$TMPD"/fsync/hist-*.svg 2>/dev/null; then ok kio_hist_svg_valid
    else not_ok kio_hist_svg_valid "$(xmllint --noout "$TMPD"/fsync/hist-*.svg 2>&1 | head -3)"; fi
fi
stop_tracked

# (b) cold then warm read of a 200 MB file.  The reader runs in a v2
# cgroup of its own and perfreport filters on it (-c), so other readers on
# a shared host do not blur the hit rate.
V2=$(findmnt -n -t cgroup2 -o TARGET 2>/dev/null | head -1)
if [ -z "$V2" ]; then
    skip kio_cache_cold_warm "no cgroup v2 mount for the -c filter"
else
    CGN=perfreport-kio-$$
    mkdir "$V2/$CGN"
    on_cleanup "rmdir '$V2/$CGN' 2>/dev/null"
    dd if=/dev/urandom of="$DATA/big.dat" bs=1M count=200 status=none
    sync
    hit() { json "$1/report.json" "[v['value'] for k, v in d['metrics'].items() if k=='io.cache_hit_pct']"; }
    reader() { sh -c "echo \$\$ > '$V2/$CGN/cgroup.procs'; exec cat '$DATA/big.dat'" >/dev/null; }
    # The read starts once the window is open: a warm read takes ~0.1 s and
    # a slow (ASan) start takes over a second.  For the warm run the file is
    # read once more just before, from outside the cgroup (not counted):
    # proactive reclaim (this VM runs DAMON pageout) evicts 5-20 % of it
    # within the few seconds since the cold run.
    read_in_window() { # DURATION BUNDLE [prime]
        "$PERFREPORT_BIN" -d "$1" -c "/$CGN" -v -o "$2" --quiet 2> "$2.err" & _p=$!
        wait_window "$2.err"
        [ "${3:-}" = prime ] && cat "$DATA/big.dat" >/dev/null
        reader
        wait "$_p"
    }
    echo 3 > /proc/sys/vm/drop_caches
    read_in_window 4 "$TMPD/cold"
    read_in_window 3 "$TMPD/warm" prime
    cold=$(hit "$TMPD/cold")
    warm=$(hit "$TMPD/warm")
    if python3 -c "import sys; c=$cold; w=$warm; sys.exit(0 if c and w and c[0] < 50 and w[0] >= 90 else 1)" 2>/dev/null
    then ok kio_cache_cold_warm
    else not_ok kio_cache_cold_warm "hit rate cold $cold (want < 50), warm $warm (want >= 90, the warning threshold)"; fi
    cm=$(json "$TMPD/cold/report.json" "[f['id'] for f in d['findings'] if f['id']=='io.cache_misses']")
    [ "$cm" = "['io.cache_misses']" ] && ok kio_cache_misses_finding || not_ok kio_cache_misses_finding "cold run findings: $cm"
    wm=$(json "$TMPD/warm/report.json" "[f['id'] for f in d['findings'] if f['id']=='io.cache_misses']")
    [ "$wm" = "[]" ] && ok kio_cache_warm_no_finding || not_ok kio_cache_warm_no_finding "warm run findings: $wm"
fi

# (c) eight CPU burners on two CPUs: run-queue latency.
taskset -c 0,1 "$WL/burner" 60 8 --comm kioburn >/dev/null &
track $!
sleep 0.5
"$PERFREPORT_BIN" -d 4 -o "$TMPD/burn" --quiet
p99=$(json "$TMPD/burn/report.json" "[round(h['p99']) for h in d['histograms'] if h['name']=='runqlat']")
f=$(json "$TMPD/burn/report.json" "[(f['id'],f['title']) for f in d['findings'] if f['id']=='sched.runqueue_latency']")
case "$f" in
    *kioburn*) ok kio_runqueue_latency ;;
    *) not_ok kio_runqueue_latency "runqlat p99 $p99 us; finding $f" ;;
esac
if python3 -c "import sys; sys.exit(0 if $p99 and $p99[0] >= 5000 else 1)"; then ok kio_runqlat_p99_high
else not_ok kio_runqlat_p99_high "p99 $p99 us"; fi
stop_tracked

# (d) perfreport and a 1 ms sleeper share CPU 0: waits that end when one of
# perfreport's threads gives up the CPU are counted apart (runqlat.behind_self,
# sched.runq_behind_self), and the sleeper's ~2,800 wakeups in the window
# still fill the host's histogram.
taskset -c 0 "$WL/sleeper" 60 1 >/dev/null &
track $!
sleep 0.3
taskset -c 0 "$PERFREPORT_BIN" -d 3 -i 0.2 -o "$TMPD/self" --quiet
got=$(json "$TMPD/self/report.json" "(d['metrics'].get('sched.runq_behind_self', {}).get('value'), sum(h['count'] for h in d['histograms'] if h['name']=='runqlat.behind_self'), sum(h['count'] for h in d['histograms'] if h['name']=='runqlat'))")
if python3 -c "import sys; m, h, w = $got; sys.exit(0 if m and h and w >= 1000 else 1)"; then
    ok kio_runqlat_behind_self_apart
else
    not_ok kio_runqlat_behind_self_apart "(metric, its histogram's count, host waits): $got"
fi
stop_tracked
