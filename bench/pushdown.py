#!/usr/bin/env python3
"""stride vs DuckDB on filters that must reach the data (issue 22): a filter over
DISTINCT, GROUP BY, set operations and a LEFT JOIN of two 2,000,000-row tables, where
running it last would build 4 * 10^12 pairs (see bench/README.md). The tables are large
so that times are above the shell timer's millisecond resolution."""

import argparse
import statistics

from harness import duckdb_median, ensure, stride_medians

SETUP = [
    "CREATE OR REPLACE TABLE vals1 AS SELECT i, i AS j FROM range(2000000) t(i)",
    "CREATE OR REPLACE TABLE vals2 AS SELECT i AS k, i AS l FROM range(2000000) t(i)",
]

QUERIES = [
    ("distinct", "SELECT i, k FROM (SELECT DISTINCT i, k FROM vals1, vals2) t WHERE i = k AND i < 5"),
    ("group by having", "SELECT i, k, sum(j) FROM vals1, vals2 GROUP BY i, k HAVING i = k AND i < 5"),
    ("union", "SELECT * FROM (SELECT i, k FROM vals1, vals2 UNION SELECT k, i FROM vals1, vals2) t WHERE i = k AND i < 5"),
    ("except", "SELECT * FROM (SELECT i, k FROM vals1, vals2 EXCEPT SELECT k, i FROM vals1, vals2 WHERE k = 1) t WHERE i = k AND i < 5"),
    ("intersect", "SELECT * FROM (SELECT i, k FROM vals1, vals2 INTERSECT SELECT k, i FROM vals1, vals2) t WHERE i = k AND i < 5"),
    ("left join implied", "SELECT count(*) FROM vals1 LEFT JOIN vals2 ON i = k WHERE i < 5"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    duckdb = ensure("duckdb", "duckdb")
    con = duckdb.connect()
    con.execute(f"SET threads = {args.threads}")
    for s in SETUP:
        con.execute(s)
    duck = {n: duckdb_median(con, q, args.runs) for n, q in QUERIES}
    setup = [f"SET threads = {args.threads};"] + [s + ";" for s in SETUP]
    mine = dict(zip((n for n, _ in QUERIES), stride_medians(setup, [q for _, q in QUERIES], args.runs)))
    print(f"{args.threads} threads, median of {args.runs} hot runs; DuckDB {duckdb.__version__}")
    print(f"{'query':<20}{'stride (s)':>12}{'duckdb (s)':>12}{'ratio':>8}")
    ratios = []
    for name, _ in QUERIES:
        r = mine[name] / duck[name]
        ratios.append(r)
        print(f"{name:<20}{mine[name]:>12.4f}{duck[name]:>12.4f}{r:>8.2f}")
    print(f"{'geometric mean':<44}{statistics.geometric_mean(ratios):>8.2f}")


if __name__ == "__main__":
    main()
