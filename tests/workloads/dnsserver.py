#!/usr/bin/env python3
"""A small DNS responder for tests: answers UDP queries on ADDR:53 after
DELAY_MS milliseconds.  Names under SLOW get an A record (192.0.2.10; AAAA
and other types get an empty answer), names under NX get NXDOMAIN at once,
anything else REFUSED.  Replies are delayed without blocking the others.

usage: dnsserver.py ADDR DELAY_MS SLOW NX SECONDS"""
import heapq
import select
import socket
import struct
import sys
import time


def qname_end(msg, off):
    """End offset of the question name starting at off (no compression)."""
    while off < len(msg):
        n = msg[off]
        if n == 0:
            return off + 1
        if n & 0xC0:
            return None
        off += 1 + n
    return None


def answer(msg, slow, nx):
    if len(msg) < 12:
        return None, 0
    qid, flags, qd = struct.unpack('>HHH', msg[:6])
    if flags & 0x8000 or qd != 1:
        return None, 0
    end = qname_end(msg, 12)
    if end is None or end + 4 > len(msg):
        return None, 0
    labels, off = [], 12
    while msg[off]:
        labels.append(msg[off + 1:off + 1 + msg[off]].decode('ascii', 'replace').lower())
        off += 1 + msg[off]
    name = '.'.join(labels)
    qtype = struct.unpack('>H', msg[end:end + 2])[0]
    question = msg[12:end + 4]
    rd = flags & 0x0100
    if name == slow or name.endswith('.' + slow):
        if qtype == 1:
            rr = struct.pack('>HHHIH', 0xC00C, 1, 1, 0, 4) + socket.inet_aton('192.0.2.10')
            return struct.pack('>HHHHHH', qid, 0x8080 | rd, 1, 1, 0, 0) + question + rr, 1
        return struct.pack('>HHHHHH', qid, 0x8080 | rd, 1, 0, 0, 0) + question, 1
    if name == nx or name.endswith('.' + nx):
        return struct.pack('>HHHHHH', qid, 0x8083 | rd, 1, 0, 0, 0) + question, 0
    return struct.pack('>HHHHHH', qid, 0x8085 | rd, 1, 0, 0, 0) + question, 0


def main():
    addr, delay, slow, nx, secs = sys.argv[1], float(sys.argv[2]) / 1000, \
        sys.argv[3].lower(), sys.argv[4].lower(), float(sys.argv[5])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, 53))
    pending, seq, stop = [], 0, time.monotonic() + secs
    while time.monotonic() < stop:
        now = time.monotonic()
        while pending and pending[0][0] <= now:
            _, _, reply, peer = heapq.heappop(pending)
            s.sendto(reply, peer)
        wait = min(pending[0][0] - now if pending else 0.5, stop - now)
        r, _, _ = select.select([s], [], [], max(wait, 0))
        if not r:
            continue
        msg, peer = s.recvfrom(4096)
        reply, delayed = answer(msg, slow, nx)
        if reply is None:
            continue
        seq += 1
        heapq.heappush(pending, (time.monotonic() + (delay if delayed else 0), seq, reply, peer))


if __name__ == '__main__':
    main()
