#!/bin/sh
# Hostile binaries, perf maps and mounts against the symbolizer, each done
# for real by an unprivileged user (nobody) or a private mount namespace
# during a -d 3 window:
#  1. three binaries whose .debug_str is a zlib SHF_COMPRESSED section that
#     inflates to 1 GiB: peak RSS stays within 64 MiB, the ledger names each
#     binary and why, and their frames still get symbol-table names;
#  2. a process whose /tmp is a FUSE mount that never answers: the run ends
#     on time, the CPU profile survives with the other processes' frames;
#  3. /proc/kmsg bind-mounted at the process's /tmp/perf-PID.map: nothing is
#     read from it (the kernel log's unread count does not drop), a note;
#  4. 20 perf maps of 1 MiB each (their processes sleep in generated code,
#     seen by the off-CPU profile): memory bounded, rejected maps named;
#  5. nobody runs 16 processes on 16 copies of libc of its own before a
#     root-owned copy (a container's) is mapped: the DNS probes, at most 16
#     C library files, still take root's copy; the same with 16 root-owned
#     libraries that are no libc mapped under the name libc.so.6 (what a
#     user's bind mounts in a namespace of its own can show);
#  6. a process maps its libc from a FUSE mount that then stops answering:
#     the DNS probes do not open it (a stat there would block), the window
#     opens on time and the ledger says why that libc was left out.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip e2e_hostile_bins "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip e2e_hostile_bins "needs root for BPF and mounts"
    exit 0
fi
WLA=$(cd "$WL" && pwd)
chmod 755 "$TMPD"

# rss_kib BUNDLE / notes BUNDLE COLLECTOR / status BUNDLE COLLECTOR
rss_kib() { json "$1/report.json" "int(d['metrics']['self.max_rss_kib']['value'])"; }
notes() { json "$1/report.json" "' | '.join(c['notes'] or '' for c in d['collectors'] if c['name']=='$2')"; }
status() { json "$1/report.json" "''.join(c['status'] for c in d['collectors'] if c['name']=='$2')"; }
now() { python3 -c 'import time; print(time.monotonic())'; }
# Seconds from the end of BUNDLE's window to the epoch time $2 (the exit):
# a start late on a loaded host is another matter; this is what symbolizing
# (after the window) cost.  The window start has whole seconds: <= 1 s more.
end_to_exit() { json "$1/report.json" "round($2 - __import__('datetime').datetime.strptime(d['window']['start'], '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=__import__('datetime').timezone.utc).timestamp() - d['window']['actual_s'], 1)"; }

# ASan keeps freed blocks in a quarantine (256 MB by default), so there RSS
# grows with everything ever allocated, not with what is live: each refused
# perf map is a block of several MiB.  A small quarantine makes the runs here
# measure what a run holds, as in the plain build.
asan=0
if ldd "$PERFREPORT_BIN" 2>/dev/null | grep -q 'libasan'; then
    asan=1
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4"
fi
"$PERFREPORT_BIN" -d 1 -q -o "$TMPD/probe" >/dev/null 2>&1
if [ "$(status "$TMPD/probe" profile)" != ran ]; then
    skip e2e_hostile_bins "the profile collector does not run here"
    exit 0
fi
# Peak RSS limit: design §9's 64 MiB; a sanitizer build's own shadow memory
# and quarantine are far above that, so there a run may add at most 64 MiB
# to what the same build needs with no hostile file at all.
rss_limit=65536
if [ $asan = 1 ]; then
    rss_limit=$(( $(rss_kib "$TMPD/probe") + 65536 ))
fi

# ---- 1. compressed debug bombs -------------------------------------------
# three programs with their own build-ids (a cache by build-id must not
# fold them into one), each turned into a bomb
for i in 1 2 3; do
    cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -o "$TMPD/base$i" tests/workloads/burner.c \
        -lpthread -Wl,--build-id=0x$i$i$i$i$i$i$i$i$i$i$i$i$i$i$i$i 2>>"$TMPD/bomb.err"
done
if ! python3 tests/workloads/debugbomb.py 1024 "$TMPD/base1" "$TMPD/bomb1" "$TMPD/base2" "$TMPD/bomb2" \
        "$TMPD/base3" "$TMPD/bomb3" 2>>"$TMPD/bomb.err"; then
    not_ok e2e_hostile_debug_bomb "could not build the bombs: $(cat "$TMPD/bomb.err")"
