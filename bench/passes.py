#!/usr/bin/env python3
"""What optimizer passes are worth on TPC-H: the 22 queries in two stride shells on the
same generated data, one with the passes named by --disable switched off (`SET
disabled_optimizers`), taking turns query by query. Prints per-query medians, the
ratio with / without, and the geometric mean (below 1.0: the passes help).

    python3 bench/passes.py --disable filter_pushdown,outer_to_inner,empty_results
"""

import argparse
import statistics

from harness import StrideSession


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--disable", default="filter_pushdown,outer_to_inner,empty_results")
    ap.add_argument("--queries", default="1-22", help="e.g. 2,5,9 (default: all 22)")
    args = ap.parse_args()
    setup = [f"SET threads = {args.threads};", f"CALL dbgen(sf = {args.sf:g});"]
    on = StrideSession(setup)
    off = StrideSession(setup + [f"SET disabled_optimizers = '{args.disable}';"])
    numbers = list(range(1, 23)) if args.queries == "1-22" else [int(q) for q in args.queries.split(",")]
    with_passes, without = [], []
    for n in numbers:
        with_passes.append(on.median(f"PRAGMA tpch({n})", args.runs))
        without.append(off.median(f"PRAGMA tpch({n})", args.runs))
    on.close()
    off.close()
    print(f"TPC-H SF {args.sf:g}, {args.threads} threads, median of {args.runs} hot runs")
    print(f"passes compared: {args.disable}")
    print(f"{'query':<8}{'with (s)':>12}{'without (s)':>12}{'ratio':>8}")
    for i, n in enumerate(numbers):
        print(f"Q{n:02}{'':<5}{with_passes[i]:>12.4f}{without[i]:>12.4f}{with_passes[i] / without[i]:>8.2f}")
    gw, go = statistics.geometric_mean(with_passes), statistics.geometric_mean(without)
    print(f"{'GEOMEAN':<8}{gw:>12.4f}{go:>12.4f}{gw / go:>8.2f}")


if __name__ == "__main__":
    main()
