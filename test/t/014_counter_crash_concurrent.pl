# Several clients at once, PostgreSQL's default durability (fsync and synchronous_commit on),
# an immediate shutdown in the middle: every value a client received before the crash stays
# handed out. Four psql clients run at the same time, each taking values from one shared
# counter (next_id, which reservations logged ahead serve), one shared incr by 7 and 50
# per-parent counters that the clients create and increment; in a second round each client
# also creates new per-parent counters, one per statement (the creating INSERT carries the
# first value). The values are recorded outside the server, from the clients' output. After
# each restart every counter's next value must be above every value any client received.
# The first round has no commits that would flush the WAL for the counters, and the WAL
# writer sleeps for 10 s, so a value returned before the WAL that covers it is flushed would
# be lost and show here.
#
# A counter created by a transaction that committed before the crash keeps its values; one
# created by a transaction still open at the crash vanishes with that transaction, and its
# values are handed out again (as for a sequence created and used in one open transaction).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('counter_crash_concurrent');
$node->init;
$node->append_conf('postgresql.conf',
	"fsync = on\nsynchronous_commit = on\nrestart_after_crash = on\n"
	  . "wal_writer_delay = '10s'\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION docmodel;
	SELECT docmodel.next_id('cc');
	SELECT docmodel.incr('cc::big', 7, 0);});

# One client's statements in a round: each prints "counter name|value". The shared
# per-parent counters are new in each round, so clients also race to create them.
my $nclients = 4;
my $iters = 20000;
my $dir = PostgreSQL::Test::Utils::tempdir;
sub write_scripts
{
	my ($round, $create) = @_;
	for my $c (1 .. $nclients)
	{
		open my $f, '>', "$dir/r${round}c$c.sql" or die $!;
		for my $i (1 .. $iters)
		{
			my $shared = "r${round}s" . ($i % 50);
			print $f "SELECT 'count::cc', docmodel.next_id('cc');\n";
			print $f "SELECT 'cc::big', docmodel.incr('cc::big', 7, 0);\n";
			print $f "SELECT 'count::$shared\::cc', docmodel.next_id('cc', '$shared');\n";
			print $f "SELECT 'count::r${round}c${c}p$i\::cc', "
			  . "docmodel.next_id('cc', 'r${round}c${c}p$i');\n"
			  if $create;
		}
		close $f;
	}
}

# Run the clients of a round at once, crash while they run; return what they received:
# the largest value per counter.
sub crash_round
{
	my ($round, $create, @sessions) = @_;
	my $per = $create ? 4 : 3;
	my (@h, @out, @err);
	write_scripts($round, $create);
	for my $c (1 .. $nclients)
	{
		$out[$c] = '';
		$err[$c] = '';
		$h[$c] = IPC::Run::start(
			[
				$node->installed_command('psql'), '-X', '-A', '-t', '-q',
				'-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
				'-f', "$dir/r${round}c$c.sql"
			],
			'>', \$out[$c], '2>', \$err[$c]);
	}
	my $from = $node->safe_psql('postgres',
		"SELECT docmodel.counter_value('count::cc')");
	$node->poll_query_until('postgres',
		"SELECT docmodel.counter_value('count::cc') > $from + 3000")
	  or die 'clients made no progress';
	$node->stop('immediate');
	eval { $h[$_]->finish; } for 1 .. $nclients;
	$_->quit for @sessions;

	my (%max, %seen);
	my ($n, $dups) = (0, 0);
	for my $c (1 .. $nclients)
	{
		my $lines = 0;
		for my $line (split /\n/, $out[$c])
		{
			next if $line eq '';
			my ($name, $v) = split /\|/, $line;
			die "unexpected client output: $line"
			  unless defined $v && $v =~ /^\d+$/;
			$max{$name} = $v if !defined $max{$name} || $v > $max{$name};
			$dups++ if $seen{"$name|$v"}++;
			$lines++;
		}
		cmp_ok($lines, '<', $per * $iters,
			"round $round: client $c was stopped by the crash");
		like($err[$c], qr/terminat|closed the connection|connection to server/,
			"round $round: client $c lost its connection");
		$n += $lines;
	}
	cmp_ok($n, '>', 3000,
		"round $round: the clients received $n values before the crash");
	is($dups, 0, "round $round: no value was handed out twice before the crash");
	$node->start;
	return %max;
}

# After a crash: every counter continues above every value any client received.
sub check_above
{
	my ($round, %max) = @_;
	my $list = join ', ', map { "('$_', $max{$_})" } sort keys %max;
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM (VALUES $list) v(name, got)
		 WHERE docmodel.incr(name, CASE WHEN name = 'cc::big' THEN 7 ELSE 1 END) <= got}),
		'0', "round $round: every counter continues above every value received ("
		  . scalar(keys %max) . ' counters)');
}

# 1. Existing and racing per-parent counters, no other WAL flushed by commits.
my %max = crash_round(1, 0);
check_above(1, %max);

# 2. The same while every client also creates per-parent counters, one per statement; a
# counter created by a transaction that commits before the crash, and one created by a
# transaction still open at the crash.
my $committed = $node->background_psql('postgres');
$committed->query_safe('BEGIN');
my $txc = $committed->query_safe(
	"SELECT max(docmodel.next_id('txc')) FROM generate_series(1, 10)");
$committed->query_safe('COMMIT');
is($txc, '10', 'counter created by a committed transaction handed out 1..10');
my $open = $node->background_psql('postgres');
$open->query_safe('BEGIN');
my $txo = $open->query_safe(
	"SELECT max(docmodel.next_id('txo')) FROM generate_series(1, 10)");
is($txo, '10', 'counter created by an open transaction handed out 1..10');

%max = crash_round(2, 1, $committed, $open);
my @created = grep { /^count::r2c\d+p\d+::cc$/ } keys %max;
cmp_ok(scalar(@created), '>', 10,
	scalar(@created) . ' per-parent counters were created one per statement');
# each creating statement committed before its value was printed
is($node->safe_psql('postgres', qq{
	SELECT count(*) FROM (VALUES @{[join ', ', map { "('$_')" } @created]}) v(name)
	 WHERE docmodel.counter_value(name) IS NULL}),
	'0', 'every per-parent counter a client saw created exists after the crash');
check_above(2, %max);

cmp_ok($node->safe_psql('postgres', "SELECT docmodel.next_id('txc')"),
	'>', 10, 'counter created by a committed transaction continues above its values');
is($node->safe_psql('postgres',
		"SELECT docmodel.counter_value('count::txo') IS NULL"),
	't', 'counter created by a transaction open at the crash is gone');
is($node->safe_psql('postgres', "SELECT docmodel.next_id('txo')"),
	'1', 'so its values are handed out again, as with CREATE SEQUENCE');

$node->stop;
done_testing();