else
    for i in 1 2 3; do
        chmod 755 "$TMPD/bomb$i"
        su nobody -s /bin/sh -c "exec $TMPD/bomb$i 40 1" & track $!
    done
    sleep 0.5
    t0=$(now)
    "$PERFREPORT_BIN" -d 3 -q -o "$TMPD/b1" >/dev/null 2>&1
    t1=$(now); te=$(date +%s.%N)
    stop_tracked
    wall=$(python3 -c "print(round($t1 - $t0, 1))")
    tail_s=$(end_to_exit "$TMPD/b1" "$te")
    rss=$(rss_kib "$TMPD/b1")
    n=$(notes "$TMPD/b1" profile)
    named=$(grep -c '^bomb[0-9];.*burn_leaf' "$TMPD/b1/cpu.folded")
    if [ "$rss" -gt $rss_limit ]; then
        not_ok e2e_hostile_debug_bomb "peak RSS $rss KiB with three 1 GiB debug bombs (budget $rss_limit)"
    elif ! printf '%s' "$n" | grep -q "bomb[0-9]: debug data 1.0 GiB decompressed, over the 16 MiB budget: symbol names only"; then
        not_ok e2e_hostile_debug_bomb "no ledger note names a bomb: $n"
    elif [ "$named" -lt 1 ]; then
        not_ok e2e_hostile_debug_bomb "no bomb stack named burn_leaf from the symbol table: $(grep '^bomb' "$TMPD/b1/cpu.folded" | head -3)"
    elif python3 -c "import sys; sys.exit(0 if $tail_s > 10 else 1)"; then
        not_ok e2e_hostile_debug_bomb "the run ended $tail_s s after its window (budget 10 s)"
    else
        ok e2e_hostile_debug_bomb
    fi
    echo "# debug bombs: peak RSS $rss KiB, wall $wall s for -d 3, $tail_s s after the window"
fi

# ---- 2. a /tmp on a FUSE mount that never answers --------------------------
# The JIT process runs from outside /tmp: the test tree itself may live under
# /tmp (a CI clone), and under the stalled mount its exec would never return.
JITD=$(mktemp -d /var/tmp/perfreport-jit.XXXXXX)
on_cleanup 'rm -rf "$JITD"'
cp "$WLA/jitspin" "$JITD/jitspin"
unshare -m --propagation private sh -c "$WLA/fusestall /tmp >$TMPD/fuse.out & sleep 0.5; exec $JITD/jitspin 40" &
fusepid=$!; track $fusepid
"$WL/burner" 40 1 & track $!
sleep 1
stallpid=$(pgrep -f "^$WLA/fusestall /tmp" | head -1)
if ! grep -q ready "$TMPD/fuse.out" 2>/dev/null || [ -z "$stallpid" ]; then
    skip e2e_hostile_fuse_tmp "could not mount the stalled FUSE filesystem"
