#!/bin/sh
# Scenario 23: a UDP sender floods (20000 datagrams/s) a reader on
# 127.0.0.1 that has a 4 KiB receive buffer and sleeps 1 ms per datagram
# -> net.rcvbuf_drops first, critical, naming the reader's process and its
# port.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_udp_drops "needs root"; exit 0; }
port=$((20000 + $$ % 20000))
# both outlast the run (a slow start must not move the window past their end)
$WL/udpsink "$port" 4096 1000 120 >/dev/null & track $!
sink=$!
sleep 0.3
$WL/udpsend "$port" 20000 120 >/dev/null & track $!
sleep 0.5
scen_run "$TMPD/b"
scen_record udp-drops "$TMPD/b"
expect_rank scenario_udp_drops_first "$TMPD/b" net.rcvbuf_drops 1 critical
expect_text scenario_udp_drops_names_reader "$TMPD/b" "d['findings'][0]['culprit']" "udpsink (pid $sink)"
expect_text scenario_udp_drops_names_port "$TMPD/b" "d['findings'][0]['title']" "127.0.0.1:$port"
stop_tracked
