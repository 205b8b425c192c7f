#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The on-CPU profile: ticks counted by thread and stacks, the RUN samples
# carrying what their thread runs, tract's own threads never counted, and
# --profile-hz 0 switching it off.
. "$(dirname "$0")/lib.sh"
need_root_bpf
. "$(dirname "$0")/../lib/truth.sh"

start_workload --only spin,fsync || exit 1
# 10 s: on a busy machine the spinner may have a fifth of a CPU, and its
# ticks must stand out from the window's edges (up to half a second of
# readings and passes) and their spread
"$TRACT" record -F 10 -d 10 -o "$WORK/store" 2> "$WORK/record.err" &
rec=$!
bg_started $rec
# the kernel's accounting of the workload from the first pass stored to the end
window_follow $rec "$WORK/store" "$WORK/win" "$WL_PID"
wait $rec
ok "record with the profile (the default) exits 0" test $? -eq 0
db=$(one_store "$WORK/store")
# the profile with its threads' names, as --sql shows it
prof="profile p join threads t on t.id = p.thread"
# The profile is a cpu-clock perf event on each CPU with a fixed period of
# 1/49 s (the kernel turns a cpu-clock's frequency into a period), and each
# tick counts the thread running on that CPU then.  So a thread's ticks are
# 49 a second of its time on a CPU, summed over the CPUs it ran on: 49 times
# its on-CPU seconds, however many CPUs and whoever else shares them.
# A pass's ticks are those since the pass before, so the window's passes
# count the ticks from the pass before the window (by b seconds before it)
# to the window's last pass (e seconds before its end), and the spinner runs
# on one CPU at a time.  Bounds: 49 ticks a second of b + e; three standard
# deviations of the count (when the spinner shares a CPU, which ticks fall
# in its slices is a binomial draw of at most Poisson variance: the expected
# count); the kernel's figure of a running thread lags by up to a tick
# (10 ms at HZ=100) at each end; and a tick for a slice cut at each end.
# And the window long enough that no ticks at all would fail.  The window:
# the readings' first and last moments (window_follow), so that it holds all
# of the spinner's time that the readings counted; the readings' own length
# is an edge too.
# The host's steal is given back on the high side only: a cpu-clock tick
# fires by wall time on the CPU the spinner holds, also while the host runs
# something else on it, but the kernel leaves that stolen time out of the
# spinner's time on a CPU (steal.sh).  So its ticks may exceed 49 a second
# of that time by 49 a second of its stolen time, which is at most the
# window's steal and at most what the kernel counted it neither on a CPU
# nor queued over the window, and never fall short of it.
read -r w0 r0 < "$WORK/win.0.t"; read -r r1 w1 < "$WORK/win.1.t"
win="ts_us >= $w0 and ts_us < $w1"
ticks=$(q "$db" "select coalesce(sum(p.ticks), 0) from $prof join passes x on x.id = p.pass
		where t.comm = 'spin' and t.tgid = $WL_PID and x.$win")
edges=$(q "$db" "select ($w0 - coalesce((select max(ts_us) from passes where ts_us < $w0), $w0)) + ($r0 - $w0) + ($w1 - $r1)
		+ ($w1 - coalesce((select max(ts_us) from passes where $win), $w0))")
spin_on=$(sched_delta "$WORK/win.0" "$WORK/win.1" "$(q "$db" "select tid from threads where comm = 'spin' and tgid = $WL_PID limit 1")")
stolen=$(steal_us "$(cat "$WORK/win.0.steal")" "$(cat "$WORK/win.1.steal")")
ok "the spinner is counted at the tick rate of its time on a CPU (ticks; its on-CPU and queued, edges, steal in us: $ticks; $spin_on, $edges, $stolen)" \
	awk -v n="$ticks" -v on="${spin_on% *}" -v rq="${spin_on#* }" -v b="$edges" -v st="$stolen" -v w="$((w1 - w0))" 'BEGIN {
		if (n == "" || on == "" || b == "") exit 1
		s = w - on - rq; if (s > st) s = st; if (s < 0) s = 0
		x = on / 1e6 * 49; e = 49 * b / 1e6 + 3 * sqrt(x) + 49 * 2 * 0.010 + 2
		if (x - e > 0 && n >= x - e && n <= x + e + 49 * s / 1e6) exit 0
		printf "%d ticks for %.1f expected, outside -%.1f..+%.1f (or too few to tell none)\n", n, x, e, e + 49 * s / 1e6; exit 1 }'
ok "its ticks name its own function in the user stack" test \
	"$(q "$db" "select count(*) from $prof join stacks s on s.id = p.ustack where t.comm = 'spin' and s.frames like '%spin_thread%'")" -gt 0
# A RUN sample carries the stack of its thread's latest tick since the
# tables were last emptied (each pass): so those in a pass whose profile
# has ticks of the spinner with a user stack, however few ticks a busy CPU
# left it.  A quarter may miss: a tick may land after the iterator read the
# thread, within the same pass.
tick="exists (select 1 from $prof join passes x on x.id = p.pass where x.ts_us = samples.ts_us
		and t.comm = 'spin' and t.tgid = $WL_PID and p.ustack is not null)"
run=$(q "$db" "select count(*) from samples where comm = 'spin' and state = 'RUN' and $tick")
with=$(q "$db" "select count(*) from samples where comm = 'spin' and state = 'RUN' and $tick and ustack_id is not null")
test_expect_success "a RUN sample carries its thread's latest on-CPU stack ($with of the $run in passes with its ticks)" '
	test_holds "$run" -ge 1 &&
	test_holds "$with" -ge $((${run:-0} * 3 / 4))
'
ok "tract's own threads are never counted" test "$(q "$db" "select count(*) from $prof where t.tgid = $rec")" -eq 0
ok "kernel threads have no user stack" test \
	"$(q "$db" "select count(*) from $prof where p.ustack is not null and t.comm like 'kworker/%'")" -eq 0
"$TRACT" record -F 10 -d 1 --profile-hz 0 -p "$WL_PID" -o "$WORK/off" 2> /dev/null
ok "--profile-hz 0: no profile" test "$(q "$(one_store "$WORK/off")" "select count(*) from profile")" -eq 0
stop_workload
done_testing
