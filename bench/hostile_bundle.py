#!/usr/bin/env python3
"""Hostile bundles for bench/bundle_bench.sh: a real bundle (SEED) copied with
report.json or a .folded file grown to SIZE MiB in one shape, and manifest.json
re-hashed to match (a forger can always do that).

usage: hostile_bundle.py SEED OUT SHAPE SIZE_MIB
Shapes (what each costs a reader that keeps a node per value):
  zeros    report.json with an unknown key holding [0,0,0,...]: 2 bytes a value
  empties  report.json with an unknown key holding [[],[],...]: 3 bytes a value
  strings  report.json with an unknown key holding ["","",...]: 3 bytes a value
  keys     report.json with an unknown key holding {"k1":0,"k2":0,...}
  ticks    report.json with 100,000 ticks (a run's most) and as many series of
           zeros ("0,") as fit
  long     a real 24 h window at 1 s ticks: 86,400 ticks of the seed's series,
           half of the values 0 (not hostile: what a legitimate bundle costs)
  cells    report.json with a table of rows of one-letter string cells
  bigstr   report.json with one table note of SIZE MiB
  wide     cpu.folded: one frame with SIZE*~100k distinct children ("a;bN 1")
  unique   cpu.folded: distinct 2-frame stacks with short names ("xN;yN 1")
  line     cpu.folded: one stack of SIZE MiB ("a;a;a;...;a 1")
"""
import hashlib
import json
import os
import shutil
import sys

seed, out, shape, size = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
want = int(size * 1024 * 1024)
shutil.copytree(seed, out)
os.chmod(out, 0o700)
rep_path = os.path.join(out, "report.json")
rep = json.load(open(rep_path))


def grow_report(make_junk):
    """Writes report.json with a member "junk" whose text make_junk(n) makes
    about n bytes long, so that the file is about `want` bytes."""
    base = json.dumps(rep)
    left = max(0, want - len(base) - 16)
    text = base[:-1] + ', "junk": ' + make_junk(left) + "}"
    open(rep_path, "w").write(text)


def folded(text_lines_total):
    p = rep.get("profiles", [])
    cpu = [x for x in p if x["name"] == "cpu"]
    if not cpu:
        sys.exit("the seed has no cpu profile")
    cpu[0]["total"] = text_lines_total
    open(rep_path, "w").write(json.dumps(rep))


if shape == "zeros":
    grow_report(lambda n: "[" + ",".join(["0"] * max(1, n // 2)) + "]")
elif shape == "empties":
    grow_report(lambda n: "[" + ",".join(["[]"] * max(1, n // 3)) + "]")
elif shape == "strings":
    grow_report(lambda n: "[" + ",".join(['""'] * max(1, n // 3)) + "]")
elif shape == "keys":
    grow_report(lambda n: "{" + ",".join('"k%d":0' % i for i in range(max(1, n // 12))) + "}")
elif shape in ("ticks", "long"):
    # ticks: 100,000 ticks (a run's most), as many series of zeros as fit;
    # long: a real 24 h window at 1 s: 86,400 ticks of the seed's series with
    # values like a real run's (half of them 0, the rest 3 significant digits)
    import random
    random.seed(1)
    items = rep["series"]["items"]
    n = 100000 if shape == "ticks" else 86400
    rep["series"]["ticks"] = list(range(1, n + 1))
    rep["window"]["actual_s"] = rep["window"]["planned_s"] = n
    if shape == "long":
        for it in items:
            it["values"] = [0 if random.random() < 0.5 else round(random.uniform(0, 100), 1)
                            for _ in range(n)]
    else:
        base = len(json.dumps(rep)) - sum(len(json.dumps(it["values"])) for it in items)
        per = 2 * n + 120
        count = max(1, (want - base) // per)
        proto = items[0]
        items[:] = [dict(proto, name="junk.%d" % i, values=[0] * n) for i in range(count)]
    open(rep_path, "w").write(json.dumps(rep, separators=(",", ":")))
elif shape == "cells":
    cols = [{"name": c, "title": c, "unit": ""} for c in "abcdefgh"]
    row = '{"a":"","b":"","c":"","d":"","e":"","f":"","g":"","h":""}'
    nrows = max(1, want // (len(row) + 1))
    t = {"name": "junk.table", "title": "J", "resource": "other", "columns": cols, "rows": []}
    rep["tables"].append(t)
    text = json.dumps(rep, separators=(",", ":"))
    marker = '"rows":[]}]'
    i = text.rindex(marker)
    text = text[:i] + '"rows":[' + ",".join([row] * nrows) + "]}]" + text[i + len(marker):]
    open(rep_path, "w").write(text)
elif shape == "bigstr":
    rep["tables"][0]["note"] = "x" * want
    open(rep_path, "w").write(json.dumps(rep))
elif shape in ("wide", "unique", "line"):
    path = os.path.join(out, "cpu.folded")
    with open(path, "w") as f:
        total = 0
        written = 0
        i = 0
        if shape == "line":
            f.write(";".join(["a"] * (want // 2)) + " 1\n")
            total = 1
        else:
            while written < want:
                line = ("a;b%d 1\n" % i) if shape == "wide" else ("x%d;y%d 1\n" % (i, i))
                f.write(line)
                written += len(line)
                total += 1
                i += 1
    folded(total)
    # a pprof file would be the old stacks: drop it, the reader encodes anew
    pb = os.path.join(out, "cpu.pb.gz")
    if os.path.exists(pb):
        os.unlink(pb)
else:
    sys.exit("unknown shape " + shape)

man_path = os.path.join(out, "manifest.json")
man = json.load(open(man_path))
man["integrity"] = [e for e in man["integrity"] if os.path.exists(os.path.join(out, e["name"]))]
for e in man["integrity"]:
    data = open(os.path.join(out, e["name"]), "rb").read()
    e["size"] = len(data)
    e["sha256"] = hashlib.sha256(data).hexdigest()
open(man_path, "w").write(json.dumps(man))
