#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract top: batch refreshes for scripts, and the screen driven in tmux:
# drill-down, back, regroup and peek change what is shown (the peek at
# stacks unwound by CFI too, in the workload built without frame pointers),
# and q or a signal gives the terminal back as it was.  Live mode records
# and cleans up.
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v tmux > /dev/null || skip_all "tmux is not installed"

start_workload --only spin,fsync,futex,pingpong || exit 1
"$TRACT" record -F 10 -d 3 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
stop_workload
S="$WORK/store"
NOFP=${WORKLOAD_NOFP:-$(dirname "$WORKLOAD")/workload-nofp}
WORKLOAD=$NOFP start_workload --only chain || exit 1
"$TRACT" record -F 10 -d 1 -p "$WL_PID" -o "$WORK/nofp" 2> /dev/null
stop_workload
range="--from -1h --to now"

"$TRACT" top -D "$S" $range -b -n 2 -i 0.1 -g comm > "$WORK/batch.txt"
ok "batch mode exits 0" test $? -eq 0
test_expect_success 'and prints two refreshes with a timeline and the rows' '
	test_grep "average active threads" "$WORK/batch.txt" &&
	grep "average active threads" "$WORK/batch.txt" > "$WORK/batch.heads" &&
	test_line_count = 2 "$WORK/batch.heads" &&
	test_grep "^timeline |" "$WORK/batch.txt" &&
	test_grep " spin\$" "$WORK/batch.txt"
'
# by default, what the active threads wait for: the spinner on a CPU, the
# futex threads on each other (a thread of their program ends their waits)
"$TRACT" top -D "$S" $range -b -n 1 > "$WORK/default.txt"
test_expect_success 'top opens grouped by activity, then the program' '
	test_grep "group: activity,pcomm " "$WORK/default.txt" &&
	test_grep "^ *[0-9.]\+ \+[0-9.]\+%.* cpu \+workload\$" "$WORK/default.txt" &&
	test_grep "^ *[0-9.]\+ \+[0-9.]\+%.* \(blocked\|lock\) \+workload\$" "$WORK/default.txt"
'

T="tract-test-$$"
screen() { tmux capture-pane -p -t "$T"; }
# screen_until CMD...: until CMD, reading the screen, succeeds (or 30 s: a loaded machine)
screen_until() {
	for _ in $(seq 300); do screen | "$@" && return 0; sleep 0.1; done
	screen; return 1
}
# wait_screen PATTERN: until the screen shows it
wait_screen() { screen_until grep -q "$1"; }
tmux kill-session -t "$T" 2> /dev/null
tmux_started "$T"
tmux new-session -d -s "$T" -x 150 -y 40 \
	"cd '$WORK'; stty -g > '$WORK/stty.before'; '$TRACT' top -D '$S' $range -g state,comm 2> '$WORK/top.err'; echo \$? > '$WORK/top.rc'; stty -g > '$WORK/stty.after'; sleep 30"
wait_screen 'avg_thr' > /dev/null
test_expect_success 'the screen shows the header and the grouped rows' '
	screen > "$WORK/screen.txt" &&
	test_grep "tract top - history" "$WORK/screen.txt" &&
	test_grep "group: state,comm" "$WORK/screen.txt"
'
tmux send-keys -t "$T" Home Enter
ok "Enter drills into the selected row: its values become the filter" wait_screen 'filter: state = "[A-Z]*" and comm = '
tmux send-keys -t "$T" BSpace
ok "Backspace goes back" wait_screen 'filter: -'
tmux send-keys -t "$T" t
ok "t puts the process title in the grouping, after the name" wait_screen 'group: state,comm,title'
tmux send-keys -t "$T" t
ok "and takes it out again" wait_screen 'group: state,comm '
tmux send-keys -t "$T" g C-u comm_folded Enter
ok "g regroups: the futex threads fold into one row" wait_screen 'futex\*'
# a short screen, so that rows reach the message's line
tmux resize-window -t "$T" -x 150 -y 9
tmux send-keys -t "$T" g C-u comm,state,syscall,wait,kstack Enter g C-u nosuch Enter
wait_screen "cannot group by 'nosuch'" > /dev/null
whole_line="cannot group by 'nosuch'; the columns are listed by ? *"
test_expect_success 'a message takes its line whole: nothing of the rows shows after it' '
	screen > "$WORK/screen.txt" &&
	test_grep -x "$whole_line" "$WORK/screen.txt"
