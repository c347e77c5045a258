-- Migration steps for uneven data, as the management guide writes its
-- setters: "missing": "skip" on every step that reads
-- a path, and the ops drop_empty, replace_regex, require and format_date.
-- Every new error shows its SQLSTATE, message and detail.
\set SHOW_CONTEXT never
\i test/sql/include/try.sql

-- Apply steps (one rule 1 -> 2 of type "gstep") to a document; show the
-- result without the type and schema fields.
CREATE FUNCTION pg_temp.step(steps jsonb, doc jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM docmodel.migration_rules WHERE doc_type = 'gstep';
  PERFORM docmodel.register_migration('gstep', '1', '2', steps);
  RETURN docmodel.migrate(doc || '{"_type": "gstep", "_schema": "1"}') - '_type' - '_schema';
END $$;
-- The same, returning the error as text.
CREATE FUNCTION pg_temp.step_err(steps text, doc text) RETURNS text LANGUAGE sql AS $$
  SELECT pg_temp.try(format('SELECT pg_temp.step(%L, %L)', steps, doc))
$$;
-- Register a rule; 'ok' or the error.
CREATE FUNCTION pg_temp.reg(steps text) RETURNS text LANGUAGE sql AS $$
  SELECT pg_temp.try(format($f$SELECT docmodel.register_migration('greg', '1', '2', steps => %L)$f$, steps))
$$;

\echo == the guide users: some lack last_name, carry empty fields, phones as people type them
SELECT docmodel.create_collection('guide_users');
INSERT INTO guide_users (id, doc) VALUES
  ('user::1', '{"_schema": "1.0", "first_name": "Joe", "last_name": "Smith", "phone": "(555) 123-4567",
                "nickname": "", "tags": [], "address": {"street": null, "city": ""},
                "birthday": "1980-07-04", "joined": 1544759124000}'),
  ('user::2', '{"_schema": "1.0", "first_name": "Madonna", "phone": "555.987.6543", "note": null,
                "birthday": "1958-08-16T23:30:00-05:00", "joined": 1262304000000}'),
  ('user::3', '{"_schema": "1.0", "first_name": "Ann", "last_name": "Lee", "phone": "555-0100",
                "prefs": {"theme": "dark", "lang": null}}');
SELECT id, doc->>'_schema' AS schema FROM guide_users ORDER BY id;

-- 1.0 -> 2.0: rename a field some documents lack; drop what is not valued;
-- normalise the phone number, then check it; dates as YYYY-MM-DD.
SELECT docmodel.register_migration('user', '1.0', '2.0', steps => '[
  {"op": "move", "from": "/last_name", "path": "/lastName", "missing": "skip"},
  {"op": "move", "from": "/first_name", "path": "/firstName"},
  {"op": "drop_empty"},
  {"op": "replace_regex", "path": "/phone", "pattern": "[^0-9]", "with": ""},
  {"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$", "message": "invalid phone number"},
  {"op": "format_date", "path": "/birthday", "format": "date", "missing": "skip"},
  {"op": "format_date", "path": "/joined", "format": "date", "unit": "ms", "missing": "skip"}]');
-- user::3's phone has 7 digits: its read fails with the rule's message, key and path
SELECT id, docmodel.get('guide_users', id) - '_ver' - '_created' - '_modified' - '_cas' - '_modifiedBy' - '_createdBy' AS doc
  FROM guide_users WHERE id IN ('user::1', 'user::2') ORDER BY id;
SELECT pg_temp.try($$SELECT docmodel.get('guide_users', 'user::3')$$);
-- a write migrates too: the statement that touches user::3 fails as a whole
SELECT pg_temp.try($$UPDATE guide_users SET doc = doc || '{"seen": true}'$$);
SELECT id, doc->>'_schema' AS schema FROM guide_users ORDER BY id;
UPDATE guide_users SET doc = doc || '{"seen": true}' WHERE id <> 'user::3';
-- user::3 fixed by the application: its write migrates it
UPDATE guide_users SET doc = jsonb_set(doc, '{phone}', '"555-010-0100"') WHERE id = 'user::3';
SELECT id, doc - '_ver' - '_created' - '_modified' - '_cas' - '_modifiedBy' - '_createdBy' AS doc
  FROM guide_users_documents ORDER BY id;
-- without "missing": "skip" the rename fails on the first document that lacks the field, as before
SELECT pg_temp.step_err('[{"op": "move", "from": "/last_name", "path": "/lastName"}]', '{"first_name": "Madonna"}');
SELECT pg_temp.step_err('[{"op": "move", "from": "/last_name", "path": "/lastName", "missing": "error"}]', '{"first_name": "Madonna"}');

\echo == "missing": "skip" on every op that reads a path
SELECT pg_temp.step('[
  {"op": "remove", "path": "/a", "missing": "skip"},
  {"op": "replace", "path": "/b", "value": 1, "missing": "skip"},
  {"op": "copy", "from": "/c", "path": "/c2", "missing": "skip"},
  {"op": "test", "path": "/d", "value": 1, "missing": "skip"},
  {"op": "split", "path": "/e", "into": ["/e1", "/e2"], "missing": "skip"},
  {"op": "join", "paths": ["/f1", "/f2"], "into": "/f", "missing": "skip"},
  {"op": "wrap", "path": "/g", "missing": "skip"},
  {"op": "cast", "path": "/h", "to": "number", "missing": "skip"},
  {"op": "to_epoch", "path": "/i", "missing": "skip"},
  {"op": "from_epoch", "path": "/j", "missing": "skip"},
  {"op": "strip_dashes", "path": "/k", "missing": "skip"},
  {"op": "nest", "paths": ["/l"], "into": "/ll", "missing": "skip"},
  {"op": "unnest", "path": "/m", "missing": "skip"},
  {"op": "for_each", "path": "/n", "steps": [], "missing": "skip"},
  {"op": "drop_empty", "path": "/o", "missing": "skip"},
  {"op": "replace_regex", "path": "/p", "pattern": "x", "with": "", "missing": "skip"},
  {"op": "require", "path": "/q", "missing": "skip"},
  {"op": "format_date", "path": "/r", "missing": "skip"}]', '{"keep": 1}');
-- present values are still worked on
SELECT pg_temp.step('[
  {"op": "remove", "path": "/a", "missing": "skip"},
  {"op": "replace", "path": "/b", "value": 1, "missing": "skip"},
  {"op": "test", "path": "/b", "value": 1, "missing": "skip"},
  {"op": "copy", "from": "/b", "path": "/c", "missing": "skip"}]', '{"a": 0, "b": 0}');
-- a test that finds another value still fails
SELECT pg_temp.step_err('[{"op": "test", "path": "/b", "value": 1, "missing": "skip"}]', '{"b": 2}');
-- inside a for_each: elements without the field are skipped
SELECT pg_temp.step('[{"op": "for_each", "path": "/people", "steps": [
  {"op": "move", "from": "/last_name", "path": "/lastName", "missing": "skip"}]}]',
  '{"people": [{"last_name": "Smith"}, {"first_name": "Cher"}]}');
