#!/bin/sh
# Off-CPU wait classes and lock contention on known workloads (root + BPF).
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip e2e_offcpu "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip e2e_offcpu "needs root for BPF"
    exit 0
fi

# Other runs of perfreport may hold the single-instance lock on a shared
# test host: wait for it (up to ~2 min) instead of failing.
pr() { # args... (the last -o DIR names the bundle)
    _n=0
    while :; do
        "$PERFREPORT_BIN" "$@" 2>"$TMPD/stderr"
        _rc=$?
        grep -q "already running" "$TMPD/stderr" || { [ $_rc -le 2 ] || cat "$TMPD/stderr" >&2; return $_rc; }
        _n=$((_n + 1))
        [ $_n -ge 60 ] && { cat "$TMPD/stderr" >&2; return $_rc; }
        sleep 2
    done
}

ids() { # bundle -> "id:severity ..." of every finding
    json "$1/report.json" "' '.join(f['id']+':'+f['severity'] for f in d['findings'])"
}
ran() { # bundle collector
    json "$1/report.json" "[c['status'] for c in d['collectors'] if c['name']=='$2']"
}

# 1. A reader blocked on a pipe for the whole window (started before it):
#    class pipe, an offcpu.ipc_wait finding naming the process and
#    pipe_read, as information only (waiting for the other end is how a
#    pipe's reader works; the writer is where the time went).
"$WL/pipewait" 300 & pw=$!; track $pw
sleep 0.3
pr -d 4 -p "$pw" -o "$TMPD/pipe" --quiet
if [ "$(ran "$TMPD/pipe" offcpu)" != "['ran']" ]; then
    skip e2e_offcpu_pipe "offcpu collector did not run: $(ran "$TMPD/pipe" offcpu)"
else
    cls=$(json "$TMPD/pipe/report.json" "[r['class'] for t in d['tables'] if t['name']=='offcpu.classes' for r in t['rows']][:1]")
    title=$(json "$TMPD/pipe/report.json" "[f['title'] for f in d['findings'] if f['id']=='offcpu.ipc_wait']")
    case "$cls $title" in
        "['pipe'] "*pipewait*pipe_read*)
            case "$(ids "$TMPD/pipe")" in
                *offcpu.ipc_wait:info*) ok e2e_offcpu_pipe_ipc_wait ;;
                *) not_ok e2e_offcpu_pipe_ipc_wait "not information: $(ids "$TMPD/pipe")" ;;
            esac ;;
        *) not_ok e2e_offcpu_pipe_ipc_wait "classes $cls, finding $title; findings $(ids "$TMPD/pipe")" ;;
    esac
    pct=$(json "$TMPD/pipe/report.json" "round(d['metrics']['offcpu.target.pipe_pct']['value'])" 2>/dev/null)
    if [ -n "$pct" ] && [ "$pct" -ge 90 ]; then ok e2e_offcpu_pipe_whole_window_counted
    else not_ok e2e_offcpu_pipe_whole_window_counted "offcpu.target.pipe_pct = $pct"; fi
    [ -s "$TMPD/pipe/offcpu.folded" ] && grep -q "pipewait;" "$TMPD/pipe/offcpu.folded" \
        && ok e2e_offcpu_folded_has_target \
        || not_ok e2e_offcpu_folded_has_target "offcpu.folded lacks pipewait's stacks"
fi
# The notes of the filtered tables name the target the run was given (they
# read "-p/-c" when collectors looked for it in their empty staging report).
notes=$(json "$TMPD/pipe/report.json" "' | '.join(t.get('note') or '' for t in d['tables'] if t['name'] in ('sched.runq_wait', 'io.layers'))")
case "$notes" in
    *"Only the target's tasks (pid $pw)"*"Only the target's syscalls (pid $pw)"* | \
    *"Only the target's syscalls (pid $pw)"*"Only the target's tasks (pid $pw)"*)
        ok e2e_filtered_notes_name_the_target ;;
    *) not_ok e2e_filtered_notes_name_the_target "notes: $notes" ;;
esac
kill $pw 2>/dev/null

# 2. A nanosleep loop: offcpu.sleep, informational (the program chose to wait).
"$WL/sleeper" 300 & sl=$!; track $sl
sleep 0.3
pr -d 4 -p "$sl" -o "$TMPD/sleep" --quiet
got=$(ids "$TMPD/sleep")
case " $got " in
    *" offcpu.sleep:info "*) ok e2e_offcpu_sleeper_sleep ;;
    *) not_ok e2e_offcpu_sleeper_sleep "findings: $got" ;;
esac
kill $sl 2>/dev/null

# 3. Four threads fighting over one mutex: lock.contention names the
#    process and the contended function.
"$WL/mutexfight" 300 & mf=$!; track $mf
sleep 0.5
pr -d 4 -p "$mf" -o "$TMPD/mutex" --quiet
if [ "$(ran "$TMPD/mutex" futex)" != "['ran']" ]; then
    skip e2e_offcpu_lock_contention "futex collector did not run: $(ran "$TMPD/mutex" futex)"
