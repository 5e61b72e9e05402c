#!/usr/bin/env python3
"""stride vs DuckDB on the function library (issue 21's speed measures): median and
quantile_cont over --rows rows (10,000,000 by default) grouped by 1,000 keys,
approx_count_distinct over 10 x --rows rows, regexp_extract and json_extract_string over --rows strings,
list_transform over --rows lists and a PIVOT of --rows rows; each query reduced to one row so that result
transfer does not count. See bench/README.md."""

import argparse

from harness import compare_in_memory


def setup(rows):
    return [
        f"CREATE OR REPLACE TABLE f AS SELECT i, i % 1000 AS k, (i * 7919) % 100003 AS v, i % 10 AS a, i % 100 AS b, "
        f"'id=' || i::VARCHAR || '&name=item' || (i % 100)::VARCHAR AS s, [i, i + 1, i + 2] AS l, "
        f"'{{\"id\": ' || i::VARCHAR || ', \"name\": \"item' || (i % 100)::VARCHAR || '\"}}' AS j "
        f"FROM range({rows}) t(i)",
    ]


def queries(rows):
    return [
        ("median by 1000 keys", "SELECT sum(m) FROM (SELECT k, median(v) AS m FROM f GROUP BY k)"),
        ("quantile_cont 0.9 by 1000 keys", "SELECT sum(q) FROM (SELECT k, quantile_cont(v, 0.9) AS q FROM f GROUP BY k)"),
        ("approx_count_distinct", f"SELECT approx_count_distinct(i) > 0 FROM range({rows * 10}) t(i)"),
        ("regexp_extract", "SELECT sum(length(regexp_extract(s, 'id=([0-9]+)', 1))) FROM f"),
        ("json_extract_string", "SELECT sum(length(json_extract_string(j, '$.name'))) FROM f"),
        ("list_transform", "SELECT sum(list_sum(list_transform(l, lambda x: x + 1))) FROM f"),
        ("pivot 10 values x 100 groups", "PIVOT f ON a USING sum(v) GROUP BY b"),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    compare_in_memory(setup(args.rows), queries(args.rows), args.rows, args.runs, args.threads)


if __name__ == "__main__":
    main()
