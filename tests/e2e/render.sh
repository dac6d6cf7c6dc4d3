#!/bin/sh
# `perfreport render BUNDLE`: a real bundle re-rendered gives the same
# findings, the same report.md (indeed the same files: same version, same
# data; the pprof files are the run's, kept as they are), leaves the source
# alone; a lowered threshold adds a finding; every kind of bad input
# (a tampered pprof file too) exits 3 and writes nothing.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip e2e_render_all "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip e2e_render_all "needs root for the source bundle"
    exit 0
fi

B=$TMPD/src/run
mkdir -p "$TMPD/src"
"$PERFREPORT_BIN" -d 2 -o "$B" --quiet
rc0=$?
case $rc0 in
    0|1|2|4|5|6) ;;
    *) not_ok e2e_render_source_bundle "perfreport -d 2 exited $rc0"; exit 0 ;;
esac

findings() { json "$1/report.json" "[(f['id'], f['severity']) for f in d['findings']]"; }
sums() { (cd "$1" && sha256sum -- * | sort); }
src_before=$(sums "$B")

# 1. Round trip: same exit status, findings, report.md; the source untouched.
out=$("$PERFREPORT_BIN" render "$B" 2>"$TMPD/err")
rc=$?
R=$B.render
if [ "$rc" = "$rc0" ] && [ -f "$R/report.json" ] && [ "$(findings "$B")" = "$(findings "$R")" ]; then
    ok e2e_render_same_findings
else
    not_ok e2e_render_same_findings "exit $rc (run $rc0): $(findings "$B") vs $(findings "$R" 2>/dev/null); $(head -c 300 "$TMPD/err")"
fi
# No line of report.md may differ: the data, the analysis and the renderer
# are the same (the self_* facts are the run's own, read from report.json).
if cmp -s "$B/report.md" "$R/report.md"; then ok e2e_render_same_report_md
else not_ok e2e_render_same_report_md "$(diff "$B/report.md" "$R/report.md" | head -5)"; fi
# Every file, manifest.json included, comes out byte for byte the same.
if diff -r "$B" "$R" > "$TMPD/diff" 2>&1; then ok e2e_render_identical_bundle
else not_ok e2e_render_identical_bundle "$(head -c 300 "$TMPD/diff")"; fi
case $out in
    *"Bundle: $R/index.html"*) ok e2e_render_summary ;;
    *) not_ok e2e_render_summary "$out" ;;
esac
perm_dir=$(stat -c %a "$R")
bad_files=$(find "$R" -type f ! -perm 600 | wc -l)
[ "$perm_dir" = 700 ] && [ "$bad_files" = 0 ] && ok e2e_render_permissions \
    || not_ok e2e_render_permissions "dir $perm_dir, $bad_files files not 0600"

# 2. Again: BUNDLE.render is taken, so BUNDLE.render.1 (not a partial bundle).
"$PERFREPORT_BIN" render "$B/" --quiet
rc=$?
if [ "$rc" = "$rc0" ] && cmp -s "$B/report.md" "$B.render.1/report.md"; then ok e2e_render_next_free_name
else not_ok e2e_render_next_free_name "exit $rc, $(ls -d "$B".render* | tr '\n' ' ')"; fi

# 3. A lowered threshold: available memory at or below 100 % is "critical",
# so memory.pressure appears; the report's threshold table shows the value.
printf '# everything is low memory\nmem.available_pct 100 99.9\n' > "$TMPD/thr"
"$PERFREPORT_BIN" render "$B" -o "$TMPD/src/thr" --thresholds "$TMPD/thr" --quiet
rc=$?
before=$(findings "$B")
after=$(findings "$TMPD/src/thr")
case $before in
    *memory.pressure*) skip e2e_render_thresholds_new_finding "the source run already has memory.pressure" ;;
    *)
        case $after in
            *"('memory.pressure', 'critical')"*)
                if [ "$rc" = 2 ]; then ok e2e_render_thresholds_new_finding
                else not_ok e2e_render_thresholds_new_finding "exit $rc"; fi ;;
            *) not_ok e2e_render_thresholds_new_finding "findings $after (before: $before)" ;;
        esac ;;
esac
thr=$(json "$TMPD/src/thr/report.json" "[(t['warn'], t['crit']) for t in d['thresholds'] if t['id'] == 'mem.available_pct']")
[ "$thr" = "[(100, 99.9)]" ] && ok e2e_render_thresholds_in_report || not_ok e2e_render_thresholds_in_report "$thr"
[ "$(sums "$B")" = "$src_before" ] && ok e2e_render_source_untouched \
    || not_ok e2e_render_source_untouched "the source bundle's files changed"

