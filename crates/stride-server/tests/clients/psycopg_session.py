"""Driven by tests/clients.rs: a psycopg 3 session against `stride serve`.
Prints OK at the end; any failed expectation raises."""
import datetime
import decimal
import sys
import uuid

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
    # HUGEINT arrives as numeric, UUID and TIME as themselves, in text and binary.
    for binary in (False, True):
        cur = c.cursor(binary=binary)
        cur.execute(
            "SELECT 170141183460469231731687303715884105727::HUGEINT, "
            "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::UUID, TIME '10:00:00.5', sum(1), "
            "340282366920938463463374607431768211455::UHUGEINT"
        )
        assert cur.fetchone() == (
            decimal.Decimal("170141183460469231731687303715884105727"),
            uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
            datetime.time(10, 0, 0, 500000),
            decimal.Decimal(1),
            decimal.Decimal(2**128 - 1),
        ), binary
        # a UNION travels as its member's text
        cur.execute("SELECT 1::UNION(num INTEGER, str VARCHAR), 'x'::UNION(num INTEGER, str VARCHAR)")
        assert cur.fetchone() == ("1", "x"), binary
    # BLOB travels as bytea: hex text or raw bytes out, either format in.
    for binary in (False, True):
        cur = c.cursor(binary=binary)
        cur.execute("SELECT '\\xFF\\x00a'::BLOB, NULL::BLOB, ''::BLOB")
        assert cur.fetchone() == (b"\xff\x00a", None, b""), binary
    cur = c.cursor()
    cur.execute("CREATE TABLE blobs (b BYTEA)")
    cur.execute("INSERT INTO blobs VALUES (%s), (%b), (%t)", (b"\x00\x01", b"\xff", b"\\z"))
    cur.execute("SELECT b, octet_length(b) FROM blobs WHERE b <> %s ORDER BY b", (b"\xff",))
    assert cur.fetchall() == [(b"\x00\x01", 2), (b"\\z", 2)]
    cur.execute("CREATE TABLE ids (id UUID, at TIME)")
    u = uuid.UUID("12345678-1234-5678-1234-567812345678")
    cur.execute("INSERT INTO ids VALUES (%s, %s)", (u, datetime.time(1, 2, 3)))
    cur.execute("INSERT INTO ids VALUES (%b, %b)", (u, datetime.time(4, 5, 6, 7)))
    cur.execute("SELECT id, at FROM ids WHERE id = %s ORDER BY at", (u,))
    assert cur.fetchall() == [
        (u, datetime.time(1, 2, 3)),
        (u, datetime.time(4, 5, 6, 7)),
    ]
    cur.execute("CREATE TABLE big AS SELECT i, i * 0.5 AS half FROM range(1000000) t(i)")
    cur.execute("SELECT i, half FROM big")
    n = 0
    for row in cur:
        n += 1
    assert n == 1_000_000, n
