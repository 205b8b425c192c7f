#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Block I/O latency of a disk: tract's io_latency histograms against
# libbpf-tools biolatency -D -Q (queued to completed, as tract measures)
# over the same seconds, while the workload writes to that disk.
#
# usage: biolatency.sh SECONDS OUTDIR DISK WORKLOAD-ARGS...
# DISK is the device name (vda, sda, nvme0n1); tract's partitions of it are
# added up.  Prints "name value": peer_count, peer_p50_le, peer_p99_le,
# tract_count, tract_p50_le, tract_p99_le, tract_mean_us (bucket bounds are
# in tract's terms: below this many microseconds).
set -eu
. "$(dirname "$0")/lib.sh"
secs=$1 out=$2 disk=$3
shift 3
mkdir -p "$out"
rm -rf "$out/store"
peer_stub "$out" -d "$secs" "$@"
biolatency -D -Q -d "$disk" "$secs" 1 > "$out/biolatency.txt" 2> "$out/biolatency.err" &
peer=$!
peer_attached "$peer" block_rq_complete_btf
"$TRACT" record -F 10 -d "$secs" -p "$stub" -o "$out/store" 2> "$out/record.err" &
rec=$!
peer_attached "$rec" tract_sample_pass
peer_go
wait "$stub" "$rec" "$peer"

# biolatency's slot s holds [2^s, 2^(s+1)) us, slot 0 [0, 2): tract's bucket below 2^(s+1)
awk '
	/->/ { split($0, f, ":"); split(f[1], r, "->"); n = f[2] + 0; count[++k] = n; le[k] = r[2] + 1; total += n }
	END {
		if (!total) exit 1
		for (i = 1; i <= k; i++) {
			seen += count[i]
			if (!p50 && seen >= total * 0.5) p50 = le[i]
			if (!p99 && seen >= total * 0.99) p99 = le[i]
		}
		printf "peer_count %d\npeer_p50_le %d\npeer_p99_le %d\n", total, p50, p99
	}' "$out/biolatency.txt"
sqlite3 -batch -noheader -separator ' ' "$(peer_db "$out")" "
	with h as (select max(le_us, 2) as le, sum(count) as n, sum(sum_us) as s from io_latency
		   where dev = '$disk' or dev glob '$disk[0-9]*' or dev glob '${disk}p[0-9]*' group by 1),
	     t as (select sum(n) as total, sum(s) as sum from h),
	     c as (select le, sum(n) over (order by le) as seen from h)
	select 'tract_count', total from t
	union all select 'tract_p50_le', min(le) from c where seen >= (select total from t) * 0.5
	union all select 'tract_p99_le', min(le) from c where seen >= (select total from t) * 0.99
	union all select 'tract_mean_us', round(sum * 1.0 / total, 1) from t"