# 4. Bad input: exit 3, a message naming what is wrong, and nothing written
# (each case in a directory of its own, compared before and after).
bad() { # NAME DIR-TO-RENDER EXPECTED-MESSAGE-PART [ARGS...]
    name=$1 dir=$2 want=$3; shift 3
    parent=$(dirname "$dir")
    ls -a "$parent" > "$TMPD/ls.before"
    "$PERFREPORT_BIN" render "$dir" "$@" > "$TMPD/out" 2> "$TMPD/err"
    rc=$?
    ls -a "$parent" > "$TMPD/ls.after"
    if [ "$rc" != 3 ]; then
        not_ok "e2e_render_bad_$name" "exit $rc: $(head -c 200 "$TMPD/err")"
    elif ! cmp -s "$TMPD/ls.before" "$TMPD/ls.after"; then
        not_ok "e2e_render_bad_$name" "wrote: $(diff "$TMPD/ls.before" "$TMPD/ls.after" | tr '\n' ' ')"
    elif [ -s "$TMPD/out" ] || ! grep -q -- "$want" "$TMPD/err"; then
        not_ok "e2e_render_bad_$name" "message: $(head -c 300 "$TMPD/err")"
    else
        ok "e2e_render_bad_$name"
    fi
}
copy() { # NAME: a fresh copy of the source bundle in a directory of its own
    mkdir -p "$TMPD/$1" && cp -a "$B" "$TMPD/$1/b" && echo "$TMPD/$1/b"
}
# manifest.json's size and SHA-256 of report.json made to match its text again
fix_manifest() {
    python3 - "$1" <<'EOF'
import hashlib, json, os, sys
d = sys.argv[1]
m = json.load(open(d + "/manifest.json"))
data = open(d + "/report.json", "rb").read()
for e in m["integrity"]:
    if e["name"] == "report.json":
        e["size"] = len(data)
        e["sha256"] = hashlib.sha256(data).hexdigest()
open(d + "/manifest.json", "w").write(json.dumps(m, indent=2))
EOF
}

d=$(copy missing); rm "$d/report.json"
bad missing_report "$d" "report.json: No such file"
d=$(copy truncated); head -c 1000 "$B/report.json" > "$d/report.json"
bad truncated_report "$d" "report.json is 1000 bytes, but manifest.json says"
d=$(copy tampered); sed -i 's/"planned_s": 2,/"planned_s": 3,/' "$d/report.json"   # same size
bad tampered_report "$d" "report.json does not match its SHA-256 in manifest.json"
d=$(copy manifest)
python3 - "$d/manifest.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
for e in m["integrity"]:
    if e["name"] == "report.json":  # another file's hash, as a forger might
        e["sha256"] = [x for x in m["integrity"] if x["name"] == "report.md"][0]["sha256"]
open(sys.argv[1], "w").write(json.dumps(m, indent=2))
EOF
bad tampered_manifest "$d" "report.json does not match its SHA-256 in manifest.json"
d=$(copy schema); sed -i 's/^  "schema": 1,/  "schema": 999,/' "$d/report.json" "$d/manifest.json"; fix_manifest "$d"
bad schema_999 "$d" "with report schema 999, newer than this perfreport"
d=$(copy schema_report); sed -i 's/^  "schema": 1,/  "schema": 999,/' "$d/report.json"; fix_manifest "$d"
bad schema_999_report_only "$d" "report.json: written by perfreport .* with report schema 999"
d=$(copy schema_old); sed -i 's/^  "schema": 1,/  "schema": 0,/' "$d/report.json" "$d/manifest.json"; fix_manifest "$d"
bad schema_0 "$d" "unknown report schema 0"
d=$(copy symlink); mv "$d/report.json" "$TMPD/symlink/real.json"; ln -s "$TMPD/symlink/real.json" "$d/report.json"
bad symlinked_report "$d" "report.json is a symbolic link: refused"
mkdir -p "$TMPD/notabundle/d" && echo hello > "$TMPD/notabundle/d/report.json"
bad not_a_bundle "$TMPD/notabundle/d" "is not a perfreport bundle: it has no manifest.json"
mkdir -p "$TMPD/file" && echo hello > "$TMPD/file/f"
bad a_file "$TMPD/file/f" "is not a directory"
bad nothing_there "$TMPD/file/nope" "No such file or directory"
d=$(copy thresholds); printf 'no.such.threshold 1 2\n' > "$TMPD/thresholds/thr"
bad bad_thresholds_file "$d" "thr:1" --thresholds "$TMPD/thresholds/thr"
d=$(copy exists); mkdir "$TMPD/exists/out"
bad output_exists "$d" "already exists" -o "$TMPD/exists/out"
if [ -f "$B/cpu.folded" ]; then
    d=$(copy folded); printf 'x 1\n' >> "$d/cpu.folded"
    bad tampered_folded "$d" "cpu.folded is .* bytes, but manifest.json says"
else
    skip e2e_render_bad_tampered_folded "the source bundle has no on-CPU profile"
fi
# the run's pprof file is written again as it is (it carries addresses,
# mappings and labels the folded file cannot), so it is checked like the rest
if [ -f "$B/cpu.pb.gz" ]; then
    d=$(copy pprof); printf 'x' >> "$d/cpu.pb.gz"
    bad tampered_pprof "$d" "cpu.pb.gz is .* bytes, but manifest.json says"
    # removed (a trimmed bundle): encoded again from the folded file, with
    # the folded file's totals (names and counts only)
    d=$(copy nopprof); rm "$d/cpu.pb.gz"
    "$PERFREPORT_BIN" render "$d" -o "$TMPD/nopprof/r" --quiet 2> "$TMPD/nopprof.err"
    rc=$?
    python3 "$(pwd)/tests/e2e/pprof_check.py" "$TMPD/nopprof/r/cpu.pb.gz" "$d/cpu.folded" cpu \
        > "$TMPD/nopprof.check" 2>&1
    if [ "$rc" = "$rc0" ] && grep -q '^ok total:' "$TMPD/nopprof.check" \
        && ! cmp -s "$TMPD/nopprof/r/cpu.pb.gz" "$B/cpu.pb.gz"; then
        ok e2e_render_removed_pprof_encoded_again
    else
        not_ok e2e_render_removed_pprof_encoded_again "exit $rc (run $rc0): $(head -c 200 "$TMPD/nopprof.err") $(grep total "$TMPD/nopprof.check")"
    fi
else
    skip e2e_render_bad_tampered_pprof "the source bundle has no on-CPU profile"
fi
