#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Long reads say how far they are on a terminal: flame and report draw one
# progress line on stderr, redrawn in place and cleared at the end; with
# stderr not a terminal they print nothing of it.  (ship: 68-clickhouse-backfill.t)
. "$(dirname "$0")/lib.sh"
need_root_bpf
command -v script > /dev/null || skip_all "needs script (util-linux)"

start_workload --only pingpong,sleep || exit 1
"$TRACT" record -F 10 -d 1 -p "$WL_PID" -o "$WORK/s" 2> "$WORK/record.err"
stop_workload
# four hours: the one recorded, and copies of it as three hours long past
hour=$(one_store "$WORK/s")
for h in 00 01 02; do cp "$hour" "$WORK/s/tract-20000101-$h.db"; done
range="--from @0 --to now"

# CMD on a terminal: what it wrote there, stdout and stderr, as printable text (\r, \e)
on_tty() {
	out=$1
	shift
	script -qfec "$*" /dev/null > "$out.raw"
	rc=$?
	sed 's/\r/\\r/g; s/\x1b/\\e/g' "$out.raw" > "$out"
	return $rc
}
# the last bytes on the terminal: the line cleared, \r ESC [ K
cleared() { test "$(tail -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 0d1b5b4b; }
on_tty "$WORK/flame.tty" "'$TRACT' flame -D '$WORK/s' $range -o '$WORK/f.svg'"
ok "flame on a terminal: a line in place, 'flame: hour 1 of 4, 0%'" \
	grep -q '^\\rflame: hour 1 of 4, 0%\\e\[K' "$WORK/flame.tty"
flame_done() { cleared "$WORK/flame.tty.raw" && xmllint --noout "$WORK/f.svg"; }
ok "and it is cleared at the end, the graph written" flame_done
on_tty "$WORK/diff.tty" "'$TRACT' flame -D '$WORK/s' $range --diff-from @0 --diff-to now -o '$WORK/d.svg'"
ok "a differential graph names the window it reads" grep -q '^\\rflame: the range, hour 1 of 4, 0%' "$WORK/diff.tty"
on_tty "$WORK/report.tty" "'$TRACT' report -D '$WORK/s' $range -o '$WORK/r.html'"
ok "report on a terminal: its first stage, 'report: the samples, hour 1 of 4, 0%'" \
	grep -q '^\\rreport: the samples, hour 1 of 4, 0%\\e\[K' "$WORK/report.tty"
# every percentage said, in order, never going back; the last thing on the line its clearing
monotonic() {
	grep -o '[0-9]*%' "$WORK/report.tty" | tr -d % | awk 'NR > 1 && $1 < last { bad = 1 } { last = $1 } END { exit bad }' &&
		cleared "$WORK/report.tty.raw" && test -s "$WORK/r.html"
}
ok "its share only grows, and the line is cleared at the end ($(grep -o '[0-9]*%' "$WORK/report.tty" | tr '\n' ' '))" monotonic

# ($range is split into its words on purpose)
test_expect_success 'flame with stderr not a terminal: nothing on it' '
	"$TRACT" flame -D "$WORK/s" $range -o "$WORK/f2.svg" 2> "$WORK/flame.err" &&
	test_must_be_empty "$WORK/flame.err"
'
test_expect_success 'report with stderr not a terminal: nothing on it' '
	"$TRACT" report -D "$WORK/s" $range -o "$WORK/r2.html" 2> "$WORK/report.err" &&
	test_must_be_empty "$WORK/report.err"
'
# a message while the line is up starts on a line of its own
on_tty "$WORK/none.tty" "'$TRACT' flame -D '$WORK/s' $range -w 'comm = nosuch' -o '$WORK/n.svg'"
ok "a message clears the line first (exit $?: $(cat "$WORK/none.tty"))" \
	grep -q '^\\rflame: hour 1 of 4, 0%\\e\[K\\r\\e\[Ktract: no samples' "$WORK/none.tty"
done_testing
