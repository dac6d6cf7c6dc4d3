#!/bin/sh
# Peak RSS and time of a run with hostile binaries running (issue 11, design
# §9: peak RSS <= 64 MiB with any number of them): three programs whose
# .debug_str is a zlib SHF_COMPRESSED section inflating to 1 GiB, run by
# nobody.  A default run (-d 30) unless LONG=0 (then -d 5), and -d 5 with one
# bomb.  Needs root.
set -eu
cd "$(dirname "$0")/.."
BIN=${PERFREPORT_BIN:-./perfreport}
LONG=${LONG:-1}
tmp=$(mktemp -d /tmp/perfreport-hostile.XXXXXX)
chmod 755 "$tmp"
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; rm -rf "$tmp"' EXIT

echo
echo "## Hostile binaries (budget: peak RSS <= 64 MiB)"
if [ "$(id -u)" != 0 ]; then
    echo "skipped: needs root"
    exit 0
fi
for i in 1 2 3; do
    cc -std=gnu11 -O1 -g -fno-omit-frame-pointer -o "$tmp/base$i" tests/workloads/burner.c -lpthread \
        -Wl,--build-id=0x$i$i$i$i$i$i$i$i$i$i$i$i$i$i$i$i
done
python3 tests/workloads/debugbomb.py 1024 "$tmp/base1" "$tmp/bomb1" "$tmp/base2" "$tmp/bomb2" \
    "$tmp/base3" "$tmp/bomb3"
chmod 755 "$tmp"/bomb?
printf '%-34s %8s %10s %9s %10s %5s\n' run "wall s" "end->bndl" "RSS MiB" "coll. ms" exit
su nobody -s /bin/sh -c "exec $tmp/bomb1 60 1" & pids="$pids $!"
sleep 0.5
python3 bench/measure.py "1 debug bomb (1 GiB), -d 5" "$tmp/one" -- "$BIN" -d 5
for i in 2 3; do
    su nobody -s /bin/sh -c "exec $tmp/bomb$i 60 1" & pids="$pids $!"
done
sleep 0.5
d=30
[ "$LONG" = 1 ] || d=5
python3 bench/measure.py "3 debug bombs (1 GiB), -d $d" "$tmp/three" -- "$BIN" -d $d
for p in $pids; do kill "$p" 2>/dev/null || true; done
for p in $pids; do wait "$p" 2>/dev/null || true; done
pids=""
