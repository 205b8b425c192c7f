#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract top: batch refreshes for scripts, and the screen driven in tmux:
# drill-down, back, regroup and peek change what is shown, and q or a signal
# gives the terminal back as it was.  Live mode records and cleans up.
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v tmux > /dev/null || skip_all "tmux is not installed"
plan 17

start_workload --only spin,fsync,futex,pingpong || exit 1
"$TRACT" record -F 10 -d 3 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
stop_workload
S="$WORK/store"
range="--from -1h --to now"

"$TRACT" top -D "$S" $range -b -n 2 -i 0.1 -g comm > "$WORK/batch.txt"
ok "batch mode exits 0" test $? -eq 0
ok "and prints two refreshes with a timeline and the rows" sh -c \
	"[ \$(grep -c 'average active threads' '$WORK/batch.txt') -eq 2 ] && grep -q '^timeline |' '$WORK/batch.txt' &&
	 grep -q ' spin$' '$WORK/batch.txt'"

T="tract-test-$$"
screen() { tmux capture-pane -p -t "$T"; }
# wait_screen PATTERN: until the screen shows it (or 30 s: a loaded machine)
wait_screen() {
	for _ in $(seq 300); do screen | grep -q "$1" && return 0; sleep 0.1; done
	screen; return 1
}
tmux kill-session -t "$T" 2> /dev/null
tmux_started "$T"
tmux new-session -d -s "$T" -x 150 -y 40 \
	"stty -g > '$WORK/stty.before'; '$TRACT' top -D '$S' $range -g state,comm 2> '$WORK/top.err'; echo \$? > '$WORK/top.rc'; stty -g > '$WORK/stty.after'; sleep 30"
wait_screen 'avg_thr' > /dev/null
ok "the screen shows the header and the grouped rows" sh -c "tmux capture-pane -p -t '$T' | grep -q 'tract top - history' &&
	tmux capture-pane -p -t '$T' | grep -q 'group: state,comm'"
tmux send-keys -t "$T" Home Enter
ok "Enter drills into the selected row: its values become the filter" wait_screen 'filter: state = "[A-Z]*" and comm = '
tmux send-keys -t "$T" BSpace
ok "Backspace goes back" wait_screen 'filter: -'
tmux send-keys -t "$T" g C-u comm_folded Enter
ok "g regroups: the futex threads fold into one row" wait_screen 'futex\*'
# a short screen, so that rows reach the message's line
tmux resize-window -t "$T" -x 150 -y 9
tmux send-keys -t "$T" g C-u comm,state,syscall,wait,kstack Enter g C-u nosuch Enter
wait_screen "cannot group by 'nosuch'" > /dev/null
ok "a message takes its line whole: nothing of the rows shows after it" sh -c \
	"tmux capture-pane -p -t '$T' | grep -qx \"cannot group by 'nosuch'; the columns are listed by ? *\""
tmux resize-window -t "$T" -x 150 -y 40
tmux send-keys -t "$T" g C-u comm_folded Enter
tmux send-keys -t "$T" / 'comm_folded="futex*"' Enter
ok "/ filters" wait_screen 'filter: comm_folded="futex\*"'
tmux send-keys -t "$T" p
ok "p peeks at the kernel stacks of the row" wait_screen 'futex_do_wait\|futex_wait'
tmux send-keys -t "$T" q
ok "and q leaves the peek" wait_screen 'avg_thr'
tmux send-keys -t "$T" -- -
ok "- zooms out: the window doubles" wait_screen '(7200 s'
tmux send-keys -t "$T" q
for _ in $(seq 300); do [ -s "$WORK/stty.after" ] && break; sleep 0.1; done
ok "q quits with status 0" test "$(cat "$WORK/top.rc" 2>/dev/null)" = 0
ok "and gives the terminal back as it was" cmp -s "$WORK/stty.before" "$WORK/stty.after"
tmux kill-session -t "$T" 2> /dev/null

# a signal restores the terminal too
rm -f "$WORK/stty.after" "$WORK/top.rc"
tmux new-session -d -s "$T" -x 120 -y 30 \
	"stty -g > '$WORK/stty.before'; '$TRACT' top -D '$S' $range 2> '$WORK/top.err' < /dev/tty & echo \$! > '$WORK/top.pid'; wait; stty -g > '$WORK/stty.after'; sleep 30"
# (a background job reads /dev/null unless told: top would exit at once, having no terminal)
wait_screen 'avg_thr' > /dev/null
kill -TERM "$(cat "$WORK/top.pid")"
killed=$?
for _ in $(seq 300); do [ -s "$WORK/stty.after" ] && break; sleep 0.1; done
ok "SIGTERM gives the terminal back as it was" \
	sh -c "[ $killed -eq 0 ] && cmp '$WORK/stty.before' '$WORK/stty.after'"
tmux kill-session -t "$T" 2> /dev/null

# live: records in-process, and leaves nothing behind
"$TRACT" top --live -b -n 2 -i 0.5 -g state > "$WORK/live.txt" 2> "$WORK/live.err" &
live=$!
bg_started $live
wait_attached $live
wait $live
ok "live batch mode samples this host" sh -c "[ \$(grep -c 'tract top - live' '$WORK/live.txt') -eq 2 ] && grep -q 'passes' '$WORK/live.txt'"
ok "and leaves no BPF program" no_tract_programs $live
# its own store, /tmp/tract-top.PID.*: other tops on the host come and go
ok "and no store behind" test -z "$(ls -d /tmp/tract-top.$live.* 2> /dev/null)"
done_testing
