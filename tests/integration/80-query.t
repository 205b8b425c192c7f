#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract query on a store recorded from the workload: group-by shares add up,
# filters and time ranges select what they should, hours merge correctly,
# CSV and JSON parse, bad input exits 2, and no root is needed.
. "$(dirname "$0")/lib.sh"
need_root_bpf

. "$(dirname "$0")/../lib/truth.sh"
start_workload --only spin,fsync,futex,pingpong,sleep || exit 1
spin_tid=$(tid_named "$WL_PID" spin)
"$TRACT" record -F 10 -d 4 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err" &
rec=$!
bg_started $rec
# the kernel's accounting of the workload from the first pass stored to the end
window_follow $rec "$WORK/store" "$WORK/win" "$WL_PID"
wait $rec
stop_workload
db=$(one_store "$WORK/store")
S="$WORK/store"
samples=$(q "$db" "select count(*) from samples")

test_expect_success 'query exits 0 with the default grouping' '
	"$TRACT" query -D "$S" > "$WORK/table.txt" 2> "$WORK/table.err"
'
test_expect_success 'and prints the range, the total and a header' '
	test_grep passes "$WORK/table.txt" &&
	test_grep "average active threads" "$WORK/table.txt" &&
	test_grep "avg_thr.*state.*syscall.*pcomm" "$WORK/table.txt"
'

"$TRACT" query -D "$S" -g comm,state -n 0 --format csv > "$WORK/all.csv"
ok "csv: shares of all groups add up to 1" \
	awk -F, 'NR > 1 { s += $4 } END { if (s < 0.999 || s > 1.001) { print s; exit 1 } }' "$WORK/all.csv"
ok "csv: samples of all groups add up to the store's ($samples)" \
	awk -F, -v n="$samples" 'NR > 1 { s += $5 } END { if (s != n) { print s; exit 1 } }' "$WORK/all.csv"
test_expect_success "csv: sqlite's CSV reader imports it" '
	sqlite3 :memory: ".import --csv $WORK/all.csv t" "select count(*) from t" > "$WORK/imported" &&
	test_holds "$(cat "$WORK/imported")" = $(($(wc -l < "$WORK/all.csv") - 1))
'

"$TRACT" query -D "$S" -g comm --format json > "$WORK/all.json"
ok "json: valid" test "$(sqlite3 :memory: "select json_valid(readfile('$WORK/all.json'))")" = 1
ok "json: the rows' average threads add up to the total" test "$(sqlite3 :memory: "
	select abs(sum(r.value ->> 'avg_threads') - (readfile('$WORK/all.json') ->> 'avg_threads')) < 0.001
	from json_each(readfile('$WORK/all.json'), '\$.rows') r")" = 1

# every column --columns lists groups, alone and beside another, and its groups hold every sample
# (read by a CSV reader: a value may hold commas, a process title's)
bad=$("$TRACT" query --columns | awk '/^  [a-z_0-9]+ / { print $1 }' | while read -r c; do
	for g in "$c" "state,$c"; do
		"$TRACT" query -D "$S" -g "$g" -n 0 --format csv > "$WORK/col.csv" 2> "$WORK/col.err"
		n=$(sqlite3 :memory: ".import --csv $WORK/col.csv t" "select coalesce(sum(samples), 0) from t")
		[ "$n" = "$samples" ] || echo "$g ($n: $(head -c 200 "$WORK/col.err"))"
	done
done)
ok "every listed column groups the samples, alone and with another${bad:+: not $bad}" test -z "$bad"
# two time columns: each is labelled from its own bucket, not the other's
"$TRACT" query -D "$S" -g minute,hour,ts_us -n 0 --format csv > "$WORK/times.csv"
ok "-g minute,hour,ts_us: each minute lies in its hour, and pass times are not rounded to either" \
	awk -F, '{ sub(/\r$/, "") } NR > 1 { n++; if (substr($1, 1, 13) != substr($2, 1, 13)) bad = 1
		if ($3 % 60000000) exact++ } END { exit bad || !n || !exact }' "$WORK/times.csv"

