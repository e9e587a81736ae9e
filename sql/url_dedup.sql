-- De-duplicating crawled URLs: the frontier only takes URLs it has not seen.
-- A bloom_store kept by a trigger holds every recorded URL; a batch of links
-- is inserted with the store answering "certainly new" for most of them, and
-- only a "maybe" is confirmed against the table.
-- Run: sqlite3 :memory: < sql/url_dedup.sql
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

CREATE TABLE crawled(url TEXT PRIMARY KEY);
CREATE VIRTUAL TABLE crawled_filter USING bloom_store(capacity = 50000,
                                                       fpr = 0.001);
CREATE TRIGGER crawled_ai AFTER INSERT ON crawled BEGIN
  INSERT INTO crawled_filter(value) VALUES (NEW.url);
END;

-- First crawl: 20,000 URLs.
INSERT INTO crawled
  SELECT 'https://example.org/doc/' || value FROM generate_series(1, 20000);

-- A second batch of 10,000 links, half of them already crawled.
CREATE TABLE batch(url TEXT);
INSERT INTO batch
  SELECT 'https://example.org/doc/' || (value * 2) FROM generate_series(5001, 15000);

CREATE TABLE decided AS
  SELECT b.url,
         EXISTS (SELECT 1 FROM crawled_filter WHERE value = b.url) AS maybe
    FROM batch AS b;
INSERT INTO crawled
  SELECT url FROM decided
   WHERE NOT maybe OR url NOT IN (SELECT url FROM crawled);

SELECT (SELECT count(*) FROM batch) AS batch,
       (SELECT sum(NOT maybe) FROM decided) AS certainly_new,
       (SELECT sum(maybe) FROM decided) AS confirmed_in_table,
       (SELECT count(*) FROM crawled) AS crawled_now;

.mode list
.headers off
SELECT 'check|no URL was recorded twice|' ||
       ((SELECT count(*) FROM crawled) = (SELECT count(DISTINCT url) FROM crawled));
SELECT 'check|every new URL of the batch was recorded|' ||
       ((SELECT count(*) FROM crawled) = 20000 + 5000);
SELECT 'check|the store knows every recorded URL|' ||
       (SELECT count(*) = 0 FROM crawled AS c
         WHERE NOT EXISTS (SELECT 1 FROM crawled_filter WHERE value = c.url));
SELECT 'check|the trigger-kept store equals a fresh build|' ||
       ((SELECT filter FROM crawled_filter) =
        (SELECT bloom_build(url, 50000, 0.001) FROM crawled));
