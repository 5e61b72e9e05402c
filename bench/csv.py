#!/usr/bin/env python3
"""CSV loading: stride's read_csv against DuckDB's, same file, same machine.

The file is TPC-H lineitem at --sf (default 1: 760 MB, 6,001,215 rows), made once
with tpchgen-cli into --data. Three measurements (issue "Read CSV at memory speed"):

  a) sum(l_quantity) over the raw file, columns given
  b) CREATE TABLE AS SELECT * FROM read_csv(...) with all 16 typed columns
  c) the same with every option auto-detected
  d) a selective filter (1 row in 50) over rows read whole: the filter runs while
     parsing, so the other columns are converted only for the rows it keeps

Each runs once to warm up, then --runs times; the median is reported with the ratio
stride / DuckDB. See bench/README.md.
"""

import argparse
import os
import subprocess

from harness import ROOT, duckdb_median, ensure, ensure_command, stride_medians

COLUMNS = (
    "{'l_orderkey': 'BIGINT', 'l_partkey': 'BIGINT', 'l_suppkey': 'BIGINT', "
    "'l_linenumber': 'BIGINT', 'l_quantity': 'DECIMAL(15,2)', "
    "'l_extendedprice': 'DECIMAL(15,2)', 'l_discount': 'DECIMAL(15,2)', "
    "'l_tax': 'DECIMAL(15,2)', 'l_returnflag': 'VARCHAR', 'l_linestatus': 'VARCHAR', "
    "'l_shipdate': 'DATE', 'l_commitdate': 'DATE', 'l_receiptdate': 'DATE', "
    "'l_shipinstruct': 'VARCHAR', 'l_shipmode': 'VARCHAR', 'l_comment': 'VARCHAR'}"
)


def make_file(data, sf):
    path = os.path.join(data, "lineitem.tbl")
    if not os.path.exists(path):
        ensure_command("tpchgen-cli", "tpchgen-cli")
        os.makedirs(data, exist_ok=True)
        subprocess.run(
            ["tpchgen-cli", "-s", str(sf), "--tables", "lineitem", f"--output-dir={data}"],
            check=True,
        )
    return path


def queries(path):
    typed = f"read_csv('{path}', delim = '|', header = false, columns = {COLUMNS})"
    return [
        ("a) sum(l_quantity), typed", f"SELECT sum(l_quantity) FROM {typed}"),
        ("b) CREATE TABLE AS, typed", f"CREATE OR REPLACE TABLE lineitem AS SELECT * FROM {typed}"),
        ("c) CREATE TABLE AS, detected", f"CREATE OR REPLACE TABLE lineitem2 AS SELECT * FROM read_csv('{path}')"),
        (
            "d) filter l_quantity < 2, typed",
            "SELECT count(*), max(l_orderkey), max(l_partkey), sum(l_extendedprice), max(l_shipdate), "
            f"max(l_shipinstruct), max(l_shipmode), max(l_comment) FROM {typed} WHERE l_quantity < 2",
        ),
    ]


def run_duckdb(qs, runs, threads):
    duckdb = ensure("duckdb", "duckdb")
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    return duckdb.__version__, [duckdb_median(con, sql, runs) for _, sql in qs]


def run_stride(qs, runs, threads):
    return stride_medians([f"SET threads = {threads};"], [sql for _, sql in qs], runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--data", default=os.path.join(ROOT, "bench", ".data", "csv"))
    ap.add_argument("--only", choices=["stride", "duckdb"], help="run one engine")
    args = ap.parse_args()
    path = make_file(os.path.join(args.data, f"sf{args.sf:g}"), args.sf)
    qs = queries(path)
    size = os.path.getsize(path)
    s = run_stride(qs, args.runs, args.threads) if args.only != "duckdb" else [float("nan")] * len(qs)
    version, d = run_duckdb(qs, args.runs, args.threads) if args.only != "stride" else ("-", [float("nan")] * len(qs))
    print(f"lineitem SF{args.sf:g}: {size / 1e6:.0f} MB; {args.threads} threads; median of {args.runs}; DuckDB {version}")
    print(f"{'benchmark':32} {'stride s':>9} {'duckdb s':>9} {'ratio':>7} {'stride GB/s':>12}")
    for (name, _), a, b in zip(qs, s, d):
        print(f"{name:32} {a:9.3f} {b:9.3f} {a / b:7.3f} {size / a / 1e9:12.2f}")


if __name__ == "__main__":
    main()
