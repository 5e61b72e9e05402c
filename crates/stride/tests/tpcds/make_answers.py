#!/usr/bin/env python3
"""Reference answers for the TPC-DS test, from an independent engine.

Generates TPC-DS data with tpcgen-cli (the tpcdsgen crate, the same generator as
stride's CALL dsdgen, so the rows are identical), loads the CSV files into DuckDB with
the column types of crates/stride-tpch/tpcds/schema.txt, runs the 99 queries and writes
one pipe-separated file per query with a header row, NULL as an empty field:

    pip install duckdb tpcgen-cli
    python3 make_answers.py 0.01         # writes duckdb-sf0.01/qNN.csv next to this file
"""
import os
import subprocess
import sys
import tempfile

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
TPCDS = os.path.join(HERE, "..", "..", "..", "stride-tpch", "tpcds")


def schema():
    """{table: [(column, type)]} from schema.txt."""
    tables = {}
    with open(os.path.join(TPCDS, "schema.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, cols = line.split(":", 1)
            parts = []
            depth = 0
            cur = ""
            for ch in cols:
                if ch == "," and depth == 0:
                    parts.append(cur.strip())
                    cur = ""
                    continue
                depth += ch == "("
                depth -= ch == ")"
                cur += ch
            parts.append(cur.strip())
            tables[name.strip()] = [tuple(p.split(" ", 1)) for p in parts]
    return tables


def cell(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def main():
    sf = sys.argv[1] if len(sys.argv) > 1 else "0.01"
    out = os.path.join(HERE, f"duckdb-sf{sf}")
    os.makedirs(out, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET threads = 2")
    with tempfile.TemporaryDirectory() as data:
        subprocess.run(
            ["tpcgen-cli", "tpcds", "csv", "-s", sf, f"--output-dir={data}"],
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
    for n in range(1, 100):
        with open(os.path.join(TPCDS, f"q{n:02}.sql")) as f:
            sql = f.read()
        cur = con.execute(sql)
        header = [d[0] for d in cur.description]
        rows = cur.fetchall()
        with open(os.path.join(out, f"q{n:02}.csv"), "w") as f:
            f.write("|".join(header) + "\n")
            for r in rows:
                f.write("|".join(cell(v) for v in r) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
