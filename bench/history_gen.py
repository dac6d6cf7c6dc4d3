#!/usr/bin/env python3
"""Synthetic bundles for bench/history_bench.sh and tests/e2e/history.sh.

usage: history_gen.py SEED OUT N [HOSTS]

Makes N bundles from the real bundle SEED under OUT/<host>/, named as the
publisher names them (perfreport-<host>-<YYYYmmdd-HHMMSS>), HOSTS hosts
(default 20) taking turns, one run an hour per host.  Each gets the seed's
report.json with its hostname and window start changed and its per-tick
series and metrics scaled (so severities differ), and the seed's
manifest.json with the report.json entry (size, SHA-256) re-written to
match, so the loader verifies it as it would a real one.  index.html is a
hard link to the seed's; the other files the manifest lists are left out
(perfreport history does not read them).
"""
import copy
import hashlib
import json
import os
import sys
import time

seed, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
hosts = int(sys.argv[4]) if len(sys.argv) > 4 else 20
report = json.load(open(os.path.join(seed, "report.json")))
manifest = json.load(open(os.path.join(seed, "manifest.json")))
t0 = int(time.time()) - (n // hosts + 1) * 3600
t0 -= t0 % 3600

# values that drive the CPU, memory and pressure rules one way or the other
SCALED = ("cpu.util_pct", "cpu.runq_per_cpu", "psi.cpu.some.pct", "psi.memory.some.pct",
          "psi.io.some.pct", "cpu.user_pct")

for i in range(n):
    h = i % hosts
    host = "host-%02d" % h
    start = t0 + (i // hosts) * 3600 + h * 7
    f = ((i * 7919) % 100) / 50.0  # 0 .. 2, spread over the runs
    r = copy.deepcopy(report)
    r["host"]["hostname"] = host
    r["window"]["start"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start))
    for name, m in r["metrics"].items():
        if name in SCALED and isinstance(m.get("value"), (int, float)):
            v = m["value"] * f
            m["value"] = min(v, 100.0) if name.endswith("_pct") else v
    for s in r["series"]["items"]:
        if s["name"] in SCALED:
            s["values"] = [None if v is None else
                           (min(v * f, 100.0) if s["name"].endswith("_pct") else v * f)
                           for v in s["values"]]
    text = json.dumps(r, indent=2).encode()
    man = copy.deepcopy(manifest)
    for e in man["integrity"]:
        if e["name"] == "report.json":
            e["size"] = len(text)
            e["sha256"] = hashlib.sha256(text).hexdigest()
    name = "perfreport-%s-%s" % (host, time.strftime("%Y%m%d-%H%M%S", time.gmtime(start)))
    d = os.path.join(out, host, name)
    os.makedirs(d)
    with open(os.path.join(d, "report.json"), "wb") as fh:
        fh.write(text)
    with open(os.path.join(d, "manifest.json"), "w") as fh:
        json.dump(man, fh, indent=2)
    os.link(os.path.join(seed, "index.html"), os.path.join(d, "index.html"))
