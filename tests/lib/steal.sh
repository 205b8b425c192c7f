# SPDX-License-Identifier: GPL-2.0-only
# The host's steal, for the tests that hold tract to the kernel's accounting.
#
# On a virtual machine the host may run something else while a guest's CPU
# is held by a thread: that time is stolen.  With steal time accounting the
# kernel leaves it out of the thread's time on a CPU (schedstat's first
# field counts the task clock, which stops while stolen) and out of its
# run-queue wait (counted only while the thread is queued), so the kernel
# counts it off CPU.  What takes its figures at a moment of wall time counts
# it on a CPU: a pass that finds the thread on its CPU (RUN), a cpu-clock
# tick that fires on it.  So by stolen time a thread may read RUN more, and
# off CPU less, than the kernel's figures say, and never the other way.
# Which thread was holding a CPU when the host took it, nobody tells: a
# thread's stolen time is at most all the CPUs' steal over the window, and
# at most what the kernel counted neither on a CPU nor queued.  Sourced.

# steal_now: the steal of all CPUs so far, in USER_HZ ticks (/proc/stat's
# "cpu" line, its 8th figure), read with shell builtins
steal_now() {
	read -r _ _ _ _ _ _ _ _ sn_steal _ < /proc/stat
	echo "$sn_steal"
}

# steal_us TICKS0 TICKS1: the steal between two steal_now readings in us,
# rounded up: the kernel counts it in ns and shows it in whole ticks, so the
# readings may hide up to a tick
steal_us() {
	echo $(((${2:-0} - ${1:-0} + 1) * 1000000 / $(getconf CLK_TCK)))
}
