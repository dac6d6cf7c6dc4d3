#!/bin/sh
# make install / make uninstall into a DESTDIR: the exact file list, the
# installed binary runs, the man page renders with every subcommand, the
# bash completion loads, the systemd unit runs the installed path; uninstall
# leaves nothing.
. tests/lib.sh
T=install
[ -x ./perfreport ] && [ -f build/perfreport.1 ] || { skip $T "normal build (./perfreport, build/perfreport.1) not made"; exit 0; }
D=$TMPD/root
# the normal build's variables, whatever this suite's environment says
if ! env -u BUILD -u SAN make -s install SAN=0 BUILD=build DESTDIR="$D" PREFIX=/usr >"$TMPD/make.log" 2>&1; then
    not_ok install_files "make install failed: $(tail -3 "$TMPD/make.log")"
    exit 0
fi
got=$(cd "$D" && find . -type f | sort | tr '\n' ' ')
want="./usr/bin/perfreport ./usr/lib/systemd/system/perfreport.service ./usr/lib/systemd/system/perfreport.timer ./usr/share/bash-completion/completions/perfreport ./usr/share/doc/perfreport/README.md ./usr/share/doc/perfreport/thresholds.example ./usr/share/man/man1/perfreport.1 "
[ "$got" = "$want" ] && ok install_files || not_ok install_files "installed: $got"
v=$("$D/usr/bin/perfreport" --version 2>&1)
case "$v" in *perfreport*[0-9]*) ok install_binary_runs ;; *) not_ok install_binary_runs "$v" ;; esac
if command -v man >/dev/null 2>&1; then
    page=$(MANWIDTH=100 man -l "$D/usr/share/man/man1/perfreport.1" 2>"$TMPD/man.err")
    miss=""
    for w in NAME SYNOPSIS "perfreport flamegraph" "perfreport collapse" "perfreport render" "--thresholds" "--oneline" "EXIT STATUS"; do
        case "$page" in *"$w"*) ;; *) miss="$miss '$w'" ;; esac
    done
    if [ -z "$miss" ] && [ ! -s "$TMPD/man.err" ]; then ok install_man_page
    else not_ok install_man_page "missing:$miss; $(head -2 "$TMPD/man.err")"; fi
else
    skip install_man_page "man not installed"
fi
comp=$(bash -c ". '$D/usr/share/bash-completion/completions/perfreport' && complete -p perfreport" 2>&1)
case "$comp" in *"_perfreport perfreport"*) ok install_completion_loads ;; *) not_ok install_completion_loads "$comp" ;; esac
grep -q '^ExecStart=/usr/bin/perfreport ' "$D/usr/lib/systemd/system/perfreport.service" \
    && ok install_unit_uses_installed_path \
    || not_ok install_unit_uses_installed_path "$(grep ExecStart "$D/usr/lib/systemd/system/perfreport.service")"
env -u BUILD -u SAN make -s uninstall SAN=0 BUILD=build DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
left=$(find "$D" -type f | wc -l)
[ "$left" = 0 ] && ok install_uninstall_removes_all || not_ok install_uninstall_removes_all "$left files left: $(find "$D" -type f | head -3)"
