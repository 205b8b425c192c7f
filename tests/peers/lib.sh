# SPDX-License-Identifier: GPL-2.0-only
# Shared by the peer comparisons: the workload is exec'd under a pid that tract
# and the peer already follow, so both see its threads from the first to the
# last and neither window cuts an interval at its edge.
: "${TRACT:?TRACT must point at the tract binary}"
: "${WORKLOAD:?WORKLOAD must point at the workload binary}"

# peer_stub OUT: a process that becomes the workload at peer_go; its pid in $stub
peer_stub() {
	fifo=$1/go
	rm -f "$fifo"
	mkfifo "$fifo"
	shift
	sh -c 'read go < "$1"; shift; exec "$@"' sh "$fifo" "$WORKLOAD" "$@" > "$out/workload.out" 2>&1 &
	stub=$!
}

peer_go() {
	echo go > "$fifo"
	rm -f "$fifo"
}

# peer_attached NAME: wait until a BPF program of that name is loaded
peer_attached() {
	for _ in $(seq 400); do
		bpftool prog show 2>/dev/null | grep -q " name $1 " && return 0
		sleep 0.025
	done
	echo "$1 did not load" >&2
	return 1
}

. "$(dirname "$0")/../lib/one_store.sh"

# peer_db OUT: the store as one file, whatever hours the run crossed
peer_db() {
	one_store "$1/store"
}
