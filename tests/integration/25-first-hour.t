#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What a new user met in a first hour with tract: no silent failures, checked
# targets, one recorder per store, --sql that does only what it says, and a
# top that needs a terminal.
. "$(dirname "$0")/lib.sh"
need_root_bpf
. "$(dirname "$0")/../lib/truth.sh"

# a store directory of another user's, which could aim root's writes elsewhere
mkdir "$WORK/daemon" && chown daemon "$WORK/daemon" && chmod 0755 "$WORK/daemon"
test_expect_success "a store directory of another user's: exit 1 at once" '
	test_expect_code 1 "$TRACT" record -F 2 -d 2 -o "$WORK/daemon" > /dev/null 2> "$WORK/daemon.err"
'
owner="belongs to user 'daemon'"
test_expect_success 'with one message saying why, and nothing left in it' '
	test_line_count = 1 "$WORK/daemon.err" &&
	test_grep -F "$owner" "$WORK/daemon.err" &&
	test_holds -z "$(ls -A "$WORK/daemon")"
'

# -o makes the directories it needs, with the store's permissions
"$TRACT" record -F 5 -d 0.5 -p 1 -o "$WORK/deep/er/store" > /dev/null 2>&1
test_expect_success '-o creates missing parents (0750) and the store' '
	test_holds "$(stat -c %a "$WORK/deep")" = 750 &&
	test_holds "$(stat -c %a "$WORK/deep/er")" = 750 &&
	ls "$WORK"/deep/er/store/tract-*.db
'

# one recorder per store
# the first records until it is stopped: a second one may take long to start
# on a busy host, and must meet it still recording
"$TRACT" record -F 5 -p 1 -o "$WORK/one" > /dev/null 2>&1 &
first=$!
bg_started $first
# once it holds the store: its lock file names it (it takes the lock once
# its programs are loaded, so its sampler's accounting from here on is of
# its loop)
wait_until 30 test -s "$WORK/one/tract.lock"
sched_of $first > "$WORK/one.s0"
test_expect_success 'a second recorder in the same store exits 1' '
	test_expect_code 1 "$TRACT" record -F 5 -d 1 -p 1 -o "$WORK/one" > /dev/null 2> "$WORK/second.err"
'
test_expect_success 'and names the process that records there' '
	test_grep "is being recorded into by process $first" "$WORK/second.err"
'
# it goes on storing passes (two after the second one gave up), and stops on TERM
gone=$(now_us)
wait_stored "$WORK/one" "select count(*) >= 2 from passes where ts_us > $gone" 60
t1=$(now_us)
sched_of $first > "$WORK/one.s1"
kill -TERM $first
wait $first
# Undisturbed, it kept every 200 ms slot from its first pass to its last
# (before t1): each a stored pass or unsampled time, so that the slots it
# counts span the time between those passes.  Bound: a pass lies anywhere
# in its slot (200 ms), later by its wakeup's wait on a run queue, which is
# at most the sampler's time on one over the window (the kernel's count).
one=$(q "$(one_store "$WORK/one")" "select
		(select count(*) from passes where ts_us > $gone) || ' ' ||
		((count(*) - 1) * 200000 + sum(unsampled_us) - (select unsampled_us from passes order by ts_us limit 1))
		|| ' ' || (max(ts_us) - min(ts_us)) from passes where ts_us < $t1")
late=$(sched_delta "$WORK/one.s0" "$WORK/one.s1" $first)
ok "the first one was not disturbed (passes after the second gave up, slots counted, span in us: $one; run-queue wait $late)" \
	awk -v o="$one" -v l="${late#* }" 'BEGIN { split(o, x, " "); d = x[2] - x[3]; if (d < 0) d = -d
		if (x[1] >= 2 && l != "" && d <= 200000 + l) exit 0; exit 1 }'

# -p names a process that exists, a process and not one of its threads
test_expect_success '-p of no process is a usage error' '
	test_expect_code 2 "$TRACT" record -p 999999 -d 1 > /dev/null 2> "$WORK/nopid.err" &&
	test_grep "no process 999999" "$WORK/nopid.err"
'
start_workload --only spin,futex || exit 1
tid=$(ls "/proc/$WL_PID/task" | grep -v "^$WL_PID\$" | head -n 1)
test_expect_success '-p of a thread says whose thread it is' '
	test_expect_code 2 "$TRACT" record -p "$tid" -d 1 > /dev/null 2> "$WORK/tid.err" &&
	test_grep "$tid is a thread of process $WL_PID" "$WORK/tid.err"
'
"$TRACT" record -F 5 -d 1 -p "$WL_PID" > "$WORK/header.txt" 2>&1
threads=$(ls "/proc/$WL_PID/task" | wc -l)
test_expect_success "the pass header counts the target's threads ($threads)" '
	test_grep "active of $threads threads" "$WORK/header.txt"
