# The extension installs in a fresh cluster and survives a restart.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('install');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION docmodel');
$node->restart;
# the version installed is the control file's default, whatever the release
is($node->safe_psql('postgres',
		"SELECT extversion = default_version FROM pg_extension JOIN pg_available_extensions ON name = extname
		 WHERE extname = 'docmodel'"),
	't', 'extension present after restart, at its default version');
$node->stop;
done_testing();
