#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The recorder's own CPU per pass at RATE passes a second (1), beside N threads
# (bench/threads.c) that each wait in a pipe read (every pass stores N
# rows), or with MODE=idle in an idle pool (visited and skipped, as the
# reference sampler skips sleeping threads by default).  ROUNDS
# rounds, each a recorder of its own; in each, windows of WINDOW seconds
# (16: the pass cut at either end is a few percent of it) after its first
# passes (the first unwinds every stack):
#  - the recorder's threads' CPU time (schedstat, nanoseconds): the sampler
#    thread (the BPF scan, reading it, resolving the rows) and the writer's
#    (the store);
#  - then with the kernel's BPF statistics on: the scan program's own time.
# With perf, a third window samples the sampler thread to say how much of
# its time is in user space.  Prints the medians over the rounds:
#   "total_ms sampler_ms writer_ms scan_ms sampler_user_pct passes"
# Usage: [MODE=idle] [RATE=HZ] sampler_cost.sh TRACT THREADS_BIN N [ROUNDS] [WINDOW].  Needs root.
set -u
TRACT=$1 THREADS=$2 N=$3 ROUNDS=${4:-5} WINDOW=${5:-16}
tmp=$(mktemp -d /var/tmp/tract-sampler-cost.XXXXXX)
stats_was=$(sysctl -n kernel.bpf_stats_enabled 2> /dev/null || echo 0)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	sysctl -qw kernel.bpf_stats_enabled="$stats_was" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
[ "$(id -u)" -eq 0 ] || { echo "sampler_cost: needs root to load BPF programs" >&2; exit 2; }
[ "$N" -gt 0 ] 2> /dev/null || { echo "usage: sampler_cost.sh TRACT THREADS_BIN N [ROUNDS] [WINDOW]" >&2; exit 2; }

median() { sort -g | awk '{ a[NR] = $1 } END { if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
now_us() { echo $(($(date +%s%N) / 1000)); }
# CPU nanoseconds of one thread of the recorder
thread_ns() { awk '{ print $1 }' "/proc/$1/task/$2/schedstat" 2> /dev/null || echo 0; }
# every thread's but the sampler's: the writer, and any other the store starts
others_ns() {
	local t s=0
	for t in /proc/"$1"/task/*; do
		[ "${t##*/}" = "$1" ] && continue
		s=$((s + $(awk '{ print $1 }' "$t/schedstat" 2> /dev/null || echo 0)))
	done
	echo "$s"
}
# run_time_ns of the scan program of recorder $1 (others may be running beside it: its own, by its fds)
scan_ns() {
	local ids
	ids=$(sed -n 's/^prog_id:[[:space:]]*//p' /proc/"$1"/fdinfo/* 2> /dev/null | sort -u | tr '\n' ' ')
	bpftool -j prog show 2> /dev/null | python3 -c '
import json, sys
ids = set(int(i) for i in sys.argv[1].split())
print(sum(p.get("run_time_ns", 0) for p in json.load(sys.stdin)
          if p.get("name") == "tract_sample_pass" and p.get("id") in ids))' "$ids"
}
# passes the store holds from $2 to $3 (microseconds since the epoch)
passes_between() {
	local db n=0
	for db in "$1"/*.db; do
		n=$((n + $(sqlite3 -batch -noheader "$db" "select count(*) from passes where ts_us >= $2 and ts_us < $3")))
	done
	echo "$n"
}
per_pass_ms() { awk -v ns="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.3f", ns / n / 1e6; else print "nan" }'; }

for r in $(seq "$ROUNDS"); do
	"$THREADS" "$N" ${MODE:-} > "$tmp/threads.out" &
	tp=$!; pids+=("$tp")
	for _ in $(seq 400); do grep -q ready "$tmp/threads.out" && break; sleep 0.05; done
	store=$tmp/store-$r
	"$TRACT" record -F "${RATE:-1}" -p "$tp" -o "$store" 2> "$tmp/record.err" > /dev/null &
	rec=$!; pids+=("$rec")
	for _ in $(seq 400); do ls "$store"/*.db > /dev/null 2>&1 && break; sleep 0.05; done
	sleep 4
	# window 1: CPU time of the recorder's threads
	s0=$(thread_ns "$rec" "$rec"); w0=$(others_ns "$rec"); t0=$(now_us)
	sleep "$WINDOW"
	s1=$(thread_ns "$rec" "$rec"); w1=$(others_ns "$rec"); t1=$(now_us)
	# window 2: the scan program's own time, the statistics on only here (they cost it two clock reads a task)
	sysctl -qw kernel.bpf_stats_enabled=1
	b0=$(scan_ns "$rec"); u0=$(now_us)
	sleep "$WINDOW"
	b1=$(scan_ns "$rec"); u1=$(now_us)
	sysctl -qw kernel.bpf_stats_enabled=0
	# window 3: where the sampler thread's time goes, user space or the kernel's
	user_pct=nan
	if command -v perf > /dev/null; then
		perf record -q -F 9999 -t "$rec" -o "$tmp/perf.data" -- sleep "$WINDOW" > /dev/null 2>&1
		user_pct=$(perf script -i "$tmp/perf.data" -F ip,sym 2> /dev/null |
			awk '{ n++; if ($1 !~ /^ffff/) u++ } END { if (n) printf "%.0f", 100 * u / n; else print "nan" }')
	fi
	kill -INT "$rec"; wait "$rec" 2> /dev/null
	kill "$tp"; wait "$tp" 2> /dev/null
	# ended: no pid of theirs is signalled again, whoever has it by then
	pids=()
	n1=$(passes_between "$store" "$t0" "$t1")
	n2=$(passes_between "$store" "$u0" "$u1")
	sampler=$(per_pass_ms $((s1 - s0)) "$n1")
	writer=$(per_pass_ms $((w1 - w0)) "$n1")
	echo "$(per_pass_ms $((s1 - s0 + w1 - w0)) "$n1")" >> "$tmp/total"
	echo "$sampler" >> "$tmp/sampler"
	echo "$writer" >> "$tmp/writer"
	echo "$(per_pass_ms $((b1 - b0)) "$n2")" >> "$tmp/scan"
	echo "$user_pct" >> "$tmp/user"
	echo "$n1" >> "$tmp/passes"
	rm -rf "$store"
done
echo "$(median < "$tmp/total") $(median < "$tmp/sampler") $(median < "$tmp/writer") $(median < "$tmp/scan")" \
	"$(median < "$tmp/user") $(median < "$tmp/passes")"
