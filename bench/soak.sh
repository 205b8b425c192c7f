#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A busy host's day, shortened: the recorder at 10 passes a second beside
# the workload and a loop that starts short-lived programs over and over
# (a build server's, a CI runner's), for SOAK_SECONDS (default 600).  It
# prints the recorder's RSS slope after its first minute, the store's bytes
# a minute, the histogram rows per take, and the rows that name no process,
# beside the bars: RSS <= 1 MB/min, store <= 1.5 MB/min.  Needs root.
set -u
OUT=${OUT:-build}
TRACT=$OUT/tract
SOAK_SECONDS=${SOAK_SECONDS:-600}
HZ=${HZ:-10}
tmp=$(mktemp -d /var/tmp/tract-soak.XXXXXX)
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	# SOAK_KEEP=1: the store stays, to look into
	if [ -n "${SOAK_KEEP:-}" ]; then echo "soak: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
[ "$(id -u)" -eq 0 ] || { echo "soak: needs root to load BPF programs" >&2; exit 2; }
[ "$SOAK_SECONDS" -ge 120 ] || { echo "soak: SOAK_SECONDS must be at least 120 (the first minute is left out)" >&2; exit 2; }

# the churn: programs a shell, a script and a compiler start, each lives a moment
churn() {
	while :; do
		true
		env > /dev/null
		sh -c 'ls /' > /dev/null
		/usr/bin/python3 -c pass
		gcc --version > /dev/null 2>&1
	done
}
churn &
pids+=($!)
"$OUT/workload" > "$tmp/workload.out" 2>&1 &
pids+=($!)
"$TRACT" record -F "$HZ" -o "$tmp/store" 2> "$tmp/record.err" &
rec=$!
pids+=($rec)

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$rec/status" 2> /dev/null; }
# the recorder's own memory, without the pages of files it maps (binaries read for symbols)
anon_kb() { awk '/^RssAnon:/ { print $2 }' "/proc/$rec/status" 2> /dev/null; }
store_kb() { du -sk "$tmp/store" 2> /dev/null | awk '{ print $1 }'; }
# every 10 s: seconds since the start, RSS in KiB, store in KiB, anonymous RSS in KiB
start=$(date +%s)
: > "$tmp/series"
while :; do
	now=$(($(date +%s) - start))
	[ "$now" -ge "$SOAK_SECONDS" ] && break
	kill -0 "$rec" 2> /dev/null || { echo "soak: the recorder ended early:" >&2; cat "$tmp/record.err" >&2; exit 1; }
	echo "$now $(rss_kb) $(store_kb) $(anon_kb)" >> "$tmp/series"
	sleep 10
done
procs=$(ls /proc | grep -c '^[0-9]')
kill -INT "$rec"
wait "$rec"
status=$?
summary=$(grep -c 'passes, .* rows' "$tmp/record.err")

# slopes by least squares over the samples after the first minute, per minute
slope() {
	awk -v col="$1" '$1 >= 60 { n++; x += $1; y += $col; xx += $1 * $1; xy += $1 * $col }
		END { if (n < 2) { print "nan"; exit } printf "%.2f", (n * xy - x * y) / (n * xx - x * x) * 60 / 1024 }' "$tmp/series"
}
db=$(ls "$tmp"/store/tract-*.db | tail -n 1)
q() { sqlite3 -batch -noheader "$db" "$1"; }
takes=$(q "select count(distinct pass) from syscall_latency_facts")
rows=$(q "select count(*) from syscall_latency_facts")
per_take=$(awk -v r="$rows" -v t="$takes" 'BEGIN { printf "%.0f", t ? r / t : 0 }')
max_take=$(q "select coalesce(max(n), 0) from (select count(*) n from syscall_latency_facts group by pass)")
unnamed=$(q "select count(*) from syscall_latency_facts h join processes p on p.id = h.process where p.name is null")
unnamed_procs=$(q "select count(*) from processes where name is null")
rss=$(slope 2)
store=$(slope 3)
anon=$(slope 4)
bar() { awk -v v="$1" -v b="$2" 'BEGIN { print (v != "nan" && v <= b) ? "meets" : "MISSES" }'; }

printf '%-44s %12s %10s %s\n' "soak: $SOAK_SECONDS s at $HZ Hz, churn + workload" value bar verdict
printf '%-44s %12s %10s %s\n' "recorder RSS after the first minute, MB/min" "$rss" "<= 1" "$(bar "$rss" 1)"
printf '%-44s %12s %10s\n' "  of it anonymous (not files mapped), MB/min" "$anon" ""
printf '%-44s %12s %10s %s\n' "store growth after the first minute, MB/min" "$store" "<= 1.5" "$(bar "$store" 1.5)"
printf '%-44s %12s %10s\n' "recorder RSS at the end, MB" "$(awk -v k="$(tail -n 1 "$tmp/series" | cut -d' ' -f2)" 'BEGIN { printf "%.1f", k / 1024 }')" ""
printf '%-44s %12s %10s\n' "syscall histogram rows a take (max)" "$per_take ($max_take)" ""
printf '%-44s %12s %10s %s\n' "histogram rows naming no process" "$unnamed" "0" "$([ "$unnamed" -eq 0 ] && echo meets || echo MISSES)"
printf '%-44s %12s %10s\n' "processes rows without a name" "$unnamed_procs" ""
printf '%-44s %12s %10s %s\n' "the recorder's summary at exit (exit $status)" "$summary" "1" "$([ "$summary" -eq 1 ] && echo meets || echo MISSES)"
printf '%-44s %12s\n' "processes alive at the end" "$procs"
