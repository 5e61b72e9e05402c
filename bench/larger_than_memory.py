#!/usr/bin/env python3
"""A database file larger than the memory it may use (issue 14's benchmark f): TPC-H
at --sf (default 10) generated into a stride database file, then opened by a fresh
process under SET memory_limit (default 1GB) to run queries 1 and 6. The buffer pool
streams the column segments through the limit. Reports each query's time and the
process's peak resident memory. See bench/README.md."""

import argparse
import os
import re
import subprocess
import sys
import time

from harness import ROOT, stride_binary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=10)
    ap.add_argument("--memory-limit", default="1GB")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dir", default=os.path.join(ROOT, "target", "bench-storage"))
    args = ap.parse_args()
    subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "stride-cli"], cwd=ROOT)
    binary = stride_binary()
    os.makedirs(args.dir, exist_ok=True)
    db = os.path.join(args.dir, f"tpch-sf{args.sf:g}.stride")
    if not os.path.exists(db):
        start = time.perf_counter()
        # dbgen checkpoints after each table; under the limit the pool lets go of
        # what it wrote, so only the table being generated is in memory.
        setup = f"SET memory_limit = '{args.memory_limit}';\nCALL dbgen(sf = {args.sf});\n"
        subprocess.run([binary, "-bail", db], input=setup,
                       check=True, capture_output=True, text=True)
        print(f"generated SF {args.sf:g} into {db} in {time.perf_counter() - start:.1f} s")
    size = os.path.getsize(db) / 1e9
    script = "\n".join([
        f"SET threads = {args.threads};",
        f"SET memory_limit = '{args.memory_limit}';",
        ".timer on",
        "PRAGMA tpch(1);",
        "PRAGMA tpch(6);",
        "PRAGMA tpch(1);",
        "PRAGMA tpch(6);",
    ]) + "\n"
    # The query process's own peak memory, from its rusage when it is reaped.
    proc = subprocess.Popen([binary, "-bail", "-readonly", db], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdin.write(script)
    proc.stdin.close()
    stdout = proc.stdout.read()
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"stride failed: {stderr[-2000:]}")
    times = [float(t) for t in re.findall(r"Run Time \(s\): real (\d+\.\d+)", stdout)]
    print(f"SF {args.sf:g} file of {size:.2f} GB, memory_limit {args.memory_limit}, {args.threads} threads")
    for name, t in zip(["Q01 (first)", "Q06 (first)", "Q01 (again)", "Q06 (again)"], times):
        print(f"{name:<14}{t:>8.3f} s")
    print(f"peak RSS      {usage.ru_maxrss / 1024:>8.0f} MB")


if __name__ == "__main__":
    main()
