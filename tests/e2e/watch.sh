#!/bin/sh
# perfreport watch: a bad --when is refused at start (exit 3, the message
# naming the bad part, nothing made); started after the watcher, a CPU
# stress triggers one capture through the 1 Hz cpu.util_pct condition and
# one through a kernel PSI trigger, and an OOM kill one through
# memory.oom, each bundle recording its reason; the condition seen again
# within the cooldown makes no second bundle; SIGTERM during a capture
# publishes it marked INCOMPLETE and ends the watcher.
. tests/lib.sh
if [ ! -x "$PERFREPORT_BIN" ]; then skip watch "binary $PERFREPORT_BIN not built"; exit 0; fi

bad() { # NAME EXPR EXPECTED
    out=$("$PERFREPORT_BIN" watch -o "$TMPD/never" --when "$2" 2>&1); rc=$?
    if [ "$rc" = 3 ] && printf '%s' "$out" | grep -qF -- "$3" && [ ! -e "$TMPD/never" ]; then
        ok "$1"
    else
        not_ok "$1" "exit $rc: $out"
    fi
}
bad watch_when_unknown_name_refused 'cpu.utl>90' "--when 'cpu.utl>90': 'cpu.utl': unknown condition"
bad watch_when_bad_number_refused 'cpu.util_pct>>90' "'>90': expected a percentage"
bad watch_when_psi_window_refused 'psi.memory.some>20 for 30s' "'30s': a PSI window is 0.5 to 10 s"
bad watch_when_event_comparison_refused 'memory.oom>1' "'>1': memory.oom is an event"
for v in 3601 -1 1e9 60x; do
    out=$("$PERFREPORT_BIN" watch -o "$TMPD/never" --before "$v" 2>&1); rc=$?
    if [ "$rc" = 3 ] && printf '%s' "$out" | grep -qF -- "--before" && [ ! -e "$TMPD/never" ]; then
        ok "watch_before_refused_$v"
    else
        not_ok "watch_before_refused_$v" "exit $rc: $out"
    fi
done
# a terminal escape in the expression reaches the terminal escaped
out=$("$PERFREPORT_BIN" watch -o "$TMPD/never" --when "$(printf '\033]0;pwned\007')" 2>&1); rc=$?
if [ "$rc" = 3 ] && ! printf '%s' "$out" | od -An -c | grep -q '033'; then
    ok watch_when_escape_not_printed
else
    not_ok watch_when_escape_not_printed "exit $rc: $(printf '%s' "$out" | od -An -c | head -3)"
fi

# One watcher per directory: a second one on it is refused (exit 3) while
# the first waits; the first killed (SIGKILL, nothing cleaned up), a new one
# starts on the same directory and waits.
wait_for() { # FILE TEXT: up to 30 s
    _n=0
    until grep -qF -- "$2" "$1" 2>/dev/null; do
        [ $_n -ge 300 ] && return 1
        sleep 0.1; _n=$((_n + 1))
    done
}
W=$TMPD/lock
"$PERFREPORT_BIN" watch -o "$W" --when 'cpu.util_pct>99.99 for 3600s' --before 0 2>"$TMPD/lock1.err" &
w1=$!; track $w1
if wait_for "$TMPD/lock1.err" "perfreport watch: waiting"; then
    out=$("$PERFREPORT_BIN" watch -o "$W" --when 'cpu.util_pct>99.99 for 3600s' 2>&1); rc=$?
    if [ "$rc" = 3 ] && printf '%s' "$out" | grep -qF "holds its lock"; then
        ok watch_one_watcher_per_directory
    else
        not_ok watch_one_watcher_per_directory "exit $rc: $out"
    fi
    kill -KILL $w1; wait $w1 2>/dev/null
    "$PERFREPORT_BIN" watch -o "$W" --when 'cpu.util_pct>99.99 for 3600s' 2>"$TMPD/lock2.err" &
    w2=$!; track $w2
    if wait_for "$TMPD/lock2.err" "perfreport watch: waiting"; then
        kill -TERM $w2; wait $w2; rc=$?
        if [ "$rc" = 0 ]; then ok watch_restart_after_sigkill
        else not_ok watch_restart_after_sigkill "exit $rc after SIGTERM: $(cat "$TMPD/lock2.err")"; fi
    else
        not_ok watch_restart_after_sigkill "$(cat "$TMPD/lock2.err")"
        kill -KILL $w2 2>/dev/null
    fi
