#!/bin/sh
# Scenario 11: `perfreport -- CMD`.  A burner that runs 2 s and exits 3
# under -d 30: the window ends when it exits, its status and command line
# are in report.json and report.md, its hot function is in the focused
# on-CPU profile and nothing else is.  The command's stdout passes through
# byte for byte; a SIGINT sent to perfreport reaches the command once (it
# traps it) and the bundle is still published; -d ending first leaves the
# command running and waits for it; a command that cannot start exits 3
# with nothing written; under sudo the command runs as the invoking user.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_command "needs root"; exit 0; }

# range NAME VALUE LO HI: LO <= VALUE <= HI
range() {
    if python3 -c "import sys; sys.exit(0 if $3 <= float('$2') <= $4 else 1)" 2>/dev/null; then
        ok "$1"
    else
        not_ok "$1" "$2 not in [$3, $4]"
    fi
}

# --- the burner: window, status, command line, profile focus ---------------
B=$TMPD/burn
"$PERFREPORT_BIN" -d 30 -i 0.5 -o "$B" -- "$WL/burner" 2 1 --exit 3 > "$TMPD/burn.out" 2> "$TMPD/burn.err"
rc=$?
case $rc in
    0|1|2) ok scenario_command_status_is_perfreports ;;
    *) not_ok scenario_command_status_is_perfreports "exit $rc: $(cat "$TMPD/burn.err")" ;;
esac
if [ -f "$B/report.json" ]; then
    range scenario_command_window_ends_at_exit "$(json "$B/report.json" "d['window']['actual_s']")" 1.9 4.5
    expect_text scenario_command_exit_status_in_json "$B" \
        "(d['command']['end'], d['command']['exit_status'], d['command']['ended_window'])" \
        "('exited', 3, True)"
    expect_text scenario_command_line_in_json "$B" "d['command']['line']" "burner 2 1 --exit 3"
    expect_text scenario_command_focus_is_its_pid "$B" \
        "(d['window']['target'], d['command']['pid'])" \
        "$(json "$B/report.json" "('pid %d' % d['command']['pid'], d['command']['pid'])")"
    if grep -q "burner 2 1 --exit 3 (pid [0-9]*, as user root) exited with status 3 after [0-9.]* s; the window ended when it did" "$B/report.md"; then
        ok scenario_command_in_report_md
    else
        not_ok scenario_command_in_report_md "$(grep -n 'Command:' "$B/report.md" | head -3)"
    fi
    # The on-CPU profile is the command's: its hot function is there, and
    # every sampled stack is the burner's (no other process in the focus).
    if grep -q "burn_outer;burn_middle;burn_leaf" "$B/cpu.folded" &&
        ! grep -v '^burner;' "$B/cpu.folded" | grep -q .; then
        ok scenario_command_hot_function_in_focus
    else
        not_ok scenario_command_hot_function_in_focus "$(head -c 600 "$B/cpu.folded")"
    fi
    # perfreport render rebuilds the same sentence from report.json alone
    "$PERFREPORT_BIN" render -q -o "$TMPD/burn.render" "$B" 2> "$TMPD/render.err"
    if [ -f "$TMPD/burn.render/report.md" ] &&
        [ "$(grep '^\*\*Command:\*\*' "$B/report.md")" = "$(grep '^\*\*Command:\*\*' "$TMPD/burn.render/report.md")" ] &&
        grep -q '^\*\*Command:\*\*' "$B/report.md"; then
        ok scenario_command_render_keeps_it
    else
        not_ok scenario_command_render_keeps_it "$(cat "$TMPD/render.err")"
    fi
    if [ ! -s "$TMPD/burn.out" ] && grep -q "^Command: exited with status 3" "$TMPD/burn.err" &&
        grep -q "^Bundle: " "$TMPD/burn.err"; then
        ok scenario_command_summary_on_stderr
    else
        not_ok scenario_command_summary_on_stderr "stdout: $(head -c 300 "$TMPD/burn.out")"
    fi