else
    t0=$(now)
    # through a pipe, as cron or a unit's journal reads it: the pipe closes
    # only when its last writer, perfreport or a child stuck on the mount, is gone
    { "$PERFREPORT_BIN" -d 3 -q -o "$TMPD/f1" 2>&1; echo $? > "$TMPD/f1.rc"; } | cat >/dev/null & rp=$!
    # a run that hangs is released by ending the FUSE server after 45 s
    waited=0
    while kill -0 $rp 2>/dev/null && [ $waited -lt 450 ]; do sleep 0.1; waited=$((waited + 1)); done
    t1=$(now); te=$(date +%s.%N)
    hung=0; kill -0 $rp 2>/dev/null && hung=1
    # whatever is left stuck on the mount must not hold the run lock
    lockfree=1
    [ $hung = 0 ] && ! python3 -c "import fcntl,sys; fcntl.flock(open(sys.argv[1]), fcntl.LOCK_EX | fcntl.LOCK_NB)" \
        "$PERFREPORT_LOCK" 2>/dev/null && lockfree=0
    kill "$stallpid" 2>/dev/null
    wait $rp; rc=$(cat "$TMPD/f1.rc" 2>/dev/null)
    stop_tracked
    wall=$(python3 -c "print(round($t1 - $t0, 1))")
    tail_s=-1; [ -f "$TMPD/f1/report.json" ] && tail_s=$(end_to_exit "$TMPD/f1" "$te")
    if [ $hung = 1 ]; then
        not_ok e2e_hostile_fuse_tmp "still running, or its output pipe still held, after 45 s (released by ending the FUSE server; exit $rc)"
    elif [ $lockfree = 0 ]; then
        not_ok e2e_hostile_fuse_tmp "the run lock is still held after the run (by a task stuck on the mount)"
    elif [ ! -f "$TMPD/f1/report.json" ]; then
        not_ok e2e_hostile_fuse_tmp "no bundle (exit $rc, $wall s)"
    elif [ "$(status "$TMPD/f1" profile)" != ran ]; then
        not_ok e2e_hostile_fuse_tmp "profile $(status "$TMPD/f1" profile) after $wall s (exit $rc)"
    elif python3 -c "import sys; sys.exit(0 if $tail_s > 10 else 1)"; then
        not_ok e2e_hostile_fuse_tmp "the run ended $tail_s s after its window (budget 10 s)"
    elif ! grep -q '^burner;.*burn_leaf' "$TMPD/f1/cpu.folded"; then
        not_ok e2e_hostile_fuse_tmp "the other process's frames are missing: $(head -3 "$TMPD/f1/cpu.folded")"
    elif ! grep -q '^jitspin;' "$TMPD/f1/cpu.folded"; then
        not_ok e2e_hostile_fuse_tmp "the process under the stalled /tmp was not sampled (not running?)"
    elif ! notes "$TMPD/f1" profile | grep -q 'did not answer within 1000 ms'; then
        not_ok e2e_hostile_fuse_tmp "no note on the unresponsive /tmp: $(notes "$TMPD/f1" profile)"
    else
        ok e2e_hostile_fuse_tmp
    fi
    echo "# stalled FUSE /tmp: -d 3 ended after $wall s ($tail_s s after the window), exit $rc"
fi
stop_tracked

# ---- 3. /proc/kmsg bind-mounted as a perf map ------------------------------
klog_unread() { python3 -c 'import ctypes; print(ctypes.CDLL(None).klogctl(9, None, 0))'; }
# nobody, in a user and mount namespace of its own, plants the pseudo-file
: >"$TMPD/kmsg.out"; chmod 666 "$TMPD/kmsg.out"
su nobody -s /bin/sh -c "exec unshare -Urm sh -c 'touch /tmp/perf-\$\$.map && mount --bind /proc/kmsg /tmp/perf-\$\$.map && echo \$\$ >$TMPD/kmsg.out; exec $WLA/jitspin 40'" &
track $!
sleep 1
kp=$(cat "$TMPD/kmsg.out" 2>/dev/null)
if [ -z "$kp" ]; then
    skip e2e_hostile_perfmap_kmsg "an unprivileged user cannot bind-mount /proc/kmsg here"
else
    on_cleanup "rm -f /tmp/perf-$kp.map"
    echo "perfreport test: kernel log line that must stay unread" >/dev/kmsg
    before=$(klog_unread)
    # strace tells our reads from those of any other perfreport on this host
    # (each of which would consume the kernel log through the planted map)
    strace -f -qq -e trace=open,openat,openat2 -o "$TMPD/k1.strace" \
        "$PERFREPORT_BIN" -d 3 -q -o "$TMPD/k1" >/dev/null 2>&1
    after=$(klog_unread)
    stop_tracked
    n=$(notes "$TMPD/k1" profile)
    jf=$(grep '^jitspin;' "$TMPD/k1/cpu.folded" | head -1)
    # the map read by name, or its O_PATH descriptor reopened (by the same
    # task: other /proc/self/fd reopens are of checked regular files)
    opened=$(python3 - "$TMPD/k1.strace" "perf-$kp.map" <<'PY'
import re, sys
path_fds, hits = set(), []
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r'(\d+)\s+open\w*\((.*)\)\s+=\s+(-?\d+)', line)
    if not m:
        continue
    pid, args, ret = m.group(1), m.group(2), int(m.group(3))
    fd = re.search(r'"/proc/self/fd/(\d+)"', args)
    if fd and "O_PATH" not in args and (pid, int(fd.group(1))) in path_fds:
        hits.append(line.strip())
    path_fds.discard((pid, ret))  # the number now names another file
    if '"' + sys.argv[2] + '"' in args:
        if "O_PATH" in args:
            if ret >= 0:
                path_fds.add((pid, ret))
        else:
            hits.append(line.strip())
