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
ok "samples.csv starts with the documented header" \
	sh -c "head -n 1 '$samples' | tr -d '\r' | grep -qx 'ts_us,weight_us,tid,tgid,comm,pcomm,exe,uid,state,cpu,syscall,sc_us,state_us,kstack_id,waker_tid,sc_arg0,sc_arg1,sc_arg2,sc_arg3,sc_arg4,sc_arg5,cgroup_id,cgroup,file,runq_us,waker,io_dev,io_op,io_bytes,io_us,io_service_us,wake_us,wake_runq_us,ustack_id'"

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
