# The upgrade path: every released version with data, then ALTER EXTENSION docmodel UPDATE,
# gives the same objects as a fresh install of the current version, and the data still works.
#
# Databases on one node: "fresh" (CREATE EXTENSION docmodel) and, per released version (every
# docmodel--X.sql installed besides the current one; 0.1.0 today), "from_X" (CREATE EXTENSION
# docmodel VERSION 'X', a collection with revisions, documents and their history, counters,
# migration rules with steps and with a function, then ALTER EXTENSION docmodel UPDATE). Each
# catalog query below prints one line per object of the extension, without OIDs; a mismatch
# prints the lines only one side has.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->start;

my $current = $node->safe_psql('postgres',
	"SELECT default_version FROM pg_available_extensions WHERE name = 'docmodel'");
my @released = split /\n/, $node->safe_psql('postgres', q{
	SELECT version FROM pg_available_extension_versions
	WHERE name = 'docmodel' AND version <> (SELECT default_version FROM pg_available_extensions
		WHERE name = 'docmodel')
	ORDER BY string_to_array(version, '.')::int[]});
ok(scalar(grep { $_ eq '0.1.0' } @released), 'released versions: ' . join(', ', @released));

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION docmodel');

# The objects of the extension, one line each (members: pg_depend deptype 'e').
my $members = q{
	SELECT d.classid, d.objid FROM pg_depend d JOIN pg_extension e
		ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
	WHERE e.extname = 'docmodel' AND d.deptype = 'e'};
my $procs = "SELECT objid AS oid FROM ($members) m WHERE classid = 'pg_proc'::regclass";
my $rels = "SELECT objid AS oid FROM ($members) m WHERE classid = 'pg_class'::regclass";
my $types = "SELECT objid AS oid FROM ($members) m WHERE classid = 'pg_type'::regclass";
my $flat = sub { "regexp_replace(coalesce($_[0]::text, '-'), '\\s+', ' ', 'g')" };