'
tmux send-keys -t "$T" g C-u Enter
ok "an empty g is refused, saying what it wants" wait_screen 'group by what? one or more columns'
tmux resize-window -t "$T" -x 150 -y 40
tmux send-keys -t "$T" g C-u comm_folded Enter
tmux send-keys -t "$T" / 'comm_folded="futex*"' Enter
ok "/ filters" wait_screen 'filter: comm_folded="futex\*"'
# tall enough for the kernel stacks and the user ones below them
tmux resize-window -t "$T" -x 150 -y 120
tmux send-keys -t "$T" p
ok "p peeks at the kernel stacks of the row" wait_screen 'futex_do_wait\|futex_wait'
ok "and at its user stacks, whole through libc's lock to the workload's own function" wait_screen '^ *futex_thread$'
tmux send-keys -t "$T" q
tmux resize-window -t "$T" -x 150 -y 40
ok "and q leaves the peek" wait_screen 'avg_thr'
tmux send-keys -t "$T" F
ok "F writes the row's flame graph and says where" wait_screen 'flame graph of .* written to /'
svg=$(screen | sed -n 's/.* written to \(\/[^ ]*\.svg\).*/\1/p' | head -n 1)
test_expect_success "and it is an SVG of the row's samples ($svg)" '
	xmllint --noout "$svg" &&
	test_grep futex "$svg"
'
# tall enough for the syscall latency (kept by default) and the block I/O below it
tmux resize-window -t "$T" -x 150 -y 150
tmux send-keys -t "$T" H
# waited for, not slept on: a slow machine draws late
block_io_histogram() { wait_screen '^block I/O latency' && wait_screen 'completions, mean'; }
ok "H shows the row's latency histograms as text: syscall latency, by default" wait_screen '^syscall latency:'
ok "and block I/O, with its completions" block_io_histogram
tmux send-keys -t "$T" q
tmux resize-window -t "$T" -x 150 -y 40
tmux send-keys -t "$T" -- -
ok "- zooms out: the window doubles" wait_screen '(7200 s'
# every width from 40 columns up: each row's first cells are a thread name
# the store has and a state, where they belong (a row that ran past the
# edge wraps onto the next and scrambles it), cut with a mark if at all
states="RUN RUNQ SLEEP DISK"
comms=$("$TRACT" query -D "$S" $range -g comm --format csv | sed 1d | cut -d, -f1 | tr '\n' ' ')
# rows_fit FIRST SECOND: the words the first two cells may be ("*": any)
rows_fit() {
	sed -E 's/(█|▏|▎|▍|▌|▋|▊|▉)/ /g' | awk -v first="$1" -v second="$2" '
		function known(cell, list,   n, i, w) {
			if (list == "*") return cell != ""
			n = split(list, w, " ")
			for (i = 1; i <= n; i++)
				if (cell == w[i] || (cell ~ /…$/ && index(w[i], substr(cell, 1, length(cell) - length("…"))) == 1))
					return 1
			return 0
		}
		/^ *avg_thr/ { rows = 1; next }
		rows { line[++n] = $0 }
		END {
			if (!rows || n < 3) exit 1
			# the last two lines are the message and the keys
			for (i = 1; i <= n - 2; i++) {
				if (line[i] == "") continue
				if (!sub(/^ *[0-9]+\.[0-9][0-9] +[0-9.]+% +/, "", line[i])) exit 1
				split(line[i], cell, /  +/)
				if (!known(cell[1], first) || !known(cell[2], second)) exit 1
			}
		}'
}
tmux send-keys -t "$T" g C-u comm,state,wait,file,syscall Enter
for size in 40x24 50x24 80x24 120x24; do
	tmux resize-window -t "$T" -x "${size%x*}" -y "${size#*x}"
	ok "at $size the rows of comm,state,wait,file,syscall fit the screen" screen_until rows_fit "$comms" "$states"
done
tmux send-keys -t "$T" g C-u kstack Enter
tmux resize-window -t "$T" -x 100 -y 24
ok "a stack cut to the screen keeps its innermost frames, marked" screen_until grep -q '  …;.*\(schedule\|futex\|wait\|sleep\)[^;]*$'
tmux send-keys -t "$T" g C-u activity,pcomm Enter
tmux resize-window -t "$T" -x 40 -y 24
ok "the default grouping at 40 columns fits too" screen_until rows_fit "cpu runq disk lock blocked waiting sleep input idle stopped" "*"
tmux resize-window -t "$T" -x 150 -y 40
tmux send-keys -t "$T" q
for _ in $(seq 300); do [ -s "$WORK/stty.after" ] && break; sleep 0.1; done
ok "q quits with status 0" test "$(cat "$WORK/top.rc" 2>/dev/null)" = 0
ok "and gives the terminal back as it was" cmp -s "$WORK/stty.before" "$WORK/stty.after"
tmux kill-session -t "$T" 2> /dev/null

