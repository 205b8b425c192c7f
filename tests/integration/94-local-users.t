#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A recorder no local user can turn against the host: what another user
# plants where root records (a directory, a symlink in it, a symlink for
# it) never aims root's writes at a file, and the recorder runs as a user of
# its own once its programs are loaded.
. "$(dirname "$0")/lib.sh"
need_root_bpf
plan 20

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
as_nobody sh -c "mkdir -m 777 '$S/t' && ln -s '$WORK/private/victim' '$S/t/tract.lock'"
"$TRACT" record -F 5 -d 1 -p 1 -o "$S/t" > /dev/null 2> "$WORK/t.err"
ok "a store directory every user may write: exit 1" test $? -eq 1
ok "with a message naming it and why" grep -q "'$S/t' is writable by every user" "$WORK/t.err"
ok "and root's file behind the planted lock is untouched" test "$(cat "$WORK/private/victim")" = precious

# ---- one that belongs to another user --------------------------------------
as_daemon sh -c "mkdir -m 755 '$S/d' && ln -s '$WORK/private/victim' '$S/d/tract.lock'"
"$TRACT" record -F 5 -d 1 -p 1 -o "$S/d" > /dev/null 2> "$WORK/d.err"
ok "a store directory of another user's: exit 1" test $? -eq 1
ok "naming its owner" grep -q "'$S/d' belongs to user 'daemon'" "$WORK/d.err"
ok "and root's file is untouched" test "$(cat "$WORK/private/victim")" = precious
# the next hour's CSV file planted as a symlink into a directory only root may write
hour=$(date -u +%Y%m%d-%H)
as_nobody sh -c "mkdir -m 777 '$S/c' && for h in $hour $(date -u -d '+1 hour' +%Y%m%d-%H); do
	ln -s '$WORK/private/preload' '$S/c/tract-'\$h.samples.csv; done"
"$TRACT" record -F 5 -d 1 -p 1 --format csv -o "$S/c" > /dev/null 2> "$WORK/c.err"
ok "a CSV store every user may write, with its hour's file planted: exit 1" test $? -eq 1
ok "and no file appears in root's private directory" test "$(ls "$WORK/private")" = victim

# ---- a directory on the way that another user controls ----------------------
as_nobody mkdir -m 755 "$S/way"
"$TRACT" record -F 5 -d 1 -p 1 -o "$S/way/store" > /dev/null 2> "$WORK/way.err"
ok "a store under another user's directory: exit 1, nothing made in it" sh -c \
	"test $? -eq 1 && grep -q \"'$S/way' belongs to user 'nobody'\" '$WORK/way.err' && test ! -e '$S/way/store'"

# ---- --group through a symlink another user planted -------------------------
as_nobody ln -s "$WORK/rootdir" "$S/g"
"$TRACT" record -F 5 -d 1 -p 1 --group nogroup -o "$S/g" > /dev/null 2> "$WORK/g.err"
ok "--group on another user's symlink: exit 1" test $? -eq 1
ok "naming the symlink" grep -q "'$S/g' is a symlink of user 'nobody'" "$WORK/g.err"
ok "and the directory it points at keeps its owner, group and mode" \
	test "$(stat -c '%a %U %G' "$WORK/rootdir")" = "755 root root"

# ---- a directory of root's that is not a store's ------------------------------
touch "$WORK/rootdir/passwd"
"$TRACT" record -F 5 -d 1 -p 1 -o "$WORK/rootdir" > /dev/null 2> "$WORK/root.err"
ok "a directory of root's holding other files: exit 1, and it stays root's" sh -c \
	"test $? -eq 1 && grep -q \"holds 'passwd', which is not a store's\" '$WORK/root.err' &&
	 test \"\$(stat -c %U '$WORK/rootdir')\" = root"

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
ok "once attached, every thread of the recorder runs as '$user' ($uids)" \
	test "$uids" = "Gid: $gid $gid $gid $gid Uid: $uid $uid $uid $uid "
ok "with no supplementary group" sh -c "for t in /proc/$rec/task/*; do grep -q '^Groups:[[:space:]]*\$' \$t/status || exit 1; done"
ok "the store directory and its files are that user's" sh -c \
	"[ \"\$(stat -c %u '$WORK/own')\" = $uid ] && [ -z \"\$(find '$WORK/own' ! -uid $uid)\" ]"
kill -TERM $rec
wait $rec
ok "it stops on TERM and its store reads" sh -c "'$TRACT' query -D '$WORK/own' -g comm > /dev/null"
# a second run into the same store: the directory is that user's now
"$TRACT" record -F 5 -d 1 -p "$WL_PID" -o "$WORK/own" > /dev/null 2> "$WORK/own2.err"
ok "and a second run records into the same store" test $? -eq 0

# ---- report -o: its temporary file is never one another user planted ----------
as_nobody ln -s "$WORK/private/victim" "$S/r.html.partial"
"$TRACT" report -D "$WORK/own" -o "$S/r.html" 2> "$WORK/r.err"
ok "report -o beside a planted FILE.partial writes the report" html_check --scripts 1 "$S/r.html"
ok "and root's file behind the symlink is untouched" test "$(cat "$WORK/private/victim")" = precious

done_testing
