#!/bin/sh
# Exports for other tools, end to end on a real bundle:
#  - cpu.pb.gz / offcpu.pb.gz read back by tests/e2e/pprof_check.py (always)
#    and by `go tool pprof -raw` / `-top` / `-traces` / `-tags` (golang-go;
#    skipped without it): the same totals as the folded files, per process
#    too; the burner's hot function at a line of its own source, the
#    inliner's inline frame a Line of its caller's Location, the burner's
#    mapping with the build-id `readelf -n` reads, samples labelled with the
#    workloads' pid and comm;
#  - --metrics FILE checked by `promtool check metrics` (Debian's prometheus;
#    skipped without it), parsed as OpenMetrics by python3-prometheus-client
#    and scraped through node_exporter's textfile collector on 127.0.0.1;
#  - --metrics replaces the file by rename (a hard link to the old file keeps
#    the old content), replaces a planted symlink instead of following it,
#    in a directory owned by an unprivileged user, and leaves no temp file;
#    a --metrics that cannot be written fails before the window (exit 3).
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip e2e_exports "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip e2e_exports "needs root for BPF"
    exit 0
fi
TOP=${PERFREPORT_TOP:-$(pwd)}
# go and the Debian python module need their own homes and interpreter
SYSPY=/usr/bin/python3
export GOCACHE="$TMPD/gocache" HOME="$TMPD/home"
mkdir -p "$HOME"

# The metrics directory belongs to an unprivileged user, with a symlink
# planted at the final name that points at a root-owned file.
M="$TMPD/textfile"
mkdir -p "$M"
chown nobody "$M" 2>/dev/null || chown 65534 "$M"
printf 'keep\n' > "$TMPD/victim"
ln -s "$TMPD/victim" "$M/perfreport.prom"

# The inliner gives the profile inline frames (spin_outer;spin_inlined_[i]);
# the burner (built with -g) a hot function with its source line, under a
# name of its own (other tests on the host run burners too).
inl_pid="" burn_pid="" burn_comm="ppburn$(($$ % 100000))"
if [ -x "$WL/inliner" ]; then "$WL/inliner" 30 >/dev/null & inl_pid=$!; track $inl_pid; fi
if [ -x "$WL/burner" ]; then "$WL/burner" 30 --comm "$burn_comm" >/dev/null & burn_pid=$!; track $burn_pid; fi
# The sleeper blocks 50 times a second with a user stack of its own, so that
# the off-CPU profile has user frames (with addresses) on a host where
# nothing else wakes in the window (seen in CI: only kernel frames).
if [ -x "$WL/sleeper" ]; then "$WL/sleeper" 30 20 >/dev/null & track $!; fi
sleep 0.3
"$PERFREPORT_BIN" -d 2 -F 99 -o "$TMPD/b" --quiet --metrics "$M/perfreport.prom"
rc=$?
stop_tracked
B="$TMPD/b"
if [ ! -f "$B/manifest.json" ]; then
    not_ok e2e_exports_bundle "no bundle (exit $rc)"
    exit 0
fi
status=$(json "$B/report.json" "[c['status'] for c in d['collectors'] if c['name']=='profile']")

# ---- pprof ----
if [ "$status" != "['ran']" ]; then
    skip e2e_exports_pprof "profile collector did not run"
