#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Per-thread off-CPU share of the workload: tract (Σ weight of non-RUN samples
# / Σ weight) against libbpf-tools offcputime (its off-CPU time over the
# threads' life) and the kernel's own accounting (1 - time on a CPU from
# /proc/PID/task/TID/schedstat, over the middle of the run).
#
# usage: offcpu.sh SECONDS HZ OUTDIR WORKLOAD-ARGS...
# prints "tid comm offcputime tract kernel" per thread of the workload.
set -eu
. "$(dirname "$0")/lib.sh"
secs=$1 hz=$2 out=$3
shift 3
mkdir -p "$out"
rm -rf "$out/store"
peer_stub "$out" -d "$secs" "$@"
offcputime -p "$stub" $((secs + 6)) > "$out/offcputime.txt" 2> "$out/offcputime.err" &
peer=$!
peer_attached sched_switch
"$TRACT" record --all -F "$hz" -d $((secs + 2)) -p "$stub" -o "$out/store" 2> "$out/record.err" &
rec=$!
peer_attached tract_sample_pass
# the recorder's first pass, so that it samples from the first thread on
sleep 0.3
peer_go
# the kernel's accounting, as a third opinion: time on a CPU per thread
sleep 1
snap() { for t in /proc/"$stub"/task/*; do echo "${t##*/} $(cut -d' ' -f1 "$t/schedstat")"; done 2> /dev/null; }
snap > "$out/sched0"
t0=$(date +%s%N)
sleep $((secs - 3))
snap > "$out/sched1"
t1=$(date +%s%N)
wait "$stub" "$rec" "$peer"
join "$out/sched0" "$out/sched1" | awk -v w=$((t1 - t0)) '{ printf "%s %.4f\n", $1, 1 - ($3 - $2) / w }' |
	sort > "$out/kernel.txt"
# offcputime's figure is off-CPU microseconds per stack, under "- comm (tid)";
# a thread's first interval may carry its name before the workload named it
awk -v life="$secs" '
	/^ *- / { tid = $NF; gsub(/[()]/, "", tid); next }
	/^ *[0-9]+$/ && tid != "" { off[tid] += $1; tid = "" }
	END { for (t in off) printf "%s %.4f\n", t, off[t] / (life * 1e6) }' "$out/offcputime.txt" |
	sort > "$out/peer.txt"
sqlite3 -batch -noheader -separator ' ' "$(peer_db "$out")" \
	"select tid, (select comm from samples l where l.tid = s.tid order by ts_us desc limit 1),
	        round(sum(case when state != 'RUN' then weight_us else 0 end) * 1.0 / sum(weight_us), 4)
	 from samples s where pcomm = 'workload' group by tid" | sort > "$out/tract.txt"
join "$out/peer.txt" "$out/tract.txt" | join - "$out/kernel.txt" | awk '{ print $1, $3, $2, $4, $5 }'
