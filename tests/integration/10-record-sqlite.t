#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Record the workload into SQLite and check what tract saw against the truth.
. "$(dirname "$0")/lib.sh"
need_root_bpf
. "$(dirname "$0")/../lib/truth.sh"

start_workload || exit 1
pid=$WL_PID
"$TRACT" record -F 10 -d 4 -p "$pid" -o "$WORK/store" 2> "$WORK/record.err" &
rec=$!
bg_started $rec
# what programs it holds, for no_tract_programs (a failure says so on stderr)
wait_attached $rec
# the kernel's accounting of the workload and the sampler from the first
# pass stored to the recorder's end
window_follow $rec "$WORK/store" "$WORK/win" "$pid"
wait $rec
rc=$?
# and of the workload's threads since they started, the recording done
sched_of "$pid" > "$WORK/wl.after"
ok "record exits 0" test "$rc" -eq 0
ok "no tract BPF program is left after the recorder exits" no_tract_programs $rec
db=$(one_store "$WORK/store")
ok "the store is written (a file an hour)" test -f "$db"
# the schema tract prints is the one it writes: the same version, which
# the hour's meta says too
"$TRACT" schema | sqlite3 "$WORK/printed.db"
printed=$(q "$WORK/printed.db" "pragma user_version")
written=$(q "$db" "pragma user_version")
said=$(q "$db" "select value from meta where key = 'schema_version'")
test_expect_success "tract schema prints the version the recorder writes, and the meta says it (printed $printed, written $written, meta $said)" '
	is_number "$written" &&
	test_holds "$printed" = "$written" &&
	test_holds "$said" = "$written"
'
passes=$(q "$db" "select count(*) from passes")
# Every 100 ms slot of the 4 s is a stored pass or time the next pass counts
# as unsampled, but for a tail after the last pass as long as its lateness
# and duration (slot_account)
acct=$(slot_account "$db" 100000 4000000)
test_expect_success "every 100 ms slot of the 4 s is a stored pass or unsampled time ($passes passes; covered, short, tail: $acct)" '
	set -- $acct &&
	test_holds "$2" -ge 0 &&
	test_holds "$2" -le "$3"
'
# and the slots skipped are no more than the sampler's lateness explains:
# its passes' durations, its time on a CPU and on a run queue (skipped_account)
skip=$(skipped_account "$db" "$WORK/win" $rec)
test_expect_success "skipped slots are what the sampler's lateness explains (skipped, allowed: $skip us)" '
	set -- $skip &&
	test_holds "$1" -le "$2"
'
weight=$(q "$db" "select sum(weight_us) from passes")
ok "weights add up to the sampled time: each pass stands for its 100 ms ($weight us, $passes passes)" \
	test "$weight" -eq "$((passes * 100000))"
ok "no rows dropped" test "$(q "$db" "select sum(dropped) from passes")" -eq 0
# the histograms, edges and profile ticks: at 10 passes a second, taken
# into the first pass, then once a second on the passes' schedule, and into
# the last.  The time between two takes is what the passes after the first
# stand for, skipped intervals included: a second, whenever they ran.
takes=$(q "$db" "with t as (select id from passes where id in
	(select pass from syscall_latency_facts union select pass from wakeup_facts union select pass from profile))
	select group_concat(id || ':' || coalesce((select sum(p.weight_us + p.unsampled_us) from passes p
		where p.id <= t.id and p.id > (select max(id) from t u where u.id < t.id)), 0), ' ') from t")
last=$(q "$db" "select max(id) from passes")
# each take after the first a second or more after the one before, but the
# last (the recording's end); the last at the last pass
test_expect_success "the histograms, edges and profile are taken once a second, and at the last pass (pass:us since the previous: $takes; last $last)" '
	set -- $takes &&
	test_holds $# -ge 3 &&
	test_holds $# -le 6 &&
	shift &&
	take_left=$# &&
	for take; do
		take_left=$((take_left - 1))
		test "$take_left" -eq 0 || test_holds "${take#*:}" -ge 1000000 || return 1
	done &&
	test_holds "${take%:*}" -eq "$last"
'

