#!/bin/sh
# The source layout's rules, read from the #include "..." lines of src/:
# - no include circle: a module (x.c with its x.h) that includes, through
#   any chain, a header of a module that includes it back is one concern
#   split in two, or two concerns that lean on each other; the circle is
#   printed.  The circles older than this check are listed in KNOWN: one
#   that is gone must leave the list, none may join it;
# - a collector (a file of src/collect/, or of its folder src/collect/X/)
#   learns about the run through collector.h (struct host_caps,
#   collect_config), never from a src/run/ header;
# - a collector never calls the symbolizer: it hands stack ids and addresses
#   to src/stacks/, which owns the run's one symbolizer, so no file of
#   src/collect/ includes a src/symbolize/ header;
# - no collector includes another collector's header: what two collectors
#   share lives outside src/collect/ (kbpf/, stacks/, procfs/, util/...),
#   and src/collect/ holds the collectors (X.c with X.h, or the folder X/)
#   and their contract (collector.h) and registry only.
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
contract = {os.path.join(coll, 'collector.h')}
def collector_of(p):
    """collect/X.c, collect/X.h and collect/X/... are collector X; None outside."""
    r = os.path.relpath(p, coll)
    if r.startswith('..'):
        return None
    parts = r.split(os.sep)
    return parts[0] if len(parts) > 1 else parts[0].rsplit('.', 1)[0]
for p in sorted(incs):
    me = collector_of(p)
    if me is None or p in contract:
        continue
    for o in incs[p]:
        first = os.path.relpath(o, top).split(os.sep)[0]
        if first == 'run':
            print('collector %s includes %s' % (rel(p), rel(o)))
        elif first == 'symbolize':
            print('symbolizer %s includes %s' % (rel(p), rel(o)))
        elif o not in contract and collector_of(o) not in (None, me):
            print('cross %s includes %s' % (rel(p), rel(o)))
PY
py=$?
# a check that crashed checked nothing: both fail, with its error
if [ $py != 0 ]; then
    why="the check failed (exit $py): $(tail -3 "$TMPD/err")"
    not_ok layout_no_include_circle "$why"
    not_ok layout_collectors_no_run_header "$why"
    not_ok layout_collectors_no_symbolizer "$why"
    not_ok layout_collectors_no_other_collector "$why"
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
if grep -q '^symbolizer ' "$TMPD/out"; then
    not_ok layout_collectors_no_symbolizer "$(sed -n 's/^symbolizer /  /p' "$TMPD/out")"
else
    ok layout_collectors_no_symbolizer
fi
if grep -q '^cross ' "$TMPD/out"; then
    not_ok layout_collectors_no_other_collector "$(sed -n 's/^cross /  /p' "$TMPD/out")"
else
    ok layout_collectors_no_other_collector
fi
