-- migration_plan(coll, validate => true) counts the documents a step
-- cannot apply to, as it counts those the schema would refuse, instead of
-- stopping at the first (each counted document named with its error); any
-- error but a data error (class 22 or 23), a cancel say, is raised.
\i test/sql/include/try.sql
SET client_min_messages = warning;
CREATE TABLE mpe (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);
INSERT INTO mpe VALUES
  ('mpe::1', '{"_type": "mpe", "_schema": "1", "born": "2001-02-03"}'),
  ('mpe::2', '{"_type": "mpe", "_schema": "1", "born": "Dec 14, 2018"}'),
  ('mpe::3', '{"_type": "mpe", "_schema": "1", "born": "yesterday"}'),
  ('mpe::4', '{"_type": "mpe", "_schema": "1"}');
SELECT docmodel.register_migration('mpe', '1', '2',
  '[{"op": "to_epoch", "path": "/born", "unit": "s"}]');
SELECT docmodel.register_schema('mpe', '2', '{"required": ["born"]}');
SELECT doc_type, version::text, docs, target::text, steps, invalid, first_invalid
FROM docmodel.migration_plan('mpe', validate => true);
-- without validate: the plan as before, no document migrated
SELECT doc_type, version::text, docs, target::text, steps, invalid
FROM docmodel.migration_plan('mpe', validate => false);
-- the migration itself still stops at the first (and says which)
SELECT pg_temp.try($$SELECT docmodel.migrate(doc) FROM mpe ORDER BY id$$);
-- _plan_error directly: each document's step error or first violation
SELECT docmodel._plan_error(doc, id, NULL) FROM mpe ORDER BY id;
SELECT docmodel.drop_schema('mpe', '2');
DELETE FROM docmodel.migration_rules WHERE doc_type = 'mpe';
DROP TABLE mpe;
