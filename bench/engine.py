#!/usr/bin/env python3
"""stride vs DuckDB on the engine-foundation query set (see bench/README.md)."""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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


def ensure_duckdb():
    try:
        import duckdb  # noqa: F401
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "duckdb"])
    import duckdb

    return duckdb


def run_duckdb(rows, runs, threads):
    duckdb = ensure_duckdb()
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute(table_sql(rows))
    times = {}
    for name, q in QUERIES:
        samples = []
        for i in range(runs + 1):
            start = time.perf_counter()
            con.execute(q).fetchall()
            if i > 0:
                samples.append(time.perf_counter() - start)
        times[name] = statistics.median(samples)
    return duckdb.__version__, times


def run_stride(rows, runs, threads):
    subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "stride-cli"], cwd=ROOT)
    binary = os.path.join(ROOT, "target", "release", "stride")
    script = [f"SET threads = {threads};", table_sql(rows) + ";", ".timer on"]
    for _, q in QUERIES:
        script.extend([q + ";"] * (runs + 1))
    out = subprocess.run([binary, "-csv", "-bail"], input="\n".join(script) + "\n", capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        sys.exit(f"stride failed:\n{out.stderr}")
    reals = [float(m) for m in re.findall(r"^Run Time \(s\): real (\d+\.\d+)", out.stdout, re.M)]
    if len(reals) != len(QUERIES) * (runs + 1):
        sys.exit(f"expected {len(QUERIES) * (runs + 1)} timings from stride, got {len(reals)}")
    times = {}
    for k, (name, _) in enumerate(QUERIES):
        samples = reals[k * (runs + 1) + 1 : (k + 1) * (runs + 1)]
        times[name] = statistics.median(samples)
    return times


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
