#!/usr/bin/env python3
"""TPC-H: the 22 queries on stride and on DuckDB, same data, same machine.

stride generates the data itself (CALL dbgen); DuckDB loads the same rows from
tpchgen-cli's .tbl files (its own tpch extension needs a download). The engines take
turns query by query; each query runs once to warm up, then --runs times, and the
median is reported, with each engine's peak resident memory. --apart runs all of
stride's queries, closes it, and only then loads DuckDB, so that two large databases
(SF 10) need not fit in memory at once. --scaling runs stride alone at 1 and at
--threads threads and reports each query's speed-up. See bench/README.md.
"""

import argparse
import os
import resource
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


def query(n):
    with open(os.path.join(QUERIES, f"q{n:02}.sql")) as f:
        return f.read()


def duckdb_peak_rss_gb():
    """This process's peak resident memory (DuckDB runs in it), in GB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def table(title, names, a, b):
    print(title)
    print(f"{'query':<8}{names[0]:>12}{names[1]:>12}{'ratio':>8}")
    for n in range(22):
        print(f"Q{n + 1:02}{'':<5}{a[n]:>12.4f}{b[n]:>12.4f}{a[n] / b[n]:>8.2f}")
    print(f"{'SUM':<8}{sum(a):>12.4f}{sum(b):>12.4f}{sum(a) / sum(b):>8.2f}")
    ga, gb = statistics.geometric_mean(a), statistics.geometric_mean(b)
    print(f"{'GEOMEAN':<8}{ga:>12.4f}{gb:>12.4f}{ga / gb:>8.2f}")


def scaling(sf, runs, threads):
    stride = StrideSession([f"SET threads = {threads};", f"CALL dbgen(sf = {sf});"])
    one, many = [], []
    for n in range(1, 23):
        stride.execute("SET threads = 1")
        one.append(stride.median(f"PRAGMA tpch({n})", runs))
        stride.execute(f"SET threads = {threads}")
        many.append(stride.median(f"PRAGMA tpch({n})", runs))
    stride.close()
    # The ratio column is the speed-up: 1 thread's time over `threads` threads'.
    table(
        f"stride TPC-H SF {sf}, 1 and {threads} threads, median of {runs} hot runs; ratio = speed-up",
        ("1 thread", f"{threads} threads"),
        one,
        many,
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--apart", action="store_true", help="one engine after the other")
    ap.add_argument("--scaling", action="store_true", help="stride at 1 and --threads threads")
    args = ap.parse_args()
    sf = f"{args.sf:g}"
    if args.scaling:
        return scaling(sf, args.runs, args.threads)
    mine, duck = [], []
    setup = [f"SET threads = {args.threads};", f"CALL dbgen(sf = {sf});"]
    if args.apart:
        stride = StrideSession(setup)
        mine = [stride.median(f"PRAGMA tpch({n})", args.runs) for n in range(1, 23)]
        stride_rss = stride.peak_rss_gb()
        stride.close()
        version, con = duckdb_connection(sf, args.threads)
        duck = [duckdb_median(con, query(n), args.runs) for n in range(1, 23)]
    else:
        version, con = duckdb_connection(sf, args.threads)
        stride = StrideSession(setup)
        # The engines take turns query by query, so a change in the machine's speed
        # during the run touches both sides of a ratio alike.
        for n in range(1, 23):
            mine.append(stride.median(f"PRAGMA tpch({n})", args.runs))
            duck.append(duckdb_median(con, query(n), args.runs))
        stride_rss = stride.peak_rss_gb()
        stride.close()
    order = "one after the other" if args.apart else "taking turns"
    table(
        f"TPC-H SF {sf}, {args.threads} threads, median of {args.runs} hot runs, {order}; DuckDB {version}",
        ("stride (s)", "duckdb (s)"),
        mine,
        duck,
    )
    print(f"peak RSS: stride {stride_rss:.2f} GB, DuckDB {duckdb_peak_rss_gb():.2f} GB")


if __name__ == "__main__":
    main()
