#!/bin/sh
# `perfreport history DIR...`: 20 real 1 s bundles (idle runs and runs with
# two CPU burners, as a --keep timer names them) in one directory, two more
# real ones in a per-host directory, plus: a copy of a real bundle whose
# report.json was edited (tampered), a symlink to a real bundle outside,
# a foreign directory, and a copy with a hostile hostname re-hashed into
# its manifest (as another host could send it), and one bundle given twice.
# Asserts: every good bundle listed once, each host's runs worst first,
# every link resolves to that bundle's index.html, the tampered, symlinked and foreign directories
# skipped with their reasons, the hostile text escaped in index.html
# (well-formed, no markup of its own) and history.md (no table cell split),
# and bad input (nothing readable, an output that exists) exits 3 writing
# nothing; in headless Chromium the page makes no request and logs no error.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip e2e_history_all "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip e2e_history_all "needs root for the bundles"
    exit 0
fi
if [ ! -x "$WL/burner" ]; then
    skip e2e_history_all "workloads not built (make workloads)"
    exit 0
fi
BIN=$(cd "$(dirname "$PERFREPORT_BIN")" && pwd)/$(basename "$PERFREPORT_BIN")

F=$TMPD/fleet
mkdir -p "$F/timer" "$F/hosts/other" "$TMPD/outside"
# The publisher's own names (perfreport-<host>-<time>[.N]): the default -o.
real_run() { # DIR
    (cd "$1" && "$BIN" -d 1 --quiet >/dev/null 2>&1)
    case $? in 0|1|2|4|5|6) return 0 ;; esac
    return 1
}
fails=0
for i in 1 2 3 4 5 6 7 8 9 10; do
    real_run "$F/timer" || fails=$((fails + 1))
    "$WL/burner" 30 1 >/dev/null & b1=$!; track $b1
    "$WL/burner" 30 1 >/dev/null & b2=$!; track $b2
    sleep 0.3
    real_run "$F/timer" || fails=$((fails + 1))
    stop_tracked
done
real_run "$F/hosts/other" || fails=$((fails + 1))
real_run "$F/hosts/other" || fails=$((fails + 1))
real_run "$TMPD/outside" || fails=$((fails + 1))
n_timer=$(ls "$F/timer" | grep -c '^perfreport-')
if [ "$fails" != 0 ] || [ "$n_timer" -lt 20 ]; then
    not_ok e2e_history_bundles "$fails runs failed, $n_timer bundles in the timer directory"
    exit 0
fi
ok e2e_history_bundles

seed=$(ls -d "$F"/timer/perfreport-* | head -1)
# tampered: one byte of report.json changed after the manifest was written
cp -a "$seed" "$F/timer/tampered"
python3 - "$F/timer/tampered/report.json" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = b.index(b'"hostname"')
b[i + 1] = ord('H')  # "Hostname": a key the loader does not know
open(p, "wb").write(bytes(b))
PY
# a symlink to a real bundle that lies outside: never followed
ln -s "$(ls -d "$TMPD"/outside/perfreport-* | head -1)" "$F/timer/linked"
# a foreign directory with a manifest.json of some other tool
mkdir "$F/timer/foreign" && echo '{"tool": {"name": "other"}}' >"$F/timer/foreign/manifest.json"
# another host's bundle with a hostile hostname, re-hashed into its manifest
EVIL='ev<script>alert(1)</script>|x](javascript:alert(2))&amp;"q'
EVILDIR='evil"><svg onload=alert(3)>'
mkdir -p "$F/hosts/$EVILDIR"
cp -a "$seed" "$F/hosts/$EVILDIR/run1"
python3 - "$F/hosts/$EVILDIR/run1" "$EVIL" <<'PY'
import hashlib, json, os, sys
d, host = sys.argv[1], sys.argv[2]
r = json.load(open(os.path.join(d, "report.json")))
r["host"]["hostname"] = host
text = json.dumps(r).encode()
open(os.path.join(d, "report.json"), "wb").write(text)
m = json.load(open(os.path.join(d, "manifest.json")))
for e in m["integrity"]:
    if e["name"] == "report.json":
        e["size"], e["sha256"] = len(text), hashlib.sha256(text).hexdigest()
json.dump(m, open(os.path.join(d, "manifest.json"), "w"))
PY

