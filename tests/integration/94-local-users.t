#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A recorder no local user can turn against the host: what another user
# plants where root records (a directory, a symlink in it, a symlink for
# it) never aims root's writes at a file, and the recorder runs as a user of
# its own once its programs are loaded.
. "$(dirname "$0")/lib.sh"
need_root_bpf

# a scratch directory every user may write, as /tmp is (sticky)
chmod 0755 "$WORK"
mkdir -m 1777 "$WORK/scratch"
S=$WORK/scratch
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
as_daemon() { setpriv --reuid=daemon --regid=daemon --clear-groups "$@"; }
# root's files an attacker aims at, and what they hold
mkdir -m 0700 "$WORK/private"
echo precious > "$WORK/private/victim"
mkdir -m 0755 "$WORK/rootdir"

# ---- a store directory another user made, with root's file behind its lock ----
# (the paths are the planting shell's arguments, never pasted into its script)
as_nobody sh -c 'mkdir -m 777 "$1" && ln -s "$2" "$1/tract.lock"' sh "$S/t" "$WORK/private/victim"
test_expect_success 'a store directory every user may write: exit 1' '
	test_expect_code 1 "$TRACT" record -F 5 -d 1 -p 1 -o "$S/t" > /dev/null 2> "$WORK/t.err"
'
said="'$S/t' is writable by every user"
test_expect_success 'with a message naming it and why' '
	test_grep -F "$said" "$WORK/t.err"
'
test_expect_success "and root's file behind the planted lock is untouched" '
	test_holds "$(cat "$WORK/private/victim")" = precious
'

# ---- one that belongs to another user --------------------------------------
as_daemon sh -c 'mkdir -m 755 "$1" && ln -s "$2" "$1/tract.lock"' sh "$S/d" "$WORK/private/victim"
test_expect_success "a store directory of another user's: exit 1" '
	test_expect_code 1 "$TRACT" record -F 5 -d 1 -p 1 -o "$S/d" > /dev/null 2> "$WORK/d.err"
'
said="'$S/d' belongs to user 'daemon'"
test_expect_success 'naming its owner' '
	test_grep -F "$said" "$WORK/d.err"
'
test_expect_success "and root's file is untouched" '
	test_holds "$(cat "$WORK/private/victim")" = precious
'
# the next hour's CSV file planted as a symlink into a directory only root may write
as_nobody sh -c 'dir=$1 target=$2 && shift 2 && mkdir -m 777 "$dir" &&
	for h; do ln -s "$target" "$dir/tract-$h.samples.csv"; done' \
	sh "$S/c" "$WORK/private/preload" "$(date -u +%Y%m%d-%H)" "$(date -u -d '+1 hour' +%Y%m%d-%H)"
test_expect_success "a CSV store every user may write, with its hour's file planted: exit 1" '
	test_expect_code 1 "$TRACT" record -F 5 -d 1 -p 1 --format csv -o "$S/c" > /dev/null 2> "$WORK/c.err"
'
test_expect_success "and no file appears in root's private directory" '
	test_holds "$(ls "$WORK/private")" = victim
'

# ---- a directory on the way that another user controls ----------------------
as_nobody mkdir -m 755 "$S/way"
said="'$S/way' belongs to user 'nobody'"
test_expect_success "a store under another user's directory: exit 1, nothing made in it" '
	test_expect_code 1 "$TRACT" record -F 5 -d 1 -p 1 -o "$S/way/store" > /dev/null 2> "$WORK/way.err" &&
	test_grep -F "$said" "$WORK/way.err" &&
	test_holds ! -e "$S/way/store"
'

# ---- --group through a symlink another user planted -------------------------
as_nobody ln -s "$WORK/rootdir" "$S/g"
test_expect_success "--group on another user's symlink: exit 1" '
	test_expect_code 1 "$TRACT" record -F 5 -d 1 -p 1 --group nogroup -o "$S/g" > /dev/null 2> "$WORK/g.err"
'
said="'$S/g' is a symlink of user 'nobody'"
test_expect_success 'naming the symlink' '
	test_grep -F "$said" "$WORK/g.err"
'
test_expect_success 'and the directory it points at keeps its owner, group and mode' '
	test_holds "$(stat -c "%a %U %G" "$WORK/rootdir")" = "755 root root"
'

# ---- a directory of root's that is not a store's ------------------------------
touch "$WORK/rootdir/passwd"
said="holds 'passwd', which is not a store's"
test_expect_success "a directory of root's holding other files: exit 1, and it stays root's" '
	test_expect_code 1 "$TRACT" record -F 5 -d 1 -p 1 -o "$WORK/rootdir" > /dev/null 2> "$WORK/root.err" &&
	test_grep -F "$said" "$WORK/root.err" &&
	test_holds "$(stat -c %U "$WORK/rootdir")" = root
'

# ---- the recorder as a user of its own ---------------------------------------
user=$(getent passwd tract > /dev/null && echo tract || echo nobody)
uid=$(id -u "$user")
start_workload --only spin,pingpong || exit 1
"$TRACT" record -F 10 -p "$WL_PID" -o "$WORK/own" 2> "$WORK/own.err" &
rec=$!
bg_started $rec
wait_attached $rec && wait_stored "$WORK/own" 'select count(*) > 0 from passes'
uids=$(for t in /proc/$rec/task/*; do awk '/^Uid:|^Gid:/ { print $1, $2, $3, $4, $5 }' "$t/status"; done | sort -u | tr '\n' ' ')
gid=$(id -g "$user")
test_expect_success "once attached, every thread of the recorder runs as '$user' ($uids)" '
	test_holds "$uids" = "Gid: $gid $gid $gid $gid Uid: $uid $uid $uid $uid "
'
test_expect_success 'with no supplementary group' '
	for t in /proc/$rec/task/*; do
		test_grep "^Groups:[[:space:]]*\$" "$t/status" || return 1
	done
'
test_expect_success "the store directory and its files are that user's" '
	test_holds "$(stat -c %u "$WORK/own")" = "$uid" &&
	find "$WORK/own" ! -uid "$uid" > "$WORK/own.others" &&
	test_must_be_empty "$WORK/own.others"
'
kill -TERM $rec
wait $rec
test_expect_success 'it stops on TERM and its store reads' '
	"$TRACT" query -D "$WORK/own" -g comm > /dev/null
'
# a second run into the same store: the directory is that user's now
test_expect_success 'and a second run records into the same store' '
	"$TRACT" record -F 5 -d 1 -p "$WL_PID" -o "$WORK/own" > /dev/null 2> "$WORK/own2.err"
'

# ---- report -o: its temporary file is never one another user planted ----------
as_nobody ln -s "$WORK/private/victim" "$S/r.html.partial"
"$TRACT" report -D "$WORK/own" -o "$S/r.html" 2> "$WORK/r.err"
test_expect_success 'report -o beside a planted FILE.partial writes the report' '
	html_check --scripts 1 "$S/r.html"
'
test_expect_success "and root's file behind the symlink is untouched" '
	test_holds "$(cat "$WORK/private/victim")" = precious
'

done_testing
