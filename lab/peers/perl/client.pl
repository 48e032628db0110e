#!/usr/bin/perl
# SOAP::Lite client, speaking the lab's peer-client protocol (docs/lab.md):
#   perl client.pl URL OP N WARMUP_S WINDOW_S
# calls OP one at a time for WARMUP_S seconds (not recorded), then WINDOW_S seconds (at least one
# call), checks every answer and prints one JSON line {"ok","errors","first_error","samples_us"}.
# SOAP::Lite builds
# its calls from the operation name and namespace (its WSDL support does not cover rpc/encoded
# arrays), so the request follows contract/dp.wsdl by hand: an xsd:int parameter `n`.
use strict;
use warnings;
use SOAP::Lite;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);
use JSON::PP;

use constant MAX_SAMPLES => 1000000;

@ARGV == 5 or die "usage: client.pl URL OP N WARMUP_S WINDOW_S\n";
my ($url, $op, $n, $warmup, $window) = @ARGV;
my $soap = SOAP::Lite->proxy($url, keep_alive => 1)->uri('urn:test:soap')
  ->on_action(sub { "urn:test:soap#$_[1]" });
my $want = substr('abcdefghijklmnopqrstuvwxyz' x (int($n / 26) + 1), 0, $n);

sub call_once {
    if ($op eq 'doNothing') {
        my $r = $soap->doNothing();
        return $r->fault ? 'fault: ' . $r->faultstring : undef;
    }
    my $r = $soap->call($op => SOAP::Data->name(n => $n)->type('int'));
    return 'fault: ' . $r->faultstring if $r->fault;
    my $v = $r->result;
    if ($op eq 'getStringOfSize') {
        return defined $v && $v eq $want ? undef : 'wrong string';
    }
    if ($op eq 'getIntegersOfSize') {
        return 'not an array' unless ref $v eq 'ARRAY';
        return 'wrong number of integers' unless @$v == $n;
        for my $i (0 .. $n - 1) { return 'wrong integer' unless $v->[$i] == $i; }
        return undef;
    }
    return "unknown operation `$op`";
}

my $start = clock_gettime(CLOCK_MONOTONIC);
my $warm_end = $start + $warmup;
my $end = $warm_end + $window;
my (@samples, $first_error);
my ($ok, $errors) = (0, 0);
while (1) {
    my $t0 = clock_gettime(CLOCK_MONOTONIC);
    last if $t0 >= $end && $ok + $errors > 0;
    my $err = eval { call_once() };
    $err = "error: $@" if !defined $err && $@;
    my $t1 = clock_gettime(CLOCK_MONOTONIC);
    next if $t0 < $warm_end;
    if (defined $err) { $errors++; $first_error //= $err; next; }
    $ok++;
    push @samples, sprintf('%.2f', ($t1 - $t0) * 1e6) + 0 if @samples < MAX_SAMPLES;
}
print JSON::PP->new->canonical->encode({ ok => $ok, errors => $errors, first_error => $first_error, samples_us => \@samples }), "\n";
