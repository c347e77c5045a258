# Crashes at random moments under concurrent writes, then every invariant checked.
#
# Four psql clients write at once through the paths that change several things in one
# statement: sub-document increments of accounts with history (mutate_in), new orders whose
# sync copy rule fills the account's name and whose aggregate rule counts them in the account,
# counter keys (next_key), and renames of accounts that a deferred copy rule queues for the
# copy worker. Each round ends with a crash at a random moment: an immediate shutdown, a
# kill -9 of a client backend in the middle of its statement (the postmaster then restarts
# every backend), or a kill -9 of the copy worker. The clients print what was acknowledged;
# after each restart:
# - every acknowledged order is there, with the copy of its account's name;
# - every account's counter is at least the last value a client was told;
# - every account's history is whole: its revisions are numbered 1 .. _ver - 1, each the body
#   that had that version (the increment before it is one less);
# - every account's aggregate is the number of orders referring to it;
# - the counter is above every key handed out;
# - once the worker has drained the queue, every deferred copy equals its source.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('crash_trial');
$node->init;
$node->append_conf('postgresql.conf', q{
fsync = on
synchronous_commit = on
restart_after_crash = on
deadlock_timeout = 50ms
shared_preload_libraries = 'docmodel'
docmodel.copy_worker_database = 'postgres'
docmodel.copy_worker_interval = 50ms
});
$node->start;
my $naccounts = 20;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION docmodel;
	SELECT docmodel.create_collection('accounts', revisions => 100000);
	SELECT docmodel.create_collection('orders');
	SELECT docmodel.create_collection('labels');
	INSERT INTO accounts SELECT 'acc::' || i, jsonb_build_object('name', 'A' || i, 'n', 0)
	FROM generate_series(1, $naccounts) i;
	INSERT INTO labels SELECT 'label::' || i, jsonb_build_object('acc', jsonb_build_object('id', 'acc::' || i))
	FROM generate_series(1, $naccounts) i;
	SELECT docmodel.create_copy('orders', '/acc', 'accounts', '{"name": "/name"}');
	SELECT docmodel.create_aggregate('accounts', '/orders', 'orders', '/acc/id', 'count');
	SELECT docmodel.create_copy('labels', '/acc', 'accounts', '{"title": "/title"}', mode => 'deferred');
});

my $nclients = 4;
my $iters = 4000;
my $dir = PostgreSQL::Test::Utils::tempdir;

# One client's statements in a round: each prints "kind|key|value" when acknowledged (a
# statement that fails, a deadlock between an increment and an order's aggregate, prints
# nothing and the client goes on).
sub write_scripts
{
	my ($round) = @_;
	for my $c (1 .. $nclients)
	{
		open my $f, '>', "$dir/r${round}c$c.sql" or die $!;
		for my $i (1 .. $iters)
		{
			my $acc = 'acc::' . (1 + int(rand($naccounts)));
			my $r = rand();
			if ($r < 0.45)
			{
				print $f "SELECT 'inc', '$acc', docmodel.mutate_in('accounts', '$acc', "
				  . "'[{\"op\": \"increment\", \"path\": \"n\"}]')->'results'->0->>'value';\n";
			}
			elsif ($r < 0.75)
			{
				print $f "INSERT INTO orders VALUES (docmodel.next_key('order'), "
				  . "'{\"acc\": {\"id\": \"$acc\"}}') RETURNING 'order', id, '';\n";
			}
			else
			{
				print $f "UPDATE accounts SET doc = jsonb_set(doc, '{title}', "
				  . "to_jsonb('r${round}c${c}i$i')) WHERE id = '$acc' RETURNING 'title', id, '';\n";
			}
		}
		close $f;
	}
}

