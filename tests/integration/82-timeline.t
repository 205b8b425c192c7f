#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Time buckets on a store made by hand, whose truth is known: a bucket's
# average is over the time sampled in that bucket, timelines print in time
# order with partial buckets marked, and time no pass stands for is a gap,
# not zero.  Runs anywhere: no root, no BPF, and the store's hour is fixed.
. "$(dirname "$0")/lib.sh"
export TZ=UTC
# top draws with UTF-8 under a UTF-8 locale only (a gap is "·", "_" in ASCII):
# the locale is the test's, whatever the caller's
export LC_ALL=C.UTF-8

S=$WORK/store
mkdir -p "$S"
db=$S/tract-20261130-12.db
# 12:00:30 .. 12:02:29, a pass a second: 10 active threads in the first minute,
# 20 in the second, 30 in the third; the recorder stopped 12:01:10 .. 12:01:18,
# so the pass at 12:01:19 stands for 2 s and 7 s are unsampled.
base=1796040000000000
{
	"$TRACT" schema
	cat <<SQL
INSERT INTO states VALUES (0, 'RUN'), (3, 'SLEEP');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
INSERT INTO threads(id, tid, tgid, comm, pcomm) SELECT i, 1000 + i, 1000, 't' || i, 'app' FROM n;
WITH RECURSIVE s(t) AS (SELECT 30 UNION ALL SELECT t + 1 FROM s WHERE t < 149)
INSERT INTO passes(ts_us, weight_us, visited, emitted, dropped, duration_us, cpu_us, hist_lost, unsampled_us)
	SELECT $base + t * 1000000, CASE WHEN t = 79 THEN 2000000 ELSE 1000000 END, 30,
	       CASE WHEN t < 60 THEN 10 WHEN t < 120 THEN 20 ELSE 30 END, 0, 100, 100, 0,
	       CASE WHEN t = 79 THEN 7000000 ELSE 0 END
	FROM s WHERE t < 70 OR t > 78;
-- half of them run: what the load average would count
UPDATE passes SET load_rows = emitted / 2;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
INSERT INTO sample_facts(pass, thread, state)
	SELECT p.id, n.i, CASE WHEN n.i % 2 THEN 0 ELSE 3 END FROM passes p, n WHERE n.i <= p.emitted;
SQL
} | sqlite3 "$db"
ok "the hand-made store has 111 passes" test "$(q "$db" "select count(*) from passes")" -eq 111

"$TRACT" query -D "$S" --from "2026-11-30 12:00" --to "2026-11-30 12:03" -g minute --format csv > "$WORK/min.csv"
ok "a minute's average is over the time sampled in it: 10, 20, 30" \
	awk -F, 'NR == 2 && $2 + 0 == 10 { a = 1 } NR == 3 && $2 + 0 == 20 { b = 1 } NR == 4 && $2 + 0 == 30 { c = 1 }
		 END { exit !(a && b && c && NR == 4) }' "$WORK/min.csv"
ok "each minute says what it sampled: 30 s, 52 s and 30 s" \
	awk -F, 'NR > 1 { s = s $5 " " } END { exit s != "30000000 52000000 30000000 " }' "$WORK/min.csv"
ok "and all three are partial" awk -F, 'NR > 1 && $6 + 0 != 1 { exit 1 }' "$WORK/min.csv"

"$TRACT" query -D "$S" --from "2026-11-30 12:00" --to "2026-11-30 12:03" -g minute > "$WORK/min.txt"
ok "the table marks partial minutes" test "$(grep -c 'partial$' "$WORK/min.txt")" -eq 3
ok "and says that 7 s were not sampled" grep -q '112 s sampled in 111 passes, 7 s not sampled' "$WORK/min.txt"
ok "the headline is the whole range's average: (300 + 1040 + 900) / 112 s" grep -q '^20.00 average active threads' "$WORK/min.txt"
ok "and says how many of them the load average would count" \
	grep -q '^20.00 average active threads (10.00 on a CPU, queued or in D state' "$WORK/min.txt"

"$TRACT" query -D "$S" --from "2026-11-30 12:00" --to "2026-11-30 12:03" -g second,state --format csv > "$WORK/sec.csv"
ok "seconds print in time order, shown whole without -n" \
	awk -F, 'NR > 1 { if ($1 < last) exit 1; last = $1; n++ } END { exit n != 2 * 111 }' "$WORK/sec.csv"
ok "a second's shares of its own threads add up to 1" \
	awk -F, 'NR > 1 { s[$1] += $4 } END { for (k in s) if (s[k] < 0.999 || s[k] > 1.001) exit 1 }' "$WORK/sec.csv"
ok "and RUN is half of every second's threads" \
	awk -F, 'NR > 1 && $2 == "RUN" && ($4 < 0.49 || $4 > 0.51) { exit 1 }' "$WORK/sec.csv"

# top's timeline: 3 minutes over 36 columns, 5 s a column
"$TRACT" top -D "$S" -b -n 1 --from "2026-11-30 12:00" --to "2026-11-30 12:03" > "$WORK/top.txt" 2>&1
line=$(grep '^timeline' "$WORK/top.txt")
ok "top's timeline peaks at the busiest minute's average, not below the headline ($line)" \
	grep -q 'max 30.00' "$WORK/top.txt"
test_expect_success 'and shows the time before the first pass, the stop and the time after the last as gaps' '
	printf "%s\n" "$line" > "$WORK/line" &&
	test_grep -E "^timeline \|·+[^·|]+·+[^·|]+·+\|" "$WORK/line"
'
line=$(LC_ALL=C "$TRACT" top -D "$S" -b -n 1 --from "2026-11-30 12:00" --to "2026-11-30 12:03" 2>&1 | grep '^timeline')
test_expect_success "under LC_ALL=C the timeline is ASCII, its gaps _ ($line)" '
	printf "%s\n" "$line" > "$WORK/line.c" &&
	(
		LC_ALL=C && export LC_ALL &&
		test_grep -E "^timeline \|_+[^_|]+_+[^_|]+_+\|" "$WORK/line.c" &&
		test_grep ! "[^ -~]" "$WORK/line.c"
	)
'
done_testing
