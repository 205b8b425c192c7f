#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The bench's scripts leave nothing behind: query_store.sh's temporary
# directory and workload are gone after a run that ends, and after one
# stopped half-way.
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v sqlite3 > /dev/null || skip_all "needs sqlite3"
BENCH=$(cd "$(dirname "$0")/../../bench" && pwd)

ls -d /var/tmp/tract-qstore.* 2> /dev/null | sort > "$WORK/before"
# what a run left: temporary directories not there before it, and its workload
leftovers() {
	ls -d /var/tmp/tract-qstore.* 2> /dev/null | sort | comm -13 "$WORK/before" -
	pgrep -f "^$WORKLOAD --dir /var/tmp/tract-qstore" || true
}

"$BENCH/query_store.sh" "$TRACT" "$WORKLOAD" "$WORK/q" 100 > "$WORK/q.out" 2>&1
rc=$?
test_expect_success "query_store.sh makes its store (exit $rc)" '
	test_holds "$rc" -eq 0 &&
	test_holds "$(sqlite3 "$WORK/q/tract-20260101-00.db" "select count(*) from passes")" -eq 100
'
ok "and leaves nothing behind ($(leftovers | tr '\n' ' '))" test -z "$(leftovers)"

# stopped while it records
"$BENCH/query_store.sh" "$TRACT" "$WORKLOAD" "$WORK/q2" 100 > "$WORK/q2.out" 2>&1 &
qs=$!
for _ in $(seq 100); do pgrep -f "^$TRACT record .* -o /var/tmp/tract-qstore" > /dev/null && break; sleep 0.05; done
kill -TERM $qs
wait $qs
rc=$?
# the recorder it started finishes its 3 s on its own: then nothing may be left
for _ in $(seq 100); do [ -z "$(leftovers)" ] && break; sleep 0.1; done
ok "stopped while it records (exit $rc)" test $rc -ne 0
ok "and leaves nothing behind either ($(leftovers | tr '\n' ' '))" test -z "$(leftovers)"

# sampler_cost.sh: its figures, then nothing of it left, the kernel's BPF statistics as they were
THREADS=$(dirname "$TRACT")/bench/threads
if [ -x "$THREADS" ]; then
	ls -d /var/tmp/tract-sampler-cost.* 2> /dev/null | sort > "$WORK/before-cost"
	stats=$(sysctl -n kernel.bpf_stats_enabled)
	# at 10 passes a second, every 1 s window holds passes to divide by
	# (at the bench's 1 a second, one can fall just outside it)
	RATE=10 "$BENCH/sampler_cost.sh" "$TRACT" "$THREADS" 50 1 1 > "$WORK/cost.out" 2> "$WORK/cost.err"
	rc=$?
	read -r total sampler writer scan _ passes < "$WORK/cost.out"
	test_expect_success "sampler_cost.sh: the recorder's CPU per pass, its two threads' (exit $rc: $(cat "$WORK/cost.out"))" '
		test_holds "$rc" -eq 0 &&
		test_holds "$passes" -ge 1 &&
		awk -v t="$total" -v s="$sampler" -v w="$writer" -v b="$scan" \
			"BEGIN { exit !(t > 0 && s > 0 && w >= 0 && b > 0 && t >= s) }"
	'
	left=$(ls -d /var/tmp/tract-sampler-cost.* 2> /dev/null | sort | comm -13 "$WORK/before-cost" -;
	       pgrep -f "^$THREADS 50" || true)
	ok "and leaves nothing behind ($left)" test -z "$left"
	ok "the BPF statistics as they were ($stats)" test "$(sysctl -n kernel.bpf_stats_enabled)" = "$stats"
fi
done_testing
