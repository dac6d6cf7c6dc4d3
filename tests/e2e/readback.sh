#!/bin/sh
# Bundles read back by perfreport itself.
#  1. Every kind of bundle a run writes -- plain, -p, -c, -- CMD, --baseline,
#     --no-bpf, non-root, --obfuscate, incomplete (interrupted) -- loads in
#     `render` (the run's exit status and findings again), in `diff` (against
#     the plain one, both ways) and in `history` (every one listed, none
#     skipped).  One real run of each, 1 s windows, shared by every check.
#  2. A bundle read back is as hostile as any planted file: copies of two
#     of those runs with markup appended to every string of report.json and
#     to every frame of the folded files (plant_markup.py; manifest.json
#     made to match, as a forger would) are rendered, compared and put in a
#     history; no output of render, diff or history (page, Markdown, JSON,
#     SVG, file names, the terminal) carries the markup as markup
#     (check_markup.py; Markdown through cmark with raw HTML allowed).
#     A unit with markup is refused.
#  3. Forged magnitudes: every number set to +-1e308 is refused; set to
#     +-1.8e19 (below 2^64) it renders with no 309-digit number anywhere.
. tests/lib.sh
T=readback
[ -x "$PERFREPORT_BIN" ] || { skip $T "binary $PERFREPORT_BIN not built"; exit 0; }
need_root || { skip $T "needs root"; exit 0; }
[ -x "$WL/burner" ] || { skip $T "workload $WL/burner not built"; exit 0; }
BIN=$(cd "$(dirname "$PERFREPORT_BIN")" && pwd)/$(basename "$PERFREPORT_BIN")
HERE=$(pwd)/tests/e2e
K=$TMPD/kinds
mkdir -p "$K" "$TMPD/out"
chmod 755 "$TMPD"
kinds=""

# made NAME RC: records a run's exit status when it wrote a bundle
made() {
    case $2 in
        0|1|2|4|5|6) echo "$2" > "$TMPD/$1.rc"; kinds="$kinds $1" ;;
        *) not_ok "readback_made_$1" "exit $2: $(tail -c 300 "$TMPD/$1.err")" ;;
    esac
}

"$PERFREPORT_BIN" -d 1 -q -o "$K/plain" 2>"$TMPD/plain.err"; made plain $?
if [ ! -d "$K/plain" ]; then
    exit 0 # nothing to compare with
fi

"$WL/burner" 30 1 >/dev/null & pid=$!; track $pid
sleep 0.3
"$PERFREPORT_BIN" -d 1 -q -p "$pid" -o "$K/pid" 2>"$TMPD/pid.err"; made pid $?

base=/sys/fs/cgroup/cpu
mountpoint -q "$base" 2>/dev/null || base=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
cg=perfreport-readback-$$
if [ -n "$base" ] && mkdir "$base/$cg" 2>/dev/null; then
    on_cleanup "for p in \$(cat $base/$cg/cgroup.procs 2>/dev/null); do kill \$p; done; sleep 0.2; rmdir $base/$cg"
    sh -c "echo \$\$ > $base/$cg/cgroup.procs; exec $WL/burner 30 1" >/dev/null & track $!
    sleep 0.3
    "$PERFREPORT_BIN" -d 1 -q -c "/$cg" -o "$K/cgroup" 2>"$TMPD/cgroup.err"; made cgroup $?
else
    skip readback_made_cgroup "cannot create a cgroup under '$base'"
fi

# the window is the command's life; a command line to read back
"$PERFREPORT_BIN" -q -o "$K/command" -- "$WL/burner" 1 1 --peer x 2>"$TMPD/command.err"
made command $?
"$PERFREPORT_BIN" -d 1 -q --baseline "$K/plain" -o "$K/baseline" 2>"$TMPD/baseline.err"
made baseline $?
"$PERFREPORT_BIN" -d 1 -q --no-bpf -o "$K/nobpf" 2>"$TMPD/nobpf.err"; made nobpf $?
if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
    mkdir "$TMPD/nobody" && chown nobody "$TMPD/nobody"
    PERFREPORT_LOCK=$TMPD/nobody/lock setpriv --reuid=nobody --regid=nogroup --clear-groups \
        --inh-caps=-all "$PERFREPORT_BIN" -d 1 -o "$TMPD/nobody/b" >"$TMPD/nonroot.out" 2>"$TMPD/nonroot.err"
    rc=$?
    mv "$TMPD/nobody/b" "$K/nonroot" 2>/dev/null
    made nonroot $rc
    # what it skipped is said where the reader looks first: the terminal,
    # summary.md and the report's banner, and the verdict says it is partial
    if grep -q "^Not measured without root ([0-9]* collectors): .*Run-queue latency" "$TMPD/nonroot.out" &&
        grep -q "^\*\*Not measured without root:\*\* " "$K/nonroot/summary.md" &&
        grep -q "Not measured without root:" "$K/nonroot/index.html" &&
        [ "$(json "$K/nonroot/report.json" "not d['headline'].startswith('No problem found') or d['headline'].startswith('No problem found in what a run without root measures')")" = True ]; then
        ok readback_nonroot_says_what_it_skipped
    else
        not_ok readback_nonroot_says_what_it_skipped "$(head -c 400 "$TMPD/nonroot.out")"
    fi
