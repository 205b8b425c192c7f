#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The /proc source: the same schema, filled with what /proc gives, and on the
# same workload a state mix that agrees with the BPF source's.
. "$(dirname "$0")/lib.sh"
need_root_bpf

# spin and the hogs: three spinners on two CPUs, one more for each two more
start_workload --only spin,fsync,futex,pingpong,client,hog --hogs $(($(nproc) * 3 / 2 - 1)) || exit 1
# both sources at once, so that they sample the same seconds of the same
# threads, whatever else the machine does then: /proc's 3 s from once the
# BPF recorder stores passes to before it is stopped (the shares below are
# of /proc's seconds)
"$TRACT" record -F 10 -d 60 -p "$WL_PID" -o "$WORK/bpf" 2> /dev/null &
bpf_rec=$!
bg_started $bpf_rec
wait_stored "$WORK/bpf" 'select count(*) >= 1 from passes' 60
"$TRACT" record --source proc -F 10 -d 3 -p "$WL_PID" -o "$WORK/proc" 2> "$WORK/proc.err"
ok "record --source proc exits 0" test $? -eq 0
kill -INT $bpf_rec
wait $bpf_rec
stop_workload
bpf=$(one_store "$WORK/bpf")
proc=$(one_store "$WORK/proc")
ok "the store says which source wrote it" test "$(q "$proc" "select value from meta where key='source'")" = proc
ok "syscalls and their files are there: the client waits in recvfrom on its socket" \
	test "$(q "$proc" "select count(*) from samples where comm='client' and syscall='recvfrom' and file like 'tcp %'")" -gt 20
ok "kernel stacks are there: the futex threads wait in futex code" \
	test "$(q "$proc" "select count(*) from samples s join stacks k on k.id = s.kstack_id where s.comm like 'futex%' and k.frames like '%futex%'")" -gt 0
ok "what /proc cannot give is NULL, not made up" \
	test "$(q "$proc" "select count(*) from samples where sc_us is not null or state_us is not null or waker is not null")" -eq 0
# the spinners outnumber the CPUs: schedstat splits their R between RUN and
# RUNQ (56-proc-shares.t holds the shares to the kernel's)
spinners="(comm = 'spin' or comm like 'hog%')"
queued="select count(*) from samples where $spinners and state = 'RUNQ'"
on_cpu="select count(*) from samples where $spinners and state = 'RUN'"
test_expect_success 'runnable threads are RUN or RUNQ: the spinners queued in some samples, on a CPU in others' '
	test_holds "$(q "$proc" "$queued")" -gt 0 &&
	test_holds "$(q "$proc" "$on_cpu")" -gt 0
'

# the seconds both recorded
lo=$(q "$proc" "select min(ts_us) from passes")
hi=$(q "$proc" "select max(ts_us) from passes")
# the share of samples on a CPU (RUN or RUNQ), asleep, and in DISK, per source
mix() {
	q "$1" "select round(sum(state in ('RUN','RUNQ')) * 1.0 / count(*), 2) || ' ' ||
		       round(sum(state = 'SLEEP') * 1.0 / count(*), 2) || ' ' ||
		       round(sum(state = 'DISK') * 1.0 / count(*), 2) from samples where ts_us between $lo and $hi"
}
b=$(mix "$bpf")
p=$(mix "$proc")
# Each share within 0.15 of the other source's.  The two recorded the same
# seconds, so they differ by their sampling (each pass at its own random
# moment of each 100 ms, about 30 passes of about ten threads) and by how
# they read a thread: /proc one thread after another over the pass, BPF
# at one moment.  A share over 30 passes of threads that all moved together
# would have a standard error of at most 0.5 / sqrt(30) = 0.09; of threads
# that move on their own, as here, about a third of it, so the two sources'
# difference has one of about 0.04: 0.15 is over three of those.
agree() {
	awk -v b="$b" -v p="$p" -v i="$1" 'BEGIN { split(b, x, " "); split(p, y, " "); d = x[i] - y[i];
		if (d < 0) d = -d; if (d <= 0.15) exit 0; print "bpf " x[i] " proc " y[i]; exit 1 }'
}
ok "on-CPU share agrees within 0.15 (bpf/proc: $b / $p)" agree 1
ok "asleep share agrees within 0.15" agree 2
ok "DISK share agrees within 0.15" agree 3
done_testing
