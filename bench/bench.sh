#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tract's benchmark: every figure is the median of ROUNDS repeats, each with
# its baseline taken in the same run, printed side by side with the bars of
# the spec.  Needs root (it loads BPF programs).
set -u
OUT=${OUT:-build}
B=$OUT/bench
TRACT=$OUT/tract
ROUNDS=${ROUNDS:-7}
SYSCALLS=${SYSCALLS:-2000000}
PINGPONGS=${PINGPONGS:-100000}
tmp=$(mktemp -d /var/tmp/tract-bench.XXXXXX)
pids=()
stats_was=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)

cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$stats_was" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root to load BPF programs" >&2; exit 2; }

median() { sort -g | awk '{ a[NR] = $1 } END { if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
calc() { awk "BEGIN { printf \"%.${2:-1}f\", $1 }"; }

# wait_for FILE PATTERN: until the background program says it is ready
wait_for() {
	for _ in $(seq 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
	echo "bench: timed out waiting for '$2' in $1" >&2; cat "$1" >&2; exit 1
}

FLOOR_PID=
start_floor() {
	"$B/floor" "$OUT/empty.bpf.o" "$@" > "$tmp/floor.out" 2>&1 &
	FLOOR_PID=$!; pids+=("$FLOOR_PID")
	wait_for "$tmp/floor.out" ready
}
stop_floor() { kill "$FLOOR_PID"; wait "$FLOOR_PID" 2>/dev/null; }

TRACT_PID=
start_tract() {
	"$TRACT" record "$@" 2> "$tmp/tract.err" > /dev/null &
	TRACT_PID=$!; pids+=("$TRACT_PID")
	for _ in $(seq 200); do
		bpftool prog show 2>/dev/null | grep -q 'name tract_sample_pass' && return 0
		sleep 0.05
	done
	echo "bench: tract record did not start" >&2; cat "$tmp/tract.err" >&2; exit 1
}
stop_tract() { kill -INT "$TRACT_PID"; wait "$TRACT_PID" 2>/dev/null; }

progress() { printf '%s\n' "$*" >&2; }

# ---- 1 + 3: ns per syscall and per pipe round trip -------------------------
# This machine drifts by more than the costs measured, so every measurement
# is paired with a baseline taken just before it, and the figure is the
# median of those differences.  The ping-pong pair is pinned to one CPU:
# spread over two, its round trip swings by a factor of two with where the
# scheduler puts the threads.
progress "bench: syscall and ping-pong costs, $ROUNDS rounds"
# paired NAME PINGPONG START STOP: baselines with nothing attached, then the
# same loops with START's programs attached; the differences are the costs
paired() {
	local name=$1 pp=$2 start=$3 stop=$4 base with pbase pwith
	base=$("$B/syscall_loop" "$SYSCALLS")
	[ "$pp" = yes ] && pbase=$(taskset -c 0 "$B/pingpong" "$PINGPONGS")
	$start
	with=$("$B/syscall_loop" "$SYSCALLS")
	[ "$pp" = yes ] && pwith=$(taskset -c 0 "$B/pingpong" "$PINGPONGS")
	$stop
	echo "$base" >> "$tmp/sc.base"
	echo "$with" >> "$tmp/sc.$name"
	echo "$(calc "$with - $base" 2)" >> "$tmp/sc.d_$name"
	if [ "$pp" = yes ]; then
		echo "$pbase" >> "$tmp/pp.base"
		echo "$pwith" >> "$tmp/pp.$name"
		echo "$(calc "$pwith - $pbase" 1)" >> "$tmp/pp.d_$name"
	fi
}
floor_exit() { start_floor floor_sys_enter floor_sys_exit; }
floor_same() { start_floor floor_sys_enter floor_sched_waking; }
tract_plain() { start_tract -F 1 -o "$tmp/store-$r"; }
tract_lat() { start_tract -F 1 --syscall-latency -o "$tmp/store-lat-$r"; }
EVERYTHING="--syscall-latency --wakeup-edges --runq-latency"
tract_all() { start_tract -F 1 $EVERYTHING -o "$tmp/store-all-$r"; }
for r in $(seq "$ROUNDS"); do
	paired floor no floor_exit stop_floor
	paired floor_same yes floor_same stop_floor
	paired tract yes tract_plain stop_tract
	paired tract_lat no tract_lat stop_tract
	paired tract_all yes tract_all stop_tract
done
for f in sc.base sc.floor sc.floor_same sc.tract sc.tract_lat pp.base pp.floor_same pp.tract \
	 sc.d_floor sc.d_floor_same sc.d_tract sc.d_tract_lat pp.d_floor_same pp.d_tract \
	 sc.d_tract_all pp.d_tract_all; do
	eval "${f/./_}=$(median < "$tmp/$f")"
done

# ---- 2: BPF run time per call, tract and empty programs on the same hooks,
# each alone under the same load: programs sharing a hook would skew each
# other's figures (the first to run pays for the cold cache lines)
progress "bench: BPF run time per call"
# prog_stats FILE: per-call run time of every floor_ and tract_ program
prog_stats() {
	"$B/syscall_loop" 500000 > /dev/null
	"$B/pingpong" 50000 > /dev/null
	bpftool prog show 2>/dev/null | awk '
		/ name (tract_|floor_)/ { for (i = 1; i <= NF; i++) { if ($i == "name") n = $(i + 1); if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") c = $(i + 1) }
		                          if (c > 0) printf "%s %.2f\n", n, t / c; t = c = 0 }' >> "$tmp/$1"
}
sysctl -qw kernel.bpf_stats_enabled=1
for r in $(seq "$ROUNDS"); do
	start_floor floor_sys_enter floor_sched_waking floor_sched_switch
	prog_stats runtime
	stop_floor
	start_tract -F 1 -o "$tmp/stats-$r"
	prog_stats runtime
	stop_tract
	start_tract -F 1 $EVERYTHING -o "$tmp/stats-all-$r"
	prog_stats runtime_all
	stop_tract
done
sysctl -qw kernel.bpf_stats_enabled="$stats_was"
# prog_ns NAME [FILE]
prog_ns() { awk -v n="$1" '$1 == n { print $2 }' "$tmp/${2:-runtime}" | median; }

# ---- 4 + 5: the sampler at 1,000 and 10,000 threads; memory ----------------
sampler_run() {
	local n=$1 mode=${2:-}
	"$B/threads" "$n" $mode > "$tmp/threads.out" &
	local tp=$!; pids+=("$tp")
	wait_for "$tmp/threads.out" ready
	start_tract -F 2 -d 8 -p "$tp" -o "$tmp/threads-$n$mode"
	sleep 6
	local maps memlock=0
	maps=$(bpftool prog show name tract_sample_pass 2>/dev/null | sed -n 's/.*map_ids \([0-9,]*\).*/\1/p' | tr , ' ')
	for m in $maps; do
		memlock=$((memlock + $(bpftool map show id "$m" | sed -n 's/.*memlock \([0-9]*\)B.*/\1/p')))
	done
	local rss
	rss=$(awk '/VmHWM/ { print $2 }' "/proc/$TRACT_PID/status")
	wait "$TRACT_PID"
	kill "$tp"; wait "$tp" 2>/dev/null
	local db
	db=$(ls "$tmp/threads-$n$mode"/*.db | tail -n 1)
	# the first pass unwinds every stack; later passes reuse stacks of threads still asleep
	sqlite3 -batch -noheader "$db" "
		select (select cpu_us from passes order by id limit 1),
		       (select cpu_us from passes where id > (select min(id) from passes) order by cpu_us
		        limit 1 offset (select (count(*) - 1) / 2 from passes) - 1),
		       (select max(visited) from passes), (select min(emitted) from passes),
		       (select sum(dropped) from passes), count(*) from passes" | tr '|' ' ' > "$tmp/sampler-$n$mode"
	echo "$memlock $rss" > "$tmp/mem-$n$mode"
}
progress "bench: sampler at 1,000 threads"
sampler_run 1000
progress "bench: sampler at 10,000 threads"
sampler_run 10000
progress "bench: sampler at 10,000 idle threads"
sampler_run 10000 idle

# ---- 6: bytes per sample on disk, recording the workload -------------------
progress "bench: store size, 20 s of the workload at 10 Hz"
"$OUT/workload" --dir "$tmp" > "$tmp/wl.out" 2>&1 &
wl=$!; pids+=("$wl")
wait_for "$tmp/wl.out" ready
"$TRACT" record -F 10 -d 20 --all -o "$tmp/size" 2> /dev/null
kill "$wl"; wait "$wl" 2>/dev/null
# the run may straddle an hour: count every file
samples=0
bytes=0
for db in "$tmp"/size/*.db; do
	samples=$((samples + $(sqlite3 "$db" "select count(*) from sample_facts")))
	bytes=$((bytes + $(stat -c %s "$db")))
done

# ---- 7: query and top over a generated store --------------------------------
progress "bench: tract query over a million samples, tract top over an hour of 100 threads"
"$(dirname "$0")/query_store.sh" "$TRACT" "$OUT/workload" "$tmp/q1m" 10000
"$(dirname "$0")/query_store.sh" "$TRACT" "$OUT/workload" "$tmp/q1h" 3600
q1m_rows=$(sqlite3 "$tmp/q1m/tract-20260101-00.db" "select count(*) from sample_facts")
q1h_rows=$(sqlite3 "$tmp/q1h/tract-20260101-00.db" "select count(*) from sample_facts")
hour="--from @1767225600 --to @1767229200"
# seconds ARGS...: wall time of one run of tract
seconds() {
	local t0 t1
	t0=$(date +%s%N)
	"$TRACT" "$@" > /dev/null
	t1=$(date +%s%N)
	calc "($t1 - $t0) / 1e9" 3
	echo
}
for r in $(seq "$ROUNDS"); do
	seconds query -D "$tmp/q1m" $hour >> "$tmp/q.group"
	seconds query -D "$tmp/q1m" $hour -g pcomm,wait -w 'state != RUN' >> "$tmp/q.filter"
	seconds top -D "$tmp/q1h" $hour -b -n 1 >> "$tmp/q.top"
done
q_group=$(median < "$tmp/q.group")
q_filter=$(median < "$tmp/q.filter")
q_top=$(median < "$tmp/q.top")

# ---- 8: agreement with the peers, on the same seconds -----------------------
# The figures tests/integration/85-peers.t holds to their tolerances.
progress "bench: agreement with offcputime, runqlat, biolatency and the workload's own timing"
P=$(dirname "$0")/../tests/peers
export TRACT WORKLOAD=$OUT/workload
disk=$(lsblk -ndo pkname "$(df --output=source "$tmp" | tail -n 1)" 2> /dev/null)
[ -n "$disk" ] || disk=$(basename "$(df --output=source "$tmp" | tail -n 1)")
"$P/offcpu.sh" 10 50 "$tmp/ag-spin" --only hog --hogs 2 > "$tmp/ag-spin.txt" 2> /dev/null
"$P/offcpu.sh" 20 50 "$tmp/ag-mix" --dir "$tmp" --only spin,futex,pingpong,fsync --lockers 3 --hold-us 2000 \
	> "$tmp/ag-mix.txt" 2> /dev/null
"$P/runqlat.sh" 8 "$tmp/ag-rq" --only hog,pingpong --hogs 4 > "$tmp/ag-rq.txt" 2> /dev/null
"$P/biolatency.sh" 8 "$tmp/ag-bio" "$disk" --dir "$tmp" --only fsync,direct > "$tmp/ag-bio.txt" 2> /dev/null
"$P/syscalls.sh" 8 "$tmp/ag-sc" --dir "$tmp" --only fsync,pingpong > "$tmp/ag-sc.txt" 2> /dev/null
# worst |tract - reference| over the threads of one run; the reference is
# offcputime, or the kernel's accounting where offcputime strays by > 0.02
worst_offcpu() {
	awk '$2 != "workload" { ref = $3; if ($3 - $5 > 0.02 || $5 - $3 > 0.02) { ref = $5; k++ } else o++
	      d = $4 - ref; if (d < 0) d = -d; if (d > m) m = d }
	     END { printf "%.3f %d %d", m, o, k }' "$1"
}
kv() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
sc() { awk -v w="$2" -v c="$3" -v n="$4" '$1 == w && $2 == c { print $n }' "$1"; }

# ---- the table ---------------------------------------------------------------
read -r c1k_first c1k_med v1k e1k d1k _ < "$tmp/sampler-1000"
read -r c10k_first c10k_med v10k e10k d10k _ < "$tmp/sampler-10000"
read -r _ cidle_med vidle eidle _ _ < "$tmp/sampler-10000idle"
read -r mem1k rss1k < "$tmp/mem-1000"
read -r mem10k rss10k < "$tmp/mem-10000"
sc_floor_d=$sc_d_floor
sc_tract_d=$sc_d_tract
pp_floor_d=$pp_d_floor_same
pp_floor=$pp_floor_same
pp_tract_d=$pp_d_tract
verdict() { awk "BEGIN { print ($1) ? \"meets\" : \"MISSES\" }"; }

echo
echo "tract bench ($(uname -r), $(nproc) CPUs, median of $ROUNDS rounds; each cost against a baseline taken just before it)"
echo
printf '%-48s %12s %12s  %s\n' "measure" "value" "bar" "verdict"
printf '%-48s %12s %12s  %s\n' "-------" "-----" "---" "-------"
row() { printf '%-48s %12s %12s  %s\n' "$@"; }
row "getppid ns/call, no BPF" "$sc_base" "" ""
row "getppid ns/call, floor: empty sys_enter+sys_exit" "$sc_floor" "" ""
row "getppid ns/call, empty progs on tract's hooks" "$sc_floor_same" "" ""
row "getppid ns/call, tract record running" "$sc_tract" "" ""
row "  added by the floor" "+$sc_floor_d" "" ""
row "  added by tract (xcapture v3: about +130)" "+$sc_tract_d" "<= +$(calc "1.5 * $sc_floor_d")" \
	"$(verdict "$sc_tract_d <= 1.5 * $sc_floor_d")"
row "  added by tract --syscall-latency (opt-in)" "+$sc_d_tract_lat" "" ""
row "  added by tract, everything on (opt-ins too)" "+$sc_d_tract_all" "" ""
row "pipe round trip ns, no BPF" "$pp_base" "" ""
row "pipe round trip ns, empty progs on tract's hooks" "$pp_floor" "" ""
row "pipe round trip ns, tract record running" "$pp_tract" "" ""
row "  added by the empty programs" "+$pp_floor_d" "" ""
row "  added by tract" "+$pp_tract_d" "" ""
row "  added by tract, everything on (opt-ins too)" "+$pp_d_tract_all" "" ""
for h in sys_enter sched_waking; do
	t=$(prog_ns "tract_$h"); f=$(prog_ns "floor_$h")
	row "BPF ns/call $h: tract (empty)" "$t ($f)" "<= $(calc "2 * $f")" "$(verdict "$t <= 2 * $f")"
done
row "everything on: $EVERYTHING" "" "" ""
for h in sys_enter sched_waking sched_switch; do
	t=$(prog_ns "tract_$h" runtime_all); f=$(prog_ns "floor_$h")
	row "  BPF ns/call $h: tract (empty)" "$t ($f)" "<= $(calc "2 * $f")" "$(verdict "$t <= 2 * $f")"
done
row "  BPF ns/call sys_exit (--syscall-latency)" "$(prog_ns tract_sys_exit runtime_all)" "" ""
row "  BPF ns/call timer expiry marks (default too)" "$(prog_ns tract_hrtimer_entry runtime_all)" "" ""
row "BPF ns/tick on-CPU profile (default, 49 Hz a CPU)" "$(prog_ns tract_profile)" "" ""
row "BPF ns/call sampler, per task visited" "$(prog_ns tract_sample_pass)" "" ""
row "sampler CPU us/pass, 1,000 threads (first pass)" "$c1k_med ($c1k_first)" "" ""
row "sampler CPU us/visited thread, 1,000" "$(calc "$c1k_med / $v1k" 3)" "<= 1" "$(verdict "$c1k_med / $v1k <= 1")"
row "sampler CPU us/pass, 10,000 threads (first pass)" "$c10k_med ($c10k_first)" "" ""
row "sampler CPU us/visited thread, 10,000" "$(calc "$c10k_med / $v10k" 3)" "<= 1" "$(verdict "$c10k_med / $v10k <= 1")"
row "  first pass (all stacks unwound), per thread" "$(calc "$c10k_first / $v10k" 3)" "" ""
row "sampler CPU us/visited thread, 10,000 idle ($eidle rows)" "$(calc "$cidle_med / $vidle" 3)" "<= 1" "$(verdict "$cidle_med / $vidle <= 1")"
row "rows per pass at 10,000 active (min), dropped" "$e10k, $d10k" ">= 10000, 0" "$(verdict "$e10k >= 10000 && $d10k == 0")"
row "BPF memory locked KiB, 1,000 / 10,000 threads" "$((mem1k / 1024)) / $((mem10k / 1024))" "<= 32768" \
	"$(verdict "$mem10k <= 32 * 1048576")"
row "recorder max RSS, KiB (1,000 / 10,000 threads)" "$rss1k / $rss10k" "" ""
row "store bytes/sample (workload, --all, 10 Hz)" "$(calc "$bytes / $samples")" "<= 40" "$(verdict "$bytes / $samples <= 40")"
row "  samples stored" "$samples" "" ""
row "query s, $q1m_rows samples, -g state,syscall,pcomm" "$q_group" "<= 0.5" "$(verdict "$q_group <= 0.5")"
row "query s, same, -g pcomm,wait -w 'state != RUN'" "$q_filter" "<= 0.5" "$(verdict "$q_filter <= 0.5")"
row "top refresh s, 1 hour of ~100 threads ($q1h_rows)" "$q_top" "<= 0.2" "$(verdict "$q_top <= 0.2")"
read -r spin_worst _ _ <<< "$(worst_offcpu "$tmp/ag-spin.txt")"
read -r mix_worst mix_oc mix_k <<< "$(worst_offcpu "$tmp/ag-mix.txt")"
row "agreement: off-CPU share, 2 spinners, 2 CPUs: max |d|" "$spin_worst" "<= 0.05" "$(verdict "$spin_worst <= 0.05")"
row "agreement: off-CPU share, locks, spin, pipe, fsync" "$mix_worst" "<= 0.05" "$(verdict "$mix_worst <= 0.05")"
row "  threads held to offcputime / to the kernel's" "$mix_oc / $mix_k" "" ""
rq_m=$(kv "$tmp/ag-rq.txt" tract_mean); rq_lo=$(kv "$tmp/ag-rq.txt" peer_mean_lo); rq_hi=$(kv "$tmp/ag-rq.txt" peer_mean_hi)
row "agreement: runq mean us, tract (runqlat's bounds)" "$rq_m ($rq_lo..$rq_hi)" "inside" \
	"$(verdict "$rq_m >= 0.9 * $rq_lo && $rq_m <= 1.1 * $rq_hi")"
rq_t=$(kv "$tmp/ag-rq.txt" tract_p50_le); rq_p=$(kv "$tmp/ag-rq.txt" peer_p50_le)
row "agreement: runq p50 bucket, tract / runqlat" "< $rq_t / < $rq_p" "same/next" "$(verdict "$rq_t <= 2 * $rq_p && $rq_p <= 2 * $rq_t")"
row "  switch-ins counted, tract / runqlat" "$(kv "$tmp/ag-rq.txt" tract_switches) / $(kv "$tmp/ag-rq.txt" peer_switches)" "" ""
for q in p50 p99; do
	bt=$(kv "$tmp/ag-bio.txt" tract_${q}_le); bp=$(kv "$tmp/ag-bio.txt" peer_${q}_le)
	row "agreement: block I/O $q bucket, tract / biolatency" "< $bt / < $bp" "same/next" "$(verdict "$bt <= 2 * $bp && $bp <= 2 * $bt")"
done
for call in fsync read; do
	mt=$(sc "$tmp/ag-sc.txt" tract $call 6); mo=$(sc "$tmp/ag-sc.txt" own $call 6)
	row "agreement: $call mean us, tract / the workload's" "$mt / $mo" "2 + 25%" \
		"$(verdict "($mt - $mo) <= 2 + $mo / 4 && ($mo - $mt) <= 2 + $mo / 4")"
done
