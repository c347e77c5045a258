# What differs between PostgreSQL majors where it touches docmodel, checked on the major under
# test (make test PG=N runs it on each):
# - mutate_in's direct update (kv.c) gives the executor the columns it updates (from 16 in an
#   RTEPermissionInfo, before in the range table entry): a BEFORE UPDATE OF doc trigger fires
#   and one OF id does not, as for the UPDATE statement it stands for; a CHECK failure reports
#   the row as the statement's does.
# - MAINTAIN (17): a role holding it and every other privilege on a collection is still refused
#   docmodel's owner-only operations (42501), while it may VACUUM and ANALYZE the table.
# - Generated columns: virtual ones (18, the default kind there), stored ones on every major,
#   on a collection and on its history table, through the KV API, revisions and mutate_in.
# - OLD and NEW in RETURNING (18): an UPDATE of a collection returns the document before and
#   after the collection trigger stamped it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('majors');
$node->init;
$node->start;
my $major = int($node->safe_psql('postgres', 'SHOW server_version_num') / 10000);
note("PostgreSQL $major");
$node->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	SELECT docmodel.create_collection('cols', revisions => 3);
	SELECT docmodel.insert('cols', 'user::1', '{"name": "Ann", "n": 1}');
	CREATE FUNCTION note_trg() RETURNS trigger LANGUAGE plpgsql
		AS $$ BEGIN RAISE NOTICE '% fired', TG_NAME; RETURN NEW; END $$;
	CREATE TRIGGER a_on_doc BEFORE UPDATE OF doc ON cols FOR EACH ROW EXECUTE FUNCTION note_trg();
	CREATE TRIGGER a_on_id BEFORE UPDATE OF id ON cols FOR EACH ROW EXECUTE FUNCTION note_trg();
});

# Column triggers: the statement and the direct update alike.
my ($ret, $out, $err) = $node->psql('postgres', q{
	SELECT docmodel.mutate_in('cols', 'user::1', '[{"op": "upsert", "path": "n", "value": 2}]') IS NOT NULL;
});
is($ret, 0, 'mutate_in with column triggers') or diag($err);
like($err, qr/a_on_doc fired/, 'mutate_in: BEFORE UPDATE OF doc fired');
unlike($err, qr/a_on_id fired/, 'mutate_in: BEFORE UPDATE OF id did not');
($ret, $out, $err) = $node->psql('postgres', q{UPDATE cols SET doc = doc || '{"n": 3}' WHERE id = 'user::1'});
like($err, qr/a_on_doc fired/, 'UPDATE SET doc: BEFORE UPDATE OF doc fired');
unlike($err, qr/a_on_id fired/, 'UPDATE SET doc: BEFORE UPDATE OF id did not');
is($node->safe_psql('postgres', q{SELECT docmodel.get('cols', 'user::1') ->> 'n'}), '3', 'both changes kept');

# A CHECK constraint: the direct update's error is the statement's, row included.
$node->safe_psql('postgres', q{
	DROP TRIGGER a_on_doc ON cols; DROP TRIGGER a_on_id ON cols;
	ALTER TABLE cols ADD CONSTRAINT small CHECK ((doc ->> 'n')::int < 10);
});
($ret, $out, $err) = $node->psql('postgres', q{
	SELECT docmodel.mutate_in('cols', 'user::1', '[{"op": "upsert", "path": "n", "value": 11}]');
});
like($err, qr/violates check constraint "small".*\n.*DETAIL:  Failing row contains \(user::1, /,
	'mutate_in: CHECK violation names the constraint and the row');
$node->safe_psql('postgres', q{ALTER TABLE cols DROP CONSTRAINT small});

# MAINTAIN (17) and every other privilege: still not the owner's operations.
my $maintain = $major >= 17 ? ', MAINTAIN' : '';
$node->safe_psql('postgres', qq{
	CREATE ROLE keeper;
	GRANT USAGE ON SCHEMA docmodel TO keeper;
	GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER$maintain ON cols TO keeper;
});
for my $call ("docmodel.set_revisions('cols', 1)", "docmodel.drop_collection('cols')")
{
	($ret, $out, $err) = $node->psql('postgres', qq{
		SET ROLE keeper;
		\\set VERBOSITY verbose
		SELECT $call;
	});
	like($err, qr/ERROR:  42501: must be owner of table cols/,
		"$call refused with every privilege" . ($maintain ? ' and MAINTAIN' : ''));
}
if ($major >= 17)
{
	($ret, $out, $err) = $node->psql('postgres', q{SET ROLE keeper; VACUUM (ANALYZE) cols;});
	unlike($err, qr/permission denied|skipping/, 'MAINTAIN: the keeper vacuums and analyzes the collection');
}
is($node->safe_psql('postgres', q{SELECT revisions FROM docmodel.collections WHERE collection = 'cols'::regclass}),
	'3', 'the configuration is unchanged');

# Generated columns on the collection and its history table: virtual on 18, stored on all.
my @kinds = ('STORED');
push @kinds, 'VIRTUAL' if $major >= 18;
for my $kind (@kinds)
{
	my $c = lc "gen_$kind";
	$node->safe_psql('postgres', qq{SELECT docmodel.create_collection('$c', revisions => 2)});
	my $hist = $node->safe_psql('postgres', qq{
		SELECT revisions_table FROM docmodel.collections WHERE collection = '$c'::regclass});
	$node->safe_psql('postgres', qq{
		ALTER TABLE $c ADD COLUMN name text GENERATED ALWAYS AS (doc ->> 'name') $kind;
		ALTER TABLE $hist ADD COLUMN doc_ver text GENERATED ALWAYS AS (doc ->> '_ver') $kind;
	});
	($ret, $out, $err) = $node->psql('postgres', qq{
		SELECT docmodel.insert('$c', 'user::1', '{"name": "Ann"}') IS NOT NULL;
		SELECT docmodel.upsert('$c', 'user::1', '{"name": "Bob"}') IS NOT NULL;
		SELECT docmodel.mutate_in('$c', 'user::1', '[{"op": "upsert", "path": "name", "value": "Cy"}]') IS NOT NULL;
		SELECT name FROM $c;
		SELECT string_agg(doc_ver, ',' ORDER BY doc_ver) FROM $hist;
	});
	is($ret, 0, "$kind generated columns: the KV API writes") or diag($err);
	is($out, "t\nt\nt\nCy\n1,2", "$kind: the collection's column follows the document, the history's its versions");
}

# OLD and NEW in RETURNING (18): before and after the collection trigger's stamps.
if ($major >= 18)
{
	is($node->safe_psql('postgres', q{
		UPDATE gen_virtual SET doc = doc || '{"name": "Di"}' WHERE id = 'user::1'
		RETURNING old.doc ->> '_ver', new.doc ->> '_ver', old.name, new.name}),
		'3|4|Cy|Di', 'UPDATE RETURNING old and new: the stamped version and the virtual column');
}
$node->stop;
done_testing();