else
    not_ok scenario_command_bundle "no report.json: $(cat "$TMPD/burn.err")"
fi

# --- the focus is the process tree: a burner started by a shell ------------
"$PERFREPORT_BIN" -q -d 30 -i 0.5 -o "$TMPD/tree" -- sh -c "\"$WL/burner\" 2 1; exit 4" \
    > /dev/null 2> "$TMPD/tree.err"
if [ -f "$TMPD/tree/report.json" ] && grep -q "^burner;.*burn_outer;burn_middle;burn_leaf" "$TMPD/tree/cpu.folded" &&
    ! grep -v '^burner;\|^sh;\|^dash;\|^bash;' "$TMPD/tree/cpu.folded" | grep -q . &&
    [ "$(json "$TMPD/tree/report.json" "d['command']['exit_status']")" = 4 ]; then
    ok scenario_command_children_in_focus
else
    not_ok scenario_command_children_in_focus "$(head -c 600 "$TMPD/tree/cpu.folded" 2>/dev/null) $(cat "$TMPD/tree.err")"
fi

# --- stdout byte for byte ---------------------------------------------------
python3 - "$TMPD/bytes" <<'PY'
import random, sys
r = random.Random(11)
data = bytes(r.randrange(256) for _ in range(300000))
# what a terminal filter would eat: NUL, CR, ESC sequences, invalid UTF-8
data += b"\0\r\n\x1b[2J\x1b]0;title\x07\xff\xfe\xc3(\n" * 50 + b"no newline at the end"
open(sys.argv[1], "wb").write(data)
PY
"$PERFREPORT_BIN" -d 30 -i 0.5 -o "$TMPD/cat" -- cat "$TMPD/bytes" > "$TMPD/cat.out" 2> "$TMPD/cat.err"
if cmp -s "$TMPD/bytes" "$TMPD/cat.out"; then
    ok scenario_command_stdout_byte_exact
else
    not_ok scenario_command_stdout_byte_exact "$(cmp "$TMPD/bytes" "$TMPD/cat.out" 2>&1 | head -1)"
fi
# and stdin, through a pipe
head -c 100000 "$TMPD/bytes" | "$PERFREPORT_BIN" -q -d 30 -i 0.5 -o "$TMPD/stdin" -- cat > "$TMPD/stdin.out" 2> "$TMPD/stdin.err"
if head -c 100000 "$TMPD/bytes" | cmp -s - "$TMPD/stdin.out"; then
    ok scenario_command_stdin_passes_through
else
    not_ok scenario_command_stdin_passes_through "$(cat "$TMPD/stdin.err")"
fi

# --- SIGINT reaches the command once; the bundle is published ---------------
M=$TMPD/marker
# It says when its handler is in place (a signal before that would meet
# the shell's SIG_IGN of a background job), and gives up after 60 s so that
# a lost signal cannot hang the suite.
cat > "$TMPD/trapper.py" <<PY
import signal, sys, time
def got(sig, frame):
    with open("$M", "a") as f:
        f.write("SIGINT\\n")
    sys.exit(7)
signal.signal(signal.SIGINT, got)
open("$M.ready", "w").close()
end = time.monotonic() + 60
while time.monotonic() < end:
    time.sleep(0.05)
sys.exit(9)
PY
"$PERFREPORT_BIN" -v -d 30 -i 0.5 -o "$TMPD/int" -- python3 "$TMPD/trapper.py" > /dev/null 2> "$TMPD/int.err" &
pid=$!
_t=0
until [ -e "$M.ready" ] || [ $_t -ge 600 ]; do sleep 0.1; _t=$((_t + 1)); done
if wait_window "$TMPD/int.err"; then
    sleep 0.5
    kill -INT "$pid"
fi
wait "$pid"
rc=$?
case $rc in
    4|5|6) ok scenario_command_sigint_partial_status ;;
    *) not_ok scenario_command_sigint_partial_status "exit $rc" ;;
