#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Signals end the recorder cleanly; a crash leaves a readable store; nothing
# of tract stays loaded in the kernel either way.
. "$(dirname "$0")/lib.sh"
need_root_bpf
plan 12

start_workload --only spin,futex,pingpong || exit 1

# recording PID DIR SQL: the recorder PID has attached its programs, and its
# store in DIR has what SQL asks for
recording() { wait_attached "$1" && wait_stored "$2" "$3"; }

for sig in INT TERM; do
	"$TRACT" record -F 20 -p "$WL_PID" -o "$WORK/$sig" 2> "$WORK/$sig.err" &
	rec=$!
	bg_started $rec
	# signalled once it has stored passes: they must be whole
	ok "the recorder attaches and stores passes (SIG$sig)" \
		recording $rec "$WORK/$sig" 'select count(*) >= 10 from passes'
	kill -"$sig" "$rec"
	wait "$rec"
	ok "SIG$sig ends the recorder with status 0" test $? -eq 0
	ok "no tract BPF program is left after SIG$sig" no_tract_programs $rec
	db=$(one_store "$WORK/$sig")
	ok "every pass stored before SIG$sig is whole" test "$(q "$db" \
		"select count(*) from passes p left join (select pass, count(*) n from sample_facts group by pass) f on f.pass = p.id where p.emitted != coalesce(f.n, 0)")" -eq 0
done

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
stop_workload
done_testing