else
    for p in cpu offcpu; do
        if [ ! -s "$B/$p.folded" ]; then
            skip "e2e_exports_pprof_$p" "no $p.folded in the bundle"
            continue
        fi
        set --
        if [ $p = cpu ] && [ -n "$burn_pid" ] && grep -q "^$burn_comm;" "$B/cpu.folded"; then
            burner_bin=$(cd "$WL" && pwd -P)/burner
            burner_id=$(readelf -n "$burner_bin" 2>/dev/null | awk '/Build ID:/ {print $3}')
            set -- --comm-pid "$burn_comm" "$burn_pid" --func burn_leaf "$TOP/tests/workloads/burner.c"
            [ -n "$burner_id" ] && set -- "$@" --build-id "$burner_bin" "$burner_id"
        fi
        if [ $p = cpu ] && [ -n "$inl_pid" ] && grep -q '^inliner;' "$B/cpu.folded"; then
            set -- "$@" --comm-pid inliner "$inl_pid" --func spin_inlined "$TOP/tests/workloads/inliner.c"
        fi
        python3 "$TOP/tests/e2e/pprof_check.py" "$B/$p.pb.gz" "$B/$p.folded" "$p" "$@" \
            > "$TMPD/$p.check" 2>&1
        while read -r verdict name rest; do
            case $verdict in
                ok) ok "e2e_exports_pprof_${p}_${name%:}" ;;
                bad) not_ok "e2e_exports_pprof_${p}_${name%:}" "$rest" ;;
            esac
        done < "$TMPD/$p.check"
        grep -q '^ok ' "$TMPD/$p.check" || not_ok "e2e_exports_pprof_$p" "$(head -3 "$TMPD/$p.check")"
    done
    # the inliner's inline frame is in the same location as its caller
    if grep -q 'spin_outer;spin_inlined_\[i\]' "$B/cpu.folded"; then
        grep '^chains ' "$TMPD/cpu.check" | grep -q 'spin_inlined<spin_outer' \
            && ok e2e_exports_pprof_inline_location \
            || not_ok e2e_exports_pprof_inline_location "$(grep '^chains ' "$TMPD/cpu.check" | cut -c1-300)"
    else
        skip e2e_exports_pprof_inline_location "no inline frame of the inliner in cpu.folded"
    fi
    # one pprof file per profile of the report (cpu, offcpu, pagefault, ...)
    files=$(json "$B/manifest.json" "sorted(f for f in d['files'] if f.endswith('.pb.gz'))")
    want=$(json "$B/report.json" "sorted(p['name'] + '.pb.gz' for p in d['profiles'])")
    case "$files" in
        *"'cpu.pb.gz'"*"'offcpu.pb.gz'"*)
            [ "$files" = "$want" ] && ok e2e_exports_pprof_manifest \
                || not_ok e2e_exports_pprof_manifest "$files, profiles $want" ;;
        *) not_ok e2e_exports_pprof_manifest "$files" ;;
    esac

    # go tool pprof, the reference reader
    if command -v go >/dev/null 2>&1; then
        for p in cpu offcpu; do
            [ -s "$B/$p.folded" ] || continue
            want=$(awk '{s += $NF} END {print s + 0}' "$B/$p.folded")
            [ $p = offcpu ] && want=$((want * 1000))
            # -raw: "Samples:", a header of sample types, then "  N [M]: ids"
            got=$(go tool pprof -raw "$B/$p.pb.gz" 2>"$TMPD/go.err" \
                | awk '/^Samples:/ {s = 1; getline; next} /^[A-Z]/ {s = 0}
                       s && $0 ~ /^ *[0-9]+( +[0-9]+)*:/ {t += $1} END {printf "%.0f\n", t}')
            if [ "$got" = "$want" ]; then ok "e2e_exports_go_pprof_raw_$p"
            else not_ok "e2e_exports_go_pprof_raw_$p" "go tool pprof -raw total $got, folded $want: $(head -2 "$TMPD/go.err")"; fi
        done
        want=$(awk '{s += $NF} END {print s + 0}' "$B/cpu.folded")
        top=$(go tool pprof -top -sample_index=samples "$B/cpu.pb.gz" 2>/dev/null | grep -m1 'Showing nodes')
        case "$top" in
            *"of $want total"*) ok e2e_exports_go_pprof_top ;;
            *) not_ok e2e_exports_go_pprof_top "folded total $want; pprof: $top" ;;
        esac
        go tool pprof -top -tagfocus='comm=inliner' -sample_index=samples "$B/cpu.pb.gz" \
            > "$TMPD/tag.out" 2>/dev/null
        iw=$(awk '$1 ~ /^inliner(;|$)/ {s += $NF} END {print s + 0}' "$B/cpu.folded")
        if [ "$iw" -gt 0 ]; then
            grep -q "Showing nodes accounting for $iw," "$TMPD/tag.out" \
                && ok e2e_exports_go_pprof_comm_label \
                || not_ok e2e_exports_go_pprof_comm_label "folded inliner total $iw; $(grep -m1 Showing "$TMPD/tag.out")"
        else
            skip e2e_exports_go_pprof_comm_label "no inliner samples"
        fi
        # the burner: its pid as a numeric label, its hot function's source
        # line, its mapping's build-id as readelf reads it
        bw=$(awk -v c="$burn_comm" 'index($1, c ";") == 1 {s += $NF} END {print s + 0}' "$B/cpu.folded")
        if [ -n "$burn_pid" ] && [ "$bw" -gt 0 ]; then
            go tool pprof -top -tagfocus="pid=$burn_pid" -sample_index=samples "$B/cpu.pb.gz" \
                > "$TMPD/pid.out" 2>/dev/null
            grep -q "Showing nodes accounting for $bw," "$TMPD/pid.out" \
                && ok e2e_exports_go_pprof_pid_label \
                || not_ok e2e_exports_go_pprof_pid_label "folded burner total $bw, pid $burn_pid; $(grep -m1 Showing "$TMPD/pid.out")"
            go tool pprof -tags -tagfocus="comm=$burn_comm" "$B/cpu.pb.gz" > "$TMPD/tags.out" 2>/dev/null
            awk '/^ pid:/ {p = 1; next} /^ [a-z]+:/ {p = 0} p && NF {print $NF}' "$TMPD/tags.out" \
                > "$TMPD/tags.pids"
            [ "$(cat "$TMPD/tags.pids")" = "$burn_pid" ] && ok e2e_exports_go_pprof_tags \
                || not_ok e2e_exports_go_pprof_tags "want pid $burn_pid only: $(tr '\n' ' ' < "$TMPD/tags.pids")"
            range=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import pprof_check as c; print("%d %d" % c.func_lines(sys.argv[2], "burn_leaf"))' \
                "$TOP/tests/e2e" "$TOP/tests/workloads/burner.c" 2>/dev/null)
            line=$(go tool pprof -top -lines -tagfocus="pid=$burn_pid" -sample_index=samples "$B/cpu.pb.gz" 2>/dev/null \
                | sed -n 's|.* burn_leaf \(.*tests/workloads/burner\.c\):\([0-9]*\)$|\2|p' | head -1)
            set -- $range
            if [ -n "$line" ] && [ "$line" -ge "${1:-1}" ] && [ "$line" -le "${2:-0}" ]; then
                ok e2e_exports_go_pprof_file_line
            else
                not_ok e2e_exports_go_pprof_file_line "burn_leaf at line '$line', defined at lines $range"
            fi
            burner_bin=$(cd "$WL" && pwd -P)/burner
            burner_id=$(readelf -n "$burner_bin" 2>/dev/null | awk '/Build ID:/ {print $3}')
            if [ -z "$burner_id" ]; then
                skip e2e_exports_go_pprof_build_id "the burner has no build-id note"
            else
                go tool pprof -raw "$B/cpu.pb.gz" 2>/dev/null | awk '/^Mappings/ {m = 1; next} m' \
                    > "$TMPD/maps.out"
                grep -q " $burner_bin $burner_id " "$TMPD/maps.out" \
                    && ok e2e_exports_go_pprof_build_id \
                    || not_ok e2e_exports_go_pprof_build_id "want $burner_bin $burner_id: $(grep burner "$TMPD/maps.out" | head -2)"
            fi
        else
            skip e2e_exports_go_pprof_burner "no burner samples"
        fi
        # the inline frame is a Line of its caller's Location: -traces shows
        # it marked "(inline)" right above its caller
        if grep -q 'spin_outer;spin_inlined_\[i\]' "$B/cpu.folded"; then
            go tool pprof -traces -tagfocus=comm=inliner "$B/cpu.pb.gz" 2>/dev/null \
                | grep -A1 'spin_inlined (inline)$' | grep -q '^ *spin_outer$' \
                && ok e2e_exports_go_pprof_inline \
                || not_ok e2e_exports_go_pprof_inline "$(go tool pprof -traces -tagfocus=comm=inliner "$B/cpu.pb.gz" 2>&1 | grep -m3 spin_)"
        else
            skip e2e_exports_go_pprof_inline "no inline frame of the inliner in cpu.folded"
        fi
    else
        skip e2e_exports_go_pprof "go not installed (Debian golang-go, about 460 MB, is not in make deps)"
    fi
