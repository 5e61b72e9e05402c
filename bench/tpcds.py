#!/usr/bin/env python3
"""TPC-DS: the 99 queries on stride and on DuckDB, same data, same machine.

stride generates the data itself (CALL dsdgen); DuckDB loads the same rows from
tpcgen-cli's CSV files with the same column types (crates/stride/tests/tpcds/
make_answers.py). With --file both engines run on their own database files (stride's
checkpointed after generation, DuckDB's written by it), which is how DuckDB's users run
it; otherwise both are in memory. The engines take turns query by query; each query
runs once to warm up, then --runs times, and the median is reported. A query that
fails on one engine is reported and left out of the sums. See bench/README.md.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from harness import ROOT, StrideSession, duckdb_median, ensure, ensure_command

QUERIES = os.path.join(ROOT, "crates", "stride-tpch", "tpcds")
sys.path.insert(0, os.path.join(ROOT, "crates", "stride", "tests", "tpcds"))


def duckdb_connection(sf, threads, path):
    duckdb = ensure("duckdb", "duckdb")
    ensure_command("tpcgen-cli", "tpcgen-cli")
    from make_answers import schema

    con = duckdb.connect(path or ":memory:")
    con.execute(f"SET threads = {threads}")
    with tempfile.TemporaryDirectory() as data:
        subprocess.run(
            ["tpcgen-cli", "tpcds", "csv", "-s", str(sf), f"--output-dir={data}"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        for table, cols in schema().items():
            ddl = ", ".join(f"{c} {t}" for c, t in cols)
            columns = ", ".join(f"'{c}': '{t}'" for c, t in cols)
            con.execute(f"CREATE TABLE {table} ({ddl})")
            con.execute(
                f"INSERT INTO {table} SELECT * FROM read_csv('{data}/{table}.csv', "
                f"header=true, quote='\"', escape='\"', nullstr='', columns={{{columns}}})"
            )
    if path:
        con.execute("CHECKPOINT")
    return duckdb.__version__, con


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--file", action="store_true", help="both engines on database files")
    ap.add_argument("--queries", default="1-99", help="e.g. 1-10,42")
    args = ap.parse_args()
    sf = f"{args.sf:g}"
    numbers = []
    for part in args.queries.split(","):
        lo, _, hi = part.partition("-")
        numbers.extend(range(int(lo), int(hi or lo) + 1))
    with tempfile.TemporaryDirectory() as tmp:
        duck_path = os.path.join(tmp, "tpcds.duckdb") if args.file else None
        stride_path = os.path.join(tmp, "tpcds.stride") if args.file else None
        version, con = duckdb_connection(sf, args.threads, duck_path)
        stride = StrideSession(
            [f"SET threads = {args.threads};", f"CALL dsdgen(sf = {sf});"], database=stride_path
        )
        mine, duck, failed = {}, {}, []
        for n in numbers:
            with open(os.path.join(QUERIES, f"q{n:02}.sql")) as f:
                sql = f.read()
            try:
                duck[n] = duckdb_median(con, sql, args.runs)
            except Exception as e:  # noqa: BLE001 - reported, not fatal
                failed.append(f"Q{n:02} duckdb: {e}")
                continue
            mine[n] = stride.median(f"PRAGMA tpcds({n})", args.runs)
        stride.close()
    where = "database files" if args.file else "in memory"
    print(f"TPC-DS SF {sf}, {args.threads} threads, {where}, median of {args.runs} hot runs; DuckDB {version}")
    print(f"{'query':<8}{'stride (s)':>12}{'duckdb (s)':>12}{'ratio':>8}")
    for n in mine:
        print(f"Q{n:02}{'':<5}{mine[n]:>12.4f}{duck[n]:>12.4f}{mine[n] / duck[n]:>8.2f}")
    m, d = list(mine.values()), [duck[n] for n in mine]
    print(f"{'SUM':<8}{sum(m):>12.4f}{sum(d):>12.4f}{sum(m) / sum(d):>8.2f}")
    gm, gd = statistics.geometric_mean(m), statistics.geometric_mean(d)
    print(f"{'GEOMEAN':<8}{gm:>12.4f}{gd:>12.4f}{gm / gd:>8.2f}")
    worst = sorted(mine, key=lambda n: mine[n] / duck[n], reverse=True)[:5]
    print("slowest against DuckDB: " + ", ".join(f"Q{n:02} {mine[n] / duck[n]:.2f}x" for n in worst))
    for f in failed:
        print(f)


if __name__ == "__main__":
    main()
