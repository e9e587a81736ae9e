-- Request ids kept a day, as payment APIs keep idempotency keys: a request
-- whose id was seen in the last 24 hours is a repeat, and after that the
-- id may come back as a new request.  The table of requests is pruned
-- once a day; a store with a 24-hour window, kept by a trigger, forgets
-- by itself, and answers "certainly new" for a new id without reading the
-- table or its index.  Only a "maybe" (a repeat, or 1 in 1,000 new ids)
-- looks at the table, which has the last word.
--
-- bloom is dedicated to the public domain by its authors: anyone may use,
-- copy, modify and distribute it, for any purpose, without asking.  Where
-- the law does not allow that dedication, the authors give everyone the
-- same permission.  bloom is provided as is, without warranty of any
-- kind, express or implied; its authors are not liable for any claim or
-- damage arising from its use.
--
-- A service lets the store read the clock (clock = 'wall', the default)
-- and leaves `at` out; this script stamps each request itself (clock =
-- 'events'), so that simulated days run in a moment.
-- Run: sqlite3 :memory: < sql/idempotency_window.sql
.load ./bloom
.headers on
.mode box

CREATE TABLE requests(id TEXT PRIMARY KEY, at INTEGER NOT NULL);
CREATE VIRTUAL TABLE recent_ids USING bloom_store(fpr = 0.001,
                                                 window = '24 hours',
                                                 clock = 'events');
CREATE TRIGGER requests_seen AFTER INSERT ON requests
BEGIN
  INSERT INTO recent_ids(value, at) VALUES (NEW.id, NEW.at);
END;
-- An id back after its day is a new request: its row is stamped again.
CREATE TRIGGER requests_renewed AFTER UPDATE OF at ON requests
BEGIN
  INSERT INTO recent_ids(value, at) VALUES (NEW.id, NEW.at);
END;

-- The service's two statements, for a request :id arriving at :now:
--   is it a repeat?  The store first; the table only on a "maybe".
--     SELECT CASE WHEN EXISTS (SELECT 1 FROM recent_ids WHERE value = :id)
--                 THEN EXISTS (SELECT 1 FROM requests
--                               WHERE id = :id AND at > :now - 86400)
--                 ELSE 0 END;
--   if not, record it (an id older than a day is renewed):
--     INSERT INTO requests(id, at) VALUES (:id, :now)
--       ON CONFLICT(id) DO UPDATE SET at = excluded.at;
-- Here a table of arrivals stands for the traffic, and a trigger on it
-- for the service: 3 days, 30,000 requests a day, one in ten a retry of
-- a request of the last 20 hours, and on day 2 a few ids of day 0 again.
CREATE TABLE arrivals(n INTEGER PRIMARY KEY, id TEXT, at INTEGER,
                      store_said INTEGER, repeat INTEGER);
CREATE TRIGGER service AFTER INSERT ON arrivals
BEGIN
  UPDATE arrivals
     SET store_said = EXISTS (SELECT 1 FROM recent_ids WHERE value = NEW.id),
         repeat = CASE WHEN EXISTS (SELECT 1 FROM recent_ids
                                     WHERE value = NEW.id)
                       THEN EXISTS (SELECT 1 FROM requests WHERE id = NEW.id
                                       AND at > NEW.at - 86400)
                       ELSE 0 END
   WHERE n = NEW.n;
  INSERT INTO requests(id, at)
    SELECT NEW.id, NEW.at
     WHERE NOT (SELECT repeat FROM arrivals WHERE n = NEW.n)
    ON CONFLICT(id) DO UPDATE SET at = excluded.at;
END;

-- The traffic: request k of the run arrives at k * 86400 / 30000 seconds;
-- its id is new, or (one in ten) that of request k - 1 - (k * 7 % 25000),
-- up to about 20 hours earlier; and the 100 first ids of day 0 come back
-- on day 2, more than a day later.
INSERT INTO arrivals(n, id, at)
  SELECT value,
         'req-' || CASE WHEN value % 10 = 9 AND value > 25000
                        THEN value - 1 - (value * 7 % 25000)
                        ELSE value END,
         1700000000 + value * 86400 / 30000
    FROM generate_series(1, 90000);
INSERT INTO arrivals(n, id, at)
  SELECT 90000 + value, 'req-' || value,
         1700000000 + 90000 * 86400 / 30000 + value
    FROM generate_series(1, 100);

-- Daily pruning of the table (the store needs none).
DELETE FROM requests WHERE at <= 1700000000 + 3 * 86400 - 86400;

SELECT count(*) AS arrivals,
       count(*) FILTER (WHERE NOT store_said) AS answered_by_the_store,
       count(*) FILTER (WHERE store_said AND NOT repeat) AS maybe_but_new,
       count(*) FILTER (WHERE repeat) AS repeats
  FROM arrivals;
SELECT generation, start, "end", items FROM recent_ids;

.mode list
.headers off
SELECT 'check|every retry within its day is caught as a repeat|' ||
       (SELECT count(*) = 0 FROM arrivals AS a
         WHERE n % 10 = 9 AND n > 25000 AND n <= 90000 AND NOT repeat);
SELECT 'check|a new id is answered by the store alone, 995 in 1,000 or more|' ||
       (SELECT count(*) FILTER (WHERE NOT store_said) >=
               0.995 * count(*) FILTER (WHERE NOT repeat)
          FROM arrivals WHERE n <= 90000);
SELECT 'check|ids back after more than a day are new requests again|' ||
       (SELECT count(*) = 100 FROM arrivals WHERE n > 90000 AND NOT repeat);
SELECT 'check|the store and the table agree: no id of the last day is missed|' ||
       (SELECT count(*) = 0 FROM requests AS r
         WHERE r.at > 1700000000 + 3 * 86400 - 86400
           AND NOT EXISTS (SELECT 1 FROM recent_ids WHERE value = r.id));
