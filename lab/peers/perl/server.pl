#!/usr/bin/perl
# SOAP::Lite server for Davis & Parashar's TestService (urn:test:soap, rpc/encoded), the peer
# standing for the seeds' SOAP::Lite row (Davis & Parashar 2002), and Ruby's echoFloat (any path;
# the lab uses /echo). `perl server.pl PORT`: a
# SOAP::Transport::HTTP::Daemon on 127.0.0.1:PORT (one process, one connection at a time, HTTP
# keep-alive). SOAP::Lite has no WSDL-driven server: the operations and types follow
# contract/dp.wsdl by hand (xsd:int parameters, xsd:string and SOAP-ENC int arrays answered).
use strict;
use warnings;
use SOAP::Transport::HTTP;

package TestService;
use constant MAX_SIZE => 100000;

sub check_size {
    my $n = shift;
    die SOAP::Fault->faultcode('Client')->faultstring("size `$n` is out of range `0..=100000`")
      unless defined $n && $n =~ /^\d+$/ && $n <= MAX_SIZE;
    return $n + 0;
}

sub doNothing { return; }

sub getStringOfSize {
    my ($class, $n) = @_;
    $n = check_size($n);
    my $s = substr('abcdefghijklmnopqrstuvwxyz' x (int($n / 26) + 1), 0, $n);
    return SOAP::Data->name('return')->type('string')->value($s);
}

sub getIntegersOfSize {
    my ($class, $n) = @_;
    $n = check_size($n);
    my @v = map { SOAP::Data->type('int')->value($_) } 0 .. $n - 1;
    return SOAP::Data->name('return')->value(\@v);
}

# Sam Ruby's echoFloat (seed 002): his request's body element is in http://tempuri.org/.
package EchoService;

sub echoFloat {
    my ($class, $input) = @_;
    die SOAP::Fault->faultcode('Client')->faultstring('`input` is not a float')
      unless defined $input && $input =~ /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
    return SOAP::Data->name('result')->type('float')->value($input + 0);
}

package main;

my $port = shift @ARGV or die "usage: server.pl PORT [HOST]\n";
my $host = shift @ARGV // '127.0.0.1';  # the lab's emulated LAN passes its own
my $daemon = SOAP::Transport::HTTP::Daemon->new(LocalAddr => $host, LocalPort => $port, Reuse => 1)
  or die "cannot listen on $host:$port: $!\n";
$daemon->dispatch_with({ 'urn:test:soap' => 'TestService', 'http://tempuri.org/' => 'EchoService' });
$daemon->dispatch_to('TestService');
$| = 1;
print "listening on http://$host:$port/dp\n";
$daemon->handle;
