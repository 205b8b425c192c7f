#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The command line: help, usage errors, the man page kept in sync with --help.
. "$(dirname "$0")/lib.sh"
plan 37
MAN=$(dirname "$0")/../../doc/tract.8

status() { "$@" > /dev/null 2>&1; echo $?; }

ok "tract --help exits 0 and lists the commands" sh -c "'$TRACT' --help | grep -q '^  record'"
ok "tract without a command is a usage error (2)" test "$(status "$TRACT")" -eq 2
ok "an unknown command exits 2" test "$(status "$TRACT" frobnicate)" -eq 2
ok "a unique prefix selects a command" sh -c "'$TRACT' sch | grep -q 'CREATE TABLE passes'"
ok "record --help goes to stdout and exits 0" sh -c "'$TRACT' record --help | grep -q -- '--frequency'"
for bad in "-F 0" "-F fast" "-F 0x10" "-F 1e2" "-d -2" "--format json" "-p 1,,2" "--bogus"; do
	# shellcheck disable=SC2086
	ok "record $bad exits 2 with a hint" sh -c "'$TRACT' record $bad 2>&1 >/dev/null | grep -q 'Try .tract record --help.' && \
		'$TRACT' record $bad >/dev/null 2>&1; [ \$? -eq 2 ]"
done

ok "a frequency below one pass a day says the range it is outside" sh -c \
	"'$TRACT' record -F 0.000001 2>&1 >/dev/null | grep -q 'from 0.0000116 (one pass a day) to 1000'"

# group columns: an empty name is an error, not a nameless group
mkdir -p "$WORK/empty"
for g in "comm,,state" "comm," ""; do
	ok "query -g '$g' exits 2 saying a column name is empty" sh -c \
		"'$TRACT' query -D '$WORK/empty' -g '$g' 2>&1 >/dev/null | grep -q \"empty column name\\|invalid value '' for -g\" &&
		 '$TRACT' query -D '$WORK/empty' -g '$g' >/dev/null 2>&1; [ \$? -eq 2 ]"
done
# a range that ends before it begins says which times it settled on
"$TRACT" query -D "$WORK/empty" --from '2026-01-02 03:00' --to '2026-01-01 05:00' > /dev/null 2> "$WORK/range.err"
ok "--from after --to exits 2 and names both times" sh -c \
	"[ $? -eq 2 ] && grep -q 'they are 2026-01-02 03:00:00 and 2026-01-01 05:00:00' '$WORK/range.err'"

# a store directory with no hour in it: an error, not an empty answer
"$TRACT" query -D "$WORK/empty" > "$WORK/empty.out" 2> "$WORK/empty.err"
ok "query of a directory with no recorded hour exits 1 saying so, and prints nothing" sh -c \
	"[ $? -eq 1 ] && grep -q 'holds no recorded hour' '$WORK/empty.err' && ! test -s '$WORK/empty.out'"

# options that would do nothing with those given are refused, not ignored
for bad in "query --columns -g pcomm:--columns lists the columns" "record --no-ustacks --unwind fp:not with --no-ustacks" \
	   "wakes -o graph.png:cannot tell the format"; do
	why=${bad#*:} bad=${bad%%:*}
	cmd=${bad%% *}
	# shellcheck disable=SC2086
	ok "$bad exits 2 saying why" sh -c "'$TRACT' $bad 2>&1 >/dev/null | grep -q '^tract $cmd: .*$why' && \
		'$TRACT' $bad >/dev/null 2>&1; [ \$? -eq 2 ] && ! test -e graph.png"
done

# the profile's rate: the message names the option, the value and what it takes
for hz in 5000 -1 abc; do
	ok "record --profile-hz $hz exits 2 saying what it takes" sh -c "'$TRACT' record --profile-hz $hz 2>&1 >/dev/null |
		grep -q \"^tract record: invalid value '$hz' for --profile-hz: expected ticks per second per CPU in \\[0, 1000\\]\" &&
		'$TRACT' record --profile-hz $hz >/dev/null 2>&1; [ \$? -eq 2 ]"
done

# the shared options of the commands that read the store, and their own, name the command
for bad in "top -F 0" "top --format xml -b" "top --format csv" "query --from yesterday" "query -n lots"; do
	cmd=${bad%% *}
	# shellcheck disable=SC2086
	ok "$bad exits 2 naming tract $cmd" sh -c "'$TRACT' $bad -D /nonexistent 2>&1 >/dev/null | grep -q '^tract $cmd: ' && \
		'$TRACT' $bad -D /nonexistent >/dev/null 2>&1; [ \$? -eq 2 ]"
done

for cmd in record query top; do
	missing=
	for opt in $("$TRACT" $cmd --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$MAN" || missing="$missing $opt"
	done
	ok "every long option of $cmd --help is in the man page" test -z "$missing"
done
# what man shows: a warning is text lost or garbled on the page
ok "the man page renders without a warning from troff" \
	sh -c "test -z \"\$(groff -man -Tutf8 -ww -z '$MAN' 2>&1)\""

if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	# a copy the unprivileged user can reach, wherever the tree is checked out
	bin=$(mktemp -d /tmp/tract-nobody.XXXXXX)
	chmod 755 "$bin"
	cp "$TRACT" "$bin/tract"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$bin/tract" "$@"; }
else
	as_nobody() { "$TRACT" "$@"; }
fi
out=$(as_nobody record --source bpf -d 1 2>&1)
rc=$?
ok "record --source bpf as a normal user exits 2 saying root is needed" \
	sh -c "[ $rc -eq 2 ] && printf '%s' '$out' | grep -q 'needs root'"
out=$(as_nobody record -d 1.5 2>&1)
rc=$?
ok "record as a normal user falls back to /proc, says so once, and prints passes" sh -c \
	"[ $rc -eq 0 ] && [ \$(printf '%s\n' '$out' | grep -c 'using the /proc source') -eq 1 ] &&
	 printf '%s\n' '$out' | grep -q 'active of'"
[ -n "${bin:-}" ] && rm -rf "$bin"
documented=$("$TRACT" schema | grep -c '^--   [a-z_0-9]* ')
columns=$( ("$TRACT" schema; echo "select count(*) from pragma_table_info('samples');") | sqlite3)
ok "schema documents every samples column ($documented of $columns)" \
	sh -c "'$TRACT' schema | grep -q 'CREATE VIEW samples' && [ $documented -eq $columns ] && [ $columns -gt 30 ]"
done_testing
