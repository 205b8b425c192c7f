#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract query on a store recorded from the workload: group-by shares add up,
# filters and time ranges select what they should, hours merge correctly,
# CSV and JSON parse, bad input exits 2, and no root is needed.
. "$(dirname "$0")/lib.sh"
need_root_bpf
plan 24

start_workload --only spin,fsync,futex,pingpong,sleep || exit 1
"$TRACT" record -F 10 -d 4 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
stop_workload
db=$(one_store "$WORK/store")
S="$WORK/store"
samples=$(q "$db" "select count(*) from samples")

"$TRACT" query -D "$S" > "$WORK/table.txt" 2> "$WORK/table.err"
ok "query exits 0 with the default grouping" test $? -eq 0
ok "and prints the range, the total and a header" \
	sh -c "grep -q 'passes' '$WORK/table.txt' && grep -q 'average active threads' '$WORK/table.txt' &&
	       grep -q 'avg_thr.*state.*syscall.*pcomm' '$WORK/table.txt'"

"$TRACT" query -D "$S" -g comm,state -n 0 --format csv > "$WORK/all.csv"
ok "csv: shares of all groups add up to 1" \
	awk -F, 'NR > 1 { s += $4 } END { if (s < 0.999 || s > 1.001) { print s; exit 1 } }' "$WORK/all.csv"
ok "csv: samples of all groups add up to the store's ($samples)" \
	awk -F, -v n="$samples" 'NR > 1 { s += $5 } END { if (s != n) { print s; exit 1 } }' "$WORK/all.csv"
ok "csv: sqlite's CSV reader imports it" sh -c \
	"sqlite3 :memory: '.import --csv $WORK/all.csv t' 'select count(*) from t' | grep -qx \$(( \$(wc -l < '$WORK/all.csv') - 1 ))"

"$TRACT" query -D "$S" -g comm --format json > "$WORK/all.json"
ok "json: valid" test "$(sqlite3 :memory: "select json_valid(readfile('$WORK/all.json'))")" = 1
ok "json: the rows' average threads add up to the total" test "$(sqlite3 :memory: "
	select abs(sum(r.value ->> 'avg_threads') - (readfile('$WORK/all.json') ->> 'avg_threads')) < 0.001
	from json_each(readfile('$WORK/all.json'), '\$.rows') r")" = 1

spin=$("$TRACT" query -D "$S" -g comm -w 'comm=spin' --format csv | awk -F, 'NR == 2 { print $1 " " $2 }')
ok "a filter selects one thread: spin is about one active thread ($spin)" \
	awk -v s="$spin" 'BEGIN { split(s, a, " "); exit !(a[1] == "spin" && a[2] > 0.8 && a[2] < 1.1) }'
ok "not excludes it, and keeps the samples without a syscall" sh -c \
	"! '$TRACT' query -D '$S' -g comm -n 0 --format csv -w 'not comm=spin' | grep -q '^spin,' &&
	 '$TRACT' query -D '$S' -g comm -n 0 --format csv -w 'syscall != futex' | grep -q '^spin,'"
ok "regex, in and and: the futex threads in futex" sh -c \
	"'$TRACT' query -D '$S' -g comm_folded,syscall --format csv -w 'comm ~ \"^futex[0-9]\$\" and syscall in (futex, read)' |
	 awk -F, 'NR > 1 { n++; if (\$1 != \"futex*\" || \$2 != \"futex\") exit 1 } END { exit n != 1 }'"
ok "derived dimensions: wait is a kernel function of the fsync thread" sh -c \
	"'$TRACT' query -D '$S' -g wait --format csv -w 'comm=fsync and state=DISK' | awk -F, 'NR == 2 && \$1 ~ /^[a-z_]/ { f = 1 } END { exit !f }'"

first=$(q "$db" "select min(ts_us) from passes")
mid=$((first + 2000000))
half=$("$TRACT" query -D "$S" --from "@$((first / 1000000)).$(printf %06d $((first % 1000000)))" \
	--to "@$((mid / 1000000)).$(printf %06d $((mid % 1000000)))" --format json)
half=$(sqlite3 :memory: "select '$half' ->> 'passes'")
ok "--from/--to select the passes in range (20 of 40: $half)" sh -c "[ '$half' -ge 19 ] && [ '$half' -le 21 ]"

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

"$TRACT" query -D "$S" -w 'state=' 2> "$WORK/bad.err"
ok "a bad filter exits 2" test $? -eq 2
ok "and names the position" grep -q 'position 6' "$WORK/bad.err"
"$TRACT" query -D "$S" -w "comm = \"x'; DROP TABLE passes; --\"" > /dev/null 2>&1
ok "an injection attempt is a plain value: the store is intact" test "$(q "$db" "select count(*) from passes")" -gt 0
"$TRACT" query -D "$S" -g nosuchcolumn 2> "$WORK/col.err"
ok "an unknown column exits 2" test $? -eq 2
"$TRACT" query -D "$S" --sql 'delete from samples' 2> /dev/null
ok "--sql refuses writes" test $? -eq 2
mkdir "$WORK/bad" && echo "not a database, just text" > "$WORK/bad/tract-20260101-00.db"
"$TRACT" query -D "$WORK/bad" --from @1767225600 --to @1767229200 2> "$WORK/corrupt.err"
ok "a corrupt store file is a runtime error (1) that names the file" sh -c "[ $? -eq 1 ] && grep -q 'tract-20260101-00.db' '$WORK/corrupt.err'"

# a reader who is not root, may read the files, and may not write the directory
ro="$WORK/ro"
mkdir "$ro" && cp "$db" "$ro/tract-$(date -u -d "@$((first / 1000000))" +%Y%m%d-%H).db" && chgrp -R nogroup "$ro" && chmod 0750 "$ro" && chmod 0640 "$ro"/*.db
chmod o+x "$WORK"
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$TRACT" query -D "$ro" -g comm --format csv 2>&1)
ok "a user in the store's group needs no root" sh -c "printf '%s\n' '$out' | grep -q '^spin,'"
ok "and leaves nothing behind" test "$(ls "$ro" | wc -l)" -eq 1
done_testing
