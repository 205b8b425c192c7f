# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for tract's integration tests: the test library
# (tests/lib/test_lib.sh, after git's t/test-lib.sh), the workload, and
# queries on a recorded store.
# Tests get TRACT and WORKLOAD from the Makefile.

: "${TRACT:?TRACT must point at the tract binary}"
: "${WORKLOAD:?WORKLOAD must point at the workload binary}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tract-test.XXXXXX")
# fsync must reach a real disk, which /tmp may not be
DISK_DIR=$(mktemp -d "$(dirname "$TRACT")/disk-test.XXXXXX")
WL_PID=
# what a test started and cleanup ends, whether the test passes, fails or is
# interrupted: background processes (recorders, a live top, ...), tmux
# sessions, mounts
BG_PIDS=
TMUX_SESSIONS=
MOUNTS=

# bg_started PID: a background process of the test, ended by cleanup if still running
bg_started() { BG_PIDS="$BG_PIDS $1"; }
# tmux_started NAME: a tmux session of the test, killed by cleanup
tmux_started() { TMUX_SESSIONS="$TMUX_SESSIONS $1"; }
# Every tmux of a test talks to a server of the test's own, its socket in
# WORK: two runs of the suite at once, or a test run inside a user's tmux,
# never share sessions.  A new session right after the last one was killed
# may reach the server as it exits ("server exited unexpectedly", more
# often on a loaded machine): it is tried again, for 5 s at most.
tmux() {
	if [ "$1" = new-session ]; then
		for _ in $(seq 25); do
			command tmux -S "$WORK/tmux.socket" "$@" && return 0
			sleep 0.2
		done
		return 1
	fi
	command tmux -S "$WORK/tmux.socket" "$@"
}
# mounted DIR: a file system the test mounted, unmounted by cleanup
mounted() { MOUNTS="$MOUNTS $1"; }

# our_child PID: PID is still a child of this shell (once reaped, its pid may
# be another process's)
our_child() { [ "$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$1/status" 2> /dev/null)" = "$$" ]; }

# end_children PIDS...: TERM (and CONT, for a stopped one), up to 5 s to end as
# they do on TERM (a recorder detaches its programs), then KILL; reaped
end_children() {
	for ec_p; do
		our_child "$ec_p" && kill -TERM "$ec_p" 2> /dev/null && kill -CONT "$ec_p" 2> /dev/null
	done
	for ec_p; do
		for _ in $(seq 50); do
			our_child "$ec_p" || break
			case $(sed -n 's/^State:[[:space:]]*//p' "/proc/$ec_p/status" 2> /dev/null) in '' | Z*) break ;; esac
			sleep 0.1
		done
		if our_child "$ec_p"; then
			kill -KILL "$ec_p" 2> /dev/null
			wait "$ec_p" 2> /dev/null
		fi
	done
}

cleanup() {
	# and, should a test have missed one, any other child still running
	# shellcheck disable=SC2046,SC2086
	end_children $BG_PIDS $WL_PID $(ps -o pid= --ppid $$ 2> /dev/null)
	for cl_s in $TMUX_SESSIONS; do tmux kill-session -t "=$cl_s" 2> /dev/null; done
	[ -n "$TMUX_SESSIONS" ] && tmux kill-server 2> /dev/null
	for cl_m in $MOUNTS; do umount "$cl_m" 2> /dev/null || umount -l "$cl_m" 2> /dev/null; done
	if [ -n "${TRACT_KEEP:-}" ]; then
		echo "# kept $WORK" >&2
	else
		rm -rf "$WORK"
	fi
	rm -rf "$DISK_DIR"
}
trap cleanup EXIT
# a signal ends the test through exit, so that cleanup runs then too
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# plan, ok, test_expect_success and the assertions
. "$(dirname "$0")/../lib/test_lib.sh"

need_root_bpf() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
	[ -r /sys/kernel/btf/vmlinux ] || skip_all "kernel has no BTF"
}

