#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every sampled wait is recorded as it ends, with what ended it (the
# wait_ends table): a peer thread's eventfd write ends an epoll_wait
# (blocked by that thread), a timer a nanosleep (sleeping), a thread of
# another process a read on a Unix socket (blocked by it).  A read on a TCP
# connection over loopback is ended by the network's softirq, which runs
# on the interrupt stack of whatever the CPU was running (on a busy CPU, by
# ksoftirqd): input, not the writer.  Each wait holds the samples of its
# thread taken while it lasted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/steal.sh"
need_root_bpf

WAITS=${WAITS:-$(dirname "$WORKLOAD")/waits}
[ -x "$WAITS" ] || test_bug_ "no wait workload at $WAITS (make all builds it)"

# (the host's steal from before the first wait the recording samples began)
steal0=$(steal_now)
"$WAITS" 600 > "$WORK/waits.out" 2> "$WORK/waits.err" &
WL_PID=$!
wait_ready "$WORK/waits.out" || exit 1
# role: the tid the workload printed for it
role() { sed -n "s/^$1=//p" "$WORK/waits.out"; }
POLLER=$(role poller) KICKER=$(role kicker) SLEEPER=$(role sleeper)
LATCHWAITER=$(role latchwaiter) LATCHWRITER=$(role latchwriter)
TCPREADER=$(role tcpreader) UNIXREADER=$(role unixreader) UNIXWRITER=$(role unixwriter)
WRITERS=$(role writers)
# --all: these waits are in idle syscalls, which the default policy leaves out.
# Beside it, 2 s of the same into CSV, for the end of this file.
"$TRACT" record -F 10 -d 2 --all -p "$WL_PID" --format csv -o "$WORK/csv" 2> "$WORK/csv.err" &
csv_rec=$!
"$TRACT" record -F 10 -d 3 --all -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
record_rc=$?
wait $csv_rec
stolen=$(steal_us "$steal0" "$(steal_now)")
PID=$WL_PID
stop_workload
DB=$(one_store "$WORK/store")

test_expect_success 'the recording of the waits succeeds' '
	test_holds "$record_rc" -eq 0 &&
	test_grep ! "lost to a full ring buffer" "$WORK/record.err"
'
# ends WHERE: the count of the wait ends that meet WHERE
ends() { q "$DB" "select count(*) from wait_ends where $1"; }
# Each role's wait lasts ~300 ms: ~10 in 3 s, all of them sampled at 10 Hz.
# At least 3 each, however late a busy host runs the threads.
test_expect_success 'the poller: its waits end, each blocked by the kicker thread of its process' '
	n=$(ends "tid = $POLLER") &&
	test_holds "$n" -ge 3 &&
	test_holds "$(ends "tid = $POLLER and wait_class = '"'blocked'"' and ender_tid = $KICKER and
			    ender_tgid = $PID and ender = '"'kicker'"' and tgid = $PID")" -eq "$n"
'
test_expect_success 'the sleeper: a timer ends each nanosleep, with no thread named' '
	n=$(ends "tid = $SLEEPER") &&
	test_holds "$n" -ge 3 &&
	test_holds "$(ends "tid = $SLEEPER and wait_class = '"'sleeping'"' and ender = '"'timer'"' and
			    ender_tid is null and ender_tgid is null")" -eq "$n"
'
# A wait's start is its sample's time less its time asleep, which the
# kernel keeps from its switch out in the task clock: that clock stops while
# a virtual machine's host steals the CPU, so a start reads late by the
# steal since (steal.sh), on a busy host a millisecond or more of 300.
test_expect_success 'a nanosleep of 300 ms lasts from start_us to end_us: 300 ms or more (less the host'"'"'s steal), under 5 s' '
	test_holds "$(ends "tid = $SLEEPER and (end_us - start_us < 299000 - $stolen or end_us - start_us > 5000000)")" -eq 0
'
test_expect_success 'the Unix socket reader: blocked by the writer thread of the other process' '
	n=$(ends "tid = $UNIXREADER") &&
	test_holds "$n" -ge 3 &&
	test_holds "$WRITERS" != "$PID" &&
	test_holds "$(ends "tid = $UNIXREADER and wait_class = '"'blocked'"' and ender_tid = $UNIXWRITER and
			    ender_tgid = $WRITERS and ender = '"'unixwriter'"'")" -eq "$n"
