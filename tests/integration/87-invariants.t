#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What every pass must be, whatever the workload: a snapshot of one moment,
# with one state per thread and no more threads on CPUs than there are CPUs,
# and weights that stand for the time that was sampled, not for a stall.
. "$(dirname "$0")/lib.sh"
need_root_bpf
plan 12

cpus=$(nproc)
# more runnable threads than CPUs, threads that switch every microsecond, locks
start_workload --only hog,pingpong,futex,spin --hogs 3 || exit 1
"$TRACT" record --all -F 50 -d 5 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
ok "record exits 0" test $? -eq 0
db=$(one_store "$WORK/store")
passes=$(q "$db" "select count(*) from passes where emitted > 0")
ok "about 250 passes at 50 Hz for 5 s ($passes)" sh -c "[ $passes -ge 230 ] && [ $passes -le 251 ]"
ok "no pass shows more threads RUN than there are CPUs ($cpus)" \
	test "$(q "$db" "select count(*) from (select ts_us from samples where state = 'RUN' group by ts_us
			   having count(*) > $cpus)")" -eq 0
ok "nor two threads RUN on one CPU" \
	test "$(q "$db" "select count(*) from (select ts_us, cpu from samples where state = 'RUN' group by 1, 2
			   having count(*) > 1)")" -eq 0
ok "the CPUs are busy: most passes show $cpus threads RUN" \
	at_least "$(q "$db" "select count(*) from (select ts_us from samples where state = 'RUN' group by ts_us
			    having count(*) = $cpus)")" "$((passes / 2))"
# the first pass meets the run queues; later ones read every CPU's runner at their moment
read=$(q "$db" "select count(*) from passes where moment_read = 1")
ok "what ran on each CPU is read at the moment of nearly every pass ($read of $passes)" \
	at_least "$read" "$((passes * 95 / 100))"
# one row per thread and pass, so its samples' weight is the pass's
ok "a thread is in one state per pass" \
	test "$(q "$db" "select count(*) from (select ts_us, tid from samples group by 1, 2 having count(*) > 1)")" -eq 0
ok "the weight of a thread's samples in a pass is the pass's weight" \
	test "$(q "$db" "select count(*) from (select s.ts_us, s.tid, sum(s.weight_us) w from samples s group by 1, 2) x
			   join passes p on p.ts_us = x.ts_us where x.w != p.weight_us")" -eq 0
ok "load_rows counts each pass's RUN, RUNQ and DISK rows" \
	test "$(q "$db" "select count(*) from passes p where load_rows != (select count(*) from samples s
			   where s.ts_us = p.ts_us and s.state in ('RUN', 'RUNQ', 'DISK'))")" -eq 0
ok "tract's own threads are never sampled" \
	test "$(q "$db" "select count(*) from samples where tgid != $WL_PID")" -eq 0

# A stopped recorder: the pass after the stop stands for two intervals at
# most, and the rest is unsampled time, not spread onto one snapshot.
"$TRACT" record -F 10 -d 4 -p "$WL_PID" -o "$WORK/stop" 2> "$WORK/stop.err" &
rec=$!
# stop it once it is recording: a few passes stored
for _ in $(seq 100); do
	[ "$(q "$(ls "$WORK"/stop/tract-*.db 2> /dev/null | tail -n 1)" "select count(*) from passes" 2> /dev/null)" -ge 3 ] 2> /dev/null && break
	sleep 0.05
done
kill -STOP $rec
sleep 2
kill -CONT $rec
wait $rec
stop=$(one_store "$WORK/stop")
ok "after a 2 s stop at 10 Hz every pass still stands for its 0.1 s ($(q "$stop" "select max(weight_us) from passes") us)" \
	test "$(q "$stop" "select count(*) from passes where weight_us != 100000")" -eq 0
ok "and the stop is counted as unsampled time ($(q "$stop" "select sum(unsampled_us) from passes") us)" \
	sh -c "[ $(q "$stop" "select sum(unsampled_us) from passes") -ge 1700000 ] &&
	       [ $(q "$stop" "select sum(unsampled_us) from passes") -le 2100000 ]"
stop_workload
done_testing
