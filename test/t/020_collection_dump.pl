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

my $dump = $node->basedir . '/dump.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('postgres'), '-f', $dump ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-q', '-d',
		$node->connstr('restored'), '-f', $dump ], 'restore');

is($node->safe_psql('restored',
		q{SELECT collection || ' ' || doc_type || ' ' || meta_style FROM docmodel.collections}),
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
$node->stop;
done_testing();