else
    not_ok watch_one_watcher_per_directory "the first did not start: $(cat "$TMPD/lock1.err")"
    kill -KILL $w1 2>/dev/null
fi

# The lock is no one else's to hold: nobody, who can open a 0755 DIR
# read-only, flocks the directory itself (as the old lock was); a watcher
# still starts there and a second one is still refused.  A lock file nobody
# planted in a directory open to all is refused, not used.
if need_root && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 &&
    command -v flock >/dev/null 2>&1; then
    chmod 711 "$TMPD"
    P=$TMPD/pub && mkdir -m 0755 "$P"
    H=$TMPD/holder && mkdir -m 0777 "$H"
    # 'flock DIR sleep': flock(1) opens the directory read-only, locks it
    # and runs the command, which writes its pid (to be ended) once held
    setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
        flock -n "$P" sh -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec sleep 120' \
        "$H/pid" >"$H/out" 2>&1 &
    holder=$!; track $holder
    _n=0
    while [ ! -s "$H/pid" ] && [ $_n -lt 100 ] && kill -0 $holder 2>/dev/null; do
        sleep 0.1; _n=$((_n + 1))
    done
    if [ -s "$H/pid" ]; then
        "$PERFREPORT_BIN" watch -o "$P" --when 'cpu.util_pct>99.99 for 3600s' --before 0 \
            2>"$TMPD/pub1.err" &
        w1=$!; track $w1
        if wait_for "$TMPD/pub1.err" "perfreport watch: waiting"; then
            out=$("$PERFREPORT_BIN" watch -o "$P" --when 'cpu.util_pct>99.99 for 3600s' 2>&1)
            rc=$?
            mode=$(stat -c '%a %u %F' "$P/.perfreport-watch.lock")
            if [ "$rc" = 3 ] && printf '%s' "$out" | grep -qF "holds its lock" &&
                [ "$mode" = "600 0 regular empty file" ]; then
                ok watch_lock_not_held_by_a_reader
            else
                not_ok watch_lock_not_held_by_a_reader "second: exit $rc: $out; lock file: $mode"
            fi
        else
            not_ok watch_lock_not_held_by_a_reader "did not start beside nobody's flock: $(cat "$TMPD/pub1.err")"
        fi
        kill -TERM $w1 2>/dev/null; wait $w1 2>/dev/null
    else
        not_ok watch_lock_not_held_by_a_reader "nobody's flock on $P: $(cat "$H/out")"
    fi
    [ -s "$H/pid" ] && kill "$(cat "$H/pid")" 2>/dev/null
    kill $holder 2>/dev/null; wait $holder 2>/dev/null
    O=$TMPD/open && mkdir -m 1777 "$O"
    setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
        sh -c "umask 0; : >'$O/.perfreport-watch.lock'"
    out=$(timeout 5 "$PERFREPORT_BIN" watch -o "$O" --when 'cpu.util_pct>99.99 for 3600s' \
        --before 0 2>&1); rc=$?
    if [ "$rc" = 3 ] && printf '%s' "$out" | grep -qF "is not a regular file of the user" &&
        [ "$(stat -c %s "$O/.perfreport-watch.lock")" = 0 ]; then
        ok watch_planted_lock_file_refused
    else
        not_ok watch_planted_lock_file_refused "exit $rc: $out"
    fi
else
    skip watch_lock_not_held_by_a_reader "needs root, user nobody, setpriv and flock"
fi

if ! need_root; then skip watch_captures "needs root"; exit 0; fi

spinners=""
spin() { # N: N busy shells
    for _i in $(seq "$1"); do sh -c 'while :; do :; done' & track $!; spinners="$spinners $!"; done
}
stop_spin() { for p in $spinners; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; spinners=""; }
wait_log() { # FILE TEXT [SECONDS]
    _n=0
    until grep -qF -- "$2" "$1" 2>/dev/null; do
        [ $_n -ge $((${3:-60} * 10)) ] && return 1
        sleep 0.1; _n=$((_n + 1))
    done
}
bundles() { ls -d "$1"/perfreport-* 2>/dev/null | grep -v '\.tmp' | wc -l; }

