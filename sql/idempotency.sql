-- Idempotency: "have we processed this request before?"  Which tool answers
-- depends on what follows the check (make bench-usecases measures each;
-- README, "When it pays"):
--
-- bloom is dedicated to the public domain by its authors: anyone may use,
-- copy, modify and distribute it, for any purpose, without asking.  Where
-- the law does not allow that dedication, the authors give everyone the
-- same permission.  bloom is provided as is, without warranty of any
-- kind, express or implied; its authors are not liable for any claim or
-- damage arising from its use.
--
-- 1. The check is followed by recording the id in the table, as in the
--    classic idempotency table: use the PRIMARY KEY alone.  INSERT OR
--    IGNORE records a new id and changes() says whether it was new.
--    Recording an id reads its index page whatever answered the check, so
--    a filter in front of it only adds work.
-- 2. A repeat may be dropped, and a new id may, once in a thousand, be
--    taken for a repeat (at-most-once handling of events, notifications,
--    webhooks): make a store the only record.  INSERT OR IGNORE INTO
--    seen(value) adds the id only if it is certainly new, and changes()
--    says which: a few bits an id, small enough to stay in memory, instead
--    of a table and its index.
-- 3. The check is not followed by a write (a status query, a replica, a
--    service that only reads): a store kept by a trigger answers "certainly
--    new" for most unknown ids without touching the table or its index;
--    only a "maybe" is confirmed there.
-- Run: sqlite3 :memory: < sql/idempotency.sql
.load ./bloom
.headers on
.mode box

CREATE TABLE counted(what TEXT PRIMARY KEY, n INTEGER);

-- 1. The table is the record, and its PRIMARY KEY the check.
CREATE TABLE processed(request_id TEXT PRIMARY KEY, response TEXT);
INSERT INTO processed
  SELECT printf('req-%08d', value), 'ok' FROM generate_series(1, 100000);

-- 50,000 incoming requests: every 10th was already processed.
CREATE TABLE incoming(seq INTEGER PRIMARY KEY, request_id TEXT);
INSERT INTO incoming(request_id)
  SELECT CASE WHEN value % 10 = 0 THEN printf('req-%08d', value)
              ELSE printf('req-%08d', 1000000 + value) END
    FROM generate_series(1, 50000);

-- One statement records the new ones; changes() counts them.  From a
-- program, run it once per request: changes() = 1 means "new, process it".
INSERT OR IGNORE INTO processed(request_id, response)
  SELECT request_id, 'ok' FROM incoming;
INSERT INTO counted VALUES ('recorded', changes());
-- The same requests again (a client retrying them all): nothing is new.
INSERT OR IGNORE INTO processed(request_id, response)
  SELECT request_id, 'ok' FROM incoming;
INSERT INTO counted VALUES ('recorded again', changes());

-- 2. A store is the only record: no table of event ids at all.
CREATE VIRTUAL TABLE seen_events USING bloom_store(fpr = 0.001);
INSERT OR IGNORE INTO seen_events(value) VALUES ('evt-1');
INSERT INTO counted VALUES ('evt-1, first delivery', changes());
INSERT OR IGNORE INTO seen_events(value) VALUES ('evt-1');
INSERT INTO counted VALUES ('evt-1, second delivery', changes());

-- 100,000 events, then a redelivery of 50,000 of which every 10th is a
-- repeat.
INSERT OR IGNORE INTO seen_events(value)
  SELECT printf('evt-%08d', value) FROM generate_series(1, 100000);
INSERT INTO counted VALUES ('events', changes());
INSERT OR IGNORE INTO seen_events(value)
  SELECT CASE WHEN value % 10 = 0 THEN printf('evt-%08d', value)
              ELSE printf('evt-%08d', 1000000 + value) END
    FROM generate_series(1, 50000);
INSERT INTO counted VALUES ('redelivery, 45,000 new', changes());
-- Every event of the first 100,000 again: all repeats.
INSERT OR IGNORE INTO seen_events(value)
  SELECT printf('evt-%08d', value) FROM generate_series(1, 100000);
INSERT INTO counted VALUES ('all repeats', changes());

-- 3. Checks that do not write: the table stays the record, and a store
-- kept by a trigger answers the checks.
CREATE VIRTUAL TABLE seen USING bloom_store(fpr = 0.001);
INSERT INTO seen(value) SELECT request_id FROM processed;
CREATE TRIGGER processed_seen AFTER INSERT ON processed BEGIN
  INSERT INTO seen(value) VALUES (NEW.request_id);
END;

-- Status queries for 50,000 ids, every 10th of them processed.
CREATE TABLE asked(seq INTEGER PRIMARY KEY, request_id TEXT);
INSERT INTO asked(request_id)
  SELECT CASE WHEN value % 10 = 0 THEN printf('req-%08d', value)
              ELSE printf('req-%08d', 2000000 + value) END
    FROM generate_series(1, 50000);
CREATE TABLE status AS
  SELECT request_id, maybe,
         CASE WHEN NOT maybe THEN 'unknown'
              ELSE coalesce((SELECT response FROM processed
                              WHERE request_id = q.request_id), 'unknown')
         END AS answer
    FROM (SELECT a.request_id,
                 EXISTS (SELECT 1 FROM seen WHERE value = a.request_id) AS maybe
            FROM asked AS a) AS q;

SELECT * FROM counted;
SELECT sum(NOT maybe) AS answered_by_the_store,
       sum(maybe) AS confirmed_in_the_table
  FROM status;

.mode list
.headers off
SELECT 'check|the PRIMARY KEY records the 45,000 new requests and counts only them|' ||
       ((SELECT n FROM counted WHERE what = 'recorded') = 45000 AND
        (SELECT count(*) FROM processed) = 145000);
SELECT 'check|requests retried all at once record nothing|' ||
       (SELECT n = 0 FROM counted WHERE what = 'recorded again');
SELECT 'check|the store alone: a new event counts one change, a repeat none|' ||
       ((SELECT n FROM counted WHERE what = 'evt-1, first delivery') = 1 AND
        (SELECT n FROM counted WHERE what = 'evt-1, second delivery') = 0);
SELECT 'check|no repeat is counted as a new event|' ||
       (SELECT n = 0 FROM counted WHERE what = 'all repeats');
SELECT 'check|new events count as new, bar about one in a thousand|' ||
       ((SELECT n BETWEEN 99800 AND 100000 FROM counted WHERE what = 'events') AND
        (SELECT n BETWEEN 44900 AND 45000 FROM counted
          WHERE what = 'redelivery, 45,000 new'));
SELECT 'check|the store counted only the events it added|' ||
       ((SELECT sum(inserted) FROM bloom_layers((SELECT filter FROM seen_events)))
        = (SELECT sum(n) FROM counted
            WHERE what NOT IN ('recorded', 'recorded again')));
SELECT 'check|no processed id is called unknown|' ||
       (SELECT count(*) = 5000 FROM status WHERE answer = 'ok');
SELECT 'check|the store answers at least 99% of the unknown ids without the table|' ||
       (SELECT sum(NOT maybe) >= 0.99 * 45000 FROM status);