my %queries = (
	'extension members' => qq{
		SELECT pg_describe_object(classid, objid, 0) FROM ($members) m},
	'extension' => q{
		SELECT format('%s version %s relocatable %s schema %s', extname, extversion,
			extrelocatable, extnamespace::regnamespace)
		FROM pg_extension WHERE extname = 'docmodel'},
	'config dump registrations' => q{
		SELECT format('%s where %L', c.rel::regclass, c.cond)
		FROM pg_extension e, unnest(e.extconfig, e.extcondition) AS c(rel, cond)
		WHERE e.extname = 'docmodel'},
	'schema' => q{
		SELECT format('%s owner %s acl %s comment %s', nspname, nspowner::regrole, nspacl,
			obj_description(oid, 'pg_namespace'))
		FROM pg_namespace WHERE nspname = 'docmodel'},
	'functions' => qq{
		SELECT format('%s(%s) returns %s: kind %s lang %s volatility %s strict %s '
			'security definer %s leakproof %s parallel %s cost %s rows %s support %s config %s '
			'src %s bin %s acl %s comment %s', p.oid::regproc, pg_get_function_arguments(p.oid),
			coalesce(pg_get_function_result(p.oid), '-'), p.prokind, l.lanname, p.provolatile,
			p.proisstrict, p.prosecdef, p.proleakproof, p.proparallel, p.procost, p.prorows,
			p.prosupport, p.proconfig,
			CASE WHEN l.lanname IN ('c', 'internal') THEN p.prosrc
				ELSE 'md5:' || md5(p.prosrc || coalesce(pg_get_function_sqlbody(p.oid), '')) END,
			p.probin, p.proacl, @{[ $flat->("obj_description(p.oid, 'pg_proc')") ]})
		FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.oid IN ($procs)},
	'aggregates' => qq{
		SELECT format('%s: kind %s trans %s final %s combine %s transtype %s sortop %s init %s',
			a.aggfnoid::regprocedure, a.aggkind, a.aggtransfn::regprocedure,
			a.aggfinalfn, a.aggcombinefn, a.aggtranstype::regtype, a.aggsortop::regoperator,
			a.agginitval)
		FROM pg_aggregate a WHERE a.aggfnoid IN ($procs)},
	'types' => qq{
		SELECT format('%s: type %s len %s byval %s align %s storage %s category %s '
			'preferred %s in %s out %s recv %s send %s typmodin %s analyze %s elem %s array %s '
			'base %s notnull %s default %s collation %s acl %s comment %s enum %s',
			t.oid::regtype, t.typtype, t.typlen, t.typbyval, t.typalign, t.typstorage,
			t.typcategory, t.typispreferred, t.typinput, t.typoutput, t.typreceive, t.typsend,
			t.typmodin, t.typanalyze, t.typelem::regtype, t.typarray::regtype,
			t.typbasetype::regtype, t.typnotnull, t.typdefault, t.typcollation,
			t.typacl, @{[ $flat->("obj_description(t.oid, 'pg_type')") ]},
			(SELECT string_agg(enumlabel::text, ',' ORDER BY enumsortorder) FROM pg_enum
				WHERE enumtypid = t.oid))
		FROM pg_type t WHERE t.oid IN ($types)},
	'domain constraints' => qq{
		SELECT format('%s %s: %s', contypid::regtype, conname, pg_get_constraintdef(oid))
		FROM pg_constraint WHERE contypid IN ($types)},
	'operators' => qq{
		SELECT format('%s returns %s: code %s commutator %s negator %s restrict %s join %s '
			'merges %s hashes %s comment %s', o.oid::regoperator, o.oprresult::regtype,
			o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin,
			o.oprcanmerge, o.oprcanhash, obj_description(o.oid, 'pg_operator'))
		FROM pg_operator o
		WHERE o.oid IN (SELECT objid FROM ($members) m WHERE classid = 'pg_operator'::regclass)},
	'operator classes' => qq{
		SELECT format('%s.%s using %s for %s: default %s family %s keytype %s',
			c.opcnamespace::regnamespace, c.opcname, a.amname, c.opcintype::regtype,
			c.opcdefault, f.opfname, c.opckeytype::regtype)
		FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
			JOIN pg_opfamily f ON f.oid = c.opcfamily
		WHERE c.oid IN (SELECT objid FROM ($members) m WHERE classid = 'pg_opclass'::regclass)},
	'operator family members' => qq{
		SELECT format('family %s.%s using %s: operator %s (%s, %s) %s purpose %s',
			f.opfnamespace::regnamespace, f.opfname, a.amname, o.amopstrategy,
			o.amoplefttype::regtype, o.amoprighttype::regtype, o.amopopr::regoperator,
			o.amoppurpose)
		FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
			JOIN pg_am a ON a.oid = f.opfmethod
		WHERE f.oid IN (SELECT objid FROM ($members) m WHERE classid = 'pg_opfamily'::regclass)
		UNION ALL
		SELECT format('family %s.%s using %s: function %s (%s, %s) %s',
			f.opfnamespace::regnamespace, f.opfname, a.amname, p.amprocnum,
			p.amproclefttype::regtype, p.amprocrighttype::regtype, p.amproc::regprocedure)
		FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
			JOIN pg_am a ON a.oid = f.opfmethod
		WHERE f.oid IN (SELECT objid FROM ($members) m WHERE classid = 'pg_opfamily'::regclass)},
	'casts' => qq{
		SELECT format('(%s AS %s): function %s context %s method %s',
			c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure,
			c.castcontext, c.castmethod)
		FROM pg_cast c
		WHERE c.oid IN (SELECT objid FROM ($members) m WHERE classid = 'pg_cast'::regclass)},
	'relations' => qq{
		SELECT format('%s: kind %s persistence %s options %s acl %s rls %s force rls %s '
			'replica identity %s comment %s', c.oid::regclass, c.relkind, c.relpersistence,
			c.reloptions, c.relacl, c.relrowsecurity, c.relforcerowsecurity, c.relreplident,
			@{[ $flat->("obj_description(c.oid, 'pg_class')") ]})
		FROM pg_class c WHERE c.oid IN ($rels)},
	'columns' => qq{
		SELECT format('%s column %s %s: %s not null %s default %s identity %s generated %s '
			'collation %s acl %s comment %s', a.attrelid::regclass,
			row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum), a.attname,
			format_type(a.atttypid, a.atttypmod), a.attnotnull,
			pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated,
			a.attcollation::regcollation, a.attacl,
			@{[ $flat->("col_description(a.attrelid, a.attnum)") ]})
		FROM pg_attribute a LEFT JOIN pg_attrdef d
			ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE a.attrelid IN ($rels) AND a.attnum > 0 AND NOT a.attisdropped},
	'constraints' => qq{
		SELECT format('%s constraint %s: %s validated %s', conrelid::regclass, conname,
			pg_get_constraintdef(oid), convalidated)
		FROM pg_constraint WHERE conrelid IN ($rels)},
	'indexes' => qq{
		SELECT format('%s clustered %s replident %s', pg_get_indexdef(indexrelid),
			indisclustered, indisreplident)
		FROM pg_index WHERE indrelid IN ($rels)},
	'triggers' => qq{
		SELECT format('%s enabled %s', pg_get_triggerdef(oid), tgenabled)
		FROM pg_trigger WHERE tgrelid IN ($rels) AND NOT tgisinternal},
	'policies' => qq{
		SELECT format('%s policy %s: cmd %s permissive %s roles %s using %s check %s',
			polrelid::regclass, polname, polcmd, polpermissive, polroles::regrole[],
			pg_get_expr(polqual, polrelid), pg_get_expr(polwithcheck, polrelid))
		FROM pg_policy WHERE polrelid IN ($rels)},
	'views' => qq{
		SELECT format('%s: %s', oid::regclass, @{[ $flat->("pg_get_viewdef(oid)") ]})
		FROM pg_class WHERE oid IN ($rels) AND relkind IN ('v', 'm')},
	'sequences' => qq{
		SELECT format('%s: type %s start %s increment %s min %s max %s cache %s cycle %s owned by %s',
			s.seqrelid::regclass, s.seqtypid::regtype, s.seqstart, s.seqincrement, s.seqmin,
			s.seqmax, s.seqcache, s.seqcycle,
			(SELECT d.refobjid::regclass || '.' || a.attname FROM pg_depend d
				JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
			 WHERE d.classid = 'pg_class'::regclass AND d.objid = s.seqrelid
				AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')))
		FROM pg_sequence s WHERE s.seqrelid IN ($rels)},
	'event triggers' => qq{
		SELECT format('%s: on %s function %s enabled %s tags %s', evtname, evtevent,
			evtfoid::regprocedure, evtenabled, evttags)
		FROM pg_event_trigger
		WHERE oid IN (SELECT objid FROM ($members) m WHERE classid = 'pg_event_trigger'::regclass)},
	'initial privileges (pg_dump)' => qq{
		SELECT format('%s: %s %s', pg_describe_object(i.classoid, i.objoid, i.objsubid),
			i.privtype, i.initprivs)
		FROM pg_init_privs i JOIN ($members) m ON m.classid = i.classoid AND m.objid = i.objoid},
);

# Nothing of any concern is left empty by the queries (a query that matches nothing would
# compare equal and prove nothing).
for my $kind ('functions', 'types', 'relations', 'views', 'triggers', 'operators', 'casts',
	'indexes', 'columns', 'config dump registrations', 'initial privileges (pg_dump)')
{
	isnt($node->safe_psql('fresh', "SELECT count(*) FROM ($queries{$kind}) q"),
		'0', "$kind: the query sees objects");
}

foreach my $from (@released)
{
	(my $db = "from_$from") =~ s/\W/_/g;
	$node->safe_psql('postgres', "CREATE DATABASE $db");

	# The old version with data of every concern.
	$node->safe_psql($db, qq{
		CREATE EXTENSION docmodel VERSION '$from';
		SELECT docmodel.create_collection('users', revisions => 3);
		SELECT docmodel.insert('users', 'user::1',
			'{"_schema": "1.0", "name": "Joe Smith", "phone": "555-1234"}');
		SELECT docmodel.upsert('users', 'user::1',
			'{"_schema": "1.0", "name": "Joe Smith", "phone": "555-4321"}');
		UPDATE users SET doc = doc || '{"phone": "555-0000"}' WHERE id = 'user::1';
		SELECT docmodel.insert('users', 'user::2', '{"_schema": "1.0", "name": "Ann Lee"}');
		SELECT docmodel.next_id('user') FROM generate_series(1, 3);
		SELECT docmodel.incr('count::order', initial => 100);
		SELECT docmodel.counter_create('count::invoice', gapless => true);
		SELECT docmodel.incr('count::invoice');
		SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
			{"op": "split", "path": "/name", "into": ["/firstName", "/lastName"], "separator": " "}]');
		CREATE FUNCTION public.user_v3(doc jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE
			AS \$\$ SELECT doc || '{"v3": true}' \$\$;
		SELECT docmodel.register_migration('user', '2.0', '3.0', fn => 'public.user_v3(jsonb)');
	});
	is($node->safe_psql($db,
			q{SELECT string_agg(ver || ' ' || op, ', ' ORDER BY ver) FROM docmodel.revisions('users', 'user::1')}),
		'1 update, 2 update', "$from: history written");

	# The new library under the old SQL, before the update: rules with steps work, a
	# function rule (unpinned in 0.1.0) is refused with a hint to update.
	is($node->safe_psql($db,
			q{SELECT docmodel.migrate('{"_type": "user", "_schema": "1.0", "name": "A B"}', '2.0')->>'lastName'}),
		'B', "$from: steps apply before the update");
	my ($rc, $out, $err) = $node->psql($db,
		q{SELECT docmodel.migrate('{"_type": "user", "_schema": "2.0"}')});
	like($err, qr/migration function public\.user_v3\(jsonb\) is not pinned/,
		"$from: a function rule waits for the update") if $from eq '0.1.0';

	$node->safe_psql($db, 'ALTER EXTENSION docmodel UPDATE');
	is($node->safe_psql($db, "SELECT extversion FROM pg_extension WHERE extname = 'docmodel'"),
		$current, "$from: updated to $current");

	# Every catalog query on both databases, sorted lines compared; on a mismatch the lines
	# only one side has (a changed object shows as one line on each side).
	foreach my $name (sort keys %queries)
	{
		my $sql = "SELECT * FROM ($queries{$name}) q(line) ORDER BY 1";
		my $up = $node->safe_psql($db, $sql);
		my $fresh = $node->safe_psql('fresh', $sql);
		# ok() rather than is(): is() would print both whole listings
		next if ok($up eq $fresh, "$name: $from + upgrade = fresh $current");
		my %seen;
		$seen{$_} .= 'u' for split /\n/, $up;
		$seen{$_} .= 'f' for split /\n/, $fresh;
		diag("$name differ:");
		diag("  only after the upgrade from $from: $_") for grep { $seen{$_} eq 'u' } split /\n/, $up;
		diag("  only in a fresh install:      $_") for grep { $seen{$_} eq 'f' } split /\n/, $fresh;
	}

	# The old data still works.
	is($node->safe_psql($db, q{
		SELECT (doc->>'firstName') || ' ' || (doc->>'_schema') || ' ' || (doc->>'v3')
		FROM (SELECT docmodel.get('users', 'user::1') AS doc) g}),
		'Joe 3.0 true', "$from: get migrates on read with the step rule and the function rule");
	$node->safe_psql($db, q{
		SELECT docmodel.upsert('users', 'user::1', '{"_schema": "3.0", "firstName": "Joe", "v3": true}')});
	is($node->safe_psql($db,
			q{SELECT string_agg(ver || ' ' || op, ', ' ORDER BY ver) FROM docmodel.revisions('users', 'user::1')}),
		'1 update, 2 update, 3 update', "$from: upsert adds a revision");
	is($node->safe_psql($db, q{SELECT doc->>'_ver' FROM users WHERE id = 'user::1'}),
		'4', "$from: _ver continues");
	is($node->safe_psql($db, q{SELECT docmodel.get_revision('users', 'user::1', 1)->>'phone'}),
		'555-1234', "$from: old revisions readable");
	is($node->safe_psql($db, q{SELECT docmodel.next_id('user') > 3}),
		't', "$from: counter continues above its value");
	is($node->safe_psql($db, q{SELECT docmodel.incr('count::order', 5)}),
		'105', "$from: incr continues");
	is($node->safe_psql($db, q{SELECT docmodel.incr('count::invoice')}),
		'2', "$from: gapless counter continues");
	is($node->safe_psql($db, q{
		SELECT docmodel.migrate('{"_type": "user", "_schema": "1.0", "name": "Ann Lee"}')::text}),
		'{"v3": true, "_type": "user", "_schema": "3.0", "lastName": "Lee", "firstName": "Ann"}',
		"$from: migrate applies the steps and the function");
	$node->safe_psql($db, q{CALL docmodel.migrate_collection('users')});
	is($node->safe_psql($db, q{SELECT status || ' ' || docs_done FROM docmodel.migration_runs}),
		'done 1', "$from: migrate_collection migrates the outdated document");
	is($node->safe_psql($db, q{SELECT doc->>'lastName' FROM users WHERE id = 'user::2'}),
		'Lee', "$from: bulk-migrated document");
	$node->safe_psql($db, q{SELECT docmodel.insert('users', 'user::3', '{"name": "Bo"}')});
	is($node->safe_psql($db, q{SELECT doc->>'_schema' FROM users WHERE id = 'user::3'}),
		'3.0', "$from: the trigger stamps the current version");

	# Locks (0.2.0) on a collection the old version made: the update gave it locked_until
	# and the DELETE check.
	is($node->safe_psql($db, q{
		SELECT docmodel.unlock('users', 'user::3',
			(SELECT cas FROM docmodel.get_and_lock('users', 'user::3'))) > 0}),
		't', "$from: get_and_lock and unlock on an old collection");
	my ($lrc, $lout, $lerr) = $node->psql($db,
		q{SELECT docmodel.get_and_lock('users', 'user::3'); DELETE FROM users WHERE id = 'user::3'});
	like($lerr, qr/document "user::3" is locked/,
		"$from: a plain DELETE of a locked document is refused");

	# meta_style 'columns' (0.2.0) for the old collection with history, and back: what get,
	# get_multi, meta(), revisions and get_revision return does not change.
	my $snap = q{
		SELECT string_agg(line, E'\n' ORDER BY line) FROM (
			SELECT 'get ' || u.id || ' ' || docmodel.get('users', u.id)::text AS line FROM users u
			UNION ALL
			SELECT 'get_multi ' || m.key || ' ' || m.doc::text || ' ' || m.cas
			FROM docmodel.get_multi('users', (SELECT array_agg(id) FROM users)) m
			UNION ALL
			SELECT 'meta ' || u.id || ' ' || docmodel.meta('users', u.id)::text FROM users u
			UNION ALL
			SELECT 'revisions ' || u.id || ' ' || r::text
			FROM users u, docmodel.revisions('users', u.id) r
			UNION ALL
			SELECT 'get_revision ' || u.id || ' ' || v
				|| ' ' || docmodel.get_revision('users', u.id, v)::text
			FROM users u, generate_series(1, 4) v
		) s};
	my $before = $node->safe_psql($db, $snap);
	like($before, qr/^revisions user::1 /m, "$from: the snapshot has revisions");
	$node->safe_psql($db, q{CALL docmodel.set_meta_style('users', 'columns', 1)});
	is($node->safe_psql($db, q{
		SELECT meta_style || ' ' || (SELECT count(*) FROM users WHERE ver IS NOT NULL)
		FROM docmodel.collections WHERE collection = 'users'::regclass}),
		'columns 3', "$from: set_meta_style converts the collection to columns");
	is($node->safe_psql($db, $snap), $before,
		"$from: get, revisions and meta() unchanged in columns");
	$node->safe_psql($db, q{CALL docmodel.set_meta_style('users', 'underscore', 2)});
	is($node->safe_psql($db, q{
		SELECT meta_style || ' ' || (SELECT count(*) FROM users WHERE doc ? '_ver')
		FROM docmodel.collections WHERE collection = 'users'::regclass}),
		'underscore 3', "$from: set_meta_style converts the collection back");
	is($node->safe_psql($db, $snap), $before,
		"$from: get, revisions and meta() unchanged back in underscore");
}

$node->stop;
done_testing();
