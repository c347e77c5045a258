# A collection survives pg_dump and restore: its configuration (an extension
# config table) and the trigger argument naming it come back together, and
# the restored trigger stamps as before.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('collection_dump');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	SELECT docmodel.create_collection('filler');
	SELECT docmodel.drop_collection('filler');
	SELECT docmodel.create_collection('profiles', doc_type => 'user', meta_style => 'plain');
	SELECT docmodel.insert('profiles', 'user::1', '{"name": "Ann"}');
});
# A collection with its stamps in columns, written by two names: the names
# come back with their ids, and a new name after the restore gets a new id.
$node->safe_psql('postgres', q{
	SELECT docmodel.create_collection('stamped', meta_style => 'columns');
	SET docmodel.actor = 'writer one';
	INSERT INTO stamped (id, doc) VALUES ('note::1', '{}');
	SET docmodel.actor = 'writer two';
	INSERT INTO stamped (id, doc) VALUES ('note::2', '{}');
});

# History in the states the integrity tests reach: collections whose names fill
# NAMEDATALEN (their history tables cut and numbered), a history table with
# columns and constraints of its own, a document at the last version, a key
# deleted and inserted again, and the history a plain DROP TABLE left behind.
my $long1 = 'l' x 60 . 'one';
my $long2 = 'l' x 60 . 'two';
$node->safe_psql('postgres', qq{
	SELECT docmodel.create_collection('$long1', revisions => 2);
	SELECT docmodel.create_collection('$long2', revisions => 2);
	SELECT docmodel.insert('$long1', 'user::1', '{"n": 1}');
	SELECT docmodel.replace('$long1', 'user::1', '{"n": 2}');
	SELECT docmodel.insert('$long2', 'user::1', '{"n": 1}');
	SELECT docmodel.remove('$long2', 'user::1');
	SELECT docmodel.insert('$long2', 'user::1', '{"n": 3}');
	SELECT docmodel.create_collection('ledger', revisions => 3);
	ALTER TABLE ledger_revisions ADD COLUMN tenant text NOT NULL DEFAULT 'acme',
		ADD COLUMN serial bigint GENERATED ALWAYS AS IDENTITY,
		ADD COLUMN op_len integer GENERATED ALWAYS AS (length(op)) STORED,
		ADD CONSTRAINT ledger_op CHECK (op IN ('update', 'delete', 'expire', 'truncate'));
	SELECT docmodel.insert('ledger', 'entry::1', '{"n": 1}');
	SELECT docmodel.replace('ledger', 'entry::1', '{"n": 2}');
	SELECT docmodel.insert('ledger', 'entry::2', '{"n": 1}');
	SELECT docmodel.remove('ledger', 'entry::2');
	SELECT docmodel.insert('ledger', 'entry::3', '{"n": 1}');
	ALTER TABLE ledger DISABLE TRIGGER docmodel_collection;
	UPDATE ledger SET doc = doc || '{"_ver": 2147483647}' WHERE id = 'entry::3';
	ALTER TABLE ledger ENABLE TRIGGER docmodel_collection;
	SELECT docmodel.create_collection('gone', revisions => 2);
	SELECT docmodel.insert('gone', 'user::1', '{}');
	SELECT docmodel.remove('gone', 'user::1');
	DROP TABLE gone;
});
my $history_query = q{
	SELECT string_agg(format('%s %s %s', r.ver, r.op, r.doc->'n'), ', ' ORDER BY c.collection::text, r.ver)
	FROM docmodel.collections AS c, LATERAL docmodel.revisions(c.collection, 'user::1') AS r
	WHERE c.collection::text LIKE 'lll%'};
my $ledger_query = q{SELECT string_agg(format('%s %s %s %s %s', id, ver, op, tenant, op_len), ', ' ORDER BY serial) FROM ledger_revisions};
my $history_before = $node->safe_psql('postgres', $history_query);
my $ledger_before = $node->safe_psql('postgres', $ledger_query);
is($ledger_before, 'entry::1 1 update acme 6, entry::2 1 delete acme 6, entry::3 1 update acme 6',
	'history rows carry the defaults of added columns');

