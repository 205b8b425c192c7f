#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A RUN sample says what its thread ran at the pass's moment: the syscall it
# was in, and a user stack of that same syscall.  Two threads copy 1 MiB at a
# time through a pipe, nearly all their time on a CPU inside write() and
# read(); the sampler reaches a thread that ran at the moment later, most
# often after it left that syscall (on the sampler's own CPU always: a
# kernel without forced preemption lets it finish the syscall first).
. "$(dirname "$0")/lib.sh"
need_root_bpf

start_workload --only pipe || exit 1
# 160 passes: about 50 RUN samples of each thread where it runs a third of the time
"$TRACT" record -F 20 -d 8 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
ok "record exits 0" test $? -eq 0
stop_workload
db=$(one_store "$WORK/store")

# runs COMM WHERE: how many of COMM's RUN samples hold WHERE
runs() {
	q "$db" "select count(*) from samples s left join stacks k on k.id = s.ustack_id
		where s.comm like '$1' and s.state = 'RUN' and ($2)"
}
w_run=$(runs pwriter 1)
w_sc=$(runs pwriter "s.syscall = 'write'")
w_stack=$(runs pwriter "s.syscall = 'write' and k.frames like '%;workload_pipe_write;write'")
r_run=$(runs preader 1)
r_sc=$(runs preader "s.syscall = 'read'")
r_stack=$(runs preader "s.syscall = 'read' and k.frames like '%;pipe_reader_thread;read'")
echo "# pwriter: $w_run RUN, $w_sc in write, $w_stack of them with its user stack;" \
	"preader: $r_run RUN, $r_sc in read, $r_stack with its user stack"

# thresholds from what the run counted: enough RUN samples to tell 75 % from 50 %.
# Not 90 %: the rest are caught in user code, at the syscall's return, where
# a busy host preempts a thread (83 % of the reader's named read() beside two
# busy loops on two CPUs, 90 to 100 % on a quiet host); none names another.
test_expect_success 'the writer ran in enough passes to be judged' 'at_least "$w_run" 20'
test_expect_success 'at least 3 in 4 of its RUN samples name write(), the others none' '
	at_least "$((w_sc * 4))" "$((w_run * 3))" &&
	test_holds "$(runs pwriter "s.syscall is not null and s.syscall != '"'"'write'"'"'")" -eq 0
'
# (a user stack is not yet on every RUN sample in a syscall: a thread whose
# waker slot is not its own yet gets no copy at the syscall's exit; 85 % of
# them had one in a busy run, so the bar is 80 % until that is closed)
test_expect_success '... most with a user stack of that write, ending in workload_pipe_write;write' '
	at_least "$((w_stack * 10))" "$((w_run * 8))"
'
test_expect_success 'the reader ran in enough passes to be judged' 'at_least "$r_run" 20'
test_expect_success 'at least 3 in 4 of its RUN samples name read(), the others none' '
	at_least "$((r_sc * 4))" "$((r_run * 3))" &&
	test_holds "$(runs preader "s.syscall is not null and s.syscall != '"'"'read'"'"'")" -eq 0
'
test_expect_success 'no RUN sample pairs a syscall with the user stack of another' '
	test "$(runs pwriter "s.syscall is not null and k.frames not like \"%;write\"")" -eq 0 &&
	test "$(runs preader "s.syscall is not null and k.frames not like \"%;read\"")" -eq 0
'

# Threads that run 300 us bursts of their own code between 1 ms sleeps, as a
# server's backends do: at the moment, nearly always in user code, and a
# profile tick at 49 Hz finds few of their bursts (18 to 37 % of their RUN
# samples had a stack from one).  Their user stack is of that moment, not of
# the syscall they go to next.  Each CPU's timer copies it at the moment:
# 97 to 100 % of their RUN samples had one in busy runs on two CPUs, where
# without the timers (a kernel before 6.7, which the recorder says) one on
# another CPU than the moment's interrupt that goes on to its sleep with no
# interrupt between has none unless a tick found it: 59 to 97 %, so the bar
# is half there.
start_workload --only bursts || exit 1
"$TRACT" record -F 20 -d 8 -p "$WL_PID" -o "$WORK/bursts" 2> "$WORK/bursts.err"
ok "record of the bursts exits 0" test $? -eq 0
stop_workload
db=$(one_store "$WORK/bursts")
b_run=$(runs 'burst%' 1)
b_user=$(runs 'burst%' "s.syscall is null")
b_stack=$(runs 'burst%' "k.frames is not null")
b_named=$(runs 'burst%' "s.syscall is null and k.frames like '%;workload_burst'")
b_wrong=$(runs 'burst%' "s.syscall is null and k.frames like '%sleep%'")
# where the host stole from a sample's CPU over its pass or the next (/proc/stat
# counts steal at its ticks), the timer of the moment may fire after the
# thread went on to sleep: those are not held to the bar
unstolen="not exists (select 1 from passes p join steal st on st.pass in (p.id, p.id + 1)
	where p.ts_us = s.ts_us and st.cpu = s.cpu)"
b_bare=$(runs 'burst%' "k.frames is null and $unstolen")
b_unnamed=$(runs 'burst%' "s.syscall is null and (k.frames is null or k.frames not like '%;workload_burst') and $unstolen")
echo "# bursts: $b_run RUN, $b_user in user code, $b_stack with a user stack, $b_named of those in user code in workload_burst, $b_wrong in the sleep;" \
	"without a stack where the host stole nothing from their CPU: $b_bare, in user code and not named so: $b_unnamed"
q "$db" "select s.ts_us, s.tid, k.frames from samples s join stacks k on k.id = s.ustack_id
	where s.comm like 'burst%' and s.state = 'RUN' and s.syscall is null
	and k.frames like '%sleep%'" | sed 's/^/#   in the sleep: /'

# tenths of the RUN samples that must have a user stack
tenths=9
if grep -q 'cannot set a timer on each CPU' "$WORK/bursts.err"; then
	echo "# this kernel has no timers for the moment on every CPU: the bar is half"
	tenths=5
fi
test_expect_success 'the burst threads ran in enough passes to be judged' 'at_least "$b_run" 20'
test_expect_success "at least $tenths tenths of their RUN samples have a user stack (steal aside)" '
	at_most "$((b_bare * 10))" "$((b_run * (10 - tenths)))"
'
test_expect_success "... and at least $tenths tenths of those in user code name workload_burst, where they run it" '
	at_most "$((b_unnamed * 10))" "$((b_user * (10 - tenths)))"
'
# A stack copied at the next syscall's entry instead of at the moment would
# show the sleep on most of them.  A few may be there rightly: the moment can
# find a thread in the C library's sleep wrapper, before its syscall or on the
# way back from it once the syscall's exit has been seen (1 of 56 beside five
# busy loops on two CPUs), so the bar is one in twenty.
test_expect_success 'hardly any in user code shows the stack of the sleep it went to next' '
	at_most "$((b_wrong * 20))" "$b_user"
'
done_testing
