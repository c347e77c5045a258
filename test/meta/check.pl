#!/usr/bin/env perl
# META.json against the PGXN Meta Spec 1.0.0 (https://pgxn.org/spec/): the required keys, each
# key's type and form (terms, SemVer versions, licenses, version ranges, URLs), custom keys
# only as x_ / X_; then what ties it to this checkout: the version is docmodel.control's
# default_version, and the files it names exist. With an archive (make dist), its contents:
# one top directory holding META.json, the control file, the Makefile and the provided files.
#
# Prints "meta: CHECK ... ok" or "... FAILED" and the reasons, per check; exits 1 on a failure.
# Usage: perl test/meta/check.pl [ARCHIVE.zip]   (from the checkout; Perl's core modules only)
use strict;
use warnings;
use JSON::PP;

my @errors;
sub err { push @errors, join('', @_) }

my $TERM   = qr/^[^\/\\\s[:cntrl:]]{2,}$/;
my $SEMVER = qr/^(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)(?:-?[A-Za-z][0-9A-Za-z-]*)?$/;
my $URL    = qr/^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
my %LICENSE = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd
  gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl
  perl_5 postgresql qpl_1_0 ssleay sun zlib open_source restricted unrestricted unknown);

sub is_str { defined $_[0] && !ref $_[0] && length $_[0] }
sub is_custom { $_[0] =~ /^x_/i }

sub check_keys
{
	my ($what, $h, %allowed) = @_;
	return err("$what must be an object") unless ref $h eq 'HASH';
	for my $k (sort keys %$h)
	{
		err("$what: unknown key \"$k\" (custom keys start with x_)")
		  unless $allowed{$k} || is_custom($k);
	}
}

sub check_range
{
	my ($what, $r) = @_;
	return err("$what: version range must be a string") unless is_str($r);
	return if $r eq '0' || $r =~ $SEMVER;
	for my $part (split /\s*,\s*/, $r)
	{
		err("$what: \"$part\" is not a version range (OP SEMVER)")
		  unless $part =~ /^(?:[<>]=?|==|!=)\s*(\S+)$/ && $1 =~ $SEMVER;
	}
}

