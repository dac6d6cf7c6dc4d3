#!/usr/bin/env python3
"""A hostile copy of a bundle: markup planted in every string it holds.

usage: plant_markup.py SRC DST MODE
  MODE values: every string value of report.json gets the payload appended,
               except the few the loader checks for their form (schema,
               tool name, window start, command end/signal, collector status,
               profile names and files); names the rules look tables, series,
               metrics and facts up by stay, so the findings are made as in
               the run and carry the planted cells into titles and headlines;
  MODE names:  the names too (tables, columns, series, metrics, histograms,
               fact keys, resources), so every name that reaches a heading, a
               caption, a file name or a link is hostile.  Units stay: the
               loader refuses any but plain ones (a number and its unit are
               printed as one piece of perfreport's text);
  MODE units:  only the units, for that refusal.
Every frame of every .folded file gets the payload too.  manifest.json's
sizes and SHA-256 are made to match again (a forger can always do that), so
the copy loads.  Prints nothing; the payload is PAYLOAD below.
"""
import hashlib
import json
import os
import shutil
import sys

# Markdown, HTML, SVG, attribute and terminal markup at once.  No ';' (a
# folded frame separator); no NUL (refused by the loader).
PAYLOAD = (" <xss1>*em*_un_ [ln](javascript:alert(1)) ![im](http://x.example/i.png)"
           " <script>alert(1)</script> <svg onload=alert(2)> \" onmouseover=\"alert(3)"
           " &amp; \x1b[31m |p| `cd` \n# hd <!-- c --> <https://x.example/a>")

# Strings whose form the loader checks: left alone (a copy that does not
# load tests nothing).
KEEP_ALWAYS = {
    ("schema",), ("tool", "name"), ("window", "start"), ("command", "end"),
    ("command", "signal"), ("collectors", "*", "status"), ("profiles", "*", "name"),
    ("profiles", "*", "file"), ("severity",), ("use", "*", "utilisation", "severity"),
    ("use", "*", "saturation", "severity"), ("use", "*", "errors", "severity"),
    ("findings", "*", "severity"),
}
# Names the rules look things up by: kept in "values" mode.
NAME_KEYS = {"name", "resource", "unit", "id"}


def plant(v, path, mode):
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            key = k
            # fact keys and metric names are object keys
            if mode == "names" and path in (("host",), ("capabilities",), ("metrics",)):
                key = k + PAYLOAD.replace("\n", " ")
            elif mode == "names" and len(path) == 2 and path[0] == "facts":
                key = k + PAYLOAD.replace("\n", " ")
            elif mode == "names" and len(path) == 4 and path[0] == "tables" and path[2] == "rows":
                key = k + PAYLOAD.replace("\n", " ")  # row members are column names
            out[key] = plant(x, path + (k,), mode)
        return out
    if isinstance(v, list):
        return [plant(x, path + ("*",), mode) for x in v]
    if not isinstance(v, str):
        return v
    if path in KEEP_ALWAYS:
        return v
    if mode == "units":
        return v + "<b>" if path and path[-1] == "unit" else v
    if path and path[-1] == "unit":
        return v
    if mode == "values" and path and path[-1] in NAME_KEYS:
        return v
    if mode == "values" and len(path) == 2 and path[0] in ("host", "capabilities") and \
            path[1] == "hostname":
        return v + PAYLOAD  # the host name is a value like any other
    return v + PAYLOAD


def main():
    src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.copytree(src, dst)
    os.chmod(dst, 0o700)
    rep = json.load(open(os.path.join(dst, "report.json")))
    rep = plant(rep, (), mode)  # list items are "*" in a path
    if mode == "names":
        # row members must follow the (renamed) columns in order
        for t in rep.get("tables", []):
            names = [c["name"] for c in t["columns"]]
            t["rows"] = [dict(zip(names, r.values())) for r in t["rows"]]
    folded = [p["file"] for p in rep.get("profiles", [])] if mode != "units" else []
    for f in folded:
        path = os.path.join(dst, f)
        out = []
        for line in open(path, encoding="utf-8", errors="surrogateescape"):
            stack, count = line.rstrip("\n").rsplit(" ", 1)
            frames = [fr + PAYLOAD.replace("\n", " ") for fr in stack.split(";")]
            out.append(";".join(frames) + " " + count + "\n")
        open(path, "w", encoding="utf-8", errors="surrogateescape").write("".join(out))
    open(os.path.join(dst, "report.json"), "w").write(json.dumps(rep, indent=2))
    man = json.load(open(os.path.join(dst, "manifest.json")))
    for e in man["integrity"]:
        p = os.path.join(dst, e["name"])
        if os.path.exists(p):
            data = open(p, "rb").read()
            e["size"] = len(data)
            e["sha256"] = hashlib.sha256(data).hexdigest()
    open(os.path.join(dst, "manifest.json"), "w").write(json.dumps(man, indent=2))


if __name__ == "__main__":
    main()