# spin's average active threads over the window is the share of its passes
# in which it was RUN or RUNQ; the kernel's is its time on a CPU or on a run
# queue over the window's length.  Bounds: three standard errors of a share
# of n passes (p(1 - p) / n at the kernel's p, and at least one pass in n: a
# pass at either end of the window); the kernel's figure of a running thread
# lags by up to a tick (4 ms at HZ=250, 10 ms at HZ=100) at each end; and
# the readings' own length (window_mid).
read -r w0 w1 wslack <<EOF
$(window_mid "$WORK/win")
EOF
at() { echo "@$(($1 / 1000000)).$(printf %06d $(($1 % 1000000)))"; }
spin=$("$TRACT" query -D "$S" --from "$(at "$w0")" --to "$(at "$w1")" -g comm -w 'comm=spin' --format csv | awk -F, 'NR == 2 { print $1 " " $2 }')
wpasses=$(q "$db" "select count(*) from passes where ts_us >= $w0 and ts_us < $w1")
kspin=$(sched_delta "$WORK/win.0" "$WORK/win.1" "$spin_tid" | awk -v w="$((w1 - w0))" '{ printf "%.4f", ($1 + $2) / w }')
ok "a filter selects one thread: spin is as active as the kernel saw it (tract, kernel, passes: $spin $kspin $wpasses)" \
	awk -v s="$spin" -v k="$kspin" -v n="$wpasses" -v w="$((w1 - w0))" -v sl="$wslack" 'BEGIN { split(s, a, " ");
		if (a[1] != "spin" || k == "" || n < 1) exit 1
		e = 3 * sqrt(k * (1 - k) / n) + 1 / n + (2 * 10000 + sl) / w; d = a[2] - k
		if (d >= -e && d <= e) exit 0; printf "tract - kernel = %.4f, outside +-%.4f\n", d, e; exit 1 }'
test_expect_success 'not excludes it, and keeps the samples without a syscall' '
	"$TRACT" query -D "$S" -g comm -n 0 --format csv -w "not comm=spin" > "$WORK/notspin.csv" &&
	test_grep ! "^spin," "$WORK/notspin.csv" &&
	"$TRACT" query -D "$S" -g comm -n 0 --format csv -w "syscall != futex" > "$WORK/nofutex.csv" &&
	test_grep "^spin," "$WORK/nofutex.csv"
'
futex_filter='comm ~ "^futex[0-9]$" and syscall in (futex, read)'
one_futex_row='NR > 1 { n++; if ($1 != "futex*" || $2 != "futex") { print "row " NR ": " $0; exit 1 } }
	END { if (n != 1) { print n " rows, not 1"; exit 1 } }'
test_expect_success 'regex, in and and: the futex threads in futex' '
	"$TRACT" query -D "$S" -g comm_folded,syscall --format csv -w "$futex_filter" > "$WORK/futex.csv" &&
	awk -F, "$one_futex_row" "$WORK/futex.csv"
'
test_expect_success 'derived dimensions: wait is a kernel function of the fsync thread' '
	"$TRACT" query -D "$S" -g wait --format csv -w "comm=fsync and state=DISK" > "$WORK/wait.csv" &&
	sed -n 2p "$WORK/wait.csv" > "$WORK/wait.row" &&
	test_grep "^[a-z_]" "$WORK/wait.row"
'

first=$(q "$db" "select min(ts_us) from passes")
mid=$((first + 2000000))
half=$("$TRACT" query -D "$S" --from "@$((first / 1000000)).$(printf %06d $((first % 1000000)))" \
	--to "@$((mid / 1000000)).$(printf %06d $((mid % 1000000)))" --format json)
half=$(sqlite3 :memory: "select '$half' ->> 'passes'")
# the store's own passes in [first, mid): the range is half-open
inrange=$(q "$db" "select count(*) from passes where ts_us >= $first and ts_us < $mid")
all=$(q "$db" "select count(*) from passes")
test_expect_success "--from/--to select the passes in range ($half: the store has $inrange of $all there)" '
	test_holds "$half" = "$inrange" &&
	test_holds "$inrange" -ge 1 &&
	test_holds "$inrange" -lt "$all"
'

# the same hour again, an hour later: averages stay, passes and samples double
# (the file is named for the hour after the last pass's, from its time: the next day's at 23:xx)
last=$(q "$db" "select max(ts_us) from passes")
second="$WORK/store/tract-$(date -u -d "@$((last / 1000000 + 3600))" +%Y%m%d-%H).db"
cp "$db" "$second"
sqlite3 "$second" "update passes set ts_us = ts_us + 3600000000"
one=$("$TRACT" query -D "$S" --from "@$((first / 1000000 - 1))" --to "@$((first / 1000000 + 10))" --format json)
two=$("$TRACT" query -D "$S" --from "@$((first / 1000000 - 1))" --to "@$((first / 1000000 + 3610))" --format json)
ok "two hourly files merge: twice the passes, the same average" test "$(sqlite3 :memory: "
	select ('$two' ->> 'passes') = 2 * ('$one' ->> 'passes')
	   and abs(('$two' ->> 'avg_threads') - ('$one' ->> 'avg_threads')) < 0.0001")" = 1
rm -f "$second"

"$TRACT" query -D "$S" --hist io > "$WORK/hist.txt"
ok "--hist io prints the block I/O latency with its mean and percentiles" grep -q 'completions, mean [0-9]* us, p50 < [0-9]* us' "$WORK/hist.txt"
ok "--sql sees every sample of the range" \
	test "$("$TRACT" query -D "$S" --sql 'select count(*) as n from samples' --format csv | tail -n 1 | tr -d '\r')" = "$samples"
