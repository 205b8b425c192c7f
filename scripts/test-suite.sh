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
[ ${#steps[@]} -gt 0 ] || steps=(build unit layers san integration kernels fuzz)

# Every process the suite starts inherits this token, so at the end the
# processes it left running can be told from anyone else's.
TRACT_SUITE_TOKEN="tract-suite-$$-$(date +%s%N)"
export TRACT_SUITE_TOKEN
./scripts/suite-leftovers.sh snapshot "$ci/leftovers.before"

echo "== test suite: ${steps[*]}; logs in $ci/"
./scripts/busy-cpus.sh | tee "$ci/busy.log"

suite_start=$(date +%s)
# step_target STEP: the make target that runs it
step_target() { if [ "$1" = build ]; then echo all; else echo "test-$1"; fi; }
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
# run_beside STEP...: the steps at once, each into its own log, shown whole
# on the console in order as each ends; each step's seconds are its own
run_beside() {
	local steps_now=("$@") step pids=() starts=() i rc secs
	echo "== at once: $* (their output follows, step by step, as each ends)"
	for step in "$@"; do
		starts+=("$(date +%s)")
		(
			s=$(date +%s)
			$MAKE --no-print-directory "$(step_target "$step")" < /dev/null > "$ci/$step.log" 2>&1
			echo "$? $(($(date +%s) - s))" > "$ci/$step.rc"
		) &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}"
		step=${steps_now[$i]}
		echo "== $step (make $(step_target "$step"), beside the others)"
		cat "$ci/$step.log"
		read -r rc secs < "$ci/$step.rc" 2> /dev/null || { rc=1 secs=$(($(date +%s) - ${starts[$i]})); }
		rm -f "$ci/$step.rc"
		step_done "$step" "$rc" "$secs"
	done
}
# Steps that may run beside each other: neither measures time or CPU, and
# each keeps about one CPU busy (qemu runs its guests in one host thread,
# the fuzzer is one process), so on two CPUs neither waits for the other.
# The integration tests measure both: they run alone.
BESIDE=" kernels fuzz "
i=0
while [ $i -lt ${#steps[@]} ]; do
	group=("${steps[$i]}")
	i=$((i + 1))
	case $BESIDE in *" ${group[0]} "*)
		while [ $i -lt ${#steps[@]} ] && case $BESIDE in *" ${steps[$i]} "*) true ;; *) false ;; esac; do
			group+=("${steps[$i]}")
			i=$((i + 1))
		done
		;;
	esac
	if [ ${#group[@]} -gt 1 ]; then
		run_beside "${group[@]}"
	else
		run_step "${group[0]}"
	fi
done

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
