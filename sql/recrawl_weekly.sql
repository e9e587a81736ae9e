-- A crawler that visits a URL again once a week has passed, where the
-- filter is the only record of what was crawled: a store with a window
-- forgets each URL a week after its crawl (at most an eighth of a week
-- later, with the default 8 generations of 21 hours), so INSERT OR IGNORE
-- counts a change for a URL never crawled or crawled more than a window
-- ago: "crawl it".  It does not refresh a URL it skips, so a URL met every
-- day is crawled again once its window has passed, not never.  The clock
-- is 'events' and each visit is stamped with `at`, so that the script
-- replays a month in a moment; a live crawler keeps the wall clock and
-- leaves `at` out.
-- Run: sqlite3 :memory: < sql/recrawl_weekly.sql
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

CREATE VIRTUAL TABLE crawled USING bloom_store(fpr = 0.001,
  window = '7 days', clock = 'events');

-- A site of 2,000 pages, linked every day for 30 days from 2026-11-01.
CREATE TABLE pages AS
  SELECT 'https://example.org/page/' || value AS url
  FROM generate_series(1, 2000);
CREATE TABLE days AS
  SELECT value AS day, 1761955200 + value * 86400 AS at
  FROM generate_series(0, 29);

-- The crawler's month, in the order it meets the links.
INSERT OR IGNORE INTO crawled(value, at)
  SELECT url, at FROM days, pages ORDER BY day;
CREATE TABLE counted AS SELECT changes() AS crawls;

-- The days a page is due by the rule: day 0, then the first day whose
-- generation (floor(at / span), span = 604800 / 8) is more than 8 after
-- that of the last crawl.
CREATE TABLE due AS
  WITH RECURSIVE crawl(day, at) AS (
    SELECT day, at FROM days WHERE day = 0
    UNION ALL
    SELECT (SELECT min(d.day) FROM days d
             WHERE d.at / 75600 > crawl.at / 75600 + 8),
           (SELECT min(d.at) FROM days d
             WHERE d.at / 75600 > crawl.at / 75600 + 8)
    FROM crawl WHERE crawl.day IS NOT NULL)
  SELECT day FROM crawl WHERE day IS NOT NULL;
SELECT group_concat(day, ', ') AS days_a_page_is_crawled,
       (SELECT crawls FROM counted) AS crawls FROM due;

.mode list
.headers off
SELECT 'check|a page is crawled on day 0, then each time a week and at '
       || 'most 21 hours more have passed (met daily: 8 days apart)|' ||
       ((SELECT min(day) FROM due) = 0 AND
        (SELECT count(*) FROM due) >= 3 AND
        NOT EXISTS (SELECT 1 FROM due a
                     WHERE a.day > 0 AND (SELECT a.day - max(b.day) FROM due b
                                           WHERE b.day < a.day)
                                         <> 8));
SELECT 'check|the month counts those crawls, a false positive aside|' ||
       (SELECT crawls BETWEEN 2000 * n - 6 * n AND 2000 * n
          FROM counted, (SELECT count(*) AS n FROM due));
SELECT 'check|every page crawled within the last week is answered "seen"|' ||
       (SELECT count(*) = 0 FROM pages
         WHERE NOT EXISTS (SELECT 1 FROM crawled WHERE value = pages.url));
