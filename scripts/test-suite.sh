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
step_target() { if [ "$1" = build ]; then echo test-build; else echo "test-$1"; fi; }
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
# quiet_steps STEP...: the steps at once, each into its own log, each one's
# exit status and own seconds into STEP.rc
quiet_steps() {
	local step
	for step in "$@"; do
		(
			s=$(date +%s)
			$MAKE --no-print-directory "$(step_target "$step")" < /dev/null > "$ci/$step.log" 2>&1
			echo "$? $(($(date +%s) - s))" > "$ci/$step.rc"
		) &
	done
	wait
}
# show_quiet STEP HOW: its log whole on the console, then its result
show_quiet() {
	local step=$1 rc secs
	echo "== $step (make $(step_target "$step"), $2)"
	cat "$ci/$step.log"
	read -r rc secs < "$ci/$step.rc" 2> /dev/null || { rc=1 secs=0; echo "$step: no result (killed?)"; }
	rm -f "$ci/$step.rc"
	step_done "$step" "$rc" "$secs"
}
# groups_of STEP...: the steps as groups run one after another, one group
# a line; steps that may run beside each other share a line.  Neither
# measures time or CPU, and each keeps about one CPU busy (qemu runs its
# guests in one host thread; the fuzz targets run one per CPU but take
# what is left), so on two CPUs neither waits long for the other.
BESIDE=" kernels fuzz "
groups_of() {
	local line= step
	for step; do
		case $BESIDE in *" $step "*) line="$line $step"; continue ;; esac
		[ -n "$line" ] && echo "$line"
		line=
		echo "$step"
	done
	[ -n "$line" ] && echo "$line"
}
# The integration tests measure time and CPU: no other step runs beside
# them at the same priority.  But they leave about a third of the two CPUs
# idle (their recording windows, a server's answers), so the steps that
# only compile and run code (IDLE) run meanwhile at the lowest priority
# (SCHED_IDLE): the kernel runs them only on a CPU nothing else wants, and a
# test's thread that wakes takes the CPU from them at once.  Their output
# follows the integration tests'.
IDLE=" layers san kernels fuzz "
fg=() idle=()
for step in "${steps[@]}"; do
	case $IDLE in *" $step "*) idle+=("$step") ;; *) fg+=("$step") ;; esac
done
case " ${fg[*]} " in *" integration "*) ;; *) fg=("${steps[@]}") idle=() ;; esac

while read -r -a group; do
	if [ "${group[0]}" = integration ] && [ ${#idle[@]} -gt 0 ]; then
		echo "== at once: integration, and at the lowest priority ${idle[*]} (their output follows, step by step)"
		(
			chrt --idle -p 0 "$BASHPID" > /dev/null 2>&1 || renice -n 19 -p "$BASHPID" > /dev/null
			while read -r -a g; do quiet_steps "${g[@]}"; done < <(groups_of "${idle[@]}")
		) &
		idle_pid=$!
		run_step integration
		wait "$idle_pid"
		for step in "${idle[@]}"; do show_quiet "$step" "at the lowest priority, beside the integration tests"; done
	elif [ ${#group[@]} -gt 1 ]; then
		echo "== at once: ${group[*]} (their output follows, step by step)"
		quiet_steps "${group[@]}"
		for step in "${group[@]}"; do show_quiet "$step" "beside the others"; done
	else
		run_step "${group[0]}"
	fi
done < <(groups_of "${fg[@]}")

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