'
# Loopback TCP: the writer queues the packet to the loopback device, whose
# receive softirq wakes the reader, on the interrupt stack of the CPU it
# runs on (x86_64), or in ksoftirqd when softirqs are deferred.  The kernel
# names the softirq as it runs it, and so does the ender.
test_expect_success 'the TCP reader: its waits end by the network softirq (input), never the writer itself' '
	n=$(ends "tid = $TCPREADER") &&
	test_holds "$n" -ge 3 &&
	test_holds "$(ends "tid = $TCPREADER and wait_class = '"'input'"' and ender = '"'softirq/NET_RX'"' and ender_tid is null")" -ge 1 &&
	test_holds "$(ends "tid = $TCPREADER and not (wait_class = '"'input'"' or ender like '"'ksoftirqd/%'"')")" -eq 0
'
test_expect_success 'the softirq named, not a bare irq: its samples say who woke them, and tract wakes draws it' '
	test_holds "$(q "$DB" "select count(*) from samples where tid = $TCPREADER and waker = '"'softirq/NET_RX'"'")" -ge 1 &&
	test_holds "$(q "$DB" "select count(*) from samples where tid = $TCPREADER and waker = '"'irq'"'")" -eq 0 &&
	"$TRACT" wakes -D "$WORK/store" -n 1000 --format dot > "$WORK/wakes.dot" &&
	test_grep "softirq/NET_RX" "$WORK/wakes.dot"
'
test_expect_success 'each wait holds at least one sample of its thread (samples.ts_us between start_us and end_us)' '
	test_holds "$(q "$DB" "select count(*) from wait_ends w where not exists (select 1 from samples s
			where s.tid = w.tid and s.ts_us between w.start_us and w.end_us)")" -eq 0
'
# A sample is stamped with its pass's start but taken when the sampler
# comes to its thread, up to the pass's duration later: a thread that ran
# just before its wait began, or was woken just before it was visited, shows
# RUN or RUNQ within that much of the wait's edges (and a wait's start is
# read from the pass's start too).  Beyond it, no sample of a wait ran.
test_expect_success 'and each such sample waits: none of them ran (beyond the sampler'"'"'s lateness at the edges)' '
	late=$(q "$DB" "select max(duration_us) from passes") &&
	test_holds "$(q "$DB" "select count(*) from wait_ends w join samples s on s.tid = w.tid and
			s.ts_us between w.start_us + $late and w.end_us - $late where s.state in ('"'RUN'"', '"'RUNQ'"')")" -eq 0
'
test_expect_success 'no wait ends before it starts' '
	test_holds "$(ends "end_us < start_us")" -eq 0
'
# enders TID: what tract query names as the ender of each of TID's samples
# asleep from the start of its first wait that ended to the end of its last,
# within the hour of that end (an hour's file gives the ender only to the
# samples it holds: a recording across the hour has its waits' ends in two)
enders() {
	to=$(q "$DB" "select max(end_us) from wait_ends where tid = $1")
	from=$(q "$DB" "select max(min(start_us), $to / 3600000000 * 3600000000) from wait_ends where tid = $1")
	"$TRACT" query -D "$WORK/store" --from @0 -g ender,ender_tid --format csv -n 0 \
		-w "tid = $1 and state = SLEEP and ts_us >= $from and ts_us <= $to" | tr -d '\r' | sed 1d
}
test_expect_success 'every sample of an ended wait names its ender, back to the wait'"'"'s first (query -g ender)' '
	enders "$LATCHWAITER" > "$WORK/enders" &&
	test_line_count = 1 "$WORK/enders" &&
	test_grep "^latchwriter,$LATCHWRITER," "$WORK/enders" &&
	samples=$(cut -d, -f5 "$WORK/enders") &&
	test_holds "$samples" -gt "$(ends "tid = $LATCHWAITER and start_us >= $from")"
'
test_expect_success 'a timer'"'"'s: timer, no thread, sleeping' '
	"$TRACT" query -D "$WORK/store" --from @0 -g ender,ender_tid,ender_class --format csv -n 0 \
		-w "tid = $SLEEPER and ender is not null" | tr -d '"'\r'"' | sed 1d | cut -d, -f1-3 > "$WORK/timer" &&
	echo "timer,,sleeping" > "$WORK/expect" &&
	test_cmp "$WORK/expect" "$WORK/timer"
'

