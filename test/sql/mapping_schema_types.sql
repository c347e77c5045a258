-- mapping_schema types a domain column as its base type (Pagila's
-- film.release_year, a domain over integer) and an enum column as its
-- labels, so that the rows' own documents are valid against it.
SET client_min_messages = warning;
CREATE DOMAIN mst_year AS integer CHECK (VALUE >= 1901 AND VALUE <= 2155);
CREATE DOMAIN mst_code AS varchar(3);
CREATE DOMAIN mst_code2 AS mst_code;
CREATE TYPE mst_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17');
CREATE TABLE mst_film (
  film_id integer PRIMARY KEY,
  title text NOT NULL,
  release_year mst_year,
  rating mst_rating DEFAULT 'G',
  rated mst_rating NOT NULL DEFAULT 'G',
  code mst_code2,
  years mst_year[],
  ratings mst_rating[]
);
INSERT INTO mst_film VALUES
  (1, 'ACADEMY DINOSAUR', 2006, 'PG', 'PG', 'AD', '{2006, 2007}', '{G,R}'),
  (2, 'ACE GOLDFINGER', NULL, NULL, 'G', NULL, NULL, NULL);
SELECT docmodel.create_mapping('mst_films', 'mst_film', 'film');
SELECT jsonb_pretty(docmodel.mapping_schema('mst_films') -> 'properties');
SELECT docmodel.register_schema('film', '1', docmodel.mapping_schema('mst_films'));
SELECT key, docmodel.schema_valid(docmodel.mapping_schema('mst_films'), doc) AS valid
FROM docmodel.denormalize('mst_films');
-- a rating outside the enum, a year given as a string: invalid
SELECT docmodel.schema_valid(docmodel.mapping_schema('mst_films'),
  doc || '{"rated": "X"}') AS bad_rating,
  docmodel.schema_valid(docmodel.mapping_schema('mst_films'),
  doc || '{"release_year": "2006"}') AS bad_year,
  docmodel.schema_valid(docmodel.mapping_schema('mst_films'),
  doc || '{"code": "ABCD"}') AS bad_code
FROM docmodel.denormalize('mst_films') WHERE key = 'film::1';
SELECT docmodel.drop_schema('film', '1');
SELECT docmodel.drop_mapping('mst_films');
DROP TABLE mst_film;
DROP DOMAIN mst_code2;
DROP DOMAIN mst_code;
DROP DOMAIN mst_year;
DROP TYPE mst_rating;
