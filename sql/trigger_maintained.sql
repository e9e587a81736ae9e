-- A filter kept current by a trigger: every row inserted into orders is
-- added to the stored filter in the same transaction, so a rolled-back
-- insert leaves no trace in the filter either.
-- Run: sqlite3 :memory: < sql/trigger_maintained.sql
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

CREATE TABLE orders(id INTEGER PRIMARY KEY, customer TEXT);
CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters VALUES ('orders', bloom_empty(20000, 0.01));

-- bloom_add returns a filter of the same size, so SQLite rewrites only the
-- pages whose bits changed.
CREATE TRIGGER orders_filter AFTER INSERT ON orders BEGIN
  UPDATE filters SET f = bloom_add(f, NEW.id) WHERE name = 'orders';
END;

BEGIN;
INSERT INTO orders(id, customer)
  SELECT value, 'c' || (value % 97) FROM generate_series(1, 5000);
COMMIT;

-- A transaction that is rolled back: its ids must not be in the filter.
BEGIN;
INSERT INTO orders(id, customer)
  SELECT value, 'rolled back' FROM generate_series(900001, 905000);
ROLLBACK;

BEGIN;
INSERT INTO orders(id, customer)
  SELECT value, 'c' || (value % 97) FROM generate_series(5001, 10000);
SAVEPOINT half;
INSERT INTO orders(id, customer)
  SELECT value, 'undone' FROM generate_series(800001, 801000);
ROLLBACK TO half;
COMMIT;

SELECT i.capacity, i.inserted, i.bits_set, round(i.estimated_fpr, 5) AS est_fpr
  FROM filters, bloom_info(filters.f) AS i WHERE name = 'orders';

.mode list
.headers off
SELECT 'check|the filter equals a fresh bloom_build of the table|' ||
       ((SELECT f FROM filters WHERE name = 'orders') =
        (SELECT bloom_build(id, 20000, 0.01) FROM orders));
SELECT 'check|every order id tests 1|' ||
       (SELECT count(*) = 0 FROM orders, filters
         WHERE filters.name = 'orders' AND NOT bloom_test(filters.f, orders.id));
SELECT 'check|the filter counted 10,000 inserts|' ||
       (SELECT inserted = 10000 FROM filters, bloom_info(filters.f) WHERE name = 'orders');
