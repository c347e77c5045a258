# A migration rule's function stays pinned through pg_dump / pg_restore and
# pg_upgrade: the pin is an ordinary function docmodel creates in its schema
# (a SQL-standard body calling the rule's function), dumped after the function
# it calls; docmodel's tables hold no reg* column that pg_upgrade refuses.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $old = PostgreSQL::Test::Cluster->new('pin_old');
$old->init;
$old->start;
$old->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	CREATE SCHEMA app;
	CREATE FUNCTION app.up(d jsonb) RETURNS jsonb LANGUAGE sql
		AS $$ SELECT d || '{"up": "registered"}' $$;
	SELECT docmodel.register_migration('user', '1', '2', fn => 'app.up(jsonb)');
	SELECT docmodel.create_collection('users');
	INSERT INTO users VALUES ('user::1', '{"_schema": "1"}', 0);
});
is($old->safe_psql('postgres', q{SELECT doc->>'up' FROM users}), 'registered',
	'migrated on write by the pinned function');

# pg_dump -Fc and pg_restore into a new database
my $dump = $old->basedir . '/pin.dump';
$old->command_ok([ 'pg_dump', '-Fc', '-d', $old->connstr('postgres'), '-f', $dump ], 'pg_dump');
$old->safe_psql('postgres', 'CREATE DATABASE restored');
$old->command_ok([ 'pg_restore', '--exit-on-error', '-d', $old->connstr('restored'), $dump ],
	'pg_restore');

sub check_pinned
{
	my ($node, $db, $what) = @_;
	is($node->safe_psql($db, q{SELECT docmodel.migrate('{"_type": "user", "_schema": "1"}')->>'up'}),
		'registered', "$what: the rule calls its function");
	my ($ret, $out, $err) = $node->psql($db, 'DROP FUNCTION app.up(jsonb)');
	like($err, qr/cannot drop function app\.up\(jsonb\) because other objects depend on it/,
		"$what: the function cannot be dropped");
	$node->safe_psql($db, q{
		ALTER FUNCTION app.up(jsonb) RENAME TO up_old;
		CREATE FUNCTION app.up(d jsonb) RETURNS jsonb LANGUAGE sql
			AS $$ SELECT d || '{"up": "impostor"}' $$;
		INSERT INTO users VALUES ('user::2', '{"_schema": "1"}', 0);
	});
	is($node->safe_psql($db, q{SELECT doc->>'up' FROM users WHERE id = 'user::2'}),
		'registered', "$what: a function taking its name is not called");
	$node->safe_psql($db, q{
		DELETE FROM users WHERE id = 'user::2';
		DROP FUNCTION app.up(jsonb);
		ALTER FUNCTION app.up_old(jsonb) RENAME TO up;
	});
}
check_pinned($old, 'restored', 'pg_restore');

# pg_upgrade (same major version: it dumps the schema and moves the data)
$old->stop;
my $new = PostgreSQL::Test::Cluster->new('pin_new');
$new->init;
my $bindir = $old->config_data('--bindir');
command_ok([ 'pg_upgrade', '--no-sync', '-d', $old->data_dir, '-D', $new->data_dir,
		'-b', $bindir, '-B', $bindir, '-s', $new->host, '-p', $old->port, '-P', $new->port ],
	'pg_upgrade');
$new->start;
check_pinned($new, 'postgres', 'pg_upgrade');
$new->stop;
done_testing();
