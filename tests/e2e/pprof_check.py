#!/usr/bin/env python3
"""Reads a gzip'd pprof profile (profile.proto) with a decoder of its own and
compares it with the folded file of the same profile.  Prints one line per
finding: "ok NAME" or "bad NAME: why" (the shell test turns them into its
protocol).  Usage: pprof_check.py PROFILE.pb.gz FOLDED (cpu|offcpu) [checks]
checks, each naming a workload that ran during the window:
  --comm-pid COMM PID  samples labelled pid=PID (a number) exist and carry
                       comm=COMM; those of comm COMM carry one pid
  --func FUNC SOURCE   a location of FUNC names SOURCE (its path's tail) at a
                       line inside FUNC's definition there
  --build-id PATH HEX  the mapping of the file PATH carries build-id HEX"""
import gzip
import sys


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if not c & 0x80:
            return v, i
        shift += 7


def fields(b):
    """(field, value) pairs: an int for varints, bytes for length-delimited."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
            if len(v) != n:
                raise ValueError("truncated field %d" % f)
        else:
            raise ValueError("unexpected wire type %d" % wire)
        yield f, v


def packed(v):
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def decode(data):
    p = {'strings': [], 'types': [], 'samples': [], 'locations': {}, 'functions': {},
         'mappings': {}, 'period': 0}
    for f, v in fields(data):
        if f == 6:
            p['strings'].append(v.decode('utf-8', 'surrogateescape'))
        elif f == 1:
            vt = dict(fields(v))
            p['types'].append((vt.get(1, 0), vt.get(2, 0)))
        elif f == 2:
            s = {'loc': [], 'val': [], 'labels': []}
            for f2, v2 in fields(v):
                if f2 == 1:
                    s['loc'] += packed(v2)
                elif f2 == 2:
                    s['val'] += packed(v2)
                elif f2 == 3:
                    s['labels'].append(dict(fields(v2)))
            p['samples'].append(s)
        elif f == 3:
            m = dict(fields(v))
            p['mappings'][m[1]] = m
        elif f == 4:
            loc = {'lines': [], 'mapping': 0}
            for f2, v2 in fields(v):
                if f2 == 1:
                    loc['id'] = v2
                elif f2 == 2:
                    loc['mapping'] = v2
                elif f2 == 3:
                    loc['address'] = v2
                elif f2 == 4:
                    loc['lines'].append(dict(fields(v2)))
            p['locations'][loc['id']] = loc
        elif f == 5:
            fn = dict(fields(v))
            p['functions'][fn[1]] = fn
        elif f == 12:
            p['period'] = v
    return p


def func_lines(source, func):
    """The line range of FUNC's definition in SOURCE: from the line that
    names it with "(" and does not end in ";" to the first "}" at column 0."""
    first = last = 0
    for n, line in enumerate(open(source, encoding='utf-8'), 1):
        if not first and (func + '(') in line and not line.rstrip().endswith(';') \
                and not line.lstrip().startswith(('//', '/*', '*')) and ' ' + func + '(' in ' ' + line.split('=')[0]:
            first = n
        elif first and line.startswith('}'):
            last = n
            break
    return first, last


def label_values(p, s, key):
    S = p['strings']
    return [l.get(2) and S[l[2]] or l.get(3) for l in s['labels'] if S[l[1]] == key]


def extra_checks(p, args):
    S = p['strings']
    i = 0
    while i < len(args):
        opt = args[i]
        if opt == '--comm-pid':
            # by pid: another process of the same name may run beside it
            comm, pid = args[i + 1], int(args[i + 2])
            i += 3
            n = bad = unlabelled = 0
            for s in p['samples']:
                pids = label_values(p, s, 'pid')
                if pids == [pid]:
                    n += 1
                    if label_values(p, s, 'comm') != [comm]:
                        bad += 1
                elif label_values(p, s, 'comm') == [comm] and len(pids) != 1:
                    unlabelled += 1
            print(('ok' if n and not bad and not unlabelled else 'bad') +
                  ' comm_pid_%s: %d samples of pid %d, %d not named %s, %d of that name without one pid'
                  % (comm.rstrip('0123456789'), n, pid, bad, comm, unlabelled))
        elif opt == '--func':
            func, source = args[i + 1], args[i + 2]
            i += 3
            first, last = func_lines(source, func)
            tail = '/'.join(source.split('/')[-3:])
            found = []
            for loc in p['locations'].values():
                for l in loc['lines']:
                    fn = p['functions'].get(l.get(1), {})
                    if S[fn.get(2, 0)] == func:
                        found.append((S[fn.get(4, 0)], l.get(2, 0)))
            good = [f for f in found if f[0].endswith(tail) and first <= f[1] <= last]
            print(('ok' if first and good and len(good) == len(found) else 'bad') +
                  ' func_line_%s: at %s, want %s:%d-%d' % (func, sorted(set(found))[:4], tail, first, last))
        elif opt == '--build-id':
            path, hexid = args[i + 1], args[i + 2].lower()
            i += 3
            ids = [S[m.get(6, 0)] for m in p['mappings'].values() if S[m.get(5, 0)] == path]
            print(('ok' if ids == [hexid] else 'bad') + ' build_id: %s has %s, want %s' % (path, ids, hexid))
        else:
            print('bad usage: %s' % opt)
            i += 1
    # every address lies in its mapping's range
    out = 0
    for loc in p['locations'].values():
        a = loc.get('address', 0)
        m = p['mappings'].get(loc['mapping'])
        if a and (not m or not (m.get(2, 0) <= a < m.get(3, 0))):
            out += 1
    addressed = sum(1 for loc in p['locations'].values() if loc.get('address'))
    print(('ok' if out == 0 and addressed else 'bad') +
          ' addresses: %d locations with an address, %d outside their mapping' % (addressed, out))


def main():
    pb, folded, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    p = decode(gzip.open(pb).read())
    S = p['strings']
    types = [(S[t], S[u]) for t, u in p['types']]
    want = [('samples', 'count'), ('cpu', 'nanoseconds')] if kind == 'cpu' else [('wait', 'nanoseconds')]
    mult = 1 if kind == 'cpu' else 1000
    print(('ok' if S and S[0] == '' and types == want else 'bad') + ' header: types %s' % types)

    # per process (comm) and in all, the folded file's counts
    ftot, fcomm = 0, {}
    for line in open(folded, encoding='utf-8', errors='surrogateescape'):
        stack, _, n = line.rstrip('\n').rpartition(' ')
        n = int(n)
        ftot += n
        comm = stack.split(';')[0]
        fcomm[comm] = fcomm.get(comm, 0) + n
    ptot, pcomm, bad_ref = 0, {}, 0
    for s in p['samples']:
        ptot += s['val'][0]
        comm = [S[l[2]] for l in s['labels'] if S[l[1]] == 'comm']
        if len(comm) != 1:
            bad_ref += 1
            continue
        pcomm[comm[0]] = pcomm.get(comm[0], 0) + s['val'][0]
        if kind == 'cpu' and (len(s['val']) != 2 or s['val'][1] != s['val'][0] * p['period']):
            bad_ref += 1
        for lid in s['loc']:
            loc = p['locations'].get(lid)
            if not loc or not loc['lines'] or any(l.get(1) not in p['functions'] for l in loc['lines']):
                bad_ref += 1
            elif loc['mapping'] and loc['mapping'] not in p['mappings']:
                bad_ref += 1
    print(('ok' if ptot == ftot * mult and ftot > 0 else 'bad') +
          ' total: pprof %d, folded %d x %d' % (ptot, ftot, mult))
    fcomm_scaled = {c: n * mult for c, n in fcomm.items()}
    print(('ok' if pcomm == fcomm_scaled else 'bad') + ' per_comm: %d processes' % len(pcomm))
    print(('ok' if bad_ref == 0 else 'bad') + ' references: %d samples with a bad label, value or id' % bad_ref)

    # inline chains: a folded "f;g_[i]" pair is one location [g, f] (innermost first)
    def fname(fid):
        return S[p['functions'][fid][2]]
    chains = set()
    for loc in p['locations'].values():
        if len(loc['lines']) > 1:
            chains.add(tuple(fname(l[1]) for l in loc['lines']))
    print('chains ' + ' | '.join('<'.join(c) for c in sorted(chains)))
    kernel = sum(1 for loc in p['locations'].values()
                 if loc['mapping'] and S[p['mappings'][loc['mapping']][5]] == '[kernel]')
    print('kernel_locations %d' % kernel)
    extra_checks(p, sys.argv[4:])


if __name__ == "__main__":
    main()