my $dump = $node->basedir . '/dump.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('postgres'), '-f', $dump ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-q', '-d',
		$node->connstr('restored'), '-f', $dump ], 'restore');

is($node->safe_psql('restored',
		q{SELECT collection || ' ' || doc_type || ' ' || meta_style FROM docmodel.collections
		  WHERE collection = 'profiles'::regclass}),
	'profiles user plain', 'configuration restored');
is($node->safe_psql('restored',
		q{SELECT doc->>'name' || ' ' || (doc->>'ver') FROM profiles}),
	'Ann 1', 'documents restored unchanged');
$node->safe_psql('restored', q{
	UPDATE profiles SET doc = doc || '{"name": "Bo"}';
	SELECT docmodel.insert('profiles', 'user::2', '{}');
});
is($node->safe_psql('restored',
		q{SELECT string_agg(id || ' ' || (doc->>'ver') || ' ' || (doc->>'type'), ', ' ORDER BY id) FROM profiles}),
	'user::1 2 user, user::2 1 user', 'restored trigger stamps');
my ($ret, $out, $err) = $node->psql('restored',
	q{INSERT INTO profiles VALUES ('order::1', '{}')});
like($err, qr/does not match collection type "user"/, 'restored doc_type is enforced');

$node->safe_psql('restored', q{
	SET docmodel.actor = 'writer three';
	INSERT INTO stamped (id, doc) VALUES ('note::3', '{}');
	SET docmodel.actor = 'writer one';
	UPDATE stamped SET doc = '{"n": 2}' WHERE id = 'note::2';
});
is($node->safe_psql('restored',
		q{SELECT string_agg(format('%s %s/%s', id, doc->>'_createdBy', doc->>'_modifiedBy'), ', ' ORDER BY id)
		  FROM stamped_documents}),
	'note::1 writer one/writer one, note::2 writer two/writer one, note::3 writer three/writer three',
	'writer names restored; a new one after the restore is recorded');

# The history states come back as they were, and work on.
is($node->safe_psql('restored', $history_query), $history_before, 'history of long-named collections restored');
is($node->safe_psql('restored', $ledger_query), $ledger_before, 'history with added columns restored');
is($node->safe_psql('restored', q{
	SELECT string_agg(h.relname, ' ' ORDER BY h.relname) FROM docmodel.collections AS c
	JOIN pg_class AS h ON h.oid = c.revisions_table WHERE c.collection::text LIKE 'lll%'}),
	'l' x 52 . '_revisions1 ' . 'l' x 53 . '_revisions', 'configuration names the cut history tables');
$node->safe_psql('restored', qq{
	SELECT docmodel.replace('$long2', 'user::1', '{"n": 4}');
	SELECT docmodel.replace('ledger', 'entry::1', '{"n": 3}');
	SELECT docmodel.insert('ledger', 'entry::2', '{"n": 5}');
});
is($node->safe_psql('restored', q{SELECT string_agg(id || ' ' || (doc->>'_ver'), ', ' ORDER BY id) FROM ledger}),
	'entry::1 3, entry::2 2, entry::3 2147483647', 'numbering continues after restore');
($ret, $out, $err) = $node->psql('restored', q{SELECT docmodel.replace('ledger', 'entry::3', '{"n": 2}')});
like($err, qr/document "entry::3" has no version after 2147483647/, 'the last version stays the last');

# The same database through pg_dump's custom format and pg_restore.
my $archive = $node->basedir . '/dump.custom';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('restored'), '-f', $archive ], 'pg_dump -Fc');
$node->safe_psql('postgres', 'CREATE DATABASE restored2');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored2'), $archive ],
	'pg_restore');
is($node->safe_psql('restored2', $ledger_query), $node->safe_psql('restored', $ledger_query),
	'pg_restore keeps history with added columns');
$node->stop;
done_testing();