'
stop_workload
# the recorder stops when what it follows is gone: a target that ends once
# the recorder follows it (attached), however long that took
sleep 600 &
target=$!
bg_started $target
"$TRACT" record -F 5 -p $target -d 60 > /dev/null 2> "$WORK/gone.err" &
rec=$!
bg_started $rec
wait_attached $rec
kill $target
wait $target 2> /dev/null
test_expect_success 'when every process -p names has exited, the recorder says so and stops' '
	test_expect_code 0 wait $rec &&
	test_grep "every process -p names has exited" "$WORK/gone.err"
'

# --sql reads, one statement at a time
"$TRACT" record -F 5 -d 1 -p 1 --no-syscall-latency -o "$WORK/sql" > /dev/null 2>&1
for bad in "select 1; delete from samples" "attach '/etc/passwd' as x" "pragma writable_schema = 1"; do
	test_expect_success "--sql refuses '$bad' (exit 2, one message)" '
		test_expect_code 2 "$TRACT" query -D "$WORK/sql" --sql "$bad" > "$WORK/sql.out" 2> "$WORK/sql.err" &&
		test_line_count = 1 "$WORK/sql.err" &&
		test_must_be_empty "$WORK/sql.out"
	'
done
table_info="select count(*) from pragma_table_info('samples')"
test_expect_success '--sql still reads what it may: pragma table_info' '
	"$TRACT" query -D "$WORK/sql" --sql "$table_info" > "$WORK/ti.out" &&
	tail -n 1 "$WORK/ti.out" > "$WORK/ti.last" &&
	test_grep -x "[0-9][0-9]*" "$WORK/ti.last"
'

# one damaged hour does not fail a query over many
mkdir "$WORK/dmg" && cp "$WORK"/sql/tract-*.db "$WORK/dmg/"
last=$(q "$(one_store "$WORK/sql")" "select max(ts_us) from passes")
damaged="tract-$(date -u -d "@$((last / 1000000 - 7200))" +%Y%m%d-%H).db"
: > "$WORK/dmg/$damaged"
test_expect_success 'a damaged hour is skipped with a warning naming it' '
	"$TRACT" query -D "$WORK/dmg" --from -3h --to now > "$WORK/dmg.out" 2> "$WORK/dmg.err" &&
	test_grep "warning: skipping a damaged hour.*$damaged" "$WORK/dmg.err" &&
	test_grep "passes, 1 damaged store files skipped" "$WORK/dmg.out"
'
test_expect_success '--strict fails on it instead (exit 1)' '
	test_expect_code 1 "$TRACT" query -D "$WORK/dmg" --from -3h --to now --strict > /dev/null 2> "$WORK/strict.err" &&
	test_grep "$damaged" "$WORK/strict.err"
'
test_expect_success 'and a range of nothing but damaged hours fails (exit 1)' '
	test_expect_code 1 "$TRACT" query -D "$WORK/dmg" --from "@$((last / 1000000 - 7200))" \
		--to "@$((last / 1000000 - 7100))" > /dev/null 2> "$WORK/only.err" &&
	test_grep "no hour of the range could be read" "$WORK/only.err"
'

# damage SQLite finds only mid-read (the header and schema intact, the
# tables' pages not): the hour is skipped whole, by query and by --sql
mkdir "$WORK/mid" && cp "$(one_store "$WORK/sql")" "$WORK/mid/"
cp "$(one_store "$WORK/sql")" "$WORK/mid/$damaged"
page=$(q "$WORK/mid/$damaged" "pragma page_size")
pages=$(($(stat -c %s "$WORK/mid/$damaged") / page))
dd if=/dev/zero of="$WORK/mid/$damaged" bs="$page" seek=2 count=$((pages - 2)) conv=notrunc status=none
test_expect_success "(the copy reads as damaged to SQLite itself, $pages pages)" '
	! q "$WORK/mid/$damaged" "select count(*) from passes" > /dev/null 2>&1
'
passes=$(q "$(one_store "$WORK/sql")" "select count(*) from passes")
test_expect_success "an hour damaged mid-read is skipped with a warning naming it, and the other hour answers ($passes passes)" '
	"$TRACT" query -D "$WORK/mid" --from -3h --to now > "$WORK/mid.out" 2> "$WORK/mid.err" &&
	test_grep "warning: skipping a damaged hour.*$damaged" "$WORK/mid.err" &&
	test_grep " $passes passes, 1 damaged store files skipped" "$WORK/mid.out"
'
test_expect_success '--strict fails on it (exit 1), saying why' '
	test_expect_code 1 "$TRACT" query -D "$WORK/mid" --from -3h --to now --strict > /dev/null 2> "$WORK/mid-strict.err" &&
	test_grep "$damaged.*malformed" "$WORK/mid-strict.err"
'
test_expect_success "--sql skips it too, with the same warning, and counts the other hour's passes" '
	"$TRACT" query -D "$WORK/mid" --from -3h --to now --sql "select count(*) from passes" \
		> "$WORK/midsql.out" 2> "$WORK/midsql.err" &&
	test_grep "warning: skipping a damaged hour.*$damaged.*malformed" "$WORK/midsql.err" &&
	test_holds "$(tail -n 1 "$WORK/midsql.out")" = "$passes"
'

