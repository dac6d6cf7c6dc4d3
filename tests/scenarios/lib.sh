# Scenario helpers (sourced after tests/lib.sh).  A scenario creates a real
# fault, runs perfreport for a short window and asserts on report.json.
ART=${ART:-build/artifacts}
mkdir -p "$ART"
SCEN_LOG=$ART/scenarios.log

# scen_run BUNDLE [perfreport args...]: a short window into BUNDLE.
scen_run() {
    _out=$1; shift
    "$PERFREPORT_BIN" -d "${SCEN_SECS:-4}" -i 0.5 -o "$_out" --quiet "$@"
}

# scen_start BUNDLE [perfreport args...]: the same run in the background,
# its -v stderr in BUNDLE.err, its pid in $scen_pid; then scen_wait_window
# BUNDLE before injecting the fault, and scen_finish to wait for the run.
scen_start() {
    _out=$1; shift
    "$PERFREPORT_BIN" -d "${SCEN_SECS:-4}" -i 0.5 -o "$_out" --quiet -v "$@" 2> "$_out.err" &
    scen_pid=$!
}
scen_wait_window() { wait_window "$1.err"; }
scen_finish() { wait "$scen_pid"; }

# scen_start_held BUNDLE [args...]: starts a run (as scen_start) that stops
# after the BPF collectors attached and before the /proc baselines and the
# window (PERFREPORT_TEST_PAUSE_BEFORE_WINDOW); 1 when it did not get there
# within 60 s.  scen_release lets it go on.  Events made in between happen while
# the event collectors record and before the window.
scen_start_held() {
    _fifo=$1.hold
    rm -f "$_fifo"; mkfifo "$_fifo"
    PERFREPORT_TEST_PAUSE_BEFORE_WINDOW=$_fifo scen_start "$@"
    wait_paused "$scen_pid" "$_fifo" 60
}
scen_release() { release_paused "$scen_pid" "$_fifo"; }

# scen_top BUNDLE N: "id:severity:score" of the first N findings.
scen_top() {
    json "$1/report.json" "' '.join('%s:%s:%.0f' % (f['id'], f['severity'], f['score']) for f in d['findings'][:$2])"
}

scen_record() { # NAME BUNDLE
    echo "$1: $(scen_top "$2" 2)" >> "$SCEN_LOG"
}

# expect_rank NAME BUNDLE ID MAXRANK [SEVERITY]: ID is among the first
# MAXRANK findings (1 = first), with SEVERITY when given.
expect_rank() {
    # sh has no locals: _-prefixed names keep the callers' variables intact.
    _n=$1 _b=$2 _id=$3 _max=$4 _sev=${5:-}
    _got=$(json "$_b/report.json" "next((i + 1, f['severity']) for i, f in enumerate(d['findings']) if f['id'] == '$_id') if any(f['id'] == '$_id' for f in d['findings']) else (0, '')")
    _rank=$(echo "$_got" | sed 's/^(\([0-9]*\),.*/\1/')
    _gsev=$(echo "$_got" | sed "s/^.*'\(.*\)')$/\1/")
    if [ "$_rank" -ge 1 ] && [ "$_rank" -le "$_max" ] && { [ -z "$_sev" ] || [ "$_sev" = "$_gsev" ]; }; then
        ok "$_n"
    else
        not_ok "$_n" "want $_id within the first $_max${_sev:+ as $_sev}; got rank $_rank $_gsev; top: $(scen_top "$_b" 3)"
    fi
}

# expect_text NAME BUNDLE PYEXPR NEEDLE: the Python expression over the
# report (d) contains NEEDLE.
expect_text() {
    _v=$(json "$2/report.json" "$3")
    case "$_v" in
        *"$4"*) ok "$1" ;;
        *) not_ok "$1" "'$4' not in: $_v" ;;
    esac
}

# expect_no_warning NAME BUNDLE
expect_no_warning() {
    _w=$(json "$2/report.json" "[f['id'] + ': ' + f['title'] for f in d['findings'] if f['severity'] in ('warning', 'critical')]")
    if [ "$_w" = "[]" ]; then ok "$1"; else not_ok "$1" "findings at warning or above: $_w"; fi
}

