#!/usr/bin/env python3
"""Reads a gzip'd pprof profile (profile.proto) with a decoder of its own and
compares it with the folded file of the same profile.  Prints one line per
finding: "ok NAME" or "bad NAME: why" (the shell test turns them into its
protocol).  Usage: pprof_check.py PROFILE.pb.gz FOLDED (cpu|offcpu)"""
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
                elif f2 == 4:
                    loc['lines'].append(dict(fields(v2)))
            p['locations'][loc['id']] = loc
        elif f == 5:
            fn = dict(fields(v))
            p['functions'][fn[1]] = fn
        elif f == 12:
            p['period'] = v
    return p


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


main()
