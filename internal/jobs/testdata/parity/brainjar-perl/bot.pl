# A BrainJar bot in Perl (core modules only).
use strict;
use JSON::PP;
my $req = decode_json($ARGV[0]);
my $out = {};
if ($req->{cmd} eq 'init') {
    my %places = (2 => '50', 3 => '41', 4 => '01', 5 => '00');
    $out->{$_} = {point => $places{$_}, orientation => 'horizontal'} for keys %places;
} else {
    my %done = map { $_ => 1 } (@{$req->{hit}}, @{$req->{missed}});
    OUTER: for my $y (0 .. 7) {
        for my $x (0 .. 7) {
            if (!$done{"$x$y"}) { $out = {move => "$x$y"}; last OUTER; }
        }
    }
}
print JSON::PP->new->canonical->encode($out), "\n";
