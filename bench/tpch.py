#!/usr/bin/env python3
"""TPC-H: the 22 queries on stride and on DuckDB, same data, same machine.

stride generates the data itself (CALL dbgen); DuckDB loads the same rows from
tpchgen-cli's .tbl files (its own tpch extension needs a download). Each query runs
once to warm up, then --runs times; the median is reported. See bench/README.md.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERIES = os.path.join(ROOT, "crates", "stride-tpch", "queries")
sys.path.insert(0, os.path.join(ROOT, "crates", "stride", "tests", "tpch"))


def ensure(module, package):
    try:
        __import__(module)
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", package])


def run_duckdb(sf, runs, threads):
    ensure("duckdb", "duckdb")
    ensure("tpchgen_cli", "tpchgen-cli")
    import duckdb
    from make_answers import load_duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    with tempfile.TemporaryDirectory() as data:
        subprocess.run(["tpchgen-cli", "-s", str(sf), f"--output-dir={data}"], check=True)
        load_duckdb(con, data)
    times = []
    for n in range(1, 23):
        with open(os.path.join(QUERIES, f"q{n:02}.sql")) as f:
            sql = f.read()
        samples = []
        for i in range(runs + 1):
            start = time.perf_counter()
            con.execute(sql).fetchall()
            if i > 0:
                samples.append(time.perf_counter() - start)
        times.append(statistics.median(samples))
    return duckdb.__version__, times


def run_stride(sf, runs, threads):
    subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "stride-cli"], cwd=ROOT)
    binary = os.path.join(ROOT, "target", "release", "stride")
    script = [f"SET threads = {threads};", f"CALL dbgen(sf = {sf});", ".timer on"]
    for n in range(1, 23):
        script.extend([f"PRAGMA tpch({n});"] * (runs + 1))
    out = subprocess.run(
        [binary, "-csv", "-bail"], input="\n".join(script) + "\n", capture_output=True, text=True
    )
    if out.returncode != 0:
        sys.exit(f"stride failed:\n{out.stderr}")
    reals = [float(m) for m in re.findall(r"^Run Time \(s\): real (\d+\.\d+)", out.stdout, re.M)]
    if len(reals) != 22 * (runs + 1):
        sys.exit(f"expected {22 * (runs + 1)} timings from stride, got {len(reals)}")
    return [statistics.median(reals[k * (runs + 1) + 1 : (k + 1) * (runs + 1)]) for k in range(22)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    sf = f"{args.sf:g}"
    mine = run_stride(sf, args.runs, args.threads)
    version, duck = run_duckdb(sf, args.runs, args.threads)
    print(f"TPC-H SF {sf}, {args.threads} threads, median of {args.runs} hot runs; DuckDB {version}")
    print(f"{'query':<8}{'stride (s)':>12}{'duckdb (s)':>12}{'ratio':>8}")
    for n in range(22):
        print(f"Q{n + 1:02}{'':<5}{mine[n]:>12.4f}{duck[n]:>12.4f}{mine[n] / duck[n]:>8.2f}")
    print(f"{'SUM':<8}{sum(mine):>12.4f}{sum(duck):>12.4f}{sum(mine) / sum(duck):>8.2f}")
    gm, gd = statistics.geometric_mean(mine), statistics.geometric_mean(duck)
    print(f"{'GEOMEAN':<8}{gm:>12.4f}{gd:>12.4f}{gm / gd:>8.2f}")


if __name__ == "__main__":
    main()
