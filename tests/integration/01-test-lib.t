#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The test library itself (tests/lib/test_lib.sh): scripts written with it
# are run, and what they print, TAP and diagnostics, is held to what it
# must be, passing and failing tests alike.
. "$(dirname "$0")/lib.sh"

TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)/test_lib.sh

# run_lib NAME: the script $WORK/NAME.sh, the library sourced first, run in
# a directory of its own; its output, the directory's name made "WORK", in
# $WORK/NAME.out and its exit status in $WORK/NAME.rc
run_lib() {
	mkdir "$WORK/$1.d"
	{
		echo "WORK='$WORK/$1.d'"
		echo ". '$TEST_LIB'"
		cat "$WORK/$1.sh"
	} > "$WORK/$1.run"
	sh "$WORK/$1.run" > "$WORK/$1.raw" 2>&1
	echo $? > "$WORK/$1.rc"
	sed "s|$WORK/$1.d|WORK|g" "$WORK/$1.raw" > "$WORK/$1.out"
}

cat > "$WORK/pass.sh" <<'EOF'
name="it's \"quoted\" \$HOME"
printf '%s\n' "$name" > "$WORK/data"
test_expect_success 'data with quotes, unpasted' '
	test_grep -F -x "$name" "$WORK/data" &&
	set_here=yes
'
test_expect_success 'what a snippet sets stays' 'test "$set_here" = yes'
test_expect_success 'a snippet may return' 'return 0; false'
test_expect_success 'test_cmp of equal files' '
	printf "a\nb\n" > "$WORK/a" && printf "a\nb\n" > "$WORK/b" &&
	test_cmp "$WORK/a" "$WORK/b"
'
test_expect_success 'assertions that hold' '
	: > "$WORK/empty" &&
	test_must_be_empty "$WORK/empty" &&
	test_line_count = 2 "$WORK/a" &&
	test_grep ! zzz "$WORK/a" &&
	test_expect_code 3 sh -c "exit 3" &&
	test_holds "$set_here" = yes
'
test_lazy_prereq NEVER 'false'
test_lazy_prereq HERE 'touch x && test -f x && echo decided >> "$WORK/decided"'
test_expect_success NEVER 'a missing prerequisite skips' 'false'
test_expect_success HERE 'a lazy one is decided when asked' 'true'
test_expect_success '!NEVER,HERE' 'once, and may be negated' 'test_line_count = 1 "$WORK/decided"'
test_set_prereq SET
test_expect_success 'SET,NEVER' 'all of a list must hold' 'false'
test_expect_failure 'a known breakage' 'false'
done_testing
EOF
run_lib pass
cat > "$WORK/pass.want" <<'EOF'
ok 1 - data with quotes, unpasted
ok 2 - what a snippet sets stays
ok 3 - a snippet may return
ok 4 - test_cmp of equal files
ok 5 - assertions that hold
ok 6 - a missing prerequisite skips # SKIP missing NEVER
ok 7 - a lazy one is decided when asked
ok 8 - once, and may be negated
ok 9 - all of a list must hold # SKIP missing NEVER
not ok 10 - a known breakage # TODO known breakage
1..10
# 10 tests, 0 failed
EOF
test_expect_success 'passing tests, skips and a known breakage, the plan last' '
	test_cmp "$WORK/pass.want" "$WORK/pass.out" &&
	test "$(cat "$WORK/pass.rc")" = 0
'

# each failing assertion says what it found, and the snippet follows
cat > "$WORK/fail.sh" <<'EOF'
printf 'one\ntwo\n' > "$WORK/f"
test_expect_success 'test_grep' '
	test_grep three "$WORK/f"
'
test_expect_success 'test_grep !' 'test_grep ! -e o "$WORK/f"'
test_expect_success 'test_cmp' 'echo one > "$WORK/g" && test_cmp "$WORK/g" "$WORK/f" > /dev/null'
test_expect_success 'test_must_be_empty' 'test_must_be_empty "$WORK/f"'
test_expect_success 'test_line_count' 'test_line_count -ge 3 "$WORK/f"'
test_expect_success 'test_expect_code' 'test_expect_code 2 sh -c "echo said >&2; exit 1" 2> /dev/null'
test_expect_success 'test_holds' '
	n=5 &&
	test_holds "$n" -gt 10
