#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# record --clickhouse: every pass in a private ClickHouse server as in the
# local store (rows, weights, stacks, passes), two hosts apart, hostile
# names byte for byte; with the server down the batches wait in the spool
# and a later start sends them, nothing lost or doubled; bad credentials
# options refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/clickhouse.sh"
need_root_bpf
command -v clickhouse-server > /dev/null || skip_all "needs clickhouse-server; 'make deps' installs it"
# the first recording with kernel.bpf_stats_enabled on, so its passes carry their BPF time; put back at exit
stats_was=$(sysctl -n kernel.bpf_stats_enabled 2> /dev/null)
trap 'ch_stop_all; [ -n "$stats_was" ] && sysctl -qw kernel.bpf_stats_enabled="$stats_was"; cleanup' EXIT
trap 'exit 1' HUP INT TERM
P=18424
ch_start "$WORK/ch" $P 19424 || exit 1
URL=http://127.0.0.1:$P
chq() { ch_query $P "$1 FORMAT TSV"; }

start_workload --only fsync,futex,hostile || exit 1
[ -n "$stats_was" ] && sysctl -qw kernel.bpf_stats_enabled=1
"$TRACT" record -F 10 -d 3 -p "$WL_PID" --clickhouse "$URL" --host alpha -o "$WORK/a" 2> "$WORK/a.err"
ok "record --clickhouse exits 0" test $? -eq 0
[ -n "$stats_was" ] && sysctl -qw kernel.bpf_stats_enabled="$stats_was"
db=$(one_store "$WORK/a")
ok "every sample is in ClickHouse as in the local store: rows and thread time" test \
	"$(chq "SELECT count(), sum(weight_us) FROM tract.samples WHERE host = 'alpha'")" = \
	"$(q "$db" "select count(*) || '	' || sum(weight_us) from samples")"
# same_passes SERVER STORE MEASURED: the same passes, BPF times and NULLs, and with the stats on some measured
same_passes() {
	[ "$1" = "$2" ] || { echo "ClickHouse: $1; the store: $2"; return 1; }
	[ -z "$stats_was" ] || [ "$3" -gt 0 ] || { echo "no pass measured with kernel.bpf_stats_enabled on"; return 1; }
}
measured=$(q "$db" "select count(bpf_us) from passes")
ok "every pass too, with its BPF time ($measured measured) or its NULL" same_passes \
	"$(chq "SELECT count(), count(bpf_us), ifNull(sum(bpf_us), 0) FROM tract.passes WHERE host = 'alpha'")" \
	"$(q "$db" "select count(*) || '	' || count(bpf_us) || '	' || coalesce(sum(bpf_us), 0) from passes")" "$measured"
"$TRACT" report --clickhouse "$URL" --host alpha --from -1h -o "$WORK/fleet.html" 2> "$WORK/fleet.err"
fleet_rc=$?
# its tables of two levels read the server's title and, joined there, the
# ended waits' enders
test_expect_success 'report over ClickHouse exits 0, its processes by title, what ended the waits' '
	cat "$WORK/fleet.err" &&
	test_holds "$fleet_rc" -eq 0 &&
	report_table "$WORK/fleet.html" "by process" > "$WORK/fleet-procs.tsv" &&
	two_levels pcomm "$WORK/fleet-procs.tsv" &&
	report_table "$WORK/fleet.html" "what ended the waits" > "$WORK/fleet-enders.tsv" &&
	two_levels ender_class "$WORK/fleet-enders.tsv"
'
if [ "$measured" -eq 0 ]; then
	bpf='not measured (kernel.bpf_stats_enabled=0)'
else
	bpf='[0-9.]*% of a CPU ([0-9]* µs a pass)'
fi
passes_cell="<th>passes</th><td>$(q "$db" "select count(*) from passes"), "
bpf_cell="<th>tract's BPF programs</th><td>$bpf</td>"
test_expect_success "report over ClickHouse: the passes and what tract's BPF programs cost in them, as the server has them" '
	test_grep "$passes_cell" "$WORK/fleet.html" &&
	test_grep "$bpf_cell" "$WORK/fleet.html"
'
ok "and every stack a sample names" test "$(chq "SELECT count() FROM tract.samples s WHERE host = 'alpha' AND
	((kstack_id IS NOT NULL AND kstack_id NOT IN (SELECT id FROM tract.stacks WHERE host = 'alpha')) OR
	 (ustack_id IS NOT NULL AND ustack_id NOT IN (SELECT id FROM tract.stacks WHERE host = 'alpha')))")" = 0
