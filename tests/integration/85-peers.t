#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract's answers held to its peers' measurements of the same seconds
# (libbpf-tools offcputime, runqlat and biolatency) and to the workload's
# own timing of its syscalls.  Each tolerance is stated where it is used.
. "$(dirname "$0")/lib.sh"
need_root_bpf
for t in offcputime runqlat biolatency; do
	command -v $t > /dev/null || skip_all "needs libbpf-tools ($t); 'make deps' installs it"
done
P=$(cd "$(dirname "$0")/../peers" && pwd)
export TRACT WORKLOAD

# |a - b| <= tol
within() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; if (d <= t) exit 0;
		print a " and " b " differ by " d " > " t; exit 1 }'
}

# two log2 buckets (their upper bounds) are the same or next to each other
near_bucket() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0 && a <= 2 * b && b <= 2 * a) exit 0;
		print "buckets below " a " and below " b " are not the same or adjacent"; exit 1 }'
}

# ---- off-CPU share per thread against offcputime and the kernel, over the same window ----
# offcpu.sh prints per thread "tid comm offcputime tract kernel tract_run
# kernel_run tract_onrq kernel_onrq samples sampler unsampled stolen" (see there).
# A share tract reads from N samples strays from the truth of its window by
# sampling alone: three standard errors, 3 * sqrt(p (1 - p) / N), with p the
# kernel's share.  To that add the window's share the sampler spent on a CPU
# in its passes (the thread it displaced reads as running at the pass's
# moment, while the kernel counts it off), the share no pass stands for
# (the recorder was late; the threads may have done anything then), and
# 0.005 for the kernel's own figures (threads start in 10 ms ticks, and a
# running thread's time lags by up to a tick, over 10 s or more).
# The host's steal, where the kernel is the reference, on one side only:
# the time the host took from a CPU a thread held is off CPU to the kernel
# (neither on a CPU nor queued) and on a CPU to tract, whose pass finds the
# thread RUN on its CPU, and to offcputime, which times switches by the
# wall clock (tests/lib/steal.sh).  So tract may read a thread on a CPU more,
# and off it less, than the kernel by the thread's stolen share (at most
# offcpu.sh's figure), and never the other way; against offcputime, which
# counts it as tract does, nothing is given back.
SHARE_BOUND='function bound(p, n, s, u) { if (p < 0) p = 0; if (p > 1) p = 1; return 3 * sqrt(p * (1 - p) / n) + s + u + 0.005 }'
# Two threads spinning on two CPUs: the sampler takes one of the CPUs at
# every pass, and what it displaced must read as running, not queued.
"$P/offcpu.sh" 10 50 "$WORK/spin" --only hog --hogs 2 > "$WORK/spin.txt" 2> "$WORK/spin.err"
ok "two spinners: both compared ($(tr '\n' ';' < "$WORK/spin.txt"))" \
	test "$(grep -c ' hog[01] ' "$WORK/spin.txt")" -eq 2
ok "two spinners: each one's off-CPU share is offcputime's, within the bound of its samples" \
	awk "$SHARE_BOUND"' / hog[01] / { b = bound($3, $10, $11, $12); d = $4 - $3
		if (d > b || d < -b) { print $2 ": tract " $4 " against " $3 " (bound " b ")"; bad = 1 } } END { exit bad }' "$WORK/spin.txt"
# what the kernel says the spinners did in the window, whatever else ran
# there: RUN is their time on a CPU, RUN or RUNQ that and their time queued
# for one (all of it, for a spinner); the sampler's share counts only
# against RUN, where what it displaced reads as running; the stolen share
# only above, where tract counts it and the kernel does not
ok "and tract's RUN share of each is its share on a CPU, RUN and RUNQ its share on a CPU or queued" \
	awk "$SHARE_BOUND"' / hog[01] / { n++
		b = bound($7, $10, $11, $12); d = $6 - $7
		if (d > b + $13 || d < -b) { print $2 ": RUN " $6 " against on a CPU " $7 " (bound " b ", stolen " $13 ")"; bad = 1 }
		b = bound($9, $10, 0, $12); d = $8 - $9
		if (d > b + $13 || d < -b) { print $2 ": RUN+RUNQ " $8 " against " $9 " (bound " b ", stolen " $13 ")"; bad = 1 } }
	     END { exit bad || n != 2 }' "$WORK/spin.txt"

# Lock contention beside a spinner, a pipe ping-pong and an fsync loop, as
# the issue tried it: three threads take turns on a mutex held 2 ms.
# offcputime adds the cost of its own program to every switch it times: on
# threads that switch hundreds of thousands of times a second (ping, pong)
# it strays from the kernel's own accounting (schedstat) by 0.02 to 0.1, so a
# thread on which it strays by more than 0.02 is held to the kernel's figure
# instead.
"$P/offcpu.sh" 20 50 "$WORK/mix" --dir "$DISK_DIR" --only spin,futex,pingpong,fsync --lockers 3 --hold-us 2000 \
	> "$WORK/mix.txt" 2> "$WORK/mix.err"
