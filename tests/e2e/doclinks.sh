#!/bin/sh
# Every relative link of README.md, docs/*.md and tests/README.md resolves:
# the file exists (inside the tree), and a #anchor is one of the anchors
# GitHub (cmark-gfm) gives the headings of that file: the heading's text
# without its markup, lower-cased, every character but letters, digits,
# '-', '_' and spaces dropped, spaces made '-', and a repeated anchor
# suffixed -1, -2...  Links inside code are not links.  Needs no root and
# no build.  DOCLINKS_FILES names other files (to prove that it fails).
. tests/lib.sh
FILES=${DOCLINKS_FILES:-"README.md docs/*.md tests/README.md"}
# shellcheck disable=SC2086
python3 - $FILES > "$TMPD/out" 2> "$TMPD/err" <<'PY'
import os, re, sys
top = os.path.realpath('.')

def strip_code(text):
    text = re.sub(r'^(```|~~~).*?^\1[^\n]*$', '', text, flags=re.S | re.M)
    text = re.sub(r'(?m)^(?: {4}|\t).*$', '', text)
    return re.sub(r'(`+)(?:(?!\1).)+?\1', '', text, flags=re.S)

def slug(title):
    t = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', title)  # links: their text
    t = re.sub(r'<[^>]+>', '', t).replace('`', '').replace('*', '')
    t = t.strip().lower()
    t = ''.join(c for c in t if c.isalnum() or c in '-_ ')
    return t.replace(' ', '-')

anchors_of = {}
def anchors(path):
    if path not in anchors_of:
        seen, out = {}, set()
        text = open(path, encoding='utf-8').read()
        text = re.sub(r'^(```|~~~).*?^\1[^\n]*$', '', text, flags=re.S | re.M)
        for m in re.finditer(r'(?m)^#{1,6}[ \t]+(.*?)[ \t#]*$', text):
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else '%s-%d' % (s, n))
        anchors_of[path] = out
    return anchors_of[path]

bad, nlinks = [], 0
for f in sys.argv[1:]:
    text = strip_code(open(f, encoding='utf-8').read())
    for m in re.finditer(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)', text):
        target = m.group(1)
        if re.match(r'[a-z][a-z0-9+.-]*:', target, re.I):
            continue  # http:, https:, mailto:
        nlinks += 1
        path, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        real = os.path.realpath(dest)
        if not (real == top or real.startswith(top + os.sep)) or not os.path.exists(real):
            bad.append('%s: %s: no such file' % (f, target))
            continue
        if anchor:
            if not dest.endswith('.md') or os.path.isdir(dest):
                bad.append('%s: %s: an anchor into a file that is not Markdown' % (f, target))
            elif anchor not in anchors(dest):
                bad.append('%s: %s: %s has no heading with that anchor' % (f, target, dest))
for b in bad:
    print(b)
print('%d files, %d relative links' % (len(sys.argv) - 1, nlinks), file=sys.stderr)
PY
rc=$?
if [ $rc -ne 0 ]; then
    not_ok doc_links_resolve "the check failed: $(tail -3 "$TMPD/err" | tr '\n' ' ')"
elif [ -s "$TMPD/out" ]; then
    not_ok doc_links_resolve "$(wc -l < "$TMPD/out") broken links"
    sed 's/^/  /' "$TMPD/out"
else
    ok doc_links_resolve
    sed 's/^/  /' "$TMPD/err"
fi
