-- H2 workload: an order database in memory, with joins, aggregates, window functions, updates
-- and string work. bench/benchlib.py fills in the table sizes (the placeholders in braces).
-- Every query has a total ORDER BY, so the output is the same on every run.
CREATE TABLE customer(id INT PRIMARY KEY, name VARCHAR(40), region INT, score DECIMAL(10, 2));
CREATE TABLE item(id INT PRIMARY KEY, title VARCHAR(60), price DECIMAL(10, 2), category INT);
CREATE TABLE orders(id INT PRIMARY KEY, customer_id INT, item_id INT, qty INT, dday INT);
CREATE INDEX orders_customer ON orders(customer_id);
CREATE INDEX orders_item ON orders(item_id);

INSERT INTO customer SELECT x, 'customer-' || x, MOD(x * 7, 13), MOD(x * 37, 1000) / 10.0
  FROM SYSTEM_RANGE(1, {{CUSTOMERS}});
INSERT INTO item SELECT x, 'item ' || x || ' ' || REPEAT(CHAR(65 + MOD(x, 26)), MOD(x, 9) + 1),
  MOD(x * 53, 10000) / 100.0 + 1, MOD(x, 17) FROM SYSTEM_RANGE(1, 1500);
INSERT INTO orders SELECT x, MOD(x * 7919, {{CUSTOMERS}}) + 1, MOD(x * 104729, 1500) + 1, MOD(x, 5) + 1,
  MOD(x * 31, 365) FROM SYSTEM_RANGE(1, {{ORDERS}});

SELECT COUNT(*), SUM(qty), MIN(dday), MAX(dday) FROM orders;

SELECT c.region, COUNT(*) AS n, SUM(o.qty * i.price) AS revenue
  FROM orders o JOIN customer c ON o.customer_id = c.id JOIN item i ON o.item_id = i.id
  GROUP BY c.region ORDER BY c.region;

SELECT i.category, COUNT(DISTINCT o.customer_id) AS buyers, AVG(o.qty) AS avg_qty
  FROM orders o JOIN item i ON o.item_id = i.id GROUP BY i.category ORDER BY i.category;

SELECT id, name, total, RANK() OVER (ORDER BY total DESC, id) AS r FROM (
  SELECT c.id, c.name, SUM(o.qty * i.price) AS total
    FROM customer c JOIN orders o ON o.customer_id = c.id JOIN item i ON i.id = o.item_id
    GROUP BY c.id, c.name) t
  ORDER BY r FETCH FIRST 15 ROWS ONLY;

SELECT mon, COUNT(*), SUM(qty), SUM(SUM(qty)) OVER (ORDER BY mon) AS running
  FROM (SELECT dday / 30 AS mon, qty FROM orders) t GROUP BY mon ORDER BY mon;

UPDATE item SET price = price * 1.1 WHERE MOD(category, 3) = 0;
DELETE FROM orders WHERE MOD(id, 11) = 0;

SELECT c.region, i.category, COUNT(*) FROM orders o
  JOIN customer c ON c.id = o.customer_id JOIN item i ON i.id = o.item_id
  WHERE c.score > 50 AND i.price < 60
  GROUP BY c.region, i.category HAVING COUNT(*) > 40 ORDER BY 3 DESC, 1, 2;

SELECT UPPER(SUBSTRING(title, 1, 8)) AS t, LENGTH(title) AS len, COUNT(*) AS n
  FROM item GROUP BY UPPER(SUBSTRING(title, 1, 8)), LENGTH(title)
  ORDER BY n DESC, t, len FETCH FIRST 10 ROWS ONLY;

SELECT o.customer_id, COUNT(*) FROM orders o
  WHERE o.item_id IN (SELECT id FROM item WHERE category = 5)
    AND EXISTS (SELECT 1 FROM customer c WHERE c.id = o.customer_id AND c.region < 4)
  GROUP BY o.customer_id ORDER BY 2 DESC, 1 FETCH FIRST 10 ROWS ONLY;

SELECT SUM(qty * price) FROM orders o JOIN item i ON i.id = o.item_id;
