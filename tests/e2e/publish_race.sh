#!/bin/sh
# The publish step against a second, unprivileged user who can write in the
# output's parent directory (a 0777 non-sticky drop directory) and acts while
# perfreport is paused before publishing (PERFREPORT_TEST_PAUSE_BEFORE_PUBLISH):
# swapping the temp directory for a symlink or a forged directory, taking the
# final name, removing the parent; and signals arriving during the write.
. tests/lib.sh
if [ ! -x "$PERFREPORT_BIN" ]; then skip publish_race "binary $PERFREPORT_BIN not built"; exit 0; fi
if ! need_root; then skip publish_race "needs root"; exit 0; fi
if ! command -v setpriv >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
    skip publish_race "setpriv or user nobody missing"; exit 0
fi
NOGROUP=$(id -gn nobody)
as_nobody() { setpriv --reuid=nobody --regid="$NOGROUP" --clear-groups sh -c "$1"; }

chmod 711 "$TMPD"
# Names in /var/tmp (the fallback) are unique to this run and removed after.
U="prrace$$"
on_cleanup "rm -rf /var/tmp/$U-* /var/tmp/$U-*.obfuscation-map"

case "$PERFREPORT_BIN" in /*) BIN=$PERFREPORT_BIN ;; *) BIN=$PWD/$PERFREPORT_BIN ;; esac
# Starts perfreport (in $RUN_IN, default here) paused before publishing: sets $pid, $fifo, $out, $err.
# Returns 1 if it never reached the pause (it exited, or 90 s went by).
start_paused() { # TAG ARGS...
    tag=$1; shift
    fifo=$TMPD/$tag.fifo out=$TMPD/$tag.out err=$TMPD/$tag.err
    mkfifo "$fifo"
    (cd "${RUN_IN:-.}" && PERFREPORT_TEST_PAUSE_BEFORE_PUBLISH=$fifo exec "$BIN" "$@") \
        >"$out" 2>"$err" &
    pid=$!
    wait_paused $pid "$fifo"
}
# Lets it publish; sets $rc.
release() { release_paused $pid "$fifo"; wait $pid; rc=$?; }
# The directory announced on stdout ("Bundle: DIR/index.html").
announced() { sed -n 's|^Bundle: \(.*\)/index\.html$|\1|p' "$out"; }
note_of() { json "$1/manifest.json" "d.get('publish_note')"; }
no_tmp_left() { ! ls -A "$1" | grep -q '^\.perfreport-tmp'; }

# A victim directory of root's files that a swapped-in symlink points at.
mkdir "$TMPD/victim"
for f in a b c; do echo "precious $f" >"$TMPD/victim/$f"; done
victim_intact() { [ "$(cat "$TMPD"/victim/a "$TMPD"/victim/b "$TMPD"/victim/c 2>/dev/null)" = \
    "$(printf 'precious a\nprecious b\nprecious c')" ]; }

# 1. The attacker renames our temp dir away, plants a symlink to the victim
#    under its name, and creates the final name.  Nothing of the victim's may
#    go, the attacker's directory is not announced, the capture lands elsewhere
#    with the partial status.
mkdir -m 0777 "$TMPD/drop1"
if start_paused swap -d 1 -o "$TMPD/drop1/$U-swap"; then
    as_nobody "cd $TMPD/drop1 && t=\$(ls -A | grep '^.perfreport-tmp') && mv \"\$t\" stolen &&
               ln -s $TMPD/victim \"\$t\" && mkdir $U-swap && echo forged > $U-swap/index.html"
    release
    b=$(announced)
    if ! victim_intact; then
        not_ok publish_race_swap_symlink_victim_intact "victim files: $(ls "$TMPD/victim" | tr '\n' ' ')"
    else ok publish_race_swap_symlink_victim_intact; fi
    case "$rc:$b" in
        [456]:/var/tmp/$U-swap*) [ -f "$b/report.json" ] && [ "$(cat "$TMPD/drop1/$U-swap/index.html")" = forged ] \
            && ok publish_race_swap_symlink_published_elsewhere \
            || not_ok publish_race_swap_symlink_published_elsewhere "announced $b, attacker's dir touched?" ;;
        *) not_ok publish_race_swap_symlink_published_elsewhere "exit $rc, announced '$b': $(head -c 300 "$err")" ;;
    esac
    case "$(note_of "$b" 2>/dev/null)" in
        *replaced*) ok publish_race_swap_symlink_note ;;
        *) not_ok publish_race_swap_symlink_note "manifest publish_note: $(note_of "$b" 2>&1 | head -c 200)" ;;
    esac
    # our renamed directory was emptied and removed through its fd
    [ ! -e "$TMPD/drop1/stolen" ] && ok publish_race_swap_symlink_no_root_dir_left \
        || not_ok publish_race_swap_symlink_no_root_dir_left "$(ls -la "$TMPD/drop1/stolen" | head -c 300)"
else
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
    not_ok publish_race_swap_symlink_victim_intact "never paused before publishing: $(head -c 300 "$err")"
fi

# 2. The attacker swaps in a forged directory of their own under the temp
#    name: it must not be renamed into place or announced.
mkdir -m 0777 "$TMPD/drop2"
if start_paused forge -d 1 -o "$TMPD/drop2/$U-forge"; then
    as_nobody "cd $TMPD/drop2 && t=\$(ls -A | grep '^.perfreport-tmp') && mv \"\$t\" stolen &&
               mkdir \"\$t\" && echo forged > \"\$t/index.html\" && echo '{}' > \"\$t/manifest.json\""
    release
    b=$(announced)
    case "$rc:$b" in
        [456]:/var/tmp/$U-forge*)
            if grep -q forged "$b/index.html" || [ -e "$TMPD/drop2/$U-forge" ]; then
                not_ok publish_race_forged_dir_not_announced "forged content published"
            else ok publish_race_forged_dir_not_announced; fi ;;
        *) not_ok publish_race_forged_dir_not_announced "exit $rc, announced '$b': $(head -c 300 "$err")" ;;
    esac
else
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
    not_ok publish_race_forged_dir_not_announced "never paused before publishing: $(head -c 300 "$err")"
fi

# 3. The attacker takes the final name: the capture is published as NAME.1,
#    says so, and exits partial; the attacker's NAME is left as it was.
mkdir -m 0777 "$TMPD/drop3"
if start_paused taken -d 1 -o "$TMPD/drop3/b"; then
    as_nobody "mkdir $TMPD/drop3/b && echo mine > $TMPD/drop3/b/x"
    release
    b=$(announced)
    note=$(note_of "$TMPD/drop3/b.1" 2>/dev/null)
    case "$rc:$b:$note" in
        [456]:"$TMPD/drop3/b.1":*"b was taken; published as b.1"*)
            [ "$(cat "$TMPD/drop3/b/x")" = mine ] && [ "$(ls -A "$TMPD/drop3/b")" = x ] \
                && grep -q "b was taken" "$err" \
                && ok publish_race_taken_name_next_free \
                || not_ok publish_race_taken_name_next_free "attacker's dir changed or nothing on stderr" ;;
        *) not_ok publish_race_taken_name_next_free "exit $rc, announced '$b', note '$note': $(head -c 300 "$err")" ;;
    esac
    no_tmp_left "$TMPD/drop3" && ok publish_race_taken_name_no_tmp_left \
        || not_ok publish_race_taken_name_no_tmp_left "$(ls -A "$TMPD/drop3")"
else
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
    not_ok publish_race_taken_name_next_free "never paused before publishing: $(head -c 300 "$err")"
fi

# 3b. The predictable default name (no -o, in a shared current directory):
#     the attacker creates every such name of the last 60 seconds.
mkdir -m 0777 "$TMPD/drop4"
host=$(hostname | tr -c 'A-Za-z0-9._\n-' _)
if RUN_IN=$TMPD/drop4 start_paused dflt -d 1; then
    as_nobody "cd $TMPD/drop4 && for s in \$(seq 0 60); do
               mkdir perfreport-$host-\$(date -d \"-\$s sec\" +%Y%m%d-%H%M%S) 2>/dev/null; done; true"
    release
    b=$(announced)
    case "$rc:$b" in
        [456]:perfreport-$host-*.1)
            [ -f "$TMPD/drop4/$b/manifest.json" ] && [ -z "$(ls -A "$TMPD/drop4/${b%.1}")" ] \
                && ok publish_race_default_name_taken \
                || not_ok publish_race_default_name_taken "announced $b: no bundle there" ;;
        *) not_ok publish_race_default_name_taken "exit $rc, announced '$b': $(head -c 300 "$err")" ;;
    esac
else
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
    not_ok publish_race_default_name_taken "never paused before publishing: $(head -c 300 "$err")"
fi

# 4. The parent directory vanishes during the write: the capture lands in
#    /var/tmp, is announced there, and the run exits partial.
mkdir "$TMPD/gone"
if start_paused gone -d 1 -o "$TMPD/gone/$U-gone"; then
    rm -rf "$TMPD/gone"
    release
    b=$(announced)
    case "$rc:$b" in
        [456]:/var/tmp/$U-gone)
            [ -f "$b/report.json" ] && [ "$(stat -c %a "$b")" = 700 ] \
                && ok publish_race_parent_gone_fallback \
                || not_ok publish_race_parent_gone_fallback "no report.json or mode $(stat -c %a "$b")" ;;
        *) not_ok publish_race_parent_gone_fallback "exit $rc, announced '$b': $(head -c 300 "$err")" ;;
    esac
else
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
    not_ok publish_race_parent_gone_fallback "never paused before publishing: $(head -c 300 "$err")"
fi

# 4b. The parent's filesystem turns read-only during the write: same fallback.
mkdir "$TMPD/rofs"
if mount -t tmpfs -o size=64m tmpfs "$TMPD/rofs" 2>/dev/null; then
    on_cleanup "umount $TMPD/rofs 2>/dev/null"
    if start_paused rofs -d 1 -o "$TMPD/rofs/$U-rofs"; then
        mount -o remount,ro "$TMPD/rofs"
        release
        b=$(announced)
        case "$rc:$b" in
            [456]:/var/tmp/$U-rofs) [ -f "$b/report.json" ] && grep -q "Read-only" "$err" \
                && ok publish_race_parent_readonly_fallback \
                || not_ok publish_race_parent_readonly_fallback "no report.json or reason: $(head -c 300 "$err")" ;;
            *) not_ok publish_race_parent_readonly_fallback "exit $rc, announced '$b': $(head -c 300 "$err")" ;;
        esac
    else
        kill $pid 2>/dev/null; wait $pid 2>/dev/null
        not_ok publish_race_parent_readonly_fallback "never paused before publishing: $(head -c 300 "$err")"
    fi
    umount "$TMPD/rofs"
else
    skip publish_race_parent_readonly_fallback "cannot mount a tmpfs here"
fi

# 5. Signals whose default is to end the process, sent during the write,
#    leave no root-owned temp directory: the bundle is published.
mkdir "$TMPD/sig"
if start_paused sig -d 1 -o "$TMPD/sig/b"; then
    for s in USR1 USR2 ALRM QUIT TERM HUP PIPE; do kill -$s $pid 2>/dev/null; done
    sleep 0.3
    release
    # 4-6 too: on a loaded host a collector may time out (partial), which is
    # not what this checks; a signal's death would be 128 + N.
    st=$(json "$TMPD/sig/b/manifest.json" "d['exit_status']" 2>/dev/null)
    if [ "$rc" -le 6 ] && [ "$rc" != 3 ] && [ "$rc" = "$st" ] && no_tmp_left "$TMPD/sig"; then
        ok publish_race_signals_during_write
    else
        not_ok publish_race_signals_during_write "exit $rc, left: $(ls -A "$TMPD/sig" | tr '\n' ' ')"
    fi
else
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
    not_ok publish_race_signals_during_write "never paused before publishing: $(head -c 300 "$err")"
fi