# spin's share of the window's passes in which it is RUN or RUNQ, against
# its time on a CPU or on a run queue over the window as the kernel counted
# it.  Bounds: three standard errors of a share of n passes (p(1 - p) / n at
# the kernel's p), one pass in n (a pass at either end of the window), and a
# tick (10 ms at HZ=100, 4 ms at HZ=250) at each end: the kernel's figure of
# a running thread lags by up to one; and the readings' own length
# (window_mid).
read -r w0 w1 wslack <<EOF
$(window_mid "$WORK/win")
EOF
spin_tid=$(q "$db" "select tid from samples where comm='spin' limit 1")
spin_runs=$(q "$db" "select count(*) || ' ' || (select count(*) from passes where ts_us >= $w0 and ts_us < $w1) from samples
		    where comm='spin' and state in ('RUN','RUNQ') and ts_us >= $w0 and ts_us < $w1")
kspin=$(sched_delta "$WORK/win.0" "$WORK/win.1" "$spin_tid" | awk -v w="$((w1 - w0))" '{ printf "%.4f", ($1 + $2) / w }')
ok "spin is RUN or RUNQ in as many passes as the kernel had it on a CPU or a run queue ($spin_runs of the window's passes; kernel $kspin)" \
	awk -v r="$spin_runs" -v k="$kspin" -v w="$((w1 - w0))" -v sl="$wslack" 'BEGIN { split(r, x, " "); n = x[2]
		if (k == "" || n < 1) exit 1
		e = 3 * sqrt(k * (1 - k) / n) + 1 / n + (2 * 10000 + sl) / w; d = x[1] / n - k
		if (d >= -e && d <= e) exit 0; printf "tract - kernel = %.4f, outside +-%.4f\n", d, e; exit 1 }'
ok "spin never shows a syscall" test "$(q "$db" "select count(*) from samples where comm='spin' and syscall is not null")" -eq 0

fsync_seen=$(q "$db" "select count(distinct ts_us) from samples where comm='fsync' and (syscall in ('fsync','pwrite64') or state='DISK')")
ok "fsync shows up in fsync/pwrite64 or DISK in >= 30% of passes ($fsync_seen)" at_least "$fsync_seen" "$((passes * 3 / 10))"
# asleep at the pass's moment: the stack of that sleep, read as the sampler
# reached it or, if it had woken since, kept by its wakeup.  (A thread queued
# at the moment that has run since has lost the stack it had then: RUNQ
# samples are not counted.)  A stack whose thread switched while it was
# read is dropped: allow a few misses.
off=$(q "$db" "select count(*) from samples where comm='fsync' and state in ('DISK','SLEEP')")
with_stack=$(q "$db" "select count(*) from samples where comm='fsync' and state in ('DISK','SLEEP') and kstack_id is not null")
ok "fsync has a kernel stack in >= 85% of its samples asleep ($with_stack of $off)" at_least "$with_stack" "$((off * 85 / 100))"

ok "the idle pool is absent by default" test "$(q "$db" "select count(*) from samples where comm like 'idle%'")" -eq 0
sleeps=$(q "$db" "select count(*) from samples where comm='sleep'")
ok "the sleeping thread shows only while its sleep is young ($sleeps of $passes)" at_most "$sleeps" "$((passes / 5))"
futex=$(q "$db" "select count(*) from samples where comm like 'futex%' and syscall='futex'")
ok "futex contenders are visible in futex ($futex samples)" at_least "$futex" 10
ok "futex waits have a futex kernel stack" test "$(q "$db" "select count(*) from samples s join stacks k on k.id=s.kstack_id where s.syscall='futex' and k.frames like '%futex%'")" -gt 0
ok "more runnable threads than CPUs show RUNQ" at_least "$(q "$db" "select count(*) from samples where comm like 'hog%' and state='RUNQ'")" 10
hog_runq=$(q "$db" "select coalesce(avg(runq_us), 0) from samples where comm like 'hog%'")
ok "and they wait for a CPU: run-queue delay > 0 ($hog_runq us per switch-in)" awk -v v="$hog_runq" 'BEGIN { exit !(v > 0) }'
ok "hog samples carry their run-queue delay" \
	test "$(q "$db" "select count(*) from samples where comm like 'hog%' and runq_us is not null")" -gt 0

