#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A thread in D in fdatasync() often waits on no request of its own: its
# file grew, and the journal's own thread writes the commit it waits for.
# Its samples still name the device: the file's filesystem's, so that one
# log file is one group, whichever thread issued the requests.
. "$(dirname "$0")/lib.sh"
need_root_bpf

start_workload --only wal || exit 1
wal_file=$(sed -n 's/^wal-file=//p' "$WORK/workload.out")
devno=$(stat -c '%d' "$wal_file")
disk=$(sed -n 's/^DEVNAME=//p' "/sys/dev/block/$((devno >> 8)):$((devno & 255))/uevent")
# (the three at once: each reads the thread's state by itself)
test_expect_success 'record beside a thread appending to a file and fdatasync()ing each' '
	"$TRACT" record --source proc -F 20 -d 3 -p "$WL_PID" --format csv -o "$WORK/csv" 2> "$WORK/csv.err" &
	csv=$!
	"$TRACT" record --source proc -F 20 -d 3 -p "$WL_PID" -o "$WORK/proc" 2> "$WORK/proc.err" &
	proc=$!
	"$TRACT" record -F 20 -d 4 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err" &&
	wait $csv && wait $proc
'
stop_workload
db=$(one_store "$WORK/store")
proc=$(one_store "$WORK/proc")

in_d="comm = 'wal' and state = 'DISK' and syscall = 'fdatasync'"
test_lazy_prereq CAUGHT_IN_D '
	test "$(q "$db" "select count(*) from samples where $in_d")" -ge 10
'
test_expect_success CAUGHT_IN_D "its samples in D name the file's device, $disk, whoever issued the requests" '
	q "$db" "select count(*), count(io_dev) from samples where $in_d" > "$WORK/named" &&
	echo "# $(cat "$WORK/named") (samples in D, with a device)" &&
	q "$db" "select count(*) from samples where $in_d and io_dev is null" > "$WORK/unnamed" &&
	echo 0 > "$WORK/none" &&
	test_cmp "$WORK/none" "$WORK/unnamed"
'
test_expect_success CAUGHT_IN_D 'one file, one device: a single group' '
	"$TRACT" query -D "$WORK/store" -g io_dev -w "$in_d" --format csv > "$WORK/groups.csv" &&
	test_line_count = 2 "$WORK/groups.csv" &&
	test_grep "^$disk," "$WORK/groups.csv"
'
test_expect_success CAUGHT_IN_D 'a request is a request: no size or time without one' '
	test_holds "$(q "$db" "select count(*) from samples where $in_d and io_op is null and (io_bytes is not null or io_us is not null)")" -eq 0
'
test_lazy_prereq PROC_CAUGHT_IN_D '
	test "$(q "$proc" "select count(*) from samples where $in_d")" -ge 5
'
test_expect_success PROC_CAUGHT_IN_D 'the /proc source, which knows no requests, names it from the file' '
	test_holds "$(q "$proc" "select count(*) from samples where $in_d and io_dev is null")" -eq 0 &&
	test_holds "$(q "$proc" "select count(*) from samples where $in_d and io_dev = '\''$disk'\''")" -gt 0 &&
	test_holds "$(q "$proc" "select count(*) from samples where io_op is not null")" -eq 0
'
test_expect_success PROC_CAUGHT_IN_D 'and so do the CSV files: a device with no request read back' '
	"$TRACT" query -D "$WORK/csv" -g io_dev,io_op -w "$in_d" --format csv > "$WORK/csv-groups.csv" &&
	test_line_count = 2 "$WORK/csv-groups.csv" &&
	test_grep "^$disk,," "$WORK/csv-groups.csv"
'
done_testing
