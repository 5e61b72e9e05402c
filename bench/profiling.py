#!/usr/bin/env python3
"""What profiling costs: the 22 TPC-H queries in one stride shell, each run with
profiling off and with `SET enable_profiling = 'no_output'` (every operator's rows,
time and memory counted, as EXPLAIN ANALYZE counts them, the profile written
nowhere), taking turns query by query. Profiling on does all the work profiling off
does (one check per chunk that finds no counters) and more, so the ratio bounds what
the counters cost an unprofiled query. See bench/README.md.
"""

import argparse
import statistics

from harness import StrideSession


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    sf = f"{args.sf:g}"
    stride = StrideSession([f"SET threads = {args.threads};", f"CALL dbgen(sf = {sf});"])
    off, on = [], []
    for n in range(1, 23):
        off.append(stride.median(f"PRAGMA tpch({n})", args.runs))
        stride.execute("SET enable_profiling = 'no_output'")
        on.append(stride.median(f"PRAGMA tpch({n})", args.runs))
        stride.execute("RESET enable_profiling")
    stride.close()
    print(f"TPC-H SF {sf}, {args.threads} threads, median of {args.runs} hot runs")
    print(f"{'query':<8}{'off (s)':>12}{'on (s)':>12}{'on/off':>8}")
    for n in range(22):
        print(f"Q{n + 1:02}{'':<5}{off[n]:>12.4f}{on[n]:>12.4f}{on[n] / off[n]:>8.3f}")
    go, gp = statistics.geometric_mean(off), statistics.geometric_mean(on)
    print(f"{'GEOMEAN':<8}{go:>12.4f}{gp:>12.4f}{gp / go:>8.3f}")


if __name__ == "__main__":
    main()
