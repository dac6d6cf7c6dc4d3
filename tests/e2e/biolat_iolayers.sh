#!/bin/sh
# The block I/O latency and I/O layers collectors (biolat, iolayers) on this
# host: an fsync loop and a cold then warm read, on a real disk.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip iolayers_all "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip iolayers_all "needs root for BPF"
    exit 0
fi
for w in fsyncer; do
    if [ ! -x "$WL/$w" ]; then
        skip iolayers_all "workload $WL/$w not built (make workloads)"
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
    skip iolayers_all "/var/tmp is tmpfs here; no block device to measure"
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
    not_ok iolayers_fsync "biolat/iolayers did not run: $(json "$TMPD/fsync/report.json" "[(c['name'],c['reason']) for c in d['collectors'] if c['name'] in ('biolat','iolayers')]")"
else
    dev=$(json "$TMPD/fsync/report.json" "sorted((h['name'],h['count']) for h in d['histograms'] if h['name'].startswith('biolat.') and h['name'].endswith('.write') and h['count']>0)")
    case "$dev" in
        *"'biolat.vda.write'"*|*"biolat."*) ok biolat_histogram ;;
        *) not_ok biolat_histogram "no non-empty biolat write histogram: $dev" ;;
    esac
    f=$(json "$TMPD/fsync/report.json" "[(f['severity'],f['title']) for f in d['findings'] if f['id']=='io.fsync']")
    case "$f" in
        *fsyncer*) ok iolayers_fsync_finding ;;
        *) not_ok iolayers_fsync_finding "io.fsync finding: $f; io.fsync rows: $(json "$TMPD/fsync/report.json" "[t['rows'][:2] for t in d['tables'] if t['name']=='io.fsync']")" ;;
    esac
    tbl=$(json "$TMPD/fsync/report.json" "[r['device'] for t in d['tables'] if t['name']=='disk.latency' for r in t['rows']]")
    case "$tbl" in *vd*|*sd*|*nvme*) ok biolat_disk_latency_table ;; *) not_ok biolat_disk_latency_table "$tbl" ;; esac
    if xmllint --noout "$TMPD"/fsync/hist-*.svg 2>/dev/null; then ok biolat_hist_svg_valid
    else not_ok biolat_hist_svg_valid "$(xmllint --noout "$TMPD"/fsync/hist-*.svg 2>&1 | head -3)"; fi
fi
stop_tracked

# (b) cold then warm read of a 200 MB file.  The reader runs in a v2
# cgroup of its own and perfreport filters on it (-c), so other readers on
# a shared host do not blur the hit rate.
V2=$(findmnt -n -t cgroup2 -o TARGET 2>/dev/null | head -1)
if [ -z "$V2" ]; then
    skip iolayers_cache_cold_warm "no cgroup v2 mount for the -c filter"
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
    # The tap stays attached (PERFREPORT_SYSTAP_DUTY=1): a warm read is over
    # in ~0.1 s, which time slices could miss whole (the page lookups are
    # counted inside the read() calls the tap records), and the prime read
    # or other work on the host can be enough for the tap to slice.
    read_in_window() { # DURATION BUNDLE [prime]
        PERFREPORT_SYSTAP_DUTY=1 "$PERFREPORT_BIN" -d "$1" -c "/$CGN" -v -o "$2" --quiet 2> "$2.err" & _p=$!
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
    then ok iolayers_cache_cold_warm
    else not_ok iolayers_cache_cold_warm "hit rate cold $cold (want < 50), warm $warm (want >= 90, the warning threshold)"; fi
    cm=$(json "$TMPD/cold/report.json" "[f['id'] for f in d['findings'] if f['id']=='io.cache_misses']")
    [ "$cm" = "['io.cache_misses']" ] && ok iolayers_cache_misses_finding || not_ok iolayers_cache_misses_finding "cold run findings: $cm"
    wm=$(json "$TMPD/warm/report.json" "[f['id'] for f in d['findings'] if f['id']=='io.cache_misses']")
    [ "$wm" = "[]" ] && ok iolayers_cache_warm_no_finding || not_ok iolayers_cache_warm_no_finding "warm run findings: $wm"
fi

