#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract ship: a local store's hours into a private ClickHouse server, row for
# row what record --clickhouse ships of the same passes, in every table;
# exactly once when run again, over passes the recorder shipped itself, and
# after a run that left a batch half in the server; a server that is away
# stops it with exit 1 and the next run goes on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/clickhouse.sh"
need_root_bpf
command -v clickhouse-server > /dev/null || skip_all "needs clickhouse-server; 'make deps' installs it"
trap 'ch_stop_all; cleanup' EXIT
P=18426
ch_start "$WORK/ch" $P 19426 || exit 1
URL=http://127.0.0.1:$P
chq() { ch_query $P "$1 FORMAT TSV"; }
tables="samples stacks passes io_latency syscall_latency runq_latency wakeups profile"

start_workload --only fsync,futex,pingpong,hostile || exit 1
# shipped as it was recorded (host live), and kept locally for a backfill
"$TRACT" record -F 20 -d 3 -p "$WL_PID" --syscall-latency --wakeup-edges --runq-latency \
	--clickhouse "$URL" --host live -o "$WORK/s" 2> "$WORK/rec.err"
stop_workload

# a table's rows of one host, without host and batch_id (stacks without the time first seen)
rows_of() {
	case $1 in
	stacks) chq "SELECT * FROM tract.stacks_local WHERE host = '$2'" | cut -f2-4 | LC_ALL=C sort -u ;;
	*) chq "SELECT * FROM tract.$1_local WHERE host = '$2'" | cut -f3- | LC_ALL=C sort ;;
	esac
}
same_as_live() {
	for t in $tables; do
		rows_of "$t" live > "$WORK/live.$t"
		rows_of "$t" back > "$WORK/back.$t"
		[ -s "$WORK/live.$t" ] || { echo "no $t shipped live"; return 1; }
		cmp -s "$WORK/live.$t" "$WORK/back.$t" || { echo "$t differs:"; diff "$WORK/live.$t" "$WORK/back.$t" | head -n 4; return 1; }
	done
}
# rows a table has of a host; stacks replace each other (ReplacingMergeTree), so those by id
counts() {
	for t in $tables; do
		n=count\(\); [ "$t" = stacks ] && n='uniqExact(id)'
		printf '%s ' "$(chq "SELECT $n FROM tract.${t}_local WHERE host = '$1'")"
	done
}

"$TRACT" ship -D "$WORK/s" --clickhouse "$URL" --host back 2> "$WORK/ship1.err"
rc=$?
test_expect_success "tract ship exits 0 and says what it sent ($(cat "$WORK/ship1.err"))" '
	test_holds "$rc" -eq 0 &&
	test_grep "passes (.* samples) of host back sent" "$WORK/ship1.err"
'
ok "every table's rows are what the recorder shipped of the same passes" same_as_live
before=$(counts back)
"$TRACT" ship -D "$WORK/s" --clickhouse "$URL" --host back 2> "$WORK/ship2.err"
test_expect_success "run again, it sends nothing ($(cat "$WORK/ship2.err"))" '
	test_grep "^tract: 0 passes" "$WORK/ship2.err" &&
	test_holds "$(counts back)" = "$before"
'
live=$(counts live)
"$TRACT" ship -D "$WORK/s" --clickhouse "$URL" --host live 2> "$WORK/ship3.err"
test_expect_success 'over the passes the recorder shipped itself, it sends nothing' '
	test_grep "^tract: 0 passes" "$WORK/ship3.err" &&
	test_holds "$(counts live)" = "$live"
'

# a batch half in the server: its samples there, its passes not
ch_query $P "ALTER TABLE tract.passes_local DELETE WHERE host = 'back'" > /dev/null
for _ in $(seq 100); do [ "$(chq "SELECT count() FROM tract.passes_local WHERE host = 'back'")" -eq 0 ] && break; sleep 0.1; done
"$TRACT" ship -D "$WORK/s" --clickhouse "$URL" --host back 2> "$WORK/ship4.err"
test_expect_success 'a batch half sent is completed, its samples not sent twice' '
	test_holds "$(counts back)" = "$before"
'
ok "and it all still equals what the recorder shipped" same_as_live

# the server away: exit 1, and the next run goes on
ch_stop "$WORK/ch"
"$TRACT" ship -D "$WORK/s" --clickhouse "$URL" --host third 2> "$WORK/down.err"
rc=$?
test_expect_success "with the server away, exit $rc and a message" '
	test_holds "$rc" -eq 1 &&
	test_holds -s "$WORK/down.err"
'
ch_start "$WORK/ch" $P 19426 || exit 1
"$TRACT" ship -D "$WORK/s" --clickhouse "$URL" --host third 2> /dev/null
ok "the next run sends it all" test "$(counts third)" = "$live"
# on a terminal, how far it is: a line on stderr, redrawn in place, cleared before the summary
hours=$(ls "$WORK/s"/tract-*.db | wc -l)
script -qfec "'$TRACT' ship -D '$WORK/s' --clickhouse '$URL' --host fourth" /dev/null > "$WORK/tty.raw"
sed 's/\r/\\r/g; s/\x1b/\\e/g' "$WORK/tty.raw" > "$WORK/tty.txt"
ok "on a terminal: 'ship: hour 1 of $hours, 0%', cleared before the summary ($(cat "$WORK/tty.txt"))" \
	grep -q "^\\\\rship: hour 1 of $hours, 0%\\\\e\\[K.*\\\\r\\\\e\\[Ktract: [0-9]* passes" "$WORK/tty.txt"
cr=$(printf '\r')
test_expect_success 'not on a terminal: nothing of it' '
	test_grep ! -F "$cr" "$WORK/ship1.err"
'
"$TRACT" ship -D "$WORK/s" > /dev/null 2>&1
rc=$?
ok "without --clickhouse: a usage error (exit $rc)" test $rc -eq 2
done_testing