# 1. cpu.util_pct at 1 Hz: two spinners on this 2-CPU host, started once
# the watcher has waited 4 s; the first bundle, then the same condition
# within the cooldown: said, not captured.  The bundle's charted series
# begin before the trigger (--before) with the calm seconds and the
# stress's start in them.
W=$TMPD/cpu
"$PERFREPORT_BIN" watch -o "$W" --when 'cpu.util_pct>80 for 2s' -d 2 --cooldown 600 \
    --before 30 2>"$TMPD/cpu.err" &
wp=$!; track $wp
if ! wait_log "$TMPD/cpu.err" "perfreport watch: waiting (bundles in $W)" 30; then
    not_ok watch_cpu_util_triggers "the watcher did not start: $(tail -n 5 "$TMPD/cpu.err")"
else
    sleep 4
    spin 2
    if wait_log "$TMPD/cpu.err" "perfreport watch: bundle $W/perfreport-" 90 \
        && wait_log "$TMPD/cpu.err" "not captured (cooldown" 30; then
        b=$(ls -d "$W"/perfreport-* | head -n 1)
        trig=$(json "$b/report.json" "d['host']['trigger']" 2>&1)
        n=$(bundles "$W")
        case "$trig" in
            "cpu.util_pct>80 for 2s: "[89]*" % at "*|"cpu.util_pct>80 for 2s: 100.0 % at "*)
                if grep -q "Triggered by" "$b/index.html"; then ok watch_cpu_util_triggers
                else not_ok watch_cpu_util_triggers "index.html does not say what triggered it"; fi ;;
            *) not_ok watch_cpu_util_triggers "trigger: $trig" ;;
        esac
        # the minutes before: ticks before the trigger, calm (< 50 %) then
        # the stress (> 80 %) among them, the trigger after the last of
        # them and before the window; the headline and every chart say it
        before=$(python3 - "$b" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/report.json"))
w, s = d["window"], d["series"]
t = s["ticks"]
u = next(i["values"] for i in s["items"] if i["name"] == "cpu.util_pct")
ts = w.get("trigger_s")
if ts is None or not ts < 0:
    sys.exit("trigger_s %r" % ts)
pre = [(x, v) for x, v in zip(t, u) if x <= ts and v is not None]
busy = [x for x, v in pre if v > 80]
# below the threshold by a margin before the stress (a shared host may be
# busy: 60 % was seen before the spinners)
calm = [x for x, v in pre if v < 70 and busy and x < min(busy)]
if not calm or not busy:
    sys.exit("no calm then busy before the trigger at %.2f: %r" % (ts, pre))
if not ts - t[0] >= 4:
    sys.exit("only %.1f s before the trigger" % (ts - t[0]))
h = d.get("headline", "")
if "Triggered by cpu.util_pct " not in h or " s before, " not in h:
    sys.exit("headline: %r" % h)
print("%.0f s before, stress from %.1f s, trigger at %.2f s" % (ts - t[0], min(busy), ts))
PY
        ); brc=$?
        nchart=$(ls "$b"/chart-*.svg | wc -l)
        nmark=$(grep -l '>trigger</text><title>Triggered by cpu.util_pct&gt;80' "$b"/chart-*.svg | wc -l)
        if [ "$brc" = 0 ] && [ "$nchart" -gt 0 ] && [ "$nmark" = "$nchart" ]; then
            ok watch_before_stress_start_charted; echo "# $before"
        else
            not_ok watch_before_stress_start_charted "$before; trigger marked on $nmark of $nchart charts"
        fi
        # judged again (render), the bundle says what the capture said: its
        # headline with the trigger sentence, findings and gaps (the seconds
        # before the trigger are not the window's)
        "$PERFREPORT_BIN" render "$b" -o "$TMPD/cpu.render" -q >/dev/null 2>"$TMPD/render.err"
        same=$(python3 - "$b/report.json" "$TMPD/cpu.render/report.json" <<'PY' 2>&1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda d: (d["headline"], [(f["id"], f["severity"]) for f in d["findings"]],
                 d["window"]["gaps"], d["window"].get("trigger"))
print("same" if key(a) == key(b) else "captured %r, rendered %r" % (key(a), key(b)))
PY
)
        if [ "$same" = same ]; then ok watch_bundle_rendered_as_captured
        else not_ok watch_bundle_rendered_as_captured "$same $(head -c 300 "$TMPD/render.err")"; fi
        if [ "$n" = 1 ]; then ok watch_cooldown_one_bundle_per_incident
        else not_ok watch_cooldown_one_bundle_per_incident "$n bundles: $(ls "$W")"; fi
    else
        not_ok watch_cpu_util_triggers "no bundle or no cooldown line: $(tail -n 8 "$TMPD/cpu.err")"
    fi
    stop_spin
