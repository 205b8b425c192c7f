#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The whole recorder under ASan, UBSan and LeakSanitizer, on the workload,
# into both stores: no memory error, no undefined behaviour, no leak.
. "$(dirname "$0")/../integration/lib.sh"
need_root_bpf
[ -x "${TRACT_SAN:-}" ] || skip_all "no sanitizer build (make SAN=1 build-san/tract)"

start_workload || exit 1
for fmt in sqlite csv; do
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1 \
		"$TRACT_SAN" record -F 20 -d 2 --all --syscall-latency --format "$fmt" -o "$WORK/$fmt" \
		> "$WORK/$fmt.out" 2> "$WORK/$fmt.err"
	ok "record --format $fmt exits 0 under the sanitizers" test $? -eq 0
	test_expect_success 'and they report nothing' '
		test_grep ! -E "ERROR: |runtime error|SUMMARY: " "$WORK/$fmt.err"
	'
done
stop_workload
done_testing