fi

# ---- a targeted run labels on-CPU samples with their thread ----
# (system-wide the profile aggregates per process; with -p, per thread)
if [ -x "$WL/hotthread" ] && command -v go >/dev/null 2>&1; then
    "$WL/hotthread" 20 2 >/dev/null & ht=$!; track $ht
    sleep 0.5
    spin_tid=""
    for t in /proc/$ht/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = hotspin ] && spin_tid=${t##*/}
    done
    "$PERFREPORT_BIN" -d 2 -p "$ht" -o "$TMPD/t" --quiet >/dev/null 2>&1
    stop_tracked
    tags=$(go tool pprof -tags "$TMPD/t/cpu.pb.gz" 2>/dev/null)
    # -tags lists each label's values: "thread: Total N" then "  N (x%): TID"
    threads=$(printf '%s\n' "$tags" | awk '/^ *thread:/ {s = 1; next} /^ *[a-z]+:/ {s = 0}
        s && /: *[0-9]+ *$/ {print $NF}')
    if [ -z "$spin_tid" ]; then
        skip e2e_exports_pprof_thread_label "no hotspin thread in the workload"
    elif printf '%s\n' "$threads" | grep -qx "$spin_tid"; then
        ok e2e_exports_pprof_thread_label
    else
        not_ok e2e_exports_pprof_thread_label "hotspin is tid $spin_tid; thread labels: $(echo $threads | cut -c1-200)"
    fi
else
    skip e2e_exports_pprof_thread_label "needs tests/workloads/hotthread and go"
fi

# ---- --metrics ----
P="$M/perfreport.prom"
if [ -L "$P" ] || [ ! -f "$P" ]; then
    not_ok e2e_exports_metrics_symlink_replaced "$(ls -l "$P" 2>&1)"
elif [ "$(cat "$TMPD/victim")" != keep ]; then
    not_ok e2e_exports_metrics_symlink_replaced "the symlink's target was written"
else
    ok e2e_exports_metrics_symlink_replaced
fi
mode=$(stat -c '%a %U' "$P" 2>/dev/null)
[ "$mode" = "644 root" ] && ok e2e_exports_metrics_mode || not_ok e2e_exports_metrics_mode "$mode"
left=$(ls -A "$M" | grep -v '^perfreport.prom$')
[ -z "$left" ] && ok e2e_exports_metrics_no_temp || not_ok e2e_exports_metrics_no_temp "$left"
grep -q "^perfreport_exit_status $rc\$" "$P" && ok e2e_exports_metrics_exit_status \
    || not_ok e2e_exports_metrics_exit_status "exit $rc; $(grep '^perfreport_exit_status' "$P")"
# one series per finding, the same ids as report.json
want=$(json "$B/report.json" "' '.join(sorted(f['id'] for f in d['findings']))")
got=$(sed -n 's/^perfreport_finding_severity{id="\([^"]*\)".*/\1/p' "$P" | sort | tr '\n' ' ' | sed 's/ $//')
[ "$got" = "$want" ] && ok e2e_exports_metrics_findings || not_ok e2e_exports_metrics_findings "file: '$got' report: '$want'"
[ "$(tail -n 1 "$P")" = "# EOF" ] && ok e2e_exports_metrics_eof || not_ok e2e_exports_metrics_eof "$(tail -n 1 "$P")"

if command -v promtool >/dev/null 2>&1; then
    if promtool check metrics < "$P" > "$TMPD/promtool.out" 2>&1; then ok e2e_exports_promtool
    else not_ok e2e_exports_promtool "$(head -5 "$TMPD/promtool.out")"; fi
else
    skip e2e_exports_promtool "promtool not installed (Debian prometheus, about 330 MB, is not in make deps)"
fi

if $SYSPY -c 'import prometheus_client' 2>/dev/null; then
    om=$($SYSPY - "$P" <<'PY' 2>&1
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = list(text_string_to_metric_families(open(sys.argv[1]).read()))
units = {f.name: f.unit for f in fams if f.unit}
print(len(fams), sum(len(f.samples) for f in fams), units.get('perfreport_run_cpu_seconds', '-'))
PY
)
    case "$om" in
        *" seconds") ok e2e_exports_openmetrics_parse ;;
        *) not_ok e2e_exports_openmetrics_parse "$om" ;;
    esac
