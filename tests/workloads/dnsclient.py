#!/usr/bin/env python3
"""Resolves names through the C library's getaddrinfo in a loop, as a
process named "dnsclient": NAME every round, and every 4th round NXNAME
(expected to fail) and a hostile name (markup, an escape sequence, a
byte that is no UTF-8) under NXNAME.  usage: dnsclient.py NAME NXNAME SECONDS"""
import socket
import sys
import time

with open('/proc/self/comm', 'w') as f:
    f.write('dnsclient')
name, nxname, stop = sys.argv[1], sys.argv[2], time.monotonic() + float(sys.argv[3])
hostile = b'<b>x\x1b[31m\xff.' + nxname.encode()
i = 0
while time.monotonic() < stop:
    try:
        socket.getaddrinfo(name, 80, socket.AF_INET, socket.SOCK_STREAM)
    except socket.gaierror as e:
        print('dnsclient: %s: %s' % (name, e), file=sys.stderr)
        time.sleep(0.2)
    if i % 4 == 0:
        for n in (nxname, hostile):
            try:
                socket.getaddrinfo(n, 80, socket.AF_INET, socket.SOCK_STREAM)
            except (socket.gaierror, UnicodeError):
                pass
    i += 1
