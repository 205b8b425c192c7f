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

mounted_tracefs=
# nothing of a run outlives it, also one stopped half-way: its processes, a
# ClickHouse server it started, the tracefs it mounted, its files
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	# a server stopped on the way has no pid file left: no other process is signalled
	command -v ch_stop_all > /dev/null && ch_stop_all
	wait 2>/dev/null
	[ -n "$mounted_tracefs" ] && umount /sys/kernel/tracing
	sysctl -qw kernel.bpf_stats_enabled="$stats_was" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root to load BPF programs" >&2; exit 2; }
# run-time statistics cost every program two clock reads: off but where they are the measure
sysctl -qw kernel.bpf_stats_enabled=0

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
# scheduler puts the threads.  getppid is a syscall tract leaves untimed
# (it never waits); a one-byte read of /dev/zero is one it times.
progress "bench: syscall and ping-pong costs, $ROUNDS rounds"
# paired NAME START STOP: baselines with nothing attached, then the same
# loops with START's programs attached; the differences are the costs
paired() {
	local name=$1 start=$2 stop=$3 base with rbase rwith pbase pwith
	base=$("$B/syscall_loop" "$SYSCALLS")
	rbase=$("$B/syscall_loop" "$SYSCALLS" read)
	pbase=$(taskset -c 0 "$B/pingpong" "$PINGPONGS")
	$start
	with=$("$B/syscall_loop" "$SYSCALLS")
	rwith=$("$B/syscall_loop" "$SYSCALLS" read)
	pwith=$(taskset -c 0 "$B/pingpong" "$PINGPONGS")
	$stop
	echo "$base" >> "$tmp/sc.base"
	echo "$rbase" >> "$tmp/rd.base"
	echo "$pbase" >> "$tmp/pp.base"
	echo "$(calc "$with - $base" 2)" >> "$tmp/sc.d_$name"
	echo "$(calc "$rwith - $rbase" 2)" >> "$tmp/rd.d_$name"
	echo "$(calc "$pwith - $pbase" 1)" >> "$tmp/pp.d_$name"
}
# the floors: empty programs on the syscall hooks, and on every hot hook tract's default uses
floor_sc() { start_floor floor_sys_enter floor_sys_exit; }
floor_all() { start_floor floor_sys_enter floor_sys_exit floor_sched_waking floor_sched_switch; }
tract_default() { start_tract -F 1 -o "$tmp/store-$r"; }
tract_all() { start_tract -F 1 --runq-latency -o "$tmp/store-all-$r"; }
# what a user would start for the same answers: libbpf-tools runqlat,
# offcputime, biolatency and syscount -L together (syscount attaches by
# tracefs, mounted for it if it is not)
PEERS_PIDS=()
start_peers() {
	local before t
	before=$(bpftool prog show 2>/dev/null | grep -c '^[0-9]')
	for t in "runqlat" "offcputime" "biolatency" "syscount -L"; do
		/usr/sbin/$t > /dev/null 2>&1 &
		PEERS_PIDS+=($!); pids+=($!)
	done
	# attached when their programs are all loaded: a second with nothing new
	for _ in $(seq 100); do
		sleep 0.2
		t=$(bpftool prog show 2>/dev/null | grep -c '^[0-9]')
		[ "$t" -gt "$before" ] && [ "$t" = "${last:-}" ] && break
		last=$t
	done
}
stop_peers() { kill -INT "${PEERS_PIDS[@]}" 2>/dev/null; wait "${PEERS_PIDS[@]}" 2>/dev/null; PEERS_PIDS=(); }
if [ -x /usr/sbin/syscount ] && [ ! -e /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && mounted_tracefs=1
fi
have_peers=
[ -x /usr/sbin/runqlat ] && [ -x /usr/sbin/offcputime ] && [ -x /usr/sbin/biolatency ] && [ -x /usr/sbin/syscount ] && have_peers=1
for r in $(seq "$ROUNDS"); do
	paired floor floor_sc stop_floor
	paired floor_all floor_all stop_floor
	paired tract tract_default stop_tract
	paired tract_all tract_all stop_tract
	[ -n "$have_peers" ] && paired peers start_peers stop_peers
done
[ -n "$mounted_tracefs" ] && umount /sys/kernel/tracing && mounted_tracefs=
for f in sc.base rd.base pp.base; do eval "${f/./_}=$(median < "$tmp/$f")"; done
for n in floor floor_all tract tract_all peers; do
	for k in sc rd pp; do eval "${k}_${n}=$(median < "$tmp/$k.d_$n" 2> /dev/null)"; done
done

# ---- 2: BPF run time per call, tract and empty programs on the same hooks,
# each set alone under the same loads, taken loop by loop: a timed syscall
# (read) costs sys_exit its clock reads, an untimed one (getppid) does not
progress "bench: BPF run time per call"
# prog_counts: "name run_time_ns run_cnt" of every floor_ and tract_ program
prog_counts() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    n = p.get("name", "")
    if n.startswith(("tract_", "floor_")):
        print(n, p.get("run_time_ns", 0), p.get("run_cnt", 0))'
}
# per_call BEFORE AFTER LABEL: "LABEL name ns/call" for each program that ran between
per_call() {
	awk -v l="$3" 'NR == FNR { t[$1] = $2; c[$1] = $3; next }
		$3 > c[$1] { printf "%s %s %.2f\n", l, $1, ($2 - t[$1]) / ($3 - c[$1]) }' "$1" "$2"
}
# prog_stats FILE: run each loop and note each program's run time per call in it
prog_stats() {
	local loop
	for loop in getppid read pingpong; do
		prog_counts > "$tmp/pc.before"
		case $loop in
		getppid) "$B/syscall_loop" 500000 > /dev/null ;;
		read) "$B/syscall_loop" 500000 read > /dev/null ;;
		pingpong) taskset -c 0 "$B/pingpong" 50000 > /dev/null ;;
		esac
		prog_counts > "$tmp/pc.after"
		per_call "$tmp/pc.before" "$tmp/pc.after" "$loop" >> "$tmp/$1"
	done
	# timer callbacks on a quiet machine, the hooks they fire at most
	prog_counts > "$tmp/pc.before"
	sleep 2
	prog_counts > "$tmp/pc.after"
	per_call "$tmp/pc.before" "$tmp/pc.after" idle >> "$tmp/$1"
	# and what they cost a CPU in a second there: "idle_cpu name ns/s"
	awk -v cpus="$(nproc)" 'NR == FNR { t[$1] = $2; next }
		$1 in t { printf "idle_cpu %s %.0f\n", $1, ($2 - t[$1]) / 2 / cpus }' "$tmp/pc.before" "$tmp/pc.after" >> "$tmp/$1"
}
sysctl -qw kernel.bpf_stats_enabled=1
for r in $(seq "$ROUNDS"); do
	start_floor floor_sys_enter floor_sys_exit floor_sched_waking floor_sched_switch floor_hrtimer_expire_entry \
		floor_hrtimer_expire_exit floor_timer_expire_entry floor_timer_expire_exit floor_irq_handler_entry \
		floor_irq_handler_exit floor_softirq_entry floor_softirq_exit
	prog_stats runtime
	stop_floor
	# beside the empty sys_enter, as tract's sys_exit runs beside its own: the
	# first program of a kernel entry pays for what the entry left cold
	start_floor floor_sys_enter floor_sys_exit_clock
	prog_stats runtime
	stop_floor
	start_floor floor_sys_enter floor_sys_exit_map floor_sched_waking_map floor_sched_switch_map
	prog_stats runtime
	stop_floor
	# an edge's least, beside the empty sched_waking as tract's runs beside its own
	start_floor floor_sys_enter floor_sched_waking floor_sched_switch_edge
	prog_stats runtime
	stop_floor
	start_tract -F 1 -o "$tmp/stats-$r"
	prog_stats runtime
	stop_tract
	start_tract -F 1 --runq-latency -o "$tmp/stats-all-$r"
	prog_stats runtime_all
	stop_tract
