#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The recorder's cost where it names a runtime's code: a Python process
# (two threads in Python functions on a CPU, one blocked in recv) and a
# Java one (a JIT-compiled method on a CPU, its perf map written), each
# recorded alone at 10 passes a second with the default profile.  Prints
# one line each, "python|java CPU_US_PER_PASS PROFILE_NS_PER_TICK
# SAMPLE_NS_PER_TASK PY_US_PER_STACK PY_STACKS", "n/a" where the runtime
# is missing.  Needs root; usage: runtimes.sh TRACT DIR SECONDS
set -u
TRACT=$1 DIR=$2 SECONDS_EACH=${3:-10}
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done; wait 2> /dev/null' EXIT

median() { sort -g | awk '{ a[NR] = $1 } END { if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# ready FILE PID: the runtime printed "ready" (a JIT needs seconds on a slow machine)
ready() {
	for _ in $(seq 600); do
		grep -q '^ready' "$1" 2> /dev/null && return 0
		kill -0 "$2" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}
# prog_runtime PID NAME: "run_time_ns run_cnt" of program NAME of the recorder PID (others may run)
prog_runtime() {
	local ids
	ids=$(cat /proc/"$1"/fdinfo/* 2> /dev/null | awk '/^prog_id:/ { print $2 }' | sort -u | tr '\n' ' ')
	bpftool -j prog show 2> /dev/null | python3 -c '
import json, sys
ids = set(int(i) for i in sys.argv[2].split())
t = c = 0
for p in json.load(sys.stdin):
    if p.get("name") == sys.argv[1] and p.get("id") in ids:
        t += p.get("run_time_ns", 0); c += p.get("run_cnt", 0)
print(t, c)' "$2" "$ids"
}

# measure NAME PID: the recorder on PID alone, and what it cost
measure() {
	local name=$1 pid=$2 store=$DIR/store-$1 p0 p1 s0 s1 cpu
	sysctl -qw kernel.bpf_stats_enabled=1
	"$TRACT" record -v -F 10 -d "$SECONDS_EACH" -p "$pid" -o "$store" 2> "$DIR/$name.err" > /dev/null &
	local tp=$!
	# the programs' counts from once they are loaded
	for _ in $(seq 200); do
		[ "$(prog_runtime "$tp" tract_sample_pass)" != "0 0" ] && break
		sleep 0.05
	done
	read -r p0 pc0 <<< "$(prog_runtime "$tp" tract_profile)"
	read -r s0 sc0 <<< "$(prog_runtime "$tp" tract_sample_pass)"
	sleep $((SECONDS_EACH - 2))
	read -r p1 pc1 <<< "$(prog_runtime "$tp" tract_profile)"
	read -r s1 sc1 <<< "$(prog_runtime "$tp" tract_sample_pass)"
	wait "$tp"
	sysctl -qw kernel.bpf_stats_enabled=0
	# the recorder's CPU per pass, the first (symbol tables read) left out
	cpu=$(sqlite3 -batch -noheader "$store"/*.db \
		"select cpu_us from passes where id > (select min(id) from passes)" | median)
	# python frames: N threads' read, X us each, ...
	local py
	py=$(sed -n "s/.*python frames: \([0-9]*\) threads' read, \([0-9.]*\) us each.*/\2 \1/p" "$DIR/$name.err" | tail -n 1)
	# per call: the profile's per tick, the sampler's per task the kernel's iterator visited
	awk -v n="$name" -v cpu="$cpu" -v pt="$((p1 - p0))" -v pc="$((pc1 - pc0))" \
		-v st="$((s1 - s0))" -v sc="$((sc1 - sc0))" -v py="${py:-n/a n/a}" 'BEGIN {
		tick = (pc > 0 && pt > 0) ? sprintf("%.0f", pt / pc) : "n/a"
		task = (sc > 0 && st > 0) ? sprintf("%.1f", st / sc) : "n/a"
		printf "%s %s %s %s %s\n", n, cpu, tick, task, py }'
}

cat > "$DIR/load.py" << 'EOF'
import socket, threading, time
def inner(n):
    s = 0
    for i in range(n):
        s = (s * 31 + i) & 0xffffffff
    return s
def spin():
    while True:
        inner(20000)
a, b = socket.socketpair()
def reader():
    a.recv(1)
for f in (spin, spin, reader):
    threading.Thread(target=f, daemon=True).start()
print("ready", flush=True)
time.sleep(3600)
EOF
if command -v python3 > /dev/null; then
	python3 "$DIR/load.py" > "$DIR/py.out" 2>&1 &
	pp=$!; pids+=("$pp")
	if ready "$DIR/py.out" "$pp"; then measure python "$pp"; else echo "python n/a n/a n/a n/a n/a"; fi
	kill "$pp"
else
	echo "python n/a n/a n/a n/a n/a"
fi

if command -v javac > /dev/null && command -v jcmd > /dev/null && javac -d "$DIR" "$(dirname "$0")/../tests/workload/Load.java" 2> /dev/null; then
	java -XX:+PreserveFramePointer -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Load::compute \
		-cp "$DIR" Load 3600 > "$DIR/java.out" 2>&1 &
	jp=$!; pids+=("$jp")
	if ready "$DIR/java.out" "$jp" && jcmd "$jp" Compiler.perfmap > /dev/null 2>&1; then
		measure java "$jp"
	else
		echo "java n/a n/a n/a n/a n/a"
	fi
	kill "$jp"
else
	echo "java n/a n/a n/a n/a n/a"
fi