client_us=$(q "$db" "select max(sc_us) from samples where comm='client' and syscall like 'recv%'")
# The server answers each request after a 2 s sleep: a client's wait in recv
# is those 2 s, the server's time on a run queue and on a CPU between the
# request and the reply, and then its own time on a run queue (still in recv
# when woken).  So at most 2 s, the server's such time over its whole life,
# the client's time on a run queue over its life, 1 ms for the server's
# timer slack (50 us) and the wakeups' paths, and the host's steal over the
# recording (a timer that expires while the host runs something else on the
# CPU wakes the server late, and no schedstat counts that time).
late=$(awk -v s="$(tid_named "$pid" server)" -v c="$(tid_named "$pid" client)" \
	-v stolen="$(steal_us "$(cat "$WORK/win.0.steal")" "$(cat "$WORK/win.1.steal")")" \
	'$1 == s { l += ($2 + $3) / 1000 } $1 == c { l += $3 / 1000 } END { printf "%d", l + 1000 + stolen }' "$WORK/wl.after")
test_expect_success "the client waits in recv on the slow server, up to 2 s and the server's lateness so far ($client_us us, at most 2000000 + $late)" '
	test_holds -n "$client_us" &&
	test_holds "$client_us" -ge 1000000 &&
	test_holds "$client_us" -le $((2000000 + late))
'
ping=$(q "$db" "select tid from samples where comm='ping' limit 1")
pong=$(q "$db" "select tid from samples where comm='pong' limit 1")
ok "ping is woken by pong" test "$(q "$db" "select count(*) from samples where comm='ping' and waker_tid=$pong")" -gt 0
ok "pong is woken by ping" test "$(q "$db" "select count(*) from samples where comm='pong' and waker_tid=$ping")" -gt 0
fsync_file=$(sed -n 's/^fsync-file=//p' "$WORK/workload.out")
ok "the fsync thread's file path appears whole ($fsync_file)" \
	test "$(q "$db" "select count(*) from samples where comm='fsync' and syscall='fsync' and file='$fsync_file'")" -gt 0
port=$(sed -n 's/^server-port=//p' "$WORK/workload.out")
ok "the client's wait names its connection to the slow server" \
	test "$(q "$db" "select count(*) from samples where comm='client' and file like 'tcp 127.0.0.1:%->127.0.0.1:$port ESTABLISHED'")" -gt 0
devno=$(stat -c '%d' "$fsync_file")
disk=$(sed -n 's/^DEVNAME=//p' "/sys/dev/block/$((devno >> 8)):$((devno & 255))/uevent")
ok "the I/O histogram holds the fsync thread's writes to $disk" \
	test "$(q "$db" "select coalesce(sum(count), 0) from io_latency where dev='$disk' and op='write'")" -gt 10
ok "the fsync thread's user stack names the workload's own function, the caller of libc's fsync" \
	test "$(q "$db" "select count(*) from samples s join stacks k on k.id=s.ustack_id where s.comm='fsync' and s.syscall='fsync' and k.kind='user' and k.frames like '%;fsync_thread;workload_fsync_once;fsync'")" -gt 0
# in user mode too: a spinner switched out by an interrupt has its user registers saved
# (about half of its RUNQ samples: a thread queued at the pass's moment may be on a CPU,
# its stack moving, by the time the iterator reaches it)
spin_stack=$(q "$db" "select count(*) from samples s join stacks k on k.id = s.ustack_id where s.comm = 'spin' and s.state = 'RUNQ' and k.frames like '%spin_thread%'")
spin_runq=$(q "$db" "select count(*) from samples where comm = 'spin' and state = 'RUNQ'")
ok "a spinner preempted in user mode carries its user stack ($spin_stack of $spin_runq)" \
	at_least "$spin_stack" "$((spin_runq / 4 > 0 ? spin_runq / 4 : 1))"
ok "and no kernel thread has one" \
	test "$(q "$db" "select count(*) from samples where ustack_id is not null and exe is null")" -eq 0
