#!/bin/sh
# Scenario 7: a TCP sender in a private network namespace whose packets to
# port 5001 are dropped (nftables, ~10 %) -> net.tcp_retransmits first,
# naming the port.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_tcp_drops "needs root"; exit 0; }
if ! command -v nft >/dev/null || ! command -v ip >/dev/null; then
    skip scenario_tcp_drops "nft or ip missing"; exit 0
fi
ns=prscen-$$
on_cleanup "ip netns del $ns 2>/dev/null"
if ! { ip netns add "$ns" && ip -n "$ns" link set lo up &&
       ip netns exec "$ns" nft add table inet prs &&
       ip netns exec "$ns" nft add chain inet prs in '{ type filter hook input priority 0; }' &&
       ip netns exec "$ns" nft add rule inet prs in tcp dport 5001 numgen random mod 10 0 drop; }; then
    skip scenario_tcp_drops "cannot set up namespace $ns with an nftables drop rule"; exit 0
fi
# It outlasts the run (a slow start must not move the window past its end).
ip netns exec "$ns" python3 tests/workloads/tcpxfer.py 5001 60 & track $!
sleep 0.5
scen_run "$TMPD/b"
scen_record tcp-drops "$TMPD/b"
expect_rank scenario_tcp_drops_first "$TMPD/b" net.tcp_retransmits 1
expect_text scenario_tcp_drops_names_port "$TMPD/b" "d['findings'][0]['title']" ":5001"
stop_tracked
