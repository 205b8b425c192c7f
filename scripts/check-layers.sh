#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Each layer of src/ includes headers only of itself and the layers below it:
#   base < store < fleet < query < output < top,   base < store < fleet < record,
#   cmd over all.
# Only the record layer may include the BPF skeleton.
cd "$(dirname "$0")/.." || exit 1
allowed() {
	case $1 in
	base) echo "base" ;;
	store) echo "base store" ;;
	query) echo "base store fleet query" ;;
	output) echo "base store fleet query output" ;;
	top) echo "base store fleet query output top" ;;
	record) echo "base store fleet record" ;;
	fleet) echo "base store fleet" ;;
	cmd) echo "base store query output top record fleet cmd" ;;
	esac
}
bad=0
# headers are included by name: one name, one header
dups=$(find src -name '*.h' -printf '%f\n' | sort | uniq -d)
[ -z "$dups" ] || { echo "headers of the same name in two places: $dups" >&2; bad=1; }
# a unit test belongs to the layer of its folder
for f in $(find src -name '*.[ch]'; find tests/unit -mindepth 2 -name '*.c' | sort); do
	case $f in
	tests/*) layer=$(echo "$f" | cut -d/ -f3) ;;
	*) layer=$(echo "$f" | cut -d/ -f2) ;;
	esac
	ok=$(allowed "$layer")
	[ -n "$ok" ] || { echo "$f: in no layer (src/LAYER/...)" >&2; bad=1; continue; }
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $h in
		tract/*|syscall_names.h) continue ;;
		# the tests' own fixtures, which include only the store's headers
		../*) continue ;;
		tract.skel.h) [ "$layer" = record ] && continue
			echo "$f: includes the BPF skeleton outside the record layer" >&2; bad=1; continue ;;
		esac
		where=$(find src -name "$h" | head -n 1 | cut -d/ -f2)
		if [ -z "$where" ]; then
			echo "$f: includes \"$h\", which is in no layer" >&2; bad=1
		elif ! echo " $ok " | grep -q " $where "; then
			echo "$f: layer $layer includes \"$h\" of layer $where" >&2; bad=1
		fi
	done
done
# within a layer, no two modules need each other: a.c including b.h and
# b.c including a.h are one module in two files, or want a third below both
includes() { sed -n 's/^#include "\([^"]*\)".*/\1/p' "$1"; }
for a in $(find src -name '*.c' | sort); do
	for h in $(includes "$a"); do
		b=$(find src -name "${h%.h}.c" | head -n 1)
		[ -n "$b" ] && [ "$b" != "$a" ] || continue
		if includes "$b" | grep -qx "$(basename "${a%.c}").h" && [ "$a" \< "$b" ]; then
			echo "$a and $b include each other's headers" >&2; bad=1
		fi
	done
done
[ "$bad" -eq 0 ] && echo "  LAYERS   every include is of its own layer or one below it; no two modules include each other"
exit "$bad"
