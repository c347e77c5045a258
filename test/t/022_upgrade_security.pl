# ALTER EXTENSION docmodel UPDATE from 0.1.0 carries the security changes:
# the functions of rules registered under 0.1.0 are pinned (and the pins are
# not members of the extension, so pg_dump keeps them), a rule whose function
# is gone is left unpinned with a WARNING, and the writes 0.1.0 let roles
# have on docmodel's tables are revoked.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('upgrade_security');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION docmodel VERSION '0.1.0';
	CREATE ROLE app;
	-- what 0.1.0's README told to grant for creating collections
	GRANT INSERT, DELETE ON docmodel.collection_config TO app;
	GRANT USAGE ON SEQUENCE docmodel.collection_config_id_seq TO app;
	CREATE FUNCTION public.up(d jsonb) RETURNS jsonb LANGUAGE sql
		AS $$ SELECT d || '{"up": "registered"}' $$;
	CREATE FUNCTION public.gone(d jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT d $$;
	SELECT docmodel.register_migration('user', '1', '2', fn => 'public.up(jsonb)');
	SELECT docmodel.register_migration('order', '1', '2', fn => 'public.gone(jsonb)');
	DROP FUNCTION public.gone(jsonb);
});
is($node->safe_psql('postgres', q{SELECT has_table_privilege('public', 'docmodel.migration_run', 'UPDATE')}),
	't', '0.1.0: PUBLIC may update migration_run');

my ($ret, $out, $err) = $node->psql('postgres', q{ALTER EXTENSION docmodel UPDATE TO '0.2.0'});
is($ret, 0, 'ALTER EXTENSION UPDATE');
like($err, qr/WARNING:  migration function public\.gone\(jsonb\) of type "order" \(1 to 2\) does not exist/,
	'a rule whose function is gone: WARNING');
like($err, qr/WARNING:  docmodel 0\.2\.0: revoked INSERT on docmodel\.collection_config from app/,
	'the grants of 0.1.0 README are revoked, with a WARNING');

is($node->safe_psql('postgres', q{
	SELECT string_agg(format('%s %s %s', r, p, has_table_privilege(g, r, p)), ', ' ORDER BY r, p, g)
	FROM unnest(ARRAY['docmodel.collection_config', 'docmodel.migration_run']) r,
	     unnest(ARRAY['INSERT', 'UPDATE', 'DELETE']) p, unnest(ARRAY['public', 'app']) g
	WHERE has_table_privilege(g, r, p)}), '', 'nobody but the owner writes docmodel tables');
is($node->safe_psql('postgres', q{SELECT has_sequence_privilege('app', 'docmodel.collection_config_id_seq', 'USAGE')}),
	'f', 'sequence grant revoked');

my ($r2, $o2, $e2) = $node->psql('postgres', 'DROP FUNCTION public.up(jsonb)');
like($e2, qr/cannot drop function (public\.)?up\(jsonb\) because other objects depend on it/,
	'the rule of 0.1.0 pins its function');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
	WHERE e.extname = 'docmodel' AND d.deptype = 'e' AND d.classid = 'pg_proc'::regclass
	  AND d.objid::regproc::text LIKE 'docmodel._migration\_fn\_%'
	  AND d.objid::regproc::text <> 'docmodel._migration_fn_name'}),
	'0', 'the pin is not a member of the extension');
like($node->safe_psql('postgres', 'SELECT pg_catalog.pg_get_functiondef(p.oid) FROM pg_proc p '
		. q{WHERE p.proname LIKE '\_migration\_fn\_%' AND p.pronargs = 1}),
	qr/SELECT (public\.)?up\(doc\) AS up/, 'its body calls the function');
$node->safe_psql('postgres', q{
	ALTER FUNCTION public.up(jsonb) RENAME TO up_old;
	CREATE FUNCTION public.up(d jsonb) RETURNS jsonb LANGUAGE sql
		AS $$ SELECT d || '{"up": "impostor"}' $$;
});
is($node->safe_psql('postgres', q{SELECT docmodel.migrate('{"_type": "user", "_schema": "1"}')->>'up'}),
	'registered', 'the rule calls its function by OID');
($r2, $o2, $e2) = $node->psql('postgres', q{SELECT docmodel.migrate('{"_type": "order", "_schema": "1"}')});
like($e2, qr/migration function public\.gone\(jsonb\) does not exist/, 'the unpinned rule fails');
$node->safe_psql('postgres', q{CREATE FUNCTION public.gone(d jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT d $$});
($r2, $o2, $e2) = $node->psql('postgres', q{SELECT docmodel.migrate('{"_type": "order", "_schema": "1"}')});
like($e2, qr/migration function public\.gone\(jsonb\) does not exist/,
	'and calls no function that takes the name later');
$node->stop;
done_testing();