ok "mixed: all eight threads compared ($(tr '\n' ';' < "$WORK/mix.txt"))" \
	test "$(wc -l < "$WORK/mix.txt")" -eq 8
# The kernel's figure strays too: its run time leaves out the interrupts
# that ran while the thread had its CPU, which for the fsync thread (its
# disk's completions) has put it 0.08 above both tools.  So where the two
# references differ by more than 0.02, tract is held to the nearer.
# Ping and pong, which switch every few microseconds, tract reads on a CPU
# 0.01-0.05 more of the time than the kernel does and 0.04-0.10 more than
# offcputime, at 12, 50 and 100 passes a second alike (so not the passes'
# own cost): a known bias not explained yet, held to 0.08 until it is.
# The kernel's figure given its steal back is a range: from its off-CPU
# share less the thread's stolen share to the share itself, and distances
# to it are to the nearest point of that range.
ok "mixed: every thread's off-CPU share is offcputime's, or the kernel's where offcputime strays, within the bound of its samples (ping and pong 0.08)" \
	awk "$SHARE_BOUND"' function off(a, b) { return a > b ? a - b : b - a }
	     function offk(a, k, s) { return a > k ? a - k : a < k - s ? k - s - a : 0 }
	     { peer = $3; tr = $4; kern = $5; st = $13; ref = peer; dk = 0
	       if (offk(peer, kern, st) > 0.02 && offk(tr, kern, st) < off(tr, peer)) { ref = kern; dk = 1 }
	       b = bound(ref, $10, $11, $12); if ($2 ~ /^p[io]ng$/ && b < 0.08) b = 0.08
	       d = dk ? offk(tr, kern, st) : off(tr, peer)
	       if (d > b) { print $2 ": tract " tr " against " (dk ? "the kernel " : "offcputime ") ref " (bound " b ", stolen " st ")"; bad = 1 } }
	     END { exit bad }' "$WORK/mix.txt"
# offcputime is the peer: most of the threads that switch less often than
# ping and pong must agree with it directly, within the same bound, not only
# with the kernel's figure (the two references drift apart by 0.02 or more
# on slower machines, where interrupts take more of a thread's time, and by
# the host's steal, which both tract and offcputime count on a CPU: nothing
# to give back here)
ok "mixed: at least three of the spinner and the three lockers are within the bound of offcputime itself" \
	awk "$SHARE_BOUND"' function off(a, b) { return a > b ? a - b : b - a }
	     $2 ~ /^(spin|futex[0-2])$/ { if (off($4, $3) <= bound($3, $10, $11, $12)) n++ }
	     END { exit n < 3 }' "$WORK/mix.txt"

# ---- off-CPU time by kernel stack: the same seconds, by the function each
# blocked thread waits in, from its switch out to its switch in: offcputime
# times the run-queue wait after the wakeup into the sleep's stack, so tract's
# side counts the woken thread's RUNQ samples under its wait too.  (Where the
# fsync thread was asleep in under a fifth of its samples, its sleeps alone
# split 0.4 away from offcputime's.)  Of some 1,000 samples a thread, a
# share's standard deviation is under 0.02; fsync's time between the bio and the page
# waits moves more from run to run, so 0.1.
"$P/offcpu_waits.sh" "$WORK/mix" > "$WORK/waits.txt" 2> "$WORK/waits.err"
ok "mixed: the blocked threads' waits by kernel stack compared ($(tr '\n' ';' < "$WORK/waits.txt"))" \
	test "$(grep -c ' \(fsync\|futex[0-2]\|ping\|pong\) ' "$WORK/waits.txt")" -eq 6
# (a thread whose stacks offcputime lost under load, "-", is not held to it; five of the seven must be)
waits_agree() {
	awk '$4 == "-" { next } { n++; d = $4 - $5; if (d > 0.1 || d < -0.1) { print $2 " " $3 ": offcputime " $4 ", tract " $5; bad = 1 } }
	     END { if (n < 5) print n " threads compared"; exit bad || n < 5 }' "$1"
}
# Both tools measure the same seconds, so a thread they split differently
# is shown whole, by both, and measured once more: once in some hundred runs
# one tool's fsync split between the bio and the page waits has strayed,
# and the second measurement tells a stray run from a wrong tool.
if ! waits_agree "$WORK/waits.txt" > "$WORK/waits.diff"; then
	echo "# the waits differ: $(cat "$WORK/waits.diff"); offcputime's: $(tr '\n' ';' < "$WORK/mix/peer_waits.txt")"
	echo "# tract's: $("$TRACT" query -D "$WORK/mix/store" -w "pcomm = workload and state in (SLEEP, DISK, RUNQ)" -g comm,state,wait --format csv | tr '\n' ';')"
	echo "# measuring the mixed workload's waits once more"
	"$P/offcpu.sh" 20 50 "$WORK/mix2" --dir "$DISK_DIR" --only spin,futex,pingpong,fsync --lockers 3 --hold-us 2000 \
		> "$WORK/mix2.txt" 2> "$WORK/mix2.err"
	"$P/offcpu_waits.sh" "$WORK/mix2" > "$WORK/waits.txt" 2> "$WORK/waits.err"
