#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Without -o, record prints each pass as an aligned table; --all shows idle threads.
. "$(dirname "$0")/lib.sh"
need_root_bpf
plan 7

start_workload --only spin,idle,client --pool 3 || exit 1
"$TRACT" record -F 4 -d 1.2 -p "$WL_PID" > "$WORK/out.txt" 2> "$WORK/err.txt"
ok "record to the terminal exits 0" test $? -eq 0
ok "each pass has a header line" test "$(grep -c 'UTC  pass [0-9]*: [0-9]* active of' "$WORK/out.txt")" -ge 4
ok "column titles are printed" grep -q 'TID PROCESS .*THREAD .*STATE .*SYSCALL' "$WORK/out.txt"
ok "the spin thread is listed as RUN or RUNQ" grep -Eq ' spin +RUNQ? ' "$WORK/out.txt"
ok "the client is listed in recvfrom with its wait location" grep -Eq ' client +SLEEP .* recvfrom .* [a-z_]+$' "$WORK/out.txt"
ok "idle pool threads are not listed by default" sh -c "! grep -q ' idle[0-9]' '$WORK/out.txt'"
"$TRACT" record -F 4 -d 0.6 --all -p "$WL_PID" > "$WORK/all.txt" 2>&1
ok "--all lists the idle pool" test "$(grep -c ' idle[0-9] ' "$WORK/all.txt")" -ge 3
stop_workload
done_testing