-- "missing": "error" on an op that skips an absent path by default: 22000
SELECT pg_temp.step_err('[{"op": "cast", "path": "/age", "to": "number", "missing": "error"}]', '{}');
SELECT pg_temp.step_err('[{"op": "join", "paths": ["/a", "/b"], "into": "/ab", "missing": "error"}]', '{"a": "x"}');
SELECT pg_temp.step_err('[{"op": "for_each", "path": "/xs", "steps": [{"op": "strip_dashes", "path": "/id", "missing": "error"}]}]', '{"xs": [{"id": "a-b"}, {}]}');
-- null is present: "missing" does not apply, the transforming ops leave it alone
SELECT pg_temp.step('[{"op": "cast", "path": "/age", "to": "number", "missing": "error"}]', '{"age": null}');

\echo == drop_empty: null, "", [] and {} dropped bottom-up; array elements kept
SELECT pg_temp.step('[{"op": "drop_empty"}]',
  '{"a": null, "b": "", "c": [], "d": {}, "e": {"f": {"g": null, "h": ""}}, "k": 0, "l": false, "m": " ",
    "arr": [null, "", {"x": null}, [], 1], "keep": {"x": 1, "y": null}}');
-- at a path: only there; the value itself dropped when it ends empty
SELECT pg_temp.step('[{"op": "drop_empty", "path": "/address"}]', '{"address": {"street": null, "city": ""}, "other": null}');
SELECT pg_temp.step('[{"op": "drop_empty", "path": "/address"}]', '{"address": {"street": "Main St", "zip": ""}, "other": null}');
SELECT pg_temp.step('[{"op": "drop_empty", "path": "/tags"}]', '{"tags": [], "x": ""}');
-- a whole document of empties becomes {} (the type and version stay)
SELECT pg_temp.step('[{"op": "drop_empty"}]', '{"a": null, "b": {"c": ""}}');
-- in a for_each, path "" is the element: cleaned, never removed
SELECT pg_temp.step('[{"op": "for_each", "path": "/items", "steps": [{"op": "drop_empty", "path": ""}]}]',
  '{"items": [{"a": null}, {"b": 1, "c": ""}]}');

