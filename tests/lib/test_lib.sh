# SPDX-License-Identifier: GPL-2.0-only
# The TAP side of tract's integration tests, in the manner of git's
# t/test-lib.sh: a test is a description and a snippet of shell, evaluated in
# the test's own shell (so its variables are there, unquoted), which passes
# when its last command, its &&-chain, succeeds.  A failure prints the
# snippet and what it wrote as TAP diagnostics.  The assertions below say
# what they found when they fail.  Prerequisites skip tests with TAP's own
# "# SKIP", and done_testing prints the plan at the end, counted.
#
# Sourced by tests/integration/lib.sh, which sets WORK, a directory of the
# test's own, first.

: "${WORK:?WORK must name a directory the test owns}"

test_count=0
test_failed=0
# where the assertions below say why they failed: the test's output in a
# snippet, stderr elsewhere
exec 4>&2
test_planned=
test_output="$WORK/.test-output"

# test_bug_ MESSAGE: the test itself is wrong (a helper called amiss); it
# ends here, failing, rather than assert something other than it meant (a
# failing test line, which a summary shows, not TAP's "Bail out!", which
# would stop every other test file too)
test_bug_() {
	test_count=$((test_count + 1))
	echo "not ok $test_count - bug in the test: $*"
	exit 99
}

# plan N: N tests, said first; a test that counts them at the end calls
# done_testing alone
plan() {
	test_planned=$1
	echo "1..$1"
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# skip DESCRIPTION REASON: a test that cannot run here, counted as TAP's skip
skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count - $1 # SKIP $2"
}

# shquote ARG: ARG in single quotes, as a shell reads it back, on one line
# (a newline shows as \n, a tab as \t)
shquote() {
	# \001 keeps a trailing newline from the command substitution
	printf "'%s'" "$(printf '%s\001' "$1" |
		sed -e ':a' -e '$!{N;ba' -e '}' -e "s/'/'\\\\''/g" -e 's/\n/\\n/g' -e 's/\t/\\t/g' -e 's/\x01$//')"
}

# ok DESCRIPTION COMMAND...: one TAP line; on failure, as diagnostics, the
# command with its arguments as run (so that the values of a test or [ show)
# and its output, stderr included; returns the command's status.  The older
# form: a new test is better written with test_expect_success.
ok() {
	desc=$1
	shift
	test_count=$((test_count + 1))
	if out=$("$@" 2>&1 4>&1); then
		echo "ok $test_count - $desc"
	else
		echo "not ok $test_count - $desc"
		ok_cmd=
		for ok_a; do ok_cmd="$ok_cmd $(shquote "$ok_a")"; done
		printf '#   command:%s\n' "$ok_cmd"
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /'
		test_failed=$((test_failed + 1))
		return 1
	fi
}

# ---- prerequisites ----
# A prerequisite is a word in capitals.  test_set_prereq says it holds;
# test_lazy_prereq gives a snippet that decides it the first time a test
# asks.  test_have_prereq takes one or more, comma-separated, each of which
# may be negated with "!"; on failure test_missing_prereq names the first
# that did not hold.
test_prereq_set=' '
test_prereq_lazy=' '

test_set_prereq() {
	test_prereq_set="$test_prereq_set$1 "
}

# test_lazy_prereq NAME SNIPPET: NAME holds if SNIPPET succeeds, run once in
# a subshell in a scratch directory, its output thrown away
test_lazy_prereq() {
	case $1 in '' | *[!A-Z0-9_]*) test_bug_ "prerequisite name '$1' is not in capitals" ;; esac
	test_prereq_lazy="$test_prereq_lazy$1 "
	eval "test_prereq_snippet_$1=\$2"
}

test_decide_prereq_() {
	case $test_prereq_lazy in *" $1 "*) ;; *) return 0 ;; esac
	test_prereq_lazy=$(printf '%s' "$test_prereq_lazy" | sed "s/ $1 / /")
	eval "tdp_snippet=\$test_prereq_snippet_$1"
	mkdir -p "$WORK/prereq-$1"
	# shellcheck disable=SC2154
	if (cd "$WORK/prereq-$1" && eval "$tdp_snippet") > /dev/null 2>&1 < /dev/null; then
		test_set_prereq "$1"
	fi
	rm -rf "$WORK/prereq-$1"
}