ok "hostile thread names arrive byte for byte" test \
	"$(chq "SELECT DISTINCT hex(comm) AS h FROM tract.samples WHERE host = 'alpha' ORDER BY h" | tr '\n' ' ')" = \
	"$(q "$db" "select distinct hex(comm) as h from samples order by h" | tr '\n' ' ')"
stop_workload

start_workload --only fsync || exit 1
# without --host, the hostname
"$TRACT" record -F 10 -d 1 -p "$WL_PID" --clickhouse "$URL" -o "$WORK/b" 2> /dev/null
ok "two hosts stay apart, the second by its hostname" test \
	"$(chq "SELECT host FROM tract.samples GROUP BY host ORDER BY host" | tr '\n' ' ')" = \
	"$(printf 'alpha\n%s\n' "$(hostname)" | LC_ALL=C sort | tr '\n' ' ')"

# --ship-every: a batch (one INSERT a table) as often as asked; two
# recorders of 3 s, beside the one below
"$TRACT" record -F 10 -d 3 -p "$WL_PID" --clickhouse "$URL" --host every1 --ship-every 1s -o "$WORK/every1" \
	2> "$WORK/every1.err" &
every1_rec=$!
"$TRACT" record -F 10 -d 3 -p "$WL_PID" --clickhouse "$URL" --host every10 --ship-every 10s -o "$WORK/every10" \
	2> "$WORK/every10.err" &
every10_rec=$!
# --no-local: the server only, through the spool
"$TRACT" record -F 10 -d 2 -p "$WL_PID" --clickhouse "$URL" --host nolocal --no-local -o "$WORK/n" 2> "$WORK/n.err"
rc=$?
wait $every1_rec && wait $every10_rec
every_rc=$?
# batches HOST: the batches of HOST's passes in the server
batches() { chq "SELECT uniqExact(batch_id) FROM tract.passes WHERE host = '$1'"; }
# (a batch is sealed as the writer stores a pass: one that falls behind on a
# loaded machine stores several at once, so 1s gives 3 batches of 3 s here, 2 at least)
test_expect_success "--ship-every 10s sends 3 s in one batch, 1s in two or more ($(batches every10), $(batches every1))" '
	test_holds "$every_rc" -eq 0 &&
	test_holds "$(batches every10)" -eq 1 &&
	test_holds "$(batches every1)" -ge 2 &&
	test_holds "$(chq "SELECT count() FROM tract.passes WHERE host = '"'every10'"'")" -eq \
		"$(q "$(one_store "$WORK/every10")" "select count(*) from passes")"
'
passes=$(chq "SELECT count() FROM tract.passes WHERE host = 'nolocal'")
# the recorder counts its passes as it exits: "tract: N passes, R rows, D rows dropped, S passes not stored"
took=$(sed -n 's/^tract: \([0-9]*\) passes,.* \([0-9]*\) passes not stored$/\1 - \2/p' "$WORK/n.err")
took=$((${took:-0}))
test_expect_success "--no-local ships every pass it stored (exit $rc, $passes of $took) and leaves no store" '
	test_holds "$rc" -eq 0 &&
	test_holds "$took" -gt 0 &&
	test_holds "$passes" = "$took" &&
	find "$WORK/n" -name "*.db" -o -name "*.csv" > "$WORK/n.left" &&
	test_must_be_empty "$WORK/n.left"
'
test_expect_success 'and its spool is empty' '
	test_holds -d "$WORK/n/spool" &&
	! ls "$WORK/n/spool/"*.batch 2> /dev/null
'

# the server down: batches wait in the spool, and the next start sends them
ch_stop "$WORK/ch"
"$TRACT" record -F 10 -d 2 -p "$WL_PID" --clickhouse "$URL" --host gamma -o "$WORK/g" 2> "$WORK/g1.err"
rc=$?
test_expect_success "with the server down the recorder records on (exit $rc) and says the batches wait" '
	test_holds "$rc" -eq 0 &&
	test_grep "wait in" "$WORK/g1.err" &&
	ls "$WORK/g/spool/"*.batch