# Calm scenarios (tests/scenarios/calm_*.sh): ordinary healthy activity
# that must give no finding at warning or above, CALM_RUNS times in a row
# (3 with the normal build; 1 with the slower sanitizer build, where the
# point is memory safety, not the verdict).
if [ -z "${CALM_RUNS:-}" ]; then
    case "$BUILD" in build) CALM_RUNS=3 ;; *) CALM_RUNS=1 ;; esac
fi

# calm_bad BUNDLE [ALLOWED_ID...]: prints the findings at warning or above
# other than the allowed ones ("id: title; ..."), nothing when calm.
calm_bad() {
    _b=$1; shift
    json "$_b/report.json" "'; '.join(f['id'] + ' (' + f['severity'] + '): ' + f['title'] for f in d['findings'] if f['severity'] in ('warning', 'critical') and f['id'] not in '$*'.split())"
}

# calm_result NAME RUN BUNDLE [ALLOWED_ID...]: records the run's top
# findings; on a finding that is not calm prints "not ok" and returns 1.
calm_result() {
    _cn=$1 _cr=$2 _cb=$3; shift 3
    if [ ! -f "$_cb/report.json" ]; then
        not_ok "$_cn" "run $_cr: no report.json"
        return 1
    fi
    scen_record "$_cn.$_cr" "$_cb"
    _bad=$(calm_bad "$_cb" "$@")
    if [ -n "$_bad" ]; then
        not_ok "$_cn" "run $_cr of $CALM_RUNS: $_bad"
        return 1
    fi
    return 0
}

# calm_host NAME LOOP [ALLOWED_ID...]: CALM_RUNS system-wide runs, each with
# the shell loop LOOP running in the background; "ok NAME" when every run
# is calm.  Returns 1 (having printed "not ok") otherwise.
calm_host() {
    _hn=$1 _hl=$2; shift 2
    _hr=1
    while [ $_hr -le "$CALM_RUNS" ]; do
        sh -c "$_hl" & track $!
        sleep 0.3
        scen_run "$TMPD/b$_hr"
        stop_tracked
        calm_result "$_hn" "$_hr" "$TMPD/b$_hr" "$@" || return 1
        _hr=$((_hr + 1))
    done
    ok "$_hn"
}

# calm_pid NAME WORKLOAD ARGS...: CALM_RUNS runs of -p on a fresh
# $WL/WORKLOAD ARGS each, once it printed "ready"; as calm_host.
calm_pid() {
    _pn=$1; shift
    _pr=1
    while [ $_pr -le "$CALM_RUNS" ]; do
        "$WL/$@" > "$TMPD/out$_pr" & track $!
        _pp=$!
        _pt=0
        until grep -q ready "$TMPD/out$_pr" 2>/dev/null || [ $_pt -ge 200 ]; do
            sleep 0.05; _pt=$((_pt + 1))
        done
        scen_run "$TMPD/b$_pr" -p "$_pp"
        stop_tracked
        calm_result "$_pn" "$_pr" "$TMPD/b$_pr" || return 1
        _pr=$((_pr + 1))
    done
    ok "$_pn"
}

