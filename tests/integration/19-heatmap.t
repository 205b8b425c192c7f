#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract heatmap: block I/O and syscall latency over time from the kept
# histograms, and the age of waits still in flight from the samples; the
# cells count what the store holds, the SVG parses and renders, bad input.
. "$(dirname "$0")/lib.sh"
need_root_bpf

start_workload --only fsync,futex,pingpong || exit 1
"$TRACT" record -F 10 -d 3 --syscall-latency -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
stop_workload
S=$WORK/store
db=$(one_store "$S")
# the counts the cells' titles hold, added up
cells() { sed -n 's/.*<title>[^<]*: \([0-9]*\) [a-z]*<\/title>.*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'; }

"$TRACT" heatmap -D "$S" --hist io -o "$WORK/io.svg"
ok "io: parses as XML" xmllint --noout "$WORK/io.svg"
want=$(q "$db" "select sum(count) from io_latency")
ok "io: its cells hold every completion the store kept ($want)" test "$(cells "$WORK/io.svg")" = "$want"
"$TRACT" heatmap -D "$S" --hist syscall -w 'syscall = fsync' -o "$WORK/sc.svg"
want=$(q "$db" "select sum(count) from syscall_latency where syscall = 'fsync'")
ok "syscall -w syscall=fsync: the fsync completions ($want)" test "$(cells "$WORK/sc.svg")" = "$want"
"$TRACT" heatmap -D "$S" --hist inflight -o "$WORK/inflight.svg"
want=$(q "$db" "select count(*) from samples where sc_us is not null or io_us is not null")
ok "inflight: a cell for every sampled wait still open ($want)" test "$(cells "$WORK/inflight.svg")" = "$want"
ok "inflight in chromium: it renders its cells, no errors, no network" \
	node "${BROWSER_TESTS:-$(dirname "$0")/../browser}/render.js" "$WORK/inflight.svg" 'rect.c' 5 "$WORK/inflight.png"
"$TRACT" heatmap -D "$S" --hist inflight -w 'pcomm != "</text><script>&"' -o "$WORK/hostile.svg"
test_expect_success "a filter's text is escaped in the picture" '
	xmllint --noout "$WORK/hostile.svg" &&
	test_grep -F "&lt;/text&gt;&lt;script&gt;&amp;" "$WORK/hostile.svg" &&
	test_grep ! "<script" "$WORK/hostile.svg"
'

"$TRACT" record -F 10 -d 1 --no-syscall-latency -o "$WORK/nolat" 2> /dev/null
test_expect_success 'syscall without --syscall-latency recorded: exit 1, and says so' '
	test_expect_code 1 "$TRACT" heatmap -D "$WORK/nolat" --hist syscall > /dev/null 2> "$WORK/nolat.err" &&
	test_grep syscall-latency "$WORK/nolat.err"
'
test_expect_success 'no --hist: exit 2' '
	test_expect_code 2 "$TRACT" heatmap -D "$S" > /dev/null 2>&1
'
test_expect_success 'a bad --hist: exit 2' '
	test_expect_code 2 "$TRACT" heatmap -D "$S" --hist nosuch > /dev/null 2>&1
'
test_expect_success '-g does not apply: exit 2' '
	test_expect_code 2 "$TRACT" heatmap -D "$S" --hist io -g comm > /dev/null 2>&1
'
done_testing
