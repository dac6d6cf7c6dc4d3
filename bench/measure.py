#!/usr/bin/env python3
"""measure.py LABEL BUNDLE_DIR -- PERFREPORT ARGS...: runs perfreport once and
prints one row: wall time, window end -> bundle published, peak RSS, time
spent inside collectors, and the exit status."""
import json, re, resource, subprocess, sys, time

label, out = sys.argv[1], sys.argv[2]
cmd = sys.argv[4:]
t0 = time.monotonic()
p = subprocess.run(cmd + ["-o", out, "-v", "--quiet"], capture_output=True, text=True)
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
m = re.search(r"window end to bundle published: ([0-9.]+) ms", p.stderr)
fin = float(m.group(1)) if m else float("nan")
try:
    man = json.load(open(out + "/manifest.json"))
    coll = sum(c.get("duration_ms") or 0 for c in man["collectors"])
except OSError:
    coll = float("nan")
print("%-34s %8.2f %10.1f %9.1f %10.1f %5d" % (label, wall, fin, rss, coll, p.returncode))
