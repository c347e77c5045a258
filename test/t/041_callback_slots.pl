# docmodel takes one relcache callback slot of the ten PostgreSQL gives all
# libraries of a backend together: with a library that leaves just one free
# (as Citus and others may), a session still uses every docmodel cache (the
# collection trigger and its configuration, key-value plans, revisions,
# migrations, counters) instead of ending with FATAL "out of
# relcache_callback_list slots".
use strict;
use warnings;
use Cwd qw(abs_path);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# A library that registers $n relcache callbacks when it is loaded.
sub build_hog
{
	my ($dir, $n) = @_;
	my $src = "$dir/relcache_hog_$n.c";
	open(my $fh, '>', $src) or die "$src: $!";
	print $fh <<"EOC";
#include "postgres.h"
#include "fmgr.h"
#include "utils/inval.h"
PG_MODULE_MAGIC;
void _PG_init(void);
static void Hog(Datum arg, Oid relid) {}
void _PG_init(void)
{
	for (int i = 0; i < $n; i++)
		CacheRegisterRelcacheCallback(Hog, (Datum) 0);
}
EOC
	close($fh);
	my $inc = `pg_config --includedir-server`;
	chomp $inc;
	system('cc', '-shared', '-fPIC', '-O0', "-I$inc", '-o',
		"$dir/relcache_hog_$n.so", $src) == 0
	  or die "cannot build $src";
	return "$dir/relcache_hog_$n";
}

# Every docmodel cache, in one session.
my $workload = q{
	SELECT docmodel.create_collection('slots', revisions => 2);
	SELECT docmodel.register_migration('user', '1', '2', '[{"op": "add", "path": "/b", "value": 1}]');
	SELECT docmodel.insert('slots', 'user::1', '{"_schema": "1", "a": 1}');
	SELECT docmodel.upsert('slots', 'user::1', '{"_schema": "1", "a": 2}');
	SELECT docmodel.get('slots', 'user::1') ->> 'b';
	SELECT count(*) FROM docmodel.revisions('slots', 'user::1');
	SELECT docmodel.next_id('user');
	SELECT docmodel.migrate('{"_type": "user", "_schema": "1"}') ->> 'b';
	SELECT 'all caches used';
};

# What core does in the workload (plans, sorts, PL/pgSQL, SPI, triggers),
# without docmodel: core caches that take a slot lazily take it here.
my $warmup = q{
	CREATE TEMP TABLE warm (id text PRIMARY KEY, doc jsonb);
	CREATE FUNCTION pg_temp.warm_trg() RETURNS trigger LANGUAGE plpgsql
		AS $$ BEGIN RETURN NEW; END $$;
	CREATE TRIGGER warm BEFORE INSERT OR UPDATE ON warm
		FOR EACH ROW EXECUTE FUNCTION pg_temp.warm_trg();
	DO $$ DECLARE r record; BEGIN
		INSERT INTO warm VALUES ('a', '{"a": 1}') ON CONFLICT (id) DO UPDATE SET doc = excluded.doc;
		UPDATE warm SET doc = doc || '{"b": 2}';
		SELECT n.nspname, c.relname INTO r FROM pg_class c
			JOIN pg_namespace n ON n.oid = c.relnamespace ORDER BY 1, 2 LIMIT 1;
		PERFORM * FROM unnest(ARRAY['a']) WITH ORDINALITY AS k(key, n)
			JOIN warm w ON w.id = k.key ORDER BY k.n;
		DELETE FROM warm;
	END $$;
	SELECT ROW(1, 'a') = ROW(1, 'a');
};

my $node = PostgreSQL::Test::Cluster->new('slots');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION docmodel');

# How many slots are free: the largest hog with which a session can still
# do the core work above and load docmodel (which registers its one
# relcache callback when it is loaded).
# (absolute: the server loads it from its own directory; 17's tempdir may be relative)
my $dir = abs_path(PostgreSQL::Test::Utils::tempdir);
my $survived;
for my $n (reverse 1 .. 9)
{
	my $lib = build_hog($dir, $n);
	my ($ret, $out, $err) = $node->psql('postgres',
		"LOAD '$lib'; $warmup LOAD 'docmodel';");
	if ($ret == 0)
	{
		$survived = $n;
		last;
	}
}
ok(defined $survived, "a library taking $survived slots leaves room for docmodel");

# With the largest hog that leaves room for docmodel, everything works:
# docmodel needed one slot, not one per cache.
my $lib = build_hog($dir, $survived);
$node->append_conf('postgresql.conf', "session_preload_libraries = '$lib'");
$node->reload;
my ($ret, $out, $err) = $node->psql('postgres', $warmup . $workload);
is($ret, 0, "every docmodel cache used with $survived slots taken by another library")
  or diag($err);
like($out, qr/all caches used/, 'the workload ran to its end');
unlike($err, qr/relcache_callback_list/, 'no FATAL for callback slots');
$node->stop;
done_testing();
