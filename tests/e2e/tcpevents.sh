#!/bin/sh
# The TCP event collector end to end: retransmits in a private network
# namespace, named by port.  Root + BPF only.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then skip tcpevents_all "binary $PERFREPORT_BIN not built"; exit 0; fi
if ! need_root; then skip tcpevents_all "needs root for BPF"; exit 0; fi

finding() { # bundle id -> "severity|title|evidence..." or "none"
    json "$1/report.json" "next(('%s|%s|%s' % (f['severity'], f['title'], ' '.join(f['evidence'])) for f in d['findings'] if f['id']=='$2'), 'none')"
}
ran() { json "$1/manifest.json" "next((c['status'] for c in d['collectors'] if c['name']=='$2'), 'absent')"; }

# TCP retransmits in a private netns: nftables drops ~10 % to port 5001.
if ! command -v nft >/dev/null || ! command -v ip >/dev/null; then
    skip tcpevents_retransmits "nft or ip missing"
else
    ns=prtest-$$
    on_cleanup "ip netns del $ns 2>/dev/null"
    if ip netns add "$ns" && ip -n "$ns" link set lo up &&
        ip netns exec "$ns" nft add table inet prt &&
        ip netns exec "$ns" nft add chain inet prt in '{ type filter hook input priority 0; }' &&
        ip netns exec "$ns" nft add rule inet prt in tcp dport 5001 numgen random mod 10 0 drop; then
        ip netns exec "$ns" python3 tests/workloads/tcpxfer.py 5001 60 & track $!
        sleep 0.5
        "$PERFREPORT_BIN" -d 4 -o "$TMPD/tcp" --quiet
        f=$(finding "$TMPD/tcp" net.tcp_retransmits)
        case "$f" in
            *'127.0.0.1:5001'*namespace*) ok tcpevents_retransmits_names_port_from_netns ;;
            *) not_ok tcpevents_retransmits_names_port_from_netns "$f" ;;
        esac
        stop_tracked
    else
        skip tcpevents_retransmits "could not set up namespace $ns with an nftables drop rule"
    fi
    ip netns del "$ns" 2>/dev/null
fi
