#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Containers: every sample carries its cgroup v2 id, and the store names it.
. "$(dirname "$0")/lib.sh"
need_root_bpf
root=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
[ -n "$root" ] || skip_all "no cgroup2 file system is mounted"

group="$root/tract-test-$$"
mkdir "$group" || skip_all "cannot create a cgroup in $root"
trap 'cleanup; rmdir "$group" 2>/dev/null' EXIT
start_workload --only spin,client || exit 1
echo "$WL_PID" > "$group/cgroup.procs"
"$TRACT" record -F 10 -d 1 -p "$WL_PID" -o "$WORK/store" 2> "$WORK/record.err"
ok "record exits 0" test $? -eq 0
stop_workload
rmdir "$group"
db=$(one_store "$WORK/store")
inode=$(q "$db" "select cgroup_id from samples where comm='spin' limit 1")
ok "samples carry the cgroup id" test -n "$inode"
ok "every sample of the workload is in its cgroup" \
	test "$(q "$db" "select count(*) from samples where cgroup is not '/tract-test-$$'")" -eq 0
ok "the cgroups table names the cgroup" test "$(q "$db" "select path from cgroups where id=$inode")" = "/tract-test-$$"
# every pass has the spinner (always on a CPU or a run queue), so the
# samples with the path are at least one a pass, and all of the store's
n=$(q "$db" "select (select count(*) from samples where cgroup='/tract-test-$$') || ' ' || (select count(*) from samples)
	     || ' ' || (select count(*) from passes)")
test_expect_success "the samples view has the path (with it, all, passes: $n)" '
	set -- $n &&
	test_holds "$3" -ge 1 &&
	test_holds "$1" -eq "$2" &&
	test_holds "$1" -ge "$3"
'
done_testing
