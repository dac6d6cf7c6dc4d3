#!/bin/sh
# Under sudo (SUDO_UID, SUDO_GID, SUDO_USER of a real unprivileged user, as
# sudo sets them for a sudoers rule that allows perfreport alone), every path
# the caller names is used with the caller's own rights: -o, the default
# output in the current directory, --metrics, --archive, --keep, the
# obfuscation map, --thresholds, --baseline and the subcommands' inputs and
# outputs.  The attacks: replace a root-only file through --metrics, create
# root-owned entries where the caller may not write, have --keep remove
# root's bundles, read root's files through --thresholds or render.
. tests/lib.sh
T=sudo
[ -x "$PERFREPORT_BIN" ] || { skip $T "binary $PERFREPORT_BIN not built"; exit 0; }
need_root || { skip $T "needs root"; exit 0; }
command -v useradd >/dev/null 2>&1 || { skip $T "no useradd"; exit 0; }
case "$PERFREPORT_BIN" in /*) BIN=$PERFREPORT_BIN ;; *) BIN=$PWD/$PERFREPORT_BIN ;; esac

# A caller with a supplementary group of its own (a right it has only
# through that group is honoured).
U=prsu$$ G=prsg$$
groupadd "$G" || { skip $T "groupadd failed"; exit 0; }
on_cleanup "groupdel $G 2>/dev/null"
useradd -M -N -s /usr/sbin/nologin -G "$G" "$U" || { skip $T "useradd failed"; exit 0; }
on_cleanup "userdel $U 2>/dev/null"
on_cleanup "rm -rf /var/tmp/$U-*"
uid=$(id -u "$U") gid=$(id -g "$U")
as_sudo() { SUDO_UID=$uid SUDO_GID=$gid SUDO_USER=$U "$@"; }

chmod 711 "$TMPD"
H=$TMPD/home  && mkdir "$H" && chown "$U" "$H"        # the caller's own directory
R=$TMPD/root0 && mkdir -m 0700 "$R"                     # root's, closed
P=$TMPD/rootp && mkdir -m 0755 "$P"                     # root's, open to read
GD=$TMPD/grp  && mkdir -m 0770 "$GD" && chgrp "$G" "$GD" # writable through the group only
for d in "$R" "$P"; do echo precious >"$d/precious"; done
chmod 600 "$R/precious"; chmod 644 "$P/precious"
printf 'secret-token-4711 1 2\n' >"$R/thr" && chmod 600 "$R/thr"
fp() { stat -c '%U %a %s' "$1"; cat "$1"; }  # a file's owner, mode, size, text
# Root's places as they were: nothing in them may change.
snap() { fp "$R/precious"; fp "$P/precious"; ls -A "$R" "$P"; }
untouched() { [ "$(snap)" = "$before" ]; }

# A bundle of root's (a run without sudo), root-only: the baseline and
# render input the caller may not read, and (copied) an old bundle of this
# host in the caller's directory that --keep must leave alone.
(cd "$R" && "$BIN" -d 1 -q) 2>"$TMPD/root.err"
old=$(ls "$R" | grep '^perfreport-')
[ -n "$old" ] && [ -f "$R/$old/manifest.json" ] || { not_ok sudo_setup "no root bundle: $(cat "$TMPD/root.err")"; exit 0; }
HP=${old%????????-??????}      # perfreport-<host>-
cp -a "$R/$old" "$H/${HP}20190101-000000"           # root's, in the caller's directory
cp -a "$R/$old" "$H/${HP}20190102-000000" && chown -R "$U" "$H/${HP}20190102-000000"  # the caller's
before=$(snap)

# 1. Refused before any window, nothing touched: each names a place the
#    caller may not write, or a file it may not read.
n=0
for args in "--metrics $R/precious -o $H/a1" "--metrics $P/precious -o $H/a2" \
            "-o $P/b" "-o $R/b" "--thresholds $R/thr -o $H/a3" "--baseline $R/$old -o $H/a4"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    as_sudo "$BIN" -d 1 -q $args >"$TMPD/a.out" 2>"$TMPD/a.err"
    rc=$?
    if [ $rc = 3 ] && untouched && [ -z "$(ls -A "$H" | grep '^a[0-9]')" ] &&
        ! grep -q secret-token "$TMPD/a.err"; then
        ok sudo_refused_$n
    else
        not_ok sudo_refused_$n "perfreport $args: exit $rc; $(head -c 300 "$TMPD/a.err"); $(ls -l "$R" "$P" | tr '\n' ' ')"
    fi
done
# the default output, in a current directory the caller may not write
(cd "$P" && as_sudo "$BIN" -d 1 -q) >/dev/null 2>"$TMPD/cwd.err"
rc=$?
if [ $rc = 3 ] && untouched; then ok sudo_refused_cwd
else not_ok sudo_refused_cwd "exit $rc; $(head -c 300 "$TMPD/cwd.err"); $(ls "$P")"; fi

# Through root's process: a root shell sits in an open directory below the
# closed one.  /proc/PID/cwd leads there without a search of the closed
# directory (the kernel follows that link for CAP_SYS_PTRACE, not for the
# caller's own rights), and the file in it is readable by anyone.
mkdir -m 0755 "$R/open" && printf 'cpu.util_pct 71 93\n' >"$R/open/thr" && chmod 644 "$R/open/thr"
(cd "$R/open" && exec sleep 300) &
hold=$!
on_cleanup "kill $hold 2>/dev/null"
before=$(snap)
if [ "$(cat "/proc/$hold/cwd/thr" 2>/dev/null)" != "cpu.util_pct 71 93" ]; then
    not_ok sudo_refused_proc_cwd "root cannot read /proc/$hold/cwd/thr: no attack to perform"
else
    as_sudo "$BIN" -d 1 -q --thresholds "/proc/$hold/cwd/thr" -o "$H/a5" \
        >"$TMPD/a.out" 2>"$TMPD/a.err"
    rc=$?
    if [ $rc = 3 ] && [ ! -e "$H/a5" ] && grep -q "Permission denied" "$TMPD/a.err" && untouched; then
        ok sudo_refused_proc_cwd
    else
        not_ok sudo_refused_proc_cwd "exit $rc; $(ls -A "$H" | grep '^a5'); $(head -c 300 "$TMPD/a.err")"
    fi
fi
kill $hold 2>/dev/null

# 2. A run with every output in places the caller may write (one only
#    through its supplementary group): all of it is the caller's, and
#    --keep removes the caller's old bundle but not root's.
as_sudo "$BIN" -d 1 -q -o "$H/b" --metrics "$GD/m.prom" --archive --keep 1 \
    >"$TMPD/b.out" 2>"$TMPD/b.err"
rc=$?
owners=$(stat -c %U "$H/b" "$H/b/manifest.json" "$H/b/report.json" "$H/b.tar.gz" \
    "$GD/m.prom" 2>&1 | sort -u)
if [ $rc -le 2 ] && [ "$owners" = "$U" ] && [ "$(stat -c %a "$H/b")" = 700 ]; then
    ok sudo_outputs_are_the_callers
else
    not_ok sudo_outputs_are_the_callers "exit $rc, owners '$owners': $(head -c 300 "$TMPD/b.err")"
fi
if [ -f "$H/${HP}20190101-000000/manifest.json" ] && [ ! -e "$H/${HP}20190102-000000" ] &&
    untouched; then
    ok sudo_keep_leaves_roots_bundles
else
    not_ok sudo_keep_leaves_roots_bundles "$(ls -l "$H" | tr '\n' ' '); $(head -c 300 "$TMPD/b.err")"
fi

# 3. The subcommands run as the caller: no output where it may not write,
#    no input it may not read, and its own work is its own.
as_sudo "$BIN" render -q -o "$P/r" "$H/b" 2>"$TMPD/r1.err"; rc1=$?
as_sudo "$BIN" render -q -o "$H/r2" "$R/$old" 2>"$TMPD/r2.err"; rc2=$?
as_sudo "$BIN" diff -q -o "$H/d" "$R/$old" "$H/b" 2>"$TMPD/d.err"; rc3=$?
as_sudo "$BIN" history -q -o "$P/h" "$H" 2>"$TMPD/h.err"; rc4=$?
as_sudo "$BIN" render -q -o "$H/r3" "$H/b" 2>"$TMPD/r3.err"; rc5=$?
# a root-only file as folded stacks: read as root, its lines were the graph's frames
as_sudo "$BIN" flamegraph "$R/thr" >"$TMPD/f.svg" 2>"$TMPD/f.err"; rc6=$?
if [ "$rc1$rc2$rc3$rc4$rc6" = 33333 ] && untouched && [ ! -e "$H/r2" ] && [ ! -e "$H/d" ] &&
    ! grep -q secret-token "$TMPD/f.svg" "$TMPD/f.err" &&
    [ $rc5 -le 2 ] && [ "$(stat -c %U "$H/r3/report.json")" = "$U" ]; then
    ok sudo_subcommands_as_the_caller
else
    not_ok sudo_subcommands_as_the_caller "exits $rc1 $rc2 $rc3 $rc4 $rc5 $rc6: $(cat "$TMPD"/r1.err "$TMPD"/r2.err "$TMPD"/d.err "$TMPD"/h.err "$TMPD"/r3.err | head -c 600)"
fi

# 4. The caller loses the right to its directory during the window: the
#    capture is not thrown away (it goes to /var/tmp, still as the caller's,
#    its obfuscation map too) and it says where; root's rights are not used
#    to write it there (what is left is at most the empty temp directory
#    the caller's rights cannot remove).
mkdir "$H/e" && chown "$U" "$H/e"
fifo=$TMPD/e.fifo && mkfifo -m 0666 "$fifo" # opened as the caller
# env, not as_sudo: $! must be perfreport (a function in the background is a
# subshell, without the FIFO among its fds)
env SUDO_UID=$uid SUDO_GID=$gid SUDO_USER=$U PERFREPORT_TEST_PAUSE_BEFORE_PUBLISH="$fifo" \
    "$BIN" -d 1 --obfuscate -o "$H/e/$U-e" >"$TMPD/e.out" 2>"$TMPD/e.err" &
pid=$!
wait_paused $pid "$fifo"; paused=$?
chmod 0500 "$H/e"; closed=$?
release_paused $pid "$fifo"
wait $pid; rc=$?
b=$(sed -n 's|^Bundle: \(.*\)/index\.html$|\1|p' "$TMPD/e.out")
# the directory must close while perfreport holds before publishing
[ $paused = 0 ] && [ $closed = 0 ] || rc="not paused ($paused, chmod $closed), exit $rc"
case "$rc:$b" in
    [456]:/var/tmp/$U-e*)
        if [ "$(stat -c %U "$b/manifest.json" "$b.obfuscation-map" | sort -u)" = "$U" ] &&
            [ -z "$(find "$H/e" -mindepth 2)" ] &&
            grep -q "written to /var/tmp instead" "$TMPD/e.err"; then
            ok sudo_capture_kept_and_said
        else
            not_ok sudo_capture_kept_and_said "$b: $(stat -c %U "$b/manifest.json"); $(ls -A "$H/e"); $(head -c 300 "$TMPD/e.err")"
        fi ;;
    *) not_ok sudo_capture_kept_and_said "exit $rc, bundle '$b': $(head -c 300 "$TMPD/e.err")" ;;
esac