print("\n".join(hits[:2]))
PY
)
    echo "# kernel log unread bytes $before -> $after during the run (any reader on the host)"
    if [ ! -s "$TMPD/k1.strace" ]; then
        skip e2e_hostile_perfmap_kmsg "strace did not run"
    elif [ -n "$opened" ]; then
        not_ok e2e_hostile_perfmap_kmsg "the planted map was opened for reading: $opened"
    elif ! printf '%s' "$n" | grep -q "pid $kp: /tmp/perf-$kp.map: on a pseudo filesystem"; then
        not_ok e2e_hostile_perfmap_kmsg "no note names the planted map: $n"
    elif [ -z "$jf" ]; then
        skip e2e_hostile_perfmap_kmsg "jitspin was not sampled (busy host)"
    elif ! printf '%s' "$jf" | grep -q '\[unknown\]'; then
        not_ok e2e_hostile_perfmap_kmsg "jitspin's code was named: $jf"
    else
        ok e2e_hostile_perfmap_kmsg
    fi
fi
[ -n "$kp" ] && rm -f "/tmp/perf-$kp.map"

# ---- 4. many perf maps -----------------------------------------------------
i=0
while [ $i -lt 20 ]; do
    "$WL/jitspin" 40 1 sleep & jp=$!; track $jp
    on_cleanup "rm -f /tmp/perf-$jp.map"
    i=$((i + 1))
done
sleep 1.5
"$PERFREPORT_BIN" -d 3 -q -o "$TMPD/j1" >/dev/null 2>&1
stop_tracked
rss=$(rss_kib "$TMPD/j1")
n=$(notes "$TMPD/j1" offcpu)
refused=$(printf '%s' "$n" | grep -o 'perf-[0-9]*\.map: [a-z ]*what is left ([^)]*) of the 8 MiB perf map budget' | wc -l)
named=$(grep -c '^jitspin;.*jit_spin_loop' "$TMPD/j1/offcpu.folded")
if [ "$rss" -gt $rss_limit ]; then
    not_ok e2e_hostile_jit_budget "peak RSS $rss KiB with 20 perf maps of 1 MiB (budget $rss_limit)"
elif [ "$refused" -lt 1 ]; then
    not_ok e2e_hostile_jit_budget "no ledger note names a map refused for the budget: $n"
elif [ "$named" -lt 1 ]; then
    not_ok e2e_hostile_jit_budget "no map within the budget was used: $(grep '^jitspin' "$TMPD/j1/offcpu.folded" | head -3)"
else
    ok e2e_hostile_jit_budget
fi
echo "# 20 perf maps of 1 MiB: peak RSS $rss KiB, $refused refused by name, $named stacks named"

