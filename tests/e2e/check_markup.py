#!/usr/bin/env python3
"""Whether any planted markup (plant_markup.py's PAYLOAD) became markup in
the outputs of a subcommand.

usage: check_markup.py DIR [TERMINAL_OUTPUT_FILE...]
Every file in DIR is checked by its kind:
  .html .svg     no tag, attribute or comment of the payload stands raw;
  .md            rendered by cmark (libcmark, raw HTML allowed, as the most
                 permissive renderer a ticket system may use): no tag, no
                 emphasis, no link, image or heading of the payload;
  .json          parses, and holds no raw '<' (escaped for <script> blocks);
  file names     only [A-Za-z0-9._-];
  every file (but .gz) and the terminal outputs: no ESC byte.
Prints one line per problem ("FILE: what") and exits 1 if there is any.
"""
import ctypes
import json
import os
import re
import sys

RAW = ["<xss1", "<script>alert", "<svg onload", "onmouseover=\"alert", "<!-- c -->",
       "<https://x.example"]
MD_HTML = ["<xss1", "<script>alert", "<svg onload", "<em>em</em>", "<em>un</em>",
           "href=\"javascript:", "<img", "<h1>hd", "href=\"https://x.example", "<!-- c -->",
           "<code>cd</code>"]

_cmark = None


def md_to_html(text):
    global _cmark
    if _cmark is None:
        lib = ctypes.CDLL("libcmark.so.0.30.2")
        _cmark = lib.cmark_markdown_to_html
        _cmark.restype = ctypes.c_char_p
        _cmark.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    CMARK_OPT_UNSAFE = 1 << 17
    return _cmark(text, len(text), CMARK_OPT_UNSAFE).decode("utf-8", "replace")


def main():
    top = sys.argv[1]
    bad = []
    names = 0
    for root, _, files in os.walk(top):
        for f in files:
            p = os.path.join(root, f)
            rel = os.path.relpath(p, top)
            names += 1
            if not re.fullmatch(r"[A-Za-z0-9._-]+", f):
                bad.append(f"{rel}: file name {f!r}")
            if f.endswith(".gz"):
                continue  # compressed: any byte may stand in it
            data = open(p, "rb").read()
            if b"\x1b" in data:
                bad.append(f"{rel}: an ESC byte")
            text = data.decode("utf-8", "replace")
            if f.endswith((".html", ".svg")):
                for r in RAW:
                    if r in text:
                        i = text.index(r)
                        bad.append(f"{rel}: raw {r!r} in ...{text[max(0, i - 80):i + 40]!r}")
            elif f.endswith(".md"):
                html = md_to_html(data)
                for r in MD_HTML:
                    if r in html:
                        i = html.index(r)
                        bad.append(f"{rel}: Markdown made {r!r}: ...{html[max(0, i - 80):i + 40]!r}")
            elif f.endswith(".json"):
                try:
                    json.loads(text)
                except ValueError as e:
                    bad.append(f"{rel}: not JSON: {e}")
                if "<" in text:
                    i = text.index("<")
                    bad.append(f"{rel}: raw '<' in ...{text[max(0, i - 60):i + 20]!r}")
    for t in sys.argv[2:]:
        if b"\x1b" in open(t, "rb").read():
            bad.append(f"{os.path.basename(t)}: an ESC byte on the terminal")
    if names == 0:
        bad.append(f"{top}: no file to check")
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
