#!/bin/sh
# The process event collector end to end: exec churn and process lifetimes.
# Root + BPF only.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then skip procevents_all "binary $PERFREPORT_BIN not built"; exit 0; fi
if ! need_root; then skip procevents_all "needs root for BPF"; exit 0; fi

finding() { # bundle id -> "severity|title|evidence..." or "none"
    json "$1/report.json" "next(('%s|%s|%s' % (f['severity'], f['title'], ' '.join(f['evidence'])) for f in d['findings'] if f['id']=='$2'), 'none')"
}
ran() { json "$1/manifest.json" "next((c['status'] for c in d['collectors'] if c['name']=='$2'), 'absent')"; }

# Exec churn: a shell loop running /bin/true (a few hundred per second;
# no other program is executed by the loop), stopped after the run.
sh -c 'while :; do /bin/true; done' & track $!
sleep 0.5
"$PERFREPORT_BIN" -d 3 -o "$TMPD/churn" --quiet
# The loop's cost (a third of this host's CPUs or more) is the finding: its
# own, or, when the CPUs are saturated by it, part of cpu.saturation's story
# with "true" as the busiest command.
f=$(finding "$TMPD/churn" process.churn)
s=$(finding "$TMPD/churn" cpu.saturation)
case "$f|$s" in
    warning*'"true"'*|critical*'"true"'*) ok procevents_churn_names_true ;;
    none\|*'command true:'*'(process.churn)'*'"true"'*) ok procevents_churn_names_true ;;
    *) not_ok procevents_churn_names_true "churn: $f; saturation: $s" ;;
esac
lt=$(json "$TMPD/churn/report.json" "[h['count'] for h in d['histograms'] if h['name']=='proc.lifetime']")
case "$lt" in
    "[0]"|"[]") not_ok procevents_lifetime_hist "proc.lifetime histogram: $lt" ;;
    "["*) ok procevents_lifetime_hist ;;
    *) not_ok procevents_lifetime_hist "report.json unreadable: $lt" ;;
esac
stop_tracked