esac
if [ "$(cat "$M" 2>/dev/null)" = SIGINT ]; then
    ok scenario_command_sigint_reached_command_once
else
    not_ok scenario_command_sigint_reached_command_once "marker: '$(cat "$M" 2>/dev/null)'"
fi
if [ -f "$TMPD/int/report.json" ]; then
    expect_text scenario_command_sigint_bundle_published "$TMPD/int" \
        "(d['window']['interrupted'], d['command']['end'], d['command']['exit_status'])" \
        "(True, 'exited', 7)"
else
    not_ok scenario_command_sigint_bundle_published "no report.json: $(tail -3 "$TMPD/int.err")"
fi

# --- Ctrl-C in a terminal: the tty sends it to the process group, so the
# command gets it from there, once (perfreport does not pass it on again);
# and perfreport writes no escape sequence to the terminal it shares.
rm -f "$M" "$M.ready"
python3 - "$PERFREPORT_BIN" "$TMPD/tty" "$TMPD/trapper.py" "$M.ready" > "$TMPD/tty.log" 2>&1 <<'PY'
import os, pty, sys, time
bin, out, script, ready = sys.argv[1:5]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(bin, [bin, "-d", "30", "-i", "0.5", "-o", out, "--", "python3", script])
buf = b""
def drain(until):
    global buf
    import select
    while time.monotonic() < until:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return True
            if not chunk:
                return True
            buf += chunk
    return False
deadline = time.monotonic() + 60
while not os.path.exists(ready) and time.monotonic() < deadline:
    drain(time.monotonic() + 0.1)
drain(time.monotonic() + 0.5)
os.write(fd, b"\x03")
drain(time.monotonic() + 60)
_, st = os.waitpid(pid, 0)
print("status", os.waitstatus_to_exitcode(st))
print("escape", b"\x1b" in buf)
sys.stdout.flush()
PY
if [ "$(cat "$M" 2>/dev/null)" = SIGINT ] && grep -q "^escape False" "$TMPD/tty.log" &&
    grep -q "^status [456]$" "$TMPD/tty.log" && [ -f "$TMPD/tty/report.json" ]; then
    ok scenario_command_ctrl_c_reaches_command_once
else
    not_ok scenario_command_ctrl_c_reaches_command_once "marker '$(cat "$M" 2>/dev/null)'; $(cat "$TMPD/tty.log")"
fi

# --- -d ends first: the command is left running and waited for --------------
t0=$(date +%s.%N)
"$PERFREPORT_BIN" -d 1 -i 0.5 -o "$TMPD/short" -- sh -c 'sleep 4; echo done' > "$TMPD/short.out" 2> "$TMPD/short.err"
t1=$(date +%s.%N)
expect_text scenario_command_left_running_in_report "$TMPD/short" \
    "(d['command']['end'], d['command']['exit_status'], round(d['window']['actual_s']))" \
    "('running', None, 1)"
if [ "$(cat "$TMPD/short.out")" = done ] && grep -q "the command exited with status 0" "$TMPD/short.err"; then
    ok scenario_command_left_running_then_waited_for
else
    not_ok scenario_command_left_running_then_waited_for "stdout '$(cat "$TMPD/short.out")'; $(tail -2 "$TMPD/short.err")"
fi
range scenario_command_waited_for_its_end "$(python3 -c "print($t1 - $t0)")" 3.9 30

# ... and while perfreport waits for it, a signal sent to perfreport alone
# (kill, systemctl stop) still reaches the command, so the wait can end.
rm -f "$M" "$M.ready"
"$PERFREPORT_BIN" -d 1 -i 0.5 -o "$TMPD/waitsig" -- python3 "$TMPD/trapper.py" > /dev/null 2> "$TMPD/waitsig.err" &
wpid=$!
waited=0
while ! grep -q 'waiting for the command' "$TMPD/waitsig.err" 2>/dev/null && [ $waited -lt 900 ]; do
    sleep 0.1; waited=$((waited + 1))
