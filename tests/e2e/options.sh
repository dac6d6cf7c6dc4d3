#!/bin/sh
# The option tables cannot drift apart: for the default command and every
# subcommand, the options the code parses (the struct option tables and the
# getopt option strings of src/cmd/, subcmd.c's shared ones included where
# subcmd_parse is called), the ones its --help lists, the ones the man page
# (templates/perfreport.1.md) describes and the long ones the bash completion
# offers must be the same sets; the subcommands of main.c's COMMANDS table
# must each have a man page section, a line in --help and a completion arm.
# A side that lacks an option, or has one the code does not parse, fails with
# the option named.  The default --help must say that it needs root.
# Needs no root and runs no capture.  OPTIONS_SRC, OPTIONS_MAN and
# OPTIONS_COMPLETION name other files (to prove that the check fails).
. tests/lib.sh
SRC=${OPTIONS_SRC:-src/cmd}
MAN=${OPTIONS_MAN:-templates/perfreport.1.md}
COMP=${OPTIONS_COMPLETION:-examples/perfreport.bash-completion}
python3 - "$SRC" "$MAN" "$COMP" "$PERFREPORT_BIN" > "$TMPD/out" 2> "$TMPD/err" <<'PY'
import os, re, subprocess, sys
src, man_path, comp_path, binary = sys.argv[1:5]
OPT = re.compile(r'(?<![\w-])(--?[A-Za-z][\w-]*)')

def read(p):
    with open(p, encoding='utf-8') as f:
        return f.read()

def code_options(path):
    """The options a file's getopt calls take: long names from its struct
    option tables, short letters from its option strings."""
    text = re.sub(r'/\*.*?\*/', '', read(path), flags=re.S)
    opts = set()
    for block in re.findall(r'struct option \w+\[[^\]]*\]\s*=\s*\{(.*?)\};', text, re.S):
        opts.update('--' + n for n in re.findall(r'\{\s*"([^"]+)"\s*,', block))
    for s in re.findall(r'getopt_long(?:_only)?\([^"]*"([^"]*)"', text):
        opts.update('-' + c for c in s if c.isalnum())
    if 'subcmd_parse(' in text and os.path.basename(path) != 'subcmd.c':
        opts |= code_options(os.path.join(os.path.dirname(path), 'subcmd.c'))
    return opts

main_c = read(os.path.join(src, 'main.c'))
subs = re.findall(r'^\s*X\((\w+),', main_c, re.M)
if not subs:
    sys.exit('no COMMANDS rows found in main.c')
code = {'': code_options(os.path.join(src, 'run.c'))}
for s in subs:
    code[s] = code_options(os.path.join(src, s + '.c'))

def help_text(sub):
    argv = [binary] + ([sub] if sub else []) + ['--help']
    p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        sys.exit('%s exited %d' % (' '.join(argv), p.returncode))
    return p.stdout

def help_options(text):
    """Option lines are indented 2 to 6 spaces and start with a dash; the
    option part ends at the first run of two spaces."""
    opts = set()
    for line in text.splitlines():
        m = re.match(r' {2,6}(-\S.*)', line)
        if m:
            opts.update(OPT.findall(re.split(r'\s{2,}', m.group(1))[0]))
    return opts

def man_sections(text):
    """{'': OPTIONS, NAME: the section of `perfreport NAME`} -> option items:
    headings and bullets whose text starts with a bold option."""
    secs, cur = {}, None
    for line in text.splitlines():
        h1 = re.match(r'# (\w[\w ]*)$', line)
        sub = re.match(r'## \*\*perfreport (\w+)\*\*', line)
        if h1:
            cur = '' if h1.group(1) == 'OPTIONS' else None
            if cur is not None:
                secs[cur] = set()
            continue
        if sub:
            cur = sub.group(1)
            secs.setdefault(cur, set())
            continue
        if cur is None:
            continue
        # an item names its options before its first ": " (a bullet's
        # description follows it; a heading is all options)
        m = re.match(r'(?:#{2,4}|[-*]) +(\*\*-.*)', line)
        if m:
            head = m.group(1).split(': ')[0]
            secs[cur].update(re.findall(r'\*\*(--?[A-Za-z][\w-]*)\*\*', head))
    return secs

def completion(text):
    """{'': the default's word list, NAME: its arm's} -> the -W words."""
    arms, cur = {'': set()}, ''
    for line in text.splitlines():
        m = re.match(r'    (\w+)\)$', line)
        if m:
            cur = m.group(1)
            arms[cur] = set()
        elif re.match(r'    esac$', line):
            cur = ''
        for w in re.findall(r'compgen -W "([^"$]*)"', line):
            if w.lstrip().startswith('-'):
                arms[cur].update(x for x in w.split() if x != '--')
    return arms

man = man_sections(read(man_path))
comp = completion(read(comp_path))
top_help = help_text('')
bad = []
def compare(what, cmd, side, want, longs_only=False):
    have = side
    w = {o for o in want if o.startswith('--')} if longs_only else want
    if longs_only:
        have = {o for o in side if o.startswith('--')}
    for o in sorted(w - have):
        bad.append('%s of %s lacks %s' % (what, cmd, o))
    for o in sorted(side - want):
        bad.append('%s of %s has %s, which the code does not parse' % (what, cmd, o))

for sub in [''] + subs:
    cmd = 'perfreport' + (' ' + sub if sub else '')
    want = code[sub]
    compare('--help', cmd, help_options(help_text(sub)), want)
    if sub not in man:
        bad.append('the man page has no section for %s' % cmd)
    else:
        compare('the man page', cmd, man[sub], want)
    if sub not in comp:
        bad.append('the completion has no arm for %s' % cmd)
    else:
        compare('the completion', cmd, comp[sub], want, longs_only=True)
    if sub and not re.search(r'^\s*(Also:)?\s+perfreport %s ' % sub, top_help, re.M):
        bad.append('perfreport --help does not list %s' % cmd)
for sub in sorted(set(man) - set(subs) - {''}):
    bad.append('the man page describes perfreport %s, which main.c does not have' % sub)
if not re.search(r'\broot\b', top_help):
    bad.append('perfreport --help does not say that it needs root')
for b in bad:
    print(b)
print('checked %d commands, %d options' % (1 + len(subs), sum(len(v) for v in code.values())),
      file=sys.stderr)
PY
rc=$?
if [ $rc -ne 0 ]; then
    not_ok options_tables_match "the check failed: $(tail -3 "$TMPD/err" | tr '\n' ' ')"
elif [ -s "$TMPD/out" ]; then
    not_ok options_tables_match "$(wc -l < "$TMPD/out") differences"
    sed 's/^/  /' "$TMPD/out"
else
    ok options_tables_match
    sed 's/^/  /' "$TMPD/err"
fi
