# Shared helpers for shell test suites (sourced).  Protocol: print
# "ok NAME", "not ok NAME: why" or "skip NAME: why", one per test.
PERFREPORT_BIN=${PERFREPORT_BIN:-./perfreport}
BUILD=${BUILD:-build}
WL=${WL:-build/workloads}  # workloads are plain builds, shared by every config

ok() { echo "ok $1"; }
not_ok() { echo "not ok $1: $2"; }
skip() { echo "skip $1: $2"; }

need_root() { [ "$(id -u)" = 0 ]; }

# jq is not assumed; python3 reads JSON in tests.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# Suites run as root; under sudo perfreport acts for the caller
# (src/util/caller.h), so a `sudo make test` must not pass sudo's variables
# on: the suites that test sudo set them per run.
unset SUDO_UID SUDO_GID SUDO_USER

TMPD=$(mktemp -d /tmp/perfreport-test.XXXXXX)
# A private single-instance lock: a test suite must not contend with a
# perfreport that cron (or another suite) runs on this host.
PERFREPORT_LOCK=$TMPD/perfreport.lock
export PERFREPORT_LOCK
_pids=""
track() { _pids="$_pids $1"; }
# Stops the tracked workloads now.  Workloads run longer than any build's
# run (an ASan build on a slow host needs seconds around the window) and
# are stopped after it, so none exits before perfreport's final snapshot.
stop_tracked() {
    for p in $_pids; do kill "$p" 2>/dev/null; done
    for p in $_pids; do wait "$p" 2>/dev/null; done
    _pids=""
}
# wait_window FILE [SECONDS]: waits (up to SECONDS, default 60) until the
# stderr of a `perfreport -v` run, written to FILE, says the window is open.
# Faults and workloads that a test asserts on start after this, never a
# fixed delay after perfreport: a slow (ASan) build or a loaded host takes
# seconds to attach its collectors.  Returns 1 on the timeout.
wait_window() {
    _ww=0
    while ! grep -q "perfreport: window open" "$1" 2>/dev/null; do
        [ $_ww -ge $((${2:-60} * 10)) ] && return 1
        sleep 0.1; _ww=$((_ww + 1))
    done
}
# wait_paused PID FIFO [SECONDS]: waits (up to SECONDS, default 90) until
# perfreport PID holds FIFO open, paused at a PERFREPORT_TEST_PAUSE_* hook;
# returns 1 if it exited or the time ran out.  A test that acts during the
# pause checks it: an act that came before or after proves nothing.
wait_paused() {
    _wp=0
    until ls -l "/proc/$1/fd" 2>/dev/null | grep -qF -- "$2"; do
        kill -0 "$1" 2>/dev/null && [ $_wp -lt $((${3:-90} * 20)) ] || return 1
        sleep 0.05; _wp=$((_wp + 1))
    done
}
# release_paused PID FIFO: lets perfreport PID go on from its pause.  If
# nothing opens FIFO to read within 30 s (it never got to the pause), PID is
# killed and 1 returned: a run left waiting on its FIFO would hold the suite,
# and the machine it measures on, for good (SIGTERM does not end the wait).
release_paused() {
    timeout 30 sh -c 'printf x >"$1"' _ "$2" && return 0
    kill -KILL "$1" 2>/dev/null
    return 1
}
_cleanup_hooks=""
on_cleanup() { _cleanup_hooks="$_cleanup_hooks
$1"; }
cleanup() {
    for p in $_pids; do kill "$p" 2>/dev/null; done
    for p in $_pids; do wait "$p" 2>/dev/null; done
    eval "$_cleanup_hooks"
    rm -rf "$TMPD"
}
trap cleanup EXIT INT TERM
