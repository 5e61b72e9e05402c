#!/usr/bin/env python3
"""Reference answers for the TPC-H test, from an independent engine.

Generates TPC-H data with tpchgen-cli (the same generator as stride's CALL dbgen, so
the rows are identical), loads it into DuckDB, runs the 22 queries and writes one
pipe-separated file per query with a header row, NULL as an empty field:

    pip install duckdb tpchgen-cli
    python3 make_answers.py 0.1          # writes duckdb-sf0.1/qNN.csv next to this file

The answers in sf0.01/ come from ../shared/tpch and were made by another engine from
another generator whose free-text columns (addresses, comments) differ; see tpch.rs.
"""
import os
import subprocess
import sys
import tempfile

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
QUERIES = os.path.join(HERE, "..", "..", "..", "stride-tpch", "queries")

SCHEMA = {
    "nation": "n_nationkey BIGINT, n_name VARCHAR, n_regionkey BIGINT, n_comment VARCHAR",
    "region": "r_regionkey BIGINT, r_name VARCHAR, r_comment VARCHAR",
    "part": "p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, "
    "p_size INTEGER, p_container VARCHAR, p_retailprice DECIMAL(15,2), p_comment VARCHAR",
    "supplier": "s_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR, s_nationkey BIGINT, "
    "s_phone VARCHAR, s_acctbal DECIMAL(15,2), s_comment VARCHAR",
    "partsupp": "ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INTEGER, "
    "ps_supplycost DECIMAL(15,2), ps_comment VARCHAR",
    "customer": "c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR, c_nationkey BIGINT, "
    "c_phone VARCHAR, c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR, c_comment VARCHAR",
    "orders": "o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR, "
    "o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, "
    "o_shippriority INTEGER, o_comment VARCHAR",
    "lineitem": "l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INTEGER, "
    "l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), "
    "l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, "
    "l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, "
    "l_comment VARCHAR",
}


def load_duckdb(con, data):
    """Loads the tpchgen-cli .tbl files in directory `data` into DuckDB."""
    for table, cols in SCHEMA.items():
        names = [c.split()[0] for c in cols.split(", ")]
        types = [c.split(maxsplit=1)[1] for c in cols.split(", ")]
        columns = ", ".join(f"'{n}': '{t}'" for n, t in zip(names, types))
        con.execute(f"CREATE TABLE {table} ({cols})")
        # Every line ends with '|', which reads as one extra empty column.
        con.execute(
            f"INSERT INTO {table} SELECT {', '.join(names)} FROM read_csv('{data}/{table}.tbl', "
            f"delim='|', header=false, quote='', escape='', columns={{{columns}, 'extra': 'VARCHAR'}})"
        )


def cell(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def main():
    sf = sys.argv[1] if len(sys.argv) > 1 else "0.1"
    out = os.path.join(HERE, f"duckdb-sf{sf}")
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as data:
        subprocess.run(["tpchgen-cli", "-s", sf, f"--output-dir={data}"], check=True)
        con = duckdb.connect()
        load_duckdb(con, data)
        for n in range(1, 23):
            with open(os.path.join(QUERIES, f"q{n:02}.sql")) as f:
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
