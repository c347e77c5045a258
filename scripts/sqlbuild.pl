#!/usr/bin/env perl
# sqlbuild.pl: docmodel's install and upgrade scripts, assembled from the concern files of sql/.
#
#   sqlbuild.pl install PART...             the install script: the parts joined in order
#   sqlbuild.pl upgrade BASE TEMPLATE PART...
#                                           an upgrade script: TEMPLATE (the hand-written part,
#                                           specific to the upgrade) with its line "-- @objects"
#                                           replaced by every object of the parts that BASE (the
#                                           frozen script of the version upgraded from) lacks or
#                                           defines otherwise
#   sqlbuild.pl check BASE TEMPLATE PART... no object defined twice in the parts, and none that
#                                           the parts define written again by hand in TEMPLATE
#
# One source for each SQL object: a function, view, table, trigger, comment or grant is written
# once, in the concern file it belongs to; the upgrade takes from the parts what changed since
# BASE, by comparing each statement with BASE's statement of the same object:
#   - a function, procedure or view BASE has, the same text: left out; changed: CREATE OR REPLACE
#     (unless TEMPLATE drops it first: then CREATE); one BASE lacks: CREATE;
#   - a table, index, trigger, event trigger, sequence, type, cast or operator: only when BASE lacks it (a change
#     to one BASE has is an ALTER the template writes), with the rows inserted into a new table;
#   - a comment, grant or revoke: unless BASE has the same statement;
#   - DO blocks run at install only (the template has the upgrade's own).
# Statements are split by a small SQL lexer (comments, quotes, dollar quotes); the comments before
# a statement go with it.
use strict;
use warnings;

sub slurp { my ($f) = @_; open(my $h, '<', $f) or die "sqlbuild: $f: $!\n"; local $/; my $t = <$h>; close $h; return $t; }

# Split SQL text into statements: [lead (comments and blank lines), body (through the ";")].
sub statements {
	my ($text, $file) = @_;
	my @out;
	my ($cur, $has_code, $atomic, $prev) = ('', 0, 0, '');
	while ($text =~ /\G(--[^\n]*\n?|\/\*.*?\*\/|'(?:[^']|'')*'|"(?:[^"]|"")*"|\$\$.*?\$\$|\$([A-Za-z_]\w*)\$.*?\$\2\$|;|\\[^\n]*\n?|\s+|[^-\/'"\$;\\\s]+|.)/gsc) {
		my $tok = $1;
		if ($tok =~ /^\\/ && !$has_code) {    # a psql meta-command line
			push @out, { lead => $cur, body => $tok };
			($cur, $has_code) = ('', 0);
			next;
		}
		$cur .= $tok;
		next if $tok =~ /^(--|\/\*|\s)/;
		$has_code = 1;
		# a SQL-standard function body (BEGIN ATOMIC ... END) holds semicolons
		$atomic = 1 if uc($tok) eq 'ATOMIC' && uc($prev) eq 'BEGIN';
		my $ends = $tok eq ';' && (!$atomic || uc($prev) eq 'END');
		$prev = $tok;
		if ($ends) {
			my ($lead, $body) = $cur =~ /^((?:\s*(?:--[^\n]*\n|\/\*.*?\*\/))*\s*)(.*)$/s;
			push @out, { lead => $lead, body => $body };
			($cur, $has_code, $atomic, $prev) = ('', 0, 0, '');
		}
	}
	die "sqlbuild: $file: text after the last statement: " . substr($cur, 0, 80) . "\n" if $has_code;
	push @out, { lead => $cur, body => '' } if length $cur;
	return @out;
}

