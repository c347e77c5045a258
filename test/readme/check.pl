#!/usr/bin/env perl
# Run every ```sql block of README.md and of the reference pages in doc/, and compare with the
# results their comments state.
#
# The pages: README.md first, then each page its section "Reference" links to (doc/NAME.md,
# with or without an #anchor), in the order of its first link there: that list is the one place
# the order is written. Examples of a later page may use objects an earlier one made. A page of
# doc/ holding ```sql blocks that the list leaves out is an error.
#
# The convention (CONTRIBUTING.md, "The documentation is tested"):
# - The blocks run in that order on one fresh database with the extension, each block in a
#   psql session of its own, so a SET in one block does not reach the next.
# - A comment starting with an arrow, "-- → TEXT", states the output of the statement it
#   follows (on the statement's last line or on the lines right after it). Several arrow lines
#   are several output lines. Output is psql's unaligned form: columns joined by " | ", NULL
#   as NULL. "..." in a stated line matches any text.
# - A statement that fails states "-- → ERROR <SQLSTATE>: <message>"; any other statement
#   must succeed. Statements without an arrow comment are run and must succeed; their output
#   is not compared. Other comments are prose.
#
# Prints "readme block N (FILE:LINE, Section) ... ok" or "... FAILED" and the lines that
# differ, per block; exits 1 when a block failed.
# Usage: perl test/readme/check.pl README.md  (connects with the PG* environment, e.g. under
# pg_virtualenv). Perl only (the TAP tests need it anyway): no other dependency.
use strict;
use warnings;
use utf8;
use open qw(:std :encoding(UTF-8));
use File::Temp qw(tempfile);

my $ARROW  = "\x{2192}";
my $DBNAME = 'docmodel_readme';
my $MARK   = '@@docmodel-readme@@';
my $FILE   = 'README.md';    # the page being checked, for messages

# Run a psql script on a database; return (stdout, stderr).
sub psql
{
	my ($db, $script) = @_;
	my ($sfh, $sfile) = tempfile(UNLINK => 1);
	my (undef, $efile) = tempfile(UNLINK => 1);
	binmode($sfh, ':encoding(UTF-8)');
	print $sfh $script;
	close $sfh;
	my $out = qx{psql -X -q -A -t -F ' | ' -P null=NULL -v ON_ERROR_STOP=0 -d '$db' -f '$sfile' 2>'$efile'};
	utf8::decode($out);
	open(my $efh, '<:encoding(UTF-8)', $efile) or die "$efile: $!";
	my $err = do { local $/; <$efh> } // '';
	close $efh;
	return ($out, $err);
}

# The ```sql blocks: [line of the first SQL line, section title, text].
sub blocks
{
	my ($path) = @_;
	open(my $f, '<:encoding(UTF-8)', $path) or die "$path: $!";
	my @lines = <$f>;
	close $f;
	chomp @lines;
	my ($section, @blocks) = ('');
	for (my $i = 0; $i < @lines; $i++)
	{
		$section = $1 if $lines[$i] =~ /^#+\s*(.*?)\s*$/;
		next unless $lines[$i] =~ /^\s*```sql\s*$/;
		my $start = $i + 2;
		my @body;
		push @body, $lines[$i] while ++$i < @lines && $lines[$i] !~ /^\s*```\s*$/;
		push @blocks, [ $start, $section, join("\n", @body) . "\n" ];
	}
	return @blocks;
}

