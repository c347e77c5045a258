# A bulk migration killed mid-way (immediate shutdown) and run again ends with
# every document at the target version, every step applied exactly once:
# each step appends its name to the document's "applied" array, so a step
# applied twice or skipped shows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('migrate_crash');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	SELECT docmodel.create_collection('crash_users');
	INSERT INTO crash_users (id, doc)
	SELECT 'user::' || lpad(i::text, 5, '0'),
		jsonb_build_object('_schema', '1', 'name', 'User ' || i, 'applied', '[]'::jsonb)
	FROM generate_series(1, 2000) i;
	-- 1 -> 2 by steps, 2 -> 3 by a slow function: a run takes seconds.
	CREATE FUNCTION crash_step(doc jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM pg_sleep(0.002);
		RETURN jsonb_set(doc, '{applied}', (doc->'applied') || '"2to3"');
	END $$;
	SELECT docmodel.register_migration('user', '1', '2', steps => '[
		{"op": "add", "path": "/applied/-", "value": "1to2"},
		{"op": "split", "path": "/name", "into": ["/firstName", "/lastName"]}]');
	SELECT docmodel.register_migration('user', '2', '3', fn => 'crash_step(jsonb)');
});

# Start a run in the background, in batches of 50.
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[
		'psql', '-X', '-d', $node->connstr('postgres'), '-c',
		"CALL docmodel.migrate_collection('crash_users', batch_size => 50)"
	],
	'>', \$out, '2>', \$err);

# Once some batches have committed, crash the server.
$node->poll_query_until('postgres',
	"SELECT coalesce(max(docs_done), 0) >= 300 FROM docmodel.migration_runs")
  or die "the run made no progress";
$node->stop('immediate');
eval { $h->finish; };
like($err, qr/migrated \d+\/2000 \(\d+%\), \d+ docs\/s, eta \d+s/,
	'a progress line per batch');

$node->start;
my ($done, $status) = split /\|/, $node->safe_psql('postgres',
	"SELECT docs_done, status FROM docmodel.migration_runs");
cmp_ok($done, '>=', 300, "committed batches survived the crash ($done docs)");
ok($done < 2000, 'the run was stopped mid-way');
is($status, 'interrupted', 'the crashed run shows as interrupted');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM crash_users WHERE doc->>'_schema' = '2'"),
	'0', 'no document is half-way (every batch all or nothing)');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM crash_users WHERE doc->>'_schema' = '3'"),
	$done, 'exactly the committed documents are migrated');

# Run again: it resumes the same run after its last key.
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"CALL docmodel.migrate_collection('crash_users', batch_size => 50)");
is($ret, 0, 'the second run succeeds');
like($stderr, qr/resuming run 1 of (public\.)?crash_users after key 'user::\d+'/,
	'the second run resumes the first');
is($node->safe_psql('postgres',
		"SELECT run_id, docs_done, docs_total, status FROM docmodel.migration_runs"),
	'1|2000|2000|done', 'one run, all 2000 documents, done');
is($node->safe_psql('postgres', q{
		SELECT doc->>'_schema', doc->'applied', count(*) FROM crash_users
		GROUP BY 1, 2}),
	'3|["1to2", "2to3"]|2000',
	'every document at version 3 with each step applied exactly once');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM crash_users WHERE doc->>'firstName' = 'User' AND doc ? 'lastName' AND NOT doc ? 'name'"),
	'2000', 'every document split once');

# A cancelled run keeps its committed batches, records itself cancelled,
# releases its lock, and the next run resumes it.
$node->safe_psql('postgres', q{
	SELECT docmodel.create_collection('cancel_users');
	DELETE FROM docmodel.migration_rules;
	INSERT INTO cancel_users (id, doc)
	SELECT 'user::' || lpad(i::text, 5, '0'),
		jsonb_build_object('_schema', '1', 'name', 'User ' || i, 'applied', '[]'::jsonb)
	FROM generate_series(1, 1000) i;
	SELECT docmodel.register_migration('user', '1', '2', steps => '[
		{"op": "add", "path": "/applied/-", "value": "1to2"},
		{"op": "split", "path": "/name", "into": ["/firstName", "/lastName"]}]');
	SELECT docmodel.register_migration('user', '2', '3', fn => 'crash_step(jsonb)');
});
($out, $err) = ('', '');
$h = IPC::Run::start(
	[
		'psql', '-X', '-d', $node->connstr('postgres'), '-c',
		"CALL docmodel.migrate_collection('cancel_users', batch_size => 50)"
	],
	'>', \$out, '2>', \$err);
$node->poll_query_until('postgres',
	"SELECT coalesce(max(docs_done), 0) >= 100 FROM docmodel.migration_runs WHERE coll = 'cancel_users'::regclass")
  or die "the run made no progress";
$node->safe_psql('postgres', q{
	SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE query LIKE 'CALL docmodel.migrate_collection(''cancel_users''%'});
eval { $h->finish; };
like($err, qr/canceling statement due to user request/, 'the run was cancelled');
($done, $status) = split /\|/, $node->safe_psql('postgres',
	"SELECT docs_done, status FROM docmodel.migration_runs WHERE coll = 'cancel_users'::regclass");
is($status, 'cancelled', 'the cancelled run shows as cancelled');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM cancel_users WHERE doc->>'_schema' = '3'"),
	$done, 'its committed batches stay migrated');
($ret, $stdout, $stderr) = $node->psql('postgres',
	"CALL docmodel.migrate_collection('cancel_users', batch_size => 50)");
is($ret, 0, 'the lock was released: a new call runs');
like($stderr, qr/resuming run \d+ of (public\.)?cancel_users/, 'and resumes the cancelled run');
is($node->safe_psql('postgres', q{
		SELECT doc->>'_schema', doc->'applied', count(*) FROM cancel_users
		GROUP BY 1, 2}),
	'3|["1to2", "2to3"]|1000',
	'every document at version 3 with each step applied exactly once');

$node->stop;
done_testing();