OUT=$TMPD/page
"$PERFREPORT_BIN" history "$F/timer" "$F/hosts" "$seed" -o "$OUT" -q 2>"$TMPD/err"
rc=$?
if [ "$rc" != 0 ] || [ ! -s "$OUT/history.json" ]; then
    not_ok e2e_history_runs "exit $rc: $(head -c 400 "$TMPD/err")"
    exit 0
fi
ok e2e_history_runs

# 1. every good bundle exactly once; worst first within each host
r=$(python3 - "$OUT/history.json" "$F" "$n_timer" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
fleet, n_timer = sys.argv[2], int(sys.argv[3])
paths = [run["path"] for h in d["hosts"] for run in h["runs"]]
want = n_timer + 2 + 1  # the timer's, the other host's two, the hostile copy
problems = []
if len(paths) != want or len(set(paths)) != want:
    problems.append("%d runs listed (%d distinct), expected %d" % (len(paths), len(set(paths)), want))
if any("tampered" in p or "linked" in p or "foreign" in p for p in paths):
    problems.append("a bad directory was listed as a run")
rank = {"critical": 3, "warning": 2, "info": 1, "none": 0}
for h in d["hosts"]:
    keys = [(rank[r["severity"]], r["score"]) for r in h["runs"]]
    if keys != sorted(keys, reverse=True):
        problems.append("%s not worst first: %s" % (h["hostname"], keys[:6]))
sevs = {r["severity"] for h in d["hosts"] for r in h["runs"]}
print("; ".join(problems) if problems else "ok %d runs, severities %s" % (len(paths), sorted(sevs)))
PY
)
case $r in ok*) ok e2e_history_all_listed_worst_first ;; *) not_ok e2e_history_all_listed_worst_first "$r" ;; esac

# 2. links: relative, and each resolves to its own bundle's index.html
r=$(python3 - "$OUT" <<'PY'
import json, os, sys, urllib.parse
out = sys.argv[1]
d = json.load(open(os.path.join(out, "history.json")))
bad, n = [], 0
html = open(os.path.join(out, "index.html")).read()
for h in d["hosts"]:
    for run in h["runs"]:
        l = run["link"]
        if not l or l.startswith("/"):
            bad.append("%s: link %r" % (run["path"], l)); continue
        target = os.path.join(out, l)  # history.json: the path itself
        if not os.path.samefile(target, os.path.join(run["path"], "index.html")):
            bad.append("%s: %s is another file" % (run["path"], l))
        if ('href="%s"' % urllib.parse.quote(l, safe="/._~-")) not in html:
            bad.append("%s: not in index.html" % l)
        n += 1
print("; ".join(bad[:3]) if bad else "ok %d" % n)
PY
)
case $r in ok*) ok e2e_history_links_resolve ;; *) not_ok e2e_history_links_resolve "$r" ;; esac

# 3. the tampered, symlinked and foreign directories are skipped, with why
r=$(python3 - "$OUT/history.json" "$(basename "$seed")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
why = {s["path"].rsplit("/", 1)[-1]: s["reason"] for s in d["skipped"]}
want = {"tampered": "does not match its SHA-256", "linked": "symbolic link: not followed",
        "foreign": "not a perfreport manifest", sys.argv[2]: "listed once"}
bad = ["%s: %r" % (k, why.get(k)) for k, v in want.items() if v not in (why.get(k) or "")]
print("; ".join(bad) if bad else "ok")
PY
)
[ "$r" = ok ] && ok e2e_history_skipped_with_reason || not_ok e2e_history_skipped_with_reason "$r"
if grep -q "does not match its SHA-256" "$OUT/index.html" && grep -q "tampered" "$OUT/history.md"; then
    ok e2e_history_skipped_on_page
else
    not_ok e2e_history_skipped_on_page "the skipped table lacks the tampered bundle"
fi

# 4. hostile host text: escaped in HTML (well-formed, none of its markup),
#    and in Markdown no extra table cell or link
if command -v xmllint >/dev/null 2>&1; then
    if xmllint --noout "$OUT/index.html" 2>"$TMPD/xml"; then ok e2e_history_html_well_formed
    else not_ok e2e_history_html_well_formed "$(head -3 "$TMPD/xml")"; fi
else
    skip e2e_history_html_well_formed "no xmllint"
fi
if grep -q '<script>alert\|<svg onload\|href="javascript' "$OUT/index.html"; then
    not_ok e2e_history_html_escaped "hostile markup in index.html: $(grep -o '.\{40\}<script>alert.\{20\}\|.\{40\}<svg onload.\{20\}' "$OUT/index.html" | head -2)"
