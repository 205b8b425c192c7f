#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The fleet when things go wrong, against private ClickHouse servers: the
# server killed and restarted mid-recording, a server that takes rows and
# never answers, a full spool, a recorder killed with batches spooled and
# one half-filled, a wrong password and a read-only user; and a cluster of
# two shards, whose Distributed tables answer for both.  Every time: each
# local row in the server exactly once, or said why not.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/clickhouse.sh"
need_root_bpf
command -v clickhouse-server > /dev/null || skip_all "needs clickhouse-server; 'make deps' installs it"
proxy= slow_proxy=
trap 'ch_stop_all; kill $proxy $slow_proxy 2> /dev/null; cleanup' EXIT
P=18429
# a writer with a password, and a user that may only read
pw=secret-$$
hex=$(printf '%s' "$pw" | sha256sum | cut -d' ' -f1)
USERS="<writer><password_sha256_hex>$hex</password_sha256_hex><networks><ip>127.0.0.1</ip></networks>
<profile>default</profile><quota>default</quota></writer><reader><password></password><networks><ip>127.0.0.1</ip></networks>
<profile>readonly</profile><quota>default</quota></reader>"
ch_start "$WORK/ch" $P 19429 "" "$USERS" || exit 1
URL=http://127.0.0.1:$P
chq() { ch_query $P "$1 FORMAT TSV"; }
# a host's samples in the server and in its local store: "rows weight"
in_server() { chq "SELECT count(), sum(weight_us) FROM tract.samples WHERE host = '$1'" | tr '\t' ' '; }
in_store() { q "$(one_store "$1")" "select count(*) || ' ' || sum(weight_us) from samples"; }
printf '%s\n' "$pw" > "$WORK/pw"
chmod 0600 "$WORK/pw"
auth="--clickhouse-user writer --clickhouse-password-file $WORK/pw"

start_workload --only fsync,futex,pingpong,spin || exit 1

# ---- two shards, made and recorded beside the faults below (asked at the end) ----
RS='<remote_servers><fleet2><shard><replica><host>127.0.0.1</host><port>19432</port></replica></shard>
<shard><replica><host>127.0.0.1</host><port>19433</port></replica></shard></fleet2></remote_servers>'
CH_DIRS="$CH_DIRS $WORK/s1 $WORK/s2"
# shards: both servers started (else exit 1), the schema loaded on each
# (else 2), then a recorder into each (else 3).  Its own recorder is waited
# for by pid: the servers are this shell's children too.
shards() {
	ch_start "$WORK/s1" 18432 19432 "$RS" && ch_start "$WORK/s2" 18433 19433 "$RS" || return 1
	for port in 18432 18433; do
		"$TRACT" clickhouse-schema --cluster fleet2 | while IFS= read -r st; do
			ch_query $port "$st" > /dev/null || exit 1
		done || return 2
	done
	"$TRACT" record -F 20 -d 3 -p "$WL_PID" --clickhouse http://127.0.0.1:18432 --host one -o "$WORK/one" &
	one=$!
	"$TRACT" record -F 20 -d 3 -p "$WL_PID" --clickhouse http://127.0.0.1:18433 --host two -o "$WORK/two" || return 3
	wait $one || return 3
}
shards > "$WORK/shards.out" 2>&1 &
shards_pid=$!
bg_started $shards_pid

# ---- the server killed in the middle of recording, and started again ----
"$TRACT" record -F 20 -d 8 -p "$WL_PID" --clickhouse "$URL" $auth --host killed -o "$WORK/k" 2> "$WORK/k.err" &
rec=$!
sleep 2.5
kill -KILL "$(cat "$WORK/ch/pid")"
sleep 2
ch_start "$WORK/ch" $P 19429 "" "$USERS" || exit 1
wait $rec
rc=$?
ok "the server killed mid-recording and started again: the recorder exits $rc" test $rc -eq 0
ok "every local row arrives exactly once ($(in_server killed); local $(in_store "$WORK/k"))" \
	test "$(in_server killed)" = "$(in_store "$WORK/k")"

