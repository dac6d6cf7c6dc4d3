#!/bin/sh
# Bounds and forbidden files: a run never opens blocking or side-effect
# files nor another process's environment or memory, and a host with
# 20,000 threads finishes within the window plus a few seconds inside the
# memory budget.
. tests/lib.sh
if [ ! -x "$PERFREPORT_BIN" ]; then skip bounds "binary $PERFREPORT_BIN not built"; exit 0; fi
if ! need_root; then skip bounds "needs root"; exit 0; fi

# Every path the run opens, from strace (children included).
if command -v strace >/dev/null 2>&1; then
    strace -f -qq -e trace=open,openat,openat2 -o "$TMPD/strace.log" \
        "$PERFREPORT_BIN" -d 2 -o "$TMPD/s" --quiet
    # The sanitizer runtime (not our code) reads its own /proc/self/environ.
    self_env='"/proc/self/environ"'
    [ -n "${ASAN_OPTIONS:-}" ] && self_env='"/proc/self/environ-not-checked"'
    bad=$(grep -E "\"/proc/[0-9]+/(environ|mem)\"|$self_env|\"/proc/self/mem\"|kmsg\"|kcore\"|trace_pipe|\"/dev/(mem|kmem|port|sd|vd|nvme|tty)" \
        "$TMPD/strace.log" | head -3)
    opened=$(grep -c 'open' "$TMPD/strace.log")
    if [ -z "$bad" ] && [ "$opened" -gt 100 ]; then ok bounds_no_forbidden_files
    else not_ok bounds_no_forbidden_files "${bad:-only $opened opens traced}"; fi
    # The kernel's BTF (5 MB through 4 KiB sysfs reads) is read and parsed
    # once for all the BPF loads (src/collect/kbtf.h), not once per object,
    # and the capability line says how many loads it served.
    btf_opens=$(grep -c '"/sys/kernel/btf/vmlinux"' "$TMPD/strace.log")
    btf_cap=$(json "$TMPD/s/report.json" "d['capabilities'].get('kernel_btf', '')")
    parses=$(echo "$btf_cap" | sed -n 's/.*; parsed \([0-9]*\) time(s) for \([0-9]*\) load(s).*/\1/p')
    served=$(echo "$btf_cap" | sed -n 's/.*; parsed \([0-9]*\) time(s) for \([0-9]*\) load(s).*/\2/p')
    if [ "$btf_opens" = 1 ] && [ "${parses:-0}" = 1 ] && [ "${served:-0}" -ge 5 ]; then ok bounds_kernel_btf_read_once
    else not_ok bounds_kernel_btf_read_once "opened $btf_opens times; capability: $(json "$TMPD/s/report.json" "d['capabilities'].get('kernel_btf')")"; fi
    # From Linux 6.16 sysfs maps the kernel's BTF: mapped, not read 4 KiB at a time.
    kv=$(uname -r | sed -n 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
    set -- $kv
    if [ "${1:-0}" -gt 6 ] || { [ "${1:-0}" -eq 6 ] && [ "${2:-0}" -ge 16 ]; }; then
        case $btf_cap in
            mapped*) ok bounds_kernel_btf_mapped ;;
            *) not_ok bounds_kernel_btf_mapped "kernel $(uname -r); capability: $btf_cap" ;;
        esac
    else
        skip bounds_kernel_btf_mapped "kernel $(uname -r) before 6.16 cannot map its BTF"
    fi
else
    skip bounds_no_forbidden_files "strace not installed"
    skip bounds_kernel_btf_read_once "strace not installed"
fi

# 20,000 sleeping threads: the run still ends about on time, inside 64 MiB.
"$WL/threadstorm" 20000 15 > "$TMPD/ts.out" & track $!
i=0
while ! grep -q ready "$TMPD/ts.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
made=$(sed -n 's/ready //p' "$TMPD/ts.out")
if [ "${made:-0}" -lt 20000 ]; then
    skip bounds_20k_threads "could only create ${made:-0} threads"
else
    res=$(python3 - "$PERFREPORT_BIN" "$TMPD/t" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.run([sys.argv[1], "-d", "3", "-o", sys.argv[2], "--quiet"])
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%d %.1f %.1f" % (p.returncode, wall, rss))
PY
)
    set -- $res
    # the sanitizer build carries its own shadow memory: only time applies there
    limit_rss=64
    [ -n "${ASAN_OPTIONS:-}" ] && limit_rss=100000
    if [ -f "$TMPD/t/report.json" ] && python3 -c "import sys; sys.exit(0 if $2 <= 8 and $3 <= $limit_rss else 1)"; then
        ok bounds_20k_threads
    else
        not_ok bounds_20k_threads "exit $1, wall $2 s for a 3 s window, peak RSS $3 MiB"
    fi
fi
