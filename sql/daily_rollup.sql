-- Per-day filters, rolled up per month.  Each day's filter is built with
-- GROUP BY; the month is the union of its days (bloom_merge), and a probe
-- against the month answers for all of its days at once.
-- Run: sqlite3 :memory: < sql/daily_rollup.sql
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

-- 60 days of visits, 1,000 a day, visitor ids repeating across days.
CREATE TABLE visits(day TEXT, visitor INTEGER);
INSERT INTO visits
  SELECT date('2026-01-01', '+' || (value / 1000) || ' days'),
         (value * 7919) % 20000
    FROM generate_series(0, 59999);

-- Every day's filter has the same n and p, hence the same shape, so the
-- days of a month can be merged bit for bit.
CREATE TABLE daily(day TEXT PRIMARY KEY, f BLOB);
INSERT INTO daily
  SELECT day, bloom_build(visitor, 20000, 0.01) FROM visits GROUP BY day;

CREATE TABLE monthly(month TEXT PRIMARY KEY, f BLOB);
INSERT INTO monthly
  SELECT substr(day, 1, 7), bloom_merge(f) FROM daily GROUP BY substr(day, 1, 7);

SELECT month, i.inserted, bloom_count(f) AS distinct_estimate,
       round(i.estimated_fpr, 4) AS est_fpr
  FROM monthly, bloom_info(monthly.f) AS i ORDER BY month;

-- Did visitor 4242 come in January?  One probe instead of 31.
SELECT month, bloom_test(f, 4242) AS visitor_4242 FROM monthly ORDER BY month;

.mode list
.headers off
SELECT 'check|each month equals bloom_build over its rows|' ||
       (SELECT min(m.f = (SELECT bloom_build(visitor, 20000, 0.01) FROM visits
                           WHERE substr(day, 1, 7) = m.month))
          FROM monthly AS m);
SELECT 'check|every visitor tests 1 in their month|' ||
       (SELECT count(*) = 0 FROM visits AS v JOIN monthly AS m
          ON m.month = substr(v.day, 1, 7) WHERE NOT bloom_test(m.f, v.visitor));
SELECT 'check|the January answer matches the table|' ||
       ((SELECT bloom_test(f, 4242) FROM monthly WHERE month = '2026-01') >=
        (SELECT count(*) > 0 FROM visits WHERE visitor = 4242 AND day LIKE '2026-01%'));
