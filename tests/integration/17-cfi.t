#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Whole user stacks by CFI, in the workload built with frame pointers and in
# the same workload built as distributions build code (-O2
# -fomit-frame-pointer): on CPU in a named chain, on CPU inside libc's qsort
# calling back, blocked 48 calls deep; a stack deeper than the copy is
# marked cut; tract query's answer by stack; a stripped copy's frames by
# module and address, and a copy without CFI cut; and the on-CPU answers
# held to perf's DWARF unwinding of the same threads in the same seconds.
. "$(dirname "$0")/lib.sh"
need_root_bpf

NOFP=${WORKLOAD_NOFP:-$(dirname "$WORKLOAD")/workload-nofp}
[ -x "$NOFP" ] || { echo "# no $NOFP: build it with make" >&2; exit 1; }

# ticks of thread COMM in the profile, all of them or those whose user stack matches a LIKE pattern
prof="profile p join threads t on t.id = p.thread left join stacks s on s.id = p.ustack"
ticks() { q "$1" "select coalesce(sum(ticks), 0) from $prof where t.comm = '$2' ${3:+and s.frames like '$3'}"; }
# RUN samples of COMM, all with a user stack or those whose stack matches
runs() { q "$1" "select count(*) from samples x join stacks s on s.id = x.ustack_id
	where x.comm = '$2' and x.state = 'RUN' ${3:+and s.frames like '$3'}"; }
# a / b >= share, with a message saying the figures
share_at_least() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { exit !(b > 0 && a / b >= s) }'; }

# the loop inlined into workload_chain_inner is a frame of its own, named by the debug info
chain='%start_thread;chain_thread;workload_chain_outer;workload_chain_middle;workload_chain_inner;workload_chain_spin'
sorted='%start_thread;sort_thread;workload_sort_once;qsort%;workload_compare'
deep48="start_thread;deep_thread$(printf ';workload_deep%.0s' $(seq 48));read"
# a C++ template method (its name holds spaces) calling a Rust v0 function, as their languages write them
mangled='%;mangled_thread;workload::holder<std::pair<int, int> >::spin;workload::rust::inner'

for build in fp nofp; do
	if [ $build = fp ]; then WL=$WORKLOAD; else WL=$NOFP; fi
	WORKLOAD=$WL start_workload --only chain,sort,deep,mangled || exit 1
	"$TRACT" record -F 10 -d 3 -p "$WL_PID" -o "$WORK/$build" 2> "$WORK/$build.err"
	stop_workload
	db=$(one_store "$WORK/$build")

	all=$(ticks "$db" chain) whole=$(ticks "$db" chain "$chain")
	ok "$build: on-CPU ticks of the chain name it outermost to innermost, the inlined loop too ($whole of $all)" \
		share_at_least "$whole" "$all" 0.9
	# a RUN sample has a user stack only where the thread's registers were
	# saved as the pass read it (preempted in user mode); on a busy machine
	# a spinner may be caught so in none of 30 passes: nothing to name then
	all=$(runs "$db" chain) whole=$(runs "$db" chain "$chain")
	if [ "$all" -gt 0 ]; then
		ok "$build: and so do its RUN samples ($whole of $all)" share_at_least "$whole" "$all" 0.9
	else
		skip "$build: and so do its RUN samples" "no RUN sample of the chain had a user stack"
	fi
	all=$(ticks "$db" mangled) whole=$(ticks "$db" mangled "$mangled")
	ok "$build: C++ and Rust frames read as their languages write them ($whole of $all ticks)" \
		share_at_least "$whole" "$all" 0.9
	all=$(runs "$db" mangled) whole=$(runs "$db" mangled "$mangled")
	if [ "$all" -gt 0 ]; then
		ok "$build: and so do the RUN samples ($whole of $all)" share_at_least "$whole" "$all" 0.9
	else
		skip "$build: and so do the RUN samples" "no RUN sample of the mangled thread had a user stack"
	fi
	cmp=$(ticks "$db" sort '%;workload_compare') under=$(ticks "$db" sort "$sorted")
	ok "$build: the qsort comparator on CPU is under qsort under its caller ($under of $cmp)" \
		share_at_least "$under" "$cmp" 0.9
	n=$(q "$db" "select count(*) from samples x join stacks s on s.id = x.ustack_id
		where x.comm = 'deep' and s.frames like '%$deep48'")
	all=$(q "$db" "select count(*) from samples where comm = 'deep'")
	ok "$build: blocked 48 calls deep, the whole recursion and the read it waits in ($n of $all samples)" \
		share_at_least "$n" "$all" 0.9
	ok "$build: and not cut" test "$(q "$db" "select count(*) from samples x join stacks s on s.id = x.ustack_id
		where x.comm = 'deep' and s.frames like '[cut]%'")" -eq 0
done

# What tract query answers by thread and user stack, outermost frame first:
# of COMM's samples whose stack matches the ERE PART, "n of those matching WHOLE too"
"$TRACT" query -D "$WORK/nofp" --from -1h -g comm,ustack --format csv > "$WORK/nofp.csv"
query_share() {
	awk -F, -v c="$1" -v part="$2" -v whole="$3" '{ sub(/\r$/, "") }
		NR == 1 { if ($0 != "comm,ustack,avg_threads,share,samples") { print "columns: " $0; exit 1 } next }
		$1 == c { s = $2; for (i = 3; i <= NF - 3; i++) s = s "," $i
			if (s ~ part) { p += $NF; if (s ~ whole) w += $NF } }
		END { printf "%d of %d", w, p }' "$WORK/nofp.csv"
}
# "n of all" is at least 0.9 of all, and all more than none
# shellcheck disable=SC2086
most_of() { set -- $1; share_at_least "$1" "$3" 0.9; }
got=$(query_share chain . '(^|;)start_thread;chain_thread;workload_chain_outer;workload_chain_middle;workload_chain_inner;workload_chain_spin$')
ok "nofp: tract query -g comm,ustack shows the spinning chain outermost to innermost ($got samples)" most_of "$got"
got=$(query_share sort ';workload_compare$' '(^|;)start_thread;sort_thread;workload_sort_once;qsort[^;]*;(.*;)?workload_compare$')
ok "nofp: and the qsort comparator under qsort under its caller ($got)" most_of "$got"
got=$(query_share deep '' "(^|;)${deep48}\$")
ok "nofp: and the whole recursion, 48 calls, down to the read it waits in ($got)" most_of "$got"

# 48 frames of 1 KiB each: deeper than the 16 KiB copy
WORKLOAD=$NOFP start_workload --only deep --frame-bytes 1024 || exit 1
"$TRACT" record -F 10 -d 1 -p "$WL_PID" -o "$WORK/big" 2> /dev/null
stop_workload
stack=$(q "$(one_store "$WORK/big")" "select s.frames from samples x join stacks s on s.id = x.ustack_id
	where x.comm = 'deep' limit 1")
test_expect_success 'a stack deeper than the copy is marked cut' '
	case $stack in
	"[cut];workload_deep;"*";workload_deep;read") ;;
	*) echo "the stack: $stack"; false ;;
	esac
'

# --unwind fp: the frame-pointer walk, which loses the callers in code without frame pointers
WORKLOAD=$NOFP start_workload --only chain || exit 1
"$TRACT" record -F 10 -d 1 --unwind fp -p "$WL_PID" -o "$WORK/fp-walk" 2> /dev/null
stop_workload
db=$(one_store "$WORK/fp-walk")
all=$(ticks "$db" chain) leaf=$(ticks "$db" chain '%workload_chain_inner;workload_chain_spin') whole=$(ticks "$db" chain "$chain")
ok "--unwind fp walks frame pointers: the chain's ticks are there, its innermost frames named ($leaf of $all)" \
	share_at_least "$leaf" "$all" 0.9
ok "but without frame pointers the chain does not come out ($whole of $all)" test "$all" -gt 0 -a "$whole" -eq 0
test_expect_success '--unwind takes only cfi or fp' '
	test_expect_code 2 "$TRACT" record --unwind dwarf -d 1
'

# Copies of the build without frame pointers with no symbols (as distributions
# ship code whose debug files are not installed), and with no CFI either:
# the first's stacks stay whole, each frame of it module+0xADDRESS, where
# ADDRESS is the ELF address, in the function the unstripped build names;
# the second's stop where the tables do, and say so.
test_lazy_prereq BINUTILS 'command -v objcopy && command -v nm'
if test_have_prereq BINUTILS; then
	objcopy --strip-all "$NOFP" "$DISK_DIR/workload-stripped"
	objcopy --strip-all --remove-section=.eh_frame --remove-section=.eh_frame_hdr "$NOFP" "$DISK_DIR/workload-nocfi"
	for copy in workload-stripped workload-nocfi; do
		WORKLOAD=$DISK_DIR/$copy start_workload --only chain || exit 1
		"$TRACT" record -F 10 -d 1 -p "$WL_PID" -o "$WORK/$copy" 2> /dev/null
		stop_workload
		"$TRACT" query -D "$WORK/$copy" --from -1h -g ustack -w 'comm = "chain"' --format csv > "$WORK/$copy.csv"
	done
	# the chain's stacks in COPY, its frames named by the unstripped build as
	# =NAME: "n of all" that match the ERE WANT
	module_share() {
		nm -S -t d --defined-only "$NOFP" | awk -F, -v mod="$1+0x" -v want="$2" '
			function hex(s,   v, i) {
				for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v
			}
			function named(a,   i) { for (i = 1; i <= n; i++) if (a >= lo[i] && a < hi[i]) return name[i]; return "?" }
			NR == FNR { split($0, w, " ")
				if (w[4] != "" && w[3] ~ /^[tT]$/) { n++; lo[n] = w[1] + 0; hi[n] = w[1] + w[2]; name[n] = w[4] }
				next }
			{ sub(/\r$/, "") }
			FNR == 1 || $1 == "" { next }
			{ all += $NF; k = split($1, f, ";"); s = ""
			  for (j = 1; j <= k; j++) {
				# a return address: its call ends the byte before; the innermost is the PC itself
				if (index(f[j], mod) == 1)
					f[j] = "=" named(hex(substr(f[j], length(mod) + 1)) - (j < k))
				s = s (j > 1 ? ";" : "") f[j]
			  }
			  if (s ~ want) got += $NF }
			END { printf "%d of %d", got, all }' - "$WORK/$1.csv"
	}
	got_stripped=$(module_share workload-stripped '(^|;)start_thread;=chain_thread;=workload_chain_outer;=workload_chain_middle;=workload_chain_inner$')
	got_nocfi=$(module_share workload-nocfi '^[[]cut[]];(.*;)?=workload_chain_inner$')
fi
test_expect_success BINUTILS "a stripped build's frames read module+0xaddress, the chain whole and in order ($got_stripped samples)" '
	most_of "$got_stripped"
'
test_expect_success BINUTILS "without its CFI the stack is cut: [cut], then down to the chain's innermost frame ($got_nocfi)" '
	most_of "$got_nocfi"
'

# The same seconds through perf's DWARF unwinder (elfutils over 8 KiB copies)
test_lazy_prereq PERF 'command -v perf'
if test_have_prereq PERF; then
	WORKLOAD=$NOFP start_workload --only chain,sort || exit 1
	perf record -q -F 49 --call-graph dwarf -p "$WL_PID" -o "$WORK/perf.data" -- sleep 3 2> /dev/null &
	perf_pid=$!
	"$TRACT" record -F 10 -d 3 -p "$WL_PID" -o "$WORK/peer" 2> /dev/null
	wait $perf_pid
	stop_workload
	# perf's samples folded outermost first, "comm|frame;frame;...", inlined frames as frames
	perf script -i "$WORK/perf.data" -F comm,ip,sym 2> /dev/null | awk 'BEGIN { RS = ""; FS = "\n" }
		{ c = $1; gsub(/[ \t]+/, "", c); s = ""
		  for (i = NF; i >= 2; i--) { f = $i; sub(/^[ \t]*[0-9a-f]+ /, "", f); sub(/ \(inlined\)$/, "", f)
			s = s (s == "" ? "" : ";") f }
		  print c "|" s }' > "$WORK/perf.folded"
	perf_share() { awk -F'|' -v c="$1" -v leaf="$2" -v path="$3" '$1 == c { n++; if ($2 ~ leaf "$") { l++; if ($2 ~ path) p++ } }
		END { if (path == "") printf "%.3f", n ? l / n : 0; else printf "%.3f", l ? p / l : 0 }' "$WORK/perf.folded"; }
	db=$(one_store "$WORK/peer")
	tract_leaf=$(awk -v a="$(ticks "$db" sort '%;workload_compare')" -v b="$(ticks "$db" sort)" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
	perf_leaf=$(perf_share sort ';workload_compare' '')
	perf_under=$(perf_share sort ';workload_compare' 'sort_thread;workload_sort_once;.*qsort')
	tract_under=$(awk -v a="$(ticks "$db" sort "$sorted")" -v b="$(ticks "$db" sort '%;workload_compare')" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
	perf_chain=$(perf_share chain ';workload_chain_spin' 'chain_thread;workload_chain_outer;workload_chain_middle;workload_chain_inner;workload_chain_spin')
	tract_chain=$(awk -v a="$(ticks "$db" chain "$chain")" -v b="$(ticks "$db" chain '%;workload_chain_spin')" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
	tract_inner=$(awk -v a="$(ticks "$db" chain '%;workload_chain_inner;workload_chain_spin')" -v b="$(ticks "$db" chain)" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
	perf_inner=$(perf_share chain ';workload_chain_inner;workload_chain_spin' '')
fi
# two estimates of a share from some 150 ticks each: 0.15 is three standard deviations of their difference
within_015='BEGIN { d = a - b; if (b > 0 && d <= 0.15 && d >= -0.15) exit 0; printf "%.3f apart\n", d; exit 1 }'
both_090='BEGIN { exit !(a >= 0.9 && b >= 0.9) }'
test_expect_success PERF "the comparator's share of the sorting thread's CPU: tract $tract_leaf, perf $perf_leaf (within 0.15)" '
	awk -v a="$tract_leaf" -v b="$perf_leaf" "$within_015"
'
test_expect_success PERF "the comparator's callers through qsort: tract $tract_under, perf $perf_under (both >= 0.9)" '
	awk -v a="$tract_under" -v b="$perf_under" "$both_090"
'
test_expect_success PERF "the chain whole: tract $tract_chain, perf $perf_chain (both >= 0.9)" '
	awk -v a="$tract_chain" -v b="$perf_chain" "$both_090"
'
test_expect_success PERF "the chain's inlined loop's share: tract $tract_inner, perf $perf_inner (within 0.15)" '
	awk -v a="$tract_inner" -v b="$perf_inner" "$within_015"
'
done_testing
