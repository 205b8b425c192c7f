#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract wakes: the waker -> wakee graph of the recorded wakeup edges, as DOT
# with the store's counts and as Graphviz's SVG, a hostile filter and
# hostile process names escaped, and bad input.
. "$(dirname "$0")/lib.sh"
need_root_bpf

start_workload --only pingpong,sleep || exit 1
pid=$WL_PID
"$TRACT" record -F 10 -d 2 --wakeup-edges -p "$pid" -o "$WORK/store" 2> "$WORK/record.err"
stop_workload
S=$WORK/store
db=$(one_store "$S")

test_expect_success 'dot: exits 0 and is a digraph' '
	"$TRACT" wakes -D "$S" > "$WORK/wakes.dot" &&
	head -n 1 "$WORK/wakes.dot" > "$WORK/wakes.head" &&
	test_grep "^digraph wakes {" "$WORK/wakes.head"
'
self=$(q "$db" "select sum(count) from wakeups where waker_tgid = $pid and wakee_tgid = $pid")
ok "dot: the workload's wakeups of itself are one edge, with the store's count ($self)" \
	grep -q "\"workload $pid\" -> \"workload $pid\" \\[penwidth=[0-9.]*, label=\"$self wakeups" "$WORK/wakes.dot"
ok "dot: a timer wakes the sleeping thread, as a node of its own" grep -q "^	\"timer\" -> \"workload $pid\"" "$WORK/wakes.dot"
"$TRACT" wakes -D "$S" -o "$WORK/wakes.svg"
ok "svg: Graphviz lays it out, and it parses" xmllint --noout "$WORK/wakes.svg"
ok "svg: in chromium it renders its edges, no errors, no network" \
	node "${BROWSER_TESTS:-$(dirname "$0")/../browser}/render.js" "$WORK/wakes.svg" 'g.edge' 2 "$WORK/wakes.png"
"$TRACT" wakes -D "$S" -w 'wakee != "\"</text><script>\\"' -o "$WORK/hostile.svg"
test_expect_success 'a hostile filter in the title stays text' '
	xmllint --noout "$WORK/hostile.svg" &&
	test_grep ! "<script" "$WORK/hostile.svg"
'
# Processes named with markup, entities XML rejects and bytes that are not
# UTF-8.  Their hostile threads wait on a pipe no one writes, so they wake
# no one and no one wakes them; but the graph is between processes, and a
# timer wakes each one's sleeper: the names are nodes.
record_hostile "$WORK/hostile"
"$TRACT" wakes -D "$WORK/hostile" -w "wakee_tgid in ($HOSTILE_PIDS)" > "$WORK/names.dot"
# woken NAME PID: a DOT edge to the process (the timer's, or an interrupt's), its name as DOT quotes it
woken() { grep -qF " -> \"$1 $2\" [" "$WORK/names.dot" || { echo "no edge to $1 $2"; return 1; }; }
# the four pids, in the order of the names
set -- $(echo "$HOSTILE_PIDS" | tr , ' ')
dot_names() {
	woken "$HOSTILE_TAG" "$1" && woken "<b a=\\\"&amp;'\\\">" "$2" && woken '&amp;x;&amp;#0;&amp;lt;' "$3" &&
		woken '??;?x' "$4"
}
ok "hostile process names: DOT quotes each (\" as \\\", & as &amp;, not UTF-8 and controls as ?)" dot_names "$@"
"$TRACT" wakes -D "$WORK/hostile" -w "wakee_tgid in ($HOSTILE_PIDS)" -o "$WORK/names.svg"
ok "Graphviz lays them out, and the SVG parses" xmllint --noout "$WORK/names.svg"
ok "with no script in it, each name the text of its node" html_check --xml --scripts 0 --text "$HOSTILE_TAG $1" \
	--text "$HOSTILE_ATTR $2" --text "$HOSTILE_ENTITY $3" --text "??;?x $4" "$WORK/names.svg"

# a busy host's graph: the edges that ended the most time asleep, the rest in a note
edges=$(q "$db" "select count(*) from (select distinct waker, waker_tgid, wakee, wakee_tgid from wakeups)")
# the edge as DOT names it: "name tgid", or the kernel's waker alone
top=$(q "$db" "select '\"' || waker || coalesce(' ' || waker_tgid, '') || '\" -> \"' || wakee || ' ' || wakee_tgid || '\"'
	from wakeups group by waker, waker_tgid, wakee, wakee_tgid order by sum(blocked_us) desc, sum(count) desc limit 1")
"$TRACT" wakes -D "$S" -n 1 > "$WORK/one.dot"
drawn() { grep -c -- ' -> ' "$1"; }
one() {
	[ "$edges" -ge 2 ] || { echo "only $edges edges recorded"; return 1; }
	[ "$(drawn "$WORK/one.dot")" -eq 1 ] || { echo "$(drawn "$WORK/one.dot") edges drawn"; return 1; }
	grep -q "and $((edges - 1)) more edges\{0,1\} carrying [<0-9.]*% of the blocked time ([0-9]* wakeups) not drawn" "$WORK/one.dot" ||
		{ grep label= "$WORK/one.dot" | head -n 1; return 1; }
	# the one drawn is the one that ended the most time asleep
	grep -qF "	$top [" "$WORK/one.dot" || { echo "drew $(grep -- ' -> ' "$WORK/one.dot"), not $top"; return 1; }
}
ok "-n 1: the edge that ended the most time asleep ($top), the other $((edges - 1)) counted in a note" one
test_expect_success "-n 0 draws every edge ($edges), with no note" '
	"$TRACT" wakes -D "$S" -n 0 > "$WORK/all.dot" &&
	test_holds "$(drawn "$WORK/all.dot")" -eq "$edges" &&
	test_grep ! "more edge" "$WORK/all.dot"
'
test_expect_success 'bad -n: exit 2' '
	test_expect_code 2 "$TRACT" wakes -D "$S" -n -1 2> /dev/null &&
	test_expect_code 2 "$TRACT" wakes -D "$S" -n x 2> /dev/null
'

"$TRACT" record -F 10 -d 1 -p "$$" --no-wakeup-edges -o "$WORK/none" 2> /dev/null
test_expect_success 'no edges recorded: exit 1, and it says how to keep them' '
	test_expect_code 1 "$TRACT" wakes -D "$WORK/none" > /dev/null 2> "$WORK/none.err" &&
	test_grep wakeup-edges "$WORK/none.err"
'
test_expect_success 'bad input: --format png, -g: exit 2' '
	test_expect_code 2 "$TRACT" wakes -D "$S" --format png 2> /dev/null &&
	test_expect_code 2 "$TRACT" wakes -D "$S" -g comm 2> /dev/null
'
done_testing
