-- cuckoo_sync: a cuckoo filter kept exact by triggers, so that it always
-- holds the set of values present in a column, as cuckoo_build would.
-- Run from the project root:  sqlite3 :memory: < sql/cuckoo_sync.sql
--
-- bloom is dedicated to the public domain by its authors: anyone may use,
-- copy, modify and distribute it, for any purpose, without asking.  Where
-- the law does not allow that dedication, the authors give everyone the
-- same permission.  bloom is provided as is, without warranty of any
-- kind, express or implied; its authors are not liable for any claim or
-- damage arising from its use.
--
-- Rules that keep it exact:
--   * add a value when its first row arrives, delete it when its last row
--     leaves (for a unique key every row is the first and the last);
--   * delete only what was added: cuckoo_delete of a value that is not in
--     the filter may remove another value's fingerprint;
--   * the key column compares with BINARY collation (the filter hashes
--     bytes: 'A' and 'a' are two values even where NOCASE says equal);
--   * REPLACE deletes the old row without firing DELETE triggers unless
--     PRAGMA recursive_triggers = ON; use UPSERT (shown at the end).
-- A failing cuckoo_add (a full filter: "cuckoo_add: the filter is full")
-- aborts the statement that fired it, so the table and the filter never
-- disagree; rebuild the filter with a larger n.
.load ./bloom
.mode list
.headers off

CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters VALUES
  ('users',  (SELECT cuckoo_build(NULL, 1000, 0.01))),   -- empty filters
  ('visits', (SELECT cuckoo_build(NULL, 500, 0.01)));

-- 1. A unique key: one add or delete per row.
CREATE TABLE users(email TEXT PRIMARY KEY, name TEXT);

CREATE TRIGGER users_filter_insert AFTER INSERT ON users BEGIN
  UPDATE filters SET f = cuckoo_add(f, NEW.email) WHERE name = 'users';
END;
CREATE TRIGGER users_filter_delete AFTER DELETE ON users BEGIN
  UPDATE filters SET f = cuckoo_delete(f, OLD.email) WHERE name = 'users';
END;
-- Delete first, then add: a full filter still has room for the new value.
CREATE TRIGGER users_filter_update AFTER UPDATE OF email ON users BEGIN
  UPDATE filters SET f = cuckoo_add(cuckoo_delete(f, OLD.email), NEW.email)
   WHERE name = 'users';
END;

-- 2. A key that repeats: the index on url makes each WHEN clause one probe.
CREATE TABLE visits(id INTEGER PRIMARY KEY, url TEXT);
CREATE INDEX visits_url ON visits(url);

CREATE TRIGGER visits_filter_insert AFTER INSERT ON visits
  WHEN NOT EXISTS (SELECT 1 FROM visits WHERE url = NEW.url AND id <> NEW.id)
BEGIN
  UPDATE filters SET f = cuckoo_add(f, NEW.url) WHERE name = 'visits';
END;
CREATE TRIGGER visits_filter_delete AFTER DELETE ON visits
  WHEN NOT EXISTS (SELECT 1 FROM visits WHERE url = OLD.url)
BEGIN
  UPDATE filters SET f = cuckoo_delete(f, OLD.url) WHERE name = 'visits';
END;
CREATE TRIGGER visits_filter_update AFTER UPDATE OF url ON visits
  WHEN OLD.url IS NOT NEW.url
BEGIN
  UPDATE filters SET f = cuckoo_delete(f, OLD.url)
   WHERE name = 'visits' AND NOT EXISTS (SELECT 1 FROM visits WHERE url = OLD.url);
  UPDATE filters SET f = cuckoo_add(f, NEW.url)
   WHERE name = 'visits'
     AND NOT EXISTS (SELECT 1 FROM visits WHERE url = NEW.url AND id <> NEW.id);
END;

-- "In sync": the kept filter and a fresh cuckoo_build of the table hold the
-- same set.  Their bytes may differ (where a fingerprint sits depends on
-- insertion order), but a probe's answer depends only on the set stored, so
-- they must agree on every probe, and their item counts must be equal.
CREATE VIEW users_in_sync AS
WITH fresh(f) AS (SELECT cuckoo_build(email, 1000, 0.01) FROM users),
     probe(v) AS (SELECT 'user' || value || '@example.com'
                    FROM generate_series(1, 4000))
SELECT (SELECT i.items FROM filters, cuckoo_info(filters.f) AS i
         WHERE filters.name = 'users')
         = (SELECT count(DISTINCT email) FROM users)
   AND (SELECT count(*) FROM users, filters
         WHERE filters.name = 'users' AND NOT cuckoo_test(f, email)) = 0
   AND (SELECT count(*)
          FROM bloom_ref((SELECT f FROM filters WHERE name = 'users')) AS a
          CROSS JOIN bloom_ref((SELECT f FROM fresh)) AS b
          CROSS JOIN probe
         WHERE cuckoo_test(a.filter, v) IS NOT cuckoo_test(b.filter, v)) = 0;

CREATE VIEW visits_in_sync AS
WITH fresh(f) AS (SELECT cuckoo_build(url, 500, 0.01) FROM visits),
     probe(v) AS (SELECT 'https://example.com/' || value
                    FROM generate_series(0, 999))
SELECT (SELECT i.items FROM filters, cuckoo_info(filters.f) AS i
         WHERE filters.name = 'visits')
         = (SELECT count(DISTINCT url) FROM visits)
   AND (SELECT count(*) FROM visits, filters
         WHERE filters.name = 'visits' AND NOT cuckoo_test(f, url)) = 0
   AND (SELECT count(*)
          FROM bloom_ref((SELECT f FROM filters WHERE name = 'visits')) AS a
          CROSS JOIN bloom_ref((SELECT f FROM fresh)) AS b
          CROSS JOIN probe
         WHERE cuckoo_test(a.filter, v) IS NOT cuckoo_test(b.filter, v)) = 0;

