#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What query prints of names a user chose reaches no terminal raw and runs
# as no formula in a spreadsheet; --sql reads the store and nothing else,
# within a time and a row limit; the store's files are as they were after.
. "$(dirname "$0")/lib.sh"
need_root_bpf

# processes named as a formula and with a C1 control (CSI, as UTF-8), their
# threads as the workload's hostile ones (an escape sequence, a newline, ...)
FORMULA='=HYPERLINK("x")'
C1=$(printf 'c\302\2332J')
pids=
n=0
for name in "$FORMULA" "$C1"; do
	n=$((n + 1))
	"$WORKLOAD" -d 20 --only hostile,sleep --name "$name" > "$WORK/w$n.out" 2>&1 &
	bg_started $!
	pids="$pids${pids:+,}$!"
	wait_ready "$WORK/w$n.out" || exit 1
done
S="$WORK/store"
"$TRACT" record -F 10 -d 2 -p "$pids" -o "$S" 2> "$WORK/record.err" || { cat "$WORK/record.err" >&2; exit 1; }
db=$(one_store "$S")
sum_before=$(sha256sum "$db" | cut -d' ' -f1)
files_before=$(ls "$S")

# no_controls FILE [BYTES]: no byte below 0x20 but the line ends (and BYTES,
# a table's tabs), no DEL, no C1 bare or as UTF-8
no_controls() {
	LC_ALL=C tr -d "\r\n${2:-}" < "$1" | LC_ALL=C grep -q '[[:cntrl:]]' && { echo "a control byte"; return 1; }
	LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1" && { echo "a C1 control"; return 1; }
	return 0
}

"$TRACT" query -D "$S" --from -1h -g pcomm,comm -n 0 --format csv > "$WORK/groups.csv"
ok "query csv: exits 0" test $? -eq 0
ok "query csv: no control reaches the output" no_controls "$WORK/groups.csv"
ok "query csv: the escape sequence is text" grep -qF 'x1b[2J' "$WORK/groups.csv"
ok "query csv: the formula is text, after a '" grep -q "^\"'=HYPERLINK(\"\"x\"\")\"," "$WORK/groups.csv"
test_expect_success "query csv: sqlite's CSV reader imports a row a line" '
	sqlite3 :memory: ".import --csv $WORK/groups.csv t" "select count(*) from t" > "$WORK/imported" &&
	test_holds "$(cat "$WORK/imported")" = $(($(wc -l < "$WORK/groups.csv") - 1))
'
"$TRACT" query -D "$S" --from -1h -g pcomm,comm -n 0 > "$WORK/groups.txt"
ok "query table: no control reaches the output" no_controls "$WORK/groups.txt"
"$TRACT" top -D "$S" --from -1h -b -n 1 -g pcomm,comm --format csv > "$WORK/top.csv"
ok "top -b csv: no control reaches the output" no_controls "$WORK/top.csv"
ok "top -b csv: the formula is text, after a '" grep -q "^\"'=HYPERLINK" "$WORK/top.csv"
"$TRACT" query -D "$S" --from -1h --sql 'select distinct pcomm, comm, tid from samples' --format csv > "$WORK/sql.csv"
ok "--sql csv: no control reaches the output" no_controls "$WORK/sql.csv"
formula="^\"'=HYPERLINK"
test_expect_success '--sql csv: the formula is text, the tid a number' '
	test_grep "$formula" "$WORK/sql.csv" &&
	test_grep ",[0-9][0-9]*.\$" "$WORK/sql.csv"
'
"$TRACT" query -D "$S" --from -1h --sql 'select distinct pcomm, comm from samples' > "$WORK/sql.txt"
ok "--sql table: no control reaches the output but its tabs" no_controls "$WORK/sql.txt" "$(printf '\t')"

# --sql reads, and nothing else
for sql in 'PRAGMA optimize' 'PRAGMA wal_checkpoint' 'PRAGMA query_only = 0' "ATTACH '$WORK/x.db' AS x"; do
	test_expect_success "--sql refuses '$sql' (2), saying what it allows" '
		test_expect_code 2 "$TRACT" query -D "$S" --from -1h --sql "$sql" > /dev/null 2> "$WORK/sql.err" &&
		test_grep "only statements that read" "$WORK/sql.err"
	'
done
start=$(date +%s)
"$TRACT" query -D "$S" --from -1h --timeout 1 \
	--sql 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c' > /dev/null 2> "$WORK/time.err"
rc=$? took=$(($(date +%s) - start))
test_expect_success "a recursion without end stops at --timeout, a runtime error (1) that says so (${took} s)" '
	test_holds "$rc" -eq 1 &&
	test_holds "$took" -le 10 &&
	test_grep "ran for more than 1 s" "$WORK/time.err"
'
"$TRACT" query -D "$S" --from -1h --max-rows 2 --format csv \
	--sql 'with recursive c(x) as (select 1 union all select x + 1 from c) select x from c' > "$WORK/rows.csv" 2> "$WORK/rows.err"
rc=$?
test_expect_success 'an answer of more rows than --max-rows: those rows, then a runtime error (1)' '
	test_holds "$rc" -eq 1 &&
	test_line_count = 3 "$WORK/rows.csv" &&
	test_grep "more than 2 rows" "$WORK/rows.err"
'
"$TRACT" query -D "$S" --from -1h --timeout 1 > /dev/null 2>&1
ok "--timeout without --sql is a usage error (2)" test $? -eq 2
"$TRACT" query -D "$S" --from -1h --sql 'select 1' --max-rows lots > /dev/null 2>&1
ok "a --max-rows that is no number is a usage error (2)" test $? -eq 2
ok "the store's file is as it was" test "$(sha256sum "$db" | cut -d' ' -f1)" = "$sum_before"
ok "and the directory holds what it held" test "$(ls "$S")" = "$files_before"
done_testing