elif grep -q 'ev&lt;script&gt;alert(1)&lt;/script&gt;' "$OUT/index.html"; then
    ok e2e_history_html_escaped
else
    not_ok e2e_history_html_escaped "the hostile hostname is not shown escaped"
fi
r=$(python3 - "$OUT/history.md" <<'PY'
import re, sys
bad = []
for line in open(sys.argv[1]):
    if "alert(1)" not in line or not line.startswith("|"):
        continue
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    if len(cells) not in (4, 5):
        bad.append("%d cells: %s" % (len(cells), line[:120]))
    if re.search(r"(?<!\\)\]\(javascript", line):
        bad.append("a live link: " + line[:120])
print("; ".join(bad) if bad else "ok")
PY
)
[ "$r" = ok ] && ok e2e_history_md_escaped || not_ok e2e_history_md_escaped "$r"

# 5. bad input: exit 3, nothing written
mkdir "$TMPD/empty"
"$PERFREPORT_BIN" history "$TMPD/empty" -o "$TMPD/o1" -q 2>"$TMPD/e1"; rc1=$?
"$PERFREPORT_BIN" history "$TMPD/nonexistent" -o "$TMPD/o2" -q 2>"$TMPD/e2"; rc2=$?
mkdir "$TMPD/onlybad" && cp -a "$F/timer/tampered" "$TMPD/onlybad/" && ln -s "$seed" "$TMPD/onlybad/l"
"$PERFREPORT_BIN" history "$TMPD/onlybad" -o "$TMPD/o3" -q 2>"$TMPD/e3"; rc3=$?
before=$(ls -l --full-time "$OUT" | md5sum)
"$PERFREPORT_BIN" history "$F/timer" -o "$OUT" -q 2>"$TMPD/e4"; rc4=$?
"$PERFREPORT_BIN" history 2>/dev/null; rc5=$?
if [ "$rc1$rc2$rc3$rc4$rc5" = 33333 ] && [ ! -e "$TMPD/o1" ] && [ ! -e "$TMPD/o2" ] &&
    [ ! -e "$TMPD/o3" ] && grep -q "no bundle could be read" "$TMPD/e3" &&
    grep -q "SHA-256" "$TMPD/e3" && [ "$(ls -l --full-time "$OUT" | md5sum)" = "$before" ]; then
    ok e2e_history_bad_input_exit3
else
    not_ok e2e_history_bad_input_exit3 "exits $rc1 $rc2 $rc3 $rc4 $rc5; $(head -c 200 "$TMPD/e3")"
fi

# 6. the default output name beside the first DIR, and charts inlined
"$PERFREPORT_BIN" history "$F/hosts" -q 2>"$TMPD/e5"; rc=$?
if [ "$rc" = 0 ] && [ -s "$F/hosts.history/index.html" ] &&
    [ "$(grep -c '<figure class="chart">' "$F/hosts.history/index.html")" -ge 2 ] &&
    ! grep -q 'src="\|url(' "$F/hosts.history/index.html"; then
    ok e2e_history_default_name_charts
else
    not_ok e2e_history_default_name_charts "exit $rc: $(head -c 200 "$TMPD/e5")"
fi

# 7. in a browser: no request leaves the page, no CSP violation or console
#    error, charts drawn (tests/browser/check_html.js, the report's checks)
if [ -x /usr/bin/chromium ] && command -v node >/dev/null 2>&1 &&
    sh tests/browser/setup.sh >"$TMPD/setup.log" 2>&1; then
    mkdir -p "$TMPD/shots" "$TMPD/profile"
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout 180 node tests/browser/check_html.js \
        "$OUT/index.html" "$TMPD/shots" "$TMPD/profile" >"$TMPD/browser" 2>&1
    if grep -q "^ok browser_html_no_network" "$TMPD/browser" &&
        grep -q "^ok browser_html_no_console_errors" "$TMPD/browser" &&
        grep -q "^ok browser_html_charts_rendered" "$TMPD/browser" &&
        ! grep -q "^not ok" "$TMPD/browser"; then
        ok e2e_history_browser_self_contained
    else
        not_ok e2e_history_browser_self_contained "$(grep -v '^ok' "$TMPD/browser" | head -3)"
    fi
else
    skip e2e_history_browser_self_contained "no chromium, node or playwright-core"
fi
