# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for tract's integration tests: TAP output in the style of
# git's t/test-lib.sh, the workload, and queries on a recorded store.
# Tests get TRACT and WORKLOAD from the Makefile.

: "${TRACT:?TRACT must point at the tract binary}"
: "${WORKLOAD:?WORKLOAD must point at the workload binary}"

test_count=0
test_failed=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tract-test.XXXXXX")
# fsync must reach a real disk, which /tmp may not be
DISK_DIR=$(mktemp -d "$(dirname "$TRACT")/disk-test.XXXXXX")
WL_PID=
cleanup() {
	[ -n "$WL_PID" ] && kill "$WL_PID" 2>/dev/null && wait "$WL_PID" 2>/dev/null
	if [ -n "${TRACT_KEEP:-}" ]; then
		echo "# kept $WORK" >&2
	else
		rm -rf "$WORK"
	fi
	rm -rf "$DISK_DIR"
}
trap cleanup EXIT

plan() { echo "1..$1"; }

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

ok() {
	# ok DESCRIPTION COMMAND...: one TAP line, with the command's output as diagnostics on failure
	desc=$1
	shift
	test_count=$((test_count + 1))
	if out=$("$@" 2>&1); then
		echo "ok $test_count - $desc"
	else
		echo "not ok $test_count - $desc"
		printf '%s\n' "$out" | sed 's/^/#   /'
		test_failed=$((test_failed + 1))
	fi
}

done_testing() {
	echo "# $test_count tests, $test_failed failed"
	[ "$test_failed" -eq 0 ]
}

need_root_bpf() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
	[ -r /sys/kernel/btf/vmlinux ] || skip_all "kernel has no BTF"
}

# start_workload ARGS...: run the workload in the background, wait for "ready"
start_workload() {
	"$WORKLOAD" --dir "$DISK_DIR" "$@" > "$WORK/workload.out" 2>&1 &
	WL_PID=$!
	for _ in $(seq 100); do
		grep -q '^ready' "$WORK/workload.out" && return 0
		sleep 0.05
	done
	echo "workload did not start:" >&2
	cat "$WORK/workload.out" >&2
	return 1
}

stop_workload() {
	kill "$WL_PID" 2>/dev/null
	wait "$WL_PID" 2>/dev/null
	WL_PID=
}

. "$(dirname "$0")/../lib/one_store.sh"

# q DB SQL: one value from the store
q() { sqlite3 -batch -noheader "$1" "$2"; }

# at_least A B: A >= B, numbers, with a message saying which
# and an empty value (a query that found nothing) is no number at all
is_number() { case $1 in '' | *[!0-9.-]* | *.*.* | ?*-* | - | . ) return 1 ;; esac; }
at_least() {
	is_number "$1" && is_number "$2" || { echo "not numbers: '$1' '$2'"; return 1; }
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 >= b + 0) exit 0; print a " < " b; exit 1 }'
}

at_most() {
	is_number "$1" && is_number "$2" || { echo "not numbers: '$1' '$2'"; return 1; }
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 <= b + 0) exit 0; print a " > " b; exit 1 }'
}

# No tract program may be loaded once the recorder is gone.  The kernel
# frees programs after an RCU grace period, so give it a moment.
no_tract_programs() {
	for _ in $(seq 40); do
		bpftool prog show 2>/dev/null | grep -q 'name tract_' || return 0
		sleep 0.05
	done
	bpftool prog show | grep -A1 'name tract_'
	return 1
}
