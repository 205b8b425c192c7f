#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# JIT code named by the runtime's perf map: a Java thread spinning in one
# hot method (OpenJDK 17 from Debian, its frame pointers kept), recorded
# before and after jcmd writes /tmp/perf-PID.map.  Before, its JIT frames
# read [jit]; after, the method by name, its stack unwound through the JIT
# frames by their frame pointers; never an anonymous address.
. "$(dirname "$0")/lib.sh"
need_root_bpf

# Java from Debian, installed here if missing (make test installs it too)
if ! command -v javac > /dev/null 2>&1 || ! command -v jcmd > /dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless \
		> "$WORK/apt.log" 2>&1 || sed 's/^/# /' "$WORK/apt.log"
fi
command -v javac > /dev/null 2>&1 && command -v jcmd > /dev/null 2>&1 ||
	skip_all "no Java (javac, jcmd), and openjdk-17-jdk-headless could not be installed"

javac -d "$WORK" "$(dirname "$0")/../workload/Load.java" 2> "$WORK/javac.err" || skip_all "javac cannot compile here: $(head -1 "$WORK/javac.err")"

java -XX:+PreserveFramePointer -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Load::compute \
	-cp "$WORK" Load 120 > "$WORK/java.out" 2>&1 &
JAVA_PID=$!
bg_started $JAVA_PID
# java_ready OUT PID: ready once compute has run thousands of times, compiled by then
java_ready() {
	for _ in $(seq 600); do
		grep -q '^ready' "$1" && return 0
		kill -0 "$2" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}
# write_perfmap PID MAP OUT: jcmd has the JVM write MAP, asked again if
# it did not (an attach can time out on a busy machine); its output in OUT
write_perfmap() {
	for _ in 1 2 3; do
		jcmd "$1" Compiler.perfmap > "$3" 2>&1 && [ -s "$2" ] && return 0
		sleep 1
	done
	return 1
}
java_ready "$WORK/java.out" $JAVA_PID || skip_all "java did not run: $(head -1 "$WORK/java.out")"
MAP=/tmp/perf-$JAVA_PID.map
rm -f "$MAP"

# ticks of the hot thread in the profile: all, or those whose user stack matches a LIKE pattern
prof="profile p join threads t on t.id = p.thread left join stacks s on s.id = p.ustack"
ticks() { q "$1" "select coalesce(sum(ticks), 0) from $prof where t.comm = 'hot' ${2:+and s.frames like '$2'} ${3:-}"; }
share_at_least() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { exit !(b > 0 && a / b >= s) }'; }

recorded=0
"$TRACT" record -F 10 -d 2 -p $JAVA_PID -o "$WORK/nomap" 2> "$WORK/nomap.err" || recorded=$?
write_perfmap $JAVA_PID "$MAP" "$WORK/jcmd.out"
"$TRACT" record -F 10 -d 2 -p $JAVA_PID -o "$WORK/map" 2> "$WORK/map.err" || recorded=$?
# the name jcmd gave compute ("long Load.compute(long)" from Debian's 17.0.15)
line=$(grep -m1 'Load[:.]*compute' "$MAP" 2> /dev/null)
name=$(printf '%s\n' "$line" | cut -d' ' -f3-)
# written while tract records: the stacks it saw before are named from then on
rm -f "$MAP"
"$TRACT" record -F 10 -d 6 -p $JAVA_PID -o "$WORK/during" 2> "$WORK/during.err" &
rec_pid=$!
bg_started $rec_pid
# once the recorder has stored ticks of the hot thread (the store is read while written)
for _ in $(seq 100); do
	db=$(ls "$WORK/during/"*.db 2> /dev/null | head -1)
	[ -n "$db" ] && [ "$(ticks "$db" 2> /dev/null)" -gt 0 ] 2> /dev/null && break
	sleep 0.1
done
write_perfmap $JAVA_PID "$MAP" "$WORK/jcmd2.out"
wait $rec_pid || recorded=$?
end_children $JAVA_PID
rm -f "$MAP"

test_expect_success 'tract recorded the JVM before and after jcmd' '
	test_holds "$recorded" -eq 0
'
test_expect_success "jcmd wrote the perf map, compute in it ($line)" '
	test_holds -n "$name"
