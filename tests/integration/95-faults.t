#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Faults tract must survive: least privilege once attached, kill -9 while
# writing, a full disk, hostile thread names, a storm of short-lived threads,
# and damaged store files.
. "$(dirname "$0")/lib.sh"
need_root_bpf

# ---- least privilege -------------------------------------------------------
start_workload --only spin,pingpong || exit 1
"$TRACT" record -F 10 -p "$WL_PID" -o "$WORK/caps" 2> "$WORK/caps.err" &
rec=$!
bg_started $rec
# attached and storing passes: it has dropped what it does not need by then
wait_attached $rec && wait_stored "$WORK/caps" 'select count(*) > 0 from passes'
# CAP_DAC_READ_SEARCH (2), CAP_SYS_PTRACE (19), CAP_CHECKPOINT_RESTORE (40)
want=0000010000080004
caps_of() { awk -v f="$2" '$1 == f ":" { print $2 }' "/proc/$rec/task/$1/status"; }
ok "once attached, its sampling thread keeps only ptrace, read-search and checkpoint-restore" \
	test "$(caps_of $rec CapEff) $(caps_of $rec CapPrm)" = "$want $want"
others=$(for t in /proc/$rec/task/*; do [ "${t##*/}" = $rec ] || echo "$(caps_of "${t##*/}" CapEff) $(caps_of "${t##*/}" CapPrm)"; done | sort -u | tr '\n' ' ')
ok "its other threads (the store's writer) read-search alone ($others)" \
	test "$others" = "0000000000000004 0000000000000004 "
bounds=$(for t in /proc/$rec/task/*; do caps_of "${t##*/}" CapBnd; done | sort -u | tr '\n' ' ')
ok "and no thread can ever gain another ($bounds)" test "$bounds" = "$want "
ok "and no_new_privs is set" test "$(awk '/^NoNewPrivs/ { print $2 }' /proc/$rec/status)" = 1
test_expect_success 'and every thread runs under the seccomp filter' '
	for t in /proc/$rec/task/*; do
		test_grep "^Seccomp:[[:space:]]*2\$" "$t/status" || return 1
	done
'
kill -TERM $rec
wait $rec
ok "it records all the same: exe paths of the sampled process are named" \
	test "$(q "$(one_store "$WORK/caps")" "select count(*) from samples where exe like '%/workload'")" -gt 0

# ---- the kernel's symbols hidden (kernel.kptr_restrict) ----------------------
# /proc/kallsyms as such a host shows it, every address 0, in a mount
# namespace of the recorder's own
sed 's/^[0-9a-f]*/0000000000000000/' /proc/kallsyms > "$WORK/kallsyms.hidden"
unshare -m sh -c 'mount --bind "$1" /proc/kallsyms && exec "$2" record -F 10 -d 1 -p "$3" -o "$4"' \
	sh "$WORK/kallsyms.hidden" "$TRACT" "$WL_PID" "$WORK/hidden" 2> "$WORK/hidden.err"
rc=$?
test_expect_success "the kernel's symbols hidden: it records (exit $rc), and says once each what that costs" '
	test_holds "$rc" -eq 0 &&
	test_holds "$(grep -c "hides its symbols. addresses (kernel.kptr_restrict)" "$WORK/hidden.err")" -eq 1 &&
	test_holds "$(grep -c "a timerfd.s expiry is not told from an alarm.s" "$WORK/hidden.err")" -eq 1 &&
	test_holds "$(q "$(one_store "$WORK/hidden")" "select count(*) from samples")" -gt 0
'

# ---- a group that may read the store ------------------------------------------
"$TRACT" record -F 10 -d 1 --group nogroup -p "$WL_PID" -o "$WORK/shared" 2> /dev/null
ok "--group makes the store directory setgid to the group, 2750" \
	test "$(stat -c '%a %G' "$WORK/shared")" = "2750 nogroup"
