-- De-duplicating crawled URLs: the frontier only takes URLs it has not seen.
-- A batch arrives; the filter of seen URLs drops the certainly-new ones
-- straight in, a "maybe" is confirmed against the table, and the filter is
-- updated with the batch (bloom_add keeps its size, so the page writes stay
-- small).  Run: sqlite3 :memory: < sql/url_dedup.sql
.load ./bloom
.headers on
.mode box

CREATE TABLE seen(url TEXT PRIMARY KEY);
CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters VALUES ('seen', bloom_empty(50000, 0.001));

-- Keep the filter current as URLs are recorded.
CREATE TRIGGER seen_filter AFTER INSERT ON seen BEGIN
  UPDATE filters SET f = bloom_add(f, NEW.url) WHERE name = 'seen';
END;

-- First crawl: 20,000 URLs.
INSERT INTO seen
  SELECT 'https://example.org/doc/' || value FROM generate_series(1, 20000);

-- A second batch of 10,000 links, half of them already crawled.  Insert
-- only the new ones; the filter decides without a lookup for the new ones
-- (all but its false positives, which the table then clears; none here).
CREATE TABLE batch(url TEXT);
INSERT INTO batch
  SELECT 'https://example.org/doc/' || (value * 2) FROM generate_series(5001, 15000);

CREATE TABLE decided AS
  SELECT b.url,
         bloom_probe('SELECT f FROM filters WHERE name = ''seen''', b.url) AS maybe
    FROM batch AS b;
INSERT INTO seen
  SELECT url FROM decided
   WHERE NOT maybe OR url NOT IN (SELECT url FROM seen);

SELECT (SELECT count(*) FROM batch) AS batch,
       (SELECT sum(NOT maybe) FROM decided) AS certainly_new,
       (SELECT sum(maybe) FROM decided) AS confirmed_in_table,
       (SELECT count(*) FROM seen) AS seen_now;

.mode list
.headers off
SELECT 'check|no URL was recorded twice|' ||
       ((SELECT count(*) FROM seen) = (SELECT count(DISTINCT url) FROM seen));
SELECT 'check|every new URL of the batch was recorded|' ||
       ((SELECT count(*) FROM seen) = 20000 + 5000);
SELECT 'check|the filter knows every recorded URL|' ||
       (SELECT count(*) = 0 FROM seen, filters
         WHERE filters.name = 'seen' AND NOT bloom_test(filters.f, seen.url));
SELECT 'check|the trigger-kept filter equals a fresh build|' ||
       ((SELECT f FROM filters WHERE name = 'seen') =
        (SELECT bloom_build(url, 50000, 0.001) FROM seen));