'
test_expect_success 'output and the failing chain' '
	echo before &&
	false &&
	echo after
'
ok "the older ok, failing" test_grep three "$WORK/f"
test_expect_failure 'a known breakage that passes' 'true'
done_testing
EOF
run_lib fail
cat > "$WORK/fail.want" <<'EOF'
not ok 1 - test_grep
#   test_grep: 'three' 'WORK/f': no line matches; the file:
#     | one
#     | two
#   the test:
#   | 	test_grep three "$WORK/f"
not ok 2 - test_grep !
#   test_grep: ! '-e' 'o' 'WORK/f': these lines match:
#     | 1:one
#     | 2:two
#   the test:
#   | test_grep ! -e o "$WORK/f"
not ok 3 - test_cmp
#   --- WORK/g
#   +++ WORK/f
#   @@ -1 +1,2 @@
#    one
#   +two
#   the test:
#   | echo one > "$WORK/g" && test_cmp "$WORK/g" "$WORK/f" > /dev/null
not ok 4 - test_must_be_empty
#   test_must_be_empty: WORK/f is not empty:
#     | one
#     | two
#   the test:
#   | test_must_be_empty "$WORK/f"
not ok 5 - test_line_count
#   test_line_count: WORK/f has 2 lines, not -ge 3:
#     | one
#     | two
#   the test:
#   | test_line_count -ge 3 "$WORK/f"
not ok 6 - test_expect_code
#   test_expect_code: exit 1, not 2: 'sh' '-c' 'echo said >&2; exit 1'
#   the test:
#   | test_expect_code 2 sh -c "echo said >&2; exit 1" 2> /dev/null
not ok 7 - test_holds
#   test_holds: not so: '5' '-gt' '10'
#   the test:
#   | 	n=5 &&
#   | 	test_holds "$n" -gt 10
not ok 8 - output and the failing chain
#   before
#   the test:
#   | 	echo before &&
#   | 	false &&
#   | 	echo after
not ok 9 - the older ok, failing
#   command: 'test_grep' 'three' 'WORK/f'
#   test_grep: 'three' 'WORK/f': no line matches; the file:
#     | one
#     | two
ok 10 - a known breakage that passes # TODO known breakage vanished
1..10
# 10 tests, 9 failed
EOF
# diff's dates of the files are not the library's
sed -i -E 's/^(#   (---|\+\+\+) [^[:space:]]*).*/\1/' "$WORK/fail.out"
test_expect_success 'failing tests: what each assertion found, then the snippet' '
	test_cmp "$WORK/fail.want" "$WORK/fail.out" &&
	test "$(cat "$WORK/fail.rc")" = 1
'

# the plan: said first by plan, and then not again; a count that differs said
cat > "$WORK/planned.sh" <<'EOF'
plan 2
test_expect_success 'one' 'true'
done_testing
EOF
run_lib planned
printf '1..2\nok 1 - one\n# planned 2 tests but ran 1\n# 1 tests, 0 failed\n' > "$WORK/planned.want"
test_expect_success 'plan N first still works, and a shortfall is said' '
	test_cmp "$WORK/planned.want" "$WORK/planned.out"
'

# a helper called amiss is the test's bug, not a failure to count
cat > "$WORK/bug.sh" <<'EOF'
test_expect_success 'only a description'
echo "not reached"
EOF
run_lib bug
test_expect_success 'a test written wrong fails there, saying so' '
	test_grep "^not ok 1 - bug in the test: test_expect_success takes" "$WORK/bug.out" &&
	test_grep ! "not reached" "$WORK/bug.out" &&
	test "$(cat "$WORK/bug.rc")" != 0
'
done_testing
