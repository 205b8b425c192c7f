#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A large store for timing tract query and tract top: record about 100
# threads of the workload (--all) for a few seconds, then repeat those real
# passes, with their own threads, stacks and files, into PASSES passes of
# one hour's file.  Usage: query_store.sh TRACT WORKLOAD DIR PASSES
set -eu
TRACT=$1 WORKLOAD=$2 DIR=$3 PASSES=$4
HOUR_US=1767225600000000	# 2026-01-01 00:00 UTC: the file tract-20260101-00.db
wl= rec=
tmp=$(mktemp -d /var/tmp/tract-qstore.XXXXXX)
# Nothing of a run outlives it, however it ends: the trap runs whole (under
# set -e its first failing kill ended it), and a signal ends the run through it.
cleanup() {
	set +e
	for p in $rec $wl; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$WORKLOAD" --dir "$tmp" --pool 80 > "$tmp/wl.out" 2>&1 &
wl=$!
for _ in $(seq 100); do grep -q ready "$tmp/wl.out" && break; sleep 0.05; done
# in the background, so that a signal to this script stops it too
"$TRACT" record -F 10 -d 3 --all -p "$wl" -o "$tmp/rec" 2> /dev/null &
rec=$!
wait "$rec"
rec=
kill "$wl"
wait "$wl" 2> /dev/null || true
wl=
mkdir -p "$DIR"
out="$DIR/tract-20260101-00.db"
rm -f "$out"
cp "$(ls "$tmp"/rec/tract-*.db | head -n 1)" "$out"
step=$((3600000000 / PASSES))
nrec=$(sqlite3 "$out" "select count(*) from passes")
# every column of a fact but its pass and its repeats, whatever the schema holds
own="from pragma_table_info('sample_facts') where name not in ('pass', 'repeats')"
cols=$(sqlite3 "$out" "select group_concat(name, ', ') $own")
fcols=$(sqlite3 "$out" "select group_concat('f.' || name, ', ') $own")
# a fact a sample: the recorded repeats each a fact of their own pass (with the first's times), as a
# store of threads that all change between passes has them
sqlite3 -bail "$out" > /dev/null <<SQL
PRAGMA journal_mode = DELETE;
CREATE TEMP TABLE recorded AS SELECT row_number() OVER (ORDER BY id) - 1 AS k, id FROM passes;
CREATE TEMP TABLE facts AS SELECT p.id AS pass, $fcols FROM sample_facts f
	JOIN passes p ON p.id BETWEEN f.pass AND f.pass + ifnull(f.repeats, 0);
CREATE INDEX temp.facts_pass ON facts(pass);
CREATE TEMP TABLE expanded AS SELECT p.id AS pass, r.id AS recorded FROM passes p, recorded r WHERE 0;
DELETE FROM sample_facts; DELETE FROM sample_io; DELETE FROM passes;
DELETE FROM io_latency; DELETE FROM syscall_latency_facts; DELETE FROM runq_latency_facts;
DELETE FROM wakeup_facts; DELETE FROM profile;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $PASSES - 1)
INSERT INTO passes(id, ts_us, weight_us, visited, emitted, dropped, duration_us, cpu_us, hist_lost)
	SELECT i + 1, $HOUR_US + i * $step, $step, 0, 0, 0, 0, 0, 0 FROM n;
INSERT INTO expanded SELECT p.id, r.id FROM passes p
	JOIN recorded r ON r.k = (p.id - 1) % $nrec;
INSERT INTO sample_facts(pass, $cols) SELECT p.pass, $fcols
	FROM expanded p JOIN facts f ON f.pass = p.recorded ORDER BY p.pass;
UPDATE passes SET emitted = x.n FROM (SELECT pass, count(*) AS n FROM sample_facts GROUP BY pass) x
	WHERE x.pass = passes.id;
PRAGMA journal_mode = WAL;
SQL