test_have_prereq() {
	test_missing_prereq=
	for thp_p in $(printf '%s' "$1" | tr , ' '); do
		thp_name=${thp_p#!}
		case $thp_name in '' | *[!A-Z0-9_]*) test_bug_ "prerequisite '$thp_p' is not a name in capitals" ;; esac
		test_decide_prereq_ "$thp_name"
		case $test_prereq_set in *" $thp_name "*) thp_have=1 ;; *) thp_have= ;; esac
		case $thp_p in
		!*) [ -z "$thp_have" ] && continue ;;
		*) [ -n "$thp_have" ] && continue ;;
		esac
		test_missing_prereq=$thp_p
		return 1
	done
	return 0
}

# ---- tests ----

# test_eval_ SNIPPET: a function of its own so that a snippet may "return"
test_eval_() {
	eval "$1"
}

# test_diagnose_ SNIPPET: what a failed test wrote, then the snippet, as
# TAP diagnostics (the first lines are the ones a summary keeps)
test_diagnose_() {
	if [ -s "$test_output" ]; then
		sed 's/^/#   /' "$test_output"
	fi
	echo "#   the test:"
	# without the blank lines around it
	printf '%s\n' "$1" | awk 'NF { printf "%s", held; held = ""; print "#   | " $0; begun = 1; next }
		begun { held = held "#   |\n" }'
}

test_expect_() {
	te_want=$1
	shift
	case $# in
	2) te_prereq= ;;
	3) te_prereq=$1; shift ;;
	*) test_bug_ "test_expect_$te_want takes [PREREQ] DESCRIPTION SNIPPET, not $# arguments" ;;
	esac
	te_desc=$1
	te_snippet=$2
	test_count=$((test_count + 1))
	if [ -n "$te_prereq" ] && ! test_have_prereq "$te_prereq"; then
		echo "ok $test_count - $te_desc # SKIP missing $test_missing_prereq"
		return 0
	fi
	# in this shell, not a subshell: what the snippet sets, later ones see;
	# the assertions' messages (fd 4) join its output whatever it redirects
	test_eval_ "$te_snippet" > "$test_output" 2>&1 4>&1 < /dev/null
	te_rc=$?
	case $te_want,$te_rc in
	success,0)
		echo "ok $test_count - $te_desc"
		;;
	success,*)
		echo "not ok $test_count - $te_desc"
		test_diagnose_ "$te_snippet"
		test_failed=$((test_failed + 1))
		;;
	failure,0)
		echo "ok $test_count - $te_desc # TODO known breakage vanished"
		;;
	failure,*)
		echo "not ok $test_count - $te_desc # TODO known breakage"
		;;
	esac
	rm -f "$test_output"
	[ "$te_want" = failure ] || [ "$te_rc" -eq 0 ]
}

# test_expect_success [PREREQ] DESCRIPTION SNIPPET: one test, passing when
# SNIPPET succeeds; skipped when PREREQ does not hold
test_expect_success() { test_expect_ success "$@"; }

# test_expect_failure [PREREQ] DESCRIPTION SNIPPET: a known breakage, a TAP
# TODO: it fails today, and says so should it begin to pass
test_expect_failure() { test_expect_ failure "$@"; }

# done_testing: the plan, counted, unless "plan" said it first, and the
# status of the whole test
done_testing() {
	if [ -z "$test_planned" ]; then
		echo "1..$test_count"
	elif [ "$test_planned" -ne "$test_count" ]; then
		echo "# planned $test_planned tests but ran $test_count"
	fi
	echo "# $test_count tests, $test_failed failed"
	[ "$test_failed" -eq 0 ]
}

# ---- assertions for snippets: each says what it found when it fails ----

# test_clip_: lines from stdin as diagnostics, each cut at 300 bytes (a
# page's data: URL is one line), 20 of them at most
test_clip_() {
	awk 'NR > 20 { more++; next }
	     { if (length($0) > 300) $0 = substr($0, 1, 300) " [...]"; print "  | " $0 }
	     END { if (more) print "  (" NR " lines, the first 20 shown)" }' >&4
}