# ---- 5. copies of libc crowding the DNS probes ------------------------------
libc=$(ldd /bin/sleep 2>/dev/null | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
if [ -z "$libc" ] || ! id nobody >/dev/null 2>&1; then
    skip e2e_hostile_libc_crowd "no libc.so.6 for /bin/sleep or no user nobody"
else
    mkdir -p "$TMPD/crowd"
    chown nobody "$TMPD/crowd"
    i=0
    while [ $i -lt 16 ]; do
        su nobody -s /bin/sh -c "mkdir -p $TMPD/crowd/$i && cp $libc $TMPD/crowd/$i/ && LD_LIBRARY_PATH=$TMPD/crowd/$i exec sleep 30" 2>/dev/null &
        track $!
        i=$((i + 1))
    done
    mkdir -p "$TMPD/rootlibc"
    cp "$libc" "$TMPD/rootlibc/"
    # crowd_run BUNDLE: once the crowd started before (lower pids) has mapped
    # its files, a root-owned copy of libc is mapped and a run records; $n
    # gets the run's DNS notes
    crowd_run() {
        sleep 1.5
        LD_LIBRARY_PATH=$TMPD/rootlibc sleep 30 & track $!
        sleep 0.3
        "$PERFREPORT_BIN" -d 2 -q -o "$1" >/dev/null 2>&1
        stop_tracked
        n=$(notes "$1" dns)
    }
    crowd_run "$TMPD/crowd-b"
    if printf '%s' "$n" | grep -q "$TMPD/rootlibc/libc.so.6" &&
        printf '%s' "$n" | grep -q 'more C library files not probed'; then
        ok e2e_hostile_libc_crowd
    else
        not_ok e2e_hostile_libc_crowd "root's copy not among the probed files: $(printf '%s' "$n" | cut -c1-600)"
    fi
    # root-owned files named libc.so.6 that are libz: preloaded by nobody's
    # processes (the name is all a map shows), they take no slot
    notlibc=$(ldd /bin/sh /usr/bin/python3 2>/dev/null | sed -n 's/.*libz\.so\.1 => \([^ ]*\).*/\1/p' | head -1)
    [ -z "$notlibc" ] && notlibc=$(ldconfig -p | sed -n 's/.*libz\.so\.1 (libc6,x86-64) => \(.*\)/\1/p' | head -1)
    if [ -n "$notlibc" ]; then
        i=0
        while [ $i -lt 16 ]; do
            mkdir -p "$TMPD/fake/$i"
            cp "$notlibc" "$TMPD/fake/$i/libc.so.6"
            chmod 755 "$TMPD/fake" "$TMPD/fake/$i"
            su nobody -s /bin/sh -c "LD_PRELOAD=$TMPD/fake/$i/libc.so.6 exec sleep 30" 2>/dev/null &
            track $!
            i=$((i + 1))
        done
        crowd_run "$TMPD/fake-b"
        if printf '%s' "$n" | grep -q "$TMPD/rootlibc/libc.so.6" &&
            ! printf '%s' "$n" | grep -q "$TMPD/fake/"; then
            ok e2e_hostile_libc_not_a_libc
        else
            not_ok e2e_hostile_libc_not_a_libc "$(printf '%s' "$n" | cut -c1-600)"
        fi
    else
        skip e2e_hostile_libc_not_a_libc "no libz.so.1"
    fi
fi

# ---- 6. a libc on a FUSE mount that stops answering --------------------------
if [ -z "$libc" ] || [ ! -x "$WLA/fuseserve" ]; then
    skip e2e_hostile_libc_on_stalled_fuse "no libc.so.6 for /bin/sleep or no fuseserve"
else
    mkdir -p "$TMPD/fz"
    unshare -m --propagation private sh -c "$WLA/fuseserve $TMPD/fz $libc > $TMPD/fz.out 2>&1 & sleep 0.5; LD_LIBRARY_PATH=$TMPD/fz exec sleep 40" &
    fzs=$!
    track $fzs
    i=0
    while ! grep -q "$TMPD/fz/libc.so.6" "/proc/$fzs/maps" 2>/dev/null && [ $i -lt 50 ]; do
        sleep 0.1; i=$((i + 1))
    done
    fzd=$(pgrep -f "^$WLA/fuseserve $TMPD/fz" | head -1)
    # whatever happens below, nothing stays blocked on the mount for long
    ( sleep 60; [ -n "$fzd" ] && kill -KILL "$fzd" 2>/dev/null ) & killer=$!
    if [ -n "$fzd" ] && grep -q "$TMPD/fz/libc.so.6" "/proc/$fzs/maps"; then
        kill -USR1 "$fzd"
        sleep 0.2
        "$PERFREPORT_BIN" -d 2 -v -o "$TMPD/fz-b" > /dev/null 2> "$TMPD/fz-b.err"
        kill -KILL "$fzd" 2>/dev/null
        started=$(sed -n 's/.*collectors started in \([0-9]*\) ms.*/\1/p' "$TMPD/fz-b.err" | head -1)
        n=$(notes "$TMPD/fz-b" dns)
        if [ -n "$started" ] && [ "$started" -lt 10000 ] &&
            printf '%s' "$n" | grep -q 'on FUSE or network filesystems not opened'; then
            ok e2e_hostile_libc_on_stalled_fuse
        else
            not_ok e2e_hostile_libc_on_stalled_fuse "collectors started in ${started:-?} ms; dns: $(printf '%s' "$n" | cut -c1-300)"
        fi
    else
        skip e2e_hostile_libc_on_stalled_fuse "the FUSE mount did not come up: $(cat "$TMPD/fz.out" 2>/dev/null)"
    fi
    kill "$killer" 2>/dev/null
    [ -n "$fzd" ] && kill -KILL "$fzd" 2>/dev/null
    stop_tracked
fi
