#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-only
# A ClickHouse that takes rows and never answers: an HTTP proxy on
# 127.0.0.1:LISTEN to 127.0.0.1:TARGET that passes every request on, and
# every answer back but those to an INSERT, whose connection it holds open
# in silence.  The rows are in; the client cannot know it.  With DELAY, a
# slow ClickHouse instead: each INSERT's answer comes DELAY seconds late.
#   usage: silent_proxy.pl LISTEN TARGET [DELAY]
use strict;
use warnings;
use IO::Socket::INET;

my ($listen, $target, $delay) = @ARGV;
my $server = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $listen, Listen => 16, ReuseAddr => 1)
	or die "cannot listen on $listen: $!\n";
$SIG{CHLD} = 'IGNORE';
$| = 1;
print "listening\n";

# one request: its head (without Connection headers) and body
sub read_request {
	my ($c) = @_;
	my $head = '';
	while ($head !~ /\r\n\r\n/) {
		my $n = sysread($c, my $buf, 65536);
		return if !$n;
		$head .= $buf;
	}
	my ($h, $body) = split /\r\n\r\n/, $head, 2;
	my ($len) = $h =~ /^Content-Length:\s*(\d+)/mi;
	$len //= 0;
	while (length($body) < $len) {
		my $n = sysread($c, my $buf, 65536);
		last if !$n;
		$body .= $buf;
	}
	$h =~ s/^Connection:[^\r]*\r\n//mgi;
	return ($h, $body);
}

while (my $client = $server->accept) {
	if (fork) {
		close $client;
		next;
	}
	my ($head, $body) = read_request($client);
	exit 0 if !defined $head;
	my $up = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $target) or exit 0;
	print $up "$head\r\nConnection: close\r\n\r\n$body";
	my $answer = '';
	while (sysread($up, my $buf, 65536)) {
		$answer .= $buf;
	}
	close $up;
	if ($head =~ /^POST [^\r\n]*query=INSERT/i) {
		print "holding an insert\n";
		select(undef, undef, undef, $delay // 60);
		exit 0 if !defined $delay;
	}
	print $client $answer;
	close $client;
	exit 0;
}
