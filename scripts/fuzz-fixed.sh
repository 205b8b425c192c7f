#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# fuzz-fixed.sh TARGET:RUNS...: the fuzzing of `make test`, the same verdict
# for the same commit (but for the ELF target's: the files its inputs
# become are new to the kernel on each run, and their inode numbers and
# times, which the recorder compares, steer its search).  Each target replays every committed seed, then tries
# RUNS inputs mutated from them with a fixed random seed, in a corpus that
# starts empty (a corpus kept from earlier runs would change the inputs).
# A crash prints the fuzzer's report and the input's path: add the input to
# tests/fuzz/seeds/TARGET/ with its fix.
#
# The targets run FUZZ_JOBS at a time (one per CPU): each is one process,
# whose inputs do not depend on the others', so the verdict is the same;
# each one's report is printed whole, in the order given.
set -u
OUT=${OUT:-build-fuzz}
export OUT

# one TARGET:RUNS into $OUT/fuzz/TARGET.fixed.out; exit 1 on a crash
if [ "${1:-}" = --one ]; then
	arg=$2
	t=${arg%:*}
	runs=${arg##*:}
	seeds=tests/fuzz/seeds/$t
	corpus=$OUT/fixed-corpus/$t
	log=$OUT/fuzz/$t.fixed.log
	exec > "$OUT/fuzz/$t.fixed.out" 2>&1
	rm -rf "$corpus"
	mkdir -p "$corpus"
	# the files a target makes of its inputs, in memory where there is a
	# tmpfs: on a disk mounted with discard, each one deleted waits for the
	# device (half to three quarters of the spool's, /proc's and Python's
	# targets' time)
	scratch=$(mktemp -d "$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/tract-fuzz.XXXXXX")
	trap 'rm -rf "$scratch"' EXIT
	export TMPDIR=$scratch
	echo "  FUZZ     $t: $(ls "$seeds" | wc -l) seeds, then $runs inputs from seed 1"
	# an input that hangs, not one slowed down: make test runs the fuzz
	# targets at the lowest priority beside the integration tests, which
	# can leave them a fraction of a CPU for as long as 20 s
	# without address randomisation: the fuzzer takes the operands of the
	# comparisons it sees (pointers among them) to make inputs of, so that
	# with it the same seed made other inputs on each run
	if UBSAN_OPTIONS=print_stacktrace=1 setarch -R "$OUT/fuzz/$t" -seed=1 -runs="$runs" -timeout=120 -rss_limit_mb=2048 -close_fd_mask=1 \
		-artifact_prefix="$OUT/fuzz/$t-" "$corpus" "$seeds" > "$log" 2>&1; then
		grep -a '^Done ' "$log" | sed 's/^/           /'
		exit 0
	fi
	echo "  FUZZ     $t FAILED: crash input and report (whole log: $log)"
	# the report without the shadow-memory legend, then the input
	sed -n '/==ERROR: \|runtime error\|deadly signal/,/^SUMMARY: /p' "$log" | grep -a -v -E '^(Shadow|  [A-Z][a-z]|=?>? *0x[0-9a-f]+: )' | head -n 40
	grep -a -E 'Test unit written to|^Base64: ' "$log" | sed 's/^/           /'
	echo "           add it to $seeds/ with its fix"
	exit 1
fi

fail=0
for arg in "$@"; do
	rm -f "$OUT/fuzz/${arg%:*}.fixed.out"
done
printf '%s\n' "$@" | xargs -P "${FUZZ_JOBS:-$(nproc)}" -I{} "$0" --one {} || fail=1
for arg in "$@"; do
	cat "$OUT/fuzz/${arg%:*}.fixed.out" 2> /dev/null || { echo "  FUZZ     ${arg%:*} did not run"; fail=1; }
done
exit $fail