sub trim { my ($s) = @_; $s =~ s/^\s+|\s+$//g; return $s; }
sub norm { my ($s) = @_; $s =~ s/--[^\n]*//g; $s =~ s/\s+/ /g; $s =~ s/^ | $//g; $s =~ s/\( /(/g; $s =~ s/ \)/)/g; return lc $s; }

# The text inside the parentheses that open at or after position $i of $s.
sub parens {
	my ($s, $i) = @_;
	my $start = index($s, '(', $i);
	return undef if $start < 0;
	my $depth = 0;
	for (my $j = $start; $j < length $s; $j++) {
		my $c = substr($s, $j, 1);
		$depth++ if $c eq '(';
		$depth-- if $c eq ')';
		return substr($s, $start + 1, $j - $start - 1) if $depth == 0;
	}
	return undef;
}

# A function's argument types, from its argument list (names, modes and defaults removed).
sub argtypes {
	my ($args) = @_;
	my @parts;
	my ($cur, $depth) = ('', 0);
	for my $c (split //, $args) {
		$depth++ if $c eq '(';
		$depth-- if $c eq ')';
		if ($c eq ',' && $depth == 0) { push @parts, $cur; $cur = ''; next; }
		$cur .= $c;
	}
	push @parts, $cur if $cur =~ /\S/;
	my @types;
	for my $a (@parts) {
		$a =~ s/\s+(DEFAULT|=)\s.*$//is;
		$a =~ s/^\s+|\s+$//g;
		next if $a =~ /^OUT\s/i;
		$a =~ s/^(IN|INOUT|VARIADIC)\s+//i;
		my @t = split /\s+/, $a;
		shift @t if @t >= 2 && $t[0] !~ /^(double|timestamp|time|character|bit|interval)$/i && $t[0] !~ /[.(]/
			&& !($t[1] =~ /^(precision|varying|with|without|zone)$/i);
		push @types, lc join(' ', @t);
	}
	return join(',', @types);
}

# The object a statement defines or touches: [kind, key].
sub object {
	my ($body) = @_;
	my $b = $body;
	$b =~ s/^\s+//;
	if ($b =~ /^CREATE\s+(?:OR\s+REPLACE\s+)?(FUNCTION|PROCEDURE|AGGREGATE)\s+([\w."]+)\s*\(/is) {
		my ($k, $n) = (lc $1, lc $2);
		return [$k eq 'aggregate' ? 'function' : 'function', "$n(" . argtypes(parens($b, $-[0])) . ")"];
	}
	return ['view', lc $1] if $b =~ /^CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+([\w."]+)/is;
	return ['table', lc $1] if $b =~ /^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w."]+)/is;
	return ['index', lc $1] if $b =~ /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w."]+)/is;
	return ['eventtrigger', lc $1] if $b =~ /^CREATE\s+EVENT\s+TRIGGER\s+([\w."]+)/is;
	return ['trigger', lc "$1 on $2"] if $b =~ /^CREATE\s+(?:CONSTRAINT\s+)?TRIGGER\s+([\w."]+).*?\sON\s+([\w."]+)/is;
	return ['policy', lc "$1 on $2"] if $b =~ /^CREATE\s+POLICY\s+([\w."]+)\s+ON\s+([\w."]+)/is;
	return ['sequence', lc $1] if $b =~ /^CREATE\s+SEQUENCE\s+([\w."]+)/is;
	return ['shelltype', lc $1] if $b =~ /^CREATE\s+TYPE\s+([\w."]+)\s*;/is;
	return ['type', lc $1] if $b =~ /^CREATE\s+TYPE\s+([\w."]+)/is;
	return ['cast', norm($1)] if $b =~ /^CREATE\s+CAST\s*(\([^)]*\))/is;
	return ['operator', norm($1)] if $b =~ /^CREATE\s+OPERATOR\s+(CLASS\s+[\w."]+|FAMILY\s+[\w."]+|\S+\s*\([^)]*?ARG\s*=\s*[\w."]+\s*,\s*RIGHTARG\s*=\s*[\w."]+)/is;
	return ['altersequence', lc $1] if $b =~ /^ALTER\s+SEQUENCE\s+([\w."]+)/is;
	return ['dump', lc $1] if $b =~ /^SELECT\s+pg_catalog\.pg_extension_config_dump\s*\(\s*'([^']+)'/is;
	return ['insert', lc $1] if $b =~ /^INSERT\s+INTO\s+([\w."]+)/is;
	return ['altertable', lc $1] if $b =~ /^ALTER\s+TABLE\s+(?:ONLY\s+)?([\w."]+)/is;
	return ['drop', lc "$1 $2(" . argtypes(parens($b, $-[0])) . ")"]
		if $b =~ /^DROP\s+(FUNCTION|PROCEDURE)\s+(?:IF\s+EXISTS\s+)?([\w."]+)\s*\(/is;
	return ['acl', norm($b)] if $b =~ /^(GRANT|REVOKE)\s/is;
	return ['comment', norm($b)] if $b =~ /^COMMENT\s+ON\s/is;
	return ['do', norm($b)] if $b =~ /^DO\s/is;
	return ['meta', norm($b)] if $b =~ /^\\/;
	return ['other', norm($b)];
}

sub parse {
	my ($file) = @_;
	my @st = statements(slurp($file), $file);
	for my $s (@st) { $s->{obj} = $s->{body} =~ /\S/ ? object($s->{body}) : ['none', '']; $s->{file} = $file; }
	return @st;
}

# The objects of a parsed script, by "kind key" (the last statement of each).
sub index_of {
	my %ix;
	for my $s (@_) { $ix{"$s->{obj}[0] $s->{obj}[1]"} = $s; }
	return %ix;
}

my $mode = shift @ARGV // '';
if ($mode eq 'install') {
	print slurp($_) for @ARGV;
	exit 0;
}
die "usage: sqlbuild.pl install PART... | upgrade|check BASE TEMPLATE PART...\n"
	unless ($mode eq 'upgrade' || $mode eq 'check') && @ARGV >= 3;
my ($base, $template, @parts) = @ARGV;
my %base = index_of(parse($base));
my @tmpl = parse($template);
my @part = map { parse($_) } @parts;

# Tables and the like of the base: a statement about one of them is the template's business.
my %base_table = map { ($_ =~ /^table (.*)$/) ? ($1 => 1) : () } keys %base;
my %dropped = map { ($_->{obj}[0] eq 'drop') ? ($_->{obj}[1] =~ s/^\w+ //r => 1) : () } @tmpl;

if ($mode eq 'check') {
	my (%seen, @errors);
	for my $s (@part) {
		my ($k, $key) = @{ $s->{obj} };
		next unless $k =~ /^(function|view|table|index|trigger|eventtrigger|sequence|type)$/;
		push @errors, "$s->{file}: $k $key is defined twice (also in $seen{\"$k $key\"})" if $seen{"$k $key"};
		$seen{"$k $key"} = $s->{file};
	}
	for my $s (@tmpl) {
		my ($k, $key) = @{ $s->{obj} };
		push @errors, "$template: $k $key is written by hand; it is defined in $seen{\"$k $key\"}"
			if $k =~ /^(function|view|table|index|trigger|eventtrigger|sequence|type)$/ && $seen{"$k $key"};
	}
	print STDERR "sqlbuild: $_\n" for @errors;
	exit(@errors ? 1 : 0);
}

sub generated {
	my $out = '';
	for my $s (@part) {
		my ($k, $key) = @{ $s->{obj} };
		my $b = $base{"$k $key"};
		my $body = $s->{body};
		my $emit;
		if ($k eq 'function' || $k eq 'view') {
			if (!$b || $dropped{$key}) { $emit = 1; }
			elsif (trim($b->{body}) ne trim($body)) {
				$emit = 1;
				$body =~ s/^(\s*CREATE)\s+(?!OR\s)/$1 OR REPLACE /is;
			}
		}
		elsif ($k =~ /^(table|index|trigger|eventtrigger|sequence|type|shelltype|dump|cast|operator|policy)$/) { $emit = !$b; }
		elsif ($k eq 'altersequence') { $emit = !$base{"sequence $key"}; }
		elsif ($k eq 'insert' || $k eq 'altertable') { $emit = !$base_table{$key}; }
		elsif ($k eq 'comment' || $k eq 'acl') { $emit = !$b; }
		elsif ($k eq 'do' || $k eq 'meta' || $k eq 'none') { $emit = 0; }
		else { die "sqlbuild: $s->{file}: a statement the upgrade cannot place: " . substr($body, 0, 120) . "\n"; }
		$out .= $s->{lead} . $body if $emit;
	}
	return $out . "\n";
}

my $text = slurp($template);
my $gen = generated();
$text =~ s/^-- \@objects\n/$gen/m or die "sqlbuild: $template has no line \"-- \@objects\"\n";
print $text;