# ---- no server at all: the first halves of two checks below, beside the three after this ----
# a recorder killed once it has spooled a batch (one every 2 s of passes,
# after it has loaded its programs) and is filling the next: waited for,
# since a slow machine starts late
crash() {
	"$TRACT" record -F 20 -d 30 -p "$WL_PID" --clickhouse http://127.0.0.1:18431 --host crashed -o "$WORK/c" \
		2> "$WORK/c.err" &
	cr_rec=$!
	for _ in $(seq 200); do ls "$WORK/c/spool/"*.batch > /dev/null 2>&1 && break; sleep 0.1; done
	sleep 1.2
	kill -KILL $cr_rec
	wait $cr_rec 2> /dev/null
	return 0
}
crash &
crash_pid=$!
bg_started $crash_pid
# batches waiting for the server, for the refused credentials
"$TRACT" record -F 20 -d 2 -p "$WL_PID" --clickhouse http://127.0.0.1:18431 --host denied -o "$WORK/d" 2> /dev/null &
denied_pid=$!
bg_started $denied_pid

# ---- a full spool: no server at all, 8 s of passes into a spool of 1 MiB ----
# (beside the server that never answers below, which mostly waits)
"$TRACT" record -F 100 -d 8 -p "$WL_PID" --clickhouse http://127.0.0.1:18431 --host full --spool-max 1M \
	-o "$WORK/f" 2> "$WORK/f.err" &
full=$!
bg_started $full

# ---- a slow server: each insert answered 0.6 s late, a batch's tables 5 s or more ----
# (beside the two below: it waits, mostly)
perl "$(dirname "$0")/../lib/silent_proxy.pl" 18437 $P 0.6 > "$WORK/slow.out" 2>&1 &
slow_proxy=$!
for _ in $(seq 50); do grep -qs listening "$WORK/slow.out" && break; sleep 0.1; done
"$TRACT" record -F 20 -d 3 -p "$WL_PID" --clickhouse http://127.0.0.1:18437 $auth --host slow -o "$WORK/w" \
	2> "$WORK/w.err" &
slow=$!
bg_started $slow

# ---- a server that takes the rows and never answers ----
perl "$(dirname "$0")/../lib/silent_proxy.pl" 18430 $P > "$WORK/proxy.out" 2>&1 &
proxy=$!
for _ in $(seq 50); do grep -qs listening "$WORK/proxy.out" && break; sleep 0.1; done
"$TRACT" record -F 20 -p "$WL_PID" --clickhouse http://127.0.0.1:18430 $auth --host silent -o "$WORK/s" 2> "$WORK/s.err" &
rec=$!
bg_started $rec
# stopped while a batch is in flight: it gets the 5 s a stopping recorder
# drains for, not the 15 s the HTTP client waits for an answer
wait_until 60 grep -q 'holding an insert' "$WORK/proxy.out"
held=$?
t0=$(date +%s)
kill -TERM $rec
wait $rec
rc=$?
stop_s=$(($(date +%s) - t0))
# the drain is 5 s (4 on whole seconds), the progress callback up to 1 s late
test_expect_success "stopped with a send in flight, it gives the send its drain and stops ($stop_s s; the HTTP timeout is 15 s)" '
	test_holds "$held" -eq 0 &&
	test_holds "$stop_s" -ge 4 &&
	test_holds "$stop_s" -lt 12
'
passes=$(q "$(one_store "$WORK/s")" "select count(*) from passes")
# what the recorder says it took; on a loaded machine fewer than 60 passes
# run, but every one it took is stored, none lost waiting for the network
took=$(sed -n 's/^tract: \([0-9]*\) passes, .* 0 passes not stored$/\1/p' "$WORK/s.err")
test_expect_success "a server that never answers: the recorder exits $rc, every pass stored locally ($passes of ${took:-?})" '
	test_holds "$rc" -eq 0 &&
	test_holds "$took" -ge 1 &&
	test_holds "$passes" -eq "$took"
