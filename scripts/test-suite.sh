#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make test: run every step of the suite, also after one fails, keep each
# step's whole log in $OUT/ci/STEP.log, and end with a summary that says
# what failed and why: the last thing printed, short enough to read in the
# last 60 lines of a CI log.
#
#   scripts/test-suite.sh [STEP...]    (default: all of them, in order)
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-build}
# the compiling steps build on every CPU (the tests themselves run one at a time)
MAKE="${MAKE:-make} -j$(nproc)"
ci=${CI_LOGS:-$OUT/ci}
mkdir -p "$ci"
rm -f "$ci"/*.log "$ci"/results

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build unit layers san guests package integration san-record kernels fuzz)

# Every process the suite starts inherits this token, so at the end the
# processes it left running can be told from anyone else's.
TRACT_SUITE_TOKEN="tract-suite-$$-$(date +%s%N)"
export TRACT_SUITE_TOKEN
./scripts/suite-leftovers.sh snapshot "$ci/leftovers.before"

echo "== test suite: ${steps[*]}; logs in $ci/"
./scripts/busy-cpus.sh | tee "$ci/busy.log"

suite_start=$(date +%s)
# has STEP: whether the suite runs it
has() { case " ${steps[*]} " in *" $1 "*) true ;; *) false ;; esac; }
# step_target STEP: the make target that runs it.  The build step builds
# what the integration tests run, so that no step beside them builds it (the
# sanitized binary is the san step's, which runs beside them); the guests
# step downloads the kernels and builds the guests' user space, and the
# kernels step then boots them.
step_target() {
	case $1 in
	build) echo test-build ;;
	kernels) if has guests; then echo test-kernels-boot; else echo test-kernels; fi ;;
	*) echo "test-$1" ;;
	esac
}
# step_done STEP RC SECS: its result, for the summary and on the console
step_done() {
	echo "$1 $2 $3" >> "$ci/results"
	echo "== $1: $([ "$2" -eq 0 ] && echo passed || echo "FAILED (exit $2)") in ${3} s"
}
run_step() {
	local step=$1 target log="$ci/$1.log" start rc
	target=$(step_target "$step")
	echo "== $step (make $target)"
	start=$(date +%s)
	# the step's output goes to its log and to the console as it comes
	$MAKE --no-print-directory "$target" < /dev/null 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	step_done "$step" "$rc" $(($(date +%s) - start))
}
# quiet_step STEP: the step into its own log, its exit status and own
# seconds into STEP.rc once it ends
quiet_step() {
	local s
	s=$(date +%s)
	$MAKE --no-print-directory "$(step_target "$1")" < /dev/null > "$ci/$1.log" 2>&1
	echo "$? $(($(date +%s) - s))" > "$ci/$1.rc.new" && mv "$ci/$1.rc.new" "$ci/$1.rc"
}
# show_quiet STEP: its log whole on the console, then its result
show_quiet() {
	local step=$1 rc secs
	echo "== $step (make $(step_target "$step"), at the lowest priority beside the integration tests)"
	cat "$ci/$step.log"
	read -r rc secs < "$ci/$step.rc" 2> /dev/null || { rc=1 secs=0; echo "$step: no result (killed?)"; }
	rm -f "$ci/$step.rc"
	step_done "$step" "$rc" "$secs"
}

# The integration tests measure time and CPU: no other step runs beside
# them at the same priority.  But they leave about a third of the two CPUs
# idle (their recording windows, a server's answers), so the steps that
# only compile and run code run meanwhile at the lowest priority
# (SCHED_IDLE) and idle I/O class: the kernel runs them only on a CPU
# nothing else wants, and a test's thread that wakes takes the CPU from
# them at once.  They run in two lanes, each one step after another, so
# that a step that keeps one CPU busy leaves the other to the next lane;
# their output follows the integration tests'.  The lanes hold about as
# much CPU time each (guests 16 s, fuzz 156, unit 18; layers 27, san 83,
# package 46), so that neither runs on alone at the end.  The sanitized
# recorder and
# the guests run after the integration tests, at the normal priority: a
# recorder or an emulated guest starved of its CPU runs late, its passes
# skipped.
IDLE_LANES=("guests fuzz unit" "layers san package")
needed_by() { case $1 in san-record) echo san ;; kernels) echo guests ;; esac; }
idle=() lanes=()
if has integration; then
	for lane in "${IDLE_LANES[@]}"; do
		mine=
		for step in $lane; do has "$step" && mine="$mine $step"; done
		[ -n "$mine" ] && lanes+=("$mine")
	done
	# in the order the steps were named
	for step in "${steps[@]}"; do
		case " ${lanes[*]} " in *" $step "*) idle+=("$step") ;; esac
	done
fi
idle_pids=()
idle_running() { local p; for p in "${idle_pids[@]}"; do kill -0 "$p" 2> /dev/null && return 0; done; return 1; }
for step in "${steps[@]}"; do
	case " ${idle[*]} " in *" $step "*) continue ;; esac
	if [ "$step" = integration ] && [ ${#idle[@]} -gt 0 ]; then
		echo "== beside the integration tests, at the lowest priority: ${idle[*]} (their output follows at the end)"
		rm -f "$ci"/*.rc
		for lane in "${lanes[@]}"; do
			(
				chrt --idle -p 0 "$BASHPID" > /dev/null 2>&1 || renice -n 19 -p "$BASHPID" > /dev/null
				ionice -c 3 -p "$BASHPID" > /dev/null 2>&1
				for s in $lane; do quiet_step "$s"; done
			) &
			idle_pids+=($!)
		done
	fi
	# a step after them waits for the one beside them it needs: the
	# sanitized recorder for its build, the kernels for their guests
	needs=$(needed_by "$step")
	if [ ${#idle_pids[@]} -gt 0 ] && [ -n "$needs" ] && has "$needs"; then
		while [ ! -f "$ci/$needs.rc" ] && idle_running; do sleep 1; done
	fi
	run_step "$step"
done
if [ ${#idle_pids[@]} -gt 0 ]; then
	wait "${idle_pids[@]}"
	for step in "${idle[@]}"; do show_quiet "$step"; done
fi

# what the suite left running or loaded, as a step of its own
start=$(date +%s)
./scripts/suite-leftovers.sh check "$ci/leftovers.before" > "$ci/leftovers.log" 2>&1
rc=$?
cat "$ci/leftovers.log"
echo "leftovers $rc $(($(date +%s) - start))" >> "$ci/results"

# ---- the summary: why each failed step failed, then every step's result ----
echo
echo "======================================================================"
failed=
while read -r step rc secs; do
	[ "$rc" -eq 0 ] && continue
	failed="$failed $step"
	echo "---- $step FAILED (exit $rc); whole log: $ci/$step.log"
	./scripts/suite-why.sh "$step" "$ci/$step.log"
done < "$ci/results"
echo "---- steps (seconds; the suite took $(($(date +%s) - suite_start)) s)"
while read -r step rc secs; do
	printf '  %-12s %-7s %5s s\n' "$step" "$([ "$rc" -eq 0 ] && echo ok || echo FAILED)" "$secs"
done < "$ci/results"
if [ -n "$failed" ]; then
	echo "test suite: FAILED:$failed (logs in $ci/)"
	exit 1
fi
echo "test suite: every step passed"
