#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What the test suite left behind.  Every process the suite starts inherits
# TRACT_SUITE_TOKEN in its environment (daemons too: a tmux server, a
# database server), so those still running at the end are the suite's own,
# whatever their names; and a tract BPF program loaded since the start that
# no other process owns was left by the suite.
#
#   suite-leftovers.sh snapshot FILE   the tract programs loaded now
#   suite-leftovers.sh check FILE      fail, naming them, if any process of
#                                      the suite's or new tract program is
#                                      still there; then end those processes
set -u
: "${TRACT_SUITE_TOKEN:?the suite sets it}"

# loaded BPF programs with tract's names, "id name" a line, but for those a
# process outside the suite holds (a recorder someone else runs here)
tract_programs() {
	bpftool -j prog show 2> /dev/null | env -u TRACT_SUITE_TOKEN perl -MJSON::PP -e '
		my $token = shift;
		my $progs = eval { decode_json(join "", <STDIN>) } || [];
		# who holds each program: the fdinfo of a program or link fd names
		# its id (bpftool has no owners where it is built without them)
		my %owners;
		for my $info (glob "/proc/[0-9]*/fdinfo/*") {
			my ($pid) = $info =~ m{^/proc/(\d+)/};
			open(my $fh, "<", $info) or next;
			while (<$fh>) { $owners{$1}{$pid} = 1 if /^prog_id:\s*(\d+)/ }
		}
		for my $p (@$progs) {
			next unless ($p->{name} // "") =~ /^tract_/;
			my @owners = keys %{ $owners{ $p->{id} } || {} };
			my $ours = !@owners;
			for my $pid (@owners) {
				open(my $fh, "<", "/proc/$pid/environ") or next;
				local $/;
				$ours = 1 if index(<$fh> // "", "TRACT_SUITE_TOKEN=$token\0") >= 0;
			}
			print "$p->{id} $p->{name}\n" if $ours;
		}' "$TRACT_SUITE_TOKEN"
}

# pids of running processes that carry the token, except this script and
# the suite's shell that runs it.  The scan runs without the token itself,
# and skips its own parent (the subshell that reads its output).
suite_processes() {
	env -u TRACT_SUITE_TOKEN perl -e '
		my ($token, @skip) = @ARGV;
		my %skip = map { $_ => 1 } @skip, getppid();
		for my $env (glob "/proc/[0-9]*/environ") {
			my ($pid) = $env =~ m{/proc/(\d+)/};
			next if $skip{$pid};
			open(my $fh, "<", $env) or next;
			local $/;
			my $all = <$fh> // "";
			print "$pid\n" if grep { $_ eq "TRACT_SUITE_TOKEN=$token" } split /\0/, $all;
		}' "$TRACT_SUITE_TOKEN" $$ "$PPID"
}

case ${1:-} in
snapshot)
	tract_programs > "$2"
	;;
check)
	bad=0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		procs=$(suite_processes)
		[ -z "$procs" ] && break
		sleep 0.5 # one that is on its way out
	done
	if [ -n "$procs" ]; then
		echo "leftovers: the suite left these processes running (now ended):"
		for pid in $procs; do
			printf '  %s %s\n' "$pid" "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null | cut -c1-150)"
		done
		# shellcheck disable=SC2086
		kill $procs 2> /dev/null
		sleep 1
		# shellcheck disable=SC2086
		kill -9 $procs 2> /dev/null
		bad=1
	fi
	# the kernel frees a closed program after an RCU grace period
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		new=$(tract_programs | grep -v -x -F -f "$2")
		[ -z "$new" ] && break
		sleep 0.5
	done
	if [ -n "$new" ]; then
		echo "leftovers: tract BPF programs loaded during the suite are still loaded:"
		echo "$new" | head -n 10 | sed 's/^/  /'
		bad=1
	fi
	[ $bad -eq 0 ] && echo "leftovers: none (no process of the suite's still running, no tract program still loaded)"
	exit $bad
	;;
*)
	echo "usage: $0 snapshot|check FILE" >&2
	exit 2
	;;
esac