'
ch_start "$WORK/ch" $P 19424 || exit 1
"$TRACT" record -F 10 -d 1 -p "$WL_PID" --clickhouse "$URL" --host gamma -o "$WORK/g" 2> "$WORK/g2.err"
stop_workload
db=$(one_store "$WORK/g")
ok "a later start sends them: nothing lost, nothing doubled" test \
	"$(chq "SELECT count(), sum(weight_us) FROM tract.samples WHERE host = 'gamma'")" = \
	"$(q "$db" "select count(*) || '	' || sum(weight_us) from samples")"
test_expect_success 'and the spool is empty' '
	! ls "$WORK/g/spool/"*.batch 2> /dev/null
'

printf 'secret\n' > "$WORK/pw"
chmod 0644 "$WORK/pw"
test_expect_success 'a password file others may read is refused, exit 1' '
	test_expect_code 1 "$TRACT" record -d 1 --clickhouse "$URL" --clickhouse-password-file "$WORK/pw" \
		-o "$WORK/p" 2> "$WORK/pw.err" &&
	test_grep 0600 "$WORK/pw.err"
'
test_expect_success 'credentials in the URL, or --host without --clickhouse: exit 2' '
	test_expect_code 2 "$TRACT" record -d 1 --clickhouse "http://u:p@127.0.0.1:$P" 2> /dev/null &&
	test_expect_code 2 "$TRACT" record -d 1 --host x 2> /dev/null
'

# https, with a CA of our own
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" -days 2 \
	-subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" > /dev/null 2>&1
TLS="<https_port>18435</https_port><openSSL><server><certificateFile>$WORK/cert.pem</certificateFile>
<privateKeyFile>$WORK/key.pem</privateKeyFile><verificationMode>none</verificationMode>
<loadDefaultCAFile>false</loadDefaultCAFile></server></openSSL>"
ch_start "$WORK/tls" 18436 19436 "$TLS" || exit 1
# this server has the tables as an older tract made them: no trace columns, no passes.bpf_us
"$TRACT" clickhouse-schema | sed -e 's/, trace_id Nullable(String), span_id Nullable(String), trace_flags Nullable(UInt64), trace_attrs Nullable(String)//' \
	-e 's/, bpf_us Nullable(UInt64)//' |
	while IFS= read -r stmt; do ch_query 18436 "$stmt" > /dev/null || exit 1; done
start_workload --only fsync || exit 1
"$TRACT" record -F 10 -d 1 -p "$WL_PID" --clickhouse https://127.0.0.1:18435 --clickhouse-ca "$WORK/cert.pem" \
	--host tls -o "$WORK/t" 2> "$WORK/t.err"
stop_workload
db=$(one_store "$WORK/t")
ok "https with --clickhouse-ca: every sample arrives" test \
	"$(ch_query 18436 "SELECT count(), sum(weight_us) FROM tract.samples WHERE host = 'tls' FORMAT TSV")" = \
	"$(q "$db" "select count(*) || '	' || sum(weight_us) from samples")"
ok "into tables an older tract made: the recorder added the columns they lacked, and the view shows them" test \
	"$(ch_query 18436 "SELECT count() FROM system.columns WHERE database = 'tract' AND table IN ('samples', 'samples_local')
	   AND name IN ('trace_id', 'span_id', 'trace_flags', 'trace_attrs') FORMAT TSV")" -eq 8
ok "the passes' too: bpf_us in passes_local and its view, every pass in them" test \
	"$(ch_query 18436 "SELECT count() FROM system.columns WHERE database = 'tract' AND table IN ('passes', 'passes_local')
	   AND name = 'bpf_us' FORMAT TSV") $(ch_query 18436 "SELECT count(), count(bpf_us) FROM tract.passes WHERE host = 'tls' FORMAT TSV")" = \
	"2 $(q "$db" "select count(*) || '	' || count(bpf_us) from passes")"
"$TRACT" query --clickhouse https://127.0.0.1:18435 --clickhouse-ca "$WORK/cert.pem" -g host --format csv > "$WORK/tq.csv" 2>&1
ok "and queries come back over it" grep -q '^tls,' "$WORK/tq.csv"
"$TRACT" query --clickhouse https://127.0.0.1:18435 -g host > /dev/null 2> "$WORK/tq.err"
rc=$?
test_expect_success "a certificate nobody vouches for: exit $rc, and what to do" '
	test_holds "$rc" -eq 1 &&
	test_grep clickhouse-ca "$WORK/tq.err"
'
done_testing
