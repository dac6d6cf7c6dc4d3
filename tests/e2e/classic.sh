#!/bin/sh
# The classic-tracepoint versions of the BPF collectors, which kernels whose
# BTF lacks the tp_btf hooks take; forced here with PERFREPORT_FORCE_CLASSIC=1
# while real workloads run: CPU burners (run queue), an fsync loop (block
# I/O), failing syscalls, a contended mutex (futex) and an exec loop (churn).
# Root + BPF only.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then skip classic_all "binary $PERFREPORT_BIN not built"; exit 0; fi
if ! need_root; then skip classic_all "needs root for BPF"; exit 0; fi
for w in burner fsyncer failer mutexfight; do
    [ -x "$WL/$w" ] || { skip classic_all "workload $WL/$w not built"; exit 0; }
done
DATA=$(mktemp -d /var/tmp/perfreport-classic.XXXXXX) || { not_ok classic_all "mktemp in /var/tmp failed"; exit 0; }
on_cleanup "rm -rf '$DATA'"
if [ "$(stat -f -c %T "$DATA")" = tmpfs ]; then
    skip classic_all "/var/tmp is tmpfs here; no block device for the fsync loop"
    exit 0
fi

coll() { json "$TMPD/c/manifest.json" "next('%s|%s|%s' % (c['status'], c['reason'], c['notes']) for c in d['collectors'] if c['name']=='$1')"; }

# The workloads outlast the run (they are stopped after it): the futex
# collector reads the contending process's threads when it drains.
PERFREPORT_FORCE_CLASSIC=1 "$PERFREPORT_BIN" -d 4 -o "$TMPD/c" --quiet -v 2>"$TMPD/c.err" & pr=$!
wait_window "$TMPD/c.err"
wl=""
for i in 1 2 3; do "$WL/burner" 20 1 >/dev/null & wl="$wl $!"; done # run-queue latency
"$WL/fsyncer" "$DATA/fsync.dat" 20 >/dev/null & wl="$wl $!"
"$WL/failer" 20 20000 >/dev/null & wl="$wl $!"
"$WL/mutexfight" 20 >/dev/null & wl="$wl $!"
# ~1500 execs: churn, and well within the (process, syscall) table
sh -c 'i=0; while [ $i -lt 1500 ]; do /bin/true; i=$((i + 1)); done' & wl="$wl $!"
for p in $wl; do track "$p"; done
rc=0
wait $pr || rc=$?
kill $wl 2>/dev/null
wait 2>/dev/null
# skipped sections are not failures: a warning (1) or critical (2) report, not partial
case "$rc" in
    1|2) ok classic_exit_status_not_partial ;;
    *) not_ok classic_exit_status_not_partial "exit $rc: $(grep -v '^libbpf' "$TMPD/c.err" | head -c 300); $(json "$TMPD/c/manifest.json" "[(c['name'], c['status'], c['reason']) for c in d['collectors'] if c['status'] not in ('ran', 'skipped')]" 2>&1 | head -c 600)" ;;
esac

for c in runqlat biolat syscalls procevents tcpevents offcpu futex; do
    v=$(coll $c)
    case "$v" in
        ran*classic*) ok "classic_${c}_ran_on_classic_tracepoints" ;;
        *) not_ok "classic_${c}_ran_on_classic_tracepoints" "$v" ;;
    esac
done
case "$(coll syscalls)" in
    *"slots full"*) not_ok classic_syscalls_nothing_lost "$(coll syscalls)" ;;
    *) ok classic_syscalls_nothing_lost ;;
esac
for c in iolayers oomkill; do
    v=$(coll $c)
    case "$v" in
        skipped*PERFREPORT_FORCE_CLASSIC*) ok "classic_${c}_skipped_with_reason" ;;
        *) not_ok "classic_${c}_skipped_with_reason" "$v" ;;
    esac
done

got=$(json "$TMPD/c/report.json" "' '.join(sorted(set(f['id'] for f in d['findings'])))")
for id in syscall.errors lock.contention; do
    case " $got " in
        *" $id "*) ok "classic_finding_$id" ;;
        *) not_ok "classic_finding_$id" "findings: $got" ;;
    esac
done
# The exec loop, counted by the classic sched_process_exec hook (with the
# burners on the CPUs it runs ~70/s, too cheap to be a finding of its own).
n_true=$(json "$TMPD/c/report.json" "sum(r['execs'] for t in d['tables'] if t['name']=='proc.execs' for r in t['rows'] if r['comm']=='true')")
if [ "${n_true%.*}" -ge 100 ] 2>/dev/null; then ok classic_procevents_counted_execs
else not_ok classic_procevents_counted_execs "execs of true: $n_true"; fi
h=$(json "$TMPD/c/report.json" "(sum(x['count'] for x in d['histograms'] if x['name']=='runqlat'), sum(x['count'] for x in d['histograms'] if x['name'].startswith('biolat.') and x['name'].endswith('.write')))")
case "$(python3 -c "r, b = $h; print('ok' if r > 1000 and b > 100 else 'bad')")" in
    ok) ok classic_runqlat_and_biolat_histograms ;;
    *) not_ok classic_runqlat_and_biolat_histograms "(runqlat, block writes): $h" ;;
esac
n=$(grep -c . "$TMPD/c/offcpu.folded" 2>/dev/null)
if [ "${n:-0}" -gt 0 ]; then ok classic_offcpu_folded_stacks; else not_ok classic_offcpu_folded_stacks "offcpu.folded: ${n:-missing}"; fi
