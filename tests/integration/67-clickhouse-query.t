#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# query, top and the pictures with --clickhouse: over a private ClickHouse
# server that two recorders shipped to, each host's answers are the local
# store's, byte for byte (group-bys of derived columns, filters run in the
# server and here, time buckets, histograms, wakeups, the profile, flame
# graphs); the fleet adds its hosts up; --sql is ClickHouse's, read-only;
# hostile filter values and host names stay values.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/clickhouse.sh"
need_root_bpf
command -v clickhouse-server > /dev/null || skip_all "needs clickhouse-server; 'make deps' installs it"
trap 'ch_stop_all; cleanup' EXIT
P=18425
ch_start "$WORK/ch" $P 19425 || exit 1
URL=http://127.0.0.1:$P

start_workload --only fsync,futex,spin,pingpong,hostile || exit 1
# two hosts side by side, one with every table
"$TRACT" record -F 20 -d 3 -p "$WL_PID" --clickhouse "$URL" --host alpha --syscall-latency --wakeup-edges \
	--runq-latency -o "$WORK/a" 2> "$WORK/a.err" &
a=$!
"$TRACT" record -F 20 -d 3 -p "$WL_PID" --clickhouse "$URL" --host beta -o "$WORK/b" 2> "$WORK/b.err"
wait $a
stop_workload
range="--from @0 --to now"

# the same answer from the local store and from the server, narrowed to its host
same() {
	"$TRACT" query -D "$WORK/a" $range "$@" > "$WORK/local.out" 2>&1
	"$TRACT" query --clickhouse "$URL" --host alpha $range "$@" > "$WORK/ch.out" 2>&1
	cmp -s "$WORK/local.out" "$WORK/ch.out" || { diff "$WORK/local.out" "$WORK/ch.out" | head -n 10 | sed 's/^/# /'; return 1; }
}
hists() { same --hist syscall --format csv && same --hist runq && same --hist io; }
pict() {
	"$TRACT" "$@" -D "$WORK/a" $range > "$WORK/local.pic" 2>&1
	"$TRACT" "$@" --clickhouse "$URL" --host alpha $range > "$WORK/ch.pic" 2>&1
	cmp -s "$WORK/local.pic" "$WORK/ch.pic" || { diff "$WORK/local.pic" "$WORK/ch.pic" | head -n 6 | sed 's/^/# /'; return 1; }
}
flames() { pict flame --format folded && pict flame --profile --format folded; }
others() { pict wakes --format dot && pict heatmap --hist syscall -o /dev/stdout && pict heatmap --hist inflight -o /dev/stdout; }

ok "the default query: the same table from the server as from the local store" same
ok "derived columns (wait, comm_folded, activity, file_dir) group the same" \
	same -g wait,comm_folded,activity,file_dir --format csv
ok "stacks, joined in the server, group the same" same -g pcomm,kstack,ustack --format csv
# each sample of an ended wait: its ender, from the wait_ends row that holds its time
ok "the enders of the waits, joined in the server, group the same" same -g comm,ender,ender_tid,ender_class --format csv
ok "... and filter the same" same -g comm,state -w 'ender_tid > 0 or ender = timer' --format csv
ok "a timeline: second buckets, their sampled time and partial buckets" same -g second,state --format json
ok "a filter the server runs (values, lists, regexes, NULLs, durations)" \
	same -g tid,syscall -w 'syscall in (fsync, futex) and not comm ~ "^x" and (file is null or sc_us > 1ms)' --format csv
ok "a filter on derived columns, evaluated on the server's groups" \
	same -g comm -w 'wait ~ futex or activity = cpu or comm_folded = "hog*"' --format csv
