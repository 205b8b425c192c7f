#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Faults tract must survive: least privilege once attached, kill -9 while
# writing, a full disk, hostile thread names, a storm of short-lived threads,
# and damaged store files.
. "$(dirname "$0")/lib.sh"
need_root_bpf
plan 21

# ---- least privilege -------------------------------------------------------
start_workload --only spin,pingpong || exit 1
"$TRACT" record -F 10 -d 3 -p "$WL_PID" -o "$WORK/caps" 2> "$WORK/caps.err" &
rec=$!
sleep 1.5
# CAP_DAC_READ_SEARCH (2), CAP_SYS_PTRACE (19), CAP_CHECKPOINT_RESTORE (40)
want=0000010000080004
caps=$(for t in /proc/$rec/task/*; do awk '/^CapEff|^CapPrm|^CapBnd/ { print $2 }' "$t/status"; done | sort -u | tr '\n' ' ')
ok "once attached, every recorder thread keeps only ptrace, read-search and checkpoint-restore ($caps)" \
	test "$caps" = "$want "
ok "and no_new_privs is set" test "$(awk '/^NoNewPrivs/ { print $2 }' /proc/$rec/status)" = 1
wait $rec
ok "it records all the same: exe paths of the sampled process are named" \
	test "$(q "$(one_store "$WORK/caps")" "select count(*) from samples where exe like '%/workload'")" -gt 0

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
# until the store has passes: loading the programs takes a while on a busy machine
for _ in $(seq 100); do
	db=$(ls "$WORK"/killed/*.db 2> /dev/null | tail -n 1)
	[ -n "$db" ] && [ "$(sqlite3 "file:$db?mode=ro" "select count(*) from passes" 2> /dev/null || echo 0)" -gt 0 ] && break
	sleep 0.1
done
torn=0
for _ in 1 2 3 4 5 6 7 8; do
	db=$(ls "$WORK"/killed/*.db 2> /dev/null | tail -n 1)
	n=$(sqlite3 "file:$db?mode=ro" "select count(*) from passes p where emitted != (select count(*) from sample_facts f where f.pass = p.id)" 2> /dev/null || echo 0)
	torn=$((torn + n))
	sleep 0.15
done
ok "a reader beside the writer never sees half a pass" test "$torn" -eq 0
kill -9 $rec
wait $rec 2> /dev/null
db=$(one_store "$WORK/killed")
ok "kill -9: the store passes SQLite's integrity check" test "$(q "$db" "pragma integrity_check")" = ok
ok "and tract query reads it" sh -c "'$TRACT' query -D '$WORK/killed' --from -1h --to now -g state > /dev/null"
# sqlite3's own message, if any, shows with a failure
ok "and every stored pass is whole: its rows are all there" sh -c \
	"n=\$(sqlite3 -batch -noheader '$db' 'select count(*) from passes p where emitted != (select count(*) from sample_facts f where f.pass = p.id)' 2>&1); echo \"\$n\"; [ \"\$n\" = 0 ]"
ok "and no tract program stays loaded in the kernel" no_tract_programs

# ---- a full disk -------------------------------------------------------------
full="$WORK/full"
mkdir "$full" && mount -t tmpfs -o size=4m tract-test "$full"
"$TRACT" record -F 20 --all -d 7 -o "$full/store" 2> "$WORK/full.err" &
rec=$!
sleep 1.5
dd if=/dev/zero of="$full/filler" bs=64k 2> /dev/null
sleep 2.5
rm -f "$full/filler"
wait $rec
rc=$?
ok "a full disk does not stop the recorder: it exits 0" test "$rc" -eq 0
ok "and it says which passes it could not store, and that it stores again" sh -c \
	"grep -q 'could not be stored' '$WORK/full.err' && grep -q 'storing again' '$WORK/full.err'"
last=$(q "$(ls "$full"/store/*.db | tail -n 1)" "select max(ts_us) from passes")
ok "passes after the space came back are stored" \
	sh -c "[ \$(( $(date +%s%6N) - $last )) -lt 2000000 ]"
umount "$full"

# ---- hostile thread names ------------------------------------------------------
stop_workload
start_workload --only hostile || exit 1
"$TRACT" record -F 10 -d 1.5 -p "$WL_PID" -o "$WORK/hostile" 2> /dev/null
"$TRACT" record -F 10 -d 1.5 -p "$WL_PID" --format csv -o "$WORK/hostile-csv" 2> /dev/null
stop_workload
# the names as bytes: a,b"c<LF>d  <FF><FE>;x  '; DROP --  123456789012345  <TAB><ESC>[2J
names="'612C622263 0A64','FFFE3B78','273B2044524F50202D2D','313233343536373839303132333435','091B5B324A'"
names=$(echo "$names" | tr -d ' ')
ok "hostile names round-trip through SQLite byte for byte" \
	test "$(q "$(one_store "$WORK/hostile")" "select count(distinct comm) from samples where hex(comm) in ($names)")" -eq 5
csv=$(ls "$WORK"/hostile-csv/*.samples.csv)
ok "and through CSV" test "$(sqlite3 :memory: ".import --csv '$csv' s" \
	"select count(distinct comm) from s where hex(comm) in ($names)")" -eq 5
ok "tract query prints them without control characters" sh -c \
	"! '$TRACT' query -D '$WORK/hostile' --from -1h --to now -g comm | grep -q \"\$(printf '\\033')\""

# ---- a thread storm ----------------------------------------------------------------
start_workload --only storm --storm 10000 || exit 1
"$TRACT" record -F 10 -d 6 --all -p "$WL_PID" -o "$WORK/storm" 2> "$WORK/storm.err" &
rec=$!
sleep 5.5
hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$rec/status)
wait $rec
rc=$?
stop_workload
ok "a storm of 10,000 threads at a time: the recorder exits 0" test "$rc" -eq 0
ok "and its memory stays bounded (max RSS $hwm KiB)" at_most "$hwm" 204800
ok "and the storm's threads were sampled" \
	test "$(q "$(one_store "$WORK/storm")" "select count(*) from samples where comm='storm'")" -gt 100

# ---- damaged store files ------------------------------------------------------------
cp "$(ls "$WORK"/storm/*.db | head -n 1)" "$WORK/t.db"
mkdir "$WORK/trunc"
head -c 20000 "$WORK/t.db" > "$WORK/trunc/$(basename "$(ls "$WORK"/storm/*.db | head -n 1)")"
"$TRACT" query -D "$WORK/trunc" --from -1h --to now > /dev/null 2> "$WORK/trunc.err"
ok "a truncated store file: query exits 1 and names it" sh -c "[ $? -eq 1 ] && grep -q 'tract-' '$WORK/trunc.err'"
done_testing