# wait_ready FILE: wait for a workload's "ready" line in FILE, its output
wait_ready() {
	# 30 s: a loaded machine can take seconds to start its threads
	for _ in $(seq 600); do
		grep -q '^ready' "$1" 2> /dev/null && return 0
		sleep 0.05
	done
	echo "workload did not start:" >&2
	cat "$1" >&2
	return 1
}

# start_workload ARGS...: run the workload in the background, wait for "ready"
start_workload() {
	"$WORKLOAD" --dir "$DISK_DIR" "$@" > "$WORK/workload.out" 2>&1 &
	WL_PID=$!
	wait_ready "$WORK/workload.out"
}

stop_workload() {
	kill "$WL_PID" 2>/dev/null
	wait "$WL_PID" 2>/dev/null
	WL_PID=
}

# Names that are markup (tags that would end an SVG text and open a script,
# an attribute with & and both quotes), entities XML does not define or
# allow, and bytes that are neither UTF-8 nor printable.  The pictures are
# drawn by process, and a process's name is its main thread's, so
# record_hostile gives these to processes.
HOSTILE_TAG='</text><script>'
HOSTILE_ATTR="<b a=\"&'\">"
HOSTILE_ENTITY='&x;&#0;&lt;'
HOSTILE_BYTES=$(printf '\377\376;\033x')
# what a picture shows for a byte that is not UTF-8, or a control character
FFFD=$(printf '\357\277\275')

# record_hostile DIR: four workloads named as above, each with the hostile
# threads and a sleeper a timer wakes, recorded for two seconds into DIR
# with their wakeup edges; their pids in HOSTILE_PIDS, comma-separated.
record_hostile() {
	HOSTILE_PIDS=
	h_n=0
	for h_name in "$HOSTILE_TAG" "$HOSTILE_ATTR" "$HOSTILE_ENTITY" "$HOSTILE_BYTES"; do
		h_n=$((h_n + 1))
		# -d: they end by themselves should the test end first
		"$WORKLOAD" -d 20 --only hostile,sleep --name "$h_name" > "$WORK/hostile$h_n.out" 2>&1 &
		HOSTILE_PIDS="$HOSTILE_PIDS${HOSTILE_PIDS:+,}$!"
	done
	h_rc=0
	for h_i in $(seq "$h_n"); do
		wait_ready "$WORK/hostile$h_i.out" || h_rc=1
	done
	if [ "$h_rc" -eq 0 ]; then
		"$TRACT" record -F 10 -d 2 --wakeup-edges -p "$HOSTILE_PIDS" -o "$1" 2> "$WORK/hostile.err" || h_rc=1
	fi
	for h_pid in $(echo "$HOSTILE_PIDS" | tr , ' '); do
		kill "$h_pid" 2>/dev/null
		wait "$h_pid" 2>/dev/null
	done
	return "$h_rc"
}

. "$(dirname "$0")/../lib/one_store.sh"

# html_check [--xml] [--scripts N] [--text S]... [--pictures DIR] FILE: the markup checker
html_check() { python3 "$(dirname "$0")/../lib/html_check.py" "$@"; }
# report_table FILE TITLE: a report's table as its reader sees it, a row a
# line, "level<TAB>cell<TAB>...": head, outer, inner, or - (report_table.py)
report_table() { python3 "$(dirname "$0")/../lib/report_table.py" "$@"; }
# two_levels FIRST TABLE: TABLE (report_table's) has two levels by its first
# column FIRST: each value of it once, on an outer line, larger first, with
# the sum of the inner lines under it (each rounded to 0.1 %), which leave
# that column empty; says what is wrong, or exits 0
two_levels() {
	awk -F '\t' -v first="$1" '
		function close_group() { if (n && (sum - share > 0.06 * n + 0.06 || share - sum > 0.06 * n + 0.06)) {
			printf "%s: %.1f%%, its lines %.1f%%\n", value, share, sum; bad = 1 } }
		$1 == "head" { if ($2 != first) { printf "the first column is %s, not %s\n", $2, first; bad = 1 }; next }
		$1 == "outer" { close_group(); value = $2; share = $NF + 0; sum = 0; n = 0
			if (value == "" || seen[value]++) { printf "%s: grouped twice or empty\n", value; bad = 1 }
			if (outers++ && share > last + 0.001) { printf "%s: %.1f%% after %.1f%%\n", value, share, last; bad = 1 }
			last = share; next }
		$1 == "inner" { if ($2 != "" || !outers) { print "an inner line outside a group: " $0; bad = 1 }
			sum += $NF; n++; next }
		{ print "a line of neither level: " $0; bad = 1 }
		END { close_group(); if (!outers) { print "no groups"; bad = 1 }; exit bad }' "$2"
}

