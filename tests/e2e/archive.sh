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