# psycopg's default: every statement in a transaction, committed or rolled back.
with psycopg.connect(f"host=127.0.0.1 port={port} user=stride") as c:
    from psycopg.pq import TransactionStatus
    assert c.execute("SELECT count(*) FROM big").fetchone() == (1_000_000,)
    c.execute("CREATE TABLE tx(a INTEGER PRIMARY KEY)")
    assert c.info.transaction_status == TransactionStatus.INTRANS
    c.commit()
    assert c.info.transaction_status == TransactionStatus.IDLE
    c.execute("INSERT INTO tx VALUES (1)")
    c.rollback()
    assert c.execute("SELECT count(*) FROM tx").fetchone() == (0,)
    c.commit()
    with c.transaction():
        c.execute("INSERT INTO tx VALUES (2)")
    try:
        with c.transaction():
            c.execute("INSERT INTO tx VALUES (3)")
            raise RuntimeError("undo")
    except RuntimeError:
        pass
    assert c.execute("SELECT a FROM tx").fetchall() == [(2,)]
    try:
        c.execute("SELECT * FROM missing_table")
        raise AssertionError("expected an error")
    except psycopg.errors.UndefinedTable as e:
        assert e.sqlstate == "42P01"
    assert c.info.transaction_status == TransactionStatus.INERROR
    try:
        c.execute("SELECT 1")
        raise AssertionError("expected an error")
    except psycopg.errors.InFailedSqlTransaction:
        pass
    c.rollback()
    assert c.info.transaction_status == TransactionStatus.IDLE
    # An error while the rows stream (division by zero) fails the transaction too:
    # COMMIT then rolls back the earlier INSERT and says ROLLBACK, as PostgreSQL does.
    c.execute("INSERT INTO tx VALUES (5)")
    try:
        c.execute("SELECT 1 / (a - 2) FROM tx").fetchall()
        raise AssertionError("expected an error")
    except psycopg.errors.DivisionByZero:
        pass
    assert c.info.transaction_status == TransactionStatus.INERROR
    cur = c.cursor()
    cur.execute("COMMIT")
    assert cur.statusmessage == "ROLLBACK", cur.statusmessage
    assert c.info.transaction_status == TransactionStatus.IDLE
    assert c.execute("SELECT a FROM tx ORDER BY a").fetchall() == [(2,)]
    c.rollback()
    # A read-only session (psycopg begins its transactions READ ONLY): reads work,
    # changes fail with SQLSTATE 25006.
    c.read_only = True
    assert c.execute("SELECT a FROM tx").fetchall() == [(2,)]
    try:
        c.execute("INSERT INTO tx VALUES (4)")
        raise AssertionError("expected an error")
    except psycopg.errors.ReadOnlySqlTransaction as e:
        assert e.sqlstate == "25006"
    c.rollback()
    c.read_only = False
    # Two sessions: the second to commit a change to the same table gets a
    # serialization failure (SQLSTATE 40001), which applications retry.
    with psycopg.connect(f"host=127.0.0.1 port={port} user=stride") as d:
        c.execute("UPDATE tx SET a = 20")
        d.execute("UPDATE tx SET a = 30")
        assert d.execute("SELECT a FROM tx").fetchone() == (30,)
        assert c.execute("SELECT a FROM tx").fetchone() == (20,)
        c.commit()
        try:
            d.commit()
            raise AssertionError("expected a conflict")
        except psycopg.errors.SerializationFailure:
            pass
        # The failed COMMIT rolled d's transaction back: d is idle, as in PostgreSQL,
        # and its next statement begins a new transaction.
        assert d.info.transaction_status == TransactionStatus.IDLE
        d.execute("INSERT INTO tx VALUES (40)")
        d.rollback()
        assert d.execute("SELECT count(*) FROM tx WHERE a = 40").fetchone() == (0,)
        d.rollback()
        # A `with transaction()` retry loop: the attempt after a conflict commits.
        with psycopg.connect(f"host=127.0.0.1 port={port} user=stride", autocommit=True) as e:
            for attempt in range(3):
                try:
                    with e.transaction():
                        e.execute("UPDATE tx SET a = a + 1")
                        if attempt == 0:
                            d.execute("UPDATE tx SET a = a + 100")
                            d.commit()
                    break
                except psycopg.errors.SerializationFailure:
                    assert e.info.transaction_status == TransactionStatus.IDLE
            assert attempt == 1, attempt
    c.rollback()
    assert c.execute("SELECT a FROM tx").fetchall() == [(121,)]
