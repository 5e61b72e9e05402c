#!/usr/bin/env python3
"""stride vs DuckDB on the function library (issue 21's speed measures): median and
quantile_cont over --rows rows (10,000,000 by default) grouped by 1,000 keys,
approx_count_distinct over 10 x --rows rows, regexp_extract over --rows strings,
list_transform over --rows lists and a PIVOT of --rows rows; each query reduced to one row so that result
transfer does not count. See bench/README.md."""

import argparse
import statistics

from harness import duckdb_median, ensure, stride_medians


def setup(rows):
    return [
        f"CREATE OR REPLACE TABLE f AS SELECT i, i % 1000 AS k, (i * 7919) % 100003 AS v, i % 10 AS a, i % 100 AS b, "
        f"'id=' || i::VARCHAR || '&name=item' || (i % 100)::VARCHAR AS s, [i, i + 1, i + 2] AS l "
        f"FROM range({rows}) t(i)",
    ]


def queries(rows):
    return [
        ("median by 1000 keys", "SELECT sum(m) FROM (SELECT k, median(v) AS m FROM f GROUP BY k)"),
        ("quantile_cont 0.9 by 1000 keys", "SELECT sum(q) FROM (SELECT k, quantile_cont(v, 0.9) AS q FROM f GROUP BY k)"),
        ("approx_count_distinct", f"SELECT approx_count_distinct(i) > 0 FROM range({rows * 10}) t(i)"),
        ("regexp_extract", "SELECT sum(length(regexp_extract(s, 'id=([0-9]+)', 1))) FROM f"),
        ("list_transform", "SELECT sum(list_sum(list_transform(l, lambda x: x + 1))) FROM f"),
        ("pivot 10 values x 100 groups", "PIVOT f ON a USING sum(v) GROUP BY b"),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    duckdb = ensure("duckdb", "duckdb")
    con = duckdb.connect()
    con.execute(f"SET threads = {args.threads}")
    for s in setup(args.rows):
        con.execute(s)
    qs = queries(args.rows)
    duck = {n: duckdb_median(con, q, args.runs) for n, q in qs}
    stmts = [f"SET threads = {args.threads};"] + [s + ";" for s in setup(args.rows)]
    mine = dict(zip((n for n, _ in qs), stride_medians(stmts, [q for _, q in qs], args.runs)))
    print(f"{args.rows:,} rows, {args.threads} threads, median of {args.runs} hot runs; DuckDB {duckdb.__version__}")
    print(f"{'query':<32}{'stride (s)':>12}{'duckdb (s)':>12}{'ratio':>8}")
    ratios = []
    for name, _ in qs:
        r = mine[name] / duck[name]
        ratios.append(r)
        print(f"{name:<32}{mine[name]:>12.4f}{duck[name]:>12.4f}{r:>8.2f}")
    print(f"{'geometric mean':<56}{statistics.geometric_mean(ratios):>8.2f}")


if __name__ == "__main__":
    main()
