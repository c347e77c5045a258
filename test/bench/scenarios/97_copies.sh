# Copies and aggregates: a source update fanning out to the documents referring to it against
# the hand-written UPDATE ... jsonb_set ... WHERE through the same index (both collections have
# the collection trigger; 20 authors of 100 books each renamed in one statement: 2,000 books
# rewritten), a book insert that keeps its author's count against the insert alone, and a
# deferred rule draining 100,000 queued copies (1,000 authors renamed, 100 books each) with
# apply_copies against the hand-written batch UPDATE ... jsonb_set ... FROM the authors through
# the same index (both through the collection trigger; each round renames them all first); and
# an aggregate's fill on beer-sample's one-bucket shape against the hand-written GROUP BY.

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
DELETE FROM docmodel.copy_rules WHERE coll::text ~ '^\d+$' OR source::text ~ '^\d+$';
SELECT docmodel.drop_collection(c::regclass) FROM unnest('{bench_cauth,bench_cbook,bench_hauth,bench_hbook,bench_aauth,bench_abook,bench_pbook,bench_dauth,bench_dbook}'::text[]) c
WHERE to_regclass(c) IS NOT NULL;
SELECT docmodel.create_collection(c) FROM unnest('{bench_cauth,bench_cbook,bench_hauth,bench_hbook,bench_aauth,bench_abook,bench_pbook,bench_dauth,bench_dbook}'::text[]) c;
INSERT INTO bench_cauth (id, doc) SELECT 'a' || i, jsonb_build_object('name', 'Author ' || i) FROM generate_series(1, 1000) i;
INSERT INTO bench_hauth (id, doc) SELECT id, doc FROM bench_cauth;
INSERT INTO bench_aauth (id, doc) SELECT id, doc FROM bench_cauth;
SELECT docmodel.create_copy('bench_cbook', '/author', 'bench_cauth', '{"name": "/name"}');
INSERT INTO bench_cbook (id, doc) SELECT 'b' || i, jsonb_build_object('title', 'Book ' || i, 'author', jsonb_build_object('id', 'a' || (i % 1000 + 1)))
FROM generate_series(1, 100000) i;
INSERT INTO bench_hbook (id, doc) SELECT id, doc FROM bench_cbook;
INSERT INTO bench_dauth (id, doc) SELECT id, doc FROM bench_cauth;
INSERT INTO bench_dbook (id, doc) SELECT id, doc FROM bench_cbook;
SELECT docmodel.create_copy('bench_dbook', '/author', 'bench_dauth', '{"name": "/name"}', mode => 'deferred');
CREATE INDEX ON bench_hbook USING gin (docmodel.ref_keys(doc, '/author/id')) WITH (fastupdate = off);
SELECT docmodel.create_aggregate('bench_aauth', '/countOfBooks', 'bench_abook', '/author/id', 'count');
CREATE INDEX ON bench_pbook USING gin (docmodel.ref_keys(doc, '/author/id')) WITH (fastupdate = off);
VACUUM ANALYZE;
SQL

bench_sql "copies: rename 20 authors, 2,000 books" 1.5 \
	"UPDATE bench_cauth SET doc = jsonb_set(doc, '{name}', to_jsonb(clock_timestamp()::text)) WHERE id IN (SELECT 'a' || i FROM generate_series(1, 20) i)" \
	"WITH a AS (UPDATE bench_hauth SET doc = jsonb_set(doc, '{name}', to_jsonb(clock_timestamp()::text)) WHERE id IN (SELECT 'a' || i FROM generate_series(1, 20) i) RETURNING id, doc)
	 UPDATE bench_hbook b SET doc = jsonb_set(b.doc, '{author,name}', a.doc->'name') FROM a
	 WHERE docmodel.ref_keys(b.doc, '/author/id') && (SELECT array_agg(id) FROM a) AND b.doc->'author'->>'id' = a.id"

# Deferred: every round first renames the 1,000 authors of both sides (1,000 keys queued, the
# hand-written side's authors changed), then times the drain of each.
copies_rename_all() {
	"${PSQL[@]}" >/dev/null -c "UPDATE bench_dauth SET doc = jsonb_set(doc, '{name}', to_jsonb(clock_timestamp()::text))" \
		-c "UPDATE bench_hauth SET doc = jsonb_set(doc, '{name}', to_jsonb(clock_timestamp()::text))" \
		-c "VACUUM bench_dbook, bench_hbook, docmodel.copy_queue"
}
BENCH_RESET=copies_rename_all bench_sql "copies: deferred drain, 100,000 copies" 1.0 \
	"CALL docmodel.apply_copies('bench_dbook')" \
	"UPDATE bench_hbook b SET doc = jsonb_set(b.doc, '{author,name}', a.doc->'name') FROM bench_hauth a
	 WHERE docmodel.ref_keys(b.doc, '/author/id') && (SELECT array_agg(id) FROM bench_hauth) AND b.doc->'author'->>'id' = a.id
	 AND b.doc->'author'->'name' IS DISTINCT FROM a.doc->'name'"