# fsync mostly waits on the journal thread's requests; the O_DIRECT writer
# always waits on its own
ok "the O_DIRECT writer in DISK shows the 4 KiB write it waits on" \
	test "$(q "$db" "select count(*) from samples where comm='direct' and state='DISK' and io_dev='$disk' and io_op='write' and io_bytes=4096")" -gt 0
# a thread in D for block I/O names what it waits on, also the flush that
# ends each fsync, which the kernel issues from a worker of its own.  How
# often the fsync thread is caught in D is the disk's: on one that takes a
# flush in microseconds it is on a CPU or a run queue in its fsync instead
# (a test above holds it to its syscall), and there is nothing to name.  Ten
# samples in D make a flush among them certain where flushes take time.
fs_disk=$(q "$db" "select count(*) from samples where comm='fsync' and state='DISK'")
fs_named=$(q "$db" "select count(*) from samples where comm='fsync' and state='DISK' and io_dev is not null")
flush_dev=$(q "$db" "select dev from io_latency where op='flush' group by dev order by sum(count) desc limit 1")
if [ "$fs_disk" -gt 0 ]; then
	ok "the fsync thread in DISK names the device it waits on in most of its samples ($fs_named of $fs_disk)" \
		at_least "$((fs_named * 2))" "$fs_disk"
else
	skip "the fsync thread in DISK names the device it waits on" "no sample caught it in DISK: its disk is faster than the passes see"
fi
if [ -z "$flush_dev" ]; then
	skip "the fsync thread waits on flushes" "the disk under $fsync_file has no write cache to flush"
elif [ "$fs_disk" -lt 10 ]; then
	skip "the fsync thread waits on flushes" "only $fs_disk of its samples are in DISK: its disk flushes faster than the passes see"
else
	ok "and the flushes it waits on, on $flush_dev, as the I/O histogram counts them ($fs_disk samples in DISK)" \
		test "$(q "$db" "select count(*) from samples where comm='fsync' and state='DISK' and io_op='flush' and io_dev='$flush_dev'")" -gt 0
fi
# --all: every thread, and the sleeping thread's timer shows as its waker
# (the workload's own threads by pid: the host's may share their names, a
# coreutils sleep that a signal or a disk read woke)
"$TRACT" record -F 10 -d 2.5 --all -p "$pid" -o "$WORK/all" 2> "$WORK/all.err"
all=$(one_store "$WORK/all")
ok "--all stores the idle pool in every pass" \
	test "$(q "$all" "select count(*) from samples where comm like 'idle%'")" -ge "$(($(q "$all" "select count(*) from passes") * 8))"
by_timer=$(q "$all" "select count(*) from samples where tgid=$pid and comm='sleep' and waker='timer' and waker_tid is null")
by_other=$(q "$all" "select group_concat(waker || ' ' || n) from (select waker, count(*) n from samples
	where tgid=$pid and comm='sleep' and waker is not null and waker != 'timer' group by waker)")
ok "the sleeping thread is woken by its timer, and labelled so ($by_timer samples; by others: ${by_other:-none})" \
	test "$by_timer" -gt 0 -a -z "$by_other"
ok "the O_DIRECT writer is woken by the disk's interrupt, not by a timer" \
	test "$(q "$all" "select count(*) from samples where tgid=$pid and comm='direct' and waker='timer'")" -eq 0
ok "a sleeping ping knows how long ago it was woken, and how long it waited for a CPU then" \
	test "$(q "$all" "select count(*) from samples where tgid=$pid and comm='ping' and state='SLEEP' and wake_us >= wake_runq_us and wake_runq_us >= 0")" -gt 0
edges=$(q "$all" "select coalesce(sum(count), 0) from wakeups where waker_tgid=$pid and wakee_tgid=$pid")
ok "wakeup edges, kept by default: the workload wakes itself (ping-pong, futex) thousands of times ($edges)" \
	at_least "$edges" 1000
ok "and those wakeups carry their run-queue and blocked time" \
	test "$(q "$all" "select count(*) from wakeups where waker='workload' and wakee='workload' and runq_us > 0 and blocked_us > 0")" -gt 0
ok "a timer's wakeups of the workload are an edge of their own" \
	test "$(q "$all" "select count(*) from wakeups where waker='timer' and waker_tgid is null and wakee_tgid=$pid")" -gt 0
