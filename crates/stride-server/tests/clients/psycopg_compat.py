"""Driven by tests/clients.rs: what psycopg 3 (and the libraries built on it) rely on
from a PostgreSQL server: command tags and row counts, SQLSTATE codes, savepoints
(nested transactions), the startup parameters and SHOW agreeing.
Prints OK at the end; any failed expectation raises."""
import sys

import psycopg
from psycopg import errors

port = sys.argv[1]
dsn = f"host=127.0.0.1 port={port} user=stride dbname=stride application_name=compat_test"
with psycopg.connect(dsn, autocommit=True) as c:
    cur = c.cursor()

    # Command tags come from the statement, not its text's first word.
    def tag(sql):
        cur.execute(sql)
        return cur.statusmessage, cur.rowcount

    assert tag("CREATE TABLE rc (a INTEGER, b VARCHAR)") == ("CREATE TABLE", -1)
    assert tag("INSERT INTO rc VALUES (5, 'x'), (6, 'y'), (7, 'z')") == ("INSERT 0 3", 3)
    assert tag("/* c */ DELETE FROM rc WHERE a = 5") == ("DELETE 1", 1)
    assert tag("-- x\nUPDATE rc SET b = 'w'") == ("UPDATE 2", 2)
    assert tag("/* c */ (SELECT 1)") == ("SELECT 1", 1)
    assert tag("CREATE OR REPLACE TABLE rc2 (a INTEGER)") == ("CREATE TABLE", -1)
    assert tag("CREATE OR REPLACE VIEW v AS SELECT 1 AS one") == ("CREATE VIEW", -1)
    assert tag("CREATE TABLE IF NOT EXISTS rc (a INTEGER)") == ("CREATE TABLE", -1)
    assert tag("CREATE TABLE rc3 AS SELECT * FROM rc") == ("SELECT 2", 2)
    assert tag("ALTER TABLE rc2 ADD COLUMN b INTEGER") == ("ALTER TABLE", -1)
    assert tag("CREATE UNIQUE INDEX rc_a ON rc (a)") == ("CREATE INDEX", -1)
    assert tag("DROP TABLE rc3")[0] == "DROP TABLE"
    assert tag("SET extra_float_digits = 3")[0] == "SET"
    # (the extended protocol's tag carries a count: pgwire adds one to every tag)
    assert tag("SHOW application_name")[0] in ("SHOW", "SHOW 1")
    assert cur.fetchone() == ("compat_test",)
    assert tag("/* c */ BEGIN")[0] == "BEGIN"
    assert tag("SAVEPOINT s")[0] == "SAVEPOINT"
    assert tag("ROLLBACK TO SAVEPOINT s")[0] == "ROLLBACK"
    assert c.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
    assert tag("RELEASE SAVEPOINT s")[0] == "RELEASE"
    assert tag("/* c */ COMMIT")[0] == "COMMIT"
    assert tag("START TRANSACTION")[0] == "BEGIN"
    assert tag("ABORT")[0] == "ROLLBACK"
    assert c.info.transaction_status == psycopg.pq.TransactionStatus.IDLE

with psycopg.connect(dsn, autocommit=True) as c:
    cur = c.cursor()
    # The startup parameters and SHOW agree.
    for name in ("server_version", "DateStyle", "IntervalStyle", "application_name"):
        shown = cur.execute(f"SHOW {name}").fetchone()[0]
        assert c.info.parameter_status(name) == shown, (name, shown)
    assert c.info.server_version == 160000
    assert cur.execute("SHOW TRANSACTION ISOLATION LEVEL").fetchone() == ("repeatable read",)

    # SQLSTATE codes as PostgreSQL raises them.
    cur.execute("CREATE TABLE dup (a INTEGER)")
    cur.execute("CREATE TABLE other (a INTEGER)")
    for sql, error in [
        ("CREATE TABLE dup (a INTEGER)", errors.DuplicateTable),
        ("SELECT no_such_function(1)", errors.UndefinedFunction),
        ("SELECT 1::no_such_type", errors.UndefinedObject),
        ("SHOW no_such_setting", errors.UndefinedObject),
        ("CREATE TABLE twice (a INTEGER, a INTEGER)", errors.DuplicateColumn),
        ("SELECT a FROM dup, other", errors.AmbiguousColumn),
        ("SELECT a, count(*) FROM dup", errors.GroupingError),
        ("SELECT * FROM no_such_table", errors.UndefinedTable),
    ]:
        try:
            cur.execute(sql)
        except error:
            pass
        else:
            raise AssertionError(f"{sql} did not raise {error.__name__}")

# Lists travel as PostgreSQL arrays, in text and binary; parameters of any shape.
with psycopg.connect(dsn, autocommit=True) as c:
    for binary in (False, True):
        cur = c.cursor(binary=binary)
        cur.execute(
            "SELECT [1, NULL, 3], ['a b', 'c\"d', NULL, '', 'NULL'], []::INTEGER[], "
            "[1.5, 2.0]::DOUBLE[], [[1, 2]]"
        )
        row = cur.fetchone()
        assert row == ([1, None, 3], ["a b", 'c"d', None, "", "NULL"], [], [1.5, 2.0], "{{1,2}}"), (binary, row)
    cur = c.cursor()
    assert cur.execute("SELECT %s = [[1, 2], [3, 4]]", ([[1, 2], [3, 4]],)).fetchone() == (True,)
    assert cur.execute("SELECT %b = [[1, 2], [3, 4]]", ([[1, 2], [3, 4]],)).fetchone() == (True,)
    assert cur.execute("SELECT len(%b)", ([1, None, 3],)).fetchone() == (3,)

# Nested transactions are savepoints: an inner block that fails is undone alone.
with psycopg.connect(dsn) as c:
    c.execute("CREATE TABLE nest (a INTEGER PRIMARY KEY)")
    c.commit()
    with c.transaction():
        c.execute("INSERT INTO nest VALUES (1)")
        try:
            with c.transaction():
                c.execute("INSERT INTO nest VALUES (2)")
                c.execute("INSERT INTO nest VALUES (1)")
        except errors.UniqueViolation:
            pass
        with c.transaction():
            c.execute("CREATE TABLE inner_made (x INTEGER)")
            c.execute("INSERT INTO nest VALUES (3)")
    assert c.execute("SELECT a FROM nest ORDER BY a").fetchall() == [(1,), (3,)]
    assert c.execute("SELECT count(*) FROM inner_made").fetchone() == (0,)
    c.commit()
    try:
        c.execute("ROLLBACK TO SAVEPOINT nowhere")
    except errors.InvalidSavepointSpecification:
        c.rollback()
    else:
        raise AssertionError("ROLLBACK TO an unknown savepoint succeeded")

print("OK")
