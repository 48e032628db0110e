#!/usr/bin/perl
# SOAP::Lite server for Davis & Parashar's TestService (urn:test:soap, rpc/encoded), the peer
# standing for the seeds' SOAP::Lite row (Davis & Parashar 2002), Ruby's echoFloat (any path;
# the lab uses /echo) and the SOAPBuilders Round 2 base echoes (the lab uses /round2). `perl server.pl PORT`: a
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

# The SOAPBuilders Round 2 base echoes (contract/echo.wsdl, http://soapinterop.org/, any path; the
# lab uses /round2). SOAP::Lite decodes each argument by its xsi:type (arrays to array refs,
# SOAPStruct to a hash, base64 and hexBinary to bytes, booleans to 1/0); each echo names its
# result as the WSDL does and types it again, so the answer carries the same value.
package InteropService;

sub typed { my ($name, $type, $v) = @_; SOAP::Data->name($name)->type($type)->value($v) }
sub items { my ($type, $a) = @_; [map { SOAP::Data->name('item')->type($type)->value($_) } @{$a || []}] }
sub struct {
    my $s = shift;
    return \SOAP::Data->value(
        typed('varString', 'string', $s->{varString}),
        typed('varInt', 'int', $s->{varInt}),
        typed('varFloat', 'float', $s->{varFloat}));
}

sub echoString { typed('outputString', 'string', $_[1]) }
sub echoStringArray { SOAP::Data->name('outputStringArray')->value(items('string', $_[1])) }
sub echoInteger { typed('outputInteger', 'int', $_[1]) }
sub echoIntegerArray { SOAP::Data->name('outputIntegerArray')->value(items('int', $_[1])) }
sub echoFloat { typed('outputFloat', 'float', $_[1]) }
sub echoFloatArray { SOAP::Data->name('outputFloatArray')->value(items('float', $_[1])) }
sub echoStruct { SOAP::Data->name('outputStruct')->type('SOAPStruct')->value(struct($_[1])) }
sub echoStructArray {
    my @v = map { SOAP::Data->name('item')->type('SOAPStruct')->value(struct($_)) } @{$_[1] || []};
    SOAP::Data->name('outputStructArray')->value(\@v);
}
sub echoVoid { return; }
sub echoBase64 { typed('outputBase64', 'base64Binary', $_[1]) }
sub echoDate { typed('outputDate', 'dateTime', $_[1]) }
sub echoHexBinary { typed('outputHexBinary', 'hexBinary', $_[1]) }
sub echoDecimal { typed('outputDecimal', 'decimal', $_[1]) }
sub echoBoolean { typed('outputBoolean', 'boolean', $_[1] ? 'true' : 'false') }

package main;

my $port = shift @ARGV or die "usage: server.pl PORT [HOST]\n";
my $host = shift @ARGV // '127.0.0.1';  # the lab's emulated LAN passes its own
my $daemon = SOAP::Transport::HTTP::Daemon->new(LocalAddr => $host, LocalPort => $port, Reuse => 1)
  or die "cannot listen on $host:$port: $!\n";
$daemon->dispatch_with({ 'urn:test:soap' => 'TestService', 'http://tempuri.org/' => 'EchoService',
    'http://soapinterop.org/' => 'InteropService' });
$daemon->dispatch_to('TestService');
$| = 1;
print "listening on http://$host:$port/dp\n";
$daemon->handle;
