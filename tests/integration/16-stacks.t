#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# User stacks whole up to 127 frames, in order, and a stack cut at the bound says so.
. "$(dirname "$0")/lib.sh"
need_root_bpf

# the deep thread's longest user stack, and its frame count
deepest() { q "$1" "select k.frames from samples s join stacks k on k.id = s.ustack_id where s.comm = 'deep'
	order by length(k.frames) desc limit 1"; }

start_workload --only deep --depth 48 || exit 1
"$TRACT" record -F 10 -d 1 -p "$WL_PID" -o "$WORK/d48" 2> /dev/null
stop_workload
stack=$(deepest "$(one_store "$WORK/d48")")
n=$(printf '%s' "$stack" | tr ';' '\n' | grep -c '^workload_deep$')
# by CFI, through libc's read(), which keeps no frame pointer (a frame-pointer walk loses its caller)
ok "a thread 48 calls deep shows them all ($n of 48)" test "$n" -eq 48
test_expect_success "in order, from the thread's start to the read it waits in, and not cut" '
	case $stack in "[cut]"*) echo "cut: $stack"; false ;; esac &&
	printf "%s\n" "$stack" > "$WORK/stack" &&
	test_grep "start_thread;deep_thread;workload_deep;.*;workload_deep;read" "$WORK/stack"
'

start_workload --only deep --depth 200 || exit 1
# -v: it lists its programs' functions as it names them in kernel stacks,
# which /proc/kallsyms must list the same while they are loaded
"$TRACT" record -v -F 10 -d 1 -p "$WL_PID" -o "$WORK/d200" 2> "$WORK/d200.err" &
rec=$!
wait_until 20 grep -q "BPF functions in the kernel's symbols" "$WORK/d200.err"
grep '\[bpf\]$' /proc/kallsyms > "$WORK/kallsyms"
wait $rec
stop_workload
sed -n "s/.*BPF functions in the kernel's symbols: //p" "$WORK/d200.err" | tr ' ' '\n' | sort > "$WORK/named"
awk '{ sub(/^0+/, "", $1); print $3 "@" $1 }' "$WORK/kallsyms" | sort > "$WORK/listed"
test_expect_success "tract's BPF functions, named in kernel stacks as /proc/kallsyms lists them, at the same addresses ($(wc -l < "$WORK/named"))" '
	test_grep "_tract_sample_pass@" "$WORK/named" &&
	test_grep "_otel_of_thread@" "$WORK/named" &&
	comm -23 "$WORK/named" "$WORK/listed" > "$WORK/unlisted" &&
	test_must_be_empty "$WORK/unlisted"
'

stack=$(deepest "$(one_store "$WORK/d200")")
n=$(printf '%s\n' "$stack" | awk -F';' '{ print NF }')
ok "a deeper one is walked to 127 frames ($n with the mark)" test "$n" -eq 128
test_expect_success 'and says it was cut' '
	case $stack in
	"[cut];"*) ;;
	*) echo "not marked cut: $stack"; false ;;
	esac
'
done_testing
