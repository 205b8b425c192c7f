#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Without -o, record prints each pass as an aligned table; --all shows idle threads.
. "$(dirname "$0")/lib.sh"
need_root_bpf

start_workload --only spin,idle,client --pool 3 || exit 1
"$TRACT" record -F 4 -d 1.2 -p "$WL_PID" > "$WORK/out.txt" 2> "$WORK/err.txt"
ok "record to the terminal exits 0" test $? -eq 0
ok "each pass has a header line" test "$(grep -c 'UTC  pass [0-9]*: [0-9]* active of' "$WORK/out.txt")" -ge 4
ok "column titles are printed" grep -q 'TID PROCESS .*THREAD .*STATE .*SYSCALL' "$WORK/out.txt"
ok "the spin thread is listed as RUN or RUNQ" grep -Eq ' spin +RUNQ? ' "$WORK/out.txt"
ok "the client is listed in recvfrom with its wait location and socket" \
	grep -Eq ' client +SLEEP .* recvfrom .* [a-z_]+  tcp 127\.0\.0\.1:[0-9]+->127\.0\.0\.1:[0-9]+ ESTABLISHED$' "$WORK/out.txt"
test_expect_success 'idle pool threads are not listed by default' '
	test_grep ! " idle[0-9]" "$WORK/out.txt"
'
"$TRACT" record -F 4 -d 0.6 --all -p "$WL_PID" > "$WORK/all.txt" 2>&1
ok "--all lists the idle pool" test "$(grep -c ' idle[0-9] ' "$WORK/all.txt")" -ge 3
. "$(dirname "$0")/../lib/truth.sh"
"$TRACT" record -F 100 -d 1 --no-kstacks --no-ustacks -p "$WL_PID" -o "$WORK/fast" 2> "$WORK/fast.err" &
rec=$!
bg_started $rec
# the sampler's accounting from its first stored pass to its end
window_follow $rec "$WORK/fast" "$WORK/fast.win"
wait $rec
fastdb=$(one_store "$WORK/fast")
# passes, distinct moments; covered, short, tail (slot_account); skipped, allowed (skipped_account)
fast="$(q "$fastdb" "select count(*) || ' ' || count(distinct ts_us) from passes") $(slot_account "$fastdb" 10000 1000000) $(skipped_account "$fastdb" "$WORK/fast.win" $rec)"
# Every 10 ms slot of the 1 s is a stored pass (each at its own moment) or
# time the next pass counts as unsampled, but for a tail after the last pass
# as long as its lateness and duration; and the slots skipped are no more
# than the sampler's lateness explains: its passes' durations and its time on
# a CPU and on a run queue over the window, as the kernel counted them.
test_expect_success "100 Hz: a pass for each 10 ms slot of the 1 s that the sampler was on time for (passes, distinct; covered, short, tail; skipped, allowed: $fast)" '
	set -- $fast &&
	test_holds "$1" -ge 1 &&
	test_holds "$1" -eq "$2" &&
	test_holds "$4" -ge 0 &&
	test_holds "$4" -le "$5" &&
	test_holds "$6" -le "$7"
'
ok "--no-kstacks --no-ustacks stores no stacks, not even the profile's" test "$(q "$(one_store "$WORK/fast")" "select count(*) from stacks")" -eq 0

# syscall latency, by default: per-process histograms, kept in the kernel and emptied every pass
# a reply takes 2 s; a whole request must start and end inside the window
"$TRACT" record -F 10 -d 4.5 -p "$WL_PID" -o "$WORK/lat" 2> "$WORK/lat.err"
lat=$(one_store "$WORK/lat")
ok "record keeps the client's recvfrom completions" \
	test "$(q "$lat" "select count(*) from syscall_latency where tgid=$WL_PID and syscall='recvfrom'")" -gt 0
ok "its slow replies land in the 1-2 s or 2-4 s buckets" \
	test "$(q "$lat" "select count(*) from syscall_latency where tgid=$WL_PID and syscall='recvfrom' and le_us >= 1048576")" -gt 0
# what this recorder holds once attached: every program it loaded (another
# recorder on the host, with syscall latency on, does not count)
"$TRACT" record --no-syscall-latency -p "$WL_PID" > /dev/null 2>&1 &
rec=$!
bg_started $rec
wait_attached $rec
test_expect_success 'no sys_exit program is loaded with --no-syscall-latency' '
	test_grep " tract_sys_enter\$" "$WORK/bpf.$rec" &&
	test_grep ! " tract_sys_exit\$" "$WORK/bpf.$rec"
'
kill -TERM $rec
wait $rec
stop_workload
done_testing