# scen_v1_parent CONTROLLER: the directory of our own cgroup in that v1
# hierarchy, or "" when it is not mounted (test cgroups go below it).
scen_v1_parent() {
    _p=$(awk -F: -v c="$1" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' /proc/self/cgroup)
    [ -n "$_p" ] && [ -d "/sys/fs/cgroup/$1" ] && echo "/sys/fs/cgroup/$1${_p%/}"
}
# scen_v2_parent: our own cgroup's directory in the v2 hierarchy, or "".
scen_v2_parent() {
    _m=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
    _p=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
    [ -n "$_m" ] && echo "$_m${_p%/}"
}
# scen_disk_of DIR: "MAJ:MIN NAME" of the whole disk DIR lives on (limits
# are set on whole disks, not partitions).
scen_disk_of() {
    _d=$(mountpoint -d "$(df --output=target "$1" | tail -1)")
    _s=/sys/dev/block/$_d
    [ -e "$_s/partition" ] && _s=$(readlink -f "$_s/..") && _d=$(cat "$_s/dev")
    echo "$_d $(basename "$(readlink -f "$_s")")"
}

# scen_mem_cgroup NAME BYTES: makes memory cgroup NAME below our own (design
# 5) with a BYTES limit, removed at cleanup; its directory in $memcg.  1 when
# it cannot be made.
scen_mem_cgroup() {
    _parent=$(scen_v1_parent memory) _limit=memory.limit_in_bytes
    if [ -z "$_parent" ]; then
        _parent=$(scen_v2_parent) _limit=memory.max
    fi
    memcg=$_parent/$1
    mkdir "$memcg" 2>/dev/null || return 1
    on_cleanup "rmdir $memcg 2>/dev/null"
    echo "$2" > "$memcg/$_limit"
}

# scen_io_cgroup NAME DEV BPS: makes cgroup NAME below our own with a write
# limit of BPS bytes/s on disk DEV (MAJ:MIN), removed at cleanup; $iojoin is
# the shell text that moves $$ into it, scen_io_limit BPS changes the limit.
# v1/hybrid: blkio.throttle.write_bps_device, and the v2 cgroup of the same
# path joined too (its io.pressure says how long the tasks waited, as systemd
# lays hybrid cgroups out); v2: io.max.  1 (with $iowhy) when it cannot.
scen_io_cgroup() {
    _blk=$(scen_v1_parent blkio) _v2=$(scen_v2_parent) iojoin="" _iodev=$2
    iocg_v1="" iocg_v2=""
    if [ -n "$_blk" ]; then
        iocg_v1=$_blk/$1
        mkdir "$iocg_v1" || { iowhy="cannot create $iocg_v1"; return 1; }
        on_cleanup "rmdir $iocg_v1"
        iojoin="echo \$\$ > $iocg_v1/cgroup.procs;"
        # PSI is per v2 cgroup: the same path there, when ours match
        if [ -n "$_v2" ] && [ "${_v2#*/unified}" = "${_blk#/sys/fs/cgroup/blkio}" ] &&
            mkdir "$_v2/$1"; then
            iocg_v2=$_v2/$1
            on_cleanup "rmdir $iocg_v2"
            iojoin="$iojoin echo \$\$ > $iocg_v2/cgroup.procs;"
        fi
    elif [ -n "$_v2" ] && grep -qw io "$_v2/cgroup.subtree_control" 2>/dev/null; then
        iocg_v2=$_v2/$1
        mkdir "$iocg_v2" || { iowhy="cannot create $iocg_v2"; return 1; }
        on_cleanup "rmdir $iocg_v2"
        iojoin="echo \$\$ > $iocg_v2/cgroup.procs;"
    else
        iowhy="no blkio hierarchy and no io controller for our v2 cgroup"; return 1
    fi
    scen_io_limit "$3"
}
scen_io_limit() {
    if [ -n "$iocg_v1" ]; then
        echo "$_iodev $1" > "$iocg_v1/blkio.throttle.write_bps_device"
    else
        echo "$_iodev wbps=$1" > "$iocg_v2/io.max"
    fi
}

# calm_check NAME RUN BUNDLE PYEXPR WHY: the Python expression over the
# report (d) is true, else "not ok" saying WHY and the expression's value,
# and 1.  For what a calm scenario asserts beyond no warning: that its work
# was measured, that a rule said nothing about it.
calm_check() {
    _v=$(json "$3/report.json" "$4")
    [ "$_v" = True ] && return 0
    not_ok "$1" "run $2 of $CALM_RUNS: $5"
    return 1
}

# calm_silent NAME RUN BUNDLE ID NEEDLE: finding ID does not name NEEDLE (the
# calm workload's process or cgroup), at any severity.
calm_silent() {
    calm_check "$1" "$2" "$3" \
        "not any(f['id'] == '$4' and '$5' in f['title'] + ' ' + (f.get('culprit') or '') for f in d['findings'])" \
        "$4 about $5: $(json "$3/report.json" "[f['title'] for f in d['findings'] if f['id'] == '$4']")"
}
