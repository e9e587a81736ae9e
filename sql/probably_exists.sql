-- "Probably exists?" before an expensive lookup: an anti-join of a table
-- against another one, held in an attached database, on an expression that
-- no index serves (so each probe is a full scan).  The filter answers
-- "certainly not there" for most rows, and only a "maybe" pays for the scan.
-- Run: sqlite3 :memory: < sql/probably_exists.sql   (make bench measures the
-- same query at 10M x 1M rows.)
--
-- bloom is dedicated to the public domain by its authors: anyone may use,
-- copy, modify and distribute it, for any purpose, without asking.  Where
-- the law does not allow that dedication, the authors give everyone the
-- same permission.  bloom is provided as is, without warranty of any
-- kind, express or implied; its authors are not liable for any claim or
-- damage arising from its use.
.load ./bloom
.headers on
.mode box

ATTACH ':memory:' AS archive;
-- 1,000 archived keys, stored in upper case: the match is on lower(key),
-- which no index on archive.seen serves.
CREATE TABLE archive.seen(key TEXT);
INSERT INTO archive.seen
  SELECT printf('KEY-%06d', value * 5) FROM generate_series(1, 1000);

-- 5,000 new rows; every 5th key is in the archive.
CREATE TABLE batch(id INTEGER PRIMARY KEY, key TEXT);
INSERT INTO batch(key) SELECT printf('key-%06d', value) FROM generate_series(1, 5000);

-- The filter is built over the expression the join uses.
CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters
  SELECT 'archive', bloom_build(lower(key), 1000, 0.01) FROM archive.seen;

.timer on
-- Without the filter: every row scans the archive.
CREATE TABLE new_plain AS
  SELECT b.id FROM batch AS b
   WHERE NOT EXISTS (SELECT 1 FROM archive.seen AS s WHERE lower(s.key) = b.key);
-- With the filter first: a row the filter rules out never reaches the scan.
CREATE TABLE new_filtered AS
  SELECT b.id
    FROM batch AS b
   WHERE NOT bloom_probe('SELECT f FROM filters WHERE name = ''archive''', b.key)
      OR NOT EXISTS (SELECT 1 FROM archive.seen AS s WHERE lower(s.key) = b.key);
.timer off

SELECT (SELECT count(*) FROM new_plain) AS new_rows,
       (SELECT count(*) FROM batch AS b
         WHERE bloom_probe('SELECT f FROM filters', b.key)) AS scans_with_filter,
       (SELECT count(*) FROM batch) AS scans_without;

.mode list
.headers off
SELECT 'check|the filtered anti-join gives the same rows|' ||
       ((SELECT group_concat(id) FROM (SELECT id FROM new_plain ORDER BY id)) IS
        (SELECT group_concat(id) FROM (SELECT id FROM new_filtered ORDER BY id)));
SELECT 'check|4,000 rows are new|' || ((SELECT count(*) FROM new_plain) = 4000);
SELECT 'check|the filter leaves at most a quarter of the scans|' ||
       ((SELECT count(*) FROM batch AS b
          WHERE bloom_probe('SELECT f FROM filters', b.key)) <= 1250);
