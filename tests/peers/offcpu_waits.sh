#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Off-CPU time by kernel stack, after offcpu.sh: per thread, the kernel
# function it waits in that holds most of its blocked time in tract (the
# wait column), and that function's share of the thread's blocked time in
# tract and in offcputime's stacks of the same seconds.
#
# Blocked is from a switch out to sleep until the next switch in, as
# offcputime times it: asleep (SLEEP, DISK in tract) and then woken and
# waiting for a CPU (RUNQ with the wait's stack still on it; a thread that
# runs a short wait on a busy host can spend most of its blocked time so).
# Run-queue time after a preemption is not blocked, in either tool.
# offcputime's stacks start in
# the scheduler; its wait function is the first frame outside the kernel's
# .sched.text (schedule, io_schedule, __mutex_lock_slowpath, ...), which is
# where the kernel's own stack walk of a sleeping task starts, as tract's
# does.  Stacks that went off CPU by preemption (an interrupt's or a
# syscall's exit, cond_resched) are not blocked and are left out, and so
# are stacks offcputime lost ("[Missed Kernel Stack]").  offcputime loses a
# stack for the whole run when its hash lands in the bucket of another
# stack kept before it, so a thread with more than 5% of its time in lost
# stacks is not compared: its kept stacks no longer say where its time went.
#
# usage: offcpu_waits.sh OUTDIR (offcpu.sh's)
# prints "tid comm wait offcputime_share tract_share" per thread.
set -eu
out=$1
. "$(dirname "$0")/lib.sh"
# the names of the functions in .sched.text
awk '$3 == "__sched_text_start" { lo = $1 } $3 == "__sched_text_end" { hi = $1 }
     { addr[NR] = $1; name[NR] = $3 }
     END { for (i = 1; i <= NR; i++) if (addr[i] >= lo && addr[i] < hi) print name[i] }' /proc/kallsyms |
	sort -u > "$out/sched_text.txt"
# offcputime's blocks: kernel frames innermost first (user frames after a "--"), "- comm (tid)", µs
# the frames a thread preempted, not blocked, goes off its CPU in
preempt_re='^(preempt_schedule|irqentry_exit|exit_to_user_mode|__cond_resched|raw_irqentry_exit)'
awk -v preempt_re="$preempt_re" 'NR == FNR { sched[$1] = 1; next }
	/^ *- +[^ ].*\([0-9]+\)$/ { tid = $NF; gsub(/[()]/, "", tid); next }
	/^ *-+ *$/ { user = 1; next }
	/^ *[0-9]+$/ {
		if (tid != "" && missed) lost[tid] += $1
		if (tid != "" && !preempted && !missed && wait != "") { t[tid " " wait] += $1; all[tid] += $1 }
		tid = ""; wait = ""; user = 0; preempted = 0; missed = 0; next }
	# a stack offcputime could not keep (its table full under load) says nothing of the wait
	/Missed Kernel Stack/ { missed = 1; next }
	!user && wait == "" {
		f = $NF; sub(/\+0x[0-9a-f]+$/, "", f)
		if (f ~ preempt_re) preempted = 1
		else if (!(f in sched) && f !~ /^(bpf_prog_|__traceiter_|__bpf_trace_|bpf_trace_run|finish_task_switch)/) wait = f }
	END { for (k in t) { split(k, a, " "); if (lost[a[1]] <= 0.05 * (all[a[1]] + lost[a[1]]))
		printf "%s %s %.4f\n", a[1], a[2], t[k] / all[a[1]] } }' \
	"$out/sched_text.txt" "$out/offcputime.txt" | sort > "$out/peer_waits.txt"
# the seconds offcputime measured (offcpu.sh's window)
# shellcheck disable=SC2046
"$TRACT" query -D "$out/store" $(cat "$out/range") -w "pcomm = workload and state in (SLEEP, DISK, RUNQ)" -g tid,comm,wait --format csv |
	awk -F, -v preempt_re="$preempt_re" 'NR > 1 && $3 != "" && $3 !~ preempt_re { w[$1 " " $2 " " $3] = $4; all[$1] += $4
		if ($4 > top[$1]) { top[$1] = $4; name[$1] = $2 " " $3 } }
		END { for (t in top) printf "%s %s %.4f\n", t, name[t], top[t] / all[t] }' | sort > "$out/tract_waits.txt"
# offcputime times a block when it ends: a thread asleep across the whole
# window (the workload's main thread, in sigtimedwait) has none of its
# blocked time there, and its few stacks (from before the window) say
# nothing of its wait.  Where offcputime's off-CPU time of a thread is under
# half of the kernel's (offcpu.sh's peer.txt and kernel.txt), it is not held to it.
awk 'FILENAME ~ /peer.txt$/ { off[$1] = $2; next } { if (off[$1] < 0.5 * $2 * $5) missed[$1] = 1 }
     END { for (t in missed) print t }' "$out/peer.txt" "$out/kernel.txt" > "$out/peer_missed.txt"
# per thread: its top wait in tract, with offcputime's share of it (0 when it
# has none, - when it lost its stacks or missed the thread's blocks)
awk 'FILENAME ~ /peer_missed.txt$/ { missed[$1] = 1; next }
	FILENAME ~ /peer_waits.txt$/ { peer[$1 " " $2] = $3; seen[$1] = 1; next }
	{ if (seen[$1] && !missed[$1]) printf "%s %s %s %.4f %s\n", $1, $2, $3, peer[$1 " " $3] + 0, $4
	  else printf "%s %s %s - %s\n", $1, $2, $3, $4 }' \
	"$out/peer_missed.txt" "$out/peer_waits.txt" "$out/tract_waits.txt"
