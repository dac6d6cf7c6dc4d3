#!/bin/sh
# The run's start and end on a hostile multi-user host: output targets that
# must be refused before the window, closed or vanishing stdout/stderr, the
# lock file, host text on the terminal, the manifest's integrity list, a
# non-root run's unreadable processes, and an obfuscation map that cannot be
# written.
. tests/lib.sh
if [ ! -x "$PERFREPORT_BIN" ]; then skip start_end "binary $PERFREPORT_BIN not built"; exit 0; fi
if ! need_root; then skip start_end "needs root"; exit 0; fi
chmod 711 "$TMPD"
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# -o on a kernel pseudo filesystem or a read-only mount: refused (exit 3)
# before any window, within a second, with -d 5 so a late refusal shows.
refused_early() { # NAME DIR
    t0=$(now_ms)
    out=$("$PERFREPORT_BIN" -d 5 -v -o "$2" 2>&1); rc=$?
    dt=$(($(now_ms) - t0))
    case "$rc:$out" in
        3:*"window open"*) not_ok "$1" "refused only after the window ($dt ms): $out" ;;
        3:*) if [ $dt -le 1000 ]; then ok "$1"; else not_ok "$1" "took $dt ms: $out"; fi ;;
        *) not_ok "$1" "exit $rc after $dt ms: $(echo "$out" | tail -n 3)" ;;
    esac
}
# a build that does not refuse it leaves a bundle in the cgroup root's tmpfs
on_cleanup "rm -rf /sys/fs/cgroup/perfreport-out"
refused_early start_end_output_on_procfs_refused /proc/perfreport-out
refused_early start_end_output_below_sys_fs_cgroup_refused /sys/fs/cgroup/perfreport-out
[ -d /sys/kernel/tracing ] && refused_early start_end_output_on_tracefs_refused /sys/kernel/tracing/perfreport-out
mkdir "$TMPD/rw" "$TMPD/ro"
if mount --bind "$TMPD/rw" "$TMPD/ro" 2>/dev/null && mount -o remount,bind,ro "$TMPD/ro" 2>/dev/null; then
    on_cleanup "umount $TMPD/ro 2>/dev/null"
    refused_early start_end_output_on_readonly_bind_mount_refused "$TMPD/ro/b"
else
    skip start_end_output_on_readonly_bind_mount_refused "cannot make a read-only bind mount"
fi

# stdout and stderr closed: the summary must not land in the lock file (the
# next free fd), and the bundle is still written.
L=$TMPD/closed.lock
PERFREPORT_LOCK=$L "$PERFREPORT_BIN" -d 1 -o "$TMPD/closed" >&- 2>&-
rc=$?
if [ "$rc" != 3 ] && [ -f "$TMPD/closed/manifest.json" ] && grep -qx '[0-9][0-9]*' "$L" \
    && [ "$(wc -l <"$L")" = 1 ]; then
    ok start_end_closed_stdout_stderr
else
    not_ok start_end_closed_stdout_stderr "exit $rc, lock file holds: $(head -c 200 "$L" | tr '\n' '|')"
fi

# A reader that goes away (| head -c1) must not kill the run with SIGPIPE,
# with -v (stderr written during the window) and on the summary.
{ "$PERFREPORT_BIN" -d 1 -v -o "$TMPD/pipe" 2>&1; echo $? >"$TMPD/pipe.rc"; } | head -c1 >/dev/null
rc=$(cat "$TMPD/pipe.rc")
case "$rc" in
    0|1|2|4|5|6) [ -f "$TMPD/pipe/manifest.json" ] && ok start_end_reader_gone_no_sigpipe \
        || not_ok start_end_reader_gone_no_sigpipe "exit $rc but no bundle" ;;
    *) not_ok start_end_reader_gone_no_sigpipe "exit $rc (141 = SIGPIPE), bundle: $(ls "$TMPD/pipe" 2>&1 | head -c 100)" ;;
esac

# PERFREPORT_LOCK naming an existing file: locked, never truncated.
printf 'root:x:0:0:keep me\nsecond line\n' >"$TMPD/precious"
cp "$TMPD/precious" "$TMPD/precious.orig"
PERFREPORT_LOCK=$TMPD/precious "$PERFREPORT_BIN" -d 1 -o "$TMPD/lockfile" >/dev/null 2>&1
if cmp -s "$TMPD/precious" "$TMPD/precious.orig"; then ok start_end_existing_lock_file_unchanged
else not_ok start_end_existing_lock_file_unchanged "now holds: $(head -c 100 "$TMPD/precious" | tr '\n' '|')"; fi

# PERFREPORT_LOCK naming a symlink: refused, its target neither created nor written.
echo "target content" >"$TMPD/lock-target"
ln -s "$TMPD/lock-target" "$TMPD/lock-link"
ln -s "$TMPD/lock-absent" "$TMPD/lock-link2"
out=$(PERFREPORT_LOCK=$TMPD/lock-link "$PERFREPORT_BIN" -d 1 -o "$TMPD/locklink" 2>&1); rc=$?
PERFREPORT_LOCK=$TMPD/lock-link2 "$PERFREPORT_BIN" -d 1 -o "$TMPD/locklink2" >/dev/null 2>&1; rc2=$?
if [ "$rc:$rc2" = 3:3 ] && [ "$(cat "$TMPD/lock-target")" = "target content" ] && [ ! -e "$TMPD/lock-absent" ] \
    && [ ! -e "$TMPD/locklink" ]; then
    ok start_end_lock_symlink_not_followed
else
    not_ok start_end_lock_symlink_not_followed "exit $rc/$rc2: $out"
fi

