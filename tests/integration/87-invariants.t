#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What every pass must be, whatever the workload: a snapshot of one moment,
# with one state per thread and no more threads on CPUs than there are CPUs,
# and weights that stand for the time that was sampled, not for a stall.
. "$(dirname "$0")/lib.sh"
need_root_bpf
. "$(dirname "$0")/../lib/steal.sh"

cpus=$(nproc)
# sched TGID: "tid ns-on-CPU ns-on-a-run-queue" per thread, the kernel's own
# accounting, read with shell builtins so that a busy machine does not stretch it
sched() {
	for t in /proc/"$1"/task/*; do
		read -r on rq _ < "$t/schedstat" 2> /dev/null && echo "${t##*/} $on $rq"
	done | sort
}
now_us() { echo $(($(date +%s%N) / 1000)); }
# more runnable threads than CPUs, threads that switch every microsecond, locks
start_workload --only hog,pingpong,futex,spin --hogs 3 || exit 1
"$TRACT" record --all -F 50 -d 9 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err" &
rec=$!
bg_started $rec
# a window of 4 s inside the recording, with the kernel's accounting of the
# workload's threads and of the recorder's sampler (its main thread) at both
# ends; it opens once passes are stored (a deadline of 10 s), and the
# recording outlasts it by what a slow start leaves of the 9 s
for _ in $(seq 200); do
	[ "$(q "$(ls "$WORK"/store/tract-*.db 2> /dev/null | tail -n 1)" "select count(*) from passes" 2> /dev/null)" -ge 2 ] 2> /dev/null && break
	sleep 0.05
done
# the host's steal from before the first readings to after the last (steal.sh)
st0=$(steal_now); sched "$WL_PID" > "$WORK/wl0"; sched "$rec" > "$WORK/rec0"; t0=$(now_us)
sleep 4
sched "$WL_PID" > "$WORK/wl1"; sched "$rec" > "$WORK/rec1"; t1=$(now_us); st1=$(steal_now)
stolen=$(steal_us "$st0" "$st1")
echo "$t0 $t1" > "$WORK/window"
wait $rec
ok "record exits 0" test $? -eq 0
test_expect_success 'the window lies inside the recording: the sampler was there at both ends' '
	test_grep "^$rec " "$WORK/rec0" &&
	test_grep "^$rec " "$WORK/rec1"
'
db=$(one_store "$WORK/store")
passes=$(q "$db" "select count(*) from passes")
# A late pass does not move the next one: the slots it overran are skipped
# and counted as the next pass's unsampled_us.  So every 20 ms slot of the
# 9 s is a stored pass or unsampled time, but for a tail after the last pass
# when that pass ran past the end: by its lateness in its slot and its own
# duration.  Its lateness is measured on the slots' grid: pass i is in slot
# k_i = i + the slots skipped before it, at ts - k_i * 20 ms from the grid's
# start, which the earliest of those figures is (within a slot: some pass
# woke early in its slot and on time).
covered=$(q "$db" "select count(*) * 20000 + sum(unsampled_us) from passes")
tail=$(q "$db" "with k as (select ts_us, duration_us,
			(row_number() over (order by ts_us) - 1) * 20000 + sum(unsampled_us) over (order by ts_us) as kw
			from passes)
		select (select ts_us - kw + duration_us from k order by ts_us desc limit 1) - (select min(ts_us - kw) from k) + 20000")
test_expect_success "stored passes and unsampled time account for the 9 s ($passes passes, $covered us, up to $tail us short)" '
	test_holds $((9000000 - covered)) -ge 0 &&
	test_holds $((9000000 - covered)) -le "$tail"
