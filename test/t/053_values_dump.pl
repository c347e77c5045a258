# Every table the values test makes (regression test values_roundtrip: the
# write paths that build numbers, driven with NaN, Infinity and numbers at
# numeric's and bigint's edges) survives pg_dump and restore whole: the same
# rows in every table, docmodel's own included, in plain and custom format.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('values_dump');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql('src', 'CREATE EXTENSION docmodel');
$node->command_ok([ 'psql', '-X', '-q', '-d', $node->connstr('src'), '-f', 'test/sql/values_roundtrip.sql' ],
	'the values test runs');

# Every table of the database (docmodel's, the collections, their history),
# each as the md5 of its rows' text in order; but docmodel.migration_run, the
# log of bulk runs, which a dump leaves out by design (a run in progress is
# not restored).
my $tables_query = q{
	SELECT string_agg(format('%s %s', c.oid::regclass, n.nspname), E'\n' ORDER BY c.oid::regclass::text)
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
	  AND n.nspname NOT LIKE 'pg_toast%' AND c.oid <> 'docmodel.migration_run'::regclass};
my @tables = map { (split / /)[0] } split /\n/, $node->safe_psql('src', $tables_query);
ok(@tables >= 12, scalar(@tables) . ' tables to compare');
my $contents_query = join(' UNION ALL ', map {
	"SELECT '$_' AS t, count(*) AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM $_ AS x"
} @tables) . ' ORDER BY 1';
my $before = $node->safe_psql('src', $contents_query);
like($before, qr/rt_acc\|3\|/, 'the mapped documents are there');

my $dump = $node->basedir . '/values.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('src'), '-f', $dump ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE plain');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('plain'), '-f', $dump ],
	'the plain dump restores without an error');
is($node->safe_psql('plain', $contents_query), $before, 'every table restored with every row');

my $archive = $node->basedir . '/values.custom';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('src'), '-f', $archive ], 'pg_dump -Fc');
$node->safe_psql('postgres', 'CREATE DATABASE custom');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('custom'), $archive ], 'pg_restore');
is($node->safe_psql('custom', $contents_query), $before, 'every table restored by pg_restore');
$node->stop;
done_testing();