else
    skip readback_made_nonroot "setpriv or user nobody missing"
fi
"$PERFREPORT_BIN" -d 1 -q --obfuscate -o "$K/obfuscated" 2>"$TMPD/obfuscated.err"
made obfuscated $?
rm -f "$K/obfuscated.obfuscation-map" # not a bundle; kept outside it
"$PERFREPORT_BIN" -d 30 -v -o "$K/incomplete" 2>"$TMPD/incomplete.err" >/dev/null & p=$!
if wait_window "$TMPD/incomplete.err"; then
    sleep 1
    kill -INT "$p"
fi
wait "$p"
made incomplete $?
stop_tracked

# 1. every kind in render, diff and history
findings() { json "$1/report.json" "sorted(f['id'] for f in d['findings'])" 2>&1; }
for k in $kinds; do
    rc0=$(cat "$TMPD/$k.rc")
    "$PERFREPORT_BIN" render "$K/$k" -q -o "$TMPD/out/r-$k" 2>"$TMPD/r-$k.err"
    rc=$?
    if [ "$rc" = "$rc0" ] && [ "$(findings "$K/$k")" = "$(findings "$TMPD/out/r-$k")" ]; then
        ok "readback_render_$k"
    else
        not_ok "readback_render_$k" "exit $rc (run $rc0): $(head -c 300 "$TMPD/r-$k.err")"
    fi
    "$PERFREPORT_BIN" diff "$K/plain" "$K/$k" -q -o "$TMPD/out/d-$k" 2>"$TMPD/d-$k.err"
    rc=$?
    "$PERFREPORT_BIN" diff "$K/$k" "$K/plain" -q -o "$TMPD/out/d2-$k" 2>>"$TMPD/d-$k.err"
    rc2=$?
    if [ "$rc" = 0 ] && [ "$rc2" = 0 ] && json "$TMPD/out/d-$k/diff.json" "d['headline']" >/dev/null 2>&1; then
        ok "readback_diff_$k"
    else
        not_ok "readback_diff_$k" "exit $rc and $rc2: $(head -c 300 "$TMPD/d-$k.err")"
    fi
done
"$PERFREPORT_BIN" history "$K" -q -o "$TMPD/out/history" 2>"$TMPD/history.err"
rc=$?
listed=$(json "$TMPD/out/history/history.json" "' '.join(sorted(r['path'].rsplit('/', 1)[-1] for h in d['hosts'] for r in h['runs']))" 2>/dev/null)
skipped=$(json "$TMPD/out/history/history.json" "[(s['path'], s['reason']) for s in d['skipped']]" 2>/dev/null)
want=$(echo $kinds | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')
if [ "$rc" = 0 ] && [ "$listed" = "$want" ] && [ "$skipped" = "[]" ]; then
    ok readback_history_every_kind
else
    not_ok readback_history_every_kind "exit $rc, listed '$listed' of '$want', skipped $skipped: $(head -c 300 "$TMPD/history.err")"
fi

# 2. markup planted in every string of a bundle read back
H=$TMPD/hostile
mkdir -p "$H/all"
busy=command
[ -d "$K/$busy" ] || busy=plain
python3 "$HERE/plant_markup.py" "$K/$busy" "$H/all/values" values &&
    python3 "$HERE/plant_markup.py" "$K/plain" "$H/all/names" names &&
    python3 "$HERE/plant_markup.py" "$K/plain" "$H/units" units ||
    { not_ok readback_markup_planted "plant_markup.py failed"; exit 0; }
check() { # NAME: the outputs of one subcommand ($TMPD/out/NAME, NAME.out, NAME.err)
    if python3 "$HERE/check_markup.py" "$TMPD/out/$1" "$TMPD/$1.out" "$TMPD/$1.err" > "$TMPD/$1.check"; then
        ok "readback_markup_$1"
    else
        not_ok "readback_markup_$1" "$(head -c 600 "$TMPD/$1.check")"
    fi
}
sub() { # NAME SUBCOMMAND ARGS...: runs it (without -q: the terminal output is checked too)
    n=$1; shift
    "$PERFREPORT_BIN" "$@" -o "$TMPD/out/$n" > "$TMPD/$n.out" 2> "$TMPD/$n.err"
    rc=$?
    case $rc in
        0|1|2|4|5|6) check "$n" ;;
        *) not_ok "readback_markup_$n" "exit $rc: $(head -c 300 "$TMPD/$n.err")" ;;
    esac
}
sub render_values render "$H/all/values"
sub render_names render "$H/all/names"
sub diff_values_names diff "$H/all/values" "$H/all/names"
sub diff_names_values diff "$H/all/names" "$H/all/values"
sub diff_plain_values diff "$K/plain" "$H/all/values"
sub history_hostile history "$H/all"
# refused NAME BUNDLE MESSAGE: render exits 3, writes nothing and says why
refused() {
    "$PERFREPORT_BIN" render "$2" -o "$TMPD/out/$1" > "$TMPD/$1.out" 2> "$TMPD/$1.err"
    rc=$?
    if [ "$rc" = 3 ] && [ ! -e "$TMPD/out/$1" ] && grep -qF -- "$3" "$TMPD/$1.err"; then
        ok "readback_$1"
    else
        not_ok "readback_$1" "exit $rc: $(head -c 300 "$TMPD/$1.err")"
    fi
}
refused markup_unit_refused "$H/units" '"unit" is not a unit'