# q DB SQL: one value from the store
q() { sqlite3 -batch -noheader "$1" "$2"; }

# at_least A B: A >= B, numbers, with a message saying which
# and an empty value (a query that found nothing) is no number at all
is_number() { case $1 in '' | *[!0-9.-]* | *.*.* | ?*-* | - | . ) return 1 ;; esac; }
at_least() {
	is_number "$1" && is_number "$2" || { echo "not numbers: '$1' '$2'"; return 1; }
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 >= b + 0) exit 0; print a " < " b; exit 1 }'
}

at_most() {
	is_number "$1" && is_number "$2" || { echo "not numbers: '$1' '$2'"; return 1; }
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 <= b + 0) exit 0; print a " > " b; exit 1 }'
}

. "$(dirname "$0")/../lib/bpf_progs.sh"

# wait_attached PID [NAME]: until the tract process PID has attached its
# sampler (or NAME), 60 s at most, and keep what programs it holds then in
# $WORK/bpf.PID for no_tract_programs.  Other processes' programs of the same
# names (a concurrent test run) do not count.
wait_attached() {
	bpf_wait_attached "$1" "${2:-tract_sample_pass}" "$WORK/bpf.$1"
}

# no_tract_programs PID: no program the tract process PID held (as
# wait_attached saw them while it ran) is loaded once it has ended.  The
# kernel frees programs after an RCU grace period, so give it 20 s.
no_tract_programs() {
	if [ ! -s "$WORK/bpf.$1" ]; then
		echo "no programs of process $1 were seen: call wait_attached $1 while it runs"
		return 1
	fi
	ntp_ids=$(awk '{ print $1 }' "$WORK/bpf.$1" | tr '\n' ' ')
	ntp_end=$(($(date +%s) + 20))
	while :; do
		# shellcheck disable=SC2086
		[ -z "$(bpf_loaded $ntp_ids)" ] && return 0
		[ "$(date +%s)" -lt "$ntp_end" ] || break
		sleep 0.05
	done
	echo "of the $(wc -l < "$WORK/bpf.$1") programs process $1 held, still loaded after 20 s:"
	# shellcheck disable=SC2086
	bpf_loaded $ntp_ids
	return 1
}

# wait_until SECONDS COMMAND...: until COMMAND succeeds, polled; past the
# deadline, a message naming it on stderr, and 1
wait_until() {
	wu_end=$(($(date +%s) + $1))
	shift
	until "$@" 2> /dev/null; do
		if [ "$(date +%s)" -ge "$wu_end" ]; then
			wu_cmd=
			for wu_a; do wu_cmd="$wu_cmd $(shquote "$wu_a")"; done
			echo "still not so after the deadline:$wu_cmd" >&2
			return 1
		fi
		sleep 0.05
	done
}

# wait_stored DIR SQL [SECONDS]: until SQL, on the latest store file in DIR
# (read-only, beside the recorder), gives 1; 30 s unless told
wait_stored() {
	ws_end=$(($(date +%s) + ${3:-30}))
	while :; do
		ws_f=$(ls "$1"/tract-*.db 2> /dev/null | tail -n 1)
		[ -n "$ws_f" ] && [ "$(sqlite3 -batch -noheader "file:$ws_f?mode=ro" "$2" 2> /dev/null)" = 1 ] && return 0
		[ "$(date +%s)" -lt "$ws_end" ] || break
		sleep 0.05
	done
	echo "after ${3:-30} s, still not so in ${ws_f:-$1 (no store file)}: $2" >&2
	return 1
}