# Run the clients, crash as the round says once they are under way; return what they were
# told: the largest increment per account and the orders.
sub crash_round
{
	my ($round, $how) = @_;
	my (@h, @out, @err);
	write_scripts($round);
	for my $c (1 .. $nclients)
	{
		$out[$c] = '';
		$err[$c] = '';
		$h[$c] = IPC::Run::start(
			[
				$node->installed_command('psql'), '-X', '-A', '-t', '-q',
				'-d', $node->connstr('postgres'),
				'-f', "$dir/r${round}c$c.sql"
			],
			'>', \$out[$c], '2>', \$err[$c]);
	}
	my $from = $node->safe_psql('postgres', 'SELECT count(*) FROM orders');
	my $wait = 300 + int(rand(1500));
	$node->poll_query_until('postgres', "SELECT count(*) > $from + $wait FROM orders")
	  or die 'clients made no progress';
	if ($how eq 'immediate')
	{
		$node->stop('immediate');
		$node->start;
	}
	else
	{
		my $type = $how eq 'worker' ? 'docmodel copy worker' : 'client backend';
		my $pid = $node->safe_psql('postgres', qq{
			SELECT pid FROM pg_stat_activity WHERE backend_type = '$type' AND pid <> pg_backend_pid()
			  AND (backend_type <> 'client backend' OR query LIKE '%accounts%' OR query LIKE '%orders%')
			ORDER BY random() LIMIT 1});
		ok($pid =~ /^[1-9]\d*$/, "round $round: a $type to kill");
		# (never a kill of pid 0, this test's own process group)
		kill 'KILL', $pid if $pid =~ /^[1-9]\d*$/;
		# every backend is ended (the clients with them) and the server
		# restarts
		eval { $h[$_]->finish; } for 1 .. $nclients;
		$node->poll_query_until('postgres', "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $pid")
		  or die 'no restart';
	}
	eval { $h[$_]->finish; } for 1 .. $nclients;

	my (%max, @orders);
	my $lines = 0;
	for my $c (1 .. $nclients)
	{
		for my $line (split /\n/, $out[$c])
		{
			next if $line eq '';
			my ($kind, $key, $v) = split /\|/, $line, 3;
			die "unexpected client output: $line" unless defined $key;
			$lines++;
			if ($kind eq 'inc')
			{
				$max{$key} = $v if !defined $max{$key} || $v > $max{$key};
			}
			elsif ($kind eq 'order')
			{
				push @orders, $key;
			}
		}
		like($err[$c], qr/terminat|closed the connection|connection to server|shut down/,
			"round $round ($how): client $c lost its connection");
	}
	cmp_ok($lines, '>', 300, "round $round ($how): $lines writes acknowledged before the crash");
	return (\%max, \@orders);
}

my $total_orders = 0;
sub check_invariants
{
	my ($round, $how, $max, $orders) = @_;
	my $tag = "round $round ($how)";
	$total_orders += @$orders;
	my $list = join ', ', map { "('$_')" } @$orders;
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM (VALUES $list) v(id) LEFT JOIN orders o USING (id)
		WHERE o.id IS NULL}), '0', "$tag: every acknowledged order is there (" . @$orders . ')');
	my $incs = join ', ', map { "('$_', $max->{$_})" } sort keys %$max;
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM (VALUES $incs) v(id, got) JOIN accounts a USING (id)
		WHERE (a.doc->>'n')::int < got}), '0', "$tag: every acknowledged increment stays");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM orders o JOIN accounts a ON a.id = o.doc->'acc'->>'id'
		WHERE o.doc->'acc'->>'name' IS DISTINCT FROM a.doc->>'name'}), '0',
		"$tag: every order holds its account's name");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM accounts a
		WHERE (a.doc->>'orders')::int IS DISTINCT FROM
		      (SELECT count(*) FROM orders o WHERE o.doc->'acc'->>'id' = a.id)}), '0',
		"$tag: every account counts its orders");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM accounts a
		WHERE (SELECT count(*) FROM accounts_revisions r WHERE r.id = a.id)
		      <> (a.doc->>'_ver')::int - 1
		   OR EXISTS (SELECT FROM accounts_revisions r WHERE r.id = a.id
		              AND (r.ver < 1 OR r.ver >= (a.doc->>'_ver')::int
		                   OR (r.doc->>'_ver')::int <> r.ver))}), '0',
		"$tag: every account's history is numbered 1 .. _ver - 1, each revision its version's body");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM accounts_revisions r JOIN accounts_revisions p
		  ON p.id = r.id AND p.ver = r.ver - 1
		WHERE (r.doc->>'n')::int NOT IN ((p.doc->>'n')::int, (p.doc->>'n')::int + 1)}), '0',
		"$tag: each revision's count follows the one before it");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM orders
		WHERE split_part(id, '::', 2)::bigint > docmodel.counter_value('count::order')}), '0',
		"$tag: the counter is above every order key handed out");
	ok($node->poll_query_until('postgres', q{
		SELECT count(*) = 0 FROM labels l JOIN accounts a ON a.id = l.doc->'acc'->>'id'
		WHERE l.doc->'acc'->>'title' IS DISTINCT FROM a.doc->>'title'}),
		"$tag: the worker brings every deferred copy up to date");
	is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'docmodel copy worker'"),
		'1', "$tag: the copy worker runs");
}

my @how = ('immediate', 'backend', 'worker', 'backend', 'immediate', 'worker');
for my $round (1 .. @how)
{
	my ($max, $orders) = crash_round($round, $how[$round - 1]);
	check_invariants($round, $how[$round - 1], $max, $orders);
}
cmp_ok($total_orders, '>', 1000, "$total_orders acknowledged orders in all");
unlike(slurp_file($node->logfile), qr/TRAP|XX000|PANIC:(?!.*immediate)/,
	'no assertion, internal error or panic in the log');
$node->stop;
done_testing();
