#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tract flame: on- and off-CPU time in one graph whose widths are exact
# (folded weights add up to the selection's thread time), the waits as
# readable leaves, an SVG that parses with a hostile path in it,
# speedscope's file format, processes named with markup and bytes that are
# not UTF-8 in both, and bad input.
. "$(dirname "$0")/lib.sh"
need_root_bpf

# the fsync file's path is a frame: a hostile one tests the escaping
HOSTILE="$DISK_DIR/</text><script>alert(1)</script>&\"'"
mkdir -p "$HOSTILE"
start_workload --only fsync,futex,chain --dir "$HOSTILE" || exit 1
"$TRACT" record -v -F 10 -d 3 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
stop_workload
S=$WORK/store
db=$(one_store "$S")
total=$(q "$db" "select sum(weight_us) from samples")

"$TRACT" flame -D "$S" --format folded > "$WORK/folded" 2> "$WORK/flame.err"
ok "folded: exits 0" test $? -eq 0
ok "folded: the weights add up to the selection's thread time ($total us)" \
	test "$(awk '{ s += $NF } END { print s }' "$WORK/folded")" = "$total"
ok "folded: a path is process, user stack, kernel stack, state, syscall, file" \
	grep -q '^workload;clone3;start_thread;fsync_thread;workload_fsync_once;fsync;entry_SYSCALL_64[^ ]*;DISK;fsync;[^ ;]*fsync\.dat [0-9]*$' "$WORK/folded"
