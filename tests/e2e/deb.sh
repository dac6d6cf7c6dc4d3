#!/bin/sh
# The Debian package: `make deb` builds it (dpkg-buildpackage in a copy of the
# tree), lintian finds no error or warning, it installs, runs a real report,
# and purges leaving nothing behind.
. tests/lib.sh
T=deb
need_root || { skip $T "needs root (dpkg -i)"; exit 0; }
command -v dpkg-buildpackage >/dev/null 2>&1 && command -v dh >/dev/null 2>&1 \
    || { skip $T "dpkg-dev and debhelper not installed (make deps)"; exit 0; }
if dpkg-query -W -f='${Status}' perfreport 2>/dev/null | grep -q 'install ok'; then
    skip $T "a perfreport package is already installed here"; exit 0
fi
out=$TMPD/debbuild
if ! env -u BUILD -u SAN make -s deb SAN=0 BUILD="$out" >"$TMPD/build.log" 2>&1; then
    not_ok deb_builds "make deb failed: $(tail -3 "$TMPD/build.log")"
    exit 0
fi
deb=$(ls "$out"/deb/perfreport_*_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] && ok deb_builds || { not_ok deb_builds "no .deb in $out/deb"; exit 0; }
if command -v lintian >/dev/null 2>&1; then
    lintian --no-tag-display-limit "$deb" >"$TMPD/lintian" 2>&1
    bad=$(grep -E '^[EW]: ' "$TMPD/lintian")
    [ -z "$bad" ] && ok deb_lintian_clean || not_ok deb_lintian_clean "$(echo "$bad" | head -3)"
else
    skip deb_lintian_clean "lintian not installed"
fi
on_cleanup "dpkg --purge perfreport >/dev/null 2>&1"
if dpkg -i "$deb" >"$TMPD/install.log" 2>&1; then ok deb_installs
else not_ok deb_installs "$(tail -3 "$TMPD/install.log")"; exit 0; fi
PERFREPORT_LOCK=$TMPD/lock /usr/bin/perfreport -d 1 -q -o "$TMPD/run" >/dev/null 2>"$TMPD/run.err"
rc=$?
if [ "$rc" -le 2 ] && [ -s "$TMPD/run/report.json" ] && man -w perfreport >/dev/null 2>&1; then
    ok deb_runs
else
    not_ok deb_runs "exit $rc: $(head -c 300 "$TMPD/run.err")"
fi
files=$(dpkg -L perfreport | while read -r f; do [ -f "$f" ] && echo "$f"; done)
if dpkg --purge perfreport >"$TMPD/purge.log" 2>&1; then
    left=""
    for f in $files; do [ -e "$f" ] && left="$left $f"; done
    [ -z "$left" ] && ok deb_purges_clean || not_ok deb_purges_clean "left:$left"
else
    not_ok deb_purges_clean "$(tail -3 "$TMPD/purge.log")"
fi