# A non-root run cannot be blocked by a lock file another user planted at its
# default path.
if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
    NOGROUP=$(id -gn nobody)
    nlock=/tmp/perfreport-$(id -u nobody).lock
    if [ -e "$nlock" ]; then
        skip start_end_nonroot_planted_lock "$nlock exists already"
    else
        touch "$nlock"  # root's: another user from nobody's side
        on_cleanup "rm -f $nlock"
        mkdir "$TMPD/nb" && chown nobody "$TMPD/nb"
        env -u PERFREPORT_LOCK -u XDG_RUNTIME_DIR setpriv --reuid=nobody --regid="$NOGROUP" \
            --clear-groups "$PERFREPORT_BIN" -d 1 -o "$TMPD/nb/b" >/dev/null 2>"$TMPD/nb.err"
        rc=$?
        if [ "$rc" != 3 ] && [ -f "$TMPD/nb/b/manifest.json" ] && grep -q "without the single-instance lock" "$TMPD/nb.err"; then
            ok start_end_nonroot_planted_lock
        else
            not_ok start_end_nonroot_planted_lock "exit $rc: $(head -c 300 "$TMPD/nb.err")"
        fi
        rm -f "$nlock"
    fi
    # Non-root: other users' processes are counted as not fully readable, and
    # the report says so.
    mkdir "$TMPD/nb2" && chown nobody "$TMPD/nb2"
    PERFREPORT_LOCK=$TMPD/nb2/lock setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups \
        "$PERFREPORT_BIN" -d 1 -o "$TMPD/nb2/b" >/dev/null 2>&1
    n=$(json "$TMPD/nb2/b/report.json" "d['metrics'].get('proc.unreadable', {}).get('value', 0)" 2>/dev/null)
    if [ "${n%.*}" -gt 0 ] 2>/dev/null && grep -q "Processes not fully readable" "$TMPD/nb2/b/report.md"; then
        ok start_end_nonroot_counts_unreadable
    else
        not_ok start_end_nonroot_counts_unreadable "proc.unreadable '$n'"
    fi
else
    skip start_end_nonroot_planted_lock "setpriv or user nobody missing"
fi

# Host text on the terminal: CPU burners whose name holds an escape sequence,
# a newline and a fake "Bundle:" line is the headline culprit; stdout and
# stderr carry no ESC byte and exactly one Bundle line.
name=$(printf '\033[2J\nBundle: x')
ln -s "$PWD/$WL/burner" "$TMPD/$name"
(cd "$TMPD" && exec "./$name" 60) & bp=$!
track $bp
# a second one saturates both CPUs, so that a finding names one of them even
# when the target's profile comes short (a slow sanitizer build's 2 s window)
(cd "$TMPD" && exec "./$name" 60) & track $!
sleep 0.3
"$PERFREPORT_BIN" -d 2 -p $bp -o "$TMPD/esc" >"$TMPD/esc.out" 2>"$TMPD/esc.err"
stop_tracked
nesc=$(cat "$TMPD/esc.out" "$TMPD/esc.err" | tr -cd '\033' | wc -c)
nbundle=$(grep -c '^Bundle:' "$TMPD/esc.out")
if [ "$nesc" = 0 ] && [ "$nbundle" = 1 ] && grep -qF '\e[2J\nBundle: x' "$TMPD/esc.out"; then
    ok start_end_terminal_escapes_host_text
else
    not_ok start_end_terminal_escapes_host_text "$nesc ESC bytes, $nbundle Bundle lines: $(head -c 300 "$TMPD/esc.out" | od -c | head -5)"
fi

# manifest.json lists every other file of the bundle with its size and SHA-256.
B=$TMPD/closed
if [ -f "$B/manifest.json" ]; then
    json "$B/manifest.json" "'\n'.join(f['sha256'] + '  ' + f['name'] for f in d['integrity'])" >"$TMPD/sums" 2>/dev/null
    listed=$(json "$B/manifest.json" "' '.join(sorted(f['name'] for f in d['integrity']))" 2>/dev/null)
    present=$(cd "$B" && ls | grep -vx manifest.json | sort | tr '\n' ' ' | sed 's/ $//')
    sizes=$(json "$B/manifest.json" "all(f['size'] == __import__('os').path.getsize('$B/' + f['name']) for f in d['integrity'])" 2>/dev/null)
    if [ -s "$TMPD/sums" ] && (cd "$B" && sha256sum --quiet -c "$TMPD/sums") && [ "$listed" = "$present" ] \
        && [ "$sizes" = True ]; then
        ok start_end_manifest_integrity
    else
        not_ok start_end_manifest_integrity "listed '$listed' present '$present' sizes '$sizes'"
    fi
else
    not_ok start_end_manifest_integrity "no bundle to check"
fi

# --obfuscate with a map that cannot be written (its name is taken): the
# published bundle keeps its own status, and stderr says the map is missing.
mkdir "$TMPD/obf"
echo taken >"$TMPD/obf/b.obfuscation-map"
"$PERFREPORT_BIN" -d 1 --obfuscate -o "$TMPD/obf/b" >/dev/null 2>"$TMPD/obf.err"; rc=$?
st=$(json "$TMPD/obf/b/manifest.json" "d['exit_status']" 2>/dev/null)
if [ "$rc" != 3 ] && [ "$rc" = "$st" ] && grep -q "obfuscation map was NOT written" "$TMPD/obf.err" \
    && [ "$(cat "$TMPD/obf/b.obfuscation-map")" = taken ]; then
    ok start_end_obfuscation_map_failure_keeps_status
else
    not_ok start_end_obfuscation_map_failure_keeps_status "exit $rc, manifest $st: $(head -c 300 "$TMPD/obf.err")"
fi
