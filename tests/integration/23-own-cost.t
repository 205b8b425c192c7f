#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What tract costs, as each pass records it: with kernel.bpf_stats_enabled
# on, passes.bpf_us holds its BPF programs' run time, which adds up to what
# the kernel counts for the recorder's programs; with the stats off, switched
# off mid-run, or with the /proc source it is NULL (not measured), never 0.
# SQLite and CSV alike; query --sql selects it, and the report shows it or
# says it was not measured.  The sysctl is put back as it was, whatever
# happens.
. "$(dirname "$0")/lib.sh"
need_root_bpf
[ -w /proc/sys/kernel/bpf_stats_enabled ] || skip_all "needs a writable kernel.bpf_stats_enabled"

stats_was=$(sysctl -n kernel.bpf_stats_enabled)
rec=
trap '[ -n "$rec" ] && kill "$rec" 2> /dev/null; sysctl -qw kernel.bpf_stats_enabled="$stats_was"; cleanup' EXIT
trap 'exit 1' HUP INT TERM
stats() { sysctl -qw kernel.bpf_stats_enabled="$1"; }

# what the kernel counts for the programs of process $1, its prog fds read
# once each: "microseconds-since-the-epoch run_time_ns", the time halfway
# through the reading.  cat goes on past an fd the recorder closed since
# the listing, where awk given the files would stop; each fd's info begins
# with pos:.
kernel_run_ns() {
	k_t0=$(date +%s%6N)
	k_ns=$(cat /proc/"$1"/fdinfo/* 2> /dev/null |
		awk '/^pos:/ { id = "" } /^prog_id:/ { id = $2 } /^run_time_ns:/ && id != "" { ns[id] = $2 }
		END { for (i in ns) s += ns[i]; print s + 0 }')
	k_t1=$(date +%s%6N)
	echo "$(((k_t0 + k_t1) / 2)) $k_ns"
}

# passes DIR: the passes of every hour the store in DIR holds
passes() {
	for f in "$1"/tract-*.db; do
		# no file yet: the pattern itself, which sqlite3 would make
		[ -e "$f" ] && q "$f" "select count(*) from passes" 2> /dev/null
	done | awk '{ s += $1 } END { print s + 0 }'
}
# wait_passes DIR N: until the SQLite store a recorder writes in DIR holds N passes (20 s at most)
wait_passes() {
	for _ in $(seq 200); do
		w_n=$(passes "$1")
		[ "$w_n" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# pingpong and the fsync thread keep the scheduler and block programs busy
start_workload --only spin,fsync,pingpong || exit 1
stats 1
"$TRACT" record -F 10 -p "$WL_PID" -o "$WORK/on" 2> "$WORK/on.err" &
rec=$!
# from once it is recording, 3 s
wait_passes "$WORK/on" 5
a=$(kernel_run_ns "$rec")
sleep 3
b=$(kernel_run_ns "$rec")
wait_passes "$WORK/on" 45
kill -TERM "$rec"
wait "$rec"
ok "record exits 0 with the stats on" test $? -eq 0
rec=
# (these two at once, as the two with the stats off below: each is
# measured by its own programs' figures, or has none)
"$TRACT" record -F 10 -d 2 -p "$WL_PID" --format csv -o "$WORK/on-csv" 2> "$WORK/on-csv.err" &
rec=$!
"$TRACT" record --source proc -F 10 -d 1 -p "$WL_PID" -o "$WORK/proc" 2> "$WORK/proc.err"
proc_rc=$?
wait $rec
csv_rc=$?
rec=
ok "and so does record --format csv" test $csv_rc -eq 0
ok "and record --source proc" test $proc_rc -eq 0
# switched off once 10 passes are in, and 10 more recorded after
"$TRACT" record -F 10 -p "$WL_PID" -o "$WORK/mixed" 2> "$WORK/mixed.err" &
rec=$!
wait_passes "$WORK/mixed" 10
stats 0
wait_passes "$WORK/mixed" "$(($(passes "$WORK/mixed") + 10))"
kill -TERM "$rec"
wait "$rec"
ok "record exits 0 with the stats switched off as it runs" test $? -eq 0
rec=
"$TRACT" record -F 10 -d 2 -p "$WL_PID" -o "$WORK/off" 2> "$WORK/off.err" &
rec=$!
"$TRACT" record -F 10 -d 2 -p "$WL_PID" --format csv -o "$WORK/off-csv" 2> "$WORK/off-csv.err"
wait $rec
rec=
stop_workload
stats "$stats_was"

db=$(one_store "$WORK/on")
passes=$(q "$db" "select count(*) from passes")
measured=$(q "$db" "select count(bpf_us) from passes")
test_expect_success "stats on: every pass is measured ($measured of $passes)" '
	test_holds "$passes" -ge 40 &&
	test_holds "$measured" -eq "$passes"
'
ok "and its BPF time is above 0 in >= 90% of them" \
	at_least "$(q "$db" "select count(*) from passes where bpf_us > 0")" "$((passes * 9 / 10))"
# the passes stamped between the two readings stand for about the time between them
set -- $a $b
ours=$(q "$db" "select coalesce(sum(bpf_us), 0) from passes where ts_us >= $1 and ts_us < $3")
kernel=$((($4 - $2) / 1000))
ok "over 3 s the passes' BPF time is what the kernel counts for the recorder's programs, within 30% ($ours us, kernel $kernel us)" \
	awk -v o="$ours" -v k="$kernel" 'BEGIN { exit !(k > 0 && o >= 0.7 * k && o <= 1.3 * k) }'

sql=$("$TRACT" query -D "$WORK/on" --from -1h --sql "select count(bpf_us), sum(bpf_us) from passes" --format csv |
	tail -n 1 | tr -d '\r')
ok "query --sql selects it as the store has it ($sql)" \
	test "$sql" = "$(q "$db" "select count(bpf_us) || ',' || sum(bpf_us) from passes")"
csv=$("$TRACT" query -D "$WORK/on-csv" --from -1h --sql "select count(*), count(bpf_us), count(*) filter (where bpf_us > 0) from passes" \
	--format csv | tail -n 1 | tr -d '\r')
ok "CSV, stats on: every pass measured, above 0 ($csv)" \
	awk -v c="$csv" 'BEGIN { split(c, v, ","); exit !(v[1] >= 15 && v[2] == v[1] && v[3] >= v[1] * 0.9) }'

"$TRACT" report -D "$WORK/on" -o "$WORK/on.html"
per_pass=$(sed -n "s/.*<th>tract's BPF programs<\/th><td>[0-9.]*% of a CPU (\([0-9]*\) µs a pass)<\/td>.*/\1/p" "$WORK/on.html")
want=$(q "$db" "select cast(round(sum(bpf_us) * 1.0 / count(bpf_us)) as integer) from passes")
test_expect_success "the report shows it as a share of a CPU and per pass ($per_pass us a pass, the store's mean $want)" '
	test_holds -n "$per_pass" &&
	test_holds "$per_pass" -ge $((want - 1)) &&
	test_holds "$per_pass" -le $((want + 1)) &&
	test_holds "$want" -gt 0
'

off=$(one_store "$WORK/off")
test_expect_success 'stats off: NULL in every pass, not 0' '
	test_holds "$(q "$off" "select count(*) from passes")" -ge 15 &&
	test_holds "$(q "$off" "select count(bpf_us) from passes")" -eq 0
'
csv=$("$TRACT" query -D "$WORK/off-csv" --from -1h --sql "select count(*), count(bpf_us) from passes" --format csv |
	tail -n 1 | tr -d '\r')
ok "CSV, stats off: NULL in every pass ($csv)" awk -v c="$csv" 'BEGIN { split(c, v, ","); exit !(v[1] >= 15 && v[2] == 0) }'
"$TRACT" report -D "$WORK/off" -o "$WORK/off.html"
ok "the report says it was not measured" \
	grep -q "<th>tract's BPF programs</th><td>not measured (kernel.bpf_stats_enabled=0)</td>" "$WORK/off.html"

mixed=$(one_store "$WORK/mixed")
on_n=$(q "$mixed" "select count(bpf_us) from passes")
all_n=$(q "$mixed" "select count(*) from passes")
measured_first='select max(ts_us) < (select min(ts_us) from passes where bpf_us is null) from passes where bpf_us is not null'
test_expect_success "switched off mid-run: measured before, NULL after ($on_n of $all_n measured)" '
	test_holds "$on_n" -ge 8 &&
	test_holds $((all_n - on_n)) -ge 8 &&
	test_holds "$(q "$mixed" "$measured_first")" -eq 1
'
"$TRACT" report -D "$WORK/mixed" -o "$WORK/mixed.html"
ok "and the report says over how many passes it was measured" \
	grep -q "µs a pass), measured in $on_n of $all_n passes</td>" "$WORK/mixed.html"

proc=$(one_store "$WORK/proc")
test_expect_success 'the /proc source, stats on: NULL (it runs no BPF program)' '
	test_holds "$(q "$proc" "select count(*) from passes")" -ge 5 &&
	test_holds "$(q "$proc" "select count(bpf_us) from passes")" -eq 0
'
done_testing
