#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Threads waiting for locks are kept in every pass with the thread that
# holds the lock (blocker_tid), as glibc's mutex, a PI futex and the kernel's
# own locks name it; a chain of holders names its root, and two threads
# deadlocked are marked a cycle.  The holders themselves, asleep, are kept
# too.
. "$(dirname "$0")/lib.sh"
need_root_bpf

LOCKS=${LOCKS:-$(dirname "$WORKLOAD")/locks}
[ -x "$LOCKS" ] || test_bug_ "no lock workload at $LOCKS (make all builds it)"

# start_locks MODE ARGS...: the lock workload in the background until the
# test ends it, its roles' tids in $WORK/MODE.out (role=tid); its pid in
# $WORK/MODE.pid, the pid recorded (the same, but for the namespace's)
start_locks() {
	sl_mode=$1
	shift
	"$LOCKS" "$sl_mode" 600 "$@" > "$WORK/$sl_mode.out" 2> "$WORK/$sl_mode.err" &
	bg_started $!
	echo $! > "$WORK/$sl_mode.pid"
}

# tid_of MODE ROLE: the tid the workload printed for ROLE
tid_of() { sed -n "s/^$2=//p" "$WORK/$1.out"; }

# record_locks MODE...: 3 s of each mode's workload at 10 Hz into
# $WORK/MODE.store, all at once: their threads sleep or wait, so the
# recordings take no CPU from each other
record_locks() {
	rl_pids=
	for rl_mode; do
		"$TRACT" record -F 10 -d 3 -p "$(cat "$WORK/$rl_mode.pid")" -o "$WORK/$rl_mode.store" \
			2> "$WORK/$rl_mode.rec.err" &
		rl_pids="$rl_pids $!"
	done
	# shellcheck disable=SC2086
	wait $rl_pids
}

# recorded MODE: the mode's store's one file in DB, its passes in PASSES
recorded() {
	DB=$(one_store "$WORK/$1.store")
	PASSES=$(q "$DB" "select count(*) from passes")
}

# samples_where COND: the samples that meet COND
samples_where() { q "$DB" "select count(*) from samples where $1"; }

# Every shape below started at once and recorded at once, then checked one
# by one.  The kernel's shape needs userfaultfd, which a system may refuse.
for mode in hold chain deadlock pi fake; do
	start_locks $mode
done
start_locks file "$WORK/file.lock"
start_locks kernel 3 "$WORK/locked.dat"
# in a pid namespace of its own: unshare ignores TERM while its child runs,
# and the child, the namespace's init, ignores it too: the child is killed
# (KILL) once recorded, with unshare should the test end first
# (--kill-child), and ends by itself in 60 s whatever happens
ns=0
if command -v unshare > /dev/null && unshare -p -f --kill-child true 2> /dev/null; then
	unshare -p -f --kill-child "$LOCKS" hold 60 > "$WORK/ns.out" 2> "$WORK/ns.err" &
	NS_UNSHARE=$!
	bg_started $NS_UNSHARE
	ns=1
fi
recording="hold chain deadlock pi fake file"
for mode in $recording; do
	wait_ready "$WORK/$mode.out" || exit 1
