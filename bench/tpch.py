#!/usr/bin/env python3
"""TPC-H: the 22 queries on stride and on DuckDB, same data, same machine.

stride generates the data itself (CALL dbgen); DuckDB loads the same rows from
tpchgen-cli's .tbl files (its own tpch extension needs a download). The engines take
turns query by query; each query runs once to warm up, then --runs times, and the
median is reported. See bench/README.md.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from harness import ROOT, StrideSession, duckdb_median, ensure, ensure_command

QUERIES = os.path.join(ROOT, "crates", "stride-tpch", "queries")
sys.path.insert(0, os.path.join(ROOT, "crates", "stride", "tests", "tpch"))


def duckdb_connection(sf, threads):
    duckdb = ensure("duckdb", "duckdb")
    ensure_command("tpchgen-cli", "tpchgen-cli")
    from make_answers import load_duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    with tempfile.TemporaryDirectory() as data:
        subprocess.run(["tpchgen-cli", "-s", str(sf), f"--output-dir={data}"], check=True)
        load_duckdb(con, data)
    return duckdb.__version__, con


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    sf = f"{args.sf:g}"
    version, con = duckdb_connection(sf, args.threads)
    stride = StrideSession([f"SET threads = {args.threads};", f"CALL dbgen(sf = {sf});"])
    # The engines take turns query by query, so a change in the machine's speed
    # during the run touches both sides of a ratio alike.
    mine, duck = [], []
    for n in range(1, 23):
        with open(os.path.join(QUERIES, f"q{n:02}.sql")) as f:
            sql = f.read()
        mine.append(stride.median(f"PRAGMA tpch({n})", args.runs))
        duck.append(duckdb_median(con, sql, args.runs))
    stride.close()
    print(f"TPC-H SF {sf}, {args.threads} threads, median of {args.runs} hot runs; DuckDB {version}")
    print(f"{'query':<8}{'stride (s)':>12}{'duckdb (s)':>12}{'ratio':>8}")
    for n in range(22):
        print(f"Q{n + 1:02}{'':<5}{mine[n]:>12.4f}{duck[n]:>12.4f}{mine[n] / duck[n]:>8.2f}")
    print(f"{'SUM':<8}{sum(mine):>12.4f}{sum(duck):>12.4f}{sum(mine) / sum(duck):>8.2f}")
    gm, gd = statistics.geometric_mean(mine), statistics.geometric_mean(duck)
    print(f"{'GEOMEAN':<8}{gm:>12.4f}{gd:>12.4f}{gm / gd:>8.2f}")


if __name__ == "__main__":
    main()
