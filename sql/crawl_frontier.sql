-- A crawler's frontier where the filter is the only record of what was
-- seen: no table of URLs at all, a few bits per URL.  INSERT OR IGNORE adds
-- a URL only if the store has certainly not seen it, and counts a change
-- only then: changes() = 1 means "new, crawl it", 0 means "probably seen"
-- (a false positive skips a new URL about once in a thousand: fine for a
-- crawler, never a URL crawled twice).
-- Run: sqlite3 :memory: < sql/crawl_frontier.sql
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

CREATE VIRTUAL TABLE seen_urls USING bloom_store(fpr = 0.001);
CREATE TABLE counted(what TEXT, n INTEGER);

-- One URL at a time, as a crawler's loop sends them.
INSERT OR IGNORE INTO seen_urls(value) VALUES ('https://example.org/');
INSERT INTO counted VALUES ('first visit', changes());
INSERT OR IGNORE INTO seen_urls(value) VALUES ('https://example.org/');
INSERT INTO counted VALUES ('second visit', changes());

-- A page's links in one statement: changes() counts the new ones.
CREATE TABLE links(url TEXT);
INSERT INTO links
  SELECT 'https://example.org/doc/' || value FROM generate_series(1, 20000);
INSERT OR IGNORE INTO seen_urls(value) SELECT url FROM links;
INSERT INTO counted VALUES ('first batch', changes());

-- The next page links back to half of them.
INSERT INTO links
  SELECT 'https://example.org/doc/' || value FROM generate_series(10001, 30000);
INSERT OR IGNORE INTO seen_urls(value)
  SELECT url FROM links WHERE rowid > 20000;
INSERT INTO counted VALUES ('second batch', changes());
SELECT * FROM counted;

.mode list
.headers off
SELECT 'check|a new URL counts one change, a repeat none|' ||
       ((SELECT n FROM counted WHERE what = 'first visit') = 1 AND
        (SELECT n FROM counted WHERE what = 'second visit') = 0);
SELECT 'check|the first batch counts its new links, false positives aside|' ||
       (SELECT n BETWEEN 19900 AND 20000 FROM counted WHERE what = 'first batch');
SELECT 'check|the second batch counts only its 10,000 new links|' ||
       (SELECT n BETWEEN 9950 AND 10000 FROM counted WHERE what = 'second batch');
SELECT 'check|every URL sent is answered "seen": no false negative|' ||
       (SELECT count(*) = 0 FROM links
         WHERE NOT EXISTS (SELECT 1 FROM seen_urls WHERE value = links.url));
SELECT 'check|the store counted only the URLs it added|' ||
       ((SELECT sum(inserted) FROM bloom_layers((SELECT filter FROM seen_urls)))
        = (SELECT sum(n) FROM counted));
