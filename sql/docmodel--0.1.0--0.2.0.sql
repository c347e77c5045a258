-- docmodel 0.1.0 -> 0.2.0 (ALTER EXTENSION docmodel UPDATE TO '0.2.0').
-- Every change to SQL objects since 0.1.0 goes both into sql/docmodel.sql (the fresh 0.2.0
-- install) and here; test/t/040_upgrade.pl checks that both give the same objects.
\echo Use "ALTER EXTENSION docmodel UPDATE TO '0.2.0'" to load this file. \quit