sub spec_errors
{
	my ($m) = @_;
	return err("META.json must hold an object") unless ref $m eq 'HASH';
	for my $k (qw(name version abstract maintainer license provides meta-spec))
	{
		err("required key \"$k\" missing") unless exists $m->{$k};
	}
	check_keys('META.json', $m, map { $_ => 1 } qw(name version abstract maintainer license
		  provides meta-spec description generated_by tags no_index prereqs release_status
		  resources));
	err("name \"", $m->{name} // '', "\" is not a term") unless is_str($m->{name}) && $m->{name} =~ $TERM;
	err("version \"", $m->{version} // '', "\" is not SemVer") unless is_str($m->{version}) && $m->{version} =~ $SEMVER;
	for my $k (qw(abstract description generated_by))
	{
		err("$k must be a string") if exists $m->{$k} && !is_str($m->{$k});
	}
	my $mt = $m->{maintainer};
	err("maintainer must be a string or a list of strings")
	  unless is_str($mt) || (ref $mt eq 'ARRAY' && @$mt && !grep { !is_str($_) } @$mt);
	my $l = $m->{license};
	if (ref $l eq 'HASH')
	{
		err("license: \"$_\" is no URL") for grep { !is_str($l->{$_}) || $l->{$_} !~ $URL } keys %$l;
	}
	else
	{
		my @l = ref $l eq 'ARRAY' ? @$l : ($l);
		err("license \"", $_ // '', "\" is not one of the spec's") for grep { !is_str($_) || !$LICENSE{$_} } @l;
	}
	# the license META.json names is the one LICENSE, debian/copyright and README.md give
	if (defined $l && !ref $l && $l eq 'postgresql')
	{
		for my $f (['LICENSE', qr/PostgreSQL License/], ['debian/copyright', qr/^License: PostgreSQL$/m],
			['README.md', qr/\[PostgreSQL License\]\(LICENSE\)/])
		{
			my ($file, $re) = @$f;
			open(my $fh, '<', $file) or do { err("$file missing: META.json names the PostgreSQL License"); next };
			local $/;
			my $text = <$fh>;
			err("$file does not state the PostgreSQL License that META.json names") unless $text =~ $re;
		}
	}
	my $p = $m->{provides};
	if (ref $p eq 'HASH' && %$p)
	{
		for my $ext (sort keys %$p)
		{
			my $e = $p->{$ext};
			err("provides: \"$ext\" is not a term") unless $ext =~ $TERM;
			check_keys("provides.$ext", $e, map { $_ => 1 } qw(file version abstract docfile));
			next unless ref $e eq 'HASH';
			err("provides.$ext.file missing") unless is_str($e->{file});
			err("provides.$ext.version \"", $e->{version} // '', "\" is not SemVer")
			  unless is_str($e->{version}) && $e->{version} =~ $SEMVER;
		}
	}
	else { err("provides must be a non-empty object") }
	my $ms = $m->{'meta-spec'};
	check_keys('meta-spec', $ms, version => 1, url => 1);
	err("meta-spec.version must be 1.0.0") unless ref $ms eq 'HASH' && ($ms->{version} // '') eq '1.0.0';
	err("meta-spec.url is no URL") if ref $ms eq 'HASH' && exists $ms->{url} && ($ms->{url} // '') !~ $URL;
	if (exists $m->{release_status})
	{
		err("release_status must be stable, testing or unstable")
		  unless ($m->{release_status} // '') =~ /^(?:stable|testing|unstable)$/;
	}
	if (exists $m->{tags})
	{
		my $t = $m->{tags};
		err("tags must be a list of strings of 1 to 255 characters")
		  unless ref $t eq 'ARRAY' && !grep { !is_str($_) || length($_) > 255 } @$t;
	}
	if (exists $m->{no_index})
	{
		check_keys('no_index', $m->{no_index}, file => 1, directory => 1);
	}
	if (exists $m->{prereqs})
	{
		my $pr = $m->{prereqs};
		check_keys('prereqs', $pr, map { $_ => 1 } qw(configure build test runtime develop));
		for my $phase (ref $pr eq 'HASH' ? sort keys %$pr : ())
		{
			next if is_custom($phase);
			check_keys("prereqs.$phase", $pr->{$phase}, map { $_ => 1 } qw(requires recommends suggests conflicts));
			next unless ref $pr->{$phase} eq 'HASH';
			for my $rel (sort keys %{ $pr->{$phase} })
			{
				next if is_custom($rel);
				my $req = $pr->{$phase}{$rel};
				if (ref $req ne 'HASH') { err("prereqs.$phase.$rel must be an object"); next }
				check_range("prereqs.$phase.$rel.$_", $req->{$_}) for sort keys %$req;
			}
		}
	}
	if (exists $m->{resources})
	{
		my $r = $m->{resources};
		check_keys('resources', $r, homepage => 1, bugtracker => 1, repository => 1);
		if (ref $r eq 'HASH')
		{
			err("resources.homepage is no URL") if exists $r->{homepage} && ($r->{homepage} // '') !~ $URL;
			check_keys('resources.bugtracker', $r->{bugtracker}, web => 1, mailto => 1) if exists $r->{bugtracker};
			check_keys('resources.repository', $r->{repository}, url => 1, web => 1, type => 1) if exists $r->{repository};
		}
	}
}

my $failed = 0;
sub report
{
	my ($what) = @_;
	if (@errors) { print "meta: $what ... FAILED\n"; print "  $_\n" for @errors; $failed = 1 }
	else { print "meta: $what ... ok\n" }
	@errors = ();
}

open(my $fh, '<:raw', 'META.json') or die "META.json: $!";
my $text = do { local $/; <$fh> };
close $fh;
my $meta = eval { JSON::PP->new->utf8->relaxed(0)->decode($text) };
if (!$meta) { err("not JSON: $@"); report('META.json is valid per PGXN Meta Spec 1.0.0'); exit 1 }
spec_errors($meta);
report('META.json is valid per PGXN Meta Spec 1.0.0');

open(my $cf, '<', 'docmodel.control') or die "docmodel.control: $!";
my ($control) = map { /^default_version\s*=\s*'([^']*)'/ ? $1 : () } <$cf>;
close $cf;
err("version ", $meta->{version} // '', " is not docmodel.control's $control") unless ($meta->{version} // '') eq $control;
for my $ext (sort keys %{ $meta->{provides} || {} })
{
	my $e = $meta->{provides}{$ext};
	err("provides.$ext.version ", $e->{version} // '', " is not docmodel.control's $control")
	  unless ($e->{version} // '') eq $control;
	for my $k (qw(file docfile))
	{
		err("provides.$ext.$k: $e->{$k} is not in the checkout") if is_str($e->{$k}) && !-f $e->{$k};
	}
}
report("META.json's version is docmodel.control's ($control)");

if (@ARGV)
{
	my $archive = $ARGV[0];
	my @files = grep { length } split /\n/, `unzip -Z1 '$archive' 2>/dev/null`;
	if (!@files) { err("$archive: no files (not a zip archive?)") }
	else
	{
		my %top = map { m{^([^/]+)/} ? ($1 => 1) : ('' => 1) } @files;
		my @top = keys %top;
		my $want = "docmodel-$control";
		err("top directory is ", join(', ', @top), ", not $want") unless @top == 1 && $top[0] eq $want;
		my %in = map { $_ => 1 } @files;
		my @need = ('META.json', 'docmodel.control', 'Makefile', 'README.md', 'LICENSE');
		push @need, grep { is_str($_) } map { ($_->{file}, $_->{docfile}) } values %{ $meta->{provides} || {} };
		err("$want/$_ missing") for grep { !$in{"$want/$_"} } @need;
	}
	report("the release archive $archive holds META.json and the extension");
}
exit $failed;
