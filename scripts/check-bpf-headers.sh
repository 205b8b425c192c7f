#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Each header of the BPF side stands on its own: it compiles as the only
# include of a file, so it includes what it uses, and it has an include
# guard, so a second include adds nothing.  tract.bpf.c includes them all
# at its top, in any order that defines programs as they are to attach.
cd "$(dirname "$0")/.." || exit 1
CLANG=${CLANG:-clang}
ARCH=${ARCH:-$(uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')}
command -v "$CLANG" > /dev/null 2>&1 || { echo "  BPFHDRS  skipped: no $CLANG"; exit 0; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for h in bpf/*.bpf.h; do
	n=$(basename "$h" .h)
	printf '#include "%s"\n#include "%s"\n' "${h#bpf/}" "${h#bpf/}" > "$tmp/$n.c"
done
# two at a time: vmlinux.h makes each compile a second of work
ls "$tmp"/*.c | xargs -P 2 -I{} sh -c \
	'"$0" -g -O2 -target bpf -D__TARGET_ARCH_$1 -Ibpf -Iinclude -Wall -Wno-unused-function -Werror \
	 -fsyntax-only "{}" 2> "{}.err" || { echo "$(basename "{}" .c).h does not compile on its own:"; head -n 5 "{}.err"; exit 1; }' \
	"$CLANG" "$ARCH" >&2 || exit 1
echo "  BPFHDRS  every bpf/*.bpf.h compiles on its own, and twice"