# Split a block into statements {text, line, expected => [[line, text], ...]}; die on an arrow
# comment that follows no statement or sits inside one.
sub split_block
{
	my ($sql, $line) = @_;
	my (@stmts, $cur, $cur_line) = ();
	$cur = '';
	my $n = length $sql;
	my $i = 0;
	while ($i < $n)
	{
		my $c = substr($sql, $i, 1);
		if (substr($sql, $i, 2) eq '--')
		{
			my $end = index($sql, "\n", $i);
			$end = $n if $end < 0;
			my $comment = substr($sql, $i + 2, $end - $i - 2);
			$comment =~ s/^\s+|\s+$//g;
			if ($comment =~ /^$ARROW\s*(.*)$/)
			{
				die "$FILE:$line: a result comment inside a statement\n" if $cur =~ /\S/;
				die "$FILE:$line: a result comment before any statement\n" unless @stmts;
				push @{ $stmts[-1]{expected} }, [ $line, $1 ];
			}
			elsif ($cur =~ /\S/)
			{
				$cur .= substr($sql, $i, $end - $i);
			}
			$i = $end;
			next;
		}
		if ($c eq "'" || $c eq '"')
		{
			my $j = $i + 1;
			while ($j < $n)
			{
				if (substr($sql, $j, 1) eq $c)
				{
					if (substr($sql, $j + 1, 1) eq $c) { $j += 2; next; }
					last;
				}
				$j++;
			}
			my $s = substr($sql, $i, $j + 1 - $i);
			$cur_line //= $line;
			$cur .= $s;
			$line += ($s =~ tr/\n//);
			$i = $j + 1;
			next;
		}
		if ($c eq '$' && substr($sql, $i) =~ /^(\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$)/)
		{
			my $tag = $1;
			my $j = index($sql, $tag, $i + length $tag);
			$j = $j < 0 ? $n : $j + length $tag;
			my $s = substr($sql, $i, $j - $i);
			$cur_line //= $line;
			$cur .= $s;
			$line += ($s =~ tr/\n//);
			$i = $j;
			next;
		}
		$cur_line //= $line if $c =~ /\S/;
		$cur .= $c;
		$line++ if $c eq "\n";
		if ($c eq ';')
		{
			(my $text = $cur) =~ s/^\s+|\s+$//g;
			push @stmts, { text => $text, line => $cur_line, expected => [] };
			$cur = '';
			undef $cur_line;
		}
		$i++;
	}
	die "$FILE:$cur_line: a statement without its closing semicolon\n" if $cur =~ /\S/;
	return @stmts;
}

# Run the statements in one session; return each one's output lines (a failure as
# "ERROR <sqlstate>: <message>") and psql's stderr.
sub run_block
{
	my @stmts = @_;
	my $script = '';
	for my $k (0 .. $#stmts)
	{
		$script .= "\\echo $MARK $k\n$stmts[$k]{text}\n"
		  . "\\echo $MARK end :ERROR :LAST_ERROR_SQLSTATE\n\\echo :LAST_ERROR_MESSAGE\n";
	}
	my ($out, $err) = psql($DBNAME, $script);
	my @results = (undef) x @stmts;
	my @lines = split /\n/, $out, -1;
	my $k;
	for (my $j = 0; $j < @lines; $j++)
	{
		my $l = $lines[$j];
		if ($l =~ /^\Q$MARK\E end (\S+) (\S+)$/)
		{
			$results[$k] = ["ERROR $2: $lines[$j + 1]"] if $1 eq 'true' && defined $k;
			$j++;
			undef $k;
		}
		elsif ($l =~ /^\Q$MARK\E (\d+)$/)
		{
			$k = $1;
			$results[$k] = [];
		}
		elsif (defined $k)
		{
			push @{ $results[$k] }, $l;
		}
	}
	return (\@results, $err);
}

# Does an actual line match a stated one ("..." matches any text)?
sub matches
{
	my ($want, $got) = @_;
	my $re = join('.*', map { quotemeta } split(/\.\.\./, $want, -1));
	return $got =~ /^$re$/s;
}

# The differences of one block, as printable lines.
sub check
{
	my ($stmts, $results) = @_;
	my @problems;
	for my $k (0 .. $#$stmts)
	{
		my $s = $stmts->[$k];
		my $got = $results->[$k];
		my ($head) = split /\n/, $s->{text};
		if (!defined $got)
		{
			push @problems, "$FILE:$s->{line}: $head\n    not run (psql stopped?)";
			next;
		}
		my @want = @{ $s->{expected} };
		if (!@want)
		{
			push @problems, "$FILE:$s->{line}: $head\n    fails: $got->[0]"
			  if @$got && $got->[0] =~ /^ERROR /;
			next;
		}
		my $ok = @want == @$got;
		for my $i (0 .. $#want)
		{
			$ok &&= matches($want[$i][1], $got->[$i]);
		}
		next if $ok;
		push @problems, "$FILE:$s->{line}: $head\n    stated ($FILE:$want[0][0]):\n"
		  . join('', map { "      $_->[1]\n" } @want)
		  . "    actual:\n"
		  . (@$got ? join('', map { "      $_\n" } @$got) : "      (no output)\n");
	}
	return @problems;
}

# The pages to check: the README, then the pages its section "Reference" links to, in order.
sub pages
{
	my ($readme) = @_;
	open(my $f, '<:encoding(UTF-8)', $readme) or die "$readme: $!";
	my ($in, @pages, %seen) = (0);
	(my $dir = $readme) =~ s{[^/]*$}{};
	while (my $l = <$f>)
	{
		if ($l =~ /^(#+)\s*(.*?)\s*$/)
		{
			$in = ($2 eq 'Reference');
			next;
		}
		next unless $in;
		while ($l =~ /\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)
		{
			my $page = "$dir$1";
			push @pages, $page unless $seen{$page}++;
		}
	}
	close $f;
	return ($readme, grep { m{(^|/)doc/} } @pages);
}

my $readme = $ARGV[0] // 'README.md';
my @pages = pages($readme);
(my $docdir = $readme) =~ s{[^/]*$}{doc};
my %listed = map { $_ => 1 } @pages;
my @unlisted = grep { !$listed{$_} && grep { $_->[2] =~ /\S/ } blocks($_) } sort glob("$docdir/*.md");

my (undef, $e1) = psql('postgres',
	"SET client_min_messages = warning;\nDROP DATABASE IF EXISTS $DBNAME;\nCREATE DATABASE $DBNAME;\n");
my (undef, $e2) = psql($DBNAME, "\\set ON_ERROR_STOP 1\nCREATE EXTENSION docmodel;\n");
if ($e1 =~ /\S/ || $e2 =~ /\S/)
{
	print "readme: cannot set up database $DBNAME:\n$e1$e2";
	print "readme block 0 (setup) ... FAILED\n";
	exit 1;
}

my $failed = 0;
my $n = 0;
for my $u (@unlisted)
{
	print "readme: $u has sql examples but the \"Reference\" section of $readme does not link it ... FAILED\n";
	$failed++;
}
for my $page (@pages)
{
	$FILE = $page;
	for my $b (blocks($page))
	{
		my ($line, $section, $sql) = @$b;
		my $name = sprintf('readme block %d (%s:%d, %s)', ++$n, $page, $line, $section);
		my @stmts = eval { split_block($sql, $line) };
		if ($@)
		{
			print "$name ... FAILED\n  $@";
			$failed++;
			next;
		}
		my ($results, $err) = run_block(@stmts);
		my @problems = check(\@stmts, $results);
		if (!@problems)
		{
			print "$name ... ok\n";
			next;
		}
		$failed++;
		print "$name ... FAILED\n";
		print "  $_" for map { /\n$/ ? $_ : "$_\n" } @problems;
		if ($err =~ /\S/)
		{
			print "  psql said:\n", map { "    $_\n" } split /\n/, $err;
		}
	}
}
if (!$n)
{
	print "readme: no sql blocks found in $readme and its pages ... FAILED\n";
	$failed++;
}
exit($failed ? 1 : 0);