'
kill "$proxy"
proxy=
# The same store and spool, the server itself: what it took unanswered is
# counted, not sent again.  The spool can take longer than a stopping
# recorder's 5 s on a loaded machine, so it runs until its spool has been
# empty once (a batch is sealed every 2 s and sent at once), then stops and
# sends the one it was filling.
"$TRACT" record -F 20 -p "$WL_PID" --clickhouse "$URL" $auth --host silent -o "$WORK/s" 2> "$WORK/s2.err" &
rec=$!
bg_started $rec
# spool_empty DIR: no batch waits in the spool DIR
spool_empty() { ! ls "$1"/*.batch > /dev/null 2>&1; }
wait_until 60 spool_empty "$WORK/s/spool"
kill -TERM $rec
wait $rec
ok "batches sent without an answer are counted before they go again: nothing doubled ($(in_server silent); local $(in_store "$WORK/s"))" \
	test "$(in_server silent)" = "$(in_store "$WORK/s")"

# ---- the full spool, recorded beside the above ----
wait $full
rc=$?
kb=$(du -sk "$WORK/f/spool" | cut -f1)
test_expect_success "a full spool: the recorder exits $rc, the spool stays near its bound (${kb} KiB)" '
	test_holds "$rc" -eq 0 &&
	test_holds "$kb" -le 1600
'
ok "and says how many of the oldest batches it dropped" grep -q "the spool's bound dropped [1-9][0-9]* batches" "$WORK/f.err"

# ---- the slow server, recorded beside the above ----
# a stopping recorder waits 5 s for the server to take the next table, 30 s
# in all: one that takes them, however slowly, gets the whole spool
wait $slow
rc=$?
test_expect_success "a slow server: the recorder exits $rc, its spool sent whole before it stops" '
	test_holds "$rc" -eq 0 &&
	test_grep ! "wait in .* for ClickHouse" "$WORK/w.err" &&
	test_holds "$(grep -c "holding an insert" "$WORK/slow.out")" -ge 8
'
ok "every local row arrives at the slow server, once ($(in_server slow); local $(in_store "$WORK/w"))" \
	test "$(in_server slow)" = "$(in_store "$WORK/w")"
kill "$slow_proxy"
slow_proxy=
"$TRACT" record -F 20 -d 1 -p "$WL_PID" --clickhouse "$URL" $auth --host full --spool-max 1M -o "$WORK/f" 2> /dev/null
"$TRACT" ship -D "$WORK/f" --clickhouse "$URL" $auth --host full 2> "$WORK/f.ship"
ok "what the bound dropped, tract ship sends from the local store: all there, once" \
	test "$(in_server full)" = "$(in_store "$WORK/f")"

# ---- a recorder killed with batches spooled and one half-filled (killed beside the above) ----
wait $crash_pid
spooled=$(ls "$WORK/c/spool/"*.batch 2> /dev/null | wc -l)
ok "a recorder killed with the server away leaves batches spooled ($spooled)" test "$spooled" -ge 1
# The next start sends the spool, then the gap from the local store, but only
# while it runs (a stopping recorder leaves the gap to the start after it):
# on a loaded machine the spool alone can take longer than a second, so it
# runs until it says the gap went, then stops (and sends what it recorded).
"$TRACT" record -F 20 -p "$WL_PID" --clickhouse "$URL" $auth --host crashed -o "$WORK/c" 2> "$WORK/c2.err" &
rec=$!
bg_started $rec
wait_until 60 grep -q "passes a stopped recorder had not spooled were sent from the local store" "$WORK/c2.err"
kill -TERM $rec
wait $rec
ok "a later start replays them, and sends from the local store the batch it was filling" \
	test "$(in_server crashed)" = "$(in_store "$WORK/c")"
ok "and says so" grep -q "passes a stopped recorder had not spooled were sent from the local store" "$WORK/c2.err"

# ---- credentials the server refuses ----
# batches waiting for the server (recorded beside the above), then the wrong password
wait $denied_pid
before=$(ls "$WORK/d/spool/"*.batch | wc -l)
printf 'wrong\n' > "$WORK/wrong"
chmod 0600 "$WORK/wrong"
"$TRACT" record -F 20 -d 1 -p "$WL_PID" --clickhouse "$URL" --clickhouse-user writer \
	--clickhouse-password-file "$WORK/wrong" --host denied -o "$WORK/d" 2> "$WORK/d.err"
rc=$?
refused="refuses tract's user"
test_expect_success "a wrong password: exit $rc, and a clear error" '
	test_holds "$rc" -eq 1 &&
	test_grep "$refused" "$WORK/d.err"
'
ok "and the spool kept ($before batches)" test "$(ls "$WORK/d/spool/"*.batch | wc -l)" -eq "$before"
"$TRACT" record -F 20 -d 1 -p "$WL_PID" --clickhouse "$URL" --clickhouse-user reader --host denied -o "$WORK/d" \
	2> "$WORK/r.err"
rc=$?
test_expect_success "a read-only user: exit $rc, a clear error, the spool kept" '
	test_holds "$rc" -eq 1 &&
	test_grep "$refused" "$WORK/r.err" &&
	test_holds "$(ls "$WORK/d/spool/"*.batch | wc -l)" -eq "$before"
'
"$TRACT" query --clickhouse "$URL" --clickhouse-user writer --clickhouse-password-file "$WORK/wrong" > /dev/null 2> "$WORK/q.err"
rc=$?
test_expect_success "query with a wrong password: exit $rc, and a clear error" '
	test_holds "$rc" -eq 1 &&
	test_grep refused "$WORK/q.err"
'
"$TRACT" query --clickhouse "$URL" --clickhouse-user reader --host killed -g host --format csv > "$WORK/reader.csv" 2>&1
ok "a read-only user queries" grep -q '^killed,' "$WORK/reader.csv"

# ---- a batch the server can never take: set aside, the others sent ----
first=$(ls "$WORK/d/spool/"*.batch | head -n 1)
printf 'not\ta\tpass\n' > "${first%.batch}.passes"
"$TRACT" record -F 20 -d 1 -p "$WL_PID" --clickhouse "$URL" $auth --host denied -o "$WORK/d" 2> "$WORK/qr.err"
rc=$?
set_aside="refused a batch's passes_local .*set aside in .*quarantine"
test_expect_success "a batch the server refuses as bad data: exit $rc, and it says where it set it aside" '
	test_holds "$rc" -eq 0 &&
	test_grep "$set_aside" "$WORK/qr.err"
'
test_expect_success 'it is in the quarantine, and the batches after it were sent' '
	ls "$WORK/d/spool/quarantine/"*.passes &&
	! ls "$WORK/d/spool/"*.batch
'

# ---- tract's database dropped under a recording: made again, and the rows after go in ----
# (no -d: it runs until the rows after the drop are in, however long a loaded
# machine takes to make the tables again, then stops)
"$TRACT" record -F 20 -p "$WL_PID" --clickhouse "$URL" $auth --host dropped -o "$WORK/x" 2> "$WORK/x.err" &
rec=$!
bg_started $rec
rows_in() { [ "$(in_server dropped | cut -d' ' -f1)" -gt 0 ] 2> /dev/null; }
wait_until 60 rows_in
# 18.16 drops a database a table at a time: a table the recorder makes meanwhile fails the drop (code 219)
for _ in $(seq 20); do chq "DROP DATABASE tract" > "$WORK/drop.out" 2>&1 && break; sleep 0.1; done
wait_until 60 grep -q 'creating tract.s tables again' "$WORK/x.err" && wait_until 60 rows_in
kill -TERM $rec
wait $rec
rc=$?
test_expect_success "the database dropped while recording: the recorder exits $rc and says it creates the tables again" '
	test_holds "$rc" -eq 0 &&
	test_grep "creating tract.s tables again" "$WORK/x.err"
'
# the rows sent before the drop went with it; the batches after it must arrive
test_expect_success "and the passes after the drop arrive ($(in_server dropped) of $(in_store "$WORK/x"))" '
	rows_in || { cat "$WORK/drop.out" "$WORK/x.err"; ls -R "$WORK/x/spool"; false; }
'

# ---- the two shards, recorded beside the above ----
wait $shards_pid
shards_rc=$?
stop_workload
test_expect_success "clickhouse-schema --cluster loads on both shards, and a recorder ships to each (exit $shards_rc: 1 a server did not start, 2 the schema, 3 a recorder)" '
	test_holds "$shards_rc" -eq 0 ||
	{ cat "$WORK/shards.out"; false; }
'
"$TRACT" query --clickhouse http://127.0.0.1:18432 --from @0 --to now -g host --format csv | tr -d '\r' > "$WORK/shards.csv"
n() { q "$(one_store "$1")" "select count(*) from samples"; }
ok "the Distributed tables answer for both shards, each host with its own rows ($(tr '\n' ' ' < "$WORK/shards.csv"))" \
	test "$(awk -F, 'NR > 1 { print $1 "=" $4 }' "$WORK/shards.csv" | sort | tr '\n' ' ')" = \
	"one=$(n "$WORK/one") two=$(n "$WORK/two") "
shard_sum=$(( $(ch_query 18432 "SELECT count() FROM tract.samples_local") + $(ch_query 18433 "SELECT count() FROM tract.samples_local") ))
ok "a query over the cluster is the sum of the shards ($shard_sum)" test \
	"$("$TRACT" query --clickhouse http://127.0.0.1:18433 --sql 'SELECT count() AS n FROM tract.samples' --format csv | tail -n 1 | tr -d '\r')" = "$shard_sum"
done_testing