-- Unique key: inserts, deletes, key updates.
INSERT INTO users SELECT 'user' || value || '@example.com', 'name ' || value
  FROM generate_series(1, 900);
SELECT 'check|users: 900 inserts keep the filter in sync|' || (SELECT * FROM users_in_sync);
DELETE FROM users WHERE rowid % 3 = 0;
SELECT 'check|users: deleting a third of the rows keeps it in sync|' || (SELECT * FROM users_in_sync);
UPDATE users SET email = 'user' || (rowid + 2000) || '@example.com' WHERE rowid % 5 = 1;
SELECT 'check|users: changing 120 keys keeps it in sync|' || (SELECT * FROM users_in_sync);
SELECT 'check|users: a deleted key tests 0, a changed key tests 0 under its old value and 1 under its new|' ||
       (SELECT cuckoo_test(f, 'user3@example.com') = 0
           AND cuckoo_test(f, 'user1@example.com') = 0
           AND cuckoo_test(f, 'user2001@example.com') = 1
          FROM filters WHERE name = 'users');
-- The blob's size never changes, so each trigger rewrites only the pages
-- that changed.
SELECT 'check|users: the filter is as long as when it was empty|' ||
       (SELECT length(f) = length(cuckoo_build(NULL, 1000, 0.01)) FROM filters WHERE name = 'users');

-- Repeating key: 3000 visits over 300 URLs.
INSERT INTO visits(url) SELECT 'https://example.com/' || (value * 7 % 300)
  FROM generate_series(1, 3000);
SELECT 'check|visits: 3000 rows over 300 URLs give 300 items, in sync|' ||
       ((SELECT i.items FROM filters, cuckoo_info(filters.f) AS i WHERE filters.name = 'visits') = 300
        AND (SELECT * FROM visits_in_sync));
DELETE FROM visits WHERE id % 7 = 0;
SELECT 'check|visits: deleting some rows of every URL removes none, in sync|' ||
       ((SELECT i.items FROM filters, cuckoo_info(filters.f) AS i WHERE filters.name = 'visits') = 300
        AND (SELECT * FROM visits_in_sync));
DELETE FROM visits WHERE url IN (SELECT 'https://example.com/' || value FROM generate_series(0, 49));
SELECT 'check|visits: deleting the last rows of 50 URLs removes exactly those|' ||
       ((SELECT i.items FROM filters, cuckoo_info(filters.f) AS i WHERE filters.name = 'visits') = 250
        AND (SELECT * FROM visits_in_sync));
UPDATE visits SET url = 'https://example.com/' || (id % 100 + 400) WHERE id % 10 = 1;
SELECT 'check|visits: moving rows to other URLs (some the last of theirs) keeps it in sync|' ||
       (SELECT * FROM visits_in_sync);

-- REPLACE.  With recursive_triggers OFF (the default), REPLACE deletes the
-- conflicting row silently: the DELETE trigger does not fire, the INSERT
-- trigger does, and the filter gets a second copy of the key.
PRAGMA recursive_triggers = OFF;
REPLACE INTO users VALUES ('user2@example.com', 'replaced');
SELECT 'check|REPLACE with recursive_triggers OFF: no DELETE trigger, items = distinct + 1, out of sync|' ||
       ((SELECT i.items FROM filters, cuckoo_info(filters.f) AS i WHERE filters.name = 'users')
          = (SELECT count(*) FROM users) + 1
        AND (SELECT * FROM users_in_sync) = 0);
DELETE FROM users WHERE email = 'user2@example.com';
SELECT 'check|... and after the row is deleted the filter still says maybe (a stale copy)|' ||
       (SELECT cuckoo_test(f, 'user2@example.com') = 1 FROM filters WHERE name = 'users');
-- Repair: rebuild from the table (same n and p, same shape).
UPDATE filters SET f = (SELECT cuckoo_build(email, 1000, 0.01) FROM users) WHERE name = 'users';
SELECT 'check|a rebuild from the table repairs it|' || (SELECT * FROM users_in_sync);

-- With recursive_triggers ON, REPLACE fires the DELETE trigger first.
PRAGMA recursive_triggers = ON;
REPLACE INTO users VALUES ('user4@example.com', 'replaced');
SELECT 'check|REPLACE with recursive_triggers ON fires the DELETE trigger: in sync|' ||
       (SELECT * FROM users_in_sync);

-- The safe form, whatever the pragma: UPSERT.  A conflicting insert becomes
-- an UPDATE of the other columns; no filter trigger fires, none needs to.
PRAGMA recursive_triggers = OFF;
INSERT INTO users VALUES ('user5@example.com', 'upserted'), ('new@example.com', 'new')
  ON CONFLICT(email) DO UPDATE SET name = excluded.name;
SELECT 'check|UPSERT with recursive_triggers OFF: in sync, the new key added|' ||
       ((SELECT * FROM users_in_sync)
        AND (SELECT cuckoo_test(f, 'new@example.com') FROM filters WHERE name = 'users'));

-- The filter's shape and fill.
.mode line
SELECT name, i.buckets, i.fingerprint_bits, i.bytes, i.items,
       round(i.load_factor, 3) AS load_factor, round(i.estimated_fpr, 5) AS estimated_fpr
  FROM filters, cuckoo_info(filters.f) AS i ORDER BY name;