ok "and its files the group's, 0640" test "$(stat -c '%a %G' "$(ls "$WORK"/shared/*.db | head -n 1)")" = "640 nogroup"
chmod o+x "$WORK"
ok "so a member of the group reads it without root" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$TRACT" query -D "$WORK/shared" --from -1h --to now

# ---- kill -9 while writing, with a reader beside the writer --------------------
"$TRACT" record -F 100 --all -o "$WORK/killed" 2> /dev/null &
rec=$!
bg_started $rec
wait_attached $rec
# until the store has passes: loading the programs takes a while on a busy machine
for _ in $(seq 300); do
	db=$(ls "$WORK"/killed/*.db 2> /dev/null | tail -n 1)
	[ -n "$db" ] && [ "$(sqlite3 "file:$db?mode=ro" "select count(*) from passes" 2> /dev/null || echo 0)" -gt 0 ] && break
	sleep 0.1
done
# the passes whose rows are not all there
torn_sql='select count(*) from passes p left join (select ts_us, count(*) n from samples group by ts_us) s on s.ts_us = p.ts_us where p.emitted != coalesce(s.n, 0)'
torn=0
for _ in 1 2 3 4 5 6 7 8; do
	db=$(ls "$WORK"/killed/*.db 2> /dev/null | tail -n 1)
	n=$(sqlite3 "file:$db?mode=ro" "$torn_sql" 2> /dev/null || echo 0)
	torn=$((torn + n))
	sleep 0.15
done
ok "a reader beside the writer never sees half a pass" test "$torn" -eq 0
kill -9 $rec
wait $rec 2> /dev/null
db=$(one_store "$WORK/killed")
ok "kill -9: the store passes SQLite's integrity check" test "$(q "$db" "pragma integrity_check")" = ok
test_expect_success 'and tract query reads it' '
	"$TRACT" query -D "$WORK/killed" --from -1h --to now -g state > /dev/null
'
# sqlite3's own message, if any, shows with a failure
test_expect_success 'and every stored pass is whole: its rows are all there' '
	sqlite3 -batch -noheader "$db" "$torn_sql" > "$WORK/torn" &&
	test_holds "$(cat "$WORK/torn")" = 0
'
ok "and no tract program stays loaded in the kernel" no_tract_programs $rec

# ---- a full disk -------------------------------------------------------------
full="$WORK/full"
mkdir "$full" && mount -t tmpfs -o size=4m tract-test "$full" && mounted "$full"
"$TRACT" record -F 20 --all -o "$full/store" 2> "$WORK/full.err" &
rec=$!
bg_started $rec
# wait_err PATTERN: until the recorder's stderr says so (30 s at most)
wait_err() {
	for _ in $(seq 300); do grep -q "$1" "$WORK/full.err" && return 0; sleep 0.1; done
	echo "after 30 s the recorder has not said '$1'; it said: $(cat "$WORK/full.err")" >&2
	return 1
}
# the disk fills once passes are stored, and empties once one could not be;
# the recorder is stopped once it stores again
wait_attached $rec && wait_stored "$full/store" 'select count(*) > 0 from passes'
dd if=/dev/zero of="$full/filler" bs=64k 2> /dev/null
wait_err 'could not be stored'
rm -f "$full/filler"
wait_err 'storing again' && wait_stored "$full/store" \
	"select (select max(ts_us) from passes) > $(date +%s%6N)"
kill -TERM $rec
wait $rec
rc=$?
ok "a full disk does not stop the recorder: it exits 0" test "$rc" -eq 0
test_expect_success 'and it says which passes it could not store, and that it stores again' '
	test_grep "could not be stored" "$WORK/full.err" &&
	test_grep "storing again" "$WORK/full.err"
'
last=$(q "$(ls "$full"/store/*.db | tail -n 1)" "select max(ts_us) from passes")
test_expect_success 'passes after the space came back are stored' '
	test_holds $(($(date +%s%6N) - last)) -lt 2000000
'
umount "$full"

# ---- hostile thread names ------------------------------------------------------
stop_workload
start_workload --only hostile || exit 1
"$TRACT" record -F 10 -d 1.5 -p "$WL_PID" --format csv -o "$WORK/hostile-csv" 2> /dev/null &
csv_rec=$!
"$TRACT" record -F 10 -d 1.5 -p "$WL_PID" -o "$WORK/hostile" 2> /dev/null
wait $csv_rec
stop_workload
# the names as bytes: a,b"c<LF>d  <FF><FE>;x  '; DROP --  123456789012345  <TAB><ESC>[2J
names="'612C622263 0A64','FFFE3B78','273B2044524F50202D2D','313233343536373839303132333435','091B5B324A'"
names=$(echo "$names" | tr -d ' ')
ok "hostile names round-trip through SQLite byte for byte" \
	test "$(q "$(one_store "$WORK/hostile")" "select count(distinct comm) from samples where hex(comm) in ($names)")" -eq 5
csv=$(ls "$WORK"/hostile-csv/*.samples.csv)
ok "and through CSV" test "$(sqlite3 :memory: ".import --csv '$csv' s" \
	"select count(distinct comm) from s where hex(comm) in ($names)")" -eq 5
esc=$(printf '\033')
test_expect_success 'tract query prints them without control characters' '
	"$TRACT" query -D "$WORK/hostile" --from -1h --to now -g comm > "$WORK/hostile.txt" &&
	test_grep ! -F "$esc" "$WORK/hostile.txt"
'

# ---- a thread storm ----------------------------------------------------------------
# tasks_left: how many more tasks (threads) this test may start: the least of
# what pids.max leaves in each cgroup from this one up (cgroup v2, or v1's pids
# controller), what kernel.threads-max leaves, and what ulimit -u (RLIMIT_NPROC,
# per user) leaves
tasks_left() {
	left=$(($(cat /proc/sys/kernel/threads-max) - $(awk '{ split($4, n, "/"); print n[2] }' /proc/loadavg)))
	lim=$(awk '/^Max processes/ { print $3 }' /proc/self/limits)
	[ "$lim" = unlimited ] || left=$(awk -v a="$left" -v b="$((lim - $(ps -eLo ruid= | awk -v u="$(id -u)" '$1 == u' | wc -l)))" \
		'BEGIN { print (a < b ? a : b) }')
	for line in $(cat /proc/self/cgroup); do
		case $line in
		0::*) mnt=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo) path=${line#0::} ;;
		*:pids:*) mnt=$(awk '$0 ~ / - cgroup / && $NF ~ /(^|,)pids(,|$)/ { print $5; exit }' /proc/self/mountinfo) path=${line#*:pids:} ;;
		*) continue ;;
		esac
		[ -n "$mnt" ] || continue
		d=$mnt${path%/}
		while :; do
			max=$(cat "$d/pids.max" 2> /dev/null)
			case $max in
			'' | max) ;;
			*) cur=$(cat "$d/pids.current") && [ $((max - cur)) -lt "$left" ] && left=$((max - cur)) ;;
			esac
			[ "${#d}" -gt "${#mnt}" ] || break
			d=${d%/*}
		done
	done
	echo "$left"
}
# 10,000 threads at a time, or half of what the limits leave, so that the rest
# of the host (another test run) still gets tasks
left=$(tasks_left)
storm=$((left / 2 < 10000 ? left / 2 : 10000))
if [ "$storm" -lt 1000 ]; then
	for t in "the recorder exits 0" "its memory stays bounded" "the storm's threads were sampled"; do
		skip "a storm: $t" "only $left more tasks may start here (pids.max, threads-max, ulimit -u)"
	done
else
start_workload --only storm --storm "$storm" || exit 1
"$TRACT" record -F 10 -d 6 --all -p "$WL_PID" -o "$WORK/storm" 2> "$WORK/storm.err" &
rec=$!
bg_started $rec
# its peak memory, read until it exits
hwm=
while bpf_running $rec; do
	h=$(awk '/^VmHWM/ { print $2 }' /proc/$rec/status 2> /dev/null)
	[ -z "$h" ] || hwm=$h
	sleep 0.2
done
wait $rec
rc=$?
stop_workload
ok "a storm of $storm threads at a time (of $left tasks the limits leave): the recorder exits 0" test "$rc" -eq 0
ok "and its memory stays bounded (max RSS $hwm KiB)" at_most "$hwm" 204800
ok "and the storm's threads were sampled" \
	test "$(q "$(one_store "$WORK/storm")" "select count(*) from samples where comm='storm'")" -gt 100
fi

# ---- damaged store files ------------------------------------------------------------
src=$(ls "$WORK"/storm/*.db "$WORK"/caps/*.db 2> /dev/null | head -n 1)
cp "$src" "$WORK/t.db"
mkdir "$WORK/trunc"
head -c 20000 "$WORK/t.db" > "$WORK/trunc/$(basename "$src")"
test_expect_success 'a truncated store file: query exits 1 and names it' '
	test_expect_code 1 "$TRACT" query -D "$WORK/trunc" --from -1h --to now > /dev/null 2> "$WORK/trunc.err" &&
	test_grep tract- "$WORK/trunc.err"
'
done_testing
