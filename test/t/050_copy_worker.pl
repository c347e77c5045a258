# The copy worker: with docmodel preloaded and docmodel.copy_worker_database
# set, a background worker applies the deferred copy rules' queued keys
# (each rule as the owner of its collection), survives an error in one rule
# (logged, once while it repeats; the other rules are applied), and ends on SIGTERM to be started
# again by the postmaster. Without the setting there is no worker.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('copy_worker');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'docmodel'
docmodel.copy_worker_interval = 100ms
docmodel.copy_worker_batch_size = 50
});
$node->start;
is($node->safe_psql('postgres',
	"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'docmodel copy worker'"),
	'0', 'no database set: no worker');

$node->append_conf('postgresql.conf', "docmodel.copy_worker_database = 'postgres'\n");
$node->restart;
$node->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	CREATE ROLE shop LOGIN;
	GRANT CREATE ON SCHEMA public TO shop;
	SET ROLE shop;
	SELECT docmodel.create_collection('authors'), docmodel.create_collection('books'),
		docmodel.create_collection('bad');
	INSERT INTO authors (id, doc) SELECT 'a' || i, jsonb_build_object('name', 'A' || i)
	FROM generate_series(1, 200) i;
	INSERT INTO books (id, doc) SELECT 'b' || i, jsonb_build_object('author', jsonb_build_object('id', 'a' || (i % 200 + 1)))
	FROM generate_series(1, 1000) i;
	INSERT INTO bad (id, doc) VALUES ('x1', '{"author": {"id": "a1"}}');
	-- the rule of "bad" fails: its owner took its own UPDATE right away,
	-- and the worker applies it as that owner, not as a superuser
	SELECT docmodel.create_copy('bad', '/author', 'authors', '{"name": "/name"}', mode => 'deferred');
	REVOKE UPDATE ON bad FROM shop;
	SELECT docmodel.create_copy('books', '/author', 'authors', '{"name": "/name"}', mode => 'deferred');
});
ok($node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'docmodel copy worker'"),
	'the worker runs');

# Rename every author: 200 keys queued for books (1,000 books to rewrite), one for bad.
$node->safe_psql('postgres', q{
	SET ROLE shop;
	UPDATE authors SET doc = jsonb_set(doc, '{name}', to_jsonb('New ' || id));
});
ok($node->poll_query_until('postgres', q{
	SELECT queued = 0 FROM docmodel.copy_lag WHERE coll = 'books'::regclass}),
	'the worker drains the queue');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM books b JOIN authors a ON a.id = b.doc->'author'->>'id'
	WHERE b.doc->'author'->>'name' IS DISTINCT FROM a.doc->>'name'}),
	'0', 'every copy is up to date');
# (one key: the only author a document of bad refers to)
is($node->safe_psql('postgres', q{
	SELECT queued FROM docmodel.copy_lag WHERE coll = 'bad'::regclass}),
	'1', 'the rule its owner may not apply keeps its keys');
ok($node->wait_for_log(qr/permission denied for table bad/), 'its error is logged');
# Rounds every 100 ms: the same error again is counted, not logged again.
$node->safe_psql('postgres', 'SELECT pg_sleep(2)');
my @logged = (slurp_file($node->logfile) =~ /permission denied for table bad/g);
is(scalar(@logged), 1, 'its error is logged once while it repeats');
is($node->safe_psql('postgres', "SELECT doc->'author'->>'name' FROM bad"),
	'A1', 'its document is not rewritten');

# SIGTERM: the worker ends and is started again.
my $pid = $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE backend_type = 'docmodel copy worker'");
$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
ok($node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'docmodel copy worker' AND pid <> $pid"),
	'restarted after SIGTERM');
$node->safe_psql('postgres', q{
	SET ROLE shop;
	UPDATE authors SET doc = jsonb_set(doc, '{name}', '"Again"') WHERE id = 'a1';
});
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 5 FROM books WHERE doc->'author'->>'name' = 'Again'}),
	'the new worker applies');
$node->stop;
done_testing();
