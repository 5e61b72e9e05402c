#!/usr/bin/env python3
"""stride vs DuckDB on window functions, ROLLUP and a recursive CTE (issue 15, b and c):
over a table of --rows rows (10,000,000 by default) with 1,000 partitions, each query
reduced to one row so that result transfer does not count. See bench/README.md."""

import argparse

from harness import compare_in_memory


def setup(rows):
    return [
        f"CREATE OR REPLACE TABLE w AS SELECT i AS id, i % 1000 AS k, (i * 7919) % 100003 AS v, "
        f"i % 10 AS a, i % 7 AS b, i % 5 AS c FROM range({rows}) t(i)",
        # A graph of 1,000,000 edges: a chain through 1,000,000 nodes, walked from node 0
        # for 10,000 steps.
        "CREATE OR REPLACE TABLE edges AS SELECT i AS src, i + 1 AS dst FROM range(1000000) t(i)",
    ]


QUERIES = [
    ("row_number by k", "SELECT sum(r) FROM (SELECT row_number() OVER (PARTITION BY k ORDER BY v) AS r FROM w)"),
    ("running sum", "SELECT sum(s) FROM (SELECT sum(v) OVER (ORDER BY id) AS s FROM w)"),
    ("moving avg 100", "SELECT sum(m) FROM (SELECT avg(v) OVER (ORDER BY id ROWS BETWEEN 99 PRECEDING AND CURRENT ROW) AS m FROM w)"),
    ("rank whole table", "SELECT sum(r) FROM (SELECT rank() OVER (ORDER BY v) AS r FROM w)"),
    ("lag and lead", "SELECT sum(l1), sum(l2) FROM (SELECT lag(v) OVER (PARTITION BY k ORDER BY id) AS l1, lead(v, 2) OVER (PARTITION BY k ORDER BY id) AS l2 FROM w)"),
    ("rollup 3 columns", "SELECT count(*), sum(s) FROM (SELECT a, b, c, sum(v) AS s FROM w GROUP BY ROLLUP (a, b, c))"),
    ("recursive walk", "WITH RECURSIVE r(n, d) AS (SELECT 0, 0 UNION ALL SELECT dst, d + 1 FROM r JOIN edges ON src = n WHERE d < 10000) SELECT count(*), max(n) FROM r"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    compare_in_memory(setup(args.rows), QUERIES, args.rows, args.runs, args.threads)


if __name__ == "__main__":
    main()
