# CREATE EXTENSION refuses a schema docmodel that someone else made or may
# fill (the CVE-2022-2625 class of problem): its owner could plant objects
# that every role then runs, such as a docmodel.key(text, integer), which
# resolves before the variadic docmodel.key("any"). An empty schema of the
# installing role, which is what pg_dump writes before CREATE EXTENSION, is
# accepted.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('install_schema');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE ROLE mallory LOGIN;
	CREATE SCHEMA docmodel AUTHORIZATION mallory;
	SET ROLE mallory;
	CREATE FUNCTION docmodel.key(a text, b integer) RETURNS text
		LANGUAGE sql AS $$ SELECT 'planted' $$;
});

my ($ret, $out, $err) = $node->psql('postgres', 'CREATE EXTENSION docmodel');
isnt($ret, 0, 'schema of another role holding a planted function: refused');
like($err, qr/ERROR:  cannot install docmodel into the existing schema "docmodel"/,
	'the error names the schema');
like($err, qr/DETAIL:  The schema is owned by role "mallory", which is neither the installing role nor a superuser/,
	'the detail names its owner');
like($err, qr/HINT:  Drop or rename that schema/, 'the hint says what to do');

$node->safe_psql('postgres', 'DROP FUNCTION docmodel.key(text, integer)');
($ret, $out, $err) = $node->psql('postgres', 'CREATE EXTENSION docmodel');
like($err, qr/owned by role "mallory"/, 'an empty schema of another role: refused');

$node->safe_psql('postgres', q{
	ALTER SCHEMA docmodel OWNER TO CURRENT_USER;
	CREATE FUNCTION docmodel.key(a text, b integer) RETURNS text
		LANGUAGE sql AS $$ SELECT 'planted' $$;
});
($ret, $out, $err) = $node->psql('postgres', 'CREATE EXTENSION docmodel');
like($err, qr/DETAIL:  The schema already holds function (docmodel\.)?key\(text,integer\)/,
	'a schema of the installing role that holds objects: refused');

$node->safe_psql('postgres', q{
	DROP FUNCTION docmodel.key(text, integer);
	GRANT CREATE ON SCHEMA docmodel TO mallory;
});
($ret, $out, $err) = $node->psql('postgres', 'CREATE EXTENSION docmodel');
like($err, qr/DETAIL:  Roles other than its owner may create objects in it/,
	'a schema another role may create in: refused');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_extension WHERE extname = 'docmodel'}),
	'0', 'nothing installed by the refused attempts');

$node->safe_psql('postgres', 'REVOKE CREATE ON SCHEMA docmodel FROM mallory');
$node->safe_psql('postgres', 'CREATE EXTENSION docmodel');
is($node->safe_psql('postgres', q{SELECT docmodel.key('user', 1)}), 'user::1',
	'an empty schema of the installing role (as pg_dump writes it): installed');

# Without a schema, CREATE EXTENSION makes its own.
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION docmodel');
is($node->safe_psql('fresh', q{SELECT nspowner::regrole FROM pg_namespace WHERE nspname = 'docmodel'}),
	$node->safe_psql('fresh', 'SELECT current_user'), 'fresh install owns its schema');
$node->stop;
done_testing();