betweens() {
	same -g tid,syscall -w 'sc_us between 1ms and 1h or comm between f and "g" or tid not between 1 and 4194304' --format csv &&
		same -g comm,wait -w 'wait not between a and m and tid between 1 and 4194304' --format csv
}
ok "between and not between, in the server and on the server's groups" betweens
ok "latency histograms: syscall, run queue and block I/O" hists
# in the server, 'not' is the exact complement, over NULLs too
count() { "$TRACT" query --clickhouse "$URL" --host alpha $range -g host -w "$1" --format csv | tr -d '\r' | awk -F, 'NR == 2 { print $4 + 0 }'; }
complement() {
	all=$(count 'tid >= 0')
	[ "$all" -gt 0 ] || { echo "no samples"; return 1; }
	for f in 'syscall = futex' 'file ~ dat' 'sc_us > 1ms' 'syscall in (read, fsync)' 'waker is null' 'kstack ~ futex' \
		'sc_us between 1ms and 1s' 'syscall not between f and g'; do
		y=$(count "$f") n=$(count "not ($f)")
		[ $((y + n)) -eq "$all" ] || { echo "$f: $y + $n != $all"; return 1; }
	done
}
ok "in the server, 'not' is the exact complement, NULLs included" complement
ok "numbers compared with text, regexes on enums and numbers: the same on both stores" \
	same -g comm,state -w 'comm = 123 or pcomm = 4.5 or state ~ "^R" or tid ~ 1$' --format csv
"$TRACT" query --clickhouse "$URL" $range -g nosuch > /dev/null 2> "$WORK/nosuch.err"
rc=$?
test_expect_success "an unknown column: exit $rc, and it says which" '
	test_holds "$rc" -eq 2 &&
	test_grep nosuch "$WORK/nosuch.err"
'
ok "hostile names print the same" same -g comm -w 'comm ~ DROP or comm ~ "a,b"'
ok "flame graphs: the same folded stacks, of samples and of the profile" flames
ok "the waker graph and the heatmaps draw the same" others

# the fleet: both hosts, added up
"$TRACT" query --clickhouse "$URL" $range -g host --format csv > "$WORK/hosts.csv"
n() { sqlite3 "$(one_store "$1")" "select count(*) from samples"; }
np() { sqlite3 "$(one_store "$1")" "select count(*) from passes"; }
ok "-g host: each host with its own samples ($(tr '\r\n' '  ' < "$WORK/hosts.csv"))" test \
	"$(tr -d '\r' < "$WORK/hosts.csv" | awk -F, 'NR > 1 { print $1 "=" $4 }' | sort | tr '\n' ' ')" = \
	"alpha=$(n "$WORK/a") beta=$(n "$WORK/b") "
# what the hosts' rows add up to, and the fleet's total
sum_hosts=$(awk -F, 'NR > 1 { s += $2 } END { printf "%.2f", s }' "$WORK/hosts.csv")
# (JSON's first line is the range's: its rows follow, a line each)
total=$("$TRACT" query --clickhouse "$URL" $range --format json | head -n 1 | sed -n 's/.*"avg_threads":\([0-9.]*\),.*/\1/p' | awk '{ printf "%.2f", $1 }')
ok "the fleet's active threads are its hosts' added up ($total, $sum_hosts)" test "$total" = "$sum_hosts"
"$TRACT" top -b --clickhouse "$URL" $range > "$WORK/top.out" 2>&1
test_expect_success "top -b follows the fleet's store: its window and groups" '
	test_grep "history of $URL" "$WORK/top.out" &&
	test_grep avg_thr "$WORK/top.out" &&
	test_grep "timeline |" "$WORK/top.out"
'

# --sql is the server's SQL, read-only
ok "--sql runs ClickHouse's SQL over tract's tables" test \
	"$("$TRACT" query --clickhouse "$URL" --sql "SELECT count() AS n FROM tract.samples WHERE host = 'beta'" --format csv | tail -n 1 | tr -d '\r')" = "$(n "$WORK/b")"
"$TRACT" query --clickhouse "$URL" --sql "SELECT host, count() AS n, count() AS n FROM tract.passes GROUP BY host
	ORDER BY host -- the hosts" --format csv | tr -d '\r' > "$WORK/sql2.csv"
ok "--sql: a comment at its end, and names that repeat ($(tr '\n' ' ' < "$WORK/sql2.csv"))" test \
	"$(tr '\n' ' ' < "$WORK/sql2.csv")" = "host,n,n alpha,$(np "$WORK/a"),$(np "$WORK/a") beta,$(np "$WORK/b"),$(np "$WORK/b") "
