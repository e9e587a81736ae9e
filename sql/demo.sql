-- bloom demo: a filter kept in place by a trigger (bloom_store), then a
-- filter built over a table and kept as a BLOB value, probed both ways.
-- Run from the project root:  sqlite3 :memory: < sql/demo.sql   (or: make demo)
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

-- 100,000 visited URLs, recorded as they come: a trigger adds each one to
-- a store, which changes one page per insert at any size.
CREATE TABLE visited(url TEXT PRIMARY KEY);
CREATE VIRTUAL TABLE visited_filter USING bloom_store(capacity = 100000,
                                                       fpr = 0.01);
CREATE TRIGGER visited_ai AFTER INSERT ON visited BEGIN
  INSERT INTO visited_filter(value) VALUES (NEW.url);
END;
INSERT INTO visited
  SELECT 'https://example.com/page/' || value FROM generate_series(1, 100000);

-- One value: a row means "maybe visited", no row "certainly not".
SELECT EXISTS (SELECT 1 FROM visited_filter
                WHERE value = 'https://example.com/page/42') AS seen_42,
       EXISTS (SELECT 1 FROM visited_filter
                WHERE value = 'https://example.com/never') AS seen_never;

-- The same set as a BLOB value, built once by an aggregate, sized for
-- 100,000 URLs at a 1% false-positive rate, stored like any other value.
CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters
  SELECT 'visited', bloom_build(url, 100000, 0.01) FROM visited;

-- Probing one value: 1 means "maybe visited", 0 means "certainly not".
SELECT bloom_test(f, 'https://example.com/page/42') AS seen_42,
       bloom_test(f, 'https://example.com/never')   AS seen_never
  FROM filters WHERE name = 'visited';

-- What the filter is: its shape, fill and current false-positive rate.
SELECT name, i.bits, i.hashes, i.bytes, i.inserted,
       round(i.fill_ratio, 3) AS fill, round(i.estimated_fpr, 4) AS est_fpr
  FROM filters, bloom_info(filters.f) AS i;

-- Probing many rows: bloom_probe runs the query that names the stored
-- filter once per statement, so the cost per row does not grow with the
-- filter.  200,000 candidate URLs, a quarter of them visited (50,000
-- members and about 1% of the 150,000 others: ~51,400 "maybe").
SELECT count(*) AS candidates,
       sum(bloom_probe('SELECT f FROM filters WHERE name = ''visited''',
                       'https://example.com/page/' || value)) AS maybe_visited
  FROM generate_series(50001, 250000);

-- The same through bloom_ref, the form for views and triggers.
SELECT count(*) AS candidates,
       sum(bloom_test(r.filter, 'https://example.com/page/' || value)) AS maybe_visited
  FROM bloom_ref((SELECT f FROM filters WHERE name = 'visited')) AS r
  CROSS JOIN generate_series(50001, 250000);

.mode list
.headers off
SELECT 'check|every visited URL tests 1|' ||
       (SELECT count(*) = 0 FROM filters, visited
         WHERE filters.name = 'visited' AND NOT bloom_test(f, url));
SELECT 'check|bloom_probe and bloom_ref give the same answers|' ||
       ((SELECT sum(bloom_probe('SELECT f FROM filters WHERE name = ''visited''',
                                'https://example.com/page/' || value))
           FROM generate_series(50001, 250000)) =
        (SELECT sum(bloom_test(r.filter, 'https://example.com/page/' || value))
           FROM bloom_ref((SELECT f FROM filters WHERE name = 'visited')) AS r
          CROSS JOIN generate_series(50001, 250000)));
SELECT 'check|the trigger-kept store holds exactly the built filter|' ||
       ((SELECT filter FROM visited_filter) =
        (SELECT f FROM filters WHERE name = 'visited'));
SELECT 'check|a stored filter answers 0 for an absent URL|' ||
       (SELECT bloom_test(f, 'https://example.com/never') = 0 FROM filters);
