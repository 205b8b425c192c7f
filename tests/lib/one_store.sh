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
		sqlite3 -bail "$out" > /dev/null <<SQL || return 1
ATTACH '$f' AS src;
CREATE TEMP TABLE off AS SELECT
	(SELECT coalesce(max(id), 0) FROM passes) AS pass, (SELECT coalesce(max(id), 0) FROM threads) AS thread,
	(SELECT coalesce(max(id), 0) FROM calls) AS call, (SELECT coalesce(max(id), 0) FROM stacks) AS stack,
	(SELECT coalesce(max(id), 0) FROM files) AS file, (SELECT coalesce(max(id), 0) FROM wakers) AS waker,
	(SELECT coalesce(max(id), 0) FROM processes) AS process, (SELECT coalesce(max(id), 0) FROM traces) AS trace,
	(SELECT coalesce(max(id), 0) FROM enders) AS ender,
	(SELECT coalesce(-min(nr), 0) FROM syscalls WHERE nr < 0) AS odd_nr,
	(SELECT coalesce(max(rowid), 0) FROM sample_facts) AS fact;
INSERT OR IGNORE INTO states SELECT * FROM src.states;
INSERT OR IGNORE INTO syscalls SELECT * FROM src.syscalls WHERE nr >= 0;
INSERT INTO syscalls SELECT nr - (SELECT odd_nr FROM off), name FROM src.syscalls WHERE nr < 0;
INSERT OR IGNORE INTO cgroups SELECT * FROM src.cgroups;
INSERT OR REPLACE INTO meta SELECT * FROM src.meta;
$(copy_shifted passes "id:pass"
copy_shifted threads "id:thread"
copy_shifted calls "id:call nr:nr"
copy_shifted stacks "id:stack"
copy_shifted files "id:file"
copy_shifted wakers "id:waker"
copy_shifted processes "id:process"
copy_shifted traces "id:trace"
copy_shifted enders "id:ender"
copy_shifted sample_facts "rowid:fact pass:pass thread:thread call:call kstack:stack ustack:stack file:file waker:waker trace:trace"
copy_shifted sample_io "fact:fact"
copy_shifted sample_blockers "fact:fact"
copy_shifted io_latency "pass:pass"
copy_shifted profile "pass:pass thread:thread kstack:stack ustack:stack"
copy_shifted syscall_latency_facts "pass:pass process:process nr:nr"
copy_shifted runq_latency_facts "pass:pass process:process"
copy_shifted wakeup_facts "pass:pass waker:process wakee:process"
copy_shifted steal "pass:pass"
copy_shifted wait_end_facts "pass:pass ender:ender")
-- a run of repeats still open went on to its own file's newest pass, not into the next file's
UPDATE sample_facts SET repeats = (SELECT max(id) FROM passes) - pass WHERE repeats = 8388607 AND rowid > (SELECT fact FROM off);
SQL
	done
	echo "$out"
}

# copy_shifted TABLE "COLUMN:OFFSET ...": the SQL that copies src's TABLE with
# each COLUMN's ids moved past the merged file's (OFFSET a column of off; nr
# moves only a file's own negative numbers, of syscall names it had no number
# for, not the one of no name).  The rows keep their order, and sample_facts its rowids.
copy_shifted() {
	cols=$(sqlite3 "$f" "SELECT group_concat(name, ', ') FROM pragma_table_info('$1')")
	all=$cols
	case " $2 " in *" rowid:"*) all="rowid AS rowid_, $cols" cols="rowid, $cols" ;; esac
	echo "CREATE TEMP TABLE x AS SELECT $all FROM src.$1 ORDER BY rowid;"
	for m in $2; do
		c=${m%:*} o=${m#*:}
		[ "$c" = rowid ] && c=rowid_
		case $o in
		nr) echo "UPDATE x SET $c = $c - (SELECT odd_nr FROM off) WHERE $c < 0 AND $c > -2147483648;" ;;
		*) echo "UPDATE x SET $c = $c + (SELECT $o FROM off);" ;;
		esac
	done
	echo "INSERT INTO $1($cols) SELECT * FROM x ORDER BY rowid; DROP TABLE x;"
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
