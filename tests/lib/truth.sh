# SPDX-License-Identifier: GPL-2.0-only
# The truth a test compares tract with, for the same threads over the same
# seconds (tests/integration/87-invariants.t does the same inline): the
# kernel's per-thread accounting read at both ends of a window, the host's
# steal over it (steal.sh), and the recorder's own account of its slots.
# Sourced after lib.sh.

. "$(dirname "$0")/../lib/steal.sh"

# now_us: UTC microseconds since the epoch, as passes.ts_us
now_us() { echo $(($(date +%s%N) / 1000)); }

# sched_of PID: "tid ns-on-CPU ns-on-a-run-queue" per thread of PID, from
# /proc/PID/task/TID/schedstat, read with shell builtins so that a busy
# machine does not stretch the reading
sched_of() {
	for so_t in /proc/"$1"/task/*; do
		read -r so_on so_rq _ 2> /dev/null < "$so_t/schedstat" && echo "${so_t##*/} $so_on $so_rq"
	done | sort
}

# sched_delta FILE0 FILE1 TID: "us-on-CPU us-on-a-run-queue" of TID between
# two sched_of readings (empty if TID is in only one)
sched_delta() {
	join "$1" "$2" | awk -v t="$3" '$1 == t { printf "%d %d\n", ($4 - $2) / 1000, ($5 - $3) / 1000 }'
}

# tid_named PID COMM: the first thread of PID named COMM
tid_named() {
	for tn_t in /proc/"$1"/task/*; do
		read -r tn_c 2> /dev/null < "$tn_t/comm" && [ "$tn_c" = "$2" ] && { echo "${tn_t##*/}"; return 0; }
	done
	return 1
}

# window_follow REC DIR OUT [PIDS...]: the kernel's accounting (sched_of) of
# the threads of the recorder REC (its sampler is its main thread) and of
# PIDS over the window of a recording REC started in the background
# into DIR: from its first pass stored (its loop runs, its start is over; a
# deadline of 60 s) to its end.  OUT.0 holds the first reading, then,
# until REC is gone (reaped), OUT.1 the latest one; OUT.0.t and OUT.1.t the
# times just before and just after each: the readings cover all that
# happened from OUT.0.t's second to OUT.1.t's first, and a thread's figure
# in them is of a moment between the two.  OUT.0.steal and OUT.1.steal hold
# the host's steal (steal_now) from before the first reading and after the
# latest, around it all.  The caller then waits for REC.
window_follow() {
	wf_rec=$1 wf_dir=$2 wf_out=$3
	shift 3
	wait_stored "$wf_dir" 'select count(*) >= 1 from passes' 60 || return 1
	steal_now > "$wf_out.0.steal"
	wf_t=$(now_us)
	for wf_p in "$wf_rec" "$@"; do sched_of "$wf_p"; done | sort > "$wf_out.0"
	echo "$wf_t $(now_us)" > "$wf_out.0.t"
	steal_now > "$wf_out.1.steal"
	cp "$wf_out.0" "$wf_out.1" && cp "$wf_out.0.t" "$wf_out.1.t"
	while [ -d "/proc/$wf_rec/task/$wf_rec" ]; do
		wf_t=$(now_us)
		for wf_p in "$wf_rec" "$@"; do sched_of "$wf_p"; done | sort > "$wf_out.n"
		# the recorder's sampler read, so REC was still running at wf_t
		grep -q "^$wf_rec " "$wf_out.n" || break
		mv "$wf_out.n" "$wf_out.1" && echo "$wf_t $(now_us)" > "$wf_out.1.t"
		steal_now > "$wf_out.1.steal"
		sleep 0.02
	done
	rm -f "$wf_out.n"
}

# slot_account DB INTERVAL_US DURATION_US: "covered short tail" of a
# recording of DURATION_US: a late pass does not move the next one, the
# slots it overran are skipped and counted as the next pass's unsampled_us,
# so every slot of the recording is a stored pass or unsampled time
# (covered), but for a tail after the last pass when that pass ran past the
# end.  short = DURATION_US - covered lies within [0, tail], tail being the
# last pass's lateness in its slot, its own duration, and an interval for
# the sampler's bookkeeping after it.  The lateness is measured on the
# slots' grid: pass i is in slot k_i = i + the slots skipped before it, at
# ts - k_i * INTERVAL from the grid's start, which the earliest of those
# figures is (within a slot: some pass woke early in its slot and on time).
slot_account() {
	sqlite3 -batch -noheader "$1" "
		with k as (select ts_us, duration_us,
				(row_number() over (order by ts_us) - 1) * $2 + sum(unsampled_us) over (order by ts_us) as kw
			from passes)
		select (select count(*) * $2 + sum(unsampled_us) from passes) as covered,
		       $3 - (select count(*) * $2 + sum(unsampled_us) from passes),
		       (select ts_us - kw + duration_us from k order by ts_us desc limit 1) - (select min(ts_us - kw) from k) + $2" |
		tr '|' ' '
}