\echo == replace_regex: regexp_replace(value, pattern, with, 'g')
SELECT pg_temp.step('[{"op": "replace_regex", "path": "/phone", "pattern": "[^0-9]", "with": ""}]', '{"phone": "+1 (555) 123-4567"}');
-- back references \1..\9, \& for the match, \\ for a backslash; other escapes kept
SELECT pg_temp.step($j$[{"op": "replace_regex", "path": "/d", "pattern": "(\\d{4})-(\\d{2})-(\\d{2})", "with": "\\3.\\2.\\1"}]$j$, '{"d": "on 2024-01-02 and 2025-12-31"}');
SELECT pg_temp.step($j$[{"op": "replace_regex", "path": "/s", "pattern": "b+", "with": "[\\&|\\\\|\\x|\\9]"}]$j$, '{"s": "abbc"}');
-- zero-length matches, multibyte text, a case-insensitive pattern, no match (unchanged)
SELECT pg_temp.step('[{"op": "replace_regex", "path": "/s", "pattern": "x*", "with": "-"}]', '{"s": "abc"}');
SELECT pg_temp.step('[{"op": "replace_regex", "path": "/s", "pattern": "ö+", "with": "o"}]', '{"s": "Jöörg Größe"}');
SELECT pg_temp.step('[{"op": "replace_regex", "path": "/s", "pattern": "(?i)smith", "with": "S."}]', '{"s": "SMITH smith"}');
SELECT pg_temp.step('[{"op": "replace_regex", "path": "/s", "pattern": "z", "with": "y"}]', '{"s": "abc", "n": null}');
SELECT pg_temp.step('[{"op": "replace_regex", "path": "/n", "pattern": "z", "with": "y"}]', '{"n": null}');
-- the same as regexp_replace for every case above
SELECT regexp_replace('abc', 'x*', '-', 'g'), regexp_replace('abbc', 'b+', '[\&|\\|\x|\9]', 'g');
-- a value that is not a string: 22000 (cast it first)
SELECT pg_temp.step_err('[{"op": "replace_regex", "path": "/phone", "pattern": "[^0-9]", "with": ""}]', '{"phone": 5551234567}');

\echo == require: 23514 with the message of the step, the key and the path
SELECT pg_temp.step('[{"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$", "message": "invalid phone number"}]', '{"phone": "5551234567"}');
SELECT pg_temp.step_err('[{"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$", "message": "invalid phone number"}]', '{"phone": "555"}');
SELECT pg_temp.step_err('[{"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$", "message": "invalid phone number"}]', '{}');
SELECT pg_temp.step_err('[{"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$", "message": "invalid phone number"}]', '{"phone": null}');
SELECT pg_temp.step_err('[{"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$", "message": "invalid phone number"}]', '{"phone": 5551234567}');
-- without a message: the reason is the message; without a pattern: present and not null
SELECT pg_temp.step_err('[{"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$"}]', '{"phone": "555"}');
SELECT pg_temp.step('[{"op": "require", "path": "/email"}]', '{"email": 0}');
SELECT pg_temp.step_err('[{"op": "require", "path": "/email"}]', '{"mail": "a@b"}');
-- with a key: the collection trigger names it (and the write is refused)
SELECT docmodel.register_migration('contact', '1', '2', steps => '[
  {"op": "require", "path": "/phone", "pattern": "^[0-9]{10}$", "message": "invalid phone number"}]');
SELECT pg_temp.try($$SELECT docmodel.insert('guide_users', 'contact::7', '{"_schema": "1", "phone": "12"}')$$);
SELECT count(*) FROM guide_users WHERE id = 'contact::7';
-- inside a for_each the detail names the element's path
SELECT pg_temp.step_err('[{"op": "for_each", "path": "/phones", "steps": [{"op": "require", "path": "/number", "pattern": "^[0-9]+$", "message": "invalid phone number"}]}]',
  '{"phones": [{"number": "1"}, {"number": "x"}]}');