else
    skip e2e_exports_openmetrics_parse "python3-prometheus-client not installed"
fi

NE=$(command -v prometheus-node-exporter || command -v node_exporter)
if [ -n "$NE" ]; then
    port=$((20000 + $$ % 20000))
    "$NE" --collector.disable-defaults --collector.textfile --collector.textfile.directory="$M" \
        --web.listen-address="127.0.0.1:$port" > "$TMPD/ne.log" 2>&1 & ne=$!; track $ne
    scraped=""
    i=0
    while [ $i -lt 50 ]; do
        scraped=$(curl -s --max-time 2 "http://127.0.0.1:$port/metrics" 2>/dev/null) && [ -n "$scraped" ] && break
        sleep 0.1; i=$((i + 1))
    done
    stop_tracked
    if printf '%s\n' "$scraped" | grep -q '^node_textfile_scrape_error 0$' \
        && printf '%s\n' "$scraped" | grep -q "^perfreport_exit_status $rc\$"; then
        ok e2e_exports_node_exporter
    else
        not_ok e2e_exports_node_exporter "$(printf '%s\n' "$scraped" | grep -E 'textfile|perfreport_exit' | head -3) $(tail -2 "$TMPD/ne.log")"
    fi
else
    skip e2e_exports_node_exporter "prometheus-node-exporter not installed"