# The default policy leaves an idle syscall's wait out once it is older than
# the grace (10 ms).  What ended the latest wait at its site (the syscall
# and its first argument, in its process) changes that: a latch-like wait,
# ended by a thread of another process of the same program (the latch
# waiter's epoll_wait on a Unix socket), is kept however long it lasts; one
# ended by a timer (the sleeper's nanosleep) is idle from its start.  Within
# one process a lock's release and a pool's hand-off look alike, so the
# poller's epoll_wait, ended by the kicker thread, keeps the grace, and
# reads blocked where it is kept.  A read is no idle syscall, kept as
# before: input where the network ends it, blocked where a writer of the
# same program does.
"$WAITS" 600 > "$WORK/default.out" 2>&1 &
WL_PID=$!
wait_ready "$WORK/default.out" || exit 1
role() { sed -n "s/^$1=//p" "$WORK/default.out"; }
POLLER=$(role poller) SLEEPER=$(role sleeper) TCPREADER=$(role tcpreader) UNIXREADER=$(role unixreader)
LATCHWAITER=$(role latchwaiter)
"$TRACT" record -F 10 -d 5 -p "$WL_PID" -o "$WORK/default" 2> "$WORK/default.err"
record_rc=$?
stop_workload
DDB=$(one_store "$WORK/default")
# kept TID: its samples 100 ms or more into their wait (10 times the grace)
kept() { q "$DDB" "select count(*) from samples where tid = $1 and state = 'SLEEP' and state_us >= 100000"; }
# activities TID: the activities and classes of its samples in a wait, as
# tract query names them, from a second after the first of its waits ended
# (a wait open before it has no class yet)
activities() {
	from=$(q "$DDB" "select min(end_us) / 1000000 + 1 from wait_ends where tid = $1")
	"$TRACT" query -D "$WORK/default" --from "@$from" -w "tid = $1 and state = 'SLEEP'" \
		-g activity,wait_class --format csv -n 0 | sed 1d | cut -d, -f1,2 | sort -u | tr '\n' ' '
}
test_expect_success 'default policy: the latch waiter'"'"'s epoll_wait, ended by another process of its program, kept however long' '
	test_holds "$record_rc" -eq 0 &&
	test_holds "$(kept "$LATCHWAITER")" -ge 5 &&
	test_holds "$(activities "$LATCHWAITER")" = "blocked,blocked "
'
# kept_learned TID: as kept, from a second after the first of its waits
# ended: a wait begun after the first pass at a site where none has ended
# yet is kept however long (as the latch waiter's first), and the
# poller's first is so where that pass found it between waits, not asleep
kept_learned() {
	q "$DDB" "select count(*) from samples where tid = $1 and state = 'SLEEP' and state_us >= 100000
		and ts_us >= (select min(end_us) + 1000000 from wait_ends where tid = $1)"
}
test_expect_success 'the poller'"'"'s, ended by a thread of its own process, keeps the grace' '
	test_holds "$(kept_learned "$POLLER")" -eq 0 &&
	case "$(activities "$POLLER")" in "" | "blocked,blocked ") ;; *) false ;; esac
'
# (asleep: on a busy host the sleeper, woken, may wait for a CPU, a sample as it should be)
asleep="state = 'SLEEP'"
test_expect_success 'a timer'"'"'s nanosleep is idle from its start once one has ended: no sample of it asleep after the first second' '
	first=$(q "$DDB" "select min(ts_us) from passes") &&
	test_holds "$(q "$DDB" "select count(*) from samples where tid = $SLEEPER and $asleep and ts_us > $first + 1000000")" -eq 0
'
test_expect_success 'reads: the network'"'"'s is input, a writer'"'"'s of the same program blocked' '
	test_holds "$(kept "$TCPREADER")" -ge 5 &&
	test_holds "$(activities "$TCPREADER")" = "input,input " &&
	test_holds "$(activities "$UNIXREADER")" = "blocked,blocked "
'
# A wait that has ended is what its ender says, back to its first sample,
# also where its site had no class yet when it was sampled (the first wait
# at a site): the Unix socket reader's reads all blocked, the TCP reader's
# all input, from the start of the recording.
# (its samples asleep: one at a wait's end, within the sampler's lateness,
# may find the thread woken and queued already, as the check above allows)
ended_activities() {
	"$TRACT" query -D "$WORK/default" --from @0 -w "tid = $1 and ender_class is not null and state = 'SLEEP'" \
		-g activity --format csv -n 0 | sed 1d | cut -d, -f1 | tr -d '"' | sort -u | tr '\n' ' '
}
test_expect_success 'an ended wait'"'"'s samples are what its ender says, its first wait'"'"'s too' '
	test_holds "$(q "$DDB" "select count(*) from samples s join wait_ends w on w.tid = s.tid and
			    s.ts_us between w.start_us and w.end_us where s.tid = $UNIXREADER and
			    s.wait_class_id is null")" -ge 1 &&
	test_holds "$(ended_activities "$UNIXREADER")" = "blocked " &&
	test_holds "$(ended_activities "$TCPREADER")" = "input "
