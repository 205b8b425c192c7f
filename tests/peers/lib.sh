# SPDX-License-Identifier: GPL-2.0-only
# Shared by the peer comparisons: the workload is exec'd under a pid that tract
# and the peer already follow, so both see its threads from the first to the
# last and neither window cuts an interval at its edge.
: "${TRACT:?TRACT must point at the tract binary}"
: "${WORKLOAD:?WORKLOAD must point at the workload binary}"

# peer_stub OUT: a process that becomes the workload at peer_go; its pid in $stub.
# Its main thread waits a moment after the go (for a child: sleep) so that a
# peer attached before then sees it switched out and back in: it blocked on
# the FIFO before any peer was there, and the workload's main thread then
# waits for a signal to the end, never switching in again, so the peer would
# otherwise know nothing of its off-CPU time.
peer_stub() {
	fifo=$1/go
	rm -f "$fifo"
	mkfifo "$fifo"
	shift
	sh -c 'read go < "$1"; sleep 0.01; shift; exec "$@"' sh "$fifo" "$WORKLOAD" "$@" > "$out/workload.out" 2>&1 &
	stub=$!
	PEER_PIDS="$PEER_PIDS $stub"
}

peer_go() {
	echo go > "$fifo"
	rm -f "$fifo"
}

# peer_attached PID NAME: wait until the process PID (the peer tool or the
# recorder, started in the background) has attached its BPF program NAME;
# another process's of that name (a concurrent run) does not count.  PID is
# ended on exit if it still runs then.
peer_attached() {
	PEER_PIDS="$PEER_PIDS $1"
	bpf_wait_attached "$1" "$2"
}

# Whatever the script started and still runs when it exits, passing or failing
# (set -e), is ended: the processes peer_stub and peer_attached were given,
# and any other child of this shell (a keeper); TERM, then KILL after 5 s.
PEER_PIDS=
# peer_children: in $peer_left, those of them that still run (each still a
# child of this shell: once reaped, its pid may be another process's)
peer_children() {
	peer_kids=$(ps -o pid= --ppid $$ 2> /dev/null || :)
	peer_left=
	for p in $PEER_PIDS $peer_kids; do
		case " $peer_left " in *" $p "*) continue ;; esac
		[ "$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$p/status" 2> /dev/null || :)" = $$ ] && bpf_running "$p" &&
			peer_left="$peer_left $p"
	done
}
peer_cleanup() {
	set +e
	peer_children
	[ -n "$peer_left" ] || return 0
	# shellcheck disable=SC2086
	kill -TERM $peer_left 2> /dev/null
	for _ in $(seq 50); do
		peer_children
		[ -n "$peer_left" ] || return 0
		sleep 0.1
	done
	# shellcheck disable=SC2086
	kill -KILL $peer_left 2> /dev/null
}
trap peer_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

. "$(dirname "$0")/../lib/one_store.sh"
. "$(dirname "$0")/../lib/bpf_progs.sh"

# peer_db OUT: the store as one file, whatever hours the run crossed
peer_db() {
	one_store "$1/store"
}