with psycopg.connect(f"host=127.0.0.1 port={port} user=stride", autocommit=True) as c:
    assert c.execute("SELECT count(*) FROM big WHERE i < %s", (10,)).fetchone() == (10,)
    # COMMIT AND CHAIN / ROLLBACK AND CHAIN: the next transaction begins at once
    # (extended and simple protocol; after a failed statement, COMMIT rolls back).
    c.execute("CREATE TABLE ch(a INTEGER)")
    c.execute("BEGIN")
    c.execute("INSERT INTO ch VALUES (1)")
    c.execute("COMMIT AND CHAIN")
    assert c.info.transaction_status == TransactionStatus.INTRANS
    c.execute("INSERT INTO ch VALUES (2)")
    c.pgconn.exec_(b"ROLLBACK AND CHAIN")
    assert c.info.transaction_status == TransactionStatus.INTRANS
    try:
        c.execute("SELECT * FROM missing_table")
        raise AssertionError("expected an error")
    except psycopg.errors.UndefinedTable:
        pass
    cur = c.execute("COMMIT AND CHAIN")
    assert cur.statusmessage == "ROLLBACK", cur.statusmessage
    assert c.info.transaction_status == TransactionStatus.INTRANS
    c.execute("INSERT INTO ch VALUES (3)")
    c.execute("COMMIT")
    assert c.info.transaction_status == TransactionStatus.IDLE
    assert c.execute("SELECT a FROM ch ORDER BY a").fetchall() == [(1,), (3,)]
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
    # Parameters in binary format (%b, or a binary cursor), read with their types.
    assert c.execute("SELECT count(*) FROM big WHERE i >= %b", (999_990,)).fetchone() == (10,)
    bcur = c.cursor(binary=True)
    bcur.execute("SELECT i, half FROM big WHERE i >= %s AND i < %s ORDER BY i", (5, 7))
    assert bcur.fetchall() == [(5, decimal.Decimal("2.5")), (6, decimal.Decimal("3.0"))]
    bcur.execute("SELECT i FROM big WHERE half > %s ORDER BY i LIMIT %s OFFSET %s",
                 (decimal.Decimal("10.25"), 2, 1))
    assert bcur.fetchall() == [(22,), (23,)]
    bcur.execute("SELECT %s::DATE + 1, %s || 'x'", (datetime.date(2024, 2, 28), "ab"))
    assert bcur.fetchone() == (datetime.date(2024, 2, 29), "abx")
    # DECIMAL(38) at scales that are not a multiple of four, in binary and in text;
    # TIMESTAMP_NS as the microseconds PostgreSQL holds, in both.
    decimals = ("SELECT 1::DECIMAL(38,37), 9999999999999999999999999999999999999.9::DECIMAL(38,1), "
                "-0.00001::DECIMAL(38,5), '2024-01-01 12:00:00.123456789'::TIMESTAMP_NS")
    want = (decimal.Decimal("1.0000000000000000000000000000000000000"),
            decimal.Decimal("9999999999999999999999999999999999999.9"),
            decimal.Decimal("-0.00001"),
            datetime.datetime(2024, 1, 1, 12, 0, 0, 123457))
    bcur.execute(decimals)
    assert bcur.fetchone() == want
    assert c.execute(decimals).fetchone() == want
    # Parameters psycopg sends with their types: a Decimal as numeric text, a date as
    # date text (%t), a timedelta as a binary interval.
    assert c.execute("SELECT %s + 1", (decimal.Decimal("1.5"),)).fetchone() == (decimal.Decimal("2.5"),)
    assert c.execute("SELECT %s * 2", (decimal.Decimal("-0.25"),)).fetchone() == (decimal.Decimal("-0.50"),)
    assert c.execute("SELECT %t + 1", (datetime.date(2024, 2, 28),)).fetchone() == (datetime.date(2024, 2, 29),)
    assert c.execute("SELECT %s + INTERVAL '1 day'", (datetime.timedelta(hours=3, microseconds=5),)).fetchone() == (
        datetime.timedelta(days=1, hours=3, microseconds=5),)
    # Lists bind as lists (psycopg declares int8[], text[], ...), and a Decimal
    # written with an exponent stays exact.
    assert c.execute("SELECT len(%s), list_sum(%s)", ([1, 2, 3], [4, 5])).fetchone() == (3, 9)
    assert c.execute("SELECT list_sum(%s), %s[2] IS NULL", ([1.5, None], [1.5, None])).fetchone() == (
        1.5, True)
    assert c.execute("SELECT x FROM unnest(%s) t(x) ORDER BY x",
                     ([datetime.date(2024, 1, 2), datetime.date(2023, 5, 6)],)).fetchall() == [
        (datetime.date(2023, 5, 6),), (datetime.date(2024, 1, 2),)]
    assert c.execute("SELECT %s::DECIMAL(38,0), %s + 1", (
        decimal.Decimal("1.2345678901234567890123E+25"), decimal.Decimal("5E-7"))).fetchone() == (
        decimal.Decimal("12345678901234567890123000"), decimal.Decimal("1.0000005"))
    # COPY through the protocol: rows in with write_row, rows out with rows().
    cur = c.cursor()
    cur.execute("CREATE TABLE pc (id BIGINT, name VARCHAR, d DATE, amount DECIMAL(10,2), ok BOOLEAN)")
    with cur.copy("COPY pc (id, name, d, amount, ok) FROM STDIN") as copy:
        for i in range(1000):
            copy.write_row((
                i,
                f"n{i}\ttab\\" if i % 3 else None,
                datetime.date(2024, 1, 1 + i % 28),
                decimal.Decimal(i) / 4,
                i % 2 == 0,
            ))
    assert cur.rowcount == 1000, cur.rowcount
    assert c.execute("SELECT count(*), count(name), sum(amount) FROM pc").fetchone() == (
        1000, 666, decimal.Decimal("124875.00"))
    # RETURNING: the changed rows come back, and rowcount is the statement's.
    cur.execute("INSERT INTO pc (id, name) VALUES (5000, 'r1'), (5001, 'r2') RETURNING id, name")
    assert cur.fetchall() == [(5000, "r1"), (5001, "r2")]
    assert cur.rowcount == 2, cur.rowcount
    assert cur.statusmessage == "INSERT 0 2", cur.statusmessage
    cur.execute("DELETE FROM pc WHERE id >= 5000 RETURNING id")
    assert sorted(cur.fetchall()) == [(5000,), (5001,)]
    assert cur.statusmessage == "DELETE 2", cur.statusmessage
    # ... also with parameters (the extended protocol describes the RETURNING
    # columns), prepared or not, and from executemany.
    for prepare in (False, True):
        cur.execute("INSERT INTO pc (id, name) VALUES (%s, %s) RETURNING id + 1, name",
                    (6000, "p"), prepare=prepare)
        assert cur.fetchall() == [(6001, "p")]
        cur.execute("UPDATE pc SET name = %s WHERE id = %s RETURNING name", ("q", 6000),
                    prepare=prepare)
        assert cur.fetchall() == [("q",)]
        cur.execute("DELETE FROM pc WHERE id = %s RETURNING id, name", (6000,), prepare=prepare)
        assert cur.fetchall() == [(6000, "q")]
    cur.executemany("INSERT INTO pc (id) VALUES (%s) RETURNING id * 2", [(7000,), (7001,)],
                    returning=True)
    got = []
    while True:
        got += cur.fetchall()
        if not cur.nextset():
            break
    assert got == [(14000,), (14002,)], got
    cur.execute("DELETE FROM pc WHERE id >= 7000")
    with cur.copy("COPY (SELECT id, name, d, amount, ok FROM pc WHERE id < 3 ORDER BY id) TO STDOUT") as copy:
        copy.set_types(["int8", "text", "date", "numeric", "bool"])
        rows = list(copy.rows())
    assert rows == [
        (0, None, datetime.date(2024, 1, 1), decimal.Decimal("0.00"), True),
        (1, "n1\ttab\\", datetime.date(2024, 1, 2), decimal.Decimal("0.25"), False),
        (2, "n2\ttab\\", datetime.date(2024, 1, 3), decimal.Decimal("0.50"), True),
    ], rows
    with cur.copy("COPY (SELECT id, name FROM pc WHERE id < 2 ORDER BY id) TO STDOUT (FORMAT csv, HEADER)") as copy:
        assert b"".join(copy) == b"id,name\n0,\n1,n1\ttab\\\n"
    try:
        with cur.copy("COPY pc FROM STDIN") as copy:
            copy.write(b"1\tx\tnot a date\t1\tt\n")
        raise AssertionError("expected an error")
    except psycopg.errors.InvalidTextRepresentation as e:
        assert "not a date" in str(e), e
    try:
        with cur.copy("COPY pc FROM STDIN") as copy:
            copy.write_row((1, "x", None, None, None))
            raise RuntimeError("the client gives up")
    except RuntimeError:
        pass
    assert c.execute("SELECT count(*) FROM pc").fetchone() == (1000,)
print("OK")