# the whole host: tract's own threads are in no sample, and so in no
# histogram and no edge as wakee, while the workload's are in both
"$TRACT" record -F 10 -d 120 -o "$WORK/host" 2> "$WORK/host.err" &
self=$!
# and a process that ends while it records: its last syscalls, counted
# after it is gone (the recorder's last take, at the latest), go under the
# name it had (long enough for passes to see it on a CPU: a process that
# lives and dies between two passes and two takes has no name to keep);
# one whose whole life fell within a take is folded into its command's row
# (tgid NULL, hist_fold.h), however its life and the takes fell this time
wait_attached $self
dd if=/dev/zero of=/dev/null bs=1 count=500000 2> /dev/null &
dd=$!
wait $dd
sleep 1.5
kill -INT $self
wait $self
host=$(one_store "$WORK/host")
dd_rows=$(q "$host" "select group_concat(coalesce(pcomm, 'NULL') || ' ' || syscall || ' ' || n, ', ')
	from (select pcomm, syscall, sum(count) n from syscall_latency where (tgid = $dd or (tgid is null and pcomm = 'dd'))
		and syscall in ('read', 'write') group by 1, 2)")
ok "the syscalls of a process that ended are all under its name, its last ones too ($dd_rows)" \
	test "$(q "$host" "select count(*) = sum(pcomm = 'dd') and sum(case when syscall = 'write' then count end) >= 500000
		from syscall_latency where (tgid = $dd or (tgid is null and pcomm = 'dd')) and syscall in ('read', 'write')")" = 1
ok "tract's own threads (pid $self) are in no sample, syscall histogram or edge as wakee; the workload's are" \
	test "$(q "$host" "select (select count(*) from samples where tgid=$self) + (select count(*) from syscall_latency where tgid=$self)
		+ (select count(*) from wakeups where wakee_tgid=$self) = 0
		and (select count(*) from syscall_latency where tgid=$pid) > 0 and (select count(*) from wakeups where wakee_tgid=$pid) > 0")" = 1
ok "ping's waker is named: pong" test "$(q "$db" "select count(*) from samples where comm='ping' and waker='pong'")" -gt 0
ok "store file is 0640" test "$(stat -c %a "$db")" = 640

# the tests read a recording that crosses an hour as one file (one_store):
# two hours' files of the same rows read back as every row twice
mkdir -p "$WORK/twice"
cp "$all" "$WORK/twice/tract-20260101-00.db"
cp "$all" "$WORK/twice/tract-20260101-01.db"
twice=$(one_store "$WORK/twice")
rows_of() {
	sqlite3 "$1" "select s.* , k.frames, u.frames from samples s left join stacks k on k.id = s.kstack_id
		left join stacks u on u.id = s.ustack_id" | awk -F'|' -v OFS='|' '{ $14 = $34 = ""; print }'
	for t in syscall_latency runq_latency wakeups io_latency; do
		sqlite3 "$1" "select '$t', p.ts_us, h.* from $t h join passes p on p.id = h.pass" | cut -d'|' -f1,2,4-
	done
	sqlite3 "$1" "select 'profile', (select ts_us from passes where id = p.pass), p.ticks, t.tid, k.frames, u.frames from profile p join threads t on t.id = p.thread
		left join stacks k on k.id = p.kstack left join stacks u on u.id = p.ustack"
}
rows_of "$all" > "$WORK/once.rows"
cat "$WORK/once.rows" "$WORK/once.rows" | LC_ALL=C sort > "$WORK/twice.want"
rows_of "$twice" | LC_ALL=C sort > "$WORK/twice.rows"
test_expect_success "two hours' files merged for the tests hold every row of each, by name ($(wc -l < "$WORK/once.rows") rows each)" '
	test_holds "$twice" != "$all" &&
	test_holds -s "$WORK/once.rows" &&
	test_grep "^wakeups" "$WORK/once.rows" &&
	test_grep "^syscall_latency" "$WORK/once.rows" &&
	test_cmp "$WORK/twice.want" "$WORK/twice.rows"
'
stop_workload
done_testing
