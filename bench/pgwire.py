#!/usr/bin/env python3
"""stride's PostgreSQL server vs PostgreSQL 15 (see bench/README.md): psycopg fetching a
1-million-row result of four columns, and 16 clients running point queries."""

import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from harness import ROOT, ensure, stride_binary

PG_BIN = "/usr/lib/postgresql/15/bin"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"nothing listens on port {port}")


def start_postgres(port):
    """A throwaway PostgreSQL 15 cluster on 127.0.0.1:port; returns its directory."""
    if not os.path.exists(f"{PG_BIN}/initdb"):
        subprocess.check_call(["apt-get", "install", "-y", "-q", "postgresql-15"])
    data = tempfile.mkdtemp(prefix="stride-pgbench-")
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_postgres:
        shutil.chown(data, "postgres", "postgres")
    subprocess.check_call(
        as_postgres + [f"{PG_BIN}/initdb", "-D", data, "-U", "postgres", "--auth=trust"],
        stdout=subprocess.DEVNULL,
    )
    subprocess.check_call(
        as_postgres
        + [
            f"{PG_BIN}/pg_ctl", "-D", data, "-w", "-l", f"{data}/log",
            "-o", f"-p {port} -c listen_addresses=127.0.0.1 -k {data}",
            "start",
        ],
        stdout=subprocess.DEVNULL,
    )
    return data, as_postgres


def stop_postgres(data, as_postgres):
    subprocess.call(as_postgres + [f"{PG_BIN}/pg_ctl", "-D", data, "-m", "fast", "stop"],
                    stdout=subprocess.DEVNULL)
    shutil.rmtree(data, ignore_errors=True)


def fetch_median(psycopg, dsn, runs):
    with psycopg.connect(dsn) as conn:
        samples = []
        for i in range(runs + 1):
            start = time.perf_counter()
            rows = conn.execute("SELECT id, d, s, day FROM t").fetchall()
            if i > 0:
                samples.append(time.perf_counter() - start)
            assert len(rows) == ROWS, len(rows)
    return statistics.median(samples)


def point_qps(psycopg, dsn, clients, seconds):
    counts = [0] * clients
    stop = time.time() + seconds

    def client(k):
        rng = random.Random(k)
        with psycopg.connect(dsn) as conn:
            while time.time() < stop:
                row = conn.execute("SELECT s FROM t WHERE id = %s", (rng.randrange(ROWS),)).fetchone()
                assert row is not None
                counts[k] += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / seconds


ROWS = 1_000_000


def main():
    global ROWS
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    ROWS = args.rows
    psycopg = ensure("psycopg", "psycopg[binary]")
    subprocess.check_call(["cargo", "build", "--release", "-q", "-p", "stride-cli"], cwd=ROOT)

    pg_port, stride_port = free_port(), free_port()
    data, as_postgres = start_postgres(pg_port)
    stride = subprocess.Popen(
        [stride_binary(), "serve", "--listen",
         f"127.0.0.1:{stride_port}", "--max-connections", str(args.clients + 8)],
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for(stride_port)
        pg_dsn = f"host=127.0.0.1 port={pg_port} user=postgres dbname=postgres"
        stride_dsn = f"host=127.0.0.1 port={stride_port} user=stride"
        with psycopg.connect(pg_dsn, autocommit=True) as c:
            c.execute(
                "CREATE TABLE t AS SELECT i::bigint AS id, i * 0.5::float8 AS d, "
                "'name_' || i AS s, DATE '2020-01-01' + (i % 1000) AS day "
                f"FROM generate_series(0, {ROWS - 1}) i"
            )
            c.execute("ALTER TABLE t ADD PRIMARY KEY (id)")
            c.execute("VACUUM ANALYZE t")
        with psycopg.connect(stride_dsn, autocommit=True) as c:
            c.execute(
                "CREATE TABLE t AS SELECT i AS id, CAST(i AS DOUBLE) * 0.5 AS d, "
                "'name_' || i AS s, DATE '2020-01-01' + CAST(i % 1000 AS INTEGER) AS day "
                f"FROM range({ROWS}) r(i)"
            )
        fetch = {name: fetch_median(psycopg, dsn, args.runs)
                 for name, dsn in [("stride", stride_dsn), ("postgres", pg_dsn)]}
        qps = {name: point_qps(psycopg, dsn, args.clients, args.seconds)
               for name, dsn in [("stride", stride_dsn), ("postgres", pg_dsn)]}
    finally:
        stride.terminate()
        stride.wait()
        stop_postgres(data, as_postgres)

    print(f"{ROWS:,} rows (BIGINT, DOUBLE, VARCHAR, DATE); psycopg {psycopg.__version__}; PostgreSQL 15")
    print(f"{'benchmark':<34}{'stride':>12}{'postgres':>12}{'ratio':>8}")
    print(f"{'fetch all rows, median (s)':<34}{fetch['stride']:>12.3f}{fetch['postgres']:>12.3f}"
          f"{fetch['stride'] / fetch['postgres']:>8.2f}")
    print(f"{f'{args.clients} clients point queries (q/s)':<34}{qps['stride']:>12.0f}{qps['postgres']:>12.0f}"
          f"{qps['stride'] / qps['postgres']:>8.2f}")
    print("(PostgreSQL answers point queries from its primary-key index; stride scans.)")


if __name__ == "__main__":
    main()
