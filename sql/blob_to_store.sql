-- Moving a BLOB filter kept by a trigger into a bloom_store.  A filter
-- column updated with bloom_add costs a copy of the whole filter per insert;
-- a store changes one page.  The move: read the filter's capacity and rate
-- with bloom_info, create a store of that shape, merge the blob into it
-- (INSERT ... (filter) is a union), and switch the trigger, all in one
-- transaction.  Run: sqlite3 :memory: < sql/blob_to_store.sql
--
-- bloom is dedicated to the public domain by its authors: anyone may use,
-- copy, modify and distribute it, for any purpose, without asking.  Where
-- the law does not allow that dedication, the authors give everyone the
-- same permission.  bloom is provided as is, without warranty of any
-- kind, express or implied; its authors are not liable for any claim or
-- damage arising from its use.
.load ./bloom
.mode list

-- Before: a filter column kept by a trigger.
CREATE TABLE orders(order_id INTEGER PRIMARY KEY, customer TEXT);
CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters VALUES ('customers', bloom_empty(100000, 0.01));
CREATE TRIGGER orders_filter AFTER INSERT ON orders BEGIN
  UPDATE filters SET f = bloom_add(f, NEW.customer) WHERE name = 'customers';
END;
INSERT INTO orders(customer)
  SELECT 'customer-' || (value % 7000) FROM generate_series(1, 20000);

-- The shape to give the store: capacity 100000, target_fpr 0.01.
SELECT 'shape|' || i.capacity || '|' || i.target_fpr
  FROM filters, bloom_info(filters.f) AS i WHERE name = 'customers';

BEGIN;
CREATE VIRTUAL TABLE customers USING bloom_store(capacity = 100000, fpr = 0.01);
INSERT INTO customers(filter) SELECT f FROM filters WHERE name = 'customers';
DROP TRIGGER orders_filter;
CREATE TRIGGER orders_customers AFTER INSERT ON orders BEGIN
  INSERT INTO customers(value) VALUES (NEW.customer);
END;
COMMIT;

-- After: new orders go to the store.
INSERT INTO orders(customer) VALUES ('customer-new-1'), ('customer-new-2');

SELECT 'check|the store holds the blob filter byte for byte, plus the new rows|' ||
       ((SELECT filter FROM customers) =
        (SELECT bloom_build(customer, 100000, 0.01) FROM orders));
SELECT 'check|every customer is in the store|' ||
       (SELECT count(*) = 0 FROM orders AS o
         WHERE NOT EXISTS (SELECT 1 FROM customers WHERE value = o.customer));
SELECT 'check|the old trigger is gone: the BLOB filter no longer changes|' ||
       ((SELECT f FROM filters WHERE name = 'customers') =
        (SELECT bloom_build(customer, 100000, 0.01) FROM orders
          WHERE order_id <= 20000));
