# 8 clients x 10,000 next_id calls (pgbench) store their ids in a table with a unique
# index: all 80,000 are distinct (a duplicate fails an INSERT, and pgbench with it), and
# with no transaction failing there is no gap either. Two clients taking ranges with
# incr(delta => 5) at the same time get disjoint ranges.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('counter_concurrency');
$node->init;
# Durability is not what this test is about; keep 80,000 commits fast.
$node->append_conf('postgresql.conf', "synchronous_commit = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	CREATE TABLE ids (id bigint PRIMARY KEY);
	CREATE TABLE ranges (last bigint PRIMARY KEY);
	SELECT docmodel.counter_create('conc::range');});

$node->pgbench(
	'--no-vacuum --client=8 --jobs=8 --transactions=10000',
	0,
	[qr{number of transactions actually processed: 80000/80000}],
	[qr{^$}],
	'8 clients x 10,000 next_id, no duplicate',
	{ 'counter_ids' => q{INSERT INTO ids VALUES (docmodel.next_id('cuser'));} });

is($node->safe_psql('postgres',
		'SELECT count(*), count(DISTINCT id), min(id), max(id) FROM ids'),
	'80000|80000|1|80000', '80,000 distinct values 1..80000');
is($node->safe_psql('postgres', "SELECT docmodel.counter_value('count::cuser')"),
	'80000', 'counter_value is the number handed out');

$node->pgbench(
	'--no-vacuum --client=4 --jobs=4 --transactions=2000',
	0,
	[qr{number of transactions actually processed: 8000/8000}],
	[qr{^$}],
	'4 clients x 2,000 incr by 5',
	{ 'counter_ranges' =>
		  q{INSERT INTO ranges VALUES (docmodel.incr('conc::range', 5));} });
is($node->safe_psql('postgres',
		'SELECT count(*), max(last), bool_and(last % 5 = 0) FROM ranges'),
	'8000|40000|t', 'every caller got its own range of 5');

$node->stop;
done_testing();
