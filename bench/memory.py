#!/usr/bin/env python3
"""Bounded memory (issue 18's benchmark a): a GROUP BY of --rows (default 100,000,000)
distinct keys and a full ORDER BY of --rows rows, each engine in a fresh process whose
address space is limited to --process-limit (default 3 GB, as `ulimit -v` sets it)
with SET memory_limit = --memory-limit (default 1GB), so both must spill to finish.
The ORDER BY writes its rows to /dev/null with COPY, the same statement in both
engines, so that the sort cannot be optimized away and no client holds the rows.
Reports wall time, peak resident memory and the ratio of each. See bench/README.md."""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

from harness import ROOT, ensure, stride_binary


def queries(rows):
    return [
        ("GROUP BY distinct keys",
         f"SELECT count(*), sum(c) FROM (SELECT x, count(*) AS c FROM range({rows}) t(x) GROUP BY x)"),
        ("full ORDER BY",
         f"COPY (SELECT (x * 7919) % {rows} AS k, x FROM range({rows}) t(x) ORDER BY k) "
         "TO '/dev/null' (FORMAT csv)"),
    ]


def limit_address_space(bytes_):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (bytes_, bytes_))
    return apply


DUCKDB_SCRIPT = """
import duckdb, sys, time
con = duckdb.connect()
con.execute("SET threads = {threads}")
con.execute("SET enable_progress_bar = false")
con.execute("SET memory_limit = '{memory_limit}'")
con.execute("SET temp_directory = '{temp}'")
start = time.perf_counter()
con.execute(sys.stdin.read()).fetchall()
print(time.perf_counter() - start)
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--memory-limit", default="1GB")
    ap.add_argument("--process-limit", type=float, default=3e9)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    duckdb = ensure("duckdb", "duckdb")
    subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "stride-cli"], cwd=ROOT)
    temp = os.path.join(ROOT, "target", "bench-memory")
    os.makedirs(temp, exist_ok=True)
    limit = int(args.process_limit)
    print(f"{args.rows:,} rows, memory_limit {args.memory_limit}, address space "
          f"{args.process_limit / 1e9:g} GB, {args.threads} threads; DuckDB {duckdb.__version__}")
    print(f"{'query':<24}{'stride (s)':>11}{'duckdb (s)':>11}{'ratio':>7}"
          f"{'stride RSS':>12}{'duckdb RSS':>12}")
    for name, sql in queries(args.rows):
        # Each engine in its own process; peak RSS is read from that process alone.
        script = (f"SET threads = {args.threads};\nSET memory_limit = '{args.memory_limit}';\n"
                  f"SET temp_directory = '{temp}';\n.timer on\n{sql};\n")
        mine = run_alone([stride_binary(), "-bail", "-csv"], script, limit)
        if mine[4] != 0:
            sys.exit(f"stride failed on {name}: {mine[3][-2000:]}")
        theirs = run_alone(
            [sys.executable, "-c", DUCKDB_SCRIPT.format(threads=args.threads,
                                                         memory_limit=args.memory_limit,
                                                         temp=temp)],
            sql, limit)
        if theirs[4] != 0:
            sys.exit(f"DuckDB failed on {name}: {theirs[3][-2000:]}")
        s = float(mine[2].strip().splitlines()[-1].split("real ")[1].split()[0])
        d = float(theirs[2].strip().splitlines()[-1])
        print(f"{name:<24}{s:>11.2f}{d:>11.2f}{s / d:>7.2f}"
              f"{mine[1] / 1e9:>10.2f}GB{theirs[1] / 1e9:>10.2f}GB")


def run_alone(argv, stdin, limit):
    """Runs one process under the address-space limit; returns (seconds, its own
    peak RSS in bytes, stdout, stderr, exit status)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=err,
                                text=True, preexec_fn=limit_address_space(limit))
        proc.stdin.write(stdin)
        proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return seconds, usage.ru_maxrss * 1024, out.read(), err.read(), os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    main()
