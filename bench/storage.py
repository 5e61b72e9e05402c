#!/usr/bin/env python3
"""stride's database files against DuckDB's (and SQLite for single-row inserts), in the
same run (issue 14's benchmarks a, c, d and e; see bench/README.md):

  load     the eight TPC-H tables from CSV files into a new database file, closing
           (and so checkpointing) included; the file's size
  sum      SELECT sum(l_quantity) FROM lineitem on the reopened file, median hot time
  queries  the 22 TPC-H queries on the reopened file: the first run after opening
           (which reads the columns it needs from the file) and the median hot time
  inserts  rows per second inserted by single-row INSERTs and by 1,000-row INSERTs,
           each statement committed and synced
  update   UPDATE of 10% of lineitem's rows, committed
  delete   DELETE of 10% of lineitem's rows, committed

The CSV files are made once by stride (CALL dbgen, COPY ... TO) under --dir."""

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import time

from harness import ROOT, duckdb_median, ensure, stride_binary, StrideSession

QUERIES = os.path.join(ROOT, "crates", "stride-tpch", "queries")

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]


def build_stride():
    subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "stride-cli"], cwd=ROOT)
    return stride_binary()


def stride_run(binary, db, sql):
    """Seconds for one shell run of `sql` on database file `db` (open to close)."""
    start = time.perf_counter()
    out = subprocess.run([binary, "-bail", db], input=sql, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"stride failed: {out.stderr[-2000:]}")
    return elapsed


def table_types(binary):
    """Each TPC-H table's columns as a read_csv `columns` struct literal, with the types
    stride's dbgen gives them."""
    script = "CALL dbgen(sf = 0.001);\n" + "".join(f"DESCRIBE {t};\n" for t in TABLES)
    out = subprocess.run([binary, "-bail", "-list"], input=script, check=True,
                         capture_output=True, text=True).stdout
    columns, current = {}, None
    for line in out.splitlines():
        if line.startswith("column_name|"):
            current = TABLES[len(columns)]
            columns[current] = []
        elif current and "|" in line:
            name, ty = line.split("|")[:2]
            columns[current].append(f"'{name}': '{ty}'")
    return {t: "{" + ", ".join(c) + "}" for t, c in columns.items()}


def remove(path):
    for p in (path, path + ".wal"):
        if os.path.exists(p):
            os.remove(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--dir", default=os.path.join(ROOT, "target", "bench-storage"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--inserts", type=int, default=2000)
    ap.add_argument("--batches", type=int, default=200, help="1,000-row INSERTs for d)")
    ap.add_argument("--inserts-only", action="store_true", help="run d) alone")
    args = ap.parse_args()
    duckdb = ensure("duckdb", "duckdb")
    binary = build_stride()
    os.makedirs(args.dir, exist_ok=True)
    # d) inserts, each statement its own synced commit: single rows, then 1,000-row
    # batches (one INSERT of 1,000 rows each); the same SQL for the three engines
    single = [f"INSERT INTO t VALUES ({i}, 'row {i}')" for i in range(args.inserts)]
    batches = [
        "INSERT INTO t VALUES " + ", ".join(f"({i}, 'row {i}')" for i in range(b * 1000, (b + 1) * 1000))
        for b in range(args.batches)
    ]
    rates = {
        "single-row": insert_rates(binary, duckdb, args.dir, single, 1),
        "1,000-row batches": insert_rates(binary, duckdb, args.dir, batches, 1000),
    }
    if args.inserts_only:
        print_rates(rates)
        return
    csv = {t: os.path.join(args.dir, f"{t}-sf{args.sf:g}.csv") for t in TABLES}
    if not all(os.path.exists(p) for p in csv.values()):
        script = f"CALL dbgen(sf = {args.sf});\n" + "".join(
            f"COPY {t} TO '{csv[t]}' (HEADER);\n" for t in TABLES
        )
        subprocess.run([binary, "-bail"], input=script, check=True, capture_output=True, text=True)

    results = {}
    # a) load
    sdb, ddb = os.path.join(args.dir, "tpch.stride"), os.path.join(args.dir, "tpch.duckdb")
    remove(sdb)
    remove(ddb)
    # Both engines load the columns with TPC-H's types, as stride's dbgen makes them
    # (DECIMAL(15,2) prices, not the DOUBLE DuckDB's sniffer would pick), so that the
    # queries below compare the same arithmetic.
    types = table_types(binary)
    load = "".join(
        f"CREATE TABLE {t} AS SELECT * FROM read_csv('{csv[t]}', header = true, columns = {types[t]});\n"
        for t in TABLES
    )
    # Each load starts with no dirty pages of earlier steps left to write back (the
    # inserts above, the other engine's load), which would otherwise slow its syncs.
    os.sync()
    mine = stride_run(binary, sdb, f"SET threads = {args.threads};\n" + load)
    os.sync()
    results["load (s)"] = (mine, timed_duckdb(duckdb, ddb, args.threads, load))
    size = lambda p: os.path.getsize(p) + (os.path.getsize(p + ".wal") if os.path.exists(p + ".wal") else 0)
    results["file size (MB)"] = (size(sdb) / 1e6, size(ddb) / 1e6)

    # c) sum(l_quantity), reopened, hot
    q = "SELECT sum(l_quantity) FROM lineitem"
    session = StrideSession([f"SET threads = {args.threads};"], database=sdb)
    mine = session.median(q, args.runs)
    session.close()
    con = duckdb.connect(ddb)
    con.execute(f"SET threads = {args.threads}")
    results["sum(l_quantity) (s)"] = (mine, duckdb_median(con, q, args.runs))
    con.close()

    # b) the 22 queries on the reopened files: first run after opening, then hot
    session = StrideSession([f"SET threads = {args.threads};"], database=sdb)
    con = duckdb.connect(ddb)
    con.execute(f"SET threads = {args.threads}")
    queries = []
    for n in range(1, 23):
        with open(os.path.join(QUERIES, f"q{n:02}.sql")) as f:
            sql = f.read()
        first, hot = session.first_and_median(f"PRAGMA tpch({n})", args.runs)
        start = time.perf_counter()
        con.execute(sql).fetchall()
        duck_first = time.perf_counter() - start
        queries.append((n, first, hot, duck_first, duckdb_median(con, sql, args.runs)))
    session.close()
    con.close()

    # e) update and delete of 10% of lineitem, each committed
    upd = "UPDATE lineitem SET l_quantity = l_quantity + 1 WHERE l_orderkey % 10 = 3;\n"
    dele = "DELETE FROM lineitem WHERE l_orderkey % 10 = 7;\n"
    base = stride_run(binary, sdb, "SELECT 1;\n")
    results["update 10% (s)"] = (stride_run(binary, sdb, upd) - base, timed_duckdb(duckdb, ddb, args.threads, upd))
    results["delete 10% (s)"] = (stride_run(binary, sdb, dele) - base, timed_duckdb(duckdb, ddb, args.threads, dele))

    print(f"SF {args.sf:g}, {args.threads} threads; DuckDB {duckdb.__version__}, SQLite {sqlite3.sqlite_version}")
    geo = lambda i: statistics.geometric_mean(q[i] for q in queries)
    results["TPC-H first run (s)"] = (geo(1), geo(3))
    results["TPC-H hot (s)"] = (geo(2), geo(4))
    print(f"{'measure':<24}{'stride':>12}{'duckdb':>12}{'ratio':>8}")
    for name, (a, b) in results.items():
        print(f"{name:<24}{a:>12.4f}{b:>12.4f}{a / b:>8.2f}")
    print_rates(rates)
    print()
    print("TPC-H on the reopened files (GEOMEAN rows above): first run after opening, then hot median")
    print(f"{'query':<8}{'first':>10}{'duckdb':>10}{'ratio':>8}{'hot':>10}{'duckdb':>10}{'ratio':>8}")
    for n, a, b, c, d in queries:
        print(f"Q{n:02}{'':<5}{a:>10.4f}{c:>10.4f}{a / c:>8.2f}{b:>10.4f}{d:>10.4f}{b / d:>8.2f}")


