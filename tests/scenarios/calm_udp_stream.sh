#!/bin/sh
# Calm: a UDP stream at a moderate rate (2000 datagrams/s of 200 bytes on
# 127.0.0.1) to a reader with the default buffer that keeps up: no warning,
# no net.rcvbuf_drops finding, and the stream was measured.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_udp_stream "needs root"; exit 0; }
run=1
while [ $run -le "$CALM_RUNS" ]; do
    port=$((20000 + $$ % 10000 + run))
    b=$TMPD/b$run
    $WL/udpsink "$port" 0 0 120 >/dev/null & track $!
    sleep 0.3
    $WL/udpsend "$port" 2000 120 >/dev/null & track $!
    sleep 0.5
    scen_run "$b"
    stop_tracked
    calm_result calm_udp_stream "$run" "$b" || exit 0
    calm_check calm_udp_stream "$run" "$b" \
        "not any(f['id'] == 'net.rcvbuf_drops' for f in d['findings'])" "net.rcvbuf_drops" || exit 0
    calm_check calm_udp_stream "$run" "$b" "d['metrics']['udp.in_datagrams']['value'] >= 2000" \
        "fewer than a second's datagrams delivered" || exit 0
    run=$((run + 1))
done
ok calm_udp_stream