# skipped_account DB OUT REC: "skipped allowed" over the window of
# window_follow OUT, REC being the recorder.  A slot is skipped only when
# the sampler overran it: from the moment drawn for the pass before, through
# its wakeup (a wait on a run queue), the pass and its bookkeeping (time on
# a CPU) to the next slot.  So the time skipped in the window is at most the
# passes' durations there plus the sampler's time on a CPU and on a run
# queue, as the kernel counted it over the window, and the time the host
# stole from the sampler's CPU while it ran, which the kernel counts in
# neither (at most the window's steal).  The first two passes of the window
# are left out: what they skipped may be the lateness of a wakeup before it.
skipped_account() {
	read -r _ sa_t0 < "$2.0.t"
	read -r sa_t1 _ < "$2.1.t"
	sa_d=$(sched_delta "$2.0" "$2.1" "$3")
	sa_win="ts_us >= $sa_t0 and ts_us < $sa_t1"
	sqlite3 -batch -noheader "$1" "
		select (select coalesce(sum(unsampled_us), 0) from passes where $sa_win and ts_us >
				(select ts_us from passes where $sa_win order by ts_us limit 1 offset 1)),
		       (select coalesce(sum(duration_us), 0) from passes where $sa_win)
		       + ${sa_d% *} + ${sa_d#* }
		       + $(steal_us "$(cat "$2.0.steal")" "$(cat "$2.1.steal")")" | tr '|' ' '
}

# window_mid OUT: "from to slack" in us of the window of window_follow OUT
# for shares of time: from the middle of the first reading to the middle of
# the last, and how far a thread's figures may be from those moments (half
# of each reading's length)
window_mid() {
	read -r wm_b0 wm_a0 < "$1.0.t"
	read -r wm_b1 wm_a1 < "$1.1.t"
	echo "$(((wm_b0 + wm_a0) / 2)) $(((wm_b1 + wm_a1) / 2)) $(((wm_a0 - wm_b0 + wm_a1 - wm_b1) / 2))"
}

# run_timed OUT CMD...: run CMD and, once it has exited but before it is
# reaped (waitid with WNOWAIT), write "life_us on_us rq_us late_us" of its
# main thread to OUT: its life from fork to exit as seen then, its time on a
# CPU and on a run queue as the kernel counted them, and how late the
# watcher may have seen the exit (its own time on a run queue and a CPU
# while it waited); returns CMD's exit status.  life - on - rq - late is then
# at most the time CMD slept (waited for a disk, a timer, input).
run_timed() {
	perl -e '
		my $out = shift;
		my $pid = fork() // die "fork: $!";
		if (!$pid) { exec(@ARGV) or exit 127 }
		sub sched { open(my $f, "<", $_[0]) or return (0, 0); my @v = split(" ", scalar <$f>); return @v[0, 1] }
		my @me0 = sched("/proc/self/schedstat");
		my $info = "\0" x 128;
		# waitid(P_PID, pid, info, WEXITED | WNOWAIT): x86_64 247, aarch64 95
		my $nr = `uname -m` =~ /aarch64/ ? 95 : 247;
		syscall($nr, 1, $pid, $info, 4 | 0x01000000, 0) == 0 or die "waitid: $!";
		open(my $u, "<", "/proc/uptime") or die; my ($up) = split(" ", scalar <$u>);
		my @me1 = sched("/proc/self/schedstat");
		open(my $s, "<", "/proc/$pid/stat") or die; my $st = <$s>; $st =~ s/.*\) //;
		my $start = (split(" ", $st))[19] / POSIX::sysconf(POSIX::_SC_CLK_TCK());
		my ($on, $rq) = sched("/proc/$pid/schedstat");
		open(my $o, ">", $out) or die;
		printf $o "%d %d %d %d\n", ($up - $start) * 1e6, $on / 1000, $rq / 1000,
			($me1[0] - $me0[0] + $me1[1] - $me0[1]) / 1000;
		close($o);
		waitpid($pid, 0);
		exit($? & 127 ? 128 + ($? & 127) : $? >> 8);
	' -MPOSIX -- "$@"
}
