#!/bin/sh
# Installs the Debian packages perfreport needs to build and test, and does
# nothing when they are all present.  Run as root (apt-get).
# python3-prometheus-client parses the --metrics file in tests/e2e/exports.sh
# and golang-go reads the pprof files back (go tool pprof, ~460 MB installed).
# prometheus (promtool) and prometheus-node-exporter are services that would
# start and stay enabled on a developer's machine: the checks that use them
# skip, saying so, when they are missing.
set -eu
PKGS="make gcc clang llvm libbpf-dev bpftool libelf-dev libdw-dev libcmark-dev zlib1g-dev \
pkg-config linux-libc-dev libxml2-utils chromium iproute2 nftables procps util-linux \
strace linux-perf valgrind libclang-rt-dev libiberty-dev libarchive-dev g++ python3-prometheus-client \
ansible-core python3-yaml debhelper lintian golang-go"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
# The browser tests need node and npm; some images ship them outside dpkg
# (with npm inside their nodejs), so look for the commands, not packages.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: need root to install:$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
