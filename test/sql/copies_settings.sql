-- A synchronous copy rule runs the copying collection's owner's code (its
-- triggers) as that owner, inside the statement of a writer of the source: under the writer's
-- search_path, as a foreign key's action does, but nothing that code sets
-- outlives its statement in the writer's session.
SET client_min_messages = warning;
\set VERBOSITY sqlstate
CREATE ROLE copyset_writer;
CREATE ROLE copyset_owner;
GRANT CREATE ON SCHEMA public TO copyset_writer, copyset_owner;
SET ROLE copyset_owner;
SELECT docmodel.create_collection('cs_customers') IS NOT NULL AS customers;
INSERT INTO cs_customers VALUES ('c1', '{"name": "Ann"}');
GRANT SELECT, UPDATE ON cs_customers TO copyset_writer;
SELECT docmodel.create_collection('cs_orders') IS NOT NULL AS orders;
INSERT INTO cs_orders VALUES ('o1', '{"customer": {"id": "c1"}}');
SELECT docmodel.create_copy('cs_orders', '/customer', 'cs_customers', '{"name": "/name"}') > 0 AS rule;
CREATE TABLE cs_seen (who text, path text);
CREATE FUNCTION cs_poison() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.cs_seen VALUES (current_user, pg_catalog.current_setting('search_path'));
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog', false);
    PERFORM pg_catalog.set_config('docmodel.actor', 'forged', false);
    PERFORM pg_catalog.set_config('statement_timeout', '5ms', false);
    PERFORM pg_catalog.set_config('copyset.was_here', 'yes', false);
    RETURN NEW;
END $$;
CREATE TRIGGER poison BEFORE UPDATE ON cs_orders FOR EACH ROW EXECUTE FUNCTION cs_poison();
SET ROLE copyset_writer;
SET search_path = public, pg_catalog;
UPDATE cs_customers SET doc = '{"name": "Bea"}' WHERE id = 'c1';
-- the copy was made by the owner's statement, under the writer's search_path
RESET ROLE;
SELECT doc->'customer'->>'name' AS name FROM cs_orders;
SELECT who, path FROM cs_seen;
SET ROLE copyset_writer;
-- and the writer's settings are its own again
SELECT current_setting('search_path') AS search_path,
       current_setting('docmodel.actor') AS actor,
       current_setting('statement_timeout') AS timeout,
       current_setting('copyset.was_here', true) AS custom;
RESET ROLE;
RESET search_path;
SELECT docmodel.drop_collection('cs_orders'), docmodel.drop_collection('cs_customers');
DROP TABLE cs_seen;
DROP FUNCTION cs_poison();
REVOKE CREATE ON SCHEMA public FROM copyset_writer, copyset_owner;
DROP ROLE copyset_writer;
DROP ROLE copyset_owner;
