#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run-queue latency of the workload process: tract record --runq-latency
# against libbpf-tools runqlat -P over the same life of the workload.
#
# usage: runqlat.sh SECONDS OUTDIR WORKLOAD-ARGS...
# prints, for the workload process, as "name value":
#   peer_switches, peer_mean_lo, peer_mean_hi (the mean runqlat's buckets allow),
#   peer_p50_le (the upper bound of runqlat's p50 bucket, in tract's terms),
#   tract_switches, tract_mean, tract_p50_le
set -eu
. "$(dirname "$0")/lib.sh"
secs=$1 out=$2
shift 2
mkdir -p "$out"
rm -rf "$out/store"
peer_stub "$out" -d "$secs" "$@"
# one histogram, printed when SIGINT comes after the workload is gone
# (an interval counted from runqlat's start would end too early where the
# recorder takes long to attach, on a loaded machine)
runqlat -P -p "$stub" 99999 1 > "$out/runqlat.txt" 2> "$out/runqlat.err" &
peer=$!
peer_attached "$peer" sched_wakeup_new
# The histograms are per process, kept in the kernel and emptied at each
# pass: the waits after the last pass before the workload exits are counted
# only by a pass after it.  So the recorder also follows a keeper that
# outlives the workload, and stops (with its last process) once a pass after
# the workload's end is stored, however late that comes on a busy machine.
sleep 3600 &
keeper=$!
"$TRACT" record --runq-latency -F 10 -p "$stub,$keeper" -o "$out/store" 2> "$out/record.err" &
rec=$!
peer_attached "$rec" tract_sample_pass
# passes_after US: wait until a pass after that time is stored (a deadline of 10 s)
passes_after() {
	for _ in $(seq 200); do
		[ "$(sqlite3 "$(ls "$out"/store/tract-*.db 2> /dev/null | tail -n 1)" "select count(*) from passes where ts_us > $1" 2> /dev/null)" -ge 1 ] 2> /dev/null && return
		sleep 0.05
	done
}
# the recorder's first pass, so that it samples from the first thread on
passes_after 0
peer_go
wait "$stub"
kill -INT "$peer"
passes_after $(($(date +%s%N) / 1000))
kill "$keeper"
wait "$rec" "$peer"

# runqlat's slot s holds waits in [2^s, 2^(s+1)) us, slot 0 [0, 2): in tract's
# terms the bucket below 2^(s+1); tract's first two buckets (below 1 and 2)
# are its slot 0
awk '
	/^pid = / { in_it = 1; next }
	in_it && /->/ {
		split($0, f, ":"); split(f[1], r, "->"); lo = r[1] + 0; hi = r[2] + 1; n = f[2] + 0
		count[++k] = n; le[k] = hi; total += n; sum_lo += n * lo; sum_hi += n * hi
	}
	END {
		if (!total) exit 1
		for (i = 1; i <= k; i++) { seen += count[i]; if (seen >= total / 2) { p50 = le[i]; break } }
		printf "peer_switches %d\npeer_mean_lo %.3f\npeer_mean_hi %.3f\npeer_p50_le %d\n",
		       total, sum_lo / total, sum_hi / total, p50
	}' "$out/runqlat.txt"
sqlite3 -batch -noheader -separator ' ' "$(peer_db "$out")" "
	with h as (select max(le_us, 2) as le, sum(count) as n, sum(sum_us) as s from runq_latency
		   where tgid = $stub group by 1),
	     t as (select sum(n) as total, sum(s) as sum from h),
	     c as (select le, sum(n) over (order by le) as seen from h)
	select 'tract_switches', total from t
	union all select 'tract_mean', round(sum * 1.0 / total, 3) from t
	union all select 'tract_p50_le', min(le) from c where seen >= (select total from t) / 2.0"