done
grep -q 'waiting for the command' "$TMPD/waitsig.err" ||
    echo "# scenario_command_signal_while_waiting: no 'waiting' line after 90 s: $(tail -3 "$TMPD/waitsig.err")"
kill -INT $wpid
waited=0
while kill -0 $wpid 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
if kill -0 $wpid 2>/dev/null; then
    kill -KILL $wpid
    not_ok scenario_command_signal_while_waiting "perfreport still waiting 10 s after SIGINT: $(tail -2 "$TMPD/waitsig.err")"
elif [ "$(cat "$M" 2>/dev/null)" = SIGINT ]; then
    ok scenario_command_signal_while_waiting
else
    not_ok scenario_command_signal_while_waiting "the command did not get SIGINT: $(tail -2 "$TMPD/waitsig.err")"
fi
wait $wpid 2>/dev/null

# --- a command that cannot start: exit 3, nothing written -------------------
mkdir "$TMPD/none"
bin=$PERFREPORT_BIN
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
for what in missing noexec; do
    if [ $what = missing ]; then cmd=$TMPD/no-such-command; why="No such file or directory"
    else cmd=$TMPD/noexec; printf '#!/bin/sh\n' > "$cmd"; chmod 0644 "$cmd"; why="Permission denied"; fi
    ( cd "$TMPD/none" && "$bin" -d 5 -- "$cmd" ) \
        > "$TMPD/none.out" 2> "$TMPD/none.err"
    rc=$?
    if [ $rc = 3 ] && grep -qF "perfreport: cannot run '$cmd': $why" "$TMPD/none.err" &&
        [ -z "$(ls -A "$TMPD/none")" ] && [ ! -s "$TMPD/none.out" ]; then
        ok scenario_command_${what}_exit_3_nothing_written
    else
        not_ok scenario_command_${what}_exit_3_nothing_written "exit $rc; $(cat "$TMPD/none.err"); dir: $(ls -A "$TMPD/none")"
    fi
done

# --- misuse is refused before anything runs (exit 3) ------------------------
n=0
for args in "--" "-p 1 -- true" "-c / -- true" "--user nobody" "true" "--user no-such-user-x -- true"; do
    # shellcheck disable=SC2086
    ( cd "$TMPD/none" && "$bin" -d 5 $args ) > /dev/null 2> "$TMPD/misuse.err"
    rc=$?
    n=$((n + 1))
    if [ $rc = 3 ] && grep -q "^perfreport: " "$TMPD/misuse.err" && [ -z "$(ls -A "$TMPD/none")" ]; then
        ok scenario_command_misuse_refused_$n
    else
        not_ok scenario_command_misuse_refused_$n "perfreport $args: exit $rc; $(head -2 "$TMPD/misuse.err")"
    fi
done