# a live top killed with -9 leaves its store; the next live top removes it
"$TRACT" top -b -n 100 -i 1 > /dev/null 2>&1 &
live=$!
bg_started $live
# killed once it records into its store
wait_attached $live && wait_stored "$(ls -d /tmp/tract-top.$live.* 2> /dev/null | head -n 1)" 'select count(*) > 0 from passes'
kill -9 $live
wait $live 2> /dev/null
test_expect_success 'kill -9 of a live top leaves its private store' '
	ls -d /tmp/tract-top.$live.*
'
"$TRACT" top -b -n 1 > /dev/null 2>&1
test_expect_success 'and the next live top removes it' '
	! ls -d /tmp/tract-top.$live.* 2> /dev/null
'
"$TRACT" top -D "$WORK/sql" -b -g nosuch > "$WORK/badgroup.out" 2>&1
test_expect_success 'top says a bad group once' '
	test_grep "unknown column" "$WORK/badgroup.out" &&
	grep "unknown column" "$WORK/badgroup.out" > "$WORK/badgroup.said" &&
	test_line_count = 1 "$WORK/badgroup.said"
'

# histograms: the samples' names work, a wrong one points to the right list, a missing one says how to record it
test_expect_success "--hist io -g io_dev,io_op takes the samples' names" '
	"$TRACT" query -D "$WORK/sql" --hist io -g io_dev,io_op
'
"$TRACT" query -D "$WORK/sql" --hist io -g nosuch > /dev/null 2> "$WORK/hist.err"
columns_hint="'tract query --hist io --columns' lists them"
test_expect_success "a bad --hist column points to that histogram's columns" '
	test_grep -F "$columns_hint" "$WORK/hist.err"
'
kept_hint="'tract record' keeps it unless given --no-syscall-latency"
test_expect_success '--hist syscall on a store recorded without it says how it is kept' '
	"$TRACT" query -D "$WORK/sql" --hist syscall > "$WORK/hist-sc.out" &&
	test_grep -F "$kept_hint" "$WORK/hist-sc.out"
'
test_expect_success 'waker reads as the past in a table, and keeps its name in CSV' '
	"$TRACT" query -D "$WORK/sql" -g waker > "$WORK/waker.txt" &&
	test_grep "last woken by" "$WORK/waker.txt" &&
	"$TRACT" query -D "$WORK/sql" -g waker --format csv > "$WORK/waker.csv" &&
	head -n 1 "$WORK/waker.csv" > "$WORK/waker.head" &&
	test_grep "^waker," "$WORK/waker.head"
'

# filter values of the column's kind: a wrong one fails where it is, a duration takes its unit
start_workload --only fsync,futex,pingpong || exit 1
"$TRACT" record -F 10 -d 2 -p "$WL_PID" -o "$WORK/wl" > /dev/null 2>&1
stop_workload
avg() {
	"$TRACT" query -D "$WORK/wl" -w "$1" --format json > "$WORK/avg.json"
	sqlite3 :memory: "select readfile('$WORK/avg.json') ->> 'avg_threads'"
}
ms=$(avg 'sc_us > 1ms')
test_expect_success "sc_us > 1ms is sc_us > 1000 ($ms threads)" '
	test_holds "$ms" = "$(avg "sc_us > 1000")" &&
	test_holds "$ms" != "$(avg "sc_us > 1000000")"
'
test_expect_success 'a word for a number column is a usage error at its position' '
	test_expect_code 2 "$TRACT" query -D "$WORK/wl" -w "sc_us > abc" > /dev/null 2> "$WORK/abc.err" &&
	test_grep "position 8: sc_us takes" "$WORK/abc.err"
'
test_expect_success 'state names take any case, and an unknown one lists them' '
	sleep_avg=$(avg "state=SLEEP") &&
	test_holds "$(avg "state=sleep")" = "$sleep_avg" &&
	test_holds "$sleep_avg" != 0 &&
	test_expect_code 2 "$TRACT" query -D "$WORK/wl" -w "state=slept" > /dev/null 2> "$WORK/slept.err" &&
	test_grep "RUN, RUNQ, DISK" "$WORK/slept.err"
'

# top without a terminal: a message, not a spinning screen.  "At once": it
# slept (its life less its time on a CPU and on a run queue, and less how
# late the exit was seen) under 0.5 s, half the 1 s refresh interval a top
# that waited for a key or its next screen would sleep; what else it may
# wait for is its binary and libraries from the disk.
run_timed "$WORK/top.time" "$TRACT" top -D "$WORK/sql" < /dev/null > /dev/null 2> "$WORK/top.err"
rc=$?
slept=$(awk '{ print $1 - $2 - $3 - $4 }' "$WORK/top.time" 2> /dev/null)
test_expect_success "top without a terminal exits 2 at once and points to -b (slept ${slept:-?} us: life, on CPU, run queue, late $(cat "$WORK/top.time" 2> /dev/null))" '
	test_holds "$rc" -eq 2 &&
	test_holds -n "$slept" && test_holds "$slept" -le 500000 &&
	test_grep -e "-b prints text" "$WORK/top.err"
'
done_testing
