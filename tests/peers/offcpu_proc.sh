#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Per-thread off-CPU share of the workload over one window, the /proc
# source's (Σ weight of non-RUN samples / Σ weight, every thread in every
# pass) against the kernel's own accounting (1 - time on a CPU / the window,
# from /proc/PID/task/TID/schedstat), as tests/integration/56-proc-shares.t
# measures it.  No peer tool: the /proc source has no BPF to compare with
# offcputime's.
#
# The window is the seconds both cover: from the middle of the kernel's
# first reading, taken once the recorder has stored a pass (its start, which
# takes a CPU from the workload, is over), to the middle of the last.
#
# usage: offcpu_proc.sh SECONDS HZ OUTDIR WORKLOAD-ARGS...
# prints per thread of the workload that lived through the window:
#   tid comm tract kernel samples stolen
# (off-CPU shares of the window; tract's samples of the thread; at most how
# much of the window the host stole from a CPU the thread held: the kernel
# counts that off CPU, a pass that finds the thread on its CPU RUN, see
# tests/lib/steal.sh)
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/steal.sh"
secs=$1 hz=$2 out=$3
shift 3
mkdir -p "$out"
rm -rf "$out/store"
"$WORKLOAD" "$@" > "$out/workload.out" 2>&1 &
wl=$!
PEER_PIDS="$PEER_PIDS $wl"
for _ in $(seq 600); do grep -q '^ready' "$out/workload.out" 2> /dev/null && break; sleep 0.05; done
grep -q '^ready' "$out/workload.out" || { echo "offcpu_proc: the workload did not start" >&2; exit 1; }
"$TRACT" record --source proc --all -F "$hz" -p "$wl" -o "$out/store" 2> "$out/record.err" &
rec=$!
PEER_PIDS="$PEER_PIDS $rec"
# the recorder's first pass stored (a deadline of 60 s)
stored() { [ "$(sqlite3 "$(ls "$out"/store/tract-*.db 2> /dev/null | tail -n 1)" "select count(*) from passes" 2> /dev/null)" -ge 1 ] 2> /dev/null; }
for _ in $(seq 1200); do stored && break; sleep 0.05; done
stored || { echo "offcpu_proc: the recorder stored no pass in 60 s" >&2; cat "$out/record.err" >&2; exit 1; }
now_us() { echo $(($(date +%s%N) / 1000)); }
# per thread: tid ns-on-CPU, read with shell builtins so that a busy machine
# does not stretch the reading
sched() {
	for t in /proc/"$wl"/task/*; do
		read -r on _ 2> /dev/null < "$t/schedstat" && echo "${t##*/} $on"
	done | sort
}
steal0=$(steal_now)
a0=$(now_us)
sched > "$out/sched0"
b0=$(now_us)
sleep "$secs"
a1=$(now_us)
sched > "$out/sched1"
b1=$(now_us)
steal1=$(steal_now)
kill -INT "$rec"
wait "$rec"
kill "$wl"
wait "$wl" || :
w0=$(((a0 + b0) / 2)) w1=$(((a1 + b1) / 2))
at() { echo "@$(($1 / 1000000)).$(printf %06d $(($1 % 1000000)))"; }
"$TRACT" query -D "$out/store" --from "$(at "$w0")" --to "$(at "$w1")" --format csv --sql "
	select tid, comm, round(sum(case when state != 'RUN' then weight_us else 0 end) * 1.0 / sum(weight_us), 4),
	       count(*)
	from samples where tgid = $wl group by tid" | tail -n +2 | tr -d '\r' | tr ',' ' ' | sort > "$out/tract.txt"
# tid comm tract n, then tid on0 on1: off-CPU shares of the window, the
# thread's stolen time at most the window's steal and what it spent off CPU
join "$out/tract.txt" "$out/sched0" | join - "$out/sched1" |
	awk -v w="$((w1 - w0))" -v st="$(steal_us "$steal0" "$steal1")" '{
		on = ($6 - $5) / 1000; k = 1 - on / w; if (k < 0) k = 0
		s = w - on; if (s > st) s = st; if (s < 0) s = 0
		printf "%s %s %.4f %.4f %s %.4f\n", $1, $2, $3, k, $4, s / w }'
