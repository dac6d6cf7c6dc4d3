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
    _t=0
    until ls -l /proc/$scen_pid/fd 2>/dev/null | grep -qF -- "$_fifo"; do
        kill -0 "$scen_pid" 2>/dev/null && [ $_t -lt 1200 ] || return 1
        sleep 0.05; _t=$((_t + 1))
    done
}
scen_release() { printf x > "$_fifo"; }

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
