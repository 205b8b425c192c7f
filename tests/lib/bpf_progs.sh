# SPDX-License-Identifier: GPL-2.0-only
# BPF programs by the process that holds them, not by name host-wide: another
# tract recorder (a concurrent test run), a peer tool or a benchmark may load
# programs of the same names at any time.  A process holds its programs by
# their file descriptors (anon_inode:bpf-prog) and attaches them by links
# (anon_inode:bpf_link); the fdinfo of either names the program's id.  (This
# works where bpftool has no "pids" in its output: Debian's is built without.)
# Safe under set -eu: every command that may fail is guarded.

# bpf_held PID: "id name how" of each program PID holds, how being "prog"
# (loaded) or "link" (attached), one line each: one look at its fds
bpf_held() {
	# one cat for all the fds (forks are slow on a busy host), which goes
	# on past an fd closed since the listing, where awk given the files
	# would stop; each fd's info begins with pos:, and in a link's link_id
	# comes before prog_id
	set -- "$({ cat /proc/"$1"/fdinfo/* 2> /dev/null || :; } | awk '/^pos:/ { link = 0 } /^link_id:/ { link = 1 }
		/^prog_id:/ { print $2, (link ? "link" : "prog") }' | sort -u || :)"
	[ -n "$1" ] || return 0
	bpftool prog show 2> /dev/null | awk -v held="$1" '
		BEGIN { n = split(held, h, "\n"); for (i = 1; i <= n; i++) { split(h[i], f, " "); how[f[1]] = how[f[1]] " " f[2] } }
		/^[0-9]+:/ {
			id = $1; sub(/:$/, "", id)
			if (!(id in how)) next
			name = "-"
			for (i = 2; i < NF; i++) if ($i == "name") { name = $(i + 1); break }
			m = split(how[id], k, " ")
			for (i = 1; i <= m; i++) print id, name, k[i]
		}' || :
}

# bpf_loaded [IDS...]: "id name" of the programs loaded in the kernel, of
# those ids only if any are given
bpf_loaded() {
	bpftool prog show 2> /dev/null | awk -v ids=" $* " '
		/^[0-9]+:/ {
			id = $1; sub(/:$/, "", id); name = "-"
			for (i = 2; i < NF; i++) if ($i == "name") { name = $(i + 1); break }
			if (ids == "  " || index(ids, " " id " ")) print id, name
		}' || :
}

# bpf_progs_of PID: "id name" of the programs PID holds
bpf_progs_of() {
	bpf_held "$1" | awk '{ print $1, $2 }' | sort -un
}

# bpf_running PID: PID runs (a zombie does not: it holds nothing any more)
bpf_running() {
	case $(sed -n 's/^State:[[:space:]]*//p' "/proc/$1/status" 2> /dev/null || :) in
	'' | Z* | X*) return 1 ;;
	esac
}

# bpf_wait_attached PID NAME [FILE]: until PID has attached a program named
# NAME, 60 s at most (loading takes a while on a busy host).  FILE, if given,
# gets "id name" of every program PID holds at that moment: all of them are
# loaded before any is attached.
bpf_wait_attached() {
	_bpf_end=$(($(date +%s) + 60))
	while :; do
		_bpf_held=$(bpf_held "$1")
		if printf '%s\n' "$_bpf_held" | grep -q " $2 link\$"; then
			[ -z "${3:-}" ] || printf '%s\n' "$_bpf_held" | awk '{ print $1, $2 }' | sort -un > "$3"
			return 0
		fi
		bpf_running "$1" || { echo "process $1 ended before it attached $2" >&2; return 1; }
		[ "$(date +%s)" -lt "$_bpf_end" ] || break
		sleep 0.025
	done
	echo "process $1 did not attach $2 within 60 s; it holds: $(bpf_progs_of "$1" | tr '\n' ' ')" >&2
	return 1
}