# (bench-instr resets before each side, so the baseline's reset queued the keys again)
[ -n "${BENCH_INSTR:-}" ] ||
	"${PSQL[@]}" -At -c "SELECT 'copies: deferred drain left ' || queued || ' keys queued' FROM docmodel.copy_lag WHERE coll = 'bench_dbook'::regclass"

bench_dir=$(mktemp -d)
cat > "$bench_dir/agg.sql" <<'SQL'
\set k random(1, 1000)
INSERT INTO bench_abook (id, doc) VALUES (gen_random_uuid()::text, jsonb_build_object('title', 'New', 'author', jsonb_build_object('id', 'a' || :k)));
SQL
cat > "$bench_dir/plain.sql" <<'SQL'
\set k random(1, 1000)
INSERT INTO bench_pbook (id, doc) VALUES (gen_random_uuid()::text, jsonb_build_object('title', 'New', 'author', jsonb_build_object('id', 'a' || :k)));
SQL
PGBENCH_ARGS="-M prepared" bench_tps "copies: book insert counted vs alone" 0.6 \
	"$bench_dir/agg.sql" "$bench_dir/plain.sql" 4 8

rm -rf "$bench_dir"

# An aggregate's fill on beer-sample's one-bucket shape (1,412 breweries and 5,891 beers in one
# collection typed from the body, each beer naming its brewery): refresh_aggregate of the
# breweries' beer counts (doc_type brewery) against the hand-written GROUP BY update of a
# second bucket through the same collection trigger; each round first takes the counts away.
"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT docmodel.drop_collection(c::regclass) FROM unnest('{bench_bucket,bench_hbucket}'::text[]) c
WHERE to_regclass(c) IS NOT NULL;
SELECT docmodel.create_collection(c, type_part => 0, delimiter => '-', types => ARRAY['beer', 'brewery'],
    fields => '{"type": "type"}') FROM unnest('{bench_bucket,bench_hbucket}'::text[]) c;
INSERT INTO bench_bucket (id, doc) SELECT 'brewery_' || i, jsonb_build_object('type', 'brewery', 'name', 'Brewery ' || i)
FROM generate_series(1, 1412) i;
INSERT INTO bench_bucket (id, doc) SELECT 'brewery_' || (i % 1412 + 1) || '-beer_' || i,
    jsonb_build_object('type', 'beer', 'name', 'Beer ' || i, 'brewery_id', 'brewery_' || (i % 1412 + 1), 'abv', i % 12)
FROM generate_series(1, 5891) i;
INSERT INTO bench_hbucket (id, doc) SELECT id, doc FROM bench_bucket;
SELECT docmodel.create_aggregate('bench_bucket', '/beer_count', 'bench_bucket', '/brewery_id', 'count', doc_type => 'brewery');
CREATE INDEX ON bench_hbucket USING gin (docmodel.ref_keys(doc, '/brewery_id')) WITH (fastupdate = off);
VACUUM ANALYZE bench_bucket, bench_hbucket;
SQL
copies_uncount() {
	"${PSQL[@]}" >/dev/null -c "UPDATE bench_bucket SET doc = doc - 'beer_count' WHERE doc ? 'beer_count'" \
		-c "UPDATE bench_hbucket SET doc = doc - 'beer_count' WHERE doc ? 'beer_count'" \
		-c "VACUUM bench_bucket, bench_hbucket"
}
BENCH_RESET=copies_uncount bench_sql "aggregates: fill, 1,412 breweries' beer counts" 2.0 \
	"SELECT docmodel.refresh_aggregate('bench_bucket', '/beer_count')" \
	"UPDATE bench_hbucket h SET doc = jsonb_set(h.doc, '{beer_count}', to_jsonb(g.n))
	 FROM (SELECT doc->>'brewery_id' AS id, count(*) AS n FROM bench_hbucket WHERE doc ? 'brewery_id' GROUP BY 1) g
	 WHERE h.id = g.id"

"${PSQL[@]}" >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT docmodel.drop_collection(c::regclass) FROM unnest('{bench_cbook,bench_cauth,bench_hauth,bench_hbook,bench_abook,bench_aauth,bench_pbook,bench_dbook,bench_dauth,bench_bucket,bench_hbucket}'::text[]) c;
SQL