'
# A slot is skipped only when the sampler overran it: from the moment drawn
# for the pass before, through its wakeup (a wait on a run queue), the pass
# and its bookkeeping (time on a CPU) to the next slot.  So the time skipped
# in the window is at most the passes' durations there plus the sampler's
# time on a CPU and on a run queue, as the kernel counted it over the window,
# and the time the host stole from its CPU while it ran, which the kernel
# counts in neither (at most the window's steal).  The first two passes of
# the window are left out: what they skipped may be the lateness of a wakeup
# before it.
win="ts_us >= $t0 and ts_us < $t1"
after2="$win and ts_us > (select ts_us from passes where $win order by ts_us limit 1 offset 1)"
skipped=$(q "$db" "select coalesce(sum(unsampled_us), 0) from passes where $after2")
allowed=$(q "$db" "select coalesce(sum(duration_us), 0) from passes where $win")
allowed=$(join "$WORK/rec0" "$WORK/rec1" | awk -v a="$((allowed + stolen))" -v t="$rec" '$1 == t { a += ($4 - $2 + $5 - $3) / 1000 } END { printf "%d", a }')
ok "skipped slots are what the sampler's lateness explains ($skipped us skipped, at most $allowed us)" \
	at_most "$skipped" "$allowed"
ok "no pass shows more threads RUN than there are CPUs ($cpus)" \
	test "$(q "$db" "select count(*) from (select ts_us from samples where state = 'RUN' group by ts_us
			   having count(*) > $cpus)")" -eq 0
ok "nor two threads RUN on one CPU" \
	test "$(q "$db" "select count(*) from (select ts_us, cpu from samples where state = 'RUN' group by 1, 2
			   having count(*) > 1)")" -eq 0
# The threads RUN per pass in the window, on average, are the workload's
# threads on a CPU as the kernel counted them: its on-CPU time there over
# the window's length.  Bounds: three standard errors of the mean of the
# window's passes (from their own variance), and at least 3 in n passes:
# a CPU found running another process (the test's shell, a kernel worker,
# a process at the lowest priority) is rarer than one pass in a hundred,
# so n passes may all read the same, a variance of 0, and the rule of three
# still allows that rate up to 3 / n; the recorder's CPU time, as the
# kernel counted it for all its threads: in a pass the thread the sampler
# displaced is shown as running (the moment of the pass) while the kernel
# counts it off, and its other threads run between passes (storing one),
# where no pass sees the CPU they took from the workload; the kernel's figure of a running
# thread lags by up to a tick (10 ms at HZ=100) at each end, for each CPU;
# and the unsampled share u of the window, which tract does not speak for:
# the slots skipped are those where the sampler waited, when the machine
# was busiest, and the threads may have run there on anywhere from none to
# all of the CPUs, so the kernel's average over the whole window lies
# between (1 - u) and (1 - u) + u * CPUs / tract's of the sampled time.
# And the host's steal, on the high side only: a pass finds a thread RUN on
# the CPU it holds while the host runs something else there, and the kernel
# counts that time off CPU (steal.sh); the workload's threads' stolen time
# is at most the window's steal.
run=$(q "$db" "with n as (select p.ts_us, (select count(*) from samples s where s.ts_us = p.ts_us and s.state = 'RUN') as r
		 from passes p where $win)
	  select avg(r) || ' ' || coalesce(sum((r - (select avg(r) from n)) * (r - (select avg(r) from n))) / (count(*) - 1), 0)
		 || ' ' || count(*) from n")