# --- run via sudo: the command runs as the invoking user ---------------------
if id nobody > /dev/null 2>&1; then
    nuid=$(id -u nobody)
    ngid=$(id -g nobody)
    # under sudo the bundle is written with the caller's rights: in its directory
    chmod 711 "$TMPD"
    NB=$TMPD/nb && mkdir "$NB" && chown nobody "$NB"
    SUDO_UID=$nuid SUDO_GID=$ngid SUDO_USER=nobody "$PERFREPORT_BIN" -q -d 30 -i 0.5 -o "$NB/sudo" \
        -- sh -c 'echo "$(id -u) $(id -g) $(id -G) $USER"' > "$TMPD/sudo.out" 2> "$TMPD/sudo.err"
    got=$(cat "$TMPD/sudo.out")
    case "$got" in
        "$nuid $ngid "*" nobody") ok scenario_command_sudo_runs_as_invoking_user ;;
        *) not_ok scenario_command_sudo_runs_as_invoking_user "got '$got'; $(cat "$TMPD/sudo.err")" ;;
    esac
    expect_text scenario_command_sudo_user_in_report "$NB/sudo" "d['command']['user']" nobody
    # a caller allowed `sudo perfreport` only cannot pick root (or a third
    # user) for the command: refused before anything runs or is written
    SUDO_UID=$nuid SUDO_GID=$ngid "$PERFREPORT_BIN" -q -d 30 -i 0.5 -o "$NB/asroot" --user root \
        -- id -u > "$TMPD/asroot.out" 2> "$TMPD/asroot.err"
    rc=$?
    if [ $rc = 3 ] && [ ! -s "$TMPD/asroot.out" ] && [ ! -e "$NB/asroot" ] &&
        grep -q 'under sudo' "$TMPD/asroot.err"; then
        ok scenario_command_sudo_user_root_refused
    else
        not_ok scenario_command_sudo_user_root_refused "exit $rc, out '$(cat "$TMPD/asroot.out")': $(head -2 "$TMPD/asroot.err")"
    fi
    # On root's terminal, a command run as another user gets a session and
    # a terminal of its own: TIOCSTI pushes input at most into its own pty,
    # never into the terminal root's shell reads next (a stand-in reads what
    # is pending there once perfreport has returned), and Ctrl-C still
    # reaches it once, passed on by perfreport.  The same with its
    # descriptors away from the terminal: /dev/tty does not open.
    # (tests/e2e/terminal.sh has the leftover that reads and writes.)
    # The control first: the same push, as nobody on a terminal that is
    # its controlling one (what root's terminal was to a command before it
    # had a pty of its own), must be pending there, or this kernel does not
    # allow TIOCSTI and the case is skipped.
    python3 - "$PERFREPORT_BIN" "$TMPD/ttyu" > "$TMPD/ttyu.log" 2>&1 <<'PY'
import fcntl, os, pwd, select, sys, termios, time
bin, out = sys.argv[1:3]
inject = r"""
import fcntl, termios
try:
    for ch in b"echo INJECTED\n":
        fcntl.ioctl(0, termios.TIOCSTI, bytes([ch]))
    print("tiocsti pushed", flush=True)
except OSError as e:
    print("tiocsti errno %d" % e.errno, flush=True)
"""
def pending_on(s):
    """What a shell reading terminal slave s would read next."""
    a = termios.tcgetattr(s)
    a[3] &= ~(termios.ICANON | termios.ECHO)
    a[6][termios.VMIN], a[6][termios.VTIME] = 0, 5
    termios.tcsetattr(s, termios.TCSANOW, a)
    try:
        return os.read(s, 4096)
    except OSError as e:
        return b"errno %d" % e.errno
def on_terminal(s, argv, user=None):
    """Runs argv with terminal slave s as its controlling one and 0-2."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(s, termios.TIOCSCTTY, 0)
        for k in range(3):
            os.dup2(s, k)
        if user:
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
        os.execvp(argv[0], argv)
    return pid
cm, cs = os.openpty()
os.waitpid(on_terminal(cs, ["python3", "-c", inject], pwd.getpwnam("nobody")), 0)
print("control", b"INJECTED" in pending_on(cs))
code = inject + r"""
import signal, sys, time
def got(sig, frame):
    print("got SIGINT", flush=True)
    sys.exit(7)
signal.signal(signal.SIGINT, got)
print("command ready", flush=True)
end = time.monotonic() + 60
while time.monotonic() < end:
    time.sleep(0.05)
