#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Per-thread off-CPU share of the workload: tract against libbpf-tools
# offcputime over the same seconds.  Both watch the workload from its first
# thread to its last: it is exec'd under a pid both already follow, so no
# off-CPU interval is cut at a window's edge (offcputime counts one only when
# it ends), and both windows are the threads' whole lives.
#
# usage: offcpu.sh SECONDS HZ OUTDIR WORKLOAD-ARGS...
# prints "tid comm offcputime tract" per thread; tract's store is OUTDIR/store.
set -eu
: "${TRACT:?TRACT must point at the tract binary}"
: "${WORKLOAD:?WORKLOAD must point at the workload binary}"
secs=$1 hz=$2 out=$3
shift 3
mkdir -p "$out"
rm -rf "$out/store"
fifo=$out/go
rm -f "$fifo"
mkfifo "$fifo"

# the pid that becomes the workload once both observers follow it
sh -c 'read go < "$1"; shift; exec "$@"' sh "$fifo" "$WORKLOAD" -d "$secs" "$@" > "$out/workload.out" 2>&1 &
stub=$!

attached() {
	# attached NAME: a BPF program of that name is loaded
	for _ in $(seq 400); do
		bpftool prog show 2>/dev/null | grep -q " name $1 " && return 0
		sleep 0.025
	done
	echo "offcpu.sh: $1 did not load" >&2
	return 1
}

offcputime -p "$stub" $((secs + 6)) > "$out/offcputime.txt" 2> "$out/offcputime.err" &
peer=$!
attached sched_switch
"$TRACT" record --all -F "$hz" -d $((secs + 2)) -p "$stub" -o "$out/store" 2> "$out/record.err" &
rec=$!
attached tract_sample_pass
# the recorder's first pass, so that it samples from the first thread on
sleep 0.3
echo go > "$fifo"
# the kernel's own accounting, as a third opinion: time on a CPU per thread
sleep 1
for t in /proc/"$stub"/task/*; do echo "${t##*/} $(cut -d' ' -f1 "$t/schedstat")"; done > "$out/sched0" 2>/dev/null || true
t0=$(date +%s%N)
sleep $((secs - 3))
for t in /proc/"$stub"/task/*; do echo "${t##*/} $(cut -d' ' -f1 "$t/schedstat")"; done > "$out/sched1" 2>/dev/null || true
t1=$(date +%s%N)
join "$out/sched0" "$out/sched1" | awk -v w=$((t1 - t0)) '{ printf "%s %.4f\n", $1, 1 - ($3 - $2) / w }' | sort > "$out/sched.txt"
wait "$stub"
wait "$rec"
wait "$peer"
rm -f "$fifo"

# the threads lived about secs seconds; offcputime's figure is off-CPU
# microseconds per stack, under "- comm (tid)"; a thread's first interval may
# carry its name before the workload named it, so threads are told by tid
awk -v life="$secs" '
	/^ *- / { tid = $NF; gsub(/[()]/, "", tid); next }
	/^ *[0-9]+$/ && tid != "" { off[tid] += $1; tid = "" }
	END { for (t in off) printf "%s %.4f\n", t, off[t] / (life * 1e6) }' "$out/offcputime.txt" |
	sort > "$out/peer.txt"
db=$(ls "$out"/store/tract-*.db | tail -n 1)
sqlite3 -batch -noheader -separator ' ' "$db" \
	"select tid, comm, round(sum(case when state != 'RUN' then weight_us else 0 end) * 1.0 / sum(weight_us), 4)
	 from samples where pcomm = 'workload' group by tid order by tid" | sort > "$out/tract.txt"
# tid comm offcputime tract
join "$out/peer.txt" "$out/tract.txt" | awk '{ print $1, $3, $2, $4 }'
