# A collection with meta_style 'columns' on a logical replica. Its created_by
# and modified_by columns hold ids of docmodel.writers, which are each
# database's own: a publication that carries the collection carries
# docmodel.writers too, and the subscriber shows the publisher's names. After
# a switchover the former subscriber records new names past the ids it
# received (sequences are not replicated), instead of failing on a used id.
# Without docmodel.writers in the publication the subscriber cannot name the
# writers (the documented reason to publish it).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pub = PostgreSQL::Test::Cluster->new('publisher');
$pub->init(allows_streaming => 'logical');
$pub->start;
my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->start;

my $writers = q{SELECT string_agg(format('%s %s/%s', id, doc->>'_createdBy', doc->>'_modifiedBy'), ', ' ORDER BY id)
	FROM notes_documents};

$pub->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	SELECT docmodel.create_collection('notes', meta_style => 'columns');
	SET docmodel.actor = 'alice';
	INSERT INTO notes (id, doc) VALUES ('note::1', '{"n": 1}');
	SET docmodel.actor = 'bob';
	INSERT INTO notes (id, doc) VALUES ('note::2', '{"n": 2}');
	CREATE PUBLICATION notes_pub FOR TABLE notes, docmodel.writers;
	CREATE PUBLICATION bare_pub FOR TABLE notes;
});
$sub->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	SELECT docmodel.create_collection('notes', meta_style => 'columns');
	CREATE DATABASE bare;
});
$sub->safe_psql('bare', q{
	CREATE EXTENSION docmodel;
	SELECT docmodel.create_collection('notes', meta_style => 'columns');
	-- a writer of its own, whose id the publisher's rows use for another
	SET docmodel.actor = 'zoe';
	INSERT INTO notes (id, doc) VALUES ('local::1', '{}');
});
my $conn = $pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION notes_sub CONNECTION '$conn' PUBLICATION notes_pub");
$sub->safe_psql('bare', "CREATE SUBSCRIPTION bare_sub CONNECTION '$conn' PUBLICATION bare_pub");
$sub->wait_for_subscription_sync($pub, 'notes_sub');
$sub->wait_for_subscription_sync($pub, 'bare_sub');

$pub->safe_psql('postgres', q{
	SET docmodel.actor = 'carol';
	UPDATE notes SET doc = '{"n": 10}' WHERE id = 'note::1';
	INSERT INTO notes (id, doc) VALUES ('note::3', '{"n": 3}');
});
$pub->wait_for_catchup('notes_sub');
$pub->wait_for_catchup('bare_sub');
my $on_pub = $pub->safe_psql('postgres', $writers);
is($on_pub, 'note::1 alice/carol, note::2 bob/bob, note::3 carol/carol', 'publisher');
is($sub->safe_psql('postgres', $writers), $on_pub, 'subscriber of notes and docmodel.writers: the same names');
is($sub->safe_psql('postgres', q{SELECT string_agg(docmodel.get('notes', id)::text, ' ' ORDER BY id) FROM notes}),
	$pub->safe_psql('postgres', q{SELECT string_agg(docmodel.get('notes', id)::text, ' ' ORDER BY id) FROM notes}),
	'get gives the same documents');
isnt($sub->safe_psql('bare', q{SELECT string_agg(format('%s %s', id, doc->>'_createdBy'), ', ' ORDER BY id)
	FROM notes_documents WHERE id LIKE 'note::%'}), 'note::1 alice, note::2 bob, note::3 carol',
	'subscriber of notes alone: the publisher\'s writer ids name nobody or somebody else');

# Switchover: the subscriber stops and writes itself, as a name it has not seen.
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION notes_sub');
$sub->safe_psql('postgres', q{
	SET docmodel.actor = 'dave';
	INSERT INTO notes (id, doc) VALUES ('note::4', '{"n": 4}');
	SET docmodel.actor = 'alice';
	UPDATE notes SET doc = '{"n": 20}' WHERE id = 'note::2';
});
is($sub->safe_psql('postgres', $writers),
	'note::1 alice/carol, note::2 bob/alice, note::3 carol/carol, note::4 dave/dave',
	'after the switchover a new name is recorded and the received ones are kept');
is($sub->safe_psql('postgres', q{SELECT count(*) = count(DISTINCT id) AND count(*) = 4 FROM docmodel.writers}),
	't', 'four names, four ids');

$sub->safe_psql('bare', 'DROP SUBSCRIPTION bare_sub');
$sub->stop;
$pub->stop;
done_testing();
