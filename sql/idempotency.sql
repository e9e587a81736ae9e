-- Idempotency table: "have we processed this request id before?"
-- A filter precomputed over the processed ids answers "certainly new" without
-- touching the big table or its index; only a "maybe" is confirmed in the
-- table.  Run: sqlite3 :memory: < sql/idempotency.sql
.load ./bloom
.headers on
.mode box

CREATE TABLE processed(request_id TEXT PRIMARY KEY) WITHOUT ROWID;
INSERT INTO processed
  SELECT printf('req-%08d', value) FROM generate_series(1, 100000);

CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters
  SELECT 'processed', bloom_build(request_id, 100000, 0.01) FROM processed;

-- A stream of 50,000 incoming ids: every 10th was already processed.
CREATE TABLE incoming(seq INTEGER PRIMARY KEY, request_id TEXT);
INSERT INTO incoming(request_id)
  SELECT CASE WHEN value % 10 = 0 THEN printf('req-%08d', value)
              ELSE printf('req-%08d', 1000000 + value) END
    FROM generate_series(1, 50000);

-- Step 1: the filter sorts the stream into "certainly new" and "maybe".
-- bloom_probe reads the stored filter once for the whole statement.
CREATE TABLE verdict AS
  SELECT i.seq, i.request_id,
         bloom_probe('SELECT f FROM filters WHERE name = ''processed''',
                     i.request_id) AS maybe
    FROM incoming AS i;

-- Step 2: only a "maybe" costs a lookup in the processed table.
SELECT count(*) AS incoming,
       sum(NOT maybe) AS certainly_new,
       sum(maybe) AS table_lookups,
       sum(maybe AND request_id IN (SELECT request_id FROM processed)) AS duplicates,
       sum(maybe AND request_id NOT IN (SELECT request_id FROM processed)) AS false_alarms
  FROM verdict;

.mode list
.headers off
SELECT 'check|no processed id is called certainly new|' ||
       (SELECT count(*) = 0 FROM verdict
         WHERE NOT maybe AND request_id IN (SELECT request_id FROM processed));
SELECT 'check|the filter spares at least 95% of the lookups for new ids|' ||
       (SELECT sum(NOT maybe) >= 0.95 * sum(request_id NOT IN (SELECT request_id FROM processed))
          FROM verdict);
SELECT 'check|every duplicate was found|' ||
       (SELECT sum(maybe AND request_id IN (SELECT request_id FROM processed)) = 5000
          FROM verdict);
