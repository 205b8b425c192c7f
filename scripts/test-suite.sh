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
run_step() {
	local step=$1 target=test-$1 log="$ci/$1.log" start rc secs
	[ "$step" = build ] && target=all
	echo "== $step (make $target)"
	start=$(date +%s)
	# the step's output goes to its log and to the console as it comes
	$MAKE --no-print-directory "$target" < /dev/null 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	echo "$step $rc $secs" >> "$ci/results"
	echo "== $step: $([ $rc -eq 0 ] && echo passed || echo "FAILED (exit $rc)") in ${secs} s"
}
for step in "${steps[@]}"; do
	run_step "$step"
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
