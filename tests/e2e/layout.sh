#!/bin/sh
# The source layout's rules, read from the #include "..." lines of src/:
# - no include circle: a module (x.c with its x.h) that includes, through
#   any chain, a header of a module that includes it back is one concern
#   split in two, or two concerns that lean on each other; the circle is
#   printed.  The circles older than this check are listed in KNOWN: one
#   that is gone must leave the list, none may join it;
# - a collector (src/collect/*.c) learns about the run through collector.h
#   (struct host_caps, collect_config), never from a src/run/ header.
# Needs no root and no build.
KNOWN="model/profile model/profile_chart model/profile_sites"
. tests/lib.sh
python3 - src "$KNOWN" > "$TMPD/out" 2> "$TMPD/err" <<'PY'
import os, re, sys
top = sys.argv[1]
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
edges = {}   # module -> set of modules; a module is a path without .c/.h
incs = {}    # file -> [included file]
for r, _, fs in os.walk(top):
    for f in fs:
        if not f.endswith(('.c', '.h')):
            continue
        p = os.path.normpath(os.path.join(r, f))
        outs = []
        for x in inc.findall(open(p, encoding='utf-8', errors='replace').read()):
            for cand in (os.path.join(r, x), os.path.join(top, x)):
                cand = os.path.normpath(cand)
                if os.path.isfile(cand) and cand.startswith(top + os.sep):
                    outs.append(cand)
                    break
        incs[p] = outs
        m = p[:-2]
        edges.setdefault(m, set()).update(o[:-2] for o in outs if o[:-2] != m)

# Tarjan's strongly connected components, iteratively (no recursion limit).
index, low, on, stack, sccs, n = {}, {}, set(), [], [], 0
for root in sorted(edges):
    if root in index:
        continue
    work = [(root, iter(sorted(edges.get(root, ()))))]
    index[root] = low[root] = n; n += 1; stack.append(root); on.add(root)
    while work:
        v, it = work[-1]
        w = next(it, None)
        if w is not None:
            if w not in index:
                index[w] = low[w] = n; n += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

def cycle(comp):
    """One circle through the component's first module, by breadth-first search."""
    s, members = comp[0], set(comp)
    prev, queue = {s: None}, [s]
    for v in queue:
        for w in sorted(edges.get(v, ())):
            if w == s:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [s]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp

rel = lambda m: os.path.relpath(m, top)
known = {line.strip() for line in sys.argv[2].splitlines() if line.strip()}
seen = set()
for comp in sccs:
    key = ' '.join(rel(m) for m in comp)
    seen.add(key)
    print('%s %s' % ('known' if key in known else 'circle',
                     ' -> '.join(rel(m) for m in cycle(comp))))
for key in sorted(known - seen):
    print('gone ' + key)

coll = os.path.join(top, 'collect')
for p in sorted(incs):
    if os.path.dirname(p) != coll or not p.endswith('.c'):
        continue
    for o in incs[p]:
        if os.path.dirname(o) == os.path.join(top, 'run'):
            print('collector %s includes %s' % (rel(p), rel(o)))
PY
py=$?
# a check that crashed checked nothing: both fail, with its error
if [ $py != 0 ]; then
    why="the check failed (exit $py): $(tail -3 "$TMPD/err")"
    not_ok layout_no_include_circle "$why"
    not_ok layout_collectors_no_run_header "$why"
    exit 0
fi
if grep -q '^circle ' "$TMPD/out"; then
    not_ok layout_no_include_circle "$(grep -c '^circle ' "$TMPD/out") circle(s):
$(grep '^circle ' "$TMPD/out" | sed 's/^/  /')"
elif grep -q '^gone ' "$TMPD/out"; then
    not_ok layout_no_include_circle "no longer a circle, take it out of KNOWN: $(sed -n 's/^gone //p' "$TMPD/out")"
elif grep -q '^known ' "$TMPD/out"; then
    ok layout_no_include_circle
    grep '^known ' "$TMPD/out" | sed 's/^known /  known circle, still to break: /'
else
    ok layout_no_include_circle
fi
if grep -q '^collector ' "$TMPD/out"; then
    not_ok layout_collectors_no_run_header "$(grep '^collector ' "$TMPD/out" | sed 's/^/  /')"
else
    ok layout_collectors_no_run_header
fi
