#!/bin/sh
# The classic-tracepoint versions of the BPF collectors, which hosts without
# kernel BTF (tp_btf) take; forced here with PERFREPORT_FORCE_CLASSIC=1 while
# real workloads run: CPU burners (run queue), an fsync loop (block I/O),
# failing syscalls, a contended mutex (futex) and an exec loop (churn).
# Root + BPF only.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then skip classic_all "binary $PERFREPORT_BIN not built"; exit 0; fi
if ! need_root; then skip classic_all "needs root for BPF"; exit 0; fi

coll() { json "$TMPD/c/manifest.json" "next('%s|%s|%s' % (c['status'], c['reason'], c['notes']) for c in d['collectors'] if c['name']=='$1')"; }

for i in 1 2 3; do "$WL/burner" 9 1 >/dev/null & track $!; done # run-queue latency
DATA=$(mktemp -d /var/tmp/perfreport-classic.XXXXXX) # on the disk, not a tmpfs
on_cleanup "rm -rf '$DATA'"
"$WL/fsyncer" "$DATA/fsync.dat" 9 >/dev/null 2>&1 & track $!
"$WL/failer" 9 20000 >/dev/null & track $!
"$WL/mutexfight" 9 >/dev/null & track $!
sh -c 'i=0; while [ $i -lt 3000 ]; do /bin/true; i=$((i + 1)); done' & track $!
sleep 0.5
PERFREPORT_FORCE_CLASSIC=1 "$PERFREPORT_BIN" -d 4 -o "$TMPD/c" --quiet
rc=$?
# skipped sections are not failures: a full (1) or critical (2) report
case "$rc" in
    1|2) ok classic_exit_status_not_partial ;;
    *) not_ok classic_exit_status_not_partial "exit $rc" ;;
esac

for c in runqlat biolat syscalls procevents tcpevents offcpu futex; do
    v=$(coll $c)
    case "$v" in
        ran*classic*) ok "classic_${c}_ran_on_classic_tracepoints" ;;
        *) not_ok "classic_${c}_ran_on_classic_tracepoints" "$v" ;;
    esac
done
for c in iolayers oomkill; do
    v=$(coll $c)
    case "$v" in
        skipped*PERFREPORT_FORCE_CLASSIC*) ok "classic_${c}_skipped_with_reason" ;;
        *) not_ok "classic_${c}_skipped_with_reason" "$v" ;;
    esac
done

got=$(json "$TMPD/c/report.json" "' '.join(sorted(set(f['id'] for f in d['findings'])))")
for id in syscall.errors lock.contention process.churn; do
    case " $got " in
        *" $id "*) ok "classic_finding_$id" ;;
        *) not_ok "classic_finding_$id" "findings: $got" ;;
    esac
done
h=$(json "$TMPD/c/report.json" "(sum(x['count'] for x in d['histograms'] if x['name']=='runqlat'), sum(x['count'] for x in d['histograms'] if x['name'].startswith('biolat.') and x['name'].endswith('.write')))")
case "$(python3 -c "r, b = $h; print('ok' if r > 1000 and b > 100 else 'bad')")" in
    ok) ok classic_runqlat_and_biolat_histograms ;;
    *) not_ok classic_runqlat_and_biolat_histograms "(runqlat, block writes): $h" ;;
esac
n=$(grep -c . "$TMPD/c/offcpu.folded" 2>/dev/null || echo 0)
if [ "$n" -gt 0 ]; then ok classic_offcpu_folded_stacks; else not_ok classic_offcpu_folded_stacks "offcpu.folded: $n lines"; fi
wait
