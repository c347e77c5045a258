#!/usr/bin/env perl
# Check the relative links of the documentation: every [text](target) in README.md,
# CONTRIBUTING.md, CHANGELOG.md and doc/*.md that is not a URL points to a file of the checkout,
# and its #anchor, if any, to a heading of that file (GitHub's anchors: the heading in lower
# case, punctuation dropped, spaces as hyphens, "-1", "-2" for repeats). Links inside code
# (``` blocks and `spans`) are not links. Every page of doc/ must be linked from README.md.
# Prints "readme links (N checked) ... ok" or "... FAILED" and each broken link; exits 1 on any.
# Usage: perl test/readme/links.pl  (from the top of the checkout; no database).
use strict;
use warnings;
use utf8;
use open qw(:std :encoding(UTF-8));

# The anchors of a markdown file.
my %anchors;

sub anchors
{
	my ($path) = @_;
	return $anchors{$path} if $anchors{$path};
	my (%a, %seen);
	open(my $f, '<:encoding(UTF-8)', $path) or die "$path: $!";
	my $fence = 0;
	while (my $l = <$f>)
	{
		$fence = !$fence, next if $l =~ /^\s*```/;
		next if $fence || $l !~ /^#+\s+(.*?)\s*#*\s*$/;
		my $slug = lc $1;
		$slug =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;    # a link in a heading: its text
		$slug =~ s/[^\w\- ]//g;
		$slug =~ s/ /-/g;
		my $n = $seen{$slug}++;
		$a{ $n ? "$slug-$n" : $slug } = 1;
	}
	close $f;
	return $anchors{$path} = \%a;
}

my @files = grep { -f } ('README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', sort glob('doc/*.md'));
my ($checked, @broken) = (0);
for my $file (@files)
{
	open(my $f, '<:encoding(UTF-8)', $file) or die "$file: $!";
	(my $dir = $file) =~ s{[^/]*$}{};
	my ($fence, $line) = (0, 0);
	while (my $l = <$f>)
	{
		$line++;
		$fence = !$fence, next if $l =~ /^\s*```/;
		next if $fence;
		$l =~ s/`[^`]*`//g;
		while ($l =~ /\]\(([^)\s]+)\)/g)
		{
			my $target = $1;
			next if $target =~ m{^[a-z][a-z0-9+.-]*:}i;    # https:, mailto:
			$checked++;
			my ($path, $anchor) = $target =~ /^([^#]*)(?:#(.*))?$/;
			my $to = $path eq '' ? $file : "$dir$path";
			1 while $to =~ s{(^|/)(?!\.\./)[^/]+/\.\./}{$1};    # a/../b is b
			if (!-e $to)
			{
				push @broken, "$file:$line: ($target): no file $to";
			}
			elsif (defined $anchor && ($to !~ /\.md$/ || !anchors($to)->{$anchor}))
			{
				push @broken, "$file:$line: ($target): no heading #$anchor in $to";
			}
		}
	}
	close $f;
}
# Every page of doc/ is reachable from the README.
my %linked;
{
	open(my $f, '<:encoding(UTF-8)', 'README.md') or die "README.md: $!";
	local $/;
	my $text = <$f>;
	close $f;
	$linked{$1} = 1 while $text =~ /\]\((doc\/[^)#\s]+)/g;
}
for my $page (sort glob('doc/*.md'))
{
	push @broken, "$page: not linked from README.md" unless $linked{$page};
}
if (@broken)
{
	print "readme links ($checked checked) ... FAILED\n", map { "  $_\n" } @broken;
	exit 1;
}
print "readme links ($checked checked) ... ok\n";
exit 0;
