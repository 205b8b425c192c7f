#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# JIT code named by the runtime's perf map, as V8 writes it: Node spinning
# in one hot function, started with and without --perf-basic-prof.  With
# the map, its ticks name the function innermost (JS:*compute, file, line)
# and the stack goes on through the JIT frames by their frame pointers to
# node's own C++ below; without it, the JIT frames read [jit].
. "$(dirname "$0")/lib.sh"
need_root_bpf

command -v node > /dev/null 2>&1 || skip_all "no node (Debian's nodejs)"

# compute() kept a function of its own: V8 would inline it into the loop
cat > "$WORK/hot.js" << 'EOF'
function compute(n) {
	let s = 1;
	for (let i = 0; i < n; i++)
		s = (s * 31 + (i ^ (s >>> 7))) | 0;
	return s;
}
let x = 0;
for (let i = 0; ; i++) {
	x += compute(200000);
	if (i === 2000)
		console.log('ready ' + (x & 1));
}
EOF

# run_node NAME [FLAGS...]: node on the script, recorded 2 s once it is hot, into $WORK/NAME
run_node() {
	local name=$1
	shift
	# in the test's directory: --perf-basic-prof also writes V8's log where node runs
	(cd "$WORK" && exec node --no-turbo-inlining "$@" "$WORK/hot.js") > "$WORK/$name.out" 2>&1 &
	local np=$!
	bg_started $np
	for _ in $(seq 300); do
		grep -q '^ready' "$WORK/$name.out" && break
		kill -0 $np 2> /dev/null || break
		sleep 0.1
	done
	"$TRACT" record -F 10 -d 2 -p $np -o "$WORK/$name" 2> "$WORK/$name.err" || echo "record failed: $?" >> "$WORK/$name.out"
	end_children $np
	rm -f "/tmp/perf-$np.map"
}
run_node nomap
run_node map --perf-basic-prof

test_expect_success 'node ran hot, and tract recorded it with and without the map' '
	test_grep "^ready" "$WORK/nomap.out" && test_grep "^ready" "$WORK/map.out" &&
	test_grep ! "record failed" "$WORK/nomap.out" && test_grep ! "record failed" "$WORK/map.out"
'
nomap=$(one_store "$WORK/nomap") map=$(one_store "$WORK/map")
# the main thread's ticks: all, or those whose user stack matches a LIKE pattern
prof="profile p join threads t on t.id = p.thread left join stacks s on s.id = p.ustack"
ticks() { q "$1" "select coalesce(sum(ticks), 0) from $prof where t.tid = t.tgid ${2:+and s.frames like '$2'}"; }
share_at_least() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { exit !(b > 0 && a / b >= s) }'; }

all=$(ticks "$nomap") jit=$(ticks "$nomap" '%;[jit]') named=$(ticks "$nomap" '%compute%')
ok "without the map the hot function's ticks end in [jit] ($jit of $all)" share_at_least "$jit" "$all" 0.8
ok "and none names it" test_holds "$named" -eq 0
all=$(ticks "$map") named=$(ticks "$map" '%;JS:*compute %hot.js:1:%')
ok "with the map, the ticks name it innermost, with its file and line ($named of $all)" share_at_least "$named" "$all" 0.8
whole=$(ticks "$map" '%node::Start;%;JS:*compute %')
ok "and the stack goes on through the JIT frames to node's own code ($whole of $named)" \
	share_at_least "$whole" "$named" 0.8
anon=$(($(q "$nomap" "select count(*) from stacks where frames like '%[anon]%'") +
	$(q "$map" "select count(*) from stacks where frames like '%[anon]%'")))
ok 'no stack shows JIT code as an anonymous address' test_holds "$anon" -eq 0
done_testing
