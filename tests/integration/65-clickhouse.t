#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract's tables in a private ClickHouse server: the DDL of
# tract clickhouse-schema loads, its samples have the SQLite samples view's
# columns plus host, and literals built by tract's quoting round-trip any
# bytes; bad names are refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/clickhouse.sh"
command -v clickhouse-server > /dev/null || skip_all "needs clickhouse-server; 'make deps' installs it"
trap 'ch_stop_all; cleanup' EXIT
ch_start "$WORK/ch" 18423 19423 || exit 1

"$TRACT" clickhouse-schema > "$WORK/schema.sql"
ok "clickhouse-schema exits 0" test $? -eq 0
# one statement a request: the HTTP interface takes one at a time
loaded=0
while IFS= read -r stmt; do
	ch_query 18423 "$stmt" > "$WORK/ddl.out" || { cat "$WORK/ddl.out"; loaded=1; break; }
done < "$WORK/schema.sql"
ok "its DDL loads into ClickHouse 18.16" test $loaded -eq 0
ch_query 18423 "SELECT name FROM system.tables WHERE database = 'tract' ORDER BY name FORMAT TSV" > "$WORK/tables"
ok "the tables and the views queries read, the pass's histograms, wakeups, profile, steal and wait ends too" \
	test "$(tr '\n' ' ' < "$WORK/tables")" = "io_latency io_latency_local passes passes_local profile profile_local \
runq_latency runq_latency_local samples samples_local stacks stacks_local steal steal_local \
syscall_latency syscall_latency_local wait_ends wait_ends_local wakeups wakeups_local "
# the samples view's columns, as tract schema prints them
"$TRACT" schema | sed -n 's/^--   \([a-z_0-9]*\) .*/\1/p' > "$WORK/view.cols"
ch_query 18423 "SELECT name FROM system.columns WHERE database = 'tract' AND table = 'samples' FORMAT TSV" |
	grep -v '^host$\|^batch_id$' > "$WORK/ch.cols"
ok "samples has the SQLite samples view's columns, in order, plus host and batch_id" cmp "$WORK/view.cols" "$WORK/ch.cols"
test_expect_success 'a second load changes nothing (IF NOT EXISTS)' '
	while IFS= read -r s; do
		curl -sSf --data-binary "$s" http://127.0.0.1:18423/ > /dev/null || return 1
	done < "$WORK/schema.sql"
'
# the one quoting function, asked of the server itself: each literal holds exactly its bytes
LITERALS=$(dirname "$TRACT")/tests/fleet/test_ch_sql
"$LITERALS" --print-literals > "$WORK/literals"
bad=0
while IFS="$(printf '\t')" read -r hex lit; do
	got=$(ch_query 18423 "SELECT hex($lit)")
	[ "$hex" = - ] && hex=
	[ "$got" = "$hex" ] || { echo "# $lit: $got, not $hex"; bad=1; }
done < "$WORK/literals"
ok "quoted literals hold exactly their bytes in ClickHouse: quotes, backslashes, NUL, bytes not UTF-8 ($(wc -l < "$WORK/literals") cases)" \
	test $bad -eq 0
ok "and the injection attempt among them dropped nothing" test "$(ch_query 18423 \
	"SELECT count() FROM system.tables WHERE database = 'tract' AND name = 'samples' FORMAT TSV")" = 1
test_expect_success 'bad database or cluster names exit 2' '
	test_expect_code 2 "$TRACT" clickhouse-schema --database "x; DROP TABLE y" > /dev/null 2>&1 &&
	test_expect_code 2 "$TRACT" clickhouse-schema --cluster "a b" > /dev/null 2>&1
'
done_testing