'
# nothing recorded: nothing more to say
[ "$recorded" -eq 0 ] || { done_testing; exit 1; }
nomap=$(one_store "$WORK/nomap") map=$(one_store "$WORK/map")
all=$(ticks "$nomap") jit=$(ticks "$nomap" '%;[jit]') named=$(ticks "$nomap" "%$name%")
ok "without the map the hot method's ticks end in [jit] ($jit of $all)" share_at_least "$jit" "$all" 0.8
ok "and none names it" test_holds "$named" -eq 0
all=$(ticks "$map") named=$(ticks "$map" "%;$name")
ok "with the map, the hot method's on-CPU ticks name it innermost ($named of $all)" share_at_least "$named" "$all" 0.8
# below compute: its caller's frames by their frame pointers, down to where the thread began
whole=$(ticks "$map" "%start_thread;%;$name")
ok "and the stack goes on through the JIT frames to the thread's start ($whole of $named)" \
	share_at_least "$whole" "$named" 0.8
runs=$(q "$map" "select count(*) from samples x join stacks s on s.id = x.ustack_id where x.comm = 'hot'")
runs_named=$(q "$map" "select count(*) from samples x join stacks s on s.id = x.ustack_id
	where x.comm = 'hot' and s.frames like '%$name%'")
if [ "$runs" -gt 0 ]; then
	ok "the hot thread's samples with a user stack name it too ($runs_named of $runs)" share_at_least "$runs_named" "$runs" 0.8
else
	skip "the hot thread's samples with a user stack name it too" "no sample of it had a user stack"
fi
# the last second's ticks, a second or more after jcmd
during=$(one_store "$WORK/during")
last="and p.pass in (select id from passes where ts_us >= (select max(ts_us) from passes) - 1000000)"
all=$(ticks "$during" "" "$last") named=$(ticks "$during" "%;$name" "$last") early=$(ticks "$during" '%;[jit]')
ok "jcmd run while tract records: the hot method is named from then on ($named of $all ticks in the last second)" \
	share_at_least "$named" "$all" 0.8
ok "and was not before ($early ticks end in [jit])" test_holds "$early" -gt 0
anon=$(q "$nomap" "select count(*) from stacks where frames like '%[anon]%'")
anon=$((anon + $(q "$map" "select count(*) from stacks where frames like '%[anon]%'")))
ok 'no stack shows JIT code as an anonymous address' test_holds "$anon" -eq 0

# The same program in a container of its own: a pid namespace, where it is
# pid 1, and a /tmp of its own, where jcmd has it write /tmp/perf-1.map
test_lazy_prereq UNSHARE 'unshare --pid --fork --mount --propagation private true'
if test_have_prereq UNSHARE; then
	# its classes into its own /tmp, through a descriptor opened before
	# that /tmp hides the host's (where the test's files may well be)
	unshare --pid --fork --kill-child --mount --propagation private sh -c 'exec 3< "$1" &&
		mount -t tmpfs tmpfs /tmp && mkdir /tmp/classes && cat <&3 > /tmp/classes/Load.class && exec 3<&- &&
		exec java -XX:+PreserveFramePointer -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Load::compute \
		-cp /tmp/classes Load 120' sh "$WORK/Load.class" > "$WORK/ns.out" 2>&1 &
	NS_PID=$!
	bg_started $NS_PID
	for _ in $(seq 200); do
		ns_java=$(pgrep -P $NS_PID java) && break
		sleep 0.1
	done
	ns_ready=no
	[ -n "$ns_java" ] && java_ready "$WORK/ns.out" "$ns_java" && ns_ready=yes
	if [ $ns_ready = yes ]; then
		write_perfmap "$ns_java" "/proc/$ns_java/root/tmp/perf-1.map" "$WORK/ns-jcmd.out"
		ls "/proc/$ns_java/root/tmp/" > "$WORK/ns-tmp" 2> /dev/null
		"$TRACT" record -F 10 -d 2 -p "$ns_java" -o "$WORK/ns" 2> "$WORK/ns.err"
		ns_db=$(one_store "$WORK/ns")
	fi
	end_children $NS_PID
fi
test_expect_success UNSHARE "the container's java ran, and jcmd wrote its map in its own /tmp" '
	{ test_holds $ns_ready = yes || { head -5 "$WORK/ns.out"; false; }; } &&
	{ test_grep -x -F perf-1.map "$WORK/ns-tmp" || { head -5 "$WORK/ns-jcmd.out"; false; }; } &&
	test_holds ! -e "/tmp/perf-$ns_java.map"
'
if [ "${ns_ready:-}" = yes ]; then
	all=$(ticks "$ns_db") named=$(ticks "$ns_db" "%;$name")
	ok "in the container, the hot method's ticks name it too ($named of $all)" share_at_least "$named" "$all" 0.8
fi
done_testing