ok "--sql has stacks as text" \
	test "$("$TRACT" query -D "$S" --sql "select count(*) from samples where kstack like '%;%'" | tail -n 1)" -gt 0

test_expect_success 'a bad filter exits 2' '
	test_expect_code 2 "$TRACT" query -D "$S" -w "state=" 2> "$WORK/bad.err"
'
test_expect_success 'and names the position' '
	test_grep "position 6" "$WORK/bad.err"
'
"$TRACT" query -D "$S" -w "comm = \"x'; DROP TABLE passes; --\"" > /dev/null 2>&1
ok "an injection attempt is a plain value: the store is intact" test "$(q "$db" "select count(*) from passes")" -gt 0
test_expect_success 'an unknown column exits 2' '
	test_expect_code 2 "$TRACT" query -D "$S" -g nosuchcolumn 2> "$WORK/col.err"
'
test_expect_success '--sql refuses writes' '
	test_expect_code 2 "$TRACT" query -D "$S" --sql "delete from samples" 2> /dev/null
'
mkdir "$WORK/bad" && echo "not a database, just text" > "$WORK/bad/tract-20260101-00.db"
test_expect_success 'a corrupt store file is a runtime error (1) that names the file' '
	test_expect_code 1 "$TRACT" query -D "$WORK/bad" --from @1767225600 --to @1767229200 2> "$WORK/corrupt.err" &&
	test_grep -F tract-20260101-00.db "$WORK/corrupt.err"
'

# stacks: whole on a pipe and in CSV; on a terminal cut to the line where
# the mark shows, keeping the innermost frames
"$TRACT" query -D "$S" -g kstack -w 'kstack is not null' -n 0 --format csv | sed 1d | sed 's/,[^,]*,[^,]*,[^,]*$//; s/^"//; s/"$//' \
	| sort > "$WORK/stacks.csv"
"$TRACT" query -D "$S" -g kstack -w 'kstack is not null' -n 0 | sed -E '1,/avg_thr/d; s/^ *[0-9.]+ +[0-9.]+% +(█|▏|▎|▍|▌|▋|▊|▉| |#)* *//' \
	| sed 's/^"//; s/"$//' | sort > "$WORK/stacks.pipe"
long=$(awk 'length > 120' "$WORK/stacks.csv" | wc -l)
test_expect_success "a table on a pipe has every stack whole, as CSV does ($long of them longer than 120 characters)" '
	test_holds "$long" -gt 0 &&
	test_cmp "$WORK/stacks.csv" "$WORK/stacks.pipe"
'
if command -v tmux > /dev/null; then
	T="tract-query-$$"
	tmux_started "$T"
	tmux new-session -d -s "$T" -x 100 -y 200 "'$TRACT' query -D '$S' -g kstack -w 'kstack is not null' -n 0; sleep 60"
	for _ in $(seq 300); do tmux capture-pane -p -t "$T" | grep -q 'avg_thr' && break; sleep 0.1; done
	tmux capture-pane -p -t "$T" | sed -E '1,/avg_thr/d; /^$/d; s/^ *[0-9.]+ +[0-9.]+% +(█|▏|▎|▍|▌|▋|▊|▉| |#)* *//' \
		> "$WORK/stacks.tty"
	tmux kill-session -t "$T"
	# each cell: the stack whole, or … and the end of a stack (its innermost frames)
	ok "on a terminal 100 wide a stack is cut to 61 cells, …;, keeping its innermost frames" awk '
		NR == FNR { whole[$0] = 1; n++; next }
		{ rows++; cell = $0
		  if (cell in whole) next
		  if (substr(cell, 1, length("…;")) != "…;") { print "not marked: " cell; exit 1 }
		  tail = substr(cell, length("…") + 1); found = 0
		  for (w in whole) if (length(w) > length(tail) && substr(w, length(w) - length(tail) + 1) == tail) found = 1
		  if (!found) { print "not the end of a stack: " cell; exit 1 } }
		END { if (rows != n) { print rows " rows, " n " stacks"; exit 1 } }' "$WORK/stacks.csv" "$WORK/stacks.tty"
else
	skip "on a terminal a stack is cut, keeping its innermost frames" "tmux is not installed"
fi

# a reader who is not root, may read the files, and may not write the directory
ro="$WORK/ro"
mkdir "$ro" && cp "$db" "$ro/tract-$(date -u -d "@$((first / 1000000))" +%Y%m%d-%H).db" && chgrp -R nogroup "$ro" && chmod 0750 "$ro" && chmod 0640 "$ro"/*.db
chmod o+x "$WORK"
test_expect_success "a user in the store's group needs no root" '
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$TRACT" query -D "$ro" -g comm --format csv \
		> "$WORK/ro.csv" 2>&1 &&
	test_grep "^spin," "$WORK/ro.csv"
'
ok "and leaves nothing behind" test "$(ls "$ro" | wc -l)" -eq 1
done_testing
