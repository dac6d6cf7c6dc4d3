#!/bin/sh
# --archive: the bundle as one BUNDLE.tar.gz beside it, every file of the
# bundle in it with the manifest's SHA-256; a name planted by another user
# (a symlink to a victim) is never followed: the archive takes the next name.
. tests/lib.sh
T=archive
[ -x "$PERFREPORT_BIN" ] || { skip $T "binary $PERFREPORT_BIN not built"; exit 0; }
need_root || { skip $T "needs root"; exit 0; }
mkdir -p "$TMPD/out"
"$PERFREPORT_BIN" -d 1 --archive -o "$TMPD/out/b" > "$TMPD/stdout" 2>"$TMPD/err"
rc=$?
a=$TMPD/out/b.tar.gz
if [ "$rc" -le 2 ] && [ -s "$a" ]; then
    mkdir -p "$TMPD/x" && tar -xzf "$a" -C "$TMPD/x"
    r=$(python3 - "$TMPD/out/b" "$TMPD/x/b" <<'PY'
import hashlib, json, os, sys
src, got = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(src, 'manifest.json')))
want = sorted(os.listdir(src))
have = sorted(os.listdir(got))
bad = []
if want != have: bad.append('files differ: %s' % sorted(set(want) ^ set(have)))
for f in m.get('integrity', []):
    h = hashlib.sha256(open(os.path.join(got, f['name']), 'rb').read()).hexdigest()
    if h != f['sha256']: bad.append('%s sha256 differs' % f['name'])
print('ok' if not bad else '; '.join(bad))
PY
)
    [ "$r" = ok ] && ok archive_holds_the_bundle || not_ok archive_holds_the_bundle "$r"
    mode=$(stat -c %a "$a")
    [ "$mode" = 600 ] && ok archive_private || not_ok archive_private "mode $mode"
    grep -q "^Archive: .*/b.tar.gz" "$TMPD/stdout" && ok archive_said || not_ok archive_said "$(cat "$TMPD/stdout")"
else
    not_ok archive_holds_the_bundle "exit $rc, no $a: $(head -c 300 "$TMPD/err")"
fi
# A planted symlink at the archive's name, pointing at a victim file.
mkdir -p "$TMPD/drop" && chmod 1777 "$TMPD/drop"
echo precious > "$TMPD/victim"
ln -s "$TMPD/victim" "$TMPD/drop/c.tar.gz"
"$PERFREPORT_BIN" -d 1 -q --archive -o "$TMPD/drop/c" > "$TMPD/stdout2" 2>"$TMPD/err2"
if [ "$(cat "$TMPD/victim")" = precious ] && [ -L "$TMPD/drop/c.tar.gz" ] && [ -s "$TMPD/drop/c.1.tar.gz" ] \
    && tar -tzf "$TMPD/drop/c.1.tar.gz" | grep -q '^c/report.json$'; then
    ok archive_planted_name_not_followed
else
    not_ok archive_planted_name_not_followed "victim: $(cat "$TMPD/victim"); $(ls -l "$TMPD/drop" | tail -4 | tr '\n' ' ')"
fi

# The bundle's name swapped after publishing, before the archive is made: a
# second user (the drop directory is 0777, not sticky) moves the bundle away
# and puts a directory of its own under its name, with a forged index.html
# and a 2 GiB sparse file.  The archive holds the bundle perfreport
# published (its directory's fd, the files it wrote, their sizes), nothing
# of the user's.
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1; then
    chmod 711 "$TMPD"
    mkdir -m 0777 "$TMPD/drop2"
    fifo=$TMPD/after.fifo && mkfifo "$fifo"
    PERFREPORT_TEST_PAUSE_AFTER_PUBLISH=$fifo "$PERFREPORT_BIN" -d 1 -q --archive -o "$TMPD/drop2/s" \
        >"$TMPD/swap.out" 2>"$TMPD/swap.err" &
    pid=$!
    # the swap must happen while perfreport holds after publishing, or the
    # test proves nothing
    wait_paused $pid "$fifo"; paused=$?
    setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups sh -c \
        "cd '$TMPD/drop2' && mv s s.real && mkdir s && echo forged >s/index.html && truncate -s 2G s/big"
    swapped=$?
    release_paused $pid "$fifo"
    wait $pid
    mkdir "$TMPD/x2" && tar -xzf "$TMPD/drop2/s.tar.gz" -C "$TMPD/x2" 2>"$TMPD/tar.err"
    r=$(python3 - "$TMPD/drop2/s.real" "$TMPD/x2/s" <<'PY'
import hashlib, json, os, sys
src, got = sys.argv[1:3]
if not os.path.isdir(got):
    print("no s/ in the archive"); sys.exit()
m = json.load(open(os.path.join(src, "manifest.json")))
bad = []
if sorted(os.listdir(src)) != sorted(os.listdir(got)):
    bad.append("files differ: %s" % sorted(set(os.listdir(src)) ^ set(os.listdir(got))))
for f in m["integrity"]:
    p = os.path.join(got, f["name"])
    if not os.path.exists(p) or hashlib.sha256(open(p, "rb").read()).hexdigest() != f["sha256"]:
        bad.append("%s differs" % f["name"])
print("ok" if not bad else "; ".join(bad)[:300])
PY
)
    if [ $paused != 0 ] || [ $swapped != 0 ]; then
        not_ok archive_from_the_published_directory "no swap while paused (paused $paused, mv $swapped): $(head -c 300 "$TMPD/swap.err")"
    elif [ "$r" = ok ] && [ "$(cat "$TMPD/drop2/s/index.html")" = forged ]; then
        ok archive_from_the_published_directory
    else
        not_ok archive_from_the_published_directory "$r; $(head -c 300 "$TMPD/swap.err")"
    fi
else
    skip archive_from_the_published_directory "no user nobody or setpriv"
fi
