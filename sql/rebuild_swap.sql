-- Rebuild and swap: a filter that received far more items than it was
-- sized for answers "maybe" too often.  bloom_info tells from its fill
-- (estimated_fpr well above target_fpr); the fix is to rebuild it from the
-- table, sized from the data, and swap it in within one transaction so
-- readers never see a half-done state.
-- Run: sqlite3 :memory: < sql/rebuild_swap.sql
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

CREATE TABLE sessions(token TEXT PRIMARY KEY);
CREATE TABLE carts(cart_id INTEGER PRIMARY KEY);
INSERT INTO sessions SELECT printf('tok-%x', value * 2654435761) FROM generate_series(1, 30000);
INSERT INTO carts SELECT value FROM generate_series(1, 3000);

-- The sessions filter was sized for 5,000 tokens and has 30,000 now; the
-- carts filter is within its capacity.
CREATE TABLE filters(name TEXT PRIMARY KEY, source TEXT, f BLOB);
INSERT INTO filters
  SELECT 'sessions', 'sessions', bloom_build(token, 5000, 0.01) FROM sessions;
INSERT INTO filters
  SELECT 'carts', 'carts', bloom_build(cart_id, 5000, 0.01) FROM carts;

-- Which filters are saturated?
SELECT name, i.capacity, i.inserted, round(i.fill_ratio, 3) AS fill,
       i.target_fpr, round(i.estimated_fpr, 4) AS est_fpr,
       i.estimated_fpr > 2 * i.target_fpr AS saturated
  FROM filters, bloom_info(filters.f) AS i;

-- Rebuild the saturated ones in one transaction.  Sized from the data
-- (n = NULL) with the same target rate.
BEGIN;
UPDATE filters
   SET f = (SELECT bloom_build(token, NULL, i.target_fpr) FROM sessions)
  FROM bloom_info(filters.f) AS i
 WHERE filters.source = 'sessions' AND i.estimated_fpr > 2 * i.target_fpr;
COMMIT;

SELECT name, i.capacity, i.inserted, round(i.estimated_fpr, 4) AS est_fpr
  FROM filters, bloom_info(filters.f) AS i;

.mode list
.headers off
SELECT 'check|no filter is saturated after the rebuild|' ||
       (SELECT count(*) = 0 FROM filters, bloom_info(filters.f) AS i
         WHERE i.estimated_fpr > 2 * i.target_fpr);
SELECT 'check|the rebuilt filter holds every token|' ||
       (SELECT count(*) = 0 FROM sessions, filters
         WHERE filters.name = 'sessions' AND NOT bloom_test(filters.f, sessions.token));
SELECT 'check|the rebuilt filter is sized for the 30,000 tokens|' ||
       (SELECT capacity = 30000 FROM filters, bloom_info(filters.f) WHERE name = 'sessions');
SELECT 'check|the carts filter was left alone|' ||
       ((SELECT f FROM filters WHERE name = 'carts') = (SELECT bloom_build(cart_id, 5000, 0.01) FROM carts));
