#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The CSV store: RFC 4180 files that a CSV reader loads back whole.
. "$(dirname "$0")/lib.sh"
need_root_bpf
plan 8

start_workload --only spin,fsync,futex,client || exit 1
"$TRACT" record -F 10 -d 2 -p "$WL_PID" --format csv -o "$WORK/csv" 2> "$WORK/record.err"
ok "record --format csv exits 0" test $? -eq 0
stop_workload
samples=$(ls "$WORK"/csv/tract-*.samples.csv | tail -n 1)
base=${samples%.samples.csv}
ok "samples, stacks, passes and meta files are written" \
	test -f "$samples" -a -f "$base.stacks.csv" -a -f "$base.passes.csv" -a -f "$base.meta.csv"
# the header is the columns of the SQLite samples view, in their order
"$TRACT" schema | sqlite3 "$WORK/empty.db"
view=$(q "$WORK/empty.db" "select group_concat(name, ',') from pragma_table_info('samples')")
ok "samples.csv starts with the columns of the samples view" \
	sh -c "head -n 1 '$samples' | tr -d '\r' | grep -qx '$view'"

# load it back with SQLite's CSV reader, which follows RFC 4180
load="$WORK/load.db"
sqlite3 "$load" ".import --csv '$samples' samples" ".import --csv '$base.stacks.csv' stacks" \
	".import --csv '$base.passes.csv' passes" 2> "$WORK/import.err"
ok "a CSV reader imports every file" test ! -s "$WORK/import.err"
rows=$(q "$load" "select count(*) from samples")
lines=$(($(wc -l < "$samples") - 1))
ok "every sample line is one row ($rows rows, $lines lines)" test "$rows" -eq "$lines"
ok "spin is there, in user mode" test "$(q "$load" "select count(*) from samples where comm='spin' and syscall=''")" -gt 0
ok "every kstack_id and ustack_id of a sample is in stacks.csv" \
	test "$(q "$load" "select count(*) from samples where (kstack_id != '' and kstack_id not in (select id from stacks)) or (ustack_id != '' and ustack_id not in (select id from stacks))")" -eq 0
ok "emitted rows per pass add up to the samples" \
	test "$(q "$load" "select sum(emitted) from passes")" -eq "$rows"
done_testing
