#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The processes that kept a CPU busy over the last second (10% or more), so
# that a failure of a timing-sensitive test can be read in that light.
# top's second iteration measures the interval, not the process's lifetime.
top -b -n 2 -d 1 -w 200 2> /dev/null | awk '
	/^top - / { iter++ }
	iter == 2 && /^ *PID / { table = 1; next }
	table && $9 + 0 >= 10 { busy = busy sprintf("  %5s%% pid %-7s %s\n", $9, $1, $12); n++ }
	END {
		if (n) printf "busy CPUs at the start (over one second):\n%s", busy
		else print "busy CPUs at the start: none (no process above 10% of a CPU over one second)"
	}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