fi
kill -TERM $wp 2>/dev/null; wait $wp; rc=$?
if [ "$rc" = 0 ] && grep -qE "stopped by signal 15 after 1 capture, [1-9][0-9]* suppressed" "$TMPD/cpu.err"; then
    ok watch_sigterm_while_waiting
else
    not_ok watch_sigterm_while_waiting "exit $rc: $(tail -n 3 "$TMPD/cpu.err")"
fi

# 1b. The high-water mark and --keep: one spinner (~50 % of 2 CPUs) fires
# cpu.util_pct>40 and is captured; seen again within the cooldown at the
# same level it is held back; a second spinner (~100 %, more than a tenth
# worse) is captured within the cooldown.  --keep 1 leaves the newer bundle
# alone in the directory.
W=$TMPD/hw
"$PERFREPORT_BIN" watch -o "$W" --when 'cpu.util_pct>40 for 2s' -d 1 --cooldown 600 --keep 1 \
    --before 10 2>"$TMPD/hw.err" &
wp=$!; track $wp
if ! wait_log "$TMPD/hw.err" "perfreport watch: waiting (bundles in $W)" 30; then
    not_ok watch_high_water_within_cooldown "the watcher did not start: $(tail -n 5 "$TMPD/hw.err")"
else
    spin 1
    first=""
    if wait_log "$TMPD/hw.err" "perfreport watch: bundle $W/perfreport-" 90 \
        && wait_log "$TMPD/hw.err" "not captured (cooldown" 30; then
        first=$(grep -m1 "capturing" "$TMPD/hw.err" | sed -n 's/.*for 2s: \([0-9]*\)\..*/\1/p')
        if [ "${first:-100}" -ge 75 ]; then
            skip watch_high_water_within_cooldown "the host is busy: one spinner read ${first:-?} %"
            stop_spin; kill -TERM $wp 2>/dev/null; wait $wp
            first=skip
        fi
    fi
    if [ "$first" != skip ] && grep -q "not captured (cooldown" "$TMPD/hw.err"; then
        spin 1
        n=0 # the second capture's bundle line, within 60 s
        until [ "$(grep -c "perfreport watch: bundle $W/perfreport-" "$TMPD/hw.err")" -ge 2 ] \
            || [ $n -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
        grep -qF "(within the cooldown: worse than the last capture of it)" "$TMPD/hw.err" \
            || echo "no high-water line" >> "$TMPD/hw.err"
        caps=$(grep -c "perfreport watch: bundle $W/perfreport-" "$TMPD/hw.err")
        left=$(bundles "$W")
        b=$(ls -d "$W"/perfreport-* 2>/dev/null | grep -v '\.tmp' | head -n 1)
        trig=$(json "$b/report.json" "d['host']['trigger']" 2>&1)
        grep -q "no high-water line" "$TMPD/hw.err" && caps="$caps (no high-water line)"
        case "$caps/$left/$trig" in
            "2/1/cpu.util_pct>40 for 2s: "[6-9]*|"2/1/cpu.util_pct>40 for 2s: 100"*)
                ok watch_high_water_within_cooldown; ok watch_keep_retains_newest ;;
            *) not_ok watch_high_water_within_cooldown "$caps captures, $left bundles left, trigger $trig: $(tail -n 6 "$TMPD/hw.err")" ;;
        esac
    elif [ "$first" != skip ]; then
        not_ok watch_high_water_within_cooldown "no first capture or no cooldown line: $(tail -n 8 "$TMPD/hw.err")"
    fi
    stop_spin
fi
kill -TERM $wp 2>/dev/null; wait $wp

