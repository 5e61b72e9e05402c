#!/usr/bin/env python3
"""A database file larger than the memory it may use: TPC-H at --sf (default 10)
generated into a stride database file once, then opened by a fresh process under SET
memory_limit (default 1GB) to run --queries (default 1 and 6: issue 14's benchmark f)
twice each, a first and a second run. The buffer pool streams the column segments
through the limit. With --duckdb, DuckDB does the same on its own database file
(loaded once from tpchgen-cli's .tbl files) in a fresh process under the same limit:
`--memory-limit 2GB --queries all --duckdb` is issue 18's benchmark b. Reports each
query's times and each process's peak resident memory. See bench/README.md."""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from harness import ROOT, ensure, ensure_command, stride_binary

sys.path.insert(0, os.path.join(ROOT, "crates", "stride", "tests", "tpch"))
QUERIES = os.path.join(ROOT, "crates", "stride-tpch", "queries")

DUCKDB_SCRIPT = """
import duckdb, json, sys, time
con = duckdb.connect(sys.argv[1], read_only=True)
con.execute("SET threads = {threads}")
con.execute("SET memory_limit = '{memory_limit}'")
con.execute("SET temp_directory = '{temp}'")
con.execute("SET enable_progress_bar = false")
times = []
for sql in json.loads(sys.stdin.read()):
    start = time.perf_counter()
    con.execute(sql).fetchall()
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"""


def run_alone(argv, stdin):
    """Runs one process to its end; returns its stdout and its own peak resident
    memory in MB (from its rusage when it is reaped)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=err, text=True)
        proc.stdin.write(stdin)
        proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{argv[0]} failed: {err.read()[-2000:]}")
        return out.read(), usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=10)
    ap.add_argument("--memory-limit", default="1GB")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--queries", default="1,6", help="comma-separated numbers, or all")
    ap.add_argument("--duckdb", action="store_true", help="also DuckDB on its own file")
    ap.add_argument("--dir", default=os.path.join(ROOT, "target", "bench-storage"))
    args = ap.parse_args()
    queries = (list(range(1, 23)) if args.queries == "all"
               else [int(q) for q in args.queries.split(",")])
    subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "stride-cli"], cwd=ROOT)
    binary = stride_binary()
    os.makedirs(args.dir, exist_ok=True)
    temp = os.path.join(args.dir, "spill")
    os.makedirs(temp, exist_ok=True)
    db = os.path.join(args.dir, f"tpch-sf{args.sf:g}.stride")
    if not os.path.exists(db):
        start = time.perf_counter()
        # dbgen checkpoints after each table; under the limit the pool lets go of
        # what it wrote, so only the table being generated is in memory.
        setup = f"SET memory_limit = '{args.memory_limit}';\nCALL dbgen(sf = {args.sf});\n"
        subprocess.run([binary, "-bail", db], input=setup,
                       check=True, capture_output=True, text=True)
        print(f"generated SF {args.sf:g} into {db} in {time.perf_counter() - start:.1f} s")
    lines = [f"SET threads = {args.threads};", f"SET memory_limit = '{args.memory_limit}';",
             f"SET temp_directory = '{temp}';", ".timer on"]
    for q in queries:
        lines += [f"PRAGMA tpch({q});"] * 2
    stdout, mine_rss = run_alone([binary, "-bail", "-readonly", db], "\n".join(lines) + "\n")
    mine = [float(t) for t in re.findall(r"Run Time \(s\): real (\d+\.\d+)", stdout)]
    mine = mine[-2 * len(queries):]

    theirs, theirs_rss = None, None
    if args.duckdb:
        duckdb = ensure("duckdb", "duckdb")
        path = os.path.join(args.dir, f"tpch-sf{args.sf:g}.duckdb")
        if not os.path.exists(path):
            ensure_command("tpchgen-cli", "tpchgen-cli")
            from make_answers import load_duckdb
            start = time.perf_counter()
            with tempfile.TemporaryDirectory(dir=args.dir) as data:
                subprocess.run(["tpchgen-cli", "-s", f"{args.sf:g}", f"--output-dir={data}"],
                               check=True)
                con = duckdb.connect(path)
                con.execute(f"SET threads = {args.threads}")
                load_duckdb(con, data)
                con.close()
            print(f"loaded SF {args.sf:g} into {path} in {time.perf_counter() - start:.1f} s")
        sqls = []
        for q in queries:
            with open(os.path.join(QUERIES, f"q{q:02}.sql")) as f:
                sqls += [f.read()] * 2
        script = DUCKDB_SCRIPT.format(threads=args.threads, memory_limit=args.memory_limit,
                                      temp=temp)
        out, theirs_rss = run_alone([sys.executable, "-c", script, path], json.dumps(sqls))
        theirs = json.loads(out.strip().splitlines()[-1])

    size = os.path.getsize(db) / 1e9
    print(f"SF {args.sf:g} file of {size:.2f} GB, memory_limit {args.memory_limit}, "
          f"{args.threads} threads")
    head = f"{'query':<7}{'first (s)':>11}{'again (s)':>11}"
    if theirs:
        head += f"{'duckdb first':>14}{'duckdb again':>14}{'ratio':>7}"
    print(head)
    ratios = []
    for i, q in enumerate(queries):
        line = f"Q{q:02}   {mine[2 * i]:>11.3f}{mine[2 * i + 1]:>11.3f}"
        if theirs:
            ratio = mine[2 * i + 1] / theirs[2 * i + 1]
            ratios.append(ratio)
            line += f"{theirs[2 * i]:>14.3f}{theirs[2 * i + 1]:>14.3f}{ratio:>7.2f}"
        print(line)
    if ratios:
        geo = 1.0
        for r in ratios:
            geo *= r
        print(f"GEOMEAN of the second runs' ratios: {geo ** (1 / len(ratios)):.2f}")
    print(f"peak RSS: stride {mine_rss:.0f} MB" +
          (f", DuckDB {theirs_rss:.0f} MB" if theirs_rss else ""))


if __name__ == "__main__":
    main()