def print_rates(rates):
    for name, (mine, duck, lite) in rates.items():
        print(f"{'rows/s, ' + name:<24}{mine:>12.0f}{duck:>12.0f}{mine / duck:>8.2f}")
        print(f"{'  sqlite (WAL, FULL)':<24}{lite:>12.0f}{'':>12}{mine / lite:>8.2f}")


def insert_rates(binary, duckdb, directory, statements, rows):
    """Rows per second for stride, DuckDB and SQLite (WAL mode, synchronous = FULL),
    each running `statements` (of `rows` rows each) into a new table, every statement
    its own synced commit."""
    total = rows * len(statements)
    # Each engine starts with no dirty pages of earlier steps left to write back, which
    # would otherwise slow its syncs.
    os.sync()
    idb = os.path.join(directory, "inserts.stride")
    remove(idb)
    stride_run(binary, idb, "CREATE TABLE t(i INTEGER, s VARCHAR);\n")
    # The shell's start, open and close, which the others do not pay per run.
    overhead = min(stride_run(binary, idb, "SELECT 1;\n") for _ in range(3))
    mine = total / (stride_run(binary, idb, "".join(s + ";\n" for s in statements)) - overhead)
    os.sync()
    dpath = os.path.join(directory, "inserts.duckdb")
    remove(dpath)
    con = duckdb.connect(dpath)
    con.execute("CREATE TABLE t(i INTEGER, s VARCHAR)")
    start = time.perf_counter()
    for s in statements:
        con.execute(s)
    duck = total / (time.perf_counter() - start)
    con.close()
    os.sync()
    lpath = os.path.join(directory, "inserts.sqlite")
    for p in (lpath, lpath + "-wal", lpath + "-shm"):
        if os.path.exists(p):
            os.remove(p)
    lite = sqlite3.connect(lpath, isolation_level=None)
    lite.execute("PRAGMA journal_mode=WAL")
    lite.execute("PRAGMA synchronous=FULL")
    lite.execute("CREATE TABLE t(i INTEGER, s TEXT)")
    start = time.perf_counter()
    for s in statements:
        lite.execute(s)
    lite_rate = total / (time.perf_counter() - start)
    lite.close()
    return mine, duck, lite_rate


def timed_duckdb(duckdb, path, threads, sql):
    """Seconds for DuckDB to open `path`, run `sql` and close (checkpointing)."""
    start = time.perf_counter()
    con = duckdb.connect(path)
    con.execute(f"SET threads = {threads}")
    for stmt in filter(str.strip, sql.split(";")):
        con.execute(stmt)
    con.close()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