# a wait shorter than the sampler's lag has often ended when the sampler
# comes: the syscall's exit kept the user stack it had then (without that
# copy, 0 to 0.3 of their time had it; with it, 0.8 to 1 on an idle
# machine).  A stack is also dropped, and counted, where its thread ran as
# it was read: on a busy machine, the samples without one are those, and
# the exits must have kept copies.  (Waits longer than the lag, on a slow
# disk, need no copy: the thread is still asleep when the sampler comes.)
disk=$(awk '/;DISK;fsync;/ { all += $NF; if ($0 ~ /;fsync_thread;workload_fsync_once;fsync;/) u += $NF }
	END { if (all) printf "%.3f", u / all; else print 0 }' "$WORK/folded")
bare=$(q "$db" "select count(*) from samples where comm = 'fsync' and state = 'DISK' and ustack_id is null")
raced=$(sed -n 's/^tract: \([0-9]*\) stacks not kept: their thread ran.*/\1/p' "$WORK/record.err")
lost=$(sed -n 's/.* \([0-9]*\) samples whose copy was written over$/\1/p' "$WORK/record.err")
copied=$(sed -n 's/^tract: \([0-9]*\) user stacks copied as a woken thread.*/\1/p' "$WORK/record.err")
ok "folded: the fsync thread's disk waits carry its user stack ($disk of their time; $bare samples without, ${raced:-0} stacks raced, ${lost:-0} copies lost, ${copied:-0} kept by exits)" \
	awk "BEGIN { exit !($disk >= 0.75 || (${copied:-0} > 0 && $disk >= 0.3 && $bare <= ${raced:-0} + ${lost:-0})) }"
ok "folded: a lock wait reads as one" grep -q ';futex_thread;.*;SLEEP;futex [0-9]*$' "$WORK/folded"
ok "folded: on-CPU code ends in RUN" grep -q ';workload_chain_inner;workload_chain_spin;RUN [0-9]*$' "$WORK/folded"
test_expect_success 'folded: every line ends in its weight' '
	test_grep ! -v " [0-9]*\$" "$WORK/folded"
'
"$TRACT" flame -D "$S" -w "comm = 'fsync'" --format folded > "$WORK/fsync.folded"
want=$(q "$db" "select sum(weight_us) from samples where comm = 'fsync'")
ok "-w selects: the fsync thread's graph holds its time only ($want us)" \
	test "$(awk '{ s += $NF } END { print s }' "$WORK/fsync.folded")" = "$want"

"$TRACT" flame -D "$S" --profile --format folded > "$WORK/profile.folded"
ticks=$(q "$db" "select sum(ticks) from profile")
weights='{ s += $NF } END { print s }'
test_expect_success "--profile: every on-CPU tick ($ticks), the chain's among them" '
	test_holds "$(awk "$weights" "$WORK/profile.folded")" = "$ticks" &&
	test_grep ";workload_chain_inner;workload_chain_spin [0-9]*\$" "$WORK/profile.folded"
'

"$TRACT" flame -D "$S" -o "$WORK/flame.svg"
ok "svg: written with -o, and it parses as XML" xmllint --noout "$WORK/flame.svg"
ok "svg: the root frame is the whole selection" \
	grep -q "data-w=\"$total\" data-d=\"0\" data-k=\"all\"" "$WORK/flame.svg"
ok "svg: one script element, tract's own: the hostile path opened no other" html_check --xml --scripts 1 "$WORK/flame.svg"
# in a real browser: Debian's chromium, driven by puppeteer-core (make installs it)
ok "svg in chromium: it renders, hover tells a frame's time, a click zooms, search highlights, no errors" \
	node "${BROWSER_TESTS:-$(dirname "$0")/../browser}/flame.js" "$WORK/flame.svg" workload_fsync_once "$WORK/flame.png"
ok "svg: the hostile path is in it, escaped" grep -q '&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;' "$WORK/flame.svg"

"$TRACT" flame -D "$S" --format speedscope > "$WORK/flame.json"
ok "speedscope: valid JSON with its required fields, weights adding up" test "$(sqlite3 :memory: "
	with f(j) as (select readfile('$WORK/flame.json'))
	select json_valid(j) and j ->> '\$.\$schema' like 'https://www.speedscope.app/%'
	   and j ->> '\$.profiles[0].type' = 'sampled' and j ->> '\$.profiles[0].unit' = 'microseconds'
	   and json_array_length(j, '\$.profiles[0].samples') = json_array_length(j, '\$.profiles[0].weights')
	   and (select sum(value) from json_each(j, '\$.profiles[0].weights')) = $total
	   and (select max(s.value) from json_each(j, '\$.profiles[0].samples') p, json_each(p.value) s)
	       < json_array_length(j, '\$.shared.frames')
	from f")" = 1
ok "speedscope: the profile's name, startValue 0, endValue the total; every frame named" test "$(sqlite3 :memory: "
	with f(j) as (select readfile('$WORK/flame.json'))
	select json_type(j, '\$.profiles[0].name') = 'text' and j ->> '\$.profiles[0].name' = 'Thread time'
	   and json_type(j, '\$.profiles[0].startValue') = 'integer' and j ->> '\$.profiles[0].startValue' = 0
	   and json_type(j, '\$.profiles[0].endValue') = 'integer' and j ->> '\$.profiles[0].endValue' = $total
	   and json_array_length(j, '\$.shared.frames') > 0
	   and not exists (select 1 from json_each(j, '\$.shared.frames') x
			   where json_type(x.value, '\$.name') is not 'text' or x.value ->> '\$.name' = '')
	from f")" = 1

# processes named with markup, entities XML rejects and bytes that are not
# UTF-8: a flame graph's process frames are their names
record_hostile "$WORK/hostile"
"$TRACT" flame -D "$WORK/hostile" -o "$WORK/names.svg"
ok "hostile process names: the SVG parses" xmllint --noout "$WORK/names.svg"
ok "and holds one script, its own, and the names as text (not UTF-8, controls: U+FFFD)" \
	html_check --xml --scripts 1 --text "$HOSTILE_TAG" --text "$HOSTILE_ATTR" --text "$HOSTILE_ENTITY" \
	--text "$FFFD$FFFD;${FFFD}x" "$WORK/names.svg"
"$TRACT" flame -D "$WORK/hostile" --format speedscope > "$WORK/names.json"
ok "speedscope: it parses, the names intact as frames (bytes not UTF-8 as U+FFFD)" python3 -c '
import json, sys
names = {f["name"] for f in json.load(open(sys.argv[1]))["shared"]["frames"]}
sys.exit(0 if set(sys.argv[2:]) <= names else "not frames: %r" % (set(sys.argv[2:]) - names))' \
	"$WORK/names.json" "$HOSTILE_TAG" "$HOSTILE_ATTR" "$HOSTILE_ENTITY" "$FFFD$FFFD;$(printf '\033')x"

nosuch="comm = 'nosuch'"
test_expect_success 'an empty selection exits 1 with a message, and writes no file' '
	test_expect_code 1 "$TRACT" flame -D "$S" -w "$nosuch" -o "$WORK/none.svg" 2> "$WORK/none.err" &&
	test_grep "no samples" "$WORK/none.err" &&
	test_holds ! -e "$WORK/none.svg"
'
# a differential graph: a second window with the chain alone, against the first
end1=$(q "$db" "select max(ts_us) / 1000000 + 1 from passes")
sleep 2
start_workload --only chain || exit 1
"$TRACT" record -F 10 -d 2 -p "$WL_PID" -o "$S" 2> /dev/null
stop_workload
start1=$(q "$db" "select min(ts_us) / 1000000 from passes")
"$TRACT" flame -D "$S" --from "@$((end1 + 1))" --diff-from "@$start1" --diff-to "@$end1" -o "$WORK/diff.svg"
delta=$(sed -n 's/.*data-k="user" data-delta="\([-0-9.]*\)"><title>chain_thread<.*/\1/p' "$WORK/diff.svg" | head -n 1)
ok "--diff-from/--diff-to: the chain, alone now, grew its share against the first window (+$delta)" \
	awk -v d="${delta:-0}" 'BEGIN { exit !(d > 0.3) }'
ok "and the graph parses" xmllint --noout "$WORK/diff.svg"
test_expect_success 'a half or a folded differential graph exits 2' '
	test_expect_code 2 "$TRACT" flame -D "$S" --diff-from "@$start1" > /dev/null 2>&1 &&
	test_expect_code 2 "$TRACT" flame -D "$S" --diff-from "@$start1" --diff-to "@$end1" --format folded > /dev/null 2>&1
'
test_expect_success 'a bad format exits 2' '
	test_expect_code 2 "$TRACT" flame -D "$S" --format png 2> /dev/null
'
test_expect_success '-g does not apply, exit 2' '
	test_expect_code 2 "$TRACT" flame -D "$S" -g comm 2> /dev/null
'
done_testing