fi

# ---- replaced by rename, never rewritten in place ----
ln "$P" "$TMPD/old.prom"
"$PERFREPORT_BIN" -d 0.5 -o "$TMPD/b2" --quiet --no-bpf --metrics "$P"
rc2=$?
if cmp -s "$P" "$TMPD/old.prom"; then
    not_ok e2e_exports_metrics_rename "the file was not replaced"
elif [ "$(stat -c %i "$P")" = "$(stat -c %i "$TMPD/old.prom")" ]; then
    not_ok e2e_exports_metrics_rename "the file was rewritten in place"
elif grep -q "^perfreport_exit_status $rc\$" "$TMPD/old.prom" && grep -q "^perfreport_exit_status $rc2\$" "$P"; then
    ok e2e_exports_metrics_rename
else
    not_ok e2e_exports_metrics_rename "old: $(grep exit_status "$TMPD/old.prom"), new: $(grep exit_status "$P")"
fi

# ---- a --metrics that cannot be written stops the run before its window ----
start=$(date +%s)
"$PERFREPORT_BIN" -d 30 -o "$TMPD/b3" --quiet --no-bpf --metrics "$TMPD/missing/perfreport.prom" \
    2> "$TMPD/bad.err"
rc3=$?
took=$(( $(date +%s) - start ))
if [ $rc3 = 3 ] && [ $took -lt 15 ] && [ ! -e "$TMPD/b3" ] && grep -q -- '--metrics' "$TMPD/bad.err"; then
    ok e2e_exports_metrics_bad_path
else
    not_ok e2e_exports_metrics_bad_path "exit $rc3 after $took s: $(head -2 "$TMPD/bad.err")"
fi
"$PERFREPORT_BIN" -d 30 -o "$TMPD/b4" --quiet --no-bpf --metrics "$M" 2> "$TMPD/dir.err"
rc4=$?
[ $rc4 = 3 ] && [ ! -e "$TMPD/b4" ] && ok e2e_exports_metrics_is_dir \
    || not_ok e2e_exports_metrics_is_dir "exit $rc4: $(head -2 "$TMPD/dir.err")"
