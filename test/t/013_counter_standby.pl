# Counters on a streaming standby: reads there report an upper bound of what the primary
# handed out, increments are refused, and after promotion the new primary continues above
# every value the old primary handed out (whose WAL reached it).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('counter_primary');
$primary->init(allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION docmodel');
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('counter_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

my $max = $primary->safe_psql('postgres',
	"SELECT max(docmodel.next_id('suser')) FROM generate_series(1, 1000)");
$primary->wait_for_catchup($standby);

my $seen = $standby->safe_psql('postgres', "SELECT docmodel.counter_value('count::suser')");
cmp_ok($seen, '>=', $max, "standby reads an upper bound ($seen >= $max)");
my ($rc, $out, $err) =
  $standby->psql('postgres', "SELECT docmodel.next_id('suser')");
like($err, qr/cannot execute docmodel\.next_id\(\) (during recovery|in a read-only transaction)/,
	'no increments on a standby');

# The primary hands out a few more (logged ahead, streamed), then dies.
$max = $primary->safe_psql('postgres',
	"SELECT max(docmodel.next_id('suser')) FROM generate_series(1, 5)");
$primary->wait_for_catchup($standby);
$primary->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'standby was not promoted';
my $next = $standby->safe_psql('postgres', "SELECT docmodel.next_id('suser')");
cmp_ok($next, '>', $max, "promoted standby continues above the old primary ($next > $max)");

$standby->stop;
done_testing();
