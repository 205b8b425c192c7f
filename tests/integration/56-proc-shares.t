#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The /proc source held to the kernel's own accounting: each thread's
# off-CPU share (1 - its time on a CPU / the window) over the same seconds,
# on threads that spin, take turns on a mutex, ping-pong through a pipe,
# flush to disk and sleep, with three spinners on two CPUs.  /proc shows a
# thread on a CPU and one queued for a CPU alike as R: read as RUN, the
# spinners were never off CPU where the kernel had each off a third of the
# time or more.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to read every thread's schedstat and stack"
. "$(dirname "$0")/../lib/truth.sh"

# spin and two hogs: three spinners; on a machine of more CPUs, as many
# more hogs, so that they still outnumber the CPUs by one for every two
hogs=$(($(nproc) * 3 / 2 - 1))
start_workload --only spin,futex,pingpong,fsync,sleep,hog --hogs "$hogs" --lockers 3 --hold-us 2000 || exit 1
# --all: every thread in every pass, so a thread's share is of every pass
"$TRACT" record --source proc --all -F 50 -d 25 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err" &
rec=$!
bg_started $rec
window_follow $rec "$WORK/store" "$WORK/win" "$WL_PID"
wait $rec
ok "record --source proc exits 0" test $? -eq 0
db=$(one_store "$WORK/store")
# the seconds both cover: from the middle of the first reading of the
# kernel's figures to the middle of the last, after the recorder's start
# (which takes a CPU from the workload before any pass sees it)
set -- $(window_mid "$WORK/win")
w0=$1 w1=$2 slack=$3
win="ts_us >= $w0 and ts_us < $w1"
stolen=$(steal_us "$(cat "$WORK/win.0.steal")" "$(cat "$WORK/win.1.steal")")
# per thread: tid comm off n, tract's off-CPU share of its samples' weight
q "$db" "select tid, comm, sum(case when state != 'RUN' then weight_us else 0 end) * 1.0 / sum(weight_us), count(*)
	 from samples where $win and tgid = $WL_PID group by tid" | tr '|' ' ' | sort > "$WORK/tract.txt"
u=$(q "$db" "select coalesce(sum(unsampled_us), 0) from passes where $win")
# per thread: tid on rq in us, the kernel's
join "$WORK/win.0" "$WORK/win.1" | awk '{ printf "%s %d %d\n", $1, ($4 - $2) / 1000, ($5 - $3) / 1000 }' |
	sort > "$WORK/kernel.txt"
# tid comm tract n kernel stolen-bound, shares of the window
join "$WORK/tract.txt" "$WORK/kernel.txt" |
	awk -v w="$((w1 - w0))" -v st="$stolen" '{ k = 1 - $5 / w; if (k < 0) k = 0
		s = w - $5 - $6; if (s > st) s = st; if (s < 0) s = 0
		printf "%s %s %.4f %d %.4f %.4f\n", $1, $2, $3, $4, k, s / w }' > "$WORK/shares.txt"
echo "# tid comm tract n kernel stolen: $(tr '\n' ';' < "$WORK/shares.txt")"
ok "every thread of the workload compared ($(wc -l < "$WORK/shares.txt"))" \
	test "$(wc -l < "$WORK/shares.txt")" -ge $((hogs + 9))
# A share tract reads from n samples strays from the truth of its window by
# sampling: three standard errors, 3 sqrt(p (1 - p) / n) with p the kernel's
# share (a spinner's RUN or RUNQ is decided by its counters, not drawn, and
# strays less; of some 1,100 samples a thread on an idle machine, at most
# 0.045).  To that add the window's share no pass stands for (the
# recorder was late, the threads did anything then), the readings' own
# length as a share of the window (a thread's figures are of a moment
# within each), and 0.005 for the kernel's figures (a running thread's
# time lags by up to a tick at each end).  The host's steal is given back
# on one side only: the time it took from a CPU a thread held is off CPU to
# the kernel (no time on a CPU, no run-queue wait) and RUN to a pass that
# finds the thread on its CPU (steal.sh), so tract may read a thread off CPU
# less than the kernel by that, at most the window's steal and at most what
# the kernel counted neither on a CPU nor queued, and never more.
BOUND='function bound(p, n) { if (p < 0) p = 0; if (p > 1) p = 1; return 3 * sqrt(p * (1 - p) / n) + u + sl + 0.005 }'
check() {
	awk -v u="$(awk -v u="$u" -v w="$((w1 - w0))" 'BEGIN { print u / w }')" \
	    -v sl="$(awk -v s="$slack" -v w="$((w1 - w0))" 'BEGIN { print s / w }')" "$BOUND"' '"$1"' {
		b = bound($5, $4); d = $3 - $5
		if (d > b || d < -b - $6) { printf "%s: tract %.3f against the kernel %.3f (bound %.3f, stolen %.3f)\n", $2, $3, $5, b, $6; bad = 1 }
		n++ }
	    END { exit bad || n == 0 }' "$WORK/shares.txt"
}
ok "three spinners on two CPUs: each one's off-CPU share is the kernel's, within the bound of its samples" \
	check '$2 ~ /^(spin|hog[0-9]+)$/'
ok "the lockers, ping and pong, fsync and the sleeper: likewise" \
	check '$2 !~ /^(spin|hog[0-9]+)$/'
stop_workload
done_testing