sys.exit(9)
"""
# root's terminal: the harness keeps its slave open to read, once
# perfreport has returned, what root's shell would read next
m_fd, s_fd = os.openpty()
pid = on_terminal(s_fd, [bin, "-d", "30", "-i", "0.5", "-o", out, "--user", "nobody", "--",
                         "python3", "-c", code])
fd = m_fd
buf = b""
def drain(until, want=None):
    global buf
    while time.monotonic() < until and not (want and want in buf):
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
drain(time.monotonic() + 60, b"command ready")
drain(time.monotonic() + 0.5)
os.write(fd, b"\x03")
end, st = time.monotonic() + 60, None
while st is None:
    drain(time.monotonic() + 0.1)
    done, st = os.waitpid(pid, 0 if time.monotonic() > end else os.WNOHANG)
    st = st if done else None
drain(time.monotonic() + 0.5)
print("status", os.waitstatus_to_exitcode(st))
print("sigint", buf.count(b"got SIGINT"))
pending = pending_on(s_fd)
# the command performed the push (into its own pty), and it is not
# pending on root's terminal
print("pushed", b"tiocsti pushed" in buf)
print("injected", repr(pending), b"INJECTED" in pending)
sys.stdout.flush()
PY
    if grep -q "^control False$" "$TMPD/ttyu.log"; then
        skip scenario_command_other_user_cannot_type_into_root_tty "TIOCSTI does not push input here (dev.tty.legacy_tiocsti=0?)"
    elif grep -q "^control True$" "$TMPD/ttyu.log" && grep -q "^pushed True$" "$TMPD/ttyu.log" &&
        grep -q "^injected b'.*' False$" "$TMPD/ttyu.log"; then
        ok scenario_command_other_user_cannot_type_into_root_tty
    else
        not_ok scenario_command_other_user_cannot_type_into_root_tty "$(cat "$TMPD/ttyu.log" | tail -5)"
    fi
    if grep -q "^sigint 1$" "$TMPD/ttyu.log" && grep -q "^status [456]$" "$TMPD/ttyu.log"; then
        ok scenario_command_other_user_ctrl_c_once
    else
        not_ok scenario_command_other_user_ctrl_c_once "$(cat "$TMPD/ttyu.log" | tail -5)"
    fi
    python3 - "$PERFREPORT_BIN" "$TMPD/ttyv" "$TMPD/ttyv.out" > "$TMPD/ttyv.log" 2>&1 <<'PY'
import os, pty, select, sys, time
bin, out, cmd_out = sys.argv[1:4]
code = r"""
import fcntl, os, termios
try:
    fd = os.open("/dev/tty", os.O_RDWR)
    for ch in b"echo INJECTED\n":
        fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
    print("devtty pushed", flush=True)
except OSError as e:
    print("devtty errno %d" % e.errno, flush=True)
"""
pid, fd = pty.fork()
if pid == 0:
    # perfreport has the terminal as its controlling one, its descriptors not
    n = os.open("/dev/null", os.O_RDONLY)
    o = os.open(cmd_out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(n, 0)
    os.dup2(o, 1)
    os.dup2(o, 2)
    os.execvp(bin, [bin, "-d", "30", "-i", "0.5", "-o", out, "--user", "nobody", "--",
                    "python3", "-c", code])
buf = b""
end = time.monotonic() + 60
while time.monotonic() < end:
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
_, st = os.waitpid(pid, 0)
print("injected", b"INJECTED" in buf)
PY
    if grep -q "^injected False" "$TMPD/ttyv.log" && grep -q "^devtty errno" "$TMPD/ttyv.out"; then
        ok scenario_command_other_user_no_dev_tty
    else
        not_ok scenario_command_other_user_no_dev_tty "$(tail -3 "$TMPD/ttyv.log"); $(grep devtty "$TMPD/ttyv.out")"
    fi
    # run by root itself (no sudo), --user root keeps root
    env -u SUDO_UID -u SUDO_GID -u SUDO_USER "$PERFREPORT_BIN" -q -d 30 -i 0.5 -o "$TMPD/asroot2" \
        --user root -- id -u > "$TMPD/asroot2.out" 2> "$TMPD/asroot2.err"
    if [ "$(cat "$TMPD/asroot2.out")" = 0 ]; then
        ok scenario_command_user_root_keeps_root
    else
        not_ok scenario_command_user_root_keeps_root "got '$(cat "$TMPD/asroot2.out")'"
    fi
else
    skip scenario_command_sudo_runs_as_invoking_user "no user nobody"
fi
