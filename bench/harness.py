"""What every benchmark harness here shares: installing Python packages it needs,
timing statements in DuckDB, and running statements in stride's shell with `.timer on`
(a whole script at once, or one statement at a time in a session kept open, so that
the two engines can take turns query by query). Each statement runs once to warm up,
then `runs` times; medians are reported."""

import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ensure(module, package):
    """Imports `module`, installing `package` with pip when it is missing."""
    try:
        return __import__(module)
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", package])
    return __import__(module)


def ensure_command(command, package):
    """Installs `package` with pip when the command-line tool `command` is missing."""
    if shutil.which(command) is None:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", package])


def duckdb_median(con, sql, runs):
    """Median seconds of `runs` hot runs of `sql` (after one warm-up), fetching all rows."""
    samples = []
    for i in range(runs + 1):
        start = time.perf_counter()
        con.execute(sql).fetchall()
        if i > 0:
            samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def compare_in_memory(setup, queries, rows, runs, threads):
    """Runs `setup` (statements) in DuckDB and in stride, in memory, then each named
    query of `queries` hot `runs` times in both, and prints the medians and ratios
    with their geometric mean."""
    duckdb = ensure("duckdb", "duckdb")
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    for s in setup:
        con.execute(s)
    duck = {n: duckdb_median(con, q, runs) for n, q in queries}
    stmts = [f"SET threads = {threads};"] + [s + ";" for s in setup]
    mine = dict(zip((n for n, _ in queries), stride_medians(stmts, [q for _, q in queries], runs)))
    width = max(len(n) for n, _ in queries) + 2
    print(f"{rows:,} rows, {threads} threads, median of {runs} hot runs; DuckDB {duckdb.__version__}")
    print(f"{'query':<{width}}{'stride (s)':>12}{'duckdb (s)':>12}{'ratio':>8}")
    ratios = []
    for name, _ in queries:
        r = mine[name] / duck[name]
        ratios.append(r)
        print(f"{name:<{width}}{mine[name]:>12.4f}{duck[name]:>12.4f}{r:>8.2f}")
    print(f"{'geometric mean':<{width + 24}}{statistics.geometric_mean(ratios):>8.2f}")


def stride_binary():
    """The release shell cargo builds (in $CARGO_TARGET_DIR when that is set)."""
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "stride")


def stride_medians(setup, statements, runs):
    """Builds the release shell, runs `setup` once, then each statement 1 + `runs`
    times with `.timer on`; returns the median hot time of each statement."""
    subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "stride-cli"], cwd=ROOT)
    binary = stride_binary()
    script = list(setup) + [".timer on"]
    for sql in statements:
        script.extend([sql.rstrip(";") + ";"] * (runs + 1))
    out = subprocess.run(
        [binary, "-csv", "-bail"],
        input="\n".join(script) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if out.returncode != 0:
        sys.exit(f"stride failed:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    reals = [float(m) for m in re.findall(r"^Run Time \(s\): real (\d+\.\d+)", out.stdout, re.M)]
    if len(reals) != len(statements) * (runs + 1):
        sys.exit(f"expected {len(statements) * (runs + 1)} timings from stride, got {len(reals)}")
    return [
        statistics.median(reals[k * (runs + 1) + 1 : (k + 1) * (runs + 1)])
        for k in range(len(statements))
    ]


class StrideSession:
    """One stride shell kept open: `median(sql, runs)` runs a statement 1 + `runs`
    times and returns the median hot time the shell's `.timer on` reports. With
    `database`, the shell opens that database file."""

    def __init__(self, setup, database=None):
        subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "stride-cli"], cwd=ROOT)
        binary = stride_binary()
        self.proc = subprocess.Popen(
            [binary, "-csv", "-bail"] + ([database] if database else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for sql in setup:
            self._send(sql)
        self._send(".timer on")

    def _send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _timed(self, sql):
        self._send(sql.rstrip().rstrip(";") + ";")
        for line in self.proc.stdout:
            m = re.match(r"Run Time \(s\): real (\d+\.\d+)", line)
            if m:
                return float(m.group(1))
        sys.exit(f"stride stopped while running: {sql[:200]}")

    def execute(self, sql):
        """Runs a statement once (a SET between measurements)."""
        self._timed(sql)

    def median(self, sql, runs):
        return self.first_and_median(sql, runs)[1]

    def first_and_median(self, sql, runs):
        """The first run's time and the median of the `runs` after it."""
        times = [self._timed(sql) for _ in range(runs + 1)]
        return times[0], statistics.median(times[1:])

    def peak_rss_gb(self):
        """The shell's peak resident memory so far (Linux's VmHWM), in GB."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024 / 1e9
        return float("nan")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
