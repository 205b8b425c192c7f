#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Signals end the recorder cleanly; a crash leaves a readable store; nothing
# of tract stays loaded in the kernel either way.
. "$(dirname "$0")/lib.sh"
need_root_bpf
plan 9

start_workload --only spin,futex,pingpong || exit 1

# wait_attached PID: until the recorder's sampler is loaded
wait_attached() {
	for _ in $(seq 100); do
		bpftool prog show 2>/dev/null | grep -q 'name tract_sample_pass' && return 0
		sleep 0.05
	done
	return 1
}

for sig in INT TERM; do
	"$TRACT" record -F 20 -p "$WL_PID" -o "$WORK/$sig" 2> "$WORK/$sig.err" &
	rec=$!
	wait_attached
	sleep 1
	kill -"$sig" "$rec"
	wait "$rec"
	ok "SIG$sig ends the recorder with status 0" test $? -eq 0
	ok "no tract BPF program is left after SIG$sig" no_tract_programs
	db=$(one_store "$WORK/$sig")
	ok "every pass stored before SIG$sig is whole" test "$(q "$db" \
		"select count(*) from passes p where emitted != (select count(*) from sample_facts f where f.pass = p.id)")" -eq 0
done

"$TRACT" record -F 50 -p "$WL_PID" -o "$WORK/kill9" 2> "$WORK/kill9.err" &
rec=$!
wait_attached
sleep 1.5
kill -9 "$rec"
wait "$rec" 2>/dev/null
ok "no tract BPF program is left after kill -9" no_tract_programs
db=$(one_store "$WORK/kill9")
ok "the store passes an integrity check after kill -9" test "$(q "$db" "pragma integrity_check")" = ok
ok "the store still answers queries after kill -9" test "$(q "$db" "select count(*) from samples where comm='spin'")" -gt 10
stop_workload
done_testing
