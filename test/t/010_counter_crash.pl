# Counters never hand out a value twice across crashes: many increments, immediate
# shutdowns (also after a checkpoint, after other WAL on the counter's page, in an open
# transaction, across a crash followed by a clean restart, and in a crash restart of the
# running postmaster); the next value is always greater than every value returned before.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('counter_crash');
$node->init;
$node->append_conf('postgresql.conf', "restart_after_crash = on\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION docmodel');
$node->safe_psql('postgres',
	"SELECT docmodel.counter_create('crash::g', 0, gapless => true)");

# Run $n increments of each counter; return the largest value each returned.
sub burst
{
	my ($n) = @_;
	my $out = $node->safe_psql('postgres', qq{
		SELECT max(docmodel.next_id('cuser')), max(docmodel.next_id('cuser', 'foo.org')),
		       max(docmodel.incr('crash::big', 7, 0))
		  FROM generate_series(1, $n)});
	return split /\|/, $out;
}

# Check that each counter's next value is above what was handed out.
sub check_above
{
	my ($what, @max) = @_;
	my ($a, $b, $c) = burst(1);
	cmp_ok($a, '>', $max[0], "$what: next_id('cuser') $a > $max[0]");
	cmp_ok($b, '>', $max[1], "$what: per-parent counter $b > $max[1]");
	cmp_ok($c, '>', $max[2], "$what: incr by 7 $c > $max[2]");
	return ($a, $b, $c);
}

# 1. Plain: many increments, immediate shutdown.
my @max = burst(5000);
$node->stop('immediate');
$node->start;
@max = check_above('after immediate shutdown', @max);

# 2. A checkpoint, then increments that write no WAL of their own, then other WAL on the
# counters' page (new counters inserted next to them, a full-page image after the
# checkpoint), then more increments: the replayed page holds an older value.
@max = burst(100);
$node->safe_psql('postgres', 'CHECKPOINT');
@max = burst(3);
$node->safe_psql('postgres',
	"SELECT docmodel.counter_create('crash::filler' || g) FROM generate_series(1, 20) g");
@max = burst(5);
$node->stop('immediate');
$node->start;
@max = check_above('after checkpoint, page WAL by others, immediate shutdown', @max);

# 2b. VACUUM FULL rewrites counter_state (new relfilenode): increments go on from the
# rewritten rows, and a crash after it still continues above every value handed out.
@max = burst(50);
$node->safe_psql('postgres', 'VACUUM FULL docmodel.counter_state');
@max = burst(50);
$node->stop('immediate');
$node->start;
@max = check_above('after VACUUM FULL, immediate shutdown', @max);

# 3. A value handed out inside a transaction that is still open at the crash.
my $bg = $node->background_psql('postgres');
$bg->query_safe('BEGIN');
my $open = $bg->query_safe("SELECT docmodel.next_id('cuser')");
$max[0] = $open;
$node->stop('immediate');
$bg->quit;
$node->start;
@max = check_above('after a crash with an open transaction', @max);

# 4. A crash, a restart that does not touch the counters, a clean restart: the clean
# restart must still know the counters' rows came out of a crash.
@max = burst(200);
$node->stop('immediate');
$node->start;
$node->stop('fast');
$node->start;
@max = check_above('after crash, untouched, clean restart', @max);

# 5. A crash restart of the running postmaster (a backend killed): same start time.
@max = burst(300);
$bg = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $bg->query_safe('SELECT pg_backend_pid()');
kill 'KILL', $pid;
$bg->quit;
$node->poll_query_until('postgres', 'SELECT true') or die 'server did not restart';
@max = check_above('after a crash restart of the postmaster', @max);

# 6. Gapless counters are transactional: committed values survive exactly.
$node->safe_psql('postgres',
	"SELECT docmodel.incr('crash::g') FROM generate_series(1, 10)");
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', "SELECT docmodel.incr('crash::g')"),
	'11', 'gapless counter continues at the last committed value + 1');

$node->stop;
done_testing();