samp=$(q "$db" "select coalesce(sum(cpu_us), 0) || ' ' || coalesce(sum(unsampled_us), 0) from passes where $win")
own=$(join "$WORK/rec0" "$WORK/rec1" | awk '{ on += $4 - $2 } END { printf "%d", on / 1000 }')
samp=$(echo "$samp" | awk -v o="$own" '{ print ($1 > o ? $1 : o), $2 }')
kern=$(join "$WORK/wl0" "$WORK/wl1" | awk -v w="$((t1 - t0))" '{ on += $4 - $2 } END { printf "%.3f", on / 1000 / w }')
ok "the threads RUN per pass ($run: mean, variance, passes) are the kernel's threads on a CPU ($kern; the recorder took $own us, the host $stolen)" \
	awk -v r="$run" -v k="$kern" -v samp="$samp" -v w="$((t1 - t0))" -v c="$cpus" -v st="$stolen" 'BEGIN {
		split(r, x, " "); split(samp, y, " "); n = x[3] > 0 ? x[3] : 1; se = sqrt(x[2] / n); d = x[1] - k; u = y[2] / w
		e = (3 * se > 3 / n ? 3 * se : 3 / n) + 2 * c * 10000 / w
		lo = -e - u * (c - x[1]); hi = e + y[1] / w + u * x[1] + st / w
		if (x[3] > 0 && d >= lo && d <= hi) exit 0
		printf "tract - kernel = %.3f, outside [%.3f, %.3f]\n", d, lo, hi; exit 1 }'
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
# (no -d: it records until told to stop, once the pass after the stop is in)
"$TRACT" record -F 10 -p "$WL_PID" -o "$WORK/stop" 2> "$WORK/stop.err" &
rec=$!
bg_started $rec
stopdb() { ls "$WORK"/stop/tract-*.db 2> /dev/null | tail -n 1; }
# stop it once it is recording: a few passes stored (a deadline of 10 s)
for _ in $(seq 200); do
	[ "$(q "$(stopdb)" "select count(*) from passes" 2> /dev/null)" -ge 3 ] 2> /dev/null && break
	sleep 0.05
done
# the stop as the test's clock saw it: at least from b to c, at most from a to d
stst0=$(steal_now); sched "$rec" > "$WORK/stop0"; sa=$(now_us)
kill -STOP $rec
sb=$(now_us)
sleep 2
sc=$(now_us)
kill -CONT $rec
sd=$(now_us)
# the sampler's waits after it, until the pass that counts the stop is stored
# (the first one after it is that of the slot the stop cut into); a pass
# after the stop begins after c, and may begin before d, which the shell
# reads only once kill has returned and date has started
for _ in $(seq 200); do
	[ "$(q "$(stopdb)" "select count(*) from passes where ts_us > $sc and unsampled_us > 0" 2> /dev/null)" -ge 1 ] 2> /dev/null && break
	sleep 0.05
done
sched "$rec" > "$WORK/stop1"; stst1=$(steal_now)
kill -INT $rec
wait $rec
stop=$(one_store "$WORK/stop")
# (but the last, taken at once on SIGINT: it stands for the part of its interval gone by)
ok "after a 2 s stop at 10 Hz every pass still stands for its 0.1 s ($(q "$stop" "select max(weight_us) from passes") us)" \
	test "$(q "$stop" "select count(*) from passes where weight_us != 100000 and stop is null")" -eq 0
ok "and the last, stopped by SIGINT, for no more" \
	test "$(q "$stop" "select count(*) from passes where stop = 'SIGINT' and weight_us <= 100000")" -eq 1
# After SIGCONT the sampler takes the pass of the slot the stop cut into,
# and the next one counts the slots between that and its own (at most an
# interval before the sampler ran again): at least the whole intervals of
# the stop less two (the stop's ends cut two), and at most the stop, an
# interval, and the sampler's time on a run queue and on a CPU after
# SIGCONT, as the kernel counted it, and what the host stole from it then
# (at most the steal from the stop to the pass).
gap=$(q "$stop" "select max(unsampled_us) from passes where ts_us > $sb")
late=$(join "$WORK/stop0" "$WORK/stop1" | awk -v t="$rec" -v st="$(steal_us "$stst0" "$stst1")" '$1 == t { printf "%d", ($4 - $2 + $5 - $3) / 1000 + st }')
test_expect_success "and the stop is counted as unsampled time ($gap us for a stop of $((sc - sb)) to $((sd - sa)) us, $late us late)" '
	test_holds -n "$gap" &&
	test_holds -n "$late" &&
	test_holds "$gap" -ge $(((sc - sb) / 100000 * 100000 - 200000)) &&
	test_holds "$gap" -le $((sd - sa + 100000 + ${late:-0}))
'
stop_workload
done_testing