'
# the samples whose activity is input or sleep, as tract query counts them
input_samples() {
	"$TRACT" query -D "$WORK/default" --from @0 -w "activity in ('input', 'sleep')" -g state --format csv |
		awk -F, 'NR > 1 { n += $NF } END { print n + 0 }'
}
# Each pass counts its rows by their site's class (input_rows); the pass in
# which a wait ends counts what its ender changes in its earlier rows
# (input_gained_us, input_lost_us).  At 10 Hz a row stands for 100 ms.
test_expect_success 'the passes count the rows waiting for input or on a timer, as activity says' '
	test_holds "$(q "$DDB" "select sum(input_rows) from passes")" -gt 0 &&
	test_holds "$(q "$DDB" "select (sum(input_rows * weight_us) + sum(input_gained_us) - sum(input_lost_us)) / 100000
				 from passes")" -eq "$(input_samples)"
'
test_expect_success 'and the headline says how many of the active threads waited so' '
	"$TRACT" query -D "$WORK/default" --from @0 > "$WORK/headline" &&
	test_grep "average active threads.*[0-9] of them waiting for input or on a timer" "$WORK/headline"
'

# A site where no wait has ended yet has no class, and its first wait
# cannot wait for one to be kept: a server's first lock wait, begun after the
# recording did, with no timeout, is kept for its first minute, and its end
# says what it was (the latch waiter's last, ended by the latch writer of
# another process of the program, 2 s after its first).  A timeout that runs
# out at a site (the latch waiter's first wait, 0.3 s, kept only while
# young) makes naps of its waits with a timeout, not of those with none;
# an alarm's signal that ends one with none (a server's deadlock check: its
# second, at 0.8 s) teaches nothing.  A wait with no timeout that never ends
# (the late idler's) is kept too, idle, in one row; one begun before the
# recording (the idler's) is not kept past the grace.  A timer's event that
# ends a wait with no timeout (the ticker's timerfd) makes naps of its
# site's waits with none: the ticker's next waits are idle from their start.
# (An hour's file gives an ender only to the samples it holds: the activities
# are of the samples that name one, as a recording across the hour has them.)
"$WAITS" 600 fresh > "$WORK/fresh.out" 2>&1 &
WL_PID=$!
wait_ready "$WORK/fresh.out" || exit 1
fresh_role() { sed -n "s/^$1=//p" "$WORK/fresh.out"; }
"$TRACT" record -F 10 -d 6 -o "$WORK/fresh" 2> "$WORK/fresh.err" &
REC=$!
bg_started "$REC"
wait_stored "$WORK/fresh" "select count(*) >= 1 from passes" && kill -USR1 "$WL_PID" &&
	wait_until 10 grep -q "^triggered" "$WORK/fresh.out"
wait "$REC"
fresh_rc=$?
stop_workload
FDB=$(one_store "$WORK/fresh")
IDLER=$(fresh_role idler) LATE=$(fresh_role lateidler) FRESHWAITER=$(fresh_role latchwaiter) TICKER=$(fresh_role ticker)
FRESHWRITER=$(fresh_role latchwriter)
fresh_kept() { q "$FDB" "select count(*) from samples where tid = $1 and state = 'SLEEP' and state_us >= 100000"; }
test_expect_success 'a first wait at a site with no class, begun since the recording, kept however long, the alarm'"'"'s too: their ends say what they were' '
	test_holds "$fresh_rc" -eq 0 &&
	test_holds "$(q "$FDB" "select count(*) from wait_ends where tid = $FRESHWAITER and wait_class = '"'blocked'"'
				 and ender_tgid = $FRESHWRITER")" -eq 1 &&
	test_holds "$(q "$FDB" "select count(*) from wait_ends where tid = $FRESHWAITER and wait_class = '"'sleeping'"'
				 and ender = '"'timer'"'")" -ge 1 &&
	test_holds "$(q "$FDB" "select count(*) from samples s join wait_ends w on w.tid = s.tid and w.wait_class = '"'blocked'"'
				 and s.ts_us between w.start_us and w.end_us where s.tid = $FRESHWAITER
				 and s.state_us >= 100000")" -ge 5 &&
	"$TRACT" query -D "$WORK/fresh" --from @0 -w "tid = $FRESHWAITER and syscall = epoll_wait and state_us >= 100ms and ender is not null" \
		-g activity,ender --format csv -n 0 | sed 1d | cut -d, -f1,2 | tr -d "\"\r" | sort -u > "$WORK/fresh.act" &&
	printf "blocked,latchwriter\nsleep,timer\n" > "$WORK/fresh.expect" &&
	test_cmp "$WORK/fresh.expect" "$WORK/fresh.act"
