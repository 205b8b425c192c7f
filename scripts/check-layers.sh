#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Each layer of src/ includes headers only of itself and the layers below it:
#   base < store < fleet < query < output < top,   base < store < fleet < record,
#   cmd over all.
# Only the record layer may include the BPF skeleton, and no two modules
# (a .c and its .h) include each other's headers.
# One pass of awk over every include: a find per include took seconds.
cd "$(dirname "$0")/.." || exit 1
bad=0
dups=$(find src -name '*.h' -printf '%f\n' | sort | uniq -d)
[ -z "$dups" ] || { echo "headers of the same name in two places: $dups" >&2; bad=1; }
# every source and header, and the unit tests, with their includes
files=$(find src -name '*.[ch]' | sort; find tests/unit -mindepth 2 -name '*.c' | sort)
# shellcheck disable=SC2086
{
	# the files an include may name (headers, .def tables) and the
	# modules: "H name path", "C name path"
	find src -type f -printf 'H %f %p\n' | sort
	find src -name '*.c' -printf 'C %f %p\n' | sort
	# then each file (a line of its own, also with no include) and its includes
	for f in $files; do echo "F $f"; done
	grep -H '^#include "' $files | sed 's/^\([^:]*\):#include "\([^"]*\)".*/I \1 \2/'
} | awk -v q="'" '
function layer_of(path, p) {
	split(path, p, "/")
	return p[1] == "tests" ? p[3] : p[2]
}
function base_name(path, n, p) { n = split(path, p, "/"); return p[n] }
BEGIN {
	allowed["base"] = " base "
	allowed["store"] = " base store "
	allowed["query"] = " base store fleet query "
	allowed["output"] = " base store fleet query output "
	allowed["top"] = " base store fleet query output top "
	allowed["record"] = " base store fleet record "
	allowed["fleet"] = " base store fleet "
	allowed["cmd"] = " base store query output top record fleet cmd "
	bad = 0
}
# the first header of a name is the one an include finds
$1 == "H" { if (!($2 in header)) header[$2] = layer_of($3); next }
$1 == "C" { if (!($2 in module)) module[$2] = $3; next }
$1 == "F" {
	if (!(layer_of($2) in allowed)) { print $2 ": in no layer (src/LAYER/...)" > "/dev/stderr"; bad = 1; nolayer[$2] = 1 }
	next
}
$1 == "I" {
	f = $2; h = $3; layer = layer_of(f)
	if (f ~ /^src\// && f ~ /\.c$/) incs[f] = incs[f] " " h " "
	if (f in nolayer || h ~ /^tract\// || h == "syscall_names.h" || h ~ /^\.\.\//) next
	if (h == "tract.skel.h") {
		if (layer != "record") { print f ": includes the BPF skeleton outside the record layer" > "/dev/stderr"; bad = 1 }
		next
	}
	if (!(h in header)) { print f ": includes \"" h "\", which is in no layer" > "/dev/stderr"; bad = 1 }
	else if (index(allowed[layer], " " header[h] " ") == 0) {
		print f ": layer " layer " includes \"" h "\" of layer " header[h] > "/dev/stderr"; bad = 1
	}
}
END {
	# a.c includes b.h and b.c includes a.h
	for (a in incs) {
		n = split(incs[a], hs, " ")
		for (i = 1; i <= n; i++) {
			c = hs[i]; sub(/\.h$/, ".c", c)
			if (!(c in module)) continue
			b = module[c]
			if (b == a || !(a < b)) continue
			ah = base_name(a); sub(/\.c$/, ".h", ah)
			if (index(incs[b], " " ah " ")) { print a " and " b " include each other" q "s headers" > "/dev/stderr"; bad = 1 }
		}
	}
	exit bad
}' || bad=1
[ "$bad" -eq 0 ] && echo "  LAYERS   every include is of its own layer or one below it; no two modules include each other"
exit "$bad"
