#!/bin/sh
# `perfreport --user nobody -- CMD` from root's interactive terminal (a pty
# that script(1) provides): the command gets a terminal of its own, relayed
# while perfreport runs, and nothing it leaves behind can read or write
# root's terminal after perfreport exits.  The attack: the command leaves a
# process (in a session of its own, so perfreport does not wait for it)
# holding its descriptors; once perfreport has returned, it turns root's
# echo off, prints a fake prompt and reads the line root types next.
. tests/lib.sh
T=terminal
[ -x "$PERFREPORT_BIN" ] || { skip $T "binary $PERFREPORT_BIN not built"; exit 0; }
need_root || { skip $T "needs root"; exit 0; }
command -v script >/dev/null 2>&1 || { skip $T "no script(1)"; exit 0; }
id nobody >/dev/null 2>&1 || { skip $T "no user nobody"; exit 0; }
case "$PERFREPORT_BIN" in /*) BIN=$PERFREPORT_BIN ;; *) BIN=$PWD/$PERFREPORT_BIN ;; esac

chmod 711 "$TMPD"
W=$TMPD/w && mkdir "$W" && chown nobody "$W"   # where nobody's processes may write

# typist FILE TEXT: types TEXT into the terminal once FILE exists (up to
# 90 s), then keeps the terminal's input open while the session ends.
typist() {
    i=0
    while [ ! -e "$1" ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
    printf '%s' "$2"
    i=0
    while [ ! -e "$W/end" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}

# 1. The leftover waits for perfreport to be gone, then acts on the
#    descriptors the command had (its stdin passed on by hand: sh gives a
#    background job /dev/null).  Root's stand-in shell notes its terminal
#    modes before and after, then reads the next line typed.  The leftover
#    ignores SIGHUP: the command's shell leads its session, and when it
#    exits the kernel hangs up the terminal's foreground group, where the
#    leftover is until setsid has run (it died there, and the case proved
#    nothing); $W/acted says it got as far as the attack.
cat >"$TMPD/leftover.sh" <<EOF
i=0
while [ ! -e "$W/gone" ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
stty -echo 2>/dev/null
printf 'FAKE-PROMPT: '
touch "$W/acted"
exec dd bs=1 count=40 of="$W/stolen" 2>/dev/null
EOF
cat >"$TMPD/session.sh" <<EOF
stty -g >"$TMPD/modes.before"
"$BIN" -q -d 30 -o "$TMPD/b1" --user nobody -- \
    sh -c 'exec 3<&0; trap "" HUP; setsid sh "$TMPD/leftover.sh" 0<&3 & exit 0'
echo \$? >"$TMPD/rc1"
touch "$W/gone"
sleep 1.5
stty -g >"$TMPD/modes.after"
touch "$TMPD/ready"
timeout --foreground 10 head -n 1 >"$TMPD/got"
EOF
chmod 644 "$TMPD/leftover.sh"
typist "$TMPD/ready" "root-next-line
" | script -q -c "sh $TMPD/session.sh" /dev/null >"$TMPD/term1" 2>&1
touch "$W/end"
rc=$(cat "$TMPD/rc1" 2>/dev/null)
case $rc in
    [012]) ok terminal_run_ok ;;
    *) not_ok terminal_run_ok "perfreport exit '$rc': $(head -c 300 "$TMPD/term1")" ;;
esac
if [ ! -e "$W/acted" ]; then
    not_ok terminal_leftover_reads_nothing "the leftover never acted (perfreport exit '$rc')"
elif [ ! -s "$W/stolen" ] && [ "$(cat "$TMPD/got")" = root-next-line ]; then
    ok terminal_leftover_reads_nothing
else
    not_ok terminal_leftover_reads_nothing "stolen '$(cat "$W/stolen" 2>/dev/null)', root's shell got '$(cat "$TMPD/got")'"
fi
if [ -s "$TMPD/modes.before" ] && cmp -s "$TMPD/modes.before" "$TMPD/modes.after"; then
    ok terminal_modes_unchanged
else
    not_ok terminal_modes_unchanged "before $(cat "$TMPD/modes.before"), after $(cat "$TMPD/modes.after")"
fi
if [ -e "$W/acted" ] && ! grep -q FAKE-PROMPT "$TMPD/term1"; then
    ok terminal_leftover_writes_nothing
else
    not_ok terminal_leftover_writes_nothing "$(tr -c '[:print:]\n' '.' <"$TMPD/term1" | head -c 300)"
fi

# 1b. The leftover writes right after the command exits, while perfreport
#     is still at work (held after publishing, before it reaps the command,
#     until the leftover has written): only the command's own output reaches
#     root's terminal.  Nothing here may hang the suite (or the lock it runs
#     under): every FIFO write has a timeout, perfreport is killed at last,
#     and the pause is released from here if the leftover never writes.
fifo=$TMPD/late.fifo && mkfifo -m 0666 "$fifo"
cat >"$TMPD/late.sh" <<EOF
echo \$\$ >"$W/late.pid"
sleep 0.3
printf 'LATE-WRITE\n' && touch "$W/late-written"
timeout 60 sh -c 'echo go >"\$1"' _ "$fifo"
EOF
cat >"$TMPD/session3.sh" <<EOF
PERFREPORT_TEST_PAUSE_AFTER_PUBLISH="$fifo" timeout --foreground -k 5 120 "$BIN" -q -d 30 \\
    -o "$TMPD/b4" --user nobody -- \\
    sh -c 'echo OWN-OUTPUT; trap "" HUP; setsid sh "$TMPD/late.sh" & exit 0'
echo \$? >"$TMPD/rc4"
EOF
chmod 644 "$TMPD/late.sh"
( i=0
  while [ ! -e "$TMPD/rc4" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  [ -e "$TMPD/rc4" ] || timeout 5 sh -c 'echo go >"$1"' _ "$fifo" ) &
track $!
on_cleanup 'kill "$(cat "$W/late.pid" 2>/dev/null)" 2>/dev/null'
timeout -k 5 150 script -q -c "sh $TMPD/session3.sh" /dev/null </dev/null >"$TMPD/term4" 2>&1
stop_tracked
rc=$(cat "$TMPD/rc4" 2>/dev/null)
if [ ! -e "$W/late-written" ]; then
    not_ok terminal_late_write_not_relayed "the leftover did not write (perfreport exit '$rc'): $(tr -c '[:print:]\n' '.' <"$TMPD/term4" | head -c 300)"
elif case $rc in [012]) true ;; *) false ;; esac &&
    grep -q OWN-OUTPUT "$TMPD/term4" && ! grep -q LATE-WRITE "$TMPD/term4"; then
    ok terminal_late_write_not_relayed
else
    not_ok terminal_late_write_not_relayed "exit '$rc': $(tr -c '[:print:]\n' '.' <"$TMPD/term4" | head -c 300)"
fi

# 1c. Root's terminal takes no output (Ctrl-S, or a reader that stopped)
#     while the command writes 300 kB: the relay drops what the terminal
#     does not take within a second, so the command and perfreport end
#     without anyone reading root's terminal (before they waited until it
#     was read again).
python3 - "$BIN" "$TMPD/b5" >"$TMPD/stall.log" 2>&1 <<'PY'
import os, pty, select, sys, time
bin, out = sys.argv[1:3]
pid, m = pty.fork()  # the child in a session of its own, the pty its terminal
if pid == 0:
    os.execvp(bin, [bin, "-q", "-d", "30", "-o", out, "--user", "nobody", "--", "sh", "-c",
                    "head -c 300000 /dev/zero | tr '\\000' x; echo OUTPUT-END"])
t0, st = time.monotonic(), None
while st is None and time.monotonic() - t0 < 20:
    done, st = os.waitpid(pid, os.WNOHANG)
    st = st if done else None
    time.sleep(0.1)
print("ended unread", st is not None)
end = time.monotonic() + 60
while time.monotonic() < end:
    r, _, _ = select.select([m], [], [], 0.2)
    try:
        if r and not os.read(m, 65536):
            break
    except OSError:
        break
    if not r and st is not None:
        break
if st is None:
    _, st = os.waitpid(pid, 0)
print("status", os.waitstatus_to_exitcode(st))
PY
if grep -q "^ended unread True$" "$TMPD/stall.log" && grep -q "^status [012]$" "$TMPD/stall.log" &&
    [ "$(json "$TMPD/b5/report.json" "d['command']['exit_status']")" = 0 ]; then
    ok terminal_stalled_output_dropped
else
    not_ok terminal_stalled_output_dropped "$(tail -3 "$TMPD/stall.log")"
fi

# 2. While perfreport runs the command has a terminal: not root's, relayed
#    both ways, and its own modes hold (a password read with echo off is not
#    echoed on root's terminal).
cat >"$TMPD/asks.sh" <<EOF
tty
printf 'name? '
IFS= read -r name
stty -echo
printf 'password? '
IFS= read -r pw
stty echo
echo
echo "got \$name/\$pw"
EOF
cat >"$TMPD/session2.sh" <<EOF
tty >"$TMPD/outer"
"$BIN" -q -d 30 -o "$TMPD/b2" --user nobody -- sh "$TMPD/asks.sh"
echo \$? >"$TMPD/rc2"
EOF
chmod 644 "$TMPD/asks.sh"
( i=0
  while ! grep -q 'name?' "$TMPD/term2" 2>/dev/null && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
  printf 'alice\n'
  while ! grep -q 'password?' "$TMPD/term2" 2>/dev/null && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
  printf 'hunter2\n'
  while [ ! -e "$TMPD/rc2" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
) | script -q -f -c "sh $TMPD/session2.sh" /dev/null >"$TMPD/term2" 2>&1
inner=$(head -n 1 "$TMPD/term2" | tr -d '\r')
if grep -q 'got alice/hunter2' "$TMPD/term2" && [ "$(cat "$TMPD/rc2")" -le 2 ]; then
    ok terminal_relayed_both_ways
else
    not_ok terminal_relayed_both_ways "$(tr -c '[:print:]\n' '.' <"$TMPD/term2" | head -c 300)"
fi
case $inner in
    /dev/pts/*) [ "$inner" != "$(cat "$TMPD/outer")" ] && ok terminal_own_pty ||
        not_ok terminal_own_pty "the command's terminal is root's: $inner" ;;
    *) not_ok terminal_own_pty "the command's tty: '$inner'" ;;
esac
# 'alice' is echoed (by the command's terminal), 'hunter2' is not
if grep -q 'name? alice' "$TMPD/term2" && [ "$(grep -c hunter2 "$TMPD/term2")" = 1 ]; then
    ok terminal_commands_modes_hold
else
    not_ok terminal_commands_modes_hold "$(tr -c '[:print:]\n' '.' <"$TMPD/term2" | head -c 300)"
fi

# 3. Keys and the window size: Ctrl-Z and Ctrl-\ are the command's (its own
#    terminal signals it), a resize of root's terminal reaches it; Ctrl-C
#    goes to perfreport and is passed on (tests/scenarios/s11_command.sh).
python3 - "$BIN" "$TMPD/b3" >"$TMPD/keys.log" 2>&1 <<'PY'
import fcntl, os, pty, select, struct, sys, termios, time
bin, out = sys.argv[1:3]
pid, m = pty.fork()  # the child in a session of its own, the pty its terminal
if pid == 0:
    os.execvp(bin, [bin, "-q", "-d", "30", "-o", out, "--user", "nobody", "--", "sh", "-c",
                    "trap 'echo got-tstp' TSTP; trap 'echo got-winch; stty size' WINCH; "
                    "trap 'echo got-quit; exit 5' QUIT; echo ready; "
                    "i=0; while [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done"])
buf = b""
def drain(secs, want=None):
    global buf
    end = time.monotonic() + secs
    while time.monotonic() < end and not (want and want in buf):
        r, _, _ = select.select([m], [], [], 0.05)
        if r:
            try:
                buf += os.read(m, 4096)
            except OSError:
                return
drain(90, b"ready")
os.write(m, b"\x1a")
drain(5, b"got-tstp")
fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 77, 0, 0))
drain(5, b"33 77")
os.write(m, b"\x1c")
drain(5, b"got-quit")
end, st = time.monotonic() + 60, None
while st is None:
    drain(0.1)
    done, st = os.waitpid(pid, 0 if time.monotonic() > end else os.WNOHANG)
    st = st if done else None
print("status", os.waitstatus_to_exitcode(st))
print("seen", [k for k in ("got-tstp", "33 77", "got-quit") if k.encode() in buf])
PY
if grep -q "^status [012]$" "$TMPD/keys.log" &&
    grep -q "^seen \['got-tstp', '33 77', 'got-quit'\]$" "$TMPD/keys.log" &&
    [ "$(json "$TMPD/b3/report.json" "d['command']['exit_status']")" = 5 ]; then
    ok terminal_keys_are_the_commands
else
    not_ok terminal_keys_are_the_commands "$(tail -3 "$TMPD/keys.log")"
fi
