# Counters survive pg_dump / pg_restore with their values: a restored counter continues
# above every value handed out before the dump, in another database of the same server
# and in another cluster; gapless counters keep their exact value.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('counter_dump');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	SELECT docmodel.counter_create('dump::g', 0, gapless => true);
	SELECT docmodel.incr('dump::g') FROM generate_series(1, 5);
	SELECT docmodel.counter_create('dump::start', 1000);});
my $max = $node->safe_psql('postgres', q{
	SELECT max(docmodel.next_id('duser')) || '|' || max(docmodel.next_id('duser', 'foo.org'))
	  FROM generate_series(1, 1234)});
my ($m1, $m2) = split /\|/, $max;
is($m1, '1234', 'handed out 1234 ids');

my $dump = $node->basedir . '/counters.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ],
	'pg_dump');

# Hand out more after the dump in the source: not the restore's business, but the
# restored counter must still be above what the dump saw.
$node->safe_psql('postgres', "SELECT docmodel.next_id('duser') FROM generate_series(1, 10)");

my $other = PostgreSQL::Test::Cluster->new('counter_restore');
$other->init;
$other->start;
for my $target ([ $node, 'restored' ], [ $other, 'restored' ])
{
	my ($n, $db) = @$target;
	my $where = $n->name;
	$n->safe_psql('postgres', "CREATE DATABASE $db");
	$n->command_ok([ 'pg_restore', '-d', $n->connstr($db), $dump ], "pg_restore on $where");
	my $got = $n->safe_psql($db, q{
		SELECT docmodel.next_id('duser') || '|' || docmodel.next_id('duser', 'foo.org')
		    || '|' || docmodel.incr('dump::g') || '|' || docmodel.incr('dump::start')});
	my ($a, $b, $g, $s) = split /\|/, $got;
	cmp_ok($a, '>', $m1, "$where: restored next_id $a > $m1");
	cmp_ok($b, '>', $m2, "$where: restored per-parent next_id $b > $m2");
	is($g, '6', "$where: gapless counter restored exactly");
	cmp_ok($s, '>', 1000, "$where: never-used counter restored at its start");
	is($n->safe_psql($db, q{SELECT count(*) FROM docmodel.counters}), '4',
		"$where: all four counters restored");
}

$node->stop;
$other->stop;
done_testing();
