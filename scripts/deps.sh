#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages tract builds, tests and benchmarks with.
# Quiet and quick when everything is already there.  --test adds what only
# the tests and the bench need.
set -eu
pkgs="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev libdw-dev libzstd-dev liblzma-dev libbz2-dev zlib1g-dev
      linux-libc-dev libsqlite3-dev libncurses-dev tmux sqlite3 libcmocka-dev perl procps
      libbpf-tools util-linux debhelper dpkg-dev graphviz libcurl4-openssl-dev libiberty-dev"
# what only the tests and the bench need: qemu for the older kernels, a
# browser and node for the pictures, a ClickHouse server, perf to compare,
# Java for JIT frames, Go for Go's
if [ "${1:-}" = --test ]; then
	pkgs="$pkgs qemu-system-x86 linux-perf libxml2-utils groff-base chromium clickhouse-server curl openssl
	      openjdk-17-jdk-headless golang-go"
	# node and npm: Debian's, unless the machine has its own already
	command -v node > /dev/null 2>&1 || pkgs="$pkgs nodejs"
	command -v npm > /dev/null 2>&1 || pkgs="$pkgs npm"
fi
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "tract: missing Debian packages:$missing; run 'sudo make deps'" >&2
	exit 2
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
