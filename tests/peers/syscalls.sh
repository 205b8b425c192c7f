#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Syscall latency: tract record --syscall-latency against the workload's
# own timing of the same calls (--timings: it reads the clock around each).
#
# usage: syscalls.sh SECONDS OUTDIR WORKLOAD-ARGS...
# prints per syscall "syscall calls p50_le p99_le mean_us", first what the
# workload measured (lines "own ..."), then tract's ("tract ..."); bucket
# bounds are below this many microseconds.
set -eu
. "$(dirname "$0")/lib.sh"
secs=$1 out=$2
shift 2
mkdir -p "$out"
rm -rf "$out/store" "$out/timings.txt"
peer_stub "$out" -d "$secs" --timings "$out/timings.txt" "$@"
# The histograms are per process, kept in the kernel and emptied at each
# pass: the calls after the last pass before the workload exits are counted
# only by a pass after it.  So the recorder also follows a keeper that
# outlives the workload, and stops (with its last process) once a pass after
# the workload's end is stored, however late that comes on a busy machine.
sleep 3600 &
keeper=$!
"$TRACT" record --syscall-latency -F 10 -p "$stub,$keeper" -o "$out/store" 2> "$out/record.err" &
rec=$!
peer_attached "$rec" tract_sys_exit
peer_attached "$rec" tract_sample_pass
peer_go
wait "$stub"
gone=$(($(date +%s%N) / 1000))
# a deadline of 10 s
for _ in $(seq 200); do
	[ "$(sqlite3 "$(ls "$out"/store/tract-*.db 2> /dev/null | tail -n 1)" "select count(*) from passes where ts_us > $gone" 2> /dev/null)" -ge 1 ] 2> /dev/null && break
	sleep 0.05
done
kill "$keeper"
wait "$rec"

# the workload's file: "syscall le_us count" per bucket, then "syscall mean_us M calls"
awk '
	$2 == "mean_us" { mean[$1] = $3; next }
	{ n[$1, ++k[$1]] = $3; le[$1, k[$1]] = $2; total[$1] += $3 }
	END {
		for (s in total) {
			seen = 0; p50 = p99 = 0
			for (i = 1; i <= k[s]; i++) {
				seen += n[s, i]
				if (!p50 && seen >= total[s] * 0.5) p50 = le[s, i]
				if (!p99 && seen >= total[s] * 0.99) p99 = le[s, i]
			}
			printf "own %s %d %d %d %.3f\n", s, total[s], p50, p99, mean[s]
		}
	}' "$out/timings.txt" | sort
sqlite3 -batch -noheader -separator ' ' "$(peer_db "$out")" "
	with h as (select syscall, le_us as le, sum(count) as n, sum(sum_us) as s from syscall_latency
		   where tgid = $stub and syscall in ('fsync', 'pwrite64', 'read', 'write') group by 1, 2),
	     t as (select syscall, sum(n) as total, sum(s) as sum from h group by 1),
	     c as (select syscall, le, sum(n) over (partition by syscall order by le) as seen from h)
	select 'tract', t.syscall, t.total,
	       (select min(le) from c where c.syscall = t.syscall and seen >= t.total * 0.5),
	       (select min(le) from c where c.syscall = t.syscall and seen >= t.total * 0.99),
	       round(t.sum * 1.0 / t.total, 3)
	from t order by 2"
