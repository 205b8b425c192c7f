#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The host's steal per pass: on a virtual machine the hypervisor runs
# something else on a CPU this machine holds, and a thread on it reads RUN
# however little it ran.  Each pass records per CPU the time taken from it
# since the previous pass (/proc/stat's steal), its sum, and each RUN
# sample its CPU's; query, top and the report say how much of the threads'
# time on a CPU the host took.  An fsync loop makes this machine's host
# take some; where the host takes none, the figures are none.
. "$(dirname "$0")/lib.sh"
need_root_bpf
. "$(dirname "$0")/../lib/steal.sh"

start_workload --only spin,fsync || exit 1
s0=$(steal_now)
# (the CSV store's recording beside the first)
"$TRACT" record -F 10 -d 2 --format csv -o "$WORK/csv" 2> "$WORK/record-csv.err" &
csv_rec=$!
test_expect_success 'record beside a spinner and an fsync loop exits 0' '
	"$TRACT" record -F 10 -d 6 -o "$WORK/store" 2> "$WORK/record.err"
'
s1=$(steal_now)
wait $csv_rec
csv_rc=$?
test_expect_success "and to the CSV store (exit $csv_rc)" '
	test_holds "$csv_rc" -eq 0
'
stop_workload
db=$(one_store "$WORK/store")
window=$(steal_us "$s0" "$s1")
stored=$(q "$db" "select sum(steal_us) from passes")
echo "# the host took $window us over the window, the passes $stored us"

test_expect_success 'the passes took no more than the host took over the window' '
	test_holds "$stored" -le "$window"
'
test_lazy_prereq STOLE 'test "$window" -ge 200000'
test_expect_success STOLE 'the passes took most of it: the recording is most of the window' '
	test_holds "$((stored * 2))" -ge "$window"
'
test_expect_success 'each pass is its CPUs summed, each CPU at most the pass' '
	q "$db" "select p.id from passes p left join steal s on s.pass = p.id group by p.id
		 having p.steal_us != coalesce(sum(s.steal_us), 0) or max(s.steal_us) > p.weight_us" > "$WORK/bad" &&
	test_must_be_empty "$WORK/bad"
'
test_expect_success 'a RUN sample has its CPU steal, the pass their sum; no other state has any' '
	q "$db" "select f.pass from sample_facts f join states st on st.id = f.state
		 where f.steal_us is not null and st.name != '"'"'RUN'"'"'" > "$WORK/other" &&
	test_must_be_empty "$WORK/other" &&
	q "$db" "select p.id from passes p left join samples s on s.ts_us = p.ts_us group by p.id
		 having p.run_steal_us != coalesce(sum(s.steal_us), 0)" > "$WORK/sums" &&
	test_must_be_empty "$WORK/sums" &&
	q "$db" "select count(*) from samples s join steal c on c.pass = (select id from passes where ts_us = s.ts_us)
		 and c.cpu = s.cpu where s.state = '"'"'RUN'"'"' and s.steal_us is not c.steal_us" > "$WORK/mismatch" &&
	test_holds "$(cat "$WORK/mismatch")" -eq 0
'
# worth saying: half a percent of the time on a CPU, or 0.005 CPUs
said=$(q "$db" "select (sum(run_rows) > 0 and sum(run_steal_us) * 200 >= sum(run_rows * weight_us))
	or sum(steal_us) * 200 >= sum(weight_us) from passes")
test_expect_success 'query says what the host took, when it took any worth saying' '
	"$TRACT" query -D "$WORK/store" -g state > "$WORK/query.out" &&
	if test "$stored" -gt 0 && test "$said" = 1
	then
		test_grep "the host took .*% of the threads'"'"' time on a CPU (steal: " "$WORK/query.out"
	else
		test_grep ! "the host took" "$WORK/query.out"
	fi
'
test_expect_success 'the CSV store has the steal file, read back alike' '
	csv=$(one_csv "$WORK/csv" steal) &&
	test_holds "$(head -n 1 "$csv" | tr -d "\r")" = "ts_us,cpu,steal_us" &&
	a=$(awk -F, "NR > 1 { s += \$3 } END { print s + 0 }" "$csv") &&
	b=$("$TRACT" query -D "$WORK/csv" --sql "select coalesce(sum(steal_us), 0) from passes" | tail -n 1) &&
	test_holds "$a" -eq "$b"
'
done_testing