done
sysctl -qw kernel.bpf_stats_enabled=0
# prog_ns LOOP NAME [FILE]: the median run time per call of NAME in LOOP
prog_ns() { awk -v l="$1" -v n="$2" '$1 == l && $2 == n { print $3 }' "$tmp/${3:-runtime}" | median; }

# ---- 4 + 5: the sampler at 1,000 and 10,000 threads; memory ----------------
sampler_run() {
	local n=$1 mode=${2:-}
	"$B/threads" "$n" $mode > "$tmp/threads.out" &
	local tp=$!; pids+=("$tp")
	wait_for "$tmp/threads.out" ready
	start_tract -F 2 -d 8 -p "$tp" -o "$tmp/threads-$n$mode"
	sleep 6
	local maps memlock=0
	# every map of every tract program: the profile's ring and scratch too
	maps=$(bpftool prog show 2>/dev/null | awk '/ name tract_/ { p = 1; next } /^[0-9]+:/ { p = 0 }
		p && /map_ids/ { for (i = 1; i <= NF; i++) if ($i == "map_ids") print $(i + 1) }' | tr , '\n' | sort -un)
	for m in $maps; do
		memlock=$((memlock + $(bpftool map show id "$m" | sed -n 's/.*memlock \([0-9]*\)B.*/\1/p')))
	done
	local rss
	rss=$(awk '/VmHWM/ { print $2 }' "/proc/$TRACT_PID/status")
	wait "$TRACT_PID"
	# the floor: the kernel's task iterator over the same tasks, with an empty program
	"$B/floor" "$OUT/empty.bpf.o" --passes 15 > "$tmp/floor-$n$mode"
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
progress "bench: sampler at 1,000 threads, half of them publishing a trace context"
sampler_run 1000 otel
progress "bench: sampler at 10,000 threads"
sampler_run 10000
progress "bench: sampler at 10,000 idle threads"
sampler_run 10000 idle

# ---- 5b: the recorder's own CPU per pass at 1 Hz, as the reference sampler --
# was measured beside it: every thread of the recorder (the sampler and the
# writer), split by what it does (bench/sampler_cost.sh).  Threads in an
# idle pool, visited and skipped (xcapture skips sleeping threads by
# default), and threads in pipe waits, a row each in every pass.
COST_ROUNDS=${COST_ROUNDS:-3}
for n in 1000 10000; do
	for mode in idle active; do
		progress "bench: the recorder's CPU per pass at 1 Hz, $n $mode threads, $COST_ROUNDS rounds"
		MODE=${mode%active} "$(dirname "$0")/sampler_cost.sh" "$TRACT" "$B/threads" "$n" "$COST_ROUNDS" \
			> "$tmp/cost-$n-$mode"
	done
done

# ---- 6: bytes per sample on disk, recording the workload -------------------
# Two recordings of the same workload, 10 s and 30 s: a file's first pages
# (a page a table, the schema) and its first stacks are paid once an hour;
# what each sample adds is the difference between the two.
progress "bench: store size, 10 s and 30 s of the workload at 10 Hz"
"$OUT/workload" --dir "$tmp" > "$tmp/wl.out" 2>&1 &
wl=$!; pids+=("$wl")
wait_for "$tmp/wl.out" ready
# samples and bytes of a store's files (a run may straddle an hour: every file)
store_size() {
	local samples=0 bytes=0 db
	for db in "$1"/*.db; do
		samples=$((samples + $(sqlite3 "$db" "select count(*) from samples")))
		bytes=$((bytes + $(stat -c %s "$db")))
	done
	echo "$samples $bytes"
}
"$TRACT" record -F 10 -d 10 --all -o "$tmp/size10" 2> /dev/null
"$TRACT" record -F 10 -d 30 --all -o "$tmp/size" 2> /dev/null
# and with 1,000 threads beside it that sleep in one wait each (a pipe read: kept in every pass)
"$B/threads" 1000 > "$tmp/sleepers.out" &
sl=$!; pids+=("$sl")
wait_for "$tmp/sleepers.out" ready
"$TRACT" record -F 10 -d 10 --all -o "$tmp/sleep10" 2> /dev/null
"$TRACT" record -F 10 -d 30 --all -o "$tmp/sleep30" 2> /dev/null
kill "$sl" "$wl"; wait "$sl" "$wl" 2>/dev/null
read -r samples10 bytes10 <<< "$(store_size "$tmp/size10")"
read -r samples bytes <<< "$(store_size "$tmp/size")"
read -r sleep_samples10 sleep_bytes10 <<< "$(store_size "$tmp/sleep10")"
read -r sleep_samples sleep_bytes <<< "$(store_size "$tmp/sleep30")"

# ---- 6b: user stacks by CFI: bytes copied, unwind time, recorder CPU ------
progress "bench: user stacks by CFI and by frame pointers, the workload built without frame pointers"
for how in cfi fp; do
	"$OUT/workload-nofp" --dir "$tmp" --only chain,sort,deep,fsync,pingpong > "$tmp/wl.out" 2>&1 &
	wl=$!; pids+=("$wl")
	wait_for "$tmp/wl.out" ready
	"$TRACT" record -v -F 10 -d 10 --unwind "$how" -p "$(sed -n 's/^ready pid=//p' "$tmp/wl.out")" \
		-o "$tmp/unwind-$how" 2> "$tmp/unwind-$how.err"
	kill "$wl"; wait "$wl" 2>/dev/null
	# the recorder's CPU per pass, the first (symbol tables read) left out
	sqlite3 -batch -noheader "$tmp"/unwind-"$how"/*.db \
		"select cpu_us from passes where id > (select min(id) from passes)" | median > "$tmp/unwind-cpu-$how"
done
# "user stacks: N copied, B bytes each; M unwound, U us and F frames each, C cut"
uw=$(sed -n 's/.*user stacks: \([0-9]*\) copied, \([0-9.]*\) bytes each; \([0-9]*\) unwound, \([0-9.]*\) us and \([0-9.]*\) frames each, \([0-9]*\) cut.*/\1 \2 \3 \4 \5 \6/p' "$tmp/unwind-cfi.err")
read -r uw_copied uw_bytes uw_unwound uw_us uw_frames uw_cut <<< "${uw:-0 0 0 0 0 0}"

# ---- 6d: runtimes: a Python process's frames, a Java process's JIT code named ----
progress "bench: a Python and a Java process, each recorded alone at 10 Hz"
"$(dirname "$0")/runtimes.sh" "$TRACT" "$tmp" 10 > "$tmp/runtimes"
read -r _ py_cpu py_tick py_visit py_us py_stacks < <(grep '^python ' "$tmp/runtimes" || echo "python n/a n/a n/a n/a n/a")
read -r _ java_cpu java_tick java_visit _ _ < <(grep '^java ' "$tmp/runtimes" || echo "java n/a n/a n/a n/a n/a")

# ---- 6c: shipping to ClickHouse: CPU per 10,000 samples, bytes per sample ----
progress "bench: shipping to a private ClickHouse server, the workload with --all at 10 Hz"
. "$(dirname "$0")/../tests/lib/clickhouse.sh"
ch_start "$tmp/ch" 18723 19723 > /dev/null 2>&1 && {
	"$OUT/workload" --dir "$tmp" > "$tmp/wl.out" 2>&1 &
	wl=$!; pids+=("$wl")
	wait_for "$tmp/wl.out" ready
	"$TRACT" record -v -F 10 -d 10 --all --clickhouse http://127.0.0.1:18723 -o "$tmp/ship" 2> "$tmp/ship.err"
	kill "$wl"; wait "$wl" 2>/dev/null
	ch_stop "$tmp/ch"; rm -f "$tmp/ch/pid"
}
# "ClickHouse: B batches, N samples sent, X bytes a sample (gzip); CPU per 10,000 samples: F us making rows, S us shipping"
ship=$(sed -n 's/.*ClickHouse: [0-9]* batches, \([0-9]*\) samples sent, \([0-9.]*\) bytes a sample (gzip); CPU per 10,000 samples: \([0-9]*\) us making rows, \([0-9]*\) us shipping.*/\1 \2 \3 \4/p' "$tmp/ship.err")
read -r ship_rows ship_bytes ship_fmt ship_send <<< "${ship:-0 0 0 0}"

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
	seconds flame -D "$tmp/q1m" $hour -o "$tmp/flame.svg" >> "$tmp/q.flame"
	seconds report -D "$tmp/q1m" $hour -o "$tmp/report.html" >> "$tmp/q.report"
done
report_kib=$(( $(stat -c %s "$tmp/report.html") / 1024 ))
flame_kib=$(( $(stat -c %s "$tmp/flame.svg") / 1024 ))
q_group=$(median < "$tmp/q.group")
q_filter=$(median < "$tmp/q.filter")
q_top=$(median < "$tmp/q.top")
q_flame=$(median < "$tmp/q.flame")
q_report=$(median < "$tmp/q.report")

# ---- 7b: the fleet's store: query --clickhouse over ten million samples -----
# The million-sample store shipped as host h0 (tract ship, timed), then
# copied in the server as hosts h1..h9: ten hosts of the same hour.
progress "bench: tract query --clickhouse over ten million samples, ten hosts"
chq_rows=0
if ch_start "$tmp/chq" 18724 19724 > /dev/null 2>&1; then
	chu=http://127.0.0.1:18724
	t0=$(date +%s%N)
	"$TRACT" ship -D "$tmp/q1m" --clickhouse "$chu" --host h0 2> "$tmp/shipq.err"
	t1=$(date +%s%N)
	ship_s=$(calc "($t1 - $t0) / 1e9" 2)
	for t in samples passes stacks; do
		cols=$(ch_query 18724 "SELECT arrayStringConcat(groupArray(if(name = 'host', 'concat(substring(host, 1, 1), toString(n))', name)), ', ')
			FROM system.columns WHERE database = 'tract' AND table = '${t}_local' FORMAT TSV")
		ch_query 18724 "INSERT INTO tract.${t}_local SELECT $cols FROM tract.${t}_local ARRAY JOIN arrayMap(x -> x + 1, range(9)) AS n
			WHERE host = 'h0'" > /dev/null
	done
	chq_rows=$(ch_query 18724 "SELECT count() FROM tract.samples")
	# the SQL tract sends for a query, timed in the server by itself (the answer to /dev/null)
	own() {
		"$TRACT" query -v --clickhouse "$chu" $hour "$@" 2>&1 > /dev/null |
			sed -n 's/^tract: ClickHouse: \(.*\) FORMAT TabSeparatedWithNamesAndTypes$/\1/p' | grep -v system.tables |
			while IFS= read -r sql; do
				curl -s -o /dev/null -w '%{time_total}\n' --data-binary "$sql FORMAT TSV" "$chu/"
			done | awk '{ s += $1 } END { printf "%.3f\n", s }'
	}
	for r in $(seq "$ROUNDS"); do
		seconds query --clickhouse "$chu" $hour >> "$tmp/chq.group"
		own >> "$tmp/chq.group.own"
		seconds query --clickhouse "$chu" $hour -g pcomm,wait -w 'state != RUN' >> "$tmp/chq.filter"
		own -g pcomm,wait -w 'state != RUN' >> "$tmp/chq.filter.own"
	done
	ch_stop "$tmp/chq"; rm -f "$tmp/chq/pid"
fi
chq_group=$(median < "$tmp/chq.group" 2> /dev/null)
chq_group_own=$(median < "$tmp/chq.group.own" 2> /dev/null)
chq_filter=$(median < "$tmp/chq.filter" 2> /dev/null)
chq_filter_own=$(median < "$tmp/chq.filter.own" 2> /dev/null)

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
# the /proc source on the same workloads, against the kernel's accounting
# (no peer tool reads /proc the way it does): tests/integration/56-proc-shares.t
"$P/offcpu_proc.sh" 10 50 "$tmp/agp-spin" --only hog --hogs 2 > "$tmp/agp-spin.txt" 2> /dev/null
"$P/offcpu_proc.sh" 20 50 "$tmp/agp-mix" --dir "$tmp" --only spin,futex,pingpong,fsync --lockers 3 --hold-us 2000 \
	> "$tmp/agp-mix.txt" 2> /dev/null
# worst |tract - reference| over the threads of one run, by the rule of
# tests/integration/85-peers.t: the reference is offcputime, or where the
# kernel's accounting differs from it by > 0.02, the nearer of the two
worst_offcpu() {
	awk 'function off(a, b) { return a > b ? a - b : b - a }
	     $2 != "workload" { ref = $3; if (off($3, $5) > 0.02 && off($4, $5) < off($4, $3)) { ref = $5; k++ } else o++
	      d = off($4, ref); if (d > m) m = d }
	     END { printf "%.3f %d %d", m, o, k }' "$1"
}
# "max median" of |tract - the kernel| over the threads of an offcpu_proc.sh
# run, the host's steal given back on the side it falls: the kernel counts
# the time stolen from a thread's CPU off CPU, a pass that finds it there RUN
# (tests/lib/steal.sh)
proc_offcpu() {
	awk '$2 != "workload" { d = $3 - $4; if (d < 0) { d += $6; if (d > 0) d = 0; d = -d } print d }' "$1" |
		sort -g > "$1.d"
	echo "$(tail -n 1 "$1.d" | awk '{ printf "%.3f", $1 }') $(median < "$1.d" | awk '{ printf "%.3f", $1 }')"
}
kv() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
sc() { awk -v w="$2" -v c="$3" -v n="$4" '$1 == w && $2 == c { print $n }' "$1"; }

# ---- the table ---------------------------------------------------------------
read -r c1k_first c1k_med v1k e1k d1k _ < "$tmp/sampler-1000"
read -r c1ko_first c1ko_med v1ko _ < "$tmp/sampler-1000otel"
db1ko=$(ls "$tmp/threads-1000otel"/*.db | tail -n 1)
read -r t1ko a1ko n1ko <<< "$(sqlite3 -batch -noheader -separator ' ' "$db1ko" \
	"select count(trace_id), count(trace_attrs), count(*) - count(trace_id) from samples")"
read -r c10k_first c10k_med v10k e10k d10k _ < "$tmp/sampler-10000"
read -r _ cidle_med vidle eidle _ _ < "$tmp/sampler-10000idle"
read -r mem1k rss1k < "$tmp/mem-1000"
read -r mem10k rss10k < "$tmp/mem-10000"
verdict() { awk "BEGIN { print ($1) ? \"meets\" : \"MISSES\" }"; }
# bar_row LABEL VALUE BAR_EXPR: a cost against 1.5 x its floor ("meets" when VALUE <= BAR)
bar_row() { row "$1" "+$2" "<= +$(calc "$3")" "$(verdict "$2 <= $3")"; }
# hook_row LABEL LOOP HOOK FLOOR [FILE]: a program's ns per call against 2 x the empty one on its hook
hook_row() {
	local t f
	t=$(prog_ns "$2" "tract_$3" "${5:-runtime}"); f=$(prog_ns "$2" "floor_$4")
	row "$1" "$t ($f)" "<= $(calc "2 * $f")" "$(verdict "$t <= 2 * $f")"
}
clock_ns=$(calc "$(prog_ns read floor_sys_exit_clock) - $(prog_ns read floor_sys_exit)")
# the least tracking: one word of a thread's entry in a map, on each hook
map_row() { row "$1" "$(prog_ns "$2" "floor_$3_map") ($(prog_ns "$2" "floor_$3"))" "" ""; }
PEERS="libbpf-tools runqlat+offcputime+biolatency+syscount -L"

echo
clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2> /dev/null || echo unknown)
echo "tract bench ($(uname -r), $(nproc) CPUs, clocksource $clocksource, median of $ROUNDS rounds; each cost against a baseline taken just before it)"
echo "default: syscall latency histograms, wakeup edges, on-CPU profile, trace contexts; everything on: --runq-latency too"
echo
printf '%-48s %12s %12s  %s\n' "measure" "value" "bar" "verdict"
printf '%-48s %12s %12s  %s\n' "-------" "-----" "---" "-------"
row() { printf '%-48s %12s %12s  %s\n' "$@"; }
row "getppid ns/call, no BPF (untimed: never waits)" "$sc_base" "" ""
row "  added by the floor: empty sys_enter+sys_exit" "+$sc_floor" "" ""
bar_row "  added by tract (xcapture v3: about +130)" "$sc_tract" "1.5 * $sc_floor"
bar_row "  added by tract, everything on" "$sc_tract_all" "1.5 * $sc_floor"
row "read ns/call, no BPF (1 byte of /dev/zero, timed)" "$rd_base" "" ""
row "  added by the floor: empty sys_enter+sys_exit" "+$rd_floor" "" ""
bar_row "  added by tract" "$rd_tract" "1.5 * $rd_floor"
row "    of which two clock reads (one a hook)" "+$(calc "2 * $clock_ns")" "" ""
bar_row "  added by tract, everything on" "$rd_tract_all" "1.5 * $rd_floor"
row "pipe round trip ns, no BPF" "$pp_base" "" ""
row "  added by empty programs on tract's 4 hooks" "+$pp_floor_all" "" ""
bar_row "  added by tract" "$pp_tract" "1.5 * $pp_floor_all"
row "    of which clock reads (4 timed syscalls)" "+$(calc "8 * $clock_ns")" "" ""
bar_row "  added by tract, everything on" "$pp_tract_all" "1.5 * $pp_floor_all"
if [ -n "$have_peers" ]; then
	row "the same answers from $PEERS:" "" "" ""
	row "  getppid: added by them / by tract, all on" "+$sc_peers / +$sc_tract_all" "tract less" \
		"$(verdict "$sc_tract_all < $sc_peers")"
	row "  read: added by them / by tract, all on" "+$rd_peers / +$rd_tract_all" "tract less" \
		"$(verdict "$rd_tract_all < $rd_peers")"
	row "  pipe round trip: added by them / by tract" "+$pp_peers / +$pp_tract_all" "tract less" \
		"$(verdict "$pp_tract_all < $pp_peers")"
fi
hook_row "BPF ns/call sys_enter: tract (empty)" getppid sys_enter sys_enter
hook_row "BPF ns/call sys_exit, untimed: tract (empty)" getppid sys_exit sys_exit
map_row "  least with a map: an entry read (empty)" getppid sys_exit
hook_row "BPF ns/call sys_exit, timed: tract (empty)" read sys_exit sys_exit
row "  one clock read alone adds" "$clock_ns" "" ""
hook_row "BPF ns/call sched_waking: tract (empty)" pingpong sched_waking sched_waking
map_row "  least with a map: the waker written (empty)" pingpong sched_waking
hook_row "BPF ns/call sched_switch: tract (empty)" pingpong sched_switch sched_switch
map_row "  least with a map: an entry read (empty)" pingpong sched_switch
row "  least for an edge: that, and a CPU's total added" "$(prog_ns pingpong floor_sched_switch_edge)" "" ""
hook_row "  everything on: sched_switch" pingpong sched_switch sched_switch runtime_all
hook_row "  everything on: sched_waking" pingpong sched_waking sched_waking runtime_all
hook_row "BPF ns/call hrtimer entry: mark, moment: tract (empty)" idle hrtimer_entry hrtimer_expire_entry
hook_row "BPF ns/call hrtimer exit mark: tract (empty)" idle hrtimer_exit hrtimer_expire_exit
hook_row "BPF ns/call timer entry mark: tract (empty)" idle timer_entry timer_expire_entry
hook_row "BPF ns/call timer exit mark: tract (empty)" idle timer_exit timer_expire_exit
marks_cpu=0
for p in hrtimer_entry hrtimer_exit timer_entry timer_exit; do
	v=$(prog_ns idle_cpu "tract_$p")
	[ "$v" = nan ] || marks_cpu=$(calc "$marks_cpu + $v" 0)
done
row "  the four timer programs: CPU ns a second, a CPU" "$marks_cpu" "" ""
# the interrupt a CPU runs, so that a wakeup from one names it: on every hard irq and softirq
hook_row "BPF ns/call irq entry mark: tract (empty)" idle irq_entry irq_handler_entry
hook_row "BPF ns/call irq exit mark: tract (empty)" idle irq_exit irq_handler_exit
hook_row "BPF ns/call softirq entry mark: tract (empty)" idle softirq_entry softirq_entry
hook_row "BPF ns/call softirq exit mark: tract (empty)" idle softirq_exit softirq_exit
irq_marks_cpu=0
for p in irq_entry irq_exit softirq_entry softirq_exit; do
	v=$(prog_ns idle_cpu "tract_$p")
	[ "$v" = nan ] || irq_marks_cpu=$(calc "$irq_marks_cpu + $v" 0)
done
row "  the four interrupt programs: CPU ns a second, a CPU" "$irq_marks_cpu" "" ""
row "BPF ns/tick on-CPU profile (default, 49 Hz a CPU)" "$(prog_ns getppid tract_profile)" "" ""
# floor_row N: what the kernel's task iterator alone costs a task, in the same run and over the same tasks
floor_row() {
	local us tasks
	read -r us tasks < "$tmp/floor-$1"
	row "  of which the kernel's iterator (empty program)" "$(calc "$us / $tasks" 3)" "" ""
}
row "BPF ns/call sampler, per task visited" "$(prog_ns idle tract_sample_pass)" "" ""
row "sampler CPU us/pass, 1,000 threads (first pass)" "$c1k_med ($c1k_first)" "" ""
row "sampler CPU us/visited thread, 1,000" "$(calc "$c1k_med / $v1k" 3)" "<= 1" "$(verdict "$c1k_med / $v1k <= 1")"
floor_row 1000
row "sampler CPU us/visited thread, 1,000, half with a trace" "$(calc "$c1ko_med / $v1ko" 3)" "<= 1" \
	"$(verdict "$c1ko_med / $v1ko <= 1")"
row "  samples traced (with attributes) / not" "$t1ko ($a1ko) / $n1ko" "" ""
row "sampler CPU us/pass, 10,000 threads (first pass)" "$c10k_med ($c10k_first)" "" ""
row "sampler CPU us/visited thread, 10,000" "$(calc "$c10k_med / $v10k" 3)" "<= 1" "$(verdict "$c10k_med / $v10k <= 1")"
floor_row 10000
row "  first pass (all stacks unwound), per thread" "$(calc "$c10k_first / $v10k" 3)" "" ""
row "sampler CPU us/visited thread, 10,000 idle ($eidle rows)" "$(calc "$cidle_med / $vidle" 3)" "<= 1" "$(verdict "$cidle_med / $vidle <= 1")"
row "rows per pass at 10,000 active (min), dropped" "$e10k, $d10k" ">= 10000, 0" "$(verdict "$e10k >= 10000 && $d10k == 0")"
row "BPF memory locked KiB, 1,000 / 10,000 threads" "$((mem1k / 1024)) / $((mem10k / 1024))" "<= 16384" \
	"$(verdict "$mem10k <= 16 * 1048576")"
row "recorder max RSS, KiB (1,000 / 10,000 threads)" "$rss1k / $rss10k" "" ""
# cost_rows N LABEL BAR: the recorder's CPU per pass at 1 Hz, idle threads against the
# reference sampler's on the same kind of machine (0.89-0.90 and 7.2-7.3 ms), then active ones
cost_rows() {
	local total sampler writer scan user _
	read -r total sampler writer scan user _ < "$tmp/cost-$1-idle"
	row "recorder CPU ms/pass, 1 Hz, $2 idle (xcapture)" "$total" "<= $3" "$(verdict "$total <= $3")"
	row "  sampler / writer thread; of the sampler: scan, user" "$sampler / $writer; $scan, $user%" "" ""
	read -r total sampler writer scan user _ < "$tmp/cost-$1-active"
	row "  the same, every thread a row: total" "$total" "" ""
	row "  sampler / writer thread; of the sampler: scan, user" "$sampler / $writer; $scan, $user%" "" ""
}
cost_rows 1000 "1,000" 0.90
cost_rows 10000 "10,000" 7.3
row "user stacks by CFI: bytes copied per stack" "$uw_bytes" "<= 16384" "$(verdict "$uw_bytes <= 16384")"
row "  unwind us per stack (tables already read)" "$uw_us" "" ""
row "  stacks copied / unwound / cut, frames each" "$uw_copied / $uw_unwound / $uw_cut, $uw_frames" "" ""
row "  recorder CPU us/pass, --unwind cfi / fp" "$(cat "$tmp/unwind-cpu-cfi") / $(cat "$tmp/unwind-cpu-fp")" "" ""
row "runtimes, each alone: recorder CPU us/pass, Python / Java" "$py_cpu / $java_cpu" "" ""
row "  BPF ns/tick on-CPU profile, Python / Java" "$py_tick / $java_tick" "" ""
row "  BPF ns/task the sampler visited, Python / Java" "$py_visit / $java_visit" "" ""
row "  Python frames: us per stack read ($py_stacks stacks)" "$py_us" "" ""
row "ClickHouse: bytes sent per sample, gzip ($ship_rows samples)" "$ship_bytes" "" ""
row "  CPU us per 10,000 samples: rows / shipping" "$ship_fmt / $ship_send" "" ""
store_slope=$(calc "($bytes - $bytes10) / ($samples - $samples10)")
row "store bytes/sample (workload, --all, 10 Hz)" "$store_slope" "<= 40" "$(verdict "$store_slope <= 40")"
row "  a 30 s file whole: bytes/sample, samples" "$(calc "$bytes / $samples"), $samples" "" ""
sleep_slope=$(calc "($sleep_bytes - $sleep_bytes10) / ($sleep_samples - $sleep_samples10)")
row "  with 1,000 sleeping threads beside it" "$sleep_slope" "<= 40" "$(verdict "$sleep_slope <= 40")"
row "query s, $q1m_rows samples, -g state,syscall,pcomm" "$q_group" "<= 0.5" "$(verdict "$q_group <= 0.5")"
row "query s, same, -g pcomm,wait -w 'state != RUN'" "$q_filter" "<= 0.5" "$(verdict "$q_filter <= 0.5")"
row "top refresh s, 1 hour of ~100 threads ($q1h_rows)" "$q_top" "<= 0.2" "$(verdict "$q_top <= 0.2")"
row "query --clickhouse s, $chq_rows samples (10 hosts)" "$chq_group" "<= 0.5" "$(verdict "$chq_group <= 0.5")"
row "  ClickHouse's own time for tract's SQL" "$chq_group_own" "" ""
row "query --clickhouse s, same, -g pcomm,wait -w 'state != RUN'" "$chq_filter" "" ""
row "  ClickHouse's own time for tract's SQL" "$chq_filter_own" "" ""
row "tract ship s, $q1m_rows samples of an hour" "${ship_s:-nan}" "" ""
row "flame graph s, $q1m_rows samples, SVG" "$q_flame" "<= 1" "$(verdict "$q_flame <= 1")"
row "  its size, KiB" "$flame_kib" "<= 2048" "$(verdict "$flame_kib <= 2048")"
row "report s, same samples, HTML" "$q_report" "" ""
row "  its size, KiB" "$report_kib" "<= 2048" "$(verdict "$report_kib <= 2048")"
read -r spin_worst _ _ <<< "$(worst_offcpu "$tmp/ag-spin.txt")"
read -r mix_worst mix_oc mix_k <<< "$(worst_offcpu "$tmp/ag-mix.txt")"
read -r pspin_max pspin_med <<< "$(proc_offcpu "$tmp/agp-spin.txt")"
read -r pmix_max pmix_med <<< "$(proc_offcpu "$tmp/agp-mix.txt")"
row "agreement: off-CPU share, 2 spinners, 2 CPUs: max |d|" "$spin_worst" "<= 0.05" "$(verdict "$spin_worst <= 0.05")"
row "  /proc source, to the kernel's: max / median" "$pspin_max / $pspin_med" "<= 0.05" "$(verdict "$pspin_max <= 0.05")"
row "agreement: off-CPU share, locks, spin, pipe, fsync" "$mix_worst" "<= 0.05" "$(verdict "$mix_worst <= 0.05")"
row "  threads held to offcputime / to the kernel's" "$mix_oc / $mix_k" "" ""
row "  /proc source, to the kernel's: max / median" "$pmix_max / $pmix_med" "<= 0.05" "$(verdict "$pmix_max <= 0.05")"
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