# 3. Forged magnitudes (issue 30, 12): every number of report.json (metrics,
# series, cells, facts, the window) set to +-1e308 is refused; set to
# +-1.8e19 (below 2^64, as large as a real counter gets) it renders, and no
# output holds a number of more than 20 digits (a 309-digit headline before).
forge() { # SRC DST VALUE
    python3 - "$@" <<'PY'
import hashlib, json, shutil, sys
src, dst, val = sys.argv[1], sys.argv[2], float(sys.argv[3])
shutil.copytree(src, dst)
d = json.load(open(dst + "/report.json"))
sign = [1]
def v():
    sign[0] = -sign[0]
    return val * sign[0]
for m in d["metrics"].values():
    m["value"] = v()
for s in d["series"]["items"]:
    s["values"] = [v() for _ in s["values"]]
for t in d["tables"]:
    for r in t["rows"]:
        for k, x in r.items():
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                r[k] = v()
for k in ("planned_s", "actual_s", "interval_s"):
    d["window"][k] = abs(val)
for k, x in d["host"].items():
    if isinstance(x, (int, float)):
        d["host"][k] = v()
open(dst + "/report.json", "w").write(json.dumps(d))
m = json.load(open(dst + "/manifest.json"))
for e in m["integrity"]:
    data = open(dst + "/" + e["name"], "rb").read()
    e["size"], e["sha256"] = len(data), hashlib.sha256(data).hexdigest()
open(dst + "/manifest.json", "w").write(json.dumps(m))
PY
}
busy=command
[ -d "$K/$busy" ] || busy=plain
mkdir -p "$TMPD/forged"
forge "$K/$busy" "$TMPD/forged/huge" 1e308 && forge "$K/$busy" "$TMPD/forged/big" 1.8e19 ||
    { not_ok readback_forged_numbers "the forgery failed"; exit 0; }
refused forged_huge_numbers_refused "$TMPD/forged/huge" 'beyond +-2^64: refused'
"$PERFREPORT_BIN" render "$TMPD/forged/big" -o "$TMPD/out/big" > "$TMPD/big.out" 2> "$TMPD/big.err"
rc=$?
long=$(grep -rhoE '[0-9]{21,}' "$TMPD/out/big" "$TMPD/big.out" 2>/dev/null | head -1 | cut -c1-40)
hl=$(json "$TMPD/out/big/report.json" "len(d['headline'])" 2>/dev/null)
case $rc in
    0|1|2|4|5|6)
        if [ -z "$long" ] && [ -n "$hl" ] && [ "$hl" -lt 600 ]; then ok readback_forged_big_numbers_bounded
        else not_ok readback_forged_big_numbers_bounded "a number of ${#long}+ digits ($long...), headline $hl characters"; fi ;;
    *) not_ok readback_forged_big_numbers_bounded "exit $rc: $(head -c 300 "$TMPD/big.err")" ;;
esac
