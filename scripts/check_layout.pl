#!/usr/bin/env perl
# The layout rules of src/ (CONTRIBUTING.md, "Layout"), checked by make test:
#   - every .c has its own header beside it (src/init.c's included);
#   - no .c over 1,500 lines, no function over 100;
#   - no circle: the files a file includes (its own .c and .h, directly) never include it back,
#     however far round.
# Prints one "... ok" or "... FAILED" line per rule.
use strict;
use warnings;
use File::Find;

chdir((__FILE__ =~ m{^(.*)/scripts/[^/]+$})[0] // '.') or die;
my @files;
find(sub { push @files, $File::Find::name if /\.[ch]$/ }, 'src');
@files = sort map { s{^src/}{}r } @files;
my %has = map { $_ => 1 } @files;
my $rc = 0;

sub report {
	my ($what, @bad) = @_;
	if (@bad) { print "layout: $what ... FAILED: ", join(', ', @bad), "\n"; $rc = 1; }
	else { print "layout: $what ... ok\n"; }
}

# 1. a header per .c
report('every .c with its header', grep { /\.c$/ && !$has{ s/\.c$/.h/r } } @files);

# 2. sizes
my (@long_files, @long_funcs);
for my $f (grep { /\.c$/ } @files) {
	open(my $h, '<', "src/$f") or die;
	my @l = <$h>;
	close $h;
	chomp @l;
	push @long_files, "$f (" . scalar(@l) . " lines)" if @l > 1500;
	for (my $i = 1; $i < @l; $i++) {
		next unless $l[$i] eq '{' && $l[$i - 1] !~ /=/ && $l[$i - 1] !~ /^(static const|typedef|struct|enum|union)/;
		my $j = $i - 1;
		$j-- while $j > 0 && $l[$j] !~ /\(/;
		my ($name) = $l[$j] =~ /(\w+)\s*\(/;
		my $k = $i;
		$k++ while $k < @l && $l[$k] ne '}';
		push @long_funcs, "$f: $name (" . ($k - $j + 1) . " lines)" if $k - $j + 1 > 100;
		$i = $k;
	}
}
report('no .c over 1,500 lines', @long_files);
report('no function over 100 lines', @long_funcs);

# 3. circles, by #include "x.h" of docmodel's own headers (a module: x.c with x.h)
my %deps;
for my $f (@files) {
	my $m = $f =~ s/\.[ch]$//r;
	open(my $h, '<', "src/$f") or die;
	while (<$h>) {
		next unless /^#include "([\w\/]+)\.h"/;
		my $d = $1;
		$deps{$m}{$d} = 1 if $d ne $m && $has{"$d.h"} && $has{"$d.c"};
	}
	close $h;
}
my (%state, @cycle);
sub visit {
	my ($m, @path) = @_;
	return if @cycle;
	if (($state{$m} // 0) == 1) { my $i = 0; $i++ while $path[$i] ne $m; @cycle = (@path[$i .. $#path], $m); return; }
	return if ($state{$m} // 0) == 2;
	$state{$m} = 1;
	visit($_, @path, $m) for sort keys %{ $deps{$m} // {} };
	$state{$m} = 2;
}
visit($_) for sort keys %deps;
report('no circle between files', @cycle ? (join(' -> ', @cycle)) : ());
exit $rc;