\echo == format_date: ISO 8601 or epoch numbers to YYYY-MM-DD (or date-time), in UTC
SELECT pg_temp.step('[
  {"op": "format_date", "path": "/a"},
  {"op": "format_date", "path": "/b", "format": "date"},
  {"op": "format_date", "path": "/c", "unit": "s"},
  {"op": "format_date", "path": "/d", "unit": "day"},
  {"op": "format_date", "path": "/e", "format": "date-time"},
  {"op": "format_date", "path": "/f", "format": "date-time", "unit": "min"},
  {"op": "format_date", "path": "/g"},
  {"op": "format_date", "path": "/h", "format": "date-time"}]',
  '{"a": "2024-01-02T23:30:00-05:00", "b": 1544759124000, "c": 1544759124, "d": 19000,
    "e": "2024-01-02", "f": 1, "g": -1, "h": 1544759124000.7}');
-- the same in every session (TimeZone, DateStyle)
SET TimeZone = 'Pacific/Kiritimati';
SET DateStyle = 'SQL, DMY';
SELECT pg_temp.step('[{"op": "format_date", "path": "/a"}, {"op": "format_date", "path": "/b", "format": "date-time"}]',
  '{"a": "2024-01-02T23:30:00", "b": 1704238200000}');
RESET TimeZone;
RESET DateStyle;
-- errors: not ISO 8601 (22007), out of range (22008), another type (22000)
SELECT pg_temp.step_err('[{"op": "format_date", "path": "/d"}]', '{"d": "01/02/2024"}');
SELECT pg_temp.step_err('[{"op": "format_date", "path": "/d", "unit": "day"}]', '{"d": 3000000}');
SELECT pg_temp.step_err('[{"op": "format_date", "path": "/d"}]', '{"d": true}');

\echo == bad steps are refused when registered (22023, naming the step and the member)
SELECT pg_temp.reg('[{"op": "move", "from": "/a", "path": "/b", "missing": "ignore"}]');
SELECT pg_temp.reg('[{"op": "cast", "path": "/a", "to": "number", "missing": true}]');
SELECT pg_temp.reg('[{"op": "add", "path": "/a", "value": 1, "missing": "skip"}]');
SELECT pg_temp.reg('[{"op": "default", "path": "/a", "value": 1, "missing": "skip"}]');
SELECT pg_temp.reg('[{"op": "drop_empty", "path": "a"}]');
SELECT pg_temp.reg('[{"op": "drop_empty", "value": 1}]');
SELECT pg_temp.reg('[{"op": "replace_regex", "path": "/p", "with": ""}]');
SELECT pg_temp.reg('[{"op": "replace_regex", "path": "/p", "pattern": "x"}]');
SELECT pg_temp.reg('[{"op": "replace_regex", "path": "/p", "pattern": "(a", "with": ""}]');
SELECT pg_temp.reg('[{"op": "replace_regex", "path": "/p", "pattern": 1, "with": ""}]');
SELECT pg_temp.reg('[{"op": "replace_regex", "path": "/p", "pattern": "x", "with": null}]');
SELECT pg_temp.reg('[{"op": "replace_regex", "pattern": "x", "with": ""}]');
SELECT pg_temp.reg('[{"op": "require", "path": "/p", "pattern": "[z-a]"}]');
SELECT pg_temp.reg('[{"op": "require", "path": "/p", "message": ""}]');
SELECT pg_temp.reg('[{"op": "require", "path": "/p", "message": 7}]');
SELECT pg_temp.reg('[{"op": "require", "path": ""}]');
SELECT pg_temp.reg('[{"op": "format_date", "path": "/d", "format": "time"}]');
SELECT pg_temp.reg('[{"op": "format_date", "path": "/d", "unit": "week"}]');
SELECT pg_temp.reg('[{"op": "format_date", "path": "/d", "format": "date", "with": "x"}]');
SELECT pg_temp.reg('[{"op": "for_each", "path": "/xs", "steps": [{"op": "require", "path": "/n", "pattern": "("}]}]');
SELECT pg_temp.reg('[{"op": "to_date", "path": "/d"}]');
-- nothing was registered
SELECT count(*) FROM docmodel.migration_rules WHERE doc_type = 'greg';

SELECT docmodel.drop_collection('guide_users');
DELETE FROM docmodel.migration_rules WHERE doc_type IN ('gstep', 'user', 'contact');