'
test_expect_success 'one that never ends is kept too, idle, in one row; one begun before the recording is not' '
	test_holds "$(fresh_kept "$LATE")" -ge 5 &&
	test_holds "$(q "$FDB" "select count(*) from sample_facts f join threads t on t.id = f.thread
				 where t.tid = $LATE")" -le 2 &&
	"$TRACT" query -D "$WORK/fresh" --from @0 -w "tid = $LATE and state_us >= 100ms" -g activity --format csv \
		-n 0 | sed 1d | cut -d, -f1 | tr -d "\"\r" | sort -u > "$WORK/late.act" &&
	echo idle > "$WORK/late.expect" &&
	test_cmp "$WORK/late.expect" "$WORK/late.act" &&
	test_holds "$(fresh_kept "$IDLER")" -eq 0
'
test_expect_success 'a timerfd'"'"'s event ends a wait with no timeout: a nap, and the waits after it there idle' '
	test_holds "$(q "$FDB" "select count(*) from wait_ends where tid = $TICKER and wait_class = '"'sleeping'"'
				 and ender = '"'timer'"'")" -ge 1 &&
	test_holds "$(fresh_kept "$TICKER")" -le 3
'

# An idle syscall's wait younger than the grace is kept as active: the
# reaper's wait4 for each short-lived child, the first wait at its site
# (the child's pid), ended by the child's exit.  Active, it is never idle:
# input, as its ender says, and top's view of the active threads, which
# opens by activity, has no idle row.  The claim is of its samples in wait4
# younger than the grace.  A pass shows each thread as it was at the
# pass's moment, and a thread woken since is shown asleep as it was then
# where the kernel's times tell it: its syscall as the visit found it where
# no wakeup in the window kept the one it slept in (the first pass of a
# recording has no moment read, nor one whose deadline had passed), and
# its time asleep unknown where it has got a CPU since that another thread
# had then.  Such a sample of the reaper, asleep in no syscall or for how
# long nobody knows, is idle by the rules for those, which are not this
# one: the note says what it was.
"$WAITS" 600 reaper > "$WORK/reaper.out" 2>&1 &
WL_PID=$!
wait_ready "$WORK/reaper.out" || exit 1
REAPER=$(sed -n 's/^reaper=//p' "$WORK/reaper.out")
"$TRACT" record -F 10 -d 3 -p "$WL_PID" -o "$WORK/reaper" 2> "$WORK/reaper.err"
stop_workload
reaps=$(q "$(one_store "$WORK/reaper")" "select count(*) from samples where tid = $REAPER and syscall = 'wait4'
					 and state = 'SLEEP'")
young_waits="tid = $REAPER and syscall = 'wait4' and state_us < 10000"
# idle_rows WHERE: the samples that read idle among WHERE, what each was
idle_rows() {
	"$TRACT" query -D "$WORK/reaper" --from @0 -w "($1) and activity = idle" \
		-g state,syscall,state_us,sc_us,wait_class,ender_class --format csv -n 0 | sed 1d | tr '\r\n' '  '
}
others=$(idle_rows "tid = $REAPER and (syscall is null or syscall != 'wait4' or state_us is null or state_us >= 10000)")
[ -z "$others" ] || echo "# the reaper's samples outside its young waits that read idle" \
	"(state, syscall, state_us, sc_us, wait_class, ender_class, threads, share, samples): $others"
"$TRACT" top -D "$WORK/reaper" --from @0 -w "$young_waits" -b -n 1 > "$WORK/top.txt"
test_expect_success 'a young idle wait is kept and never idle: top'"'"'s active view has no idle row' '
	test_holds "$reaps" -ge 3 &&
	test_holds "$(idle_rows "$young_waits")" = "" &&
	test_grep "group: activity,pcomm" "$WORK/top.txt" &&
	test_grep "^ *[0-9.]\+ \+[0-9.]\+%.* input \+waits\$" "$WORK/top.txt" &&
	! grep "^ *[0-9.]\+ \+[0-9.]\+%.* idle \+" "$WORK/top.txt"
'

# The table in CSV (recorded beside the first recording), read back by
# query --sql like the other pass tables
# (CRLF line ends: no $ in the patterns)
test_expect_success 'CSV: a wait_ends file with its header and the sleeper'"'"'s ends' '
	f=$(ls "$WORK"/csv/*.wait_ends.csv | head -n 1) &&
	test_grep "^ts_us,tid,tgid,start_us,end_us,ender_tid,ender_tgid,ender,wait_class.\{0,1\}\$" "$f" &&
	test_grep ",,,timer,sleeping" "$f"
'
done_testing
