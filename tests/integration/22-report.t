#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract report: one HTML file for a window with every section, well-formed
# HTML with well-formed SVG pictures in it, opened in chromium with the
# network off in under a second with the flame graph's script running
# inside it, small, hostile text and hostile process names escaped, the
# README's form, bad input.
. "$(dirname "$0")/lib.sh"
need_root_bpf

start_workload --only fsync,futex,pingpong,sleep || exit 1
"$TRACT" record -F 10 -d 3 --wakeup-edges -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
stop_workload
S=$WORK/store

"$TRACT" report -D "$S" -o "$WORK/r.html"
ok "exits 0 and writes the file" test -s "$WORK/r.html"
test_expect_success 'every section is there' '
	for s in "tract report" "Average active threads over time" "Where the time went" \
		"by process" "by activity" "who holds up whom" "by wait, off CPU" "what ended the waits" "Flame graph" "Waits in flight" "Block I/O latency" \
		"Syscall latency" "Who wakes whom"; do
		test_grep "$s" "$WORK/r.html" || return 1
	done
'
own_cost="tract's own cost"
test_expect_success "it names the host, the window and tract's own cost" '
	test_grep "<th>host</th>" "$WORK/r.html" &&
	test_grep "<th>window</th>" "$WORK/r.html" &&
	test_grep "$own_cost" "$WORK/r.html"
'
ok "it is well-formed HTML (no script, no event attribute), and its pictures well-formed SVG, one script in all: the flame graph's" \
	html_check --scripts 1 "$WORK/r.html"
node "${BROWSER_TESTS:-$(dirname "$0")/../browser}/report.js" "$WORK/r.html" 4 "$WORK/r.png" > "$WORK/browser.tap" 2>&1
browser=$?
ms=$(sed -n 's/.* - it opens in \([0-9]*\) ms.*/\1/p' "$WORK/browser.tap")
test_expect_success "in chromium, network off: it opens in ${ms:-?} ms (under 1 s and the machine's pace) with its four pictures loaded, the flame graph's frames drawn by its script inside it, no errors, no requests" '
	cat "$WORK/browser.tap" &&
	test_holds "$browser" -eq 0
'
# what the waits are before where in the kernel they sleep: a server's lock
# waits in epoll_wait must not read as epoll.  The lockers' futex waits are
# lock, the ping-pong's pipe reads blocked (each woken by the other, a
# thread of its program), the fsync loop's disk; each is one group, with the
# kernel functions or files under it.
T=$(printf '\t')
# group VALUE FILE: the lines of the group VALUE of a two-level table
group() { awk -F "$T" -v v="$1" '$1 == "outer" { in_group = $2 == v } in_group' "$2"; }
report_table "$WORK/r.html" "by wait, off CPU" > "$WORK/waits.tsv"
test_expect_success 'by wait: grouped by activity first, then where in the kernel they sleep' '
	cat "$WORK/waits.tsv" &&
	two_levels activity "$WORK/waits.tsv" &&
	group lock "$WORK/waits.tsv" > "$WORK/lock.tsv" &&
	test_grep "${T}futex[a-z_]*$T" "$WORK/lock.tsv" &&
	test_grep "^outer${T}disk$T" "$WORK/waits.tsv"
'
report_table "$WORK/r.html" "by file or socket" > "$WORK/files.tsv"
test_expect_success 'by file: grouped by activity first, the pipe under blocked, the flushed file under disk' '
	cat "$WORK/files.tsv" &&
	two_levels activity "$WORK/files.tsv" &&
	group blocked "$WORK/files.tsv" | grep -q "${T}pipe:\[[0-9]*\]$T" &&
	group disk "$WORK/files.tsv" | grep -q "/fsync[^$T]*${T}fsync$T"
'
report_table "$WORK/r.html" "what ended the waits" > "$WORK/enders.tsv"
test_expect_success 'what ended the waits: the blocked ones by threads of the workload, by name' '
	cat "$WORK/enders.tsv" &&
	two_levels ender_class "$WORK/enders.tsv" &&
	group blocked "$WORK/enders.tsv" | grep -q "$T\(ping\|pong\|futex[0-9]*\)$T"
'
size=$(stat -c %s "$WORK/r.html")
ok "it stays small ($size bytes, under 2 MB)" test "$size" -lt 2097152
"$TRACT" report -D "$S" -w 'comm != "</script><script>alert(1)</script>"' -o "$WORK/hostile.html"
ok "a hostile filter is text, not markup" \
	html_check --scripts 1 --text 'comm != "</script><script>alert(1)</script>"' "$WORK/hostile.html"
# processes named with markup, entities and bytes not UTF-8 (the names its tables and pictures show)
record_hostile "$WORK/hostile-store"
"$TRACT" report -D "$WORK/hostile-store" -o "$WORK/names.html"
mkdir "$WORK/pics"
ok "hostile process names: it is well-formed HTML with well-formed SVG pictures, the names text in its table" \
	html_check --scripts 1 --pictures "$WORK/pics" --text "$HOSTILE_TAG" --text "$HOSTILE_ATTR" \
	--text "$HOSTILE_ENTITY" --text "$FFFD$FFFD;?x" "$WORK/names.html"
# the pictures as html_check decoded them, in page order: the flame graph first
pictures() {
	xmllint --noout "$WORK"/pics/*.svg && html_check --xml --scripts 1 --text "$HOSTILE_TAG" \
		--text "$HOSTILE_ATTR" --text "$HOSTILE_ENTITY" --text "$FFFD$FFFD;${FFFD}x" "$WORK/pics/1-the-flame-graph.svg"
}
ok "its pictures, decoded, parse, and in its flame graph the names are the process frames' text" pictures
"$TRACT" report -D "$S" --from -1h -o "$WORK/r1h.html"
ok "the README's form, report -D DIR --from -1h -o FILE: the recording seconds old, the default window's report" \
	cmp "$WORK/r.html" "$WORK/r1h.html"
nosuch="comm = 'nosuch'"
test_expect_success 'an empty selection: exit 1, a message, and no file, not even a partial one' '
	test_expect_code 1 "$TRACT" report -D "$S" -w "$nosuch" -o "$WORK/none.html" 2> "$WORK/none.err" &&
	test_grep "no samples" "$WORK/none.err" &&
	test_holds ! -e "$WORK/none.html" &&
	test_holds -z "$(ls "$WORK" | grep partial)"
'
test_expect_success '-g does not apply: exit 2' '
	test_expect_code 2 "$TRACT" report -D "$S" -g comm > /dev/null 2>&1
'
test_expect_success 'without -o it writes to standard output' '
	"$TRACT" report -D "$S" > "$WORK/stdout.html" &&
	test_grep "^<!DOCTYPE html>" "$WORK/stdout.html"
'
done_testing
