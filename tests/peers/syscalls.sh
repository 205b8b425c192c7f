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
"$TRACT" record --syscall-latency -F 10 -d $((secs + 2)) -p "$stub" -o "$out/store" 2> "$out/record.err" &
rec=$!
peer_attached tract_sys_exit
peer_attached tract_sample_pass
peer_go
wait "$stub" "$rec"

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
