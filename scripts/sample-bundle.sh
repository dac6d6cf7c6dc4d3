#!/bin/sh
# Regenerates examples/sample-bundle: a real 10 s run as root on a host with
# two CPU burners and a third in a cgroup "batch-job" held to 0.2 CPU.
# usage: sh scripts/sample-bundle.sh   (after `make all workloads`)
set -eu
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "sample-bundle: needs root" >&2; exit 1; }
WL=build/workloads
[ -x ./perfreport ] && [ -x "$WL/burner" ] || { echo "sample-bundle: make all workloads first" >&2; exit 1; }
base=/sys/fs/cgroup/cpu
if [ -d "$base" ]; then
    cg=$base/batch-job
    mkdir -p "$cg"
    echo 20000 > "$cg/cpu.cfs_quota_us"
else
    base=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
    cg=$base/batch-job
    mkdir -p "$cg"
    echo "20000 100000" > "$cg/cpu.max"
fi
pids=""
cleanup() {
    for p in $pids $(cat "$cg/cgroup.procs" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
    sleep 0.3
    rmdir "$cg" 2>/dev/null || true
}
trap cleanup EXIT INT TERM
"$WL/burner" 30 1 >/dev/null & pids="$pids $!"
"$WL/burner" 30 1 >/dev/null & pids="$pids $!"
sh -c "echo \$\$ > $cg/cgroup.procs; exec $WL/burner 30 1" >/dev/null & pids="$pids $!"
sleep 1
tmp=$(mktemp -d /tmp/perfreport-sample.XXXXXX)
./perfreport -d 10 -o "$tmp/b" --quiet || true
rm -rf examples/sample-bundle
mv "$tmp/b" examples/sample-bundle
rmdir "$tmp"
echo "examples/sample-bundle: $(head -3 examples/sample-bundle/summary.md | tail -1)"
