#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The command line: help, usage errors, the man page kept in sync with --help.
. "$(dirname "$0")/lib.sh"
MAN=$(dirname "$0")/../../doc/tract.8

test_expect_success 'tract --help exits 0 and lists the commands' '
	"$TRACT" --help > "$WORK/help" &&
	test_grep "^  record" "$WORK/help"
'
test_expect_success 'tract without a command is a usage error (2)' '
	test_expect_code 2 "$TRACT" > /dev/null 2>&1
'
test_expect_success 'an unknown command exits 2' '
	test_expect_code 2 "$TRACT" frobnicate > /dev/null 2>&1
'
test_expect_success 'a unique prefix selects a command' '
	"$TRACT" sch > "$WORK/sch" &&
	test_grep "CREATE TABLE passes" "$WORK/sch"
'
test_expect_success 'record --help goes to stdout and exits 0' '
	"$TRACT" record --help > "$WORK/record-help" &&
	test_grep -e --frequency "$WORK/record-help"
'
# $bad and the like below are split into words on purpose
for bad in "-F 0" "-F fast" "-F 0x10" "-F 1e2" "-d -2" "--format json" "-p 1,,2" "--bogus"; do
	test_expect_success "record $bad exits 2 with a hint" '
		test_expect_code 2 "$TRACT" record $bad > /dev/null 2> "$WORK/bad.err" &&
		test_grep "Try .tract record --help." "$WORK/bad.err"
	'
done

test_expect_success 'a frequency below one pass a day says the range it is outside' '
	test_expect_code 2 "$TRACT" record -F 0.000001 > /dev/null 2> "$WORK/rare.err" &&
	test_grep -F "from 0.0000116 (one pass a day) to 1000" "$WORK/rare.err"
'

# group columns: an empty name is an error, not a nameless group
mkdir -p "$WORK/empty"
empty_name="empty column name\\|invalid value '' for -g"
for g in "comm,,state" "comm," ""; do
	test_expect_success "query -g '$g' exits 2 saying a column name is empty" '
		test_expect_code 2 "$TRACT" query -D "$WORK/empty" -g "$g" > /dev/null 2> "$WORK/g.err" &&
		test_grep "$empty_name" "$WORK/g.err"
	'
done
# a range that ends before it begins says which times it settled on
test_expect_success '--from after --to exits 2 and names both times' '
	test_expect_code 2 "$TRACT" query -D "$WORK/empty" --from "2026-01-02 03:00" --to "2026-01-01 05:00" \
		> /dev/null 2> "$WORK/range.err" &&
	test_grep "they are 2026-01-02 03:00:00 and 2026-01-01 05:00:00" "$WORK/range.err"
'

# a store directory with no hour in it: an error, not an empty answer
test_expect_success 'query of a directory with no recorded hour exits 1 saying so, and prints nothing' '
	test_expect_code 1 "$TRACT" query -D "$WORK/empty" > "$WORK/empty.out" 2> "$WORK/empty.err" &&
	test_grep "holds no recorded hour" "$WORK/empty.err" &&
	test_must_be_empty "$WORK/empty.out"
'

# options that would do nothing with those given are refused, not ignored
for bad in "query --columns -g pcomm:--columns lists the columns" "record --no-ustacks --unwind fp:not with --no-ustacks" \
	   "wakes -o graph.png:cannot tell the format"; do
	why=${bad#*:} bad=${bad%%:*}
	cmd=${bad%% *}
	test_expect_success "$bad exits 2 saying why" '
		test_expect_code 2 "$TRACT" $bad > /dev/null 2> "$WORK/why.err" &&
		test_grep "^tract $cmd: .*$why" "$WORK/why.err" &&
		! test -e graph.png
	'
done

# the profile's rate: the message names the option, the value and what it takes
for hz in 5000 -1 abc; do
	hz_said="^tract record: invalid value '$hz' for --profile-hz: expected ticks per second per CPU in \\[0, 1000\\]"
	test_expect_success "record --profile-hz $hz exits 2 saying what it takes" '
		test_expect_code 2 "$TRACT" record --profile-hz "$hz" > /dev/null 2> "$WORK/hz.err" &&
		test_grep "$hz_said" "$WORK/hz.err"
	'
done

# the shared options of the commands that read the store, and their own, name the command
for bad in "top -F 0" "top --format xml -b" "top --format csv" "query --from yesterday" "query -n lots"; do
	cmd=${bad%% *}
	test_expect_success "$bad exits 2 naming tract $cmd" '
		test_expect_code 2 "$TRACT" $bad -D /nonexistent > /dev/null 2> "$WORK/shared.err" &&
		test_grep "^tract $cmd: " "$WORK/shared.err"
	'
done

for cmd in record query top; do
	missing=
	for opt in $("$TRACT" $cmd --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$MAN" || missing="$missing $opt"
	done
	test_expect_success "every long option of $cmd --help is in the man page" '
		test -z "$missing" || { echo "not in $MAN:$missing"; false; }
	'
done
# what man shows: a warning is text lost or garbled on the page
groff -man -Tutf8 -ww -z "$MAN" > "$WORK/groff.out" 2>&1
test_expect_success 'the man page renders without a warning from troff' '
	test_must_be_empty "$WORK/groff.out"
'

if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	# a copy the unprivileged user can reach, wherever the tree is checked out
	bin=$(mktemp -d /tmp/tract-nobody.XXXXXX)
	chmod 755 "$bin"
	cp "$TRACT" "$bin/tract"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$bin/tract" "$@"; }
else
	as_nobody() { "$TRACT" "$@"; }
fi
test_expect_success 'record --source bpf as a normal user exits 2 saying root is needed' '
	test_expect_code 2 as_nobody record --source bpf -d 1 > "$WORK/nobody-bpf.out" 2>&1 &&
	test_grep "needs root" "$WORK/nobody-bpf.out"
'
test_expect_success 'record as a normal user falls back to /proc, says so once, and prints passes' '
	as_nobody record -d 1.5 > "$WORK/nobody.out" 2>&1 &&
	grep "using the /proc source" "$WORK/nobody.out" > "$WORK/nobody.said" &&
	test_line_count = 1 "$WORK/nobody.said" &&
	test_grep "active of" "$WORK/nobody.out"
'
[ -n "${bin:-}" ] && rm -rf "$bin"
documented=$("$TRACT" schema | grep -c '^--   [a-z_0-9]* ')
columns=$( ("$TRACT" schema; echo "select count(*) from pragma_table_info('samples');") | sqlite3)
test_expect_success "schema documents every samples column ($documented of $columns)" '
	"$TRACT" schema > "$WORK/schema.sql" &&
	test_grep "CREATE VIEW samples" "$WORK/schema.sql" &&
	test_holds "$documented" -eq "$columns" &&
	test_holds "$columns" -gt 30
'
done_testing
