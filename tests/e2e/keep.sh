#!/bin/sh
# --keep N: retention removes only perfreport bundles of this host, older than
# the N newest, in the bundle's own directory; never a directory without a
# manifest, with a forged manifest or an extra file, another user's or
# another host's bundle, and never through a symlink.
. tests/lib.sh
if [ ! -x "$PERFREPORT_BIN" ]; then skip keep "binary $PERFREPORT_BIN not built"; exit 0; fi
if ! need_root; then skip keep "needs root"; exit 0; fi
case "$PERFREPORT_BIN" in /*) BIN=$PERFREPORT_BIN ;; *) BIN=$PWD/$PERFREPORT_BIN ;; esac

D=$TMPD/out
mkdir "$D"
# A real bundle with the default name tells this host's prefix.
(cd "$D" && "$BIN" -d 1 -q)
first=$(ls "$D")
case "$first" in
    perfreport-*-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]) ;;
    *) not_ok keep_setup "the default name is '$first'"; exit 0 ;;
esac
P=${first%????????-??????}           # perfreport-<host>-
# Five bundles of this host, older than any run now (copies of a real one).
mv "$D/$first" "$D/${P}20200105-000000"
for s in 20200104-000000 20200103-000000.1 20200103-000000 20200102-000000; do
    cp -a "$D/${P}20200105-000000" "$D/$P$s"
done
# Traps, all named like old bundles of this host (older than those above):
mkdir "$D/${P}20190101-000000"                               # no manifest
echo data >"$D/${P}20190101-000000/report.json"
cp -a "$D/${P}20200105-000000" "$D/${P}20190102-000000"      # forged manifest
python3 - "$D/${P}20190102-000000/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["tool"]["name"] = "notperfreport"
json.dump(m, open(sys.argv[1], "w"))
PY
mkdir "$TMPD/victim"                                         # a symlink to a victim
cp -a "$D/${P}20200105-000000/." "$TMPD/victim/"
echo precious >"$TMPD/victim/precious.txt"
victim_files=$(ls "$TMPD/victim" | wc -l)
ln -s "$TMPD/victim" "$D/${P}20190103-000000"
cp -a "$D/${P}20200105-000000" "$D/${P}20190104-000000"      # another user's
chown -R nobody "$D/${P}20190104-000000"
cp -a "$D/${P}20200105-000000" "$D/${P}20190105-000000"      # an extra file
echo mine >"$D/${P}20190105-000000/notes.txt"
cp -a "$D/${P}20200105-000000" "$D/perfreport-otherhost-20190101-000000" # another host
cp -a "$D/${P}20200105-000000" "$D/${P}20190106-000000.0"    # not a publisher's name

(cd "$D" && "$BIN" -d 1 --oneline --keep 2) >"$TMPD/keep.out" 2>"$TMPD/keep.err"
rc=$?
new=$(sed -n 's|.* bundle="\([^"/]*\)/index\.html".*|\1|p' "$TMPD/keep.out")
if [ $rc -ge 3 ] || [ -z "$new" ] || [ ! -f "$D/$new/manifest.json" ]; then
    not_ok keep_run "rc=$rc new='$new': $(cat "$TMPD/keep.out" "$TMPD/keep.err")"; exit 0
fi

# --keep 2: the new bundle and the newest old one stay; the four older go.
if [ -f "$D/${P}20200105-000000/manifest.json" ] && [ -f "$D/$new/index.html" ] &&
   [ ! -e "$D/${P}20200104-000000" ] && [ ! -e "$D/${P}20200103-000000.1" ] &&
   [ ! -e "$D/${P}20200103-000000" ] && [ ! -e "$D/${P}20200102-000000" ] &&
   grep -q ' removed=4 headline=' "$TMPD/keep.out"; then
    ok keep_removes_old_bundles
else
    not_ok keep_removes_old_bundles "$(ls "$D"; cat "$TMPD/keep.out" "$TMPD/keep.err")"
fi

if [ -f "$D/${P}20190101-000000/report.json" ] &&
   [ "$(json "$D/${P}20190102-000000/manifest.json" "d['tool']['name']")" = notperfreport ] &&
   [ -f "$D/${P}20190102-000000/index.html" ] &&
   [ -L "$D/${P}20190103-000000" ] && [ "$(ls "$TMPD/victim" | wc -l)" = "$victim_files" ] &&
   [ "$(cat "$TMPD/victim/precious.txt")" = precious ] && [ -f "$TMPD/victim/index.html" ] &&
   [ -f "$D/${P}20190104-000000/index.html" ] &&
   [ -f "$D/${P}20190105-000000/notes.txt" ] && [ -f "$D/${P}20190105-000000/index.html" ] &&
   [ -f "$D/perfreport-otherhost-20190101-000000/index.html" ] &&
   [ -f "$D/${P}20190106-000000.0/index.html" ]; then
    ok keep_leaves_traps
else
    not_ok keep_leaves_traps "$(ls -l "$D" "$TMPD/victim")"
fi

# Each trap old enough to go is named on stderr (the other host's and the
# ".0" name are not this host's bundles at all: not mentioned).
n=$(grep -c '^perfreport: --keep: left .* alone: ' "$TMPD/keep.err")
if [ "$n" = 5 ] && grep -q "20190103-000000 alone: it is a symbolic link" "$TMPD/keep.err" &&
   grep -q "20190104-000000 alone: it is owned by uid" "$TMPD/keep.err" &&
   grep -q "20190105-000000 alone: it holds notes.txt" "$TMPD/keep.err" &&
   ! grep -q "otherhost\|20190106" "$TMPD/keep.err"; then
    ok keep_names_what_it_left
else
    not_ok keep_names_what_it_left "$(cat "$TMPD/keep.err")"
fi

# The exit status is the run's, and a second run with --keep 1 removes the
# previous new bundle and the last old one, never the bundle it just wrote.
sleep 1 # a distinct name
out2=$(cd "$D" && "$BIN" -d 1 --keep 1 2>&1)
new2=$(echo "$out2" | sed -n 's|^Bundle: \(.*\)/index\.html$|\1|p')
if [ -n "$new2" ] && [ -f "$D/$new2/manifest.json" ] && [ ! -e "$D/$new" ] &&
   [ ! -e "$D/${P}20200105-000000" ] &&
   echo "$out2" | grep -q "^Removed 2 old bundles of this host in \. (--keep 1)$" &&
   [ -f "$D/${P}20190105-000000/notes.txt" ] && [ -L "$D/${P}20190103-000000" ]; then
    ok keep_one_keeps_the_new_bundle
else
    not_ok keep_one_keeps_the_new_bundle "$out2 $(ls "$D")"
fi

# --keep 0 and junk are refused before any window.
if ! "$BIN" --keep 0 -d 1 -o "$TMPD/k0" >/dev/null 2>&1 && [ ! -e "$TMPD/k0" ] &&
   ! "$BIN" --keep 2x -d 1 -o "$TMPD/k1" >/dev/null 2>&1 && [ ! -e "$TMPD/k1" ]; then
    ok keep_refuses_bad_n
else
    not_ok keep_refuses_bad_n "accepted"
fi

# --- a user who can write the directory: root's timer publishes in a
# directory nobody owns.  The user renames root's newest old bundle to an
# old time (retention by name would pick it), and renames a root-owned
# sticky directory holding root's file to a bundle's name, with a manifest
# that lists that file.  Nothing may go; stderr says why.
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1; then
    chmod 711 "$TMPD"
    A=$TMPD/userdir && mkdir "$A" && chown nobody "$A"
    for s in 20240101-000000 20240102-000000 20240103-000000; do
        cp -a "$D/$new2" "$A/$P$s"
    done
    mkdir -m 1777 "$A/shared" && echo precious >"$A/shared/precious.txt" && chmod 600 "$A/shared/precious.txt"
    python3 - "$D/$new2/manifest.json" "$TMPD/forged.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["files"] = ["precious.txt", "manifest.json"]
json.dump(m, open(sys.argv[2], "w"))
PY
    chmod 644 "$TMPD/forged.json"
    setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups sh -c \
        "mv '$A/${P}20240103-000000' '$A/${P}20000101-000000' && mv '$A/shared' '$A/${P}20000102-000000' &&
         cp '$TMPD/forged.json' '$A/${P}20000102-000000/manifest.json'"
    (cd "$A" && "$BIN" -d 1 -q --keep 3) 2>"$TMPD/user.err"
    if [ -f "$A/${P}20000102-000000/precious.txt" ] && [ -f "$A/${P}20000101-000000/manifest.json" ] &&
        [ -f "$A/${P}20240101-000000/manifest.json" ] && [ -f "$A/${P}20240102-000000/manifest.json" ] &&
        grep -q "^perfreport: --keep: nothing removed: other users can write in \. (owner uid $(id -u nobody)" "$TMPD/user.err"; then
        ok keep_refused_where_others_write
    else
        not_ok keep_refused_where_others_write "$(ls "$A" | tr '\n' ' '); $(head -c 300 "$TMPD/user.err")"
    fi
else
    skip keep_refused_where_others_write "no user nobody or setpriv"
fi

# --- the order is the bundles' own: in a directory only root writes, names
# that disagree with the time the bundles recorded (copies renamed by hand)
O=$TMPD/order && mkdir "$O"
stamp() { # NAME ISO: a copy of a real bundle named NAME, recorded at ISO
    cp -a "$D/$new2" "$O/$1"
    python3 - "$O/$1/manifest.json" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["window"]["start"] = sys.argv[2]
json.dump(m, open(sys.argv[1], "w"))
PY
}
stamp "${P}20200101-000000" 2021-03-01T00:00:00Z   # recorded last, oldest name
stamp "${P}20200102-000000" 2021-01-01T00:00:00Z
stamp "${P}20200103-000000" 2021-02-01T00:00:00Z   # newest name
(cd "$O" && "$BIN" -d 1 -q --keep 2) 2>"$TMPD/order.err"
if [ -d "$O/${P}20200101-000000" ] && [ ! -e "$O/${P}20200102-000000" ] &&
    [ ! -e "$O/${P}20200103-000000" ] && [ "$(ls "$O" | wc -l)" = 2 ]; then
    ok keep_orders_by_recorded_time
else
    not_ok keep_orders_by_recorded_time "$(ls "$O" | tr '\n' ' '); $(head -c 300 "$TMPD/order.err")"
fi

# --- many names like old bundles that are not (3,000 empty directories):
# a few lines on stderr and a count, not one line each
J=$TMPD/junk && mkdir "$J"
python3 - "$J" "$P" <<'PY'
import os, sys
d, p = sys.argv[1:3]
for i in range(3000):
    os.mkdir(os.path.join(d, "%s2019%04d-000000" % (p, 101 + i % 1200)) + ("" if i < 1200 else ".%d" % (1 + i // 1200)))
PY
(cd "$J" && "$BIN" -d 1 -q --keep 1) 2>"$TMPD/junk.err"
lines=$(grep -c '^perfreport: --keep: ' "$TMPD/junk.err")
if [ "$lines" -le 11 ] &&
    grep -q "^perfreport: --keep: and 2990 more names like old bundles in \. were left alone" "$TMPD/junk.err"; then
    ok keep_junk_says_a_count
else
    not_ok keep_junk_says_a_count "$lines lines: $(tail -c 300 "$TMPD/junk.err")"
fi
