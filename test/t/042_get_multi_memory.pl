# get_multi's backend memory does not grow with its result: N documents of
# about 2 KB, every one needing a migration step, read by get_multi peak
# within 2x the backend memory of the plain SELECT of the same rows (issue
# 18, finding 9: 0.1.0 kept the whole SPI result and every migrated copy).
#
# Peak memory is the backend's VmHWM (/proc/self/status) after resetting it
# (/proc/self/clear_refs) just before the statement, in a fresh backend
# warmed by a small call of the same kind; shared_buffers is kept small so
# pages of the table mapped from shared memory count little.
# DOCMODEL_MEM_DOCS sets N (default 50000; the figure doc/collections.md gives is 100000).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $ndocs = $ENV{DOCMODEL_MEM_DOCS} || 50000;

my $node = PostgreSQL::Test::Cluster->new('get_multi_memory');
$node->init;
$node->append_conf('postgresql.conf', "shared_buffers = 16MB\n");
$node->start;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION docmodel;
	SELECT docmodel.create_collection('mem_users');
	-- 2 KB of hex that does not compress, at schema 1 of 2
	INSERT INTO mem_users (id, doc)
	SELECT 'user::' || i,
		jsonb_build_object('_schema', '1', 'n', i,
			'pad', (SELECT string_agg(md5(i::text || '/' || j), '') FROM generate_series(1, 62) j))
	FROM generate_series(1, $ndocs) i;
	-- one expired document and one asked twice: get_multi's semantics hold
	UPDATE mem_users SET expires_at = now() - interval '1 minute' WHERE id = 'user::2';
	VACUUM ANALYZE mem_users;
});

# The keys asked: every document in order, user::1 a second time at the end.
my $keys = "ARRAY(SELECT 'user::' || i FROM generate_series(1, $ndocs) i) || '{user::1}'::text[]";

# Run sql in a fresh backend after a warm-up call, its rows sent to the
# client; return the backend's peak memory in kB.
sub peak_kb
{
	my ($warm, $sql) = @_;
	my $out = $node->safe_psql('postgres', qq{
\\o /dev/null
$warm;
COPY (SELECT 5) TO '/proc/self/clear_refs';
$sql;
\\o
SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\\s*(\\d+) kB');
});
	return $out + 0;
}

my $plain_sql = "SELECT doc FROM mem_users WHERE id = ANY ($keys)";
my $plain = peak_kb("SELECT doc FROM mem_users WHERE id = ANY ('{user::1}')", $plain_sql);
# get_multi's own query (order asked, duplicates) written as plain SQL
my $join = peak_kb("SELECT doc FROM mem_users WHERE id = ANY ('{user::1}')",
	"SELECT k.key, c.doc, c.cas FROM unnest($keys) WITH ORDINALITY AS k(key, n) "
	  . "JOIN mem_users AS c ON c.id = k.key WHERE (c.expires_at IS NULL OR c.expires_at > now()) "
	  . "ORDER BY k.n");
my $current = peak_kb("SELECT * FROM docmodel.get_multi('mem_users', '{user::1}')",
	"SELECT * FROM docmodel.get_multi('mem_users', $keys)");

$node->safe_psql('postgres', q{
	SELECT docmodel.register_migration('user', '1', '2',
		steps => '[{"op": "add", "path": "/migrated", "value": true}]');
});
my $migrated = peak_kb("SELECT * FROM docmodel.get_multi('mem_users', '{user::1}')",
	"SELECT * FROM docmodel.get_multi('mem_users', $keys)");

diag(sprintf("get_multi of %d documents of 2 KB, backend peak (VmHWM): "
	  . "plain SELECT %.0f MB, its query as SQL %.0f MB, get_multi %.0f MB, "
	  . "get_multi with a migration step %.0f MB",
	$ndocs, $plain / 1024, $join / 1024, $current / 1024, $migrated / 1024));
ok($plain > 0, 'VmHWM read');
cmp_ok($current, '<=', 2 * $plain, 'get_multi peaks within 2x the plain SELECT');
cmp_ok($migrated, '<=', 2 * $plain,
	'get_multi with a migration peaks within 2x the plain SELECT');

# The semantics kept: order asked, the duplicate twice, the expired absent,
# every document migrated.
is( $node->safe_psql('postgres', qq{
	SELECT count(*), count(*) FILTER (WHERE doc->>'migrated' = 'true'),
		string_agg(key, ',' ORDER BY ord) FILTER (WHERE ord <= 3 OR ord >= $ndocs - 1)
	FROM docmodel.get_multi('mem_users', $keys) WITH ORDINALITY AS g(key, doc, cas, ord)
}),
	"$ndocs|$ndocs|user::1,user::3,user::4,user::$ndocs,user::1",
	'get_multi keeps the order asked, duplicates, and leaves out the expired');

$node->stop;
done_testing();
