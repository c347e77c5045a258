#!/usr/bin/perl
# The SQLSTATE policy (doc/errors.md), checked against the code:
#  - no error saying "does not exist" or "is not a ... collection" is raised as 22023 (C ereports,
#    the SQL scripts' RAISEs, and the expected outputs of the regression tests, which print codes);
#  - no NULL argument is refused as 22023 (22004 null_value_not_allowed);
#  - "is not a docmodel collection" is said in one place (DocmodelRequireCollection; SQL calls
#    docmodel._require_collection);
#  - every SQLSTATE the code raises is in the errors table of doc/errors.md, and the table lists none the code
#    never raises (XX000, internal failures, is not documented).
# Run from the top of the tree (make test does); prints one "... ok" or "... FAILED" line a check.
use strict;
use warnings;
use File::Find;

my @fail;
my %ok;

sub files {
	my ($dir, $re) = @_;
	my @f;
	return () unless -d $dir;
	find(sub { push @f, $File::Find::name if -f $_ && $_ =~ $re }, $dir);
	return sort @f;
}

sub slurp {
	my ($f) = @_;
	open my $h, '<', $f or die "$f: $!";
	local $/;
	my $s = <$h>;
	close $h;
	return $s;
}

sub line_of { my ($s, $pos) = @_; return 1 + (substr($s, 0, $pos) =~ tr/\n//); }

# ERRCODE_* names and PL/pgSQL condition names to SQLSTATEs, from PostgreSQL's errcodes.h.
my $pgc = $ENV{PG_CONFIG} || 'pg_config';
my $inc = `$pgc --includedir-server 2>/dev/null`;
chomp $inc;
my (%code, %cond);
for my $l (split /\n/, slurp("$inc/utils/errcodes.h")) {
	next unless $l =~ /^#define (ERRCODE_(\w+))\s+MAKE_SQLSTATE\('(.)',\s*'(.)',\s*'(.)',\s*'(.)',\s*'(.)'\)/;
	$code{$1} = "$3$4$5$6$7";
	$cond{lc $2} = "$3$4$5$6$7";
}
die "no SQLSTATEs in $inc/utils/errcodes.h\n" unless %code;
# PL/pgSQL's names where they are not the macro's
$cond{trigger_protocol_violated} = $code{ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED};
$cond{serialization_failure} = $code{ERRCODE_T_R_SERIALIZATION_FAILURE};

my $bad_exist = qr/does not exist|is not a (?:\w+ )?collection/;
my $bad_null = qr/must not be null|\bis null\b|\bare required\b|\bis required\b/;
my %raised;    # SQLSTATE => first place

# C: every ereport's codes and message.
my @c = (files('src', qr/\.c$/));
my $not_coll = 0;
for my $f (@c) {
	my $s = slurp($f);
	while ($s =~ /\b(ERRCODE_[A-Z0-9_]+)\b/g) {
		next if $1 eq 'ERRCODE_TO_CATEGORY';
		# a comparison with a caught error's code raises nothing
		next if substr($s, 0, $-[0]) =~ /[!=]=\s*$/;
		my $c = $code{$1} or do { push @fail, "$f: unknown $1"; next };
		$raised{$c} //= "$f:" . line_of($s, $-[0]);
	}
	$not_coll += () = $s =~ /errmsg\("\\"%s\\" is not a docmodel collection"/g;
	while ($s =~ /\bereport\s*\(/g) {
		my ($start, $i, $depth) = ($-[0], pos($s), 1);
		while ($depth > 0 && $i < length $s) {
			my $ch = substr($s, $i++, 1);
			$depth++ if $ch eq '(';
			$depth-- if $ch eq ')';
		}
		my $body = substr($s, $start, $i - $start);
		my ($msg) = $body =~ /errmsg(?:_internal|_plural)?\s*\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)/s;
		next unless defined $msg;
		$msg =~ s/"\s*"//g;
		my $where = "$f:" . line_of($s, $start);
		if ($body =~ /ERRCODE_INVALID_PARAMETER_VALUE/) {
			push @fail, "$where: 22023 for $msg" if $msg =~ $bad_exist || $msg =~ $bad_null;
		}
	}
}
push @fail, "src: \"is not a docmodel collection\" raised in $not_coll places, not one"
	unless $not_coll == 1;
$ok{'C ereports'} = 1;

# SQL: the install and upgrade scripts (and any concern file), not the frozen full scripts
# of released versions nor the build's copy.
my @sql = grep { !m{/docmodel--[0-9.]+\.sql$} } files('sql', qr/\.sql(\.in)?$/);
for my $f (@sql) {
	my $s = slurp($f);
	while ($s =~ /ERRCODE\s*=\s*(CASE\b.*?\bEND\b|'[^']*')/gis) {
		my ($expr, $pos) = ($1, $-[0]);
		for my $t ($expr =~ /'([^']*)'/g) {
			my $c = $t =~ /^[0-9A-Z]{5}$/ ? $t : $cond{lc $t};
			if (!defined $c) { push @fail, "$f:" . line_of($s, $pos) . ": unknown condition $t"; next }
			$raised{$c} //= "$f:" . line_of($s, $pos);
		}
	}
	push @fail, "$f: says \"is not a docmodel collection\" (call docmodel._require_collection)"
		if $s =~ /is not a docmodel collection/;
	while ($s =~ /\bRAISE\s+(?:EXCEPTION\b|USING\b)/gi) {
		my $start = $-[0];
		my $end = index($s, ";\n", $start);
		my $stmt = substr($s, $start, $end - $start);
		my ($ec) = $stmt =~ /ERRCODE\s*=\s*('[^']*')/i;
		next unless defined $ec && $ec =~ /^'(22023|invalid_parameter_value)'$/i;
		my ($msg) = $stmt =~ /(?:MESSAGE\s*=\s*(?:pg_catalog\.)?format\(\s*|MESSAGE\s*=\s*|RAISE\s+EXCEPTION\s+)('(?:[^']|'')*')/is;
		next unless defined $msg;
		push @fail, "$f:" . line_of($s, $start) . ": 22023 for $msg"
			if $msg =~ $bad_exist || $msg =~ $bad_null;
	}
}
$ok{'SQL RAISEs'} = 1;

# The expected outputs of the regression tests (and of test/citus), which print the SQLSTATE
# beside the message.
for my $f (files('expected', qr/\.out$/), grep { m{/expected/} } files('test', qr/\.out$/)) {
	my $n = 0;
	for my $l (split /\n/, slurp($f)) {
		$n++;
		# "22023: <message>" as the tests print it; a value inside an argument that names
		# nothing ("invalid JSON Schema at ...: $ref target ... does not exist") is a bad value
		push @fail, "$f:$n: 22023 for $l"
			if $l =~ /(?:^|\s)22023: (?!invalid )/ && $l =~ $bad_exist;
	}
}
$ok{'expected outputs'} = 1;

# The errors page's table (doc/errors.md): the SQLSTATE column.
my $table = slurp('doc/errors.md');
my %listed;
for my $row (grep { /^\|/ } split /\n/, $table) {
	my @col = split /\s\|\s/, $row;
	next unless @col > 2;
	$listed{$1} = 1 while $col[1] =~ /\b((?=[0-9A-Z]*[0-9])[0-9A-Z]{5})\b/g;
}
delete $raised{XX000};
# codes PostgreSQL raises for a docmodel function, which the table documents
my %by_postgres = ('25006' => 'incr and next_id in a read-only transaction: their UPDATE');
$raised{$_} //= "PostgreSQL ($by_postgres{$_})" for keys %by_postgres;
for my $c (sort keys %raised) {
	push @fail, "errors table (doc/errors.md) lacks $c (raised at $raised{$c})" unless $listed{$c};
}
for my $c (sort keys %listed) {
	push @fail, "errors table (doc/errors.md) lists $c, which the code never raises" unless $raised{$c};
}

my %part = ('C ereports' => qr/^src/, 'SQL RAISEs' => qr/^sql/, 'expected outputs' => qr/expected/,
	'errors table (doc/errors.md)' => qr/^errors table/);
for my $name ('C ereports', 'SQL RAISEs', 'expected outputs', 'errors table (doc/errors.md)') {
	my @mine = grep { $_ =~ $part{$name} } @fail;
	printf "errors: %-40s ... %s\n", "SQLSTATE policy, $name", @mine ? 'FAILED' : 'ok';
	print "  $_\n" for @mine;
}
exit(@fail ? 1 : 0);
