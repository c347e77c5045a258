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
is($node->safe_psql('postgres',
		"SELECT extversion FROM pg_extension WHERE extname = 'docmodel'"),
	'0.2.0', 'extension present after restart');
$node->stop;
done_testing();