fi
ok "mixed: each one's main wait holds the same share of its blocked time in offcputime's stacks, within 0.1" \
	waits_agree "$WORK/waits.txt"

# ---- run-queue delay per process against runqlat -P ----
# Four spinners on two CPUs and a ping-pong: long waits and very short ones.
# runqlat's histogram bounds the mean between its buckets' low and high ends;
# tract keeps the sum, so its mean must fall inside, with 10% for the
# seconds where one tool is attached and the other not yet.
"$P/runqlat.sh" 8 "$WORK/rq" --only hog,pingpong --hogs 4 > "$WORK/rq.txt" 2> "$WORK/rq.err"
v() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/rq.txt"; }
ok "runqlat and tract count the same switch-ins, within 5% ($(v peer_switches), $(v tract_switches))" \
	within "$(v tract_switches)" "$(v peer_switches)" "$(awk -v n="$(v peer_switches)" 'BEGIN { print n * 0.05 }')"
ok "tract's mean run-queue delay ($(v tract_mean) us) lies within runqlat's bounds ($(v peer_mean_lo) .. $(v peer_mean_hi))" \
	awk -v m="$(v tract_mean)" -v lo="$(v peer_mean_lo)" -v hi="$(v peer_mean_hi)" \
	'BEGIN { exit !(m >= lo * 0.9 && m <= hi * 1.1) }'
ok "and its p50 bucket is runqlat's or the next ($(v tract_p50_le), $(v peer_p50_le))" \
	near_bucket "$(v tract_p50_le)" "$(v peer_p50_le)"

# ---- block I/O latency against biolatency -D -Q ----
disk=$(lsblk -ndo pkname "$(df --output=source "$DISK_DIR" | tail -n 1)" 2> /dev/null)
[ -n "$disk" ] || disk=$(basename "$(df --output=source "$DISK_DIR" | tail -n 1)")
"$P/biolatency.sh" 8 "$WORK/bio" "$disk" --dir "$DISK_DIR" --only fsync,direct > "$WORK/bio.txt" 2> "$WORK/bio.err"
b() { awk -v k="$1" '$1 == k { print $2 }' "$WORK/bio.txt"; }
test_expect_success "the workload's writes are seen by both ($(b peer_count) and $(b tract_count) requests on $disk)" '
	test_holds "$(b peer_count)" -gt 1000 &&
	test_holds "$(b tract_count)" -gt 1000
'
ok "block I/O p50: tract's bucket is biolatency's or the next ($(b tract_p50_le), $(b peer_p50_le))" \
	near_bucket "$(b tract_p50_le)" "$(b peer_p50_le)"
ok "block I/O p99: likewise ($(b tract_p99_le), $(b peer_p99_le))" \
	near_bucket "$(b tract_p99_le)" "$(b peer_p99_le)"

# ---- syscall latency against the workload's own timing ----
# The workload reads the clock around each call, so it also times the way
# into the kernel and back and a preemption on the way out; tract times
# sys_enter to sys_exit.  Means may differ by that (2 us here, where a
# getppid costs about 1 us) plus a quarter; a tail is compared only where
# it is far above it (p50 of 16 us or more).
"$P/syscalls.sh" 8 "$WORK/sc" --dir "$DISK_DIR" --only fsync,pingpong > "$WORK/sc.txt" 2> "$WORK/sc.err"
# field N of the line "WHO CALL calls p50_le p99_le mean_us"
sc() { awk -v w="$1" -v c="$2" -v n="$3" '$1 == w && $2 == c { print $n }' "$WORK/sc.txt"; }
close_mean() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; if (d <= 2 + b / 4) exit 0;
		print "means " a " and " b " us differ by more than 2 us and a quarter"; exit 1 }'
}
for call in fsync read; do
	ok "$call: tract counts the calls the workload made, within 1% ($(sc own $call 3), $(sc tract $call 3))" \
		within "$(sc tract $call 3)" "$(sc own $call 3)" "$(awk -v n="$(sc own $call 3)" 'BEGIN { print n * 0.01 + 2 }')"
	ok "$call: p50 in the same or the next bucket ($(sc tract $call 4), $(sc own $call 4))" \
		near_bucket "$(sc tract $call 4)" "$(sc own $call 4)"
	ok "$call: mean $(sc tract $call 6) us against $(sc own $call 6) us" close_mean "$(sc tract $call 6)" "$(sc own $call 6)"
done
ok "fsync p99: the same or the next bucket ($(sc tract fsync 5), $(sc own fsync 5))" \
	near_bucket "$(sc tract fsync 5)" "$(sc own fsync 5)"
done_testing
