#!/usr/bin/env python3
"""stride vs DuckDB on the engine-foundation query set (see bench/README.md)."""

import argparse
import statistics

from harness import duckdb_median, ensure, stride_medians

QUERIES = [
    ("agg by 10 keys", "SELECT k10, count(*), sum(d), avg(d), min(m), max(m) FROM t GROUP BY k10"),
    ("agg by 1M keys", "CREATE OR REPLACE TABLE res AS SELECT k1m, count(*), sum(d), avg(d), min(m), max(m) FROM t GROUP BY k1m"),
    ("filter 1%", "SELECT count(*), sum(d), sum(m) FROM t WHERE k1m < 10000"),
    ("order by limit 10", "SELECT id, d FROM t ORDER BY d DESC, id LIMIT 10"),
    ("full order by", "CREATE OR REPLACE TABLE sorted AS SELECT d FROM t ORDER BY d"),
    ("count distinct 1M", "SELECT count(DISTINCT k1m) FROM t"),
]


def table_sql(rows):
    return (
        "CREATE OR REPLACE TABLE t AS SELECT i AS id, i % 10 AS k10, (i * 7919) % 1000000 AS k1m, "
        "CAST(i % 100003 AS DOUBLE) / 7 AS d, CAST(i % 99991 AS DECIMAL(15,2)) AS m "
        f"FROM range({rows}) r(i)"
    )


def run_duckdb(rows, runs, threads):
    duckdb = ensure("duckdb", "duckdb")
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute(table_sql(rows))
    return duckdb.__version__, {name: duckdb_median(con, q, runs) for name, q in QUERIES}


def run_stride(rows, runs, threads):
    setup = [f"SET threads = {threads};", table_sql(rows) + ";"]
    medians = stride_medians(setup, [q for _, q in QUERIES], runs)
    return {name: m for (name, _), m in zip(QUERIES, medians)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    version, duck = run_duckdb(args.rows, args.runs, args.threads)
    mine = run_stride(args.rows, args.runs, args.threads)
    print(f"{args.rows:,} rows, {args.threads} threads, median of {args.runs} hot runs; DuckDB {version}")
    print(f"{'query':<22}{'stride (s)':>12}{'duckdb (s)':>12}{'ratio':>8}")
    ratios = []
    for name, _ in QUERIES:
        r = mine[name] / duck[name]
        ratios.append(r)
        print(f"{name:<22}{mine[name]:>12.4f}{duck[name]:>12.4f}{r:>8.2f}")
    geo = statistics.geometric_mean(ratios)
    print(f"{'geometric mean':<46}{geo:>8.2f}")


if __name__ == "__main__":
    main()
