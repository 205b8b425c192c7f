# SPDX-License-Identifier: GPL-2.0-only
# one_store DIR: the path of one SQLite file holding every hour of the store
# in DIR.  A recording may cross an hour and so write two files; tests that
# read a store with sqlite3 read this, whatever the hour the test runs at.
# Ids are per file, so each file's rows are copied with its ids moved past
# those already copied.
one_store() {
	set -- $(ls "$1"/tract-*.db 2> /dev/null)
	if [ "$#" -le 1 ]; then
		echo "$1"
		return
	fi
	out=$(mktemp -d "${WORK:-/tmp}/one_store.XXXXXX")/merged.db
	"$TRACT" schema | sqlite3 "$out"
	for f in "$@"; do
		sqlite3 "$out" > /dev/null <<SQL
ATTACH '$f' AS src;
CREATE TEMP TABLE off AS SELECT
	(SELECT coalesce(max(id), 0) FROM passes) AS pass, (SELECT coalesce(max(id), 0) FROM threads) AS thread,
	(SELECT coalesce(max(id), 0) FROM calls) AS call, (SELECT coalesce(max(id), 0) FROM stacks) AS stack,
	(SELECT coalesce(max(id), 0) FROM files) AS file, (SELECT coalesce(max(id), 0) FROM wakers) AS waker,
	(SELECT coalesce(max(rowid), 0) FROM sample_facts) AS fact;
INSERT OR IGNORE INTO states SELECT * FROM src.states;
INSERT OR IGNORE INTO syscalls SELECT * FROM src.syscalls;
INSERT OR IGNORE INTO cgroups SELECT * FROM src.cgroups;
INSERT OR REPLACE INTO meta SELECT * FROM src.meta;
$(for t in passes:pass threads:thread calls:call stacks:stack files:file wakers:waker; do
	echo "CREATE TEMP TABLE x AS SELECT * FROM src.${t%:*};"
	echo "UPDATE x SET id = id + (SELECT ${t#*:} FROM off);"
	echo "INSERT INTO ${t%:*} SELECT * FROM x; DROP TABLE x;"
done)
CREATE TEMP TABLE x AS SELECT rowid AS fact_rowid, * FROM src.sample_facts;
UPDATE x SET fact_rowid = fact_rowid + (SELECT fact FROM off), pass = pass + (SELECT pass FROM off),
	thread = thread + (SELECT thread FROM off), call = call + (SELECT call FROM off),
	kstack = kstack + (SELECT stack FROM off), ustack = ustack + (SELECT stack FROM off),
	file = file + (SELECT file FROM off), waker = waker + (SELECT waker FROM off);
INSERT INTO sample_facts(rowid, $(sqlite3 "$f" "select group_concat(name, ', ') from pragma_table_info('sample_facts')"))
	SELECT * FROM x;
DROP TABLE x;
CREATE TEMP TABLE x AS SELECT * FROM src.sample_io;
UPDATE x SET fact = fact + (SELECT fact FROM off);
INSERT INTO sample_io SELECT * FROM x; DROP TABLE x;
$(for t in io_latency wakeups syscall_latency runq_latency; do
	echo "CREATE TEMP TABLE x AS SELECT * FROM src.$t;"
	echo "UPDATE x SET pass = pass + (SELECT pass FROM off);"
	echo "INSERT INTO $t SELECT * FROM x; DROP TABLE x;"
done)
SQL
	done
	echo "$out"
}

# one_csv DIR NAME: the path of one CSV file holding DIR's tract-*.NAME.csv
# files of every hour, with one header line.
one_csv() {
	set -- "$1" "$2" $(ls "$1"/tract-*."$2".csv 2> /dev/null)
	if [ "$#" -le 3 ]; then
		echo "$3"
		return
	fi
	out=$(mktemp -d "${WORK:-/tmp}/one_csv.XXXXXX")/$2.csv
	head -n 1 "$3" > "$out"
	shift 2
	for f in "$@"; do
		tail -n +2 "$f" >> "$out"
	done
	echo "$out"
}