# a signal restores the terminal too.  top runs in the foreground, on the
# pane's terminal (a shell gives a job it starts with & /dev/null for stdin,
# and top would refuse to start), and says its pid before it execs.
rm -f "$WORK/stty.after" "$WORK/top.rc" "$WORK/top.pid"
tmux new-session -d -s "$T" -x 120 -y 30 \
	"stty -g > '$WORK/stty.before'; sh -c 'echo \$\$ > \"$WORK/top.pid\"; exec \"$TRACT\" top -D \"$S\" $range 2> /dev/null'; echo \$? > '$WORK/top.rc'; stty -g > '$WORK/stty.after'; sleep 30"
wait_screen 'avg_thr' > /dev/null
ok "SIGTERM reaches a running top" kill -TERM "$(cat "$WORK/top.pid")"
for _ in $(seq 300); do [ -s "$WORK/stty.after" ] && break; sleep 0.1; done
test_expect_success 'SIGTERM gives the terminal back as it was, and top exits 0' '
	test_cmp "$WORK/stty.before" "$WORK/stty.after" &&
	test_holds "$(cat "$WORK/top.rc")" = 0
'
tmux kill-session -t "$T" 2> /dev/null

# a closed terminal (a window closed, an ssh session dropped) ends it, whatever it shows
rm -f "$WORK/top.pid"
tmux new-session -d -s "$T" -x 120 -y 30 "echo \$\$ > '$WORK/top.pid'; exec '$TRACT' top -D '$S' $range 2> /dev/null"
wait_screen 'avg_thr' > /dev/null
tmux send-keys -t "$T" p
wait_screen 'kernel stacks' > /dev/null
pid=$(cat "$WORK/top.pid" 2> /dev/null)
tmux kill-session -t "$T"
gone=no
for _ in $(seq 300); do kill -0 "$pid" 2> /dev/null || { gone=yes; break; }; sleep 0.1; done
[ $gone = yes ] || kill -9 "$pid" 2> /dev/null
ok "a closed terminal ends it, even in the stack peek (top's pid: ${pid:-none})" test $gone = yes -a -n "$pid"

# the peek at the chain of the workload built without frame pointers: its
# functions one a line, innermost first, down to the thread's start
tmux new-session -d -s "$T" -x 150 -y 60 \
	"'$TRACT' top -D '$WORK/nofp' $range -g comm -w 'comm = \"chain\"' 2> /dev/null; sleep 30"
wait_screen 'avg_thr' > /dev/null
tmux send-keys -t "$T" p
chain_peeked() {
	awk 'BEGIN { n = split("workload_chain_spin workload_chain_inner workload_chain_middle workload_chain_outer chain_thread start_thread", want, " ") }
		{ sub(/^ +/, ""); sub(/ +$/, "") }
		$0 == want[i + 1] { if (++i == n) found = 1; next }
		{ i = $0 == want[1] }
		END { exit !found }'
}
ok "p on a thread of code without frame pointers shows its user stack whole, innermost first" screen_until chain_peeked
tmux kill-session -t "$T" 2> /dev/null

# live: records in-process, and leaves nothing behind.  Its first pass may
# come late on a busy machine (its refreshes then say "no passes"): eight
# refreshes a second apart, and one of them must have sampled
"$TRACT" top --live -b -n 8 -i 1 -g state > "$WORK/live.txt" 2> "$WORK/live.err" &
live=$!
bg_started $live
wait_attached $live
wait $live
test_expect_success "live batch mode samples this host ($(grep -c ' sampled in [0-9]* pass' "$WORK/live.txt") of 8 refreshes sampled)" '
	test_grep "tract top - live" "$WORK/live.txt" &&
	grep "tract top - live" "$WORK/live.txt" > "$WORK/live.heads" &&
	test_line_count = 8 "$WORK/live.heads" &&
	test_grep " sampled in [0-9]* pass" "$WORK/live.txt"
'
ok "and leaves no BPF program" no_tract_programs $live
# its own store, /tmp/tract-top.PID.*: other tops on the host come and go
ok "and no store behind" test -z "$(ls -d /tmp/tract-top.$live.* 2> /dev/null)"
done_testing
