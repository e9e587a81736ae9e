-- bloom is dedicated to the public domain by its authors: anyone may use,
-- copy, modify and distribute it, for any purpose, without asking.  Where
-- the law does not allow that dedication, the authors give everyone the
-- same permission.  bloom is provided as is, without warranty of any
-- kind, express or implied; its authors are not liable for any claim or
-- damage arising from its use.
--
-- Idempotency table: "have we processed this request id before?"
-- The ids already processed are kept in a bloom_store, which a trigger
-- updates as each request is recorded (one page changes per insert, at any
-- size).  The store is scalable: nobody knows how many requests a service
-- will see, so it starts small and adds layers, keeping its rate under 1%.  An incoming id that the store calls "certainly new" needs no look
-- at the big table or its index; only a "maybe" is confirmed there.
-- Run: sqlite3 :memory: < sql/idempotency.sql
.load ./bloom
.headers on
.mode box

CREATE TABLE processed(request_id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE VIRTUAL TABLE seen USING bloom_store(fpr = 0.01);
CREATE TRIGGER processed_seen AFTER INSERT ON processed BEGIN
  INSERT INTO seen(value) VALUES (NEW.request_id);
END;

-- 100,000 requests processed so far (the trigger fills the store).
INSERT INTO processed
  SELECT printf('req-%08d', value) FROM generate_series(1, 100000);

-- A stream of 50,000 incoming ids: every 10th was already processed.
CREATE TABLE incoming(seq INTEGER PRIMARY KEY, request_id TEXT);
INSERT INTO incoming(request_id)
  SELECT CASE WHEN value % 10 = 0 THEN printf('req-%08d', value)
              ELSE printf('req-%08d', 1000000 + value) END
    FROM generate_series(1, 50000);

-- Step 1: the store sorts the stream into "certainly new" and "maybe".
CREATE TABLE verdict AS
  SELECT i.seq, i.request_id,
         EXISTS (SELECT 1 FROM seen WHERE value = i.request_id) AS maybe
    FROM incoming AS i;

-- Step 2: only a "maybe" costs a lookup in the processed table; the new
-- requests are processed, and the trigger adds them to the store.
INSERT INTO processed
  SELECT request_id FROM verdict
   WHERE NOT maybe OR request_id NOT IN (SELECT request_id FROM processed);

SELECT count(*) AS incoming,
       sum(NOT maybe) AS certainly_new,
       sum(maybe) AS table_lookups,
       (SELECT count(*) FROM processed) AS processed_now
  FROM verdict;

.mode list
.headers off
SELECT 'check|no processed id is called certainly new|' ||
       (SELECT count(*) = 0 FROM verdict
         WHERE NOT maybe AND request_id IN
               (SELECT printf('req-%08d', value) FROM generate_series(1, 100000)));
SELECT 'check|the store spares at least 95% of the lookups for new ids|' ||
       (SELECT sum(NOT maybe) >= 0.95 * 45000 FROM verdict);
SELECT 'check|every new request was processed once|' ||
       ((SELECT count(*) FROM processed) = 100000 + 45000);
SELECT 'check|the store grew in layers, from 10,000 items, doubling|' ||
       ((SELECT value FROM seen_config WHERE key = 'layers') BETWEEN 4 AND 6);
SELECT 'check|every processed id is in the store|' ||
       (SELECT count(*) = 0 FROM processed AS p
         WHERE NOT EXISTS (SELECT 1 FROM seen WHERE value = p.request_id));