# test_show_file_ FILE: FILE's head, or that it is empty
test_show_file_() {
	if [ -s "$1" ]; then
		test_clip_ < "$1"
	else
		echo "  ($1 is empty)" >&4
	fi
}

# test_cmp EXPECTED ACTUAL: the files are equal; if not, their diff -u (its
# first 50 lines)
test_cmp() {
	[ $# -eq 2 ] || test_bug_ "test_cmp takes EXPECTED ACTUAL"
	diff -u "$1" "$2" > "$WORK/.test-cmp" && return 0
	awk 'NR <= 50 { print; next } END { if (NR > 50) print "(" NR " lines of diff, the first 50 shown)" }' \
		"$WORK/.test-cmp" >&4
	return 1
}

# test_grep [!] [GREP-OPTIONS] PATTERN FILE: a line of FILE matches (with
# "!", none does); if not, the file's head (or the lines that matched).
# The options are grep's for matching (-E, -F, -x, -w, -i, -e); it prints
# nothing when it holds.
test_grep() {
	tg_not=
	if [ "$1" = ! ]; then
		tg_not=1
		shift
	fi
	[ $# -ge 2 ] || test_bug_ "test_grep takes [!] [GREP-OPTIONS] PATTERN FILE"
	for tg_file; do :; done
	tg_cmd=
	for tg_a; do tg_cmd="$tg_cmd $(shquote "$tg_a")"; done
	if [ ! -f "$tg_file" ]; then
		echo "test_grep:$tg_cmd: there is no file $tg_file" >&4
		return 1
	fi
	if [ -z "$tg_not" ]; then
		grep "$@" > /dev/null && return 0
		echo "test_grep:$tg_cmd: no line matches; the file:" >&4
		test_show_file_ "$tg_file"
	else
		grep "$@" > /dev/null || return 0
		echo "test_grep: !$tg_cmd: these lines match:" >&4
		grep -n "$@" | test_clip_
	fi
	return 1
}

# test_must_be_empty FILE: FILE exists and is empty; if not, what it holds
test_must_be_empty() {
	[ $# -eq 1 ] || test_bug_ "test_must_be_empty takes FILE"
	if [ ! -f "$1" ]; then
		echo "test_must_be_empty: there is no file $1" >&4
		return 1
	fi
	[ -s "$1" ] || return 0
	echo "test_must_be_empty: $1 is not empty:" >&4
	test_show_file_ "$1"
	return 1
}

# test_line_count OP N FILE: FILE's line count compares with N as test(1)'s
# OP (=, -eq, -ge, ...); if not, the count and the file
test_line_count() {
	[ $# -eq 3 ] || test_bug_ "test_line_count takes OP N FILE"
	if [ ! -f "$3" ]; then
		echo "test_line_count: there is no file $3" >&4
		return 1
	fi
	tlc_n=$(wc -l < "$3")
	test "$tlc_n" "$1" "$2" && return 0
	echo "test_line_count: $3 has $tlc_n lines, not $1 $2:" >&4
	test_show_file_ "$3"
	return 1
}

# test_holds ARG...: test(1) of ARGs holds; if not, the ARGs as it saw
# them (what a bare test or [ leaves unsaid)
test_holds() {
	test "$@" && return 0
	th_args=
	for th_a; do th_args="$th_args $(shquote "$th_a")"; done
	echo "test_holds: not so:$th_args" >&4
	return 1
}

# test_expect_code CODE COMMAND...: COMMAND exits with CODE; if not, what it
# exited with
test_expect_code() {
	tec_want=$1
	shift
	"$@"
	tec_rc=$?
	[ "$tec_rc" -eq "$tec_want" ] && return 0
	tec_cmd=
	for tec_a; do tec_cmd="$tec_cmd $(shquote "$tec_a")"; done
	echo "test_expect_code: exit $tec_rc, not $tec_want:$tec_cmd" >&4
	return 1
}
