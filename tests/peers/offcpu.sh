#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Per-thread off-CPU share of the workload over one window: tract (Σ weight of
# non-RUN samples / Σ weight) against libbpf-tools offcputime (its off-CPU
# time) and the kernel's own accounting (/proc/PID/task/TID/schedstat: time
# on a CPU and on a run queue).
#
# All three measure the same seconds: each thread's life from its birth, when
# offcputime and tract already follow the process and schedstat starts from
# zero, to the end of the window, when schedstat is read and offcputime is
# stopped at once (SIGINT); tract is queried for that window (--from/--to).
# The workload runs on after it, so that no thread ends inside it.
#
# usage: offcpu.sh SECONDS HZ OUTDIR WORKLOAD-ARGS...
# prints per thread of the workload, as shares of its life in the window:
#   tid comm offcputime tract kernel tract_run kernel_run tract_onrq kernel_onrq
#   samples sampler unsampled stolen
# (off-CPU shares; RUN against on a CPU; RUN or RUNQ against on a CPU or a run
# queue; tract's samples of the thread; the window's share the sampler spent
# on a CPU in its passes; the window's share no pass stands for; and at
# most how much of its life the host stole from a CPU the thread held: the
# kernel counts that off CPU, offcputime and tract on one, see
# tests/lib/steal.sh)
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/steal.sh"
secs=$1 hz=$2 out=$3
shift 3
mkdir -p "$out"
rm -rf "$out/store"
peer_stub "$out" "$@"
# offcputime until SIGINT ends its window; stacks kept deep and many enough
# for offcpu_waits.sh
offcputime --stack-storage-size=65536 --perf-max-stack-depth=48 -p "$stub" 3600 > "$out/offcputime.txt" 2> "$out/offcputime.err" &
peer=$!
peer_attached "$peer" sched_switch
"$TRACT" record --all -F "$hz" -p "$stub" -o "$out/store" 2> "$out/record.err" &
rec=$!
peer_attached "$rec" tract_sample_pass
# the recorder's first pass stored, so that it samples from the first thread on
# (a deadline of 10 s)
for _ in $(seq 200); do
	[ "$(sqlite3 "$(ls "$out"/store/tract-*.db 2> /dev/null | tail -n 1)" "select count(*) from passes" 2> /dev/null)" -ge 1 ] 2> /dev/null && break
	sleep 0.05
done
steal0=$(steal_now)
t0=$(date +%s%N)
read -r up0 _ < /proc/uptime
peer_go
sleep "$secs"
# per thread: tid, ns on a CPU, ns on a run queue, life in the window in ns
# (from its start time in /proc/PID/task/TID/stat, or the window's start for
# the main thread, which the stub was before, to now, both in ticks of
# USER_HZ since boot, read with shell builtins so that a busy machine does
# not stretch the reading)
hz_user=$(getconf CLK_TCK)
read -r up _ < /proc/uptime
for t in /proc/"$stub"/task/*; do
	read -r on rq _ < "$t/schedstat" && read -r stat < "$t/stat" && echo "${t##*/} $on $rq ${stat##*) }"
done 2> /dev/null | awk -v up="$up" -v up0="$up0" -v hz="$hz_user" '{ s = $23 / hz; if (s < up0) s = up0; printf "%s %s %s %.0f\n", $1, $2, $3, (up - s) * 1e9 }' |
	sort > "$out/sched1"
t1=$(date +%s%N)
steal1=$(steal_now)
kill -INT "$peer"
wait "$peer" || :
kill "$stub"
wait "$stub" || :
wait "$rec"
# the thread's stolen time: at most the window's steal, and at most what the
# kernel counted neither on a CPU nor queued
awk -v st="$(($(steal_us "$steal0" "$steal1") * 1000))" '{ s = $4 - $2 - $3; if (s > st) s = st; if (s < 0) s = 0
	printf "%s %.4f %.4f %.4f %.0f %.4f\n", $1, 1 - $2 / $4, $2 / $4, ($2 + $3) / $4, $4, s / $4 }' "$out/sched1" > "$out/kernel.txt"
# offcputime's figure is off-CPU microseconds per stack, under "- comm (tid)";
# a thread's first interval may carry its name before the workload named it
awk '
	/^ *- / { tid = $NF; gsub(/[()]/, "", tid); next }
	/^ *[0-9]+$/ && tid != "" { off[tid] += $1; tid = "" }
	END { for (t in off) printf "%s %.0f\n", t, off[t] * 1000 }' "$out/offcputime.txt" |
	sort > "$out/peer.txt"
at() { echo "@$(($1 / 1000000000)).$(printf %09d $(($1 % 1000000000)) | cut -c1-6)"; }
range="--from $(at "$t0") --to $(at "$t1")"
# the window, for offcpu_waits.sh
echo "$range" > "$out/range"
# the name a thread had last; shares of its samples' weight
"$TRACT" query -D "$out/store" $range --format csv --sql "
	select tid, comm, max(ts_us) as last,
	       round(sum(case when state != 'RUN' then weight_us else 0 end) * 1.0 / sum(weight_us), 4) as off,
	       round(sum(case when state = 'RUN' then weight_us else 0 end) * 1.0 / sum(weight_us), 4) as run,
	       round(sum(case when state in ('RUN', 'RUNQ') then weight_us else 0 end) * 1.0 / sum(weight_us), 4) as onrq,
	       count(*) as n
	from samples where pcomm = 'workload' group by tid" | tail -n +2 | tr -d '\r' | tr ',' ' ' | sort > "$out/tract.txt"
"$TRACT" query -D "$out/store" $range --format csv --sql "
	select coalesce(sum(cpu_us), 0), coalesce(sum(unsampled_us), 0) from passes" | tail -n 1 | tr -d '\r' | tr ',' ' ' > "$out/passes.txt"
read -r cpu_us unsampled_us < "$out/passes.txt"
# tid off-ns, then tid comm last off run onrq n, then tid off run onrq life-ns stolen
join "$out/peer.txt" "$out/tract.txt" | join - "$out/kernel.txt" |
	awk -v c="$cpu_us" -v u="$unsampled_us" -v w="$(((t1 - t0) / 1000))" '{
		printf "%s %s %.4f %s %s %s %s %s %s %s %.4f %.4f %s\n", $1, $3, $2 / $12, $5, $9, $6, $10, $7, $11, $8, c / w, u / w, $13 }'
