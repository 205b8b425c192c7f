#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The CSV store: RFC 4180 files that a CSV reader loads back whole.
. "$(dirname "$0")/lib.sh"
need_root_bpf

start_workload --only spin,fsync,futex,client || exit 1
test_expect_success 'record --format csv exits 0' '
	"$TRACT" record -F 10 -d 2 -p "$WL_PID" --format csv -o "$WORK/csv" 2> "$WORK/record.err"
'
stop_workload
samples=$(one_csv "$WORK/csv" samples)
stacks=$(one_csv "$WORK/csv" stacks)
passes=$(one_csv "$WORK/csv" passes)
first=$(ls "$WORK"/csv/tract-*.samples.csv | head -n 1)
base=${first%.samples.csv}
ok "samples, stacks, passes and meta files are written" \
	test -f "$samples" -a -f "$base.stacks.csv" -a -f "$base.passes.csv" -a -f "$base.meta.csv"
# the header is the columns of the SQLite samples view, in their order
"$TRACT" schema | sqlite3 "$WORK/empty.db"
view=$(q "$WORK/empty.db" "select group_concat(name, ',') from pragma_table_info('samples')")
# head_of FILE: its first line, without the CR that ends it
head_of() { head -n 1 "$1" | tr -d '\r'; }
test_expect_success 'samples.csv starts with the columns of the samples view' '
	test_holds "$(head_of "$samples")" = "$view"
'
columns=$(q "$WORK/empty.db" "select group_concat(name, ',') from pragma_table_info('passes') where name != 'id'")
test_expect_success 'passes.csv starts with the columns of the passes table after its id, the newest last' '
	test_holds "$(head_of "$passes")" = "$columns" &&
	case $columns in *,bpf_us,run_rows,steal_us,run_steal_us,input_rows,input_gained_us,input_lost_us,stop) ;; *) echo "not the newest last: $columns"; false ;; esac
'

# load it back with SQLite's CSV reader, which follows RFC 4180
load="$WORK/load.db"
sqlite3 "$load" ".import --csv '$samples' samples" ".import --csv '$stacks' stacks" \
	".import --csv '$passes' passes" 2> "$WORK/import.err"
ok "a CSV reader imports every file" test ! -s "$WORK/import.err"
rows=$(q "$load" "select count(*) from samples")
lines=$(($(wc -l < "$samples") - 1))
ok "every sample line is one row ($rows rows, $lines lines)" test "$rows" -eq "$lines"
ok "spin is there, in user mode" test "$(q "$load" "select count(*) from samples where comm='spin' and syscall=''")" -gt 0
ok "every kstack_id and ustack_id of a sample is in stacks.csv" \
	test "$(q "$load" "select count(*) from samples where (kstack_id != '' and kstack_id not in (select id from stacks)) or (ustack_id != '' and ustack_id not in (select id from stacks))")" -eq 0
ok "emitted rows per pass add up to the samples" \
	test "$(q "$load" "select sum(emitted) from passes")" -eq "$rows"
# measured or not (kernel.bpf_stats_enabled), an empty field is NULL and a number that number
bpf=$("$TRACT" query -D "$WORK/csv" --from -1h --sql "select count(*), count(bpf_us), coalesce(sum(bpf_us), 0) from passes" \
	--format csv | tail -n 1 | tr -d '\r')
ok "query --sql reads passes.csv's bpf_us as the file has it ($bpf)" test "$bpf" = \
	"$(q "$load" "select count(*) || ',' || count(nullif(bpf_us, '')) || ',' || coalesce(sum(nullif(bpf_us, '')), 0) from passes")"

# tract query and top read a CSV store as they read an SQLite one
"$TRACT" query -D "$WORK/csv" --from -1h --sql "select count(*), count(kstack), count(distinct ts_us) from samples" \
	--format csv > "$WORK/sql.csv" 2> "$WORK/sql.err"
want="$lines,$(q "$load" "select count(*) from samples where kstack_id != ''"),$(q "$load" "select count(*) from passes")"
test_expect_success 'query --sql reads every sample of the CSV store, stacks as text' '
	test_holds "$(tail -n 1 "$WORK/sql.csv" | tr -d "\r")" = "$want"
'
"$TRACT" query -D "$WORK/csv" --from -1h -g comm,state --format csv > "$WORK/groups.csv"
ok "query groups it: spin is RUN or RUNQ" grep -Eq '^spin,(RUN|RUNQ),' "$WORK/groups.csv"
# wait is the innermost kernel function outside the scheduler of a sample's
# kernel stack, from stacks.csv: every sample of the fsync thread that has a
# stack names one.  Which samples have one, and in which state, is the host's
# doing: on a busy host the thread, woken from its disk wait, spends most
# moments queued for a CPU with that wait's stack, and 20 passes may find it
# in D state in none (2 recordings in 27 beside three busy loops).  So the
# samples held to it are those the run recorded with a kernel stack.
kfsync=$(q "$load" "select count(*) from samples where comm='fsync' and kstack_id != ''")
named=$("$TRACT" query -D "$WORK/csv" --from -1h -g comm,wait -w 'comm = "fsync"' --format csv |
	tr -d '\r' | awk -F, '$1 == "fsync" && $2 ~ /^[a-z_]/ { n += $NF } END { print n + 0 }')
ok "and the fsync thread waits in the kernel functions its stacks name ($named of $kfsync samples with one)" \
	test "$kfsync" -gt 0 -a "$named" -eq "$kfsync"
test_expect_success 'top -b reads it too' '
	"$TRACT" top -D "$WORK/csv" --from -1h -b -n 1 > "$WORK/top.txt" &&
	test_grep "average active threads" "$WORK/top.txt"
'
# a damaged CSV file is a runtime error that names it
cp -r "$WORK/csv" "$WORK/bad"
printf '%s\n' '1,2,"never closed' >> "$(ls "$WORK"/bad/tract-*.samples.csv | tail -n 1)"
test_expect_success 'a damaged samples.csv exits 1 and names the file and line' '
	test_expect_code 1 "$TRACT" query -D "$WORK/bad" --from -1h > /dev/null 2> "$WORK/bad.err" &&
	test_grep "samples.csv. line [0-9]*: a quoted field is not closed" "$WORK/bad.err"
'
# an hour recorded in both formats is read from its SQLite file, and the
# reader is told so (the file of another recording, named for that hour:
# what record makes when told --format csv, then not, within the hour)
mkdir "$WORK/mixed"
csv_hour=$(ls "$WORK"/csv/tract-*.samples.csv | tail -n 1)
cp "$WORK"/csv/tract-* "$WORK/mixed/"
"$TRACT" record -F 10 -d 1 -o "$WORK/sq" 2> /dev/null
cp "$(one_store "$WORK/sq")" "$WORK/mixed/$(basename "${csv_hour%.samples.csv}").db"
both='recorded in both formats: reading .*\.db, not .*\.samples\.csv'
test_expect_success 'an hour in both formats: query says it reads the SQLite file, not the CSV ones' '
	"$TRACT" query -D "$WORK/mixed" --from -2h > /dev/null 2> "$WORK/mixed.err" &&
	test_grep "$both" "$WORK/mixed.err" &&
	grep "$both" "$WORK/mixed.err" > "$WORK/mixed.said" &&
	test_line_count = 1 "$WORK/mixed.said"
'
done_testing
