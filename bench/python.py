#!/usr/bin/env python3
"""stride's Python package vs DuckDB's (issue 16, benchmarks a and e), both in this
process on in-memory databases with the same number of threads:

a) a 10M-row result (BIGINT, DOUBLE, VARCHAR, DATE) fetched into pyarrow, pandas and
   polars; the RSS growth while holding the Arrow table, against the table's size,
   shows whether values were copied more than once;
b) `SELECT k, sum(v) FROM df GROUP BY k` over a 10M-row pandas and polars DataFrame
   named in SQL (a replacement scan; both engines read the frame in place);
e) the round trip of `SELECT 1` (execute + fetchall);
and a filter keeping 1% of a 10M-row Parquet file read through a pyarrow Dataset and
a polars LazyFrame named in SQL (both engines push the filter into the source).

Needs the package installed: `pip install ./crates/stride-python`. See bench/README.md."""

import argparse
import gc
import os
import statistics
import sys
import time

from harness import ensure

# bench/csv.py would shadow the standard library's csv module, which pandas imports.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _here]


def median_seconds(f, runs):
    f()  # warm-up
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    duckdb = ensure("duckdb", "duckdb")
    ensure("pyarrow", "pyarrow")
    ensure("pandas", "pandas")
    ensure("polars", "polars")
    import stride

    table_sql = (
        "CREATE TABLE r AS SELECT range AS i, range / 3 AS d, 'value ' || (range % 100000) AS s, "
        f"DATE '2000-01-01' + (range % 10000)::INTEGER AS dt FROM range({args.rows})"
    )
    mine = stride.connect(config={"threads": args.threads})
    duck = duckdb.connect(config={"threads": args.threads})
    for c in (mine, duck):
        c.execute(table_sql)
    q = "SELECT * FROM r"
    cases = [
        ("pyarrow", lambda: mine.sql(q).arrow(), lambda: duck.sql(q).to_arrow_table()),
        ("pandas", lambda: mine.sql(q).df(), lambda: duck.sql(q).df()),
        ("polars", lambda: mine.sql(q).pl(), lambda: duck.sql(q).pl()),
        (
            "SELECT 1 (ms)",
            lambda: [mine.execute("SELECT 1").fetchall() for _ in range(1000)],
            lambda: [duck.execute("SELECT 1").fetchall() for _ in range(1000)],
        ),
    ]
    print(f"{args.rows:,} rows, {args.threads} threads, median of {args.runs} hot runs; "
          f"DuckDB {duckdb.__version__}")
    print(f"{'fetch into':<16}{'stride (s)':>12}{'duckdb (s)':>12}{'ratio':>8}")
    for name, s, d in cases:
        ts, td = median_seconds(s, args.runs), median_seconds(d, args.runs)
        print(f"{name:<16}{ts:>12.4f}{td:>12.4f}{ts / td:>8.2f}")
    import numpy as np
    import pandas as pd
    import polars as pl

    k = np.arange(args.rows, dtype=np.int64) % 1000
    v = np.arange(args.rows, dtype=np.float64) / 7
    frames = {"pandas": pd.DataFrame({"k": k, "v": v}), "polars": pl.DataFrame({"k": k, "v": v})}
    group = "SELECT k, sum(v) FROM df GROUP BY k"
    for name, frame in frames.items():
        # A module global: DuckDB's replacement scan looks in the calling frame's
        # locals and globals only, and the query runs inside a lambda.
        globals()["df"] = frame
        ts = median_seconds(lambda: mine.execute(group).fetchall(), args.runs)
        td = median_seconds(lambda: duck.execute(group).fetchall(), args.runs)
        print(f"{'group ' + name:<16}{ts:>12.4f}{td:>12.4f}{ts / td:>8.2f}")
    # Filters into Parquet-backed sources: a pyarrow Dataset and a polars LazyFrame
    # over the same file, each read when the query runs; 1% of the rows pass.
    import pyarrow as pa
    import pyarrow.dataset as pads
    import pyarrow.parquet as pq

    path = os.path.join(_here, ".data", "python", f"frame_{args.rows}.parquet")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        pq.write_table(pa.table({"k": np.arange(args.rows, dtype=np.int64), "v": v}), path,
                       row_group_size=122_880)
    low = args.rows // 2
    pushed = f"SELECT count(*), sum(v) FROM src WHERE k >= {low} AND k < {low + args.rows // 100}"
    for name, source in (("dataset", pads.dataset(path)), ("lazyframe", pl.scan_parquet(path))):
        globals()["src"] = source
        ts = median_seconds(lambda: mine.execute(pushed).fetchall(), args.runs)
        td = median_seconds(lambda: duck.execute(pushed).fetchall(), args.runs)
        assert mine.execute(pushed).fetchall() == duck.execute(pushed).fetchall()
        print(f"{'filter ' + name:<16}{ts:>12.4f}{td:>12.4f}{ts / td:>8.2f}")
    for engine, fetch in (("stride", lambda: mine.sql(q).arrow()),
                          ("duckdb", lambda: duck.sql(q).to_arrow_table())):
        gc.collect()
        before = rss_bytes()
        t = fetch()
        grown = rss_bytes() - before
        print(f"{engine}: Arrow table {t.nbytes / 1e6:.0f} MB, RSS grew {grown / 1e6:.0f} MB "
              f"({grown / t.nbytes:.2f}x)")
        del t


if __name__ == "__main__":
    main()
