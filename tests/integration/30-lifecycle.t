#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Signals end the recorder cleanly and its last pass says why; a crash
# says so on stderr and leaves a readable store, and the next recorder tells
# that the one before did not stop; nothing of tract stays loaded in the
# kernel either way.
. "$(dirname "$0")/lib.sh"
need_root_bpf

start_workload --only spin,futex,pingpong || exit 1

# recording PID DIR SQL: the recorder PID has attached its programs, and its
# store in DIR has what SQL asks for
recording() { wait_attached "$1" && wait_stored "$2" "$3"; }

# the recorders for SIGINT, SIGTERM and a -d started at once, each then
# checked in turn (loading the programs is most of a short recording's time)
for sig in INT TERM; do
	"$TRACT" record -F 20 -p "$WL_PID" -o "$WORK/$sig" 2> "$WORK/$sig.err" &
	echo $! > "$WORK/$sig.pid"
	bg_started $!
done
"$TRACT" record -F 20 -d 1 -p "$WL_PID" -o "$WORK/duration" 2> "$WORK/duration.err" &
duration=$!
bg_started $duration
for sig in INT TERM; do
	rec=$(cat "$WORK/$sig.pid")
	# signalled once it has stored passes: they must be whole
	ok "the recorder attaches and stores passes (SIG$sig)" \
		recording $rec "$WORK/$sig" 'select count(*) >= 10 from passes'
	kill -"$sig" "$rec"
	wait "$rec"
	ok "SIG$sig ends the recorder with status 0" test $? -eq 0
	ok "no tract BPF program is left after SIG$sig" no_tract_programs $rec
	db=$(one_store "$WORK/$sig")
	ok "every pass stored before SIG$sig is whole" test "$(q "$db" \
		"select count(*) from passes p left join (select ts_us, count(*) n from samples group by ts_us) s on s.ts_us = p.ts_us where p.emitted != coalesce(s.n, 0)")" -eq 0
	test_expect_success "its last pass says it stopped on SIG$sig, the others say nothing" '
		test_holds "$(q "$db" "select stop from passes order by ts_us desc limit 1")" = "SIG$sig" &&
		test_holds "$(q "$db" "select count(stop) from passes")" -eq 1
	'
done

wait $duration
db=$(one_store "$WORK/duration")
ok "a recording that ran its -d says so in its last pass" \
	test_holds "$(q "$db" "select stop from passes order by ts_us desc limit 1")" = duration

"$TRACT" record -F 50 -p "$WL_PID" -o "$WORK/kill9" 2> "$WORK/kill9.err" &
rec=$!
bg_started $rec
# killed once it has stored what the test reads back
ok "the recorder attaches and stores samples of the spinner" \
	recording $rec "$WORK/kill9" "select count(*) > 10 from samples where comm = 'spin'"
kill -9 "$rec"
wait "$rec" 2>/dev/null
ok "no tract BPF program is left after kill -9" no_tract_programs $rec
db=$(one_store "$WORK/kill9")
ok "the store passes an integrity check after kill -9" test "$(q "$db" "pragma integrity_check")" = ok
ok "the store still answers queries after kill -9" test "$(q "$db" "select count(*) from samples where comm='spin'")" -gt 10
ok "whose last pass says nothing of a stop" test "$(q "$db" "select count(stop) from passes")" -eq 0

# the next recorder into that store tells, then a crash (a SIGSEGV) is reported as it ends it
before=$(q "$db" "select count(*) from passes")
"$TRACT" record -F 50 -p "$WL_PID" -o "$WORK/kill9" 2> "$WORK/crash.err" &
rec=$!
bg_started $rec
ok "a recorder into the same store attaches and stores passes" \
	recording $rec "$WORK/kill9" "select count(*) > $before from passes"
test_expect_success 'it told that the recording before ended without stopping' '
	test_grep "the recording before this one ended at .* without stopping" "$WORK/crash.err"
'
kill -SEGV "$rec"
wait "$rec"
rc=$?
ok "SIGSEGV ends it as a crash would ($rc)" test "$rc" -eq 139
test_expect_success 'and says it crashed, and where' '
	test_grep "tract: crashed (SIGSEGV sent by pid [0-9]*)" "$WORK/crash.err" &&
	test_grep "tract(+0x[0-9a-f]*)" "$WORK/crash.err"
'
ok "no tract BPF program is left after the crash" no_tract_programs $rec
stop_workload
done_testing
