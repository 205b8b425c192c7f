#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The on-CPU profile: ticks counted by thread and stacks, the RUN samples
# carrying what their thread runs, tract's own threads never counted, and
# --profile-hz 0 switching it off.
. "$(dirname "$0")/lib.sh"
need_root_bpf
plan 7

start_workload --only spin,fsync || exit 1
"$TRACT" record -F 10 -d 3 -o "$WORK/store" 2> "$WORK/record.err" &
rec=$!
wait $rec
ok "record with the profile (the default) exits 0" test $? -eq 0
db=$(one_store "$WORK/store")
# the profile with its threads' names, as --sql shows it
prof="profile p join threads t on t.id = p.thread"
ticks=$(q "$db" "select sum(ticks) from $prof where t.comm = 'spin' and t.tgid = $WL_PID")
# spin has a CPU to itself: about 49 ticks a second, less what the 3 s window cuts
ok "the spinner is counted at the tick rate ($ticks ticks in 3 s at 49 Hz)" sh -c \
	"[ '${ticks:-0}' -ge 100 ] && [ '${ticks:-0}' -le 160 ]"
ok "its ticks name its own function in the user stack" test \
	"$(q "$db" "select count(*) from $prof join stacks s on s.id = p.ustack where t.comm = 'spin' and s.frames like '%spin_thread%'")" -gt 0
run=$(q "$db" "select count(*) from samples where comm = 'spin' and state = 'RUN'")
with=$(q "$db" "select count(*) from samples where comm = 'spin' and state = 'RUN' and ustack_id is not null")
# at 10 passes a second and 49 ticks, a pass soon after the one before may have no tick since
ok "a RUN sample carries its thread's latest on-CPU stack ($with of $run)" at_least "$with" "$((run * 3 / 4))"
ok "tract's own threads are never counted" test "$(q "$db" "select count(*) from $prof where t.tgid = $rec")" -eq 0
ok "kernel threads have no user stack" test \
	"$(q "$db" "select count(*) from $prof where p.ustack is not null and t.comm like 'kworker/%'")" -eq 0
"$TRACT" record -F 10 -d 1 --profile-hz 0 -p "$WL_PID" -o "$WORK/off" 2> /dev/null
ok "--profile-hz 0: no profile" test "$(q "$(one_store "$WORK/off")" "select count(*) from profile")" -eq 0
stop_workload
done_testing