# 2. memory.oom: a hog OOM-killed in a memory cgroup with a 64 MiB limit,
# made below our own (design 5), as scenario s05 does.
memcg=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
if [ -n "$memcg" ] && [ -d /sys/fs/cgroup/memory ]; then
    parent=/sys/fs/cgroup/memory${memcg%/}; limit=memory.limit_in_bytes
else
    v2=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
    parent=$v2$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup); limit=memory.max
fi
cg=$parent/prtest-watch-$$
if [ ! -x "$WL/memhog" ]; then
    skip watch_oom_triggers "workload $WL/memhog not built"
elif ! mkdir "$cg" 2>/dev/null; then
    skip watch_oom_triggers "cannot create a memory cgroup below $parent"
else
    on_cleanup "rmdir $cg 2>/dev/null"
    echo $((64 << 20)) > "$cg/$limit"
    W=$TMPD/oom
    "$PERFREPORT_BIN" watch -o "$W" --when memory.oom -d 2 2>"$TMPD/oom.err" &
    wp=$!; track $wp
    if ! wait_log "$TMPD/oom.err" "perfreport watch: waiting (bundles in $W)" 30; then
        not_ok watch_oom_triggers "the watcher did not start: $(tail -n 5 "$TMPD/oom.err")"
    else
        sh -c "echo \$\$ > $cg/cgroup.procs; exec $WL/memhog 200 2" >/dev/null 2>&1
        if wait_log "$TMPD/oom.err" "perfreport watch: bundle $W/perfreport-" 90; then
            b=$(ls -d "$W"/perfreport-* | head -n 1)
            trig=$(json "$b/report.json" "d['host']['trigger']" 2>&1)
            case "$trig" in
                "memory.oom: 1 OOM kill at "*) ok watch_oom_triggers ;;
                *) not_ok watch_oom_triggers "trigger: $trig" ;;
            esac
        else
            not_ok watch_oom_triggers "no bundle: $(tail -n 8 "$TMPD/oom.err")"
        fi
    fi
    kill -TERM $wp 2>/dev/null; wait $wp
fi

# 3. A PSI trigger (the kernel's cpu pressure; four spinners on two CPUs
# keep some task waiting all the time), and SIGTERM a second into the
# capture's window: the bundle is published INCOMPLETE, the watcher ends.
if [ ! -e /proc/pressure/cpu ]; then skip watch_psi_trigger "no /proc/pressure"; exit 0; fi
W=$TMPD/psi
"$PERFREPORT_BIN" watch -v -o "$W" --when 'psi.cpu.some>30 for 2s' -d 30 2>"$TMPD/psi.err" &
wp=$!; track $wp
if ! wait_log "$TMPD/psi.err" "perfreport watch: waiting (bundles in $W)" 30; then
    not_ok watch_psi_trigger "the watcher did not start: $(tail -n 5 "$TMPD/psi.err")"
    exit 0
fi
t0=$(date +%s)
spin 4
if ! wait_log "$TMPD/psi.err" "perfreport: window open" 60; then
    not_ok watch_psi_trigger "no capture: $(tail -n 8 "$TMPD/psi.err")"
    exit 0
fi
sleep 1
kill -TERM $wp; wait $wp; rc=$?
dt=$(($(date +%s) - t0))
stop_spin
b=$(ls -d "$W"/perfreport-* 2>/dev/null | head -n 1)
if [ -n "$b" ] && [ -f "$b/report.json" ]; then
    trig=$(json "$b/report.json" "d['host']['trigger']" 2>&1)
    intr=$(json "$b/report.json" "d['window']['interrupted']" 2>&1)
    case "$trig" in
        "psi.cpu.some>30 for 2s: avg10 "*) ok watch_psi_trigger ;;
        *) not_ok watch_psi_trigger "trigger: $trig" ;;
    esac
    if [ "$rc" = 0 ] && [ "$intr" = True ] && [ "$dt" -lt 25 ]; then
        ok watch_sigterm_mid_capture_incomplete
    else
        not_ok watch_sigterm_mid_capture_incomplete "exit $rc, interrupted=$intr, $dt s"
    fi
else
    not_ok watch_psi_trigger "no bundle (exit $rc): $(tail -n 8 "$TMPD/psi.err")"
fi
