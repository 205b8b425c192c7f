#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A host that starts short-lived programs over and over (a build server, a
# CI runner): every histogram row names its process or its command, the
# processes that lived less than a take go into one row per command, and a
# recorder stopped by a closed terminal stores what it had and says so.
# (The memory and the store's growth over minutes: make soak.)
. "$(dirname "$0")/lib.sh"
need_root_bpf

"$TRACT" record -F 10 -o "$WORK/churn" 2> "$WORK/churn.err" &
rec=$!
bg_started $rec
wait_attached $rec && wait_stored "$WORK/churn" 'select count(*) > 0 from passes'
# 500 programs that live a moment, and one that does known work in a few ms
i=0
while [ $i -lt 500 ]; do /bin/true; i=$((i + 1)); done
dd if=/dev/zero of=/dev/null bs=1 count=3000 2> /dev/null
gone=$(date +%s%6N)
# until a take after them is stored (takes are once a second)
wait_stored "$WORK/churn" "select count(*) > 0 from syscall_latency_facts h join passes p on p.id = h.pass where p.ts_us > $gone + 1500000" 30
kill -HUP $rec
wait $rec
rc=$?
db=$(one_store "$WORK/churn")
ok "SIGHUP (a closed terminal) stops the recorder as SIGINT does: exit 0 ($rc)" test "$rc" -eq 0
test_expect_success 'and it says why, then its summary' '
	test_grep "stopped by SIGHUP" "$WORK/churn.err" &&
	test_grep "passes, .* rows" "$WORK/churn.err"
'
ok "its last pass says it stopped on SIGHUP" \
	test "$(q "$db" "select stop from passes order by ts_us desc limit 1")" = SIGHUP
ok "every histogram row and edge names its process or command" \
	test "$(q "$db" "select count(*) from processes where name is null")" -eq 0
dd_rows=$(q "$db" "select count(*) from syscall_latency where pcomm = 'dd'")
ok "a process that lived a few ms has its syscalls under its command's name ($dd_rows rows)" test "$dd_rows" -gt 0
ok "in rows of the command, not of its pid" \
	test "$(q "$db" "select count(*) from syscall_latency where pcomm = 'dd' and tgid is not null")" -eq 0
dd_reads="select sum(count) from syscall_latency where pcomm = 'dd' and syscall = 'read'"
dd_writes="select sum(count) from syscall_latency where pcomm = 'dd' and syscall = 'write'"
test_expect_success "all of its 3000 reads and 3000 writes, and its exit's" '
	test_holds "$(q "$db" "$dd_reads")" -ge 3000 &&
	test_holds "$(q "$db" "$dd_writes")" -ge 3000
'
# one run at a time: only the one alive as a take read the kernel's tables
# keeps rows of its own, so as not to be split between two takes
true_pids=$(q "$db" "select count(distinct tgid) from syscall_latency where pcomm = 'true'")
takes=$(q "$db" "select count(distinct pass) from syscall_latency_facts")
ok "500 runs of true: rows of their own only for those alive at a take ($true_pids pids, $takes takes)" \
	test "$true_pids" -le "$takes"
ok "but their syscalls are there, under true" \
	test "$(q "$db" "select coalesce(sum(count), 0) from syscall_latency where pcomm = 'true'")" -ge 500
ok "and the kernel's tables had room for every one of their counts" \
	test "$(q "$db" "select sum(hist_lost) from passes")" -eq 0
# a take holds at most the budget of its own processes' rows, and few rows per command
most=$(q "$db" "select coalesce(max(n), 0) from (select pass, count(*) n from syscall_latency_facts group by pass)")
ok "no take holds more rows than its budget and the commands' ($most)" test "$most" -le 8192
# a command run over and over makes the same rows every take: they are held and stored every 10 s
folded=$(q "$db" "select count(distinct pass) from syscall_latency_facts h join processes p on p.id = h.process where p.tgid is null")
ok "the commands' rows come once in ten seconds and with the last pass ($folded of $takes takes)" \
	test "$folded" -le $((takes / 5 + 2))
done_testing
