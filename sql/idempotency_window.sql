-- bloom is dedicated to the public domain by its authors: anyone may use,
-- copy, modify and distribute it, for any purpose, without asking.  Where
-- the law does not allow that dedication, the authors give everyone the
-- same permission.  bloom is provided as is, without warranty of any
-- kind, express or implied; its authors are not liable for any claim or
-- damage arising from its use.
--
-- Request ids kept a day, as payment APIs keep idempotency keys: a table
-- of the requests of the last day, pruned daily, and beside it a store with
-- a one-day window kept by a trigger.  A check "was this id used within the
-- day?" asks the store first: 0 is certain (no table read, not even a cold
-- index page), 1 means "look in the table".  The store forgets on its own
-- what the daily prune deletes, so it stays the size of one day.  The clock
-- is 'events', stamped from the table's own created_at, so the store and
-- the prune agree on time and the script replays three days at once.
-- Run: sqlite3 :memory: < sql/idempotency_window.sql
.load ./bloom
.headers on
.mode box

CREATE TABLE requests(id TEXT PRIMARY KEY, created_at INTEGER NOT NULL);
CREATE VIRTUAL TABLE recent_ids USING bloom_store(fpr = 0.001,
  window = '1 day', clock = 'events');
CREATE TRIGGER requests_recent AFTER INSERT ON requests BEGIN
  INSERT INTO recent_ids(value, at) VALUES (NEW.id, NEW.created_at);
END;

-- Three days from 2026-11-01 (1761955200), 5,000 requests a day, then the
-- prune a job runs each night: whatever is more than a day old goes.
INSERT INTO requests
  SELECT 'req-' || value, 1761955200 + value * 86400 / 5000
  FROM generate_series(0, 14999);
DELETE FROM requests
  WHERE created_at < (SELECT max(created_at) FROM requests) - 86400;

-- The check of an incoming id: the store, then the table when it says 1.
-- Incoming: every id of the three days, and 1,000 never used.
CREATE TABLE incoming AS
  SELECT 'req-' || value AS id,
         CASE WHEN value < 15000 THEN 1761955200 + value * 86400 / 5000 END
           AS sent_at
  FROM generate_series(0, 15999);
CREATE TABLE answers AS
  SELECT id, sent_at,
         EXISTS (SELECT 1 FROM recent_ids WHERE value = incoming.id) AS maybe,
         EXISTS (SELECT 1 FROM requests WHERE requests.id = incoming.id) AS used
  FROM incoming;
SELECT CASE WHEN used THEN 'used within the day'
            WHEN sent_at IS NULL THEN 'never used'
            ELSE 'pruned' END AS id,
       count(*) AS ids, sum(maybe) AS store_says_maybe,
       sum(NOT maybe) AS answered_by_the_store_alone
  FROM answers GROUP BY 1 ORDER BY 1;

.mode list
.headers off
SELECT 'check|no id used within the day is answered "certainly new"|' ||
       (SELECT count(*) = 0 FROM answers WHERE used AND NOT maybe);
SELECT 'check|ids never used skip the table, false positives aside|' ||
       (SELECT sum(NOT maybe) >= 0.99 * count(*) FROM answers
         WHERE sent_at IS NULL);
SELECT 'check|ids used more than a day and a quarter ago are forgotten: '
       || 'they skip the table too|' ||
       (SELECT sum(NOT maybe) >= 0.99 * count(*) FROM answers
         WHERE sent_at < (SELECT max(created_at) FROM requests) - 86400 * 1.25);
SELECT 'check|the live generations span at most a day and a quarter|' ||
       (SELECT max("end") - min(start) <= 86400 * 1.25 FROM recent_ids);
