#!/usr/bin/env python3
"""stride vs DuckDB on Parquet files (issue 16, benchmarks c and d), 2 threads:

d) writing TPC-H lineitem to Parquet with zstd, each engine from its own in-memory
   table of the same rows: time and file size;
c) the 22 TPC-H queries over views of `read_parquet` on the same files (written once
   by stride), the engines taking turns query by query; median of --runs hot runs.

See bench/README.md."""

import argparse
import os
import statistics
import tempfile
import time

from harness import ROOT, StrideSession, ensure

QUERIES = os.path.join(ROOT, "crates", "stride-tpch", "queries")
TABLES = ["nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    duckdb = ensure("duckdb", "duckdb")
    sf = f"{args.sf:g}"
    with tempfile.TemporaryDirectory() as data:
        path = lambda name: os.path.join(data, f"{name}.parquet")
        # The files, written once by stride; the lineitem write is benchmark d.
        writer = StrideSession([f"SET threads = {args.threads};", f"CALL dbgen(sf = {sf});"])
        for t in TABLES:
            if t != "lineitem":
                writer._timed(f"COPY {t} TO '{path(t)}' (FORMAT parquet, COMPRESSION zstd)")
        mine_write = writer.median(
            f"COPY lineitem TO '{path('lineitem')}' (FORMAT parquet, COMPRESSION zstd)", args.runs
        )
        writer.close()
        mine_size = os.path.getsize(path("lineitem"))

        duck = duckdb.connect()
        duck.execute(f"SET threads = {args.threads}")
        duck.execute(f"CREATE TABLE lineitem AS SELECT * FROM read_parquet('{path('lineitem')}')")
        duck_file = os.path.join(data, "duck_lineitem.parquet")
        samples = []
        for i in range(args.runs + 1):
            start = time.perf_counter()
            duck.execute(f"COPY lineitem TO '{duck_file}' (FORMAT parquet, COMPRESSION zstd)")
            if i > 0:
                samples.append(time.perf_counter() - start)
        duck_write = statistics.median(samples)
        duck_size = os.path.getsize(duck_file)
        duck.execute("DROP TABLE lineitem")

        views = [f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{path(t)}')" for t in TABLES]
        for v in views:
            duck.execute(v)
        stride = StrideSession([f"SET threads = {args.threads};"] + [v + ";" for v in views])
        mine, theirs = [], []
        for n in range(1, 23):
            with open(os.path.join(QUERIES, f"q{n:02}.sql")) as f:
                sql = f.read()
            mine.append(stride.median(sql, args.runs))
            samples = []
            for i in range(args.runs + 1):
                start = time.perf_counter()
                duck.execute(sql).fetchall()
                if i > 0:
                    samples.append(time.perf_counter() - start)
            theirs.append(statistics.median(samples))
        stride.close()

    print(f"TPC-H SF{sf} as Parquet (zstd, written by stride), {args.threads} threads, "
          f"median of {args.runs} hot runs; DuckDB {duckdb.__version__}")
    print(f"d) write lineitem: stride {mine_write:.3f} s, {mine_size / 1e6:.1f} MB; "
          f"DuckDB {duck_write:.3f} s, {duck_size / 1e6:.1f} MB; "
          f"time {mine_write / duck_write:.2f}x, size {mine_size / duck_size:.2f}x")
    print(f"{'query':<8}{'stride (s)':>12}{'duckdb (s)':>12}{'ratio':>8}")
    ratios = []
    for n, (m, d) in enumerate(zip(mine, theirs), start=1):
        ratios.append(m / d)
        print(f"Q{n:02}{m:>17.4f}{d:>12.4f}{m / d:>8.2f}")
    print(f"{'GEOMEAN':<32}{statistics.geometric_mean(ratios):>8.2f}")


if __name__ == "__main__":
    main()