done
kernel=0
wait_ready "$WORK/kernel.out" && kernel=1 && recording="$recording kernel"
if [ $ns = 1 ]; then
	wait_ready "$WORK/ns.out" || exit 1
	# the workload's own pid on the host: unshare's child; its threads by name
	NS_PID=$(pgrep -P "$NS_UNSHARE" | head -n 1)
	echo "$NS_PID" > "$WORK/ns.pid"
	host_tid() { grep -lx "$1" /proc/"$NS_PID"/task/*/comm | sed 's|.*/task/\([0-9]*\)/comm|\1|'; }
	NA=$(host_tid holder)
	NB=$(host_tid waiter1)
	recording="$recording ns"
fi
# shellcheck disable=SC2086
record_locks $recording
for mode in $recording; do
	if [ "$mode" = ns ]; then
		kill -KILL "$NS_PID"
		wait "$NS_UNSHARE" 2> /dev/null
	else
		kill "$(cat "$WORK/$mode.pid")"
		wait "$(cat "$WORK/$mode.pid")" 2> /dev/null
	fi
done

# ---- glibc's pthread_mutex_t: holder sleeps holding it, waiter1 and waiter2 wait ----
recorded hold
A=$(tid_of hold holder)
B=$(tid_of hold waiter1)
C=$(tid_of hold waiter2)
ok "a recording of the mutex's waiters has passes" at_least "$PASSES" 10
ok "waiter1 is in every pass, blocked by the holder" \
	test "$(samples_where "tid = $B and blocker_tid = $A and chain_root_tid = $A and chain_len = 1 and chain_cycle = 0")" = "$PASSES"
ok "waiter2 is in every pass, blocked by the holder" \
	test "$(samples_where "tid = $C and blocker_tid = $A and chain_root_tid = $A")" = "$PASSES"
# the same wait pass after pass: a row for the first sample, the others its repeats
facts_of() { q "$DB" "select count(*) from sample_facts f join threads t on t.id = f.thread where t.tid = $1"; }
test_expect_success "a waiter's samples of its one wait take a few rows, not one a pass" '
	test_holds "$PASSES" -ge 20 &&
	test_holds "$(facts_of "$B")" -le 3 &&
	test_holds "$(facts_of "$C")" -le 3
'
# named in a pass, the holder is kept from the next on, asleep in no lock wait of its own
ok "the sleeping holder is kept once it is named" \
	at_least "$(samples_where "tid = $A and blocker_tid is null")" "$((PASSES - 1))"
ok "no other blocker is named" test "$(samples_where "blocker_tid is not null and blocker_tid != $A")" = 0
"$TRACT" query -D "$WORK/hold.store" -g comm,blocker_tid -n 0 --format csv > "$WORK/by_blocker.csv" 2>&1
ok "query -g blocker_tid groups the waiters by their holder" \
	grep -qx "waiter1,$A,.*" "$WORK/by_blocker.csv"
"$TRACT" query -D "$WORK/hold.store" -g chain_root_tid -w "chain_root_tid = $A" -n 0 --format csv > "$WORK/by_root.csv" 2>&1
ok "query -g chain_root_tid sums both waiters under the root" \
	awk -F, -v a="$A" -v n="$((2 * PASSES))" '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "samples") k = i; next }
		$1 == a { s += $k } END { if (s != n) { print s " samples, not " n; exit 1 } }' "$WORK/by_root.csv"
"$TRACT" query -D "$WORK/hold.store" -g activity -w "tid = $B" -n 0 --format csv > "$WORK/activity.csv" 2>&1
ok "a lock wait with a named holder is still activity lock" grep -q "^lock," "$WORK/activity.csv"
"$TRACT" top -D "$WORK/hold.store" --from -1h --to now -b -n 1 -g comm,blocker_tid > "$WORK/top.txt" 2>&1
test_expect_success "top heads the holder's column 'blocked by'" '
	test_grep "blocked by" "$WORK/top.txt" &&
	test_grep "waiter1 *$A" "$WORK/top.txt"
'
if command -v tmux > /dev/null; then
	T="tract-holders-$$"
	tmux kill-session -t "$T" 2> /dev/null
	tmux_started "$T"
	tmux new-session -d -s "$T" -x 150 -y 60 \
		"'$TRACT' top -D '$WORK/hold.store' --from -1h --to now -g comm -w 'comm = \"waiter1\"' 2> '$WORK/top.err'; sleep 30"
	# shows_until PATTERN: until the screen shows it (30 s: a loaded machine)
	shows_until() {
		for _ in $(seq 300); do
			tmux capture-pane -p -t "$T" | grep -q "$1" && return 0
			sleep 0.1
		done
		tmux capture-pane -p -t "$T"
		return 1
	}
	shows_until avg_thr > /dev/null
	tmux send-keys -t "$T" Home p
	ok "top's peek names what holds the row up: the holder's tid and name" shows_until "blocked by $A holder"
	tmux kill-session -t "$T" 2> /dev/null
else
	skip "top's peek names what holds the row up: the holder's tid and name" "tmux is not installed"
fi

# ---- a chain: top waits for mid, who holds m1 and waits for root, who holds m2 ----
recorded chain
ROOT=$(tid_of chain root)
MID=$(tid_of chain mid)
TOP=$(tid_of chain top)
ok "the chain's middle waits for its root in every pass" \
	test "$(samples_where "tid = $MID and blocker_tid = $ROOT and chain_root_tid = $ROOT and chain_len = 1")" = "$PASSES"
ok "the chain's top names mid its holder and root its root, two links away, in every pass" \
	test "$(samples_where "tid = $TOP and blocker_tid = $MID and chain_root_tid = $ROOT and chain_len = 2 and chain_cycle = 0")" = "$PASSES"
ok "the chain's root waits for no one" test "$(samples_where "tid = $ROOT and blocker_tid is not null")" = 0
# tract wakes --holders: the chain as holder -> waiter edges between threads, named by their own samples
"$TRACT" wakes -D "$WORK/chain.store" --from @0 --holders > "$WORK/chain.dot" 2>&1
test_expect_success "wakes --holders draws the chain: root -> mid -> top, and no other edge" '
	test_grep "\"root $ROOT\" -> \"mid $MID\" .*label=\"held up " "$WORK/chain.dot" &&
	test_grep "\"mid $MID\" -> \"top $TOP\" .*label=\"held up " "$WORK/chain.dot" &&
	test_holds "$(grep -c -- " -> " "$WORK/chain.dot")" -eq 2 &&
	test_grep ! deadlock "$WORK/chain.dot"
'

# ---- a deadlock: dead1 holds m1 and waits for m2, dead2 the other way round ----
recorded deadlock
D1=$(tid_of deadlock dead1)
D2=$(tid_of deadlock dead2)
LOW=$((D1 < D2 ? D1 : D2))
ok "dead1 waits for dead2 in every pass, marked a cycle" \
	test "$(samples_where "tid = $D1 and blocker_tid = $D2 and chain_cycle = 1 and chain_len = 2")" = "$PASSES"
ok "dead2 waits for dead1 in every pass, marked a cycle" \
	test "$(samples_where "tid = $D2 and blocker_tid = $D1 and chain_cycle = 1")" = "$PASSES"
ok "both have the cycle's lowest tid as their root" \
	test "$(samples_where "chain_root_tid = $LOW")" = "$((2 * PASSES))"
"$TRACT" wakes -D "$WORK/deadlock.store" --from @0 --holders -w "comm = dead1" > "$WORK/dead.dot" 2>&1
test_expect_success "wakes --holders draws a deadlock's edges red, and -w picks the waiters" '
	test_grep "\"dead2 $D2\" -> \"dead1 $D1\" .*color=\"#e00000\", label=\"deadlock: held up " "$WORK/dead.dot" &&
	test_holds "$(grep -c -- " -> " "$WORK/dead.dot")" -eq 1
'
"$TRACT" wakes -D "$WORK/deadlock.store" --from @0 --holders -w "comm = nobody" > "$WORK/none.out" 2>&1
none_rc=$?
test_expect_success "wakes --holders with no waiter named: exit 1, saying so" '
	test_holds "$none_rc" -eq 1 &&
	test_grep "no waits with a named holder" "$WORK/none.out"
'

# ---- a PI mutex: the owner's tid is the futex word ----
recorded pi
PH=$(tid_of pi piholder)
PW=$(tid_of pi piwaiter)
ok "a PI mutex's waiter is in every pass" test "$(samples_where "tid = $PW and syscall = 'futex'")" = "$PASSES"
ok "... blocked by its owner" test "$(samples_where "tid = $PW and blocker_tid = $PH and chain_root_tid = $PH")" = "$PASSES"

# ---- words that wait as glibc's mutex does but are none, naming a live thread of theirs ----
recorded fake
F1=$(tid_of fake fake1)
F2=$(tid_of fake fake2)
ok "a lock word counting no user names no holder, though a live thread's tid is where __owner would be" \
	test "$(samples_where "tid = $F1 and syscall = 'futex'")" = "$PASSES" -a "$(samples_where "tid = $F1 and blocker_tid is not null")" = 0
ok "nor one whose kind has bits glibc never sets" \
	test "$(samples_where "tid = $F2 and syscall = 'futex'")" = "$PASSES" -a "$(samples_where "tid = $F2 and blocker_tid is not null")" = 0

# ---- a process in a pid namespace of its own: glibc names the holder by the namespace's tid ----
if [ $ns = 1 ]; then
	recorded ns
	ok "in a pid namespace, the waiter is named its holder by the host's tid, not the namespace's ($(tid_of ns holder))" \
		test "$(samples_where "tid = $NB and blocker_tid = $NA")" = "$PASSES"
	ok "and no tid of the namespace's is taken for a host's" test "$(samples_where "blocker_tid is not null and blocker_tid != $NA")" = 0
else
	skip "in a pid namespace, the waiter is named its holder by the host's tid" "unshare cannot make a pid namespace here"
	skip "and no tid of the namespace's is taken for a host's" "unshare cannot make a pid namespace here"
fi

# ---- file locks: a process holds a file's fcntl and flock locks, threads of another wait ----
recorded file
FH=$(tid_of file fholder)
FW=$(tid_of file fwaiter)
FLW=$(tid_of file flwaiter)
ok "file: fcntl(F_SETLKW)'s waiter is in every pass, blocked by the process holding the lock" \
	test "$(samples_where "tid = $FW and syscall = 'fcntl' and blocker_tid = $FH and chain_root_tid = $FH")" = "$PASSES"
ok "file: flock's waiter too" \
	test "$(samples_where "tid = $FLW and syscall = 'flock' and blocker_tid = $FH and chain_root_tid = $FH")" = "$PASSES"
"$TRACT" query -D "$WORK/file.store" -w "tid in ($FW, $FLW)" -g activity -n 0 --format csv > "$WORK/file.csv" 2>&1
test_expect_success "file: a file lock's wait is activity lock" '
	sed 1d "$WORK/file.csv" | cut -d, -f1 > "$WORK/file.activity" &&
	echo lock > "$WORK/file.want" &&
	test_cmp "$WORK/file.want" "$WORK/file.activity"
'

# ---- the kernel's own lock: writers of one file wait for its inode lock ----
# kholder writes from a page whose fault never ends, holding the file's lock
if [ $kernel = 0 ]; then
	for t in "kernel: writers wait, blocked by the lock's holder" "kernel: in every pass" \
		 "kernel: each writer, the holder its root" "kernel: the holder itself is kept" \
		 "kernel: no notice" "kernel: only the holder is named"; do
		skip "$t" "no userfaultfd here: $(head -c 200 "$WORK/kernel.err")"
	done
	exit 0
fi
recorded kernel
KH=$(tid_of kernel kholder)
KW=$(for r in kwaiter1 kwaiter2 kwaiter3; do tid_of kernel $r; done | paste -sd,)
if grep -q "does not record who holds a kernel lock" "$WORK/kernel.rec.err"; then
	ok "kernel: without task_struct.blocker, one notice says so" \
		test "$(grep -c "does not record who holds a kernel lock" "$WORK/kernel.rec.err")" = 1
	for t in "kernel: writers wait, blocked by the lock's holder" "kernel: in every pass" \
		 "kernel: each writer, the holder its root" "kernel: the holder itself is kept" \
		 "kernel: only the holder is named"; do
		skip "$t" "this kernel does not record a kernel lock's holder"
	done
else
	ok "kernel: writers wait in DISK, blocked by the lock's holder" \
		at_least "$(samples_where "tid in ($KW) and state = 'DISK' and blocker_tid = $KH")" 1
	ok "kernel: the three writers in every pass, each named the holder" \
		test "$(samples_where "tid in ($KW) and blocker_tid = $KH")" = "$((3 * PASSES))"
	ok "kernel: the holder is each writer's root" \
		test "$(samples_where "tid in ($KW) and chain_root_tid = $KH and chain_len = 1 and chain_cycle = 0")" = "$((3 * PASSES))"
	ok "kernel: the holder, asleep in its page fault, is kept once named" \
		at_least "$(samples_where "tid = $KH")" "$((PASSES - 1))"
	ok "kernel: no notice on a kernel that records holders" \
		test "$(grep -c "does not record who holds a kernel lock" "$WORK/kernel.rec.err")" = 0
	ok "kernel: only the holder is named" test "$(samples_where "blocker_tid is not null and blocker_tid != $KH")" = 0
fi
done_testing
