# The copy worker runs every owner's deferred rules in one long-lived
# session: each batch gets a clean environment of its own. An owner's trigger
# that sets search_path, default_transaction_read_only, docmodel.actor,
# statement_timeout and lock_timeout with set_config(..., false) during her
# batch leaves nothing behind for the next owner's batch, which also runs with
# search_path fixed to pg_catalog, pg_temp (an unqualified lower() is never
# another schema's lower()) and as a security-restricted operation.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('copy_worker_settings');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'docmodel'
docmodel.copy_worker_database = 'postgres'
docmodel.copy_worker_interval = 100ms
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	CREATE ROLE mallory LOGIN;
	CREATE ROLE alice LOGIN;
	GRANT CREATE ON SCHEMA public TO mallory, alice;
	CREATE SCHEMA evil AUTHORIZATION mallory;
	GRANT USAGE ON SCHEMA evil TO PUBLIC;
});

# mallory's rule comes first (lower id): her batch's trigger sets everything
# it can for the session, and her schema evil has a lower(text) that records who
# called it.
$node->safe_psql('postgres', q{
	SET ROLE mallory;
	CREATE TABLE evil.stolen (who text, what text);
	GRANT INSERT ON evil.stolen TO PUBLIC;
	CREATE FUNCTION evil.lower(t text) RETURNS text LANGUAGE plpgsql AS $$
	BEGIN
		INSERT INTO evil.stolen VALUES (current_user, t);
		RETURN pg_catalog.lower(t);
	END $$;
	SELECT docmodel.create_collection('m_src'), docmodel.create_collection('m_dst');
	INSERT INTO m_src VALUES ('s1', '{"name": "S"}');
	INSERT INTO m_dst VALUES ('d1', '{"src": {"id": "s1"}}');
	SELECT docmodel.create_copy('m_dst', '/src', 'm_src', '{"name": "/name"}', mode => 'deferred');
	CREATE FUNCTION public.m_poison() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM pg_catalog.set_config('search_path', 'evil, pg_catalog, public', false);
		PERFORM pg_catalog.set_config('default_transaction_read_only', 'on', false);
		PERFORM pg_catalog.set_config('docmodel.actor', 'forged', false);
		PERFORM pg_catalog.set_config('statement_timeout', '1ms', false);
		PERFORM pg_catalog.set_config('lock_timeout', '1ms', false);
		PERFORM pg_catalog.set_config('mallory.was_here', 'yes', false);
		RETURN NEW;
	END $$;
	CREATE TRIGGER poison BEFORE UPDATE ON m_dst FOR EACH ROW EXECUTE FUNCTION public.m_poison();
});

# alice's rule: her books get the authors' names; her trigger calls an
# unqualified lower() and records the settings it runs under.
$node->safe_psql('postgres', q{
	SET ROLE alice;
	SELECT docmodel.create_collection('authors'), docmodel.create_collection('books');
	SELECT docmodel.set_revisions('books', 10);
	CREATE TABLE seen (search_path text, read_only text, actor text, timeout text,
		lock_timeout text, mallory text, sro_create text);
	INSERT INTO authors SELECT 'a' || i, jsonb_build_object('name', 'Author ' || i)
	FROM generate_series(1, 3) i;
	INSERT INTO books SELECT 'b' || i, jsonb_build_object('author', jsonb_build_object('id', 'a' || (i % 3 + 1)))
	FROM generate_series(1, 30) i;
	SELECT docmodel.create_copy('books', '/author', 'authors', '{"name": "/name"}', mode => 'deferred');
	CREATE FUNCTION public.alice_books() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		NEW.doc := pg_catalog.jsonb_set(NEW.doc, '{low}',
			pg_catalog.to_jsonb(lower(NEW.doc->'author'->>'name')));
		INSERT INTO public.seen VALUES (pg_catalog.current_setting('search_path'),
			pg_catalog.current_setting('default_transaction_read_only'),
			pg_catalog.current_setting('docmodel.actor'),
			pg_catalog.current_setting('statement_timeout'),
			pg_catalog.current_setting('lock_timeout'),
			pg_catalog.current_setting('mallory.was_here', true), NULL);
		RETURN NEW;
	END $$;
	CREATE TRIGGER b_low BEFORE UPDATE ON books FOR EACH ROW EXECUTE FUNCTION public.alice_books();
});

ok($node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'docmodel copy worker'"),
	'the worker runs');

# mallory's batch first, in the worker's session
$node->safe_psql('postgres', q{SET ROLE mallory; UPDATE m_src SET doc = '{"name": "S2"}'});
ok($node->poll_query_until('postgres',
	q{SELECT doc->'src'->>'name' = 'S2' FROM m_dst}), "mallory's copy is applied");

# then alice's, in the same session
$node->safe_psql('postgres', q{
	SET ROLE alice;
	UPDATE authors SET doc = jsonb_set(doc, '{name}', to_jsonb('NEW ' || id));
});
ok($node->poll_query_until('postgres', q{
	SELECT queued = 0 FROM docmodel.copy_lag WHERE coll = 'books'::regclass}),
	"alice's queue drains");
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM books b JOIN authors a ON a.id = b.doc->'author'->>'id'
	WHERE b.doc->'author'->>'name' = a.doc->>'name' AND b.doc->>'low' = lower(a.doc->>'name')}),
	'30', "alice's copies are all applied, not refused as read-only or timed out");
is($node->safe_psql('postgres', 'SELECT count(*) FROM evil.stolen'), '0',
	"mallory's lower() never ran as alice");
is($node->safe_psql('postgres',
	q{SELECT DISTINCT search_path || '|' || read_only || '|' || actor || '|' || timeout || '|' ||
		lock_timeout || '|' || coalesce(mallory, '') FROM seen}),
	'pg_catalog, pg_temp|off||0|0|',
	"alice's batches run with a fixed search_path and the worker's own settings");
is($node->safe_psql('postgres',
	q{SELECT count(*) FROM books_revisions WHERE changed_by = 'forged'}), '0',
	"no history of alice's names the forged writer");

# mallory again after alice: her own leak does not even reach her next batch
$node->safe_psql('postgres', q{SET ROLE mallory; UPDATE m_src SET doc = '{"name": "S3"}'});
ok($node->poll_query_until('postgres',
	q{SELECT doc->'src'->>'name' = 'S3' FROM m_dst}), "mallory's next batch is applied too");
$node->stop;
done_testing();