"$TRACT" query --clickhouse "$URL" --sql "DROP TABLE tract.samples_local" > /dev/null 2> "$WORK/drop.err"
rc=$?
left=$(ch_query $P 'SELECT count() FROM tract.samples_local')
test_expect_success "and refuses what would write, as a local --sql does (exit $rc, $left rows left)" '
	test_holds "$rc" -eq 2 &&
	test_grep "only statements that read" "$WORK/drop.err" &&
	test_holds "$left" -gt 0
'

# hostile values are values: quotes, backslashes and SQL in them match nothing
for v in "x' OR 1=1 --" "x\\\\' OR 1=1 --" "\\\\'; DROP TABLE tract.samples_local; --" "\\\\"; do
	"$TRACT" query --clickhouse "$URL" $range -w "comm = \"$v\" or pcomm = \"$v\"" --format csv 2>&1
done > "$WORK/inject.out"
left=$(ch_query $P 'SELECT count() FROM tract.samples_local')
test_expect_success "hostile filter values match nothing and break nothing ($left rows left)" '
	test_line_count = 4 "$WORK/inject.out" &&
	grep "^state,syscall,pcomm,avg_threads" "$WORK/inject.out" > "$WORK/inject.heads" &&
	test_line_count = 4 "$WORK/inject.heads" &&
	test_holds "$left" -gt 0
'
"$TRACT" query --clickhouse "$URL" --host "a' OR host != '" > /dev/null 2> "$WORK/host.err"
rc=$?
test_expect_success "a host name is a value too: no such host, exit $rc" '
	test_holds "$rc" -eq 1 &&
	test_grep "no passes of host" "$WORK/host.err"
'

# a thread's waits overlap by the sampler's lateness (a wait's start is
# estimated back from the pass's time): a sample in two is the later's, as
# a local store has it.  Host gamma is a copy of alpha's samples and passes,
# with two waits made up around each of two samples of a thread, stored
# the earlier first at one and the later first at the other.
copy_host() {
	cols=$(ch_query $P "SELECT arrayStringConcat(groupArray(name), ', ')
		FROM system.columns WHERE database = 'tract' AND table = '$1_local'" | sed "s/^host,/'gamma',/") &&
		ch_query $P "INSERT INTO tract.$1_local SELECT $cols FROM tract.$1_local WHERE host = 'alpha'"
}
overlapped() {
	copy_host samples && copy_host passes || return 1
	# shellcheck disable=SC2046
	set -- $(ch_query $P "SELECT tid, groupArray(ts_us)[1], groupArray(ts_us)[11] FROM (SELECT tid, ts_us
		FROM tract.samples_local WHERE host = 'gamma' ORDER BY tid, ts_us) GROUP BY tid HAVING count() > 11 ORDER BY tid LIMIT 1")
	[ -n "${3:-}" ] || { echo "# no thread of gamma with 12 samples"; return 1; }
	# one part each, the earlier wait its first row at one sample and its last at the other;
	# a few microseconds each: passes can come a millisecond apart
	for at in "$2 0 1" "$3 1 0"; do
		# shellcheck disable=SC2086
		set -- "$1" "$2" "$3" $at
		ch_query $P "INSERT INTO tract.wait_ends_local (host, ts_us, tid, tgid, start_us, end_us, ender, wait_class) VALUES
			('gamma', $(($4 + $5)), $1, $1, $(($4 - 3)), $(($4 + 1)), 'earlier', 'blocked'),
			('gamma', $(($4 + $6)), $1, $1, $(($4 - 1)), $(($4 + 3)), 'later', 'blocked')" || return 1
	done
	got=$("$TRACT" query --clickhouse "$URL" --host gamma $range -w "tid = $1 and ender is not null" -g ender --format csv |
		tr -d '\r' | awk -F, 'NR > 1 { print $1 "=" $4 }' | tr '\n' ' ')
	echo "# $got"
	[ "$got" = "later=2 " ]
}
ok "a sample in two overlapping waits of its thread is the later's" overlapped
done_testing
