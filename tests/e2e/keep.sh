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
