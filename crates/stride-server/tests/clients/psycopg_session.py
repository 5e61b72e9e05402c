"""Driven by tests/clients.rs: a psycopg 3 session against `stride serve`.
Prints OK at the end; any failed expectation raises."""
import datetime
import decimal
import sys

import psycopg

port = sys.argv[1]
with psycopg.connect(f"host=127.0.0.1 port={port} user=stride dbname=stride") as c:
    cur = c.cursor()
    cur.execute("SELECT %s::BIGINT + 1, %s, %s::DOUBLE, %s", (41, "it's", 2.5, None))
    assert cur.fetchall() == [(42, "it's", 2.5, None)]
    cur.execute(
        "SELECT DATE '2024-01-02', 1.25::DECIMAL(5,2), true, "
        "TIMESTAMP '2024-01-02 03:04:05', INTERVAL '1 day 02:00:00'"
    )
    assert cur.fetchone() == (
        datetime.date(2024, 1, 2),
        decimal.Decimal("1.25"),
        True,
        datetime.datetime(2024, 1, 2, 3, 4, 5),
        datetime.timedelta(days=1, hours=2),
    )
    cur.execute("CREATE TABLE big AS SELECT i, i * 0.5 AS half FROM range(1000000) t(i)")
    cur.execute("SELECT i, half FROM big")
    n = 0
    for row in cur:
        n += 1
    assert n == 1_000_000, n
    try:
        cur.execute("SELECT * FROM missing_table")
        raise AssertionError("expected an error")
    except psycopg.errors.UndefinedTable as e:
        assert e.sqlstate == "42P01"
with psycopg.connect(f"host=127.0.0.1 port={port} user=stride", autocommit=True) as c:
    assert c.execute("SELECT count(*) FROM big WHERE i < %s", (10,)).fetchone() == (10,)
    # Type introspection reads pg_type through to_regtype and ::regtype.
    from psycopg.types import TypeInfo
    t = TypeInfo.fetch(c, "numeric")
    assert (t.name, t.oid, t.array_oid) == ("numeric", 1700, 1231), t
    assert TypeInfo.fetch(c, "no_such_type") is None
    # The catalog as drivers and tools read it.
    cols = c.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_name = %s ORDER BY ordinal_position", ("big",)
    ).fetchall()
    assert cols == [("i", "bigint"), ("half", "numeric")], cols
    assert c.execute("SELECT %s::regclass::text", ("big",)).fetchone() == ("big",)
    assert c.execute("SELECT x FROM unnest(%s::int[]) x", ([3, 4],)).fetchall() == [(3,), (4,)]
print("OK")
