CREATE TABLE every_type(i INTEGER PRIMARY KEY, b BIGINT, s VARCHAR, tag VARCHAR, d DECIMAL(12,3), dt DATE, ts TIMESTAMP, ok BOOLEAN, f DOUBLE, iv INTERVAL, l INTEGER[], k BIGINT, price DOUBLE, r REAL);
INSERT INTO every_type SELECT i, i * 1000000007, 'row number ' || i || ' of the upgrade file', ['red', 'green', 'blue'][i % 3 + 1], i * 1.125, DATE '2000-01-01' + CAST(i AS INTEGER), TIMESTAMP '2020-02-29 12:00:00' + i * INTERVAL '1 minute', i % 2 = 0, i / 7.0, i * INTERVAL '1 day', [i, i + 1], 1000000 + i // 4, (i * 37 % 10000) / 100.0, CAST(i AS REAL) * 0.25 FROM range(1000) r(i);
UPDATE every_type SET s = NULL, f = NULL, price = NULL WHERE i % 10 = 0;
CREATE VIEW evens AS SELECT i, tag FROM every_type WHERE ok;
CREATE INDEX every_type_tag ON every_type(tag);
CHECKPOINT;
INSERT INTO every_type(i, tag, price) VALUES (1000, 'after the checkpoint', -0.0);
DELETE FROM every_type WHERE i = 999;