else
    title=$(json "$TMPD/mutex/report.json" "[f['title'] for f in d['findings'] if f['id']=='lock.contention']")
    case "$title" in
        *mutexfight*contend_on_lock*) ok e2e_offcpu_lock_contention ;;
        *) not_ok e2e_offcpu_lock_contention "title $title; findings $(ids "$TMPD/mutex")" ;;
    esac
    kind=$(json "$TMPD/mutex/report.json" "sorted(set(r['kind'] for t in d['tables'] if t['name']=='lock.futex_waits' for r in t['rows'] if r['process']=='mutexfight'))")
    [ "$kind" = "['mutex']" ] && ok e2e_offcpu_futex_kind_mutex || not_ok e2e_offcpu_futex_kind_mutex "kinds $kind"
    # offcpu.lock_wait only when the threads wait most of the window
    lp=$(json "$TMPD/mutex/report.json" "round(d['metrics']['offcpu.target.lock_pct']['value'])")
    got=$(ids "$TMPD/mutex")
    case " $got " in
        *" offcpu.lock_wait:"*) [ "$lp" -ge 50 ] && ok e2e_offcpu_lock_wait_consistent || not_ok e2e_offcpu_lock_wait_consistent "lock_wait at $lp%" ;;
        *) [ "$lp" -lt 50 ] && ok e2e_offcpu_lock_wait_consistent || not_ok e2e_offcpu_lock_wait_consistent "no lock_wait at $lp%" ;;
    esac
fi
kill $mf 2>/dev/null

# 4. Without -p nothing off-CPU warns (everything sleeps on a quiet host).
pr -d 2 -o "$TMPD/sys" --quiet
got=$(json "$TMPD/sys/report.json" "[f['id'] for f in d['findings'] if f['id'].startswith('offcpu.')]")
[ "$got" = "[]" ] && ok e2e_offcpu_system_wide_informative || not_ok e2e_offcpu_system_wide_informative "$got"

# 5. One symbolizer per run: the collectors with stacks (profile, offcpu,
#    futex) share it, so kallsyms is read once however many resolve kernel
#    frames (each used to load its own copy).  A sleeper gives the off-CPU
#    profile kernel frames to name.
"$WL/sleeper" 30 >/dev/null 2>&1 & sl=$!; track $sl
strace -f -qq -e trace=openat -o "$TMPD/strace.log" "$PERFREPORT_BIN" -d 2 -o "$TMPD/onesym" --quiet
nk=$(grep -c '"/proc/kallsyms"' "$TMPD/strace.log")
kf=$(grep -c '\[kernel\]\|;schedule' "$TMPD/onesym/offcpu.folded" 2>/dev/null)
if [ "$(ran "$TMPD/onesym" offcpu)" != "['ran']" ]; then
    skip e2e_offcpu_one_kallsyms_read "offcpu did not run: $(ran "$TMPD/onesym" offcpu)"
elif [ "$nk" = 1 ] && [ "${kf:-0}" -ge 1 ]; then
    ok e2e_offcpu_one_kallsyms_read
else
    not_ok e2e_offcpu_one_kallsyms_read "/proc/kallsyms opened $nk times; $kf off-CPU stacks with named kernel frames"
fi
kill $sl 2>/dev/null

# 6. Stacks are resolved during the window: processes that block and exit
#    before the window ends keep their frame names in the off-CPU profile
#    (main in sleeper) and the futex table (contend_on_lock in mutexfight);
#    resolved only at the drain, they read "[sleeper exited]".
# The profile collector is failed at its start (an injected fault): its own
# prefetch would otherwise read their maps while they burn CPU.
PERFREPORT_FAULT=profile:start:fail PERFREPORT_LOCK="$TMPD/lock6" "$PERFREPORT_BIN" -d 8 -v -o "$TMPD/exited" --quiet 2>"$TMPD/exited.err" & prp=$!
track $prp
if ! wait_window "$TMPD/exited.err"; then
    not_ok e2e_offcpu_exited_named "the window did not open: $(tail -3 "$TMPD/exited.err")"
else
    "$WL/sleeper" 3 100 >/dev/null 2>&1 & s6=$!
    "$WL/mutexfight" 3 >/dev/null 2>&1 & m6=$!
    wait $s6 $m6
    wait $prp
    if [ "$(ran "$TMPD/exited" offcpu)" != "['ran']" ]; then
        skip e2e_offcpu_exited_named "offcpu did not run: $(ran "$TMPD/exited" offcpu)"
    else
        named=$(grep -c '^sleeper;.*;main;' "$TMPD/exited/offcpu.folded")
        gone=$(grep -c '^sleeper;.*exited\]' "$TMPD/exited/offcpu.folded")
        if [ "${named:-0}" -ge 1 ] && [ "${gone:-0}" = 0 ]; then ok e2e_offcpu_exited_named
        else not_ok e2e_offcpu_exited_named "sleeper stacks through main: $named, with exited frames: $gone; $(grep '^sleeper' "$TMPD/exited/offcpu.folded" | head -3)"; fi
    fi
    if [ "$(ran "$TMPD/exited" futex)" != "['ran']" ]; then
        skip e2e_futex_exited_named "futex did not run: $(ran "$TMPD/exited" futex)"
    else
        st=$(json "$TMPD/exited/report.json" "[r['stack'] for t in d['tables'] if t['name']=='lock.futex_waits' for r in t['rows'] if r['process']=='mutexfight'][:1]")
        case "$st" in
            *contend_on_lock*) ok e2e_futex_exited_named ;;
            *) not_ok e2e_futex_exited_named "mutexfight's waiting stack: $st" ;;
        esac
    fi
fi
