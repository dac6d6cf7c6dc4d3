#!/bin/sh
# Containers by name: a cgroup laid out as Docker's systemd driver names
# them, a burner inside; `-c` with the short container id finds it, the
# report's target is that cgroup and its row names the runtime and id.
. tests/lib.sh
T=containers
[ -x "$PERFREPORT_BIN" ] || { skip $T "binary $PERFREPORT_BIN not built"; exit 0; }
need_root || { skip $T "needs root"; exit 0; }
[ -x "$WL/burner" ] || { skip $T "workload $WL/burner not built"; exit 0; }
base=/sys/fs/cgroup/cpu
if ! mountpoint -q "$base" 2>/dev/null; then
    base=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
fi
[ -n "$base" ] && [ -f "$base/cgroup.procs" ] || { skip $T "no cgroup cpu hierarchy"; exit 0; }
id=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' | cut -c1-64)
cg=$base/docker-$id.scope
mkdir "$cg" || { skip $T "cannot create $cg"; exit 0; }
on_cleanup "for p in \$(cat $cg/cgroup.procs 2>/dev/null); do kill \$p; done; sleep 0.2; rmdir $cg"
sh -c "echo \$\$ > $cg/cgroup.procs; exec $WL/burner 30 1" >/dev/null & track $!
sleep 0.3
short=$(echo "$id" | cut -c1-12)
"$PERFREPORT_BIN" -d 1 -q -c "$short" -o "$TMPD/b" 2>"$TMPD/err"
rc=$?
target=$(json "$TMPD/b/report.json" "d['window']['target']" 2>/dev/null)
case "$target" in
    *"/docker-$id.scope"*) ok containers_c_by_short_id ;;
    *) not_ok containers_c_by_short_id "exit $rc, target '$target': $(head -c 300 "$TMPD/err")" ;;
esac
name=$(json "$TMPD/b/report.json" "[r['name'] for t in d['tables'] if t['name'] == 'cgroup' for r in t['rows'] if r.get('path', '').endswith('docker-$id.scope')]" 2>/dev/null)
case "$name" in
    *"docker $short"*) ok containers_row_names_runtime_and_id ;;
    *) not_ok containers_row_names_runtime_and_id "rows: $name" ;;
esac
# an id of nothing: a clear error, exit 3, no bundle
"$PERFREPORT_BIN" -d 1 -q -c 0123456789ab -o "$TMPD/none" 2>"$TMPD/err2"
rc=$?
if [ "$rc" = 3 ] && [ ! -e "$TMPD/none" ] && grep -q "no container or pod with that id" "$TMPD/err2"; then
    ok containers_unknown_id_refused
else
    not_ok containers_unknown_id_refused "exit $rc: $(head -c 300 "$TMPD/err2")"
fi
# a cgroup path of nothing: refused at once (it took the whole window and
# wrote a partial bundle, exit 5), and a bad option: one line on where the
# help is, not the 55-line usage
t0=$(date +%s)
"$PERFREPORT_BIN" -d 20 -q -c /perfreport-no-such-cgroup -o "$TMPD/nocg" 2>"$TMPD/err3"
rc=$? t1=$(date +%s)
if [ "$rc" = 3 ] && [ ! -e "$TMPD/nocg" ] && [ $((t1 - t0)) -lt 10 ] &&
    grep -q "no such cgroup" "$TMPD/err3"; then
    ok containers_missing_cgroup_refused
else
    not_ok containers_missing_cgroup_refused "exit $rc after $((t1 - t0)) s: $(head -c 300 "$TMPD/err3")"
fi
"$PERFREPORT_BIN" --no-such-option >"$TMPD/out4" 2>"$TMPD/err4"
rc=$?
if [ "$rc" = 3 ] && [ "$(wc -l <"$TMPD/err4")" = 2 ] && [ ! -s "$TMPD/out4" ] &&
    grep -q "^Try 'perfreport --help' for more information.$" "$TMPD/err4"; then
    ok cli_bad_option_one_line
else
    not_ok cli_bad_option_one_line "exit $rc: $(head -c 300 "$TMPD/err4")"
fi
stop_tracked
