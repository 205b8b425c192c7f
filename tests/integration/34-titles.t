#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Process titles: every process of a multi-process server has the same name,
# and each says what it does in its command line (its title), which it
# rewrites as it goes.  Two processes of one program (comm "titled") write
# their titles over their arguments, then a second title each on SIGUSR1.
# The samples carry the title each had then, as ps shows it; query and top
# group by it and tell the two apart; --no-titles reads none; the /proc
# source reads them too.
. "$(dirname "$0")/lib.sh"
need_root_bpf

TITLED=${TITLED:-$(dirname "$WORKLOAD")/titled}
[ -x "$TITLED" ] || test_bug_ "no titled workload at $TITLED (make all builds it)"

PAD=$(printf '%064d' 0)
"$TITLED" writer "$PAD" > "$WORK/writer.out" 2>&1 &
WRITER=$!
bg_started $WRITER
"$TITLED" checkpointer "$PAD" > "$WORK/ckpt.out" 2>&1 &
CKPT=$!
bg_started $CKPT
wait_ready "$WORK/writer.out" && wait_ready "$WORK/ckpt.out" || exit 1

"$TRACT" record -F 10 -p "$WRITER,$CKPT" -o "$WORK/store" 2> "$WORK/record.err" &
REC=$!
bg_started $REC
# the first titles stored, then the second ones written
wait_stored "$WORK/store" "select count(*) > 0 from samples where title = 'titled: checkpointer phase 1'" 60
kill -USR1 "$WRITER" "$CKPT"
wait_until 10 grep -q 'phase 2' "$WORK/writer.out"
wait_until 10 grep -q 'phase 2' "$WORK/ckpt.out"
ps_writer=$(ps -o args= -p "$WRITER")
wait_stored "$WORK/store" "select count(*) > 0 from samples where tgid = $CKPT and title like '%phase 2'" 30
wait_stored "$WORK/store" "select count(*) > 0 from samples where tgid = $WRITER and title like '%phase 2'" 30
end_children $REC
wait $REC
rec_rc=$?
DB=$(one_store "$WORK/store")

test_expect_success 'the recording succeeds' '
	test_holds "$rec_rc" -eq 0
'
test_expect_success 'both processes have the same name' '
	q "$DB" "select distinct pcomm from samples" > "$WORK/names" &&
	test_line_count = 1 "$WORK/names" &&
	test_grep "^titled$" "$WORK/names"
'
cat > "$WORK/titles.want" << EOF
titled: checkpointer phase 1
titled: checkpointer phase 2
titled: writer phase 1
titled: writer phase 2
EOF
test_expect_success 'their samples carry the titles they wrote, and no other' '
	q "$DB" "select distinct title from samples order by 1" > "$WORK/titles" &&
	test_cmp "$WORK/titles.want" "$WORK/titles"
'
test_expect_success 'each process its own, as ps shows it' '
	test_holds "$ps_writer" = "titled: writer phase 2" &&
	test_holds "$(q "$DB" "select count(*) from samples where tgid = $WRITER and title not like \"titled: writer %\"")" -eq 0 &&
	test_holds "$(q "$DB" "select count(*) from samples where tgid = $CKPT and title not like \"titled: checkpointer %\"")" -eq 0
'
test_expect_success 'a title changes once: every sample of the first before every one of the second' '
	for p in $WRITER $CKPT; do
		late=$(q "$DB" "select max(ts_us) from samples where tgid = $p and title like \"%phase 1\"") &&
		early=$(q "$DB" "select min(ts_us) from samples where tgid = $p and title like \"%phase 2\"") &&
		test_holds "$late" -lt "$early" || return 1
	done
'
test_expect_success 'no sample of a live process lacks its title' '
	test_holds "$(q "$DB" "select count(*) from samples where title is null")" -eq 0
'
# what the issue saw: by name, one row; by title, each process its own
test_expect_success 'query -g comm merges them; -g title tells them apart' '
	"$TRACT" query -D "$WORK/store" --from -1h -g comm --format csv > "$WORK/by-comm.csv" &&
	test_line_count = 2 "$WORK/by-comm.csv" &&
	"$TRACT" query -D "$WORK/store" --from -1h -g title --format csv > "$WORK/by-title.csv" &&
	tail -n +2 "$WORK/by-title.csv" | cut -d, -f1 | tr -d "\r" | sort > "$WORK/query-titles" &&
	test_cmp "$WORK/titles.want" "$WORK/query-titles"
'
test_expect_success 'a filter on the title selects one process' '
	"$TRACT" query -D "$WORK/store" --from -1h -g tgid -w "title ~ \"^titled: writer\"" --format csv > "$WORK/writer.csv" &&
	test_line_count = 2 "$WORK/writer.csv" &&
	test_grep "^$WRITER," "$WORK/writer.csv"
'
test_expect_success 'top -g comm,title shows both processes' '
	"$TRACT" top -D "$WORK/store" --from -1h -b -n 1 -g comm,title > "$WORK/top.txt" &&
	test_grep "titled: writer phase" "$WORK/top.txt" &&
	test_grep "titled: checkpointer phase" "$WORK/top.txt"
'
T=$(printf '\t')
test_expect_success 'the report by process: the program, then the titles of its processes under it' '
	"$TRACT" report -D "$WORK/store" --from -1h -o "$WORK/r.html" &&
	report_table "$WORK/r.html" "by process" > "$WORK/procs.tsv" &&
	cat "$WORK/procs.tsv" &&
	two_levels pcomm "$WORK/procs.tsv" &&
	test_grep "^outer${T}titled${T}${T}" "$WORK/procs.tsv" &&
	test_grep "^inner${T}${T}titled: writer phase [12]$T" "$WORK/procs.tsv" &&
	test_grep "^inner${T}${T}titled: checkpointer phase [12]$T" "$WORK/procs.tsv"
'
test_expect_success 'the CSV store has the title column, last' '
	"$TRACT" record -F 10 -d 1 -p "$WRITER" --format csv -o "$WORK/csv" 2> "$WORK/csv.err" &&
	samples=$(ls "$WORK"/csv/tract-*.samples.csv | head -n 1) &&
	head -n 1 "$samples" | tr -d "\r" | grep -q ",title$" &&
	test_grep "titled: writer phase 2" "$samples"
'
test_expect_success '--no-titles reads none' '
	"$TRACT" record --no-titles -F 10 -d 1 -p "$WRITER" -o "$WORK/none" 2> "$WORK/none.err" &&
	none=$(one_store "$WORK/none") &&
	test_holds "$(q "$none" "select count(*) from samples")" -gt 0 &&
	test_holds "$(q "$none" "select count(title) from samples")" -eq 0
'
test_expect_success 'the /proc source reads them too' '
	"$TRACT" record --source proc -F 10 -d 1 -p "$CKPT" -o "$WORK/proc" 2> "$WORK/proc.err" &&
	proc=$(one_store "$WORK/proc") &&
	test_holds "$(q "$proc" "select count(*) from samples")" -gt 0 &&
	test_holds "$(q "$proc" "select count(*) from samples where title is not \"titled: checkpointer phase 2\"")" -eq 0
'
end_children $WRITER $CKPT
done_testing
