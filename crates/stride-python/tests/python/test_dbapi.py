"""DB-API 2.0 (PEP 249) on stride's connections, named as in DuckDB's package."""

import threading

import pytest

import stride


def test_module_globals():
    assert stride.apilevel == "2.0"
    assert stride.threadsafety == 1
    assert stride.paramstyle == "qmark"
    assert isinstance(stride.__version__, str)


def test_execute_and_fetch(con):
    con.execute("CREATE TABLE t AS SELECT range AS i, 'v' || range AS s FROM range(5)")
    assert con.execute("SELECT i, s FROM t ORDER BY i").fetchone() == (0, "v0")
    con.execute("SELECT i FROM t ORDER BY i")
    assert con.fetchmany(2) == [(0,), (1,)]
    assert con.fetchone() == (2,)
    assert con.fetchall() == [(3,), (4,)]
    assert con.fetchone() is None
    assert con.fetchall() == []


def test_fetchmany_uses_arraysize(con):
    con.execute("SELECT * FROM range(10)")
    con.arraysize = 3
    assert len(con.fetchmany()) == 3


def test_rows_span_chunks(con):
    rows = con.execute("SELECT range FROM range(5000) ORDER BY range").fetchall()
    assert [r[0] for r in rows] == list(range(5000))
    con.execute("SELECT range FROM range(5000) ORDER BY range")
    assert len(con.fetchmany(2047)) == 2047
    assert con.fetchmany(3) == [(2047,), (2048,), (2049,)]


def test_description_and_rowcount(con):
    con.execute("SELECT 1 AS a, 'x' AS b, 1.5::DOUBLE AS c")
    assert [d[0] for d in con.description] == ["a", "b", "c"]
    assert [d[1] for d in con.description] == ["INTEGER", "VARCHAR", "DOUBLE"]
    assert all(len(d) == 7 for d in con.description)
    assert con.description[0][1] == stride.NUMBER
    assert con.description[1][1] == stride.STRING
    assert con.rowcount == -1
    con.execute("CREATE TABLE t (i INTEGER)")
    assert con.description is None
    con.execute("INSERT INTO t VALUES (1), (2), (3)")
    assert con.rowcount == 3
    assert con.fetchall() == [(3,)]
    con.execute("UPDATE t SET i = i + 1 WHERE i > 1")
    assert con.rowcount == 2


def test_parameters(con):
    assert con.execute("SELECT ? + 1, ?", [41, "a"]).fetchall() == [(42, "a")]
    assert con.execute("SELECT $2, $1", (1, 2)).fetchall() == [(2, 1)]
    # A question mark inside a string is text, not a parameter.
    assert con.execute("SELECT '?', ?", ["x"]).fetchall() == [("?", "x")]
    with pytest.raises(stride.BinderException, match="parameter \\$2 has no value"):
        con.execute("SELECT ?, ?", [1])
    with pytest.raises(stride.NotSupportedError, match="named parameters"):
        con.execute("SELECT $a", {"a": 1})
    with pytest.raises(stride.ProgrammingError, match="one statement"):
        con.execute("SELECT ?; SELECT ?", [1])


def test_executemany(con):
    con.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "b"), (3, None)])
    assert con.rowcount == 3
    assert con.execute("SELECT * FROM t ORDER BY i").fetchall() == [
        (1, "a"),
        (2, "b"),
        (3, None),
    ]


def test_exception_hierarchy(con):
    cases = [
        ("SELEC 1", stride.ParserException, stride.ProgrammingError),
        ("SELECT * FROM missing", stride.CatalogException, stride.ProgrammingError),
        ("SELECT x FROM range(1)", stride.BinderException, stride.ProgrammingError),
        ("SELECT 'a'::INTEGER", stride.ConversionException, stride.DataError),
        ("SELECT 1 // 0", stride.OutOfRangeException, stride.DataError),
    ]
    for sql, specific, general in cases:
        with pytest.raises(specific) as e:
            con.execute(sql)
        assert isinstance(e.value, general)
        assert isinstance(e.value, stride.DatabaseError)
        assert isinstance(e.value, stride.Error)
    con.execute("CREATE TABLE k (i INTEGER PRIMARY KEY)")
    con.execute("INSERT INTO k VALUES (1)")
    with pytest.raises(stride.IntegrityError, match="Constraint Error"):
        con.execute("INSERT INTO k VALUES (1)")
    assert issubclass(stride.Warning, Warning)


def test_transactions(con):
    con.execute("CREATE TABLE t (i INTEGER)")
    con.begin()
    con.execute("INSERT INTO t VALUES (1)")
    con.rollback()
    assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)
    con.begin()
    con.execute("INSERT INTO t VALUES (2)")
    con.commit()
    assert con.execute("SELECT * FROM t").fetchall() == [(2,)]
    # Outside a transaction, commit and rollback have nothing to do.
    con.commit()
    con.rollback()


def test_close_and_context_manager():
    with stride.connect() as c:
        assert c.execute("SELECT 1").fetchone() == (1,)
    with pytest.raises(stride.ConnectionException, match="closed"):
        c.execute("SELECT 1")
    assert issubclass(stride.ConnectionException, stride.OperationalError)


def test_fetch_without_result(con):
    with pytest.raises(stride.InterfaceError):
        con.fetchall()


def test_cursor_shares_the_database(con):
    con.execute("CREATE TABLE t AS SELECT 7 AS x")
    cur = con.cursor()
    assert cur.execute("SELECT x FROM t").fetchall() == [(7,)]
    other = stride.connect()
    with pytest.raises(stride.CatalogException):
        other.execute("SELECT x FROM t")


def test_database_file(tmp_path):
    path = str(tmp_path / "test.stride")
    with stride.connect(path) as c:
        c.execute("CREATE TABLE t AS SELECT range AS i FROM range(100)")
    with stride.connect(path, read_only=True) as c:
        assert c.execute("SELECT sum(i) FROM t").fetchone() == (4950,)
        with pytest.raises(stride.Error, match="read-only"):
            c.execute("INSERT INTO t VALUES (1)")


def test_recovery_is_a_warning(tmp_path):
    import subprocess
    import sys

    # A writer that dies without closing leaves its commits in the log; bytes
    # after them are cut off at the next open, with a RuntimeWarning.
    path = str(tmp_path / "crash.stride")
    script = tmp_path / "crash.py"
    script.write_text(
        f"""
import os, stride
c = stride.connect({path!r})
c.execute("CREATE TABLE t AS SELECT range AS i FROM range(10)")
c.execute("INSERT INTO t VALUES (10)")
os._exit(0)
"""
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    with open(path + ".wal", "ab") as f:
        f.write(bytes([7] * 37))
    with pytest.warns(RuntimeWarning, match="write-ahead log"):
        c = stride.connect(path)
    assert c.execute("SELECT count(*) FROM t").fetchone() == (11,)


def test_config_sets_options():
    c = stride.connect(config={"threads": 1})
    assert c.execute("SELECT current_setting('threads')").fetchone() == (1,)
    with pytest.raises(stride.Error, match="nonexistent_option"):
        stride.connect(config={"nonexistent_option": 1})


def test_default_connection():
    stride.execute("CREATE OR REPLACE TABLE default_t AS SELECT 5 AS v")
    assert stride.sql("SELECT v FROM default_t").fetchall() == [(5,)]
    assert stride.default_connection().execute("SELECT v FROM default_t").fetchone() == (5,)


def test_interrupt_from_another_thread(con):
    timer = threading.Timer(0.3, con.interrupt)
    timer.start()
    with pytest.raises(stride.InterruptException):
        con.execute(
            "SELECT count(*) FROM range(100000) a(x), range(100000) b(y) WHERE a.x + b.y = -1"
        ).fetchall()
    timer.join()
    assert con.execute("SELECT 1").fetchone() == (1,)


def test_queries_release_the_gil(con):
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.01)

    t = threading.Thread(target=count, daemon=True)
    t.start()
    timer = threading.Timer(0.5, con.interrupt)
    timer.start()
    try:
        with pytest.raises(stride.InterruptException):
            con.execute(
                "SELECT count(*) FROM range(100000) a(x), range(100000) b(y) WHERE a.x + b.y = -1"
            ).fetchall()
    finally:
        # A failure above must not leave the counting thread running (pytest would
        # wait for it forever at exit).
        stop.set()
        t.join()
        timer.join()
    # The other thread ran while the query did (about 50 ticks in 0.5 s).
    assert len(ticks) > 10


def test_statements_from_many_threads(con):
    """Statements run on helper threads kept between statements; several Python
    threads at once each get their own, and their own answers."""
    results = {}

    def work(i):
        c = con.cursor()
        results[i] = [c.execute("SELECT ? * 2", [i + k]).fetchone()[0] for k in range(50)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: [2 * (i + k) for k in range(50)] for i in range(8)}


def test_a_forked_child_runs_statements(con):
    """A child forked after statements ran (multiprocessing's default on Linux) has
    none of its parent's helper threads and starts its own instead of waiting for
    them."""
    import os

    assert con.execute("SELECT 41 + 1").fetchone() == (42,)
    pid = os.fork()
    if pid == 0:
        try:
            child = stride.connect()
            ok = child.execute("SELECT 6 * 7").fetchone() == (42,)
        finally:
            os._exit(0 if ok else 1)
    import time

    deadline = time.time() + 60
    while time.time() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        pytest.fail("the forked child hung")
    assert con.execute("SELECT 1").fetchone() == (1,)


def test_ctrl_c_cancels_the_statement(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "ctrl_c.py"
    script.write_text(
        """
import os, signal, threading, time
import stride
con = stride.connect()
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
start = time.time()
try:
    con.execute("SELECT count(*) FROM range(100000) a(x), range(100000) b(y) WHERE a.x + b.y = -1").fetchall()
    print("finished")
except KeyboardInterrupt:
    print("interrupted", round(time.time() - start))
print(con.execute("SELECT 42").fetchone()[0])
"""
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split()
    assert lines[0] == "interrupted", out.stdout
    assert int(lines[1]) < 10
    assert lines[2] == "42"


def test_bad_input_gets_clear_errors(con, tmp_path):
    with pytest.raises(stride.ProgrammingError, match="list or tuple"):
        con.execute("SELECT ?", 5)
    with pytest.raises(stride.ProgrammingError, match="not a string"):
        con.execute("SELECT ?", "abc")
    with pytest.raises(stride.ProgrammingError, match="no statement"):
        con.sql("   ")
    with pytest.raises(stride.ProgrammingError, match="read-only"):
        stride.connect(":memory:", read_only=True)
    with pytest.raises(stride.IOException):
        stride.connect(str(tmp_path / "missing" / "x.stride"))
    # executemany takes any iterable of parameter sets, generators included.
    con.execute("CREATE TABLE g (i INTEGER)")
    con.executemany("INSERT INTO g VALUES (?)", ([i] for i in range(5)))
    assert con.execute("SELECT sum(i) FROM g").fetchone() == (10,)


def test_relations_of_a_closed_connection():
    c = stride.connect()
    rel = c.sql("SELECT 1")
    c.close()
    with pytest.raises(stride.ConnectionException):
        rel.fetchall()
    with pytest.raises(stride.ConnectionException):
        c.cursor()
    assert "closed" in repr(c)


def test_enable_profiling_prints_the_profile(con, capsys, tmp_path):
    con.execute("PRAGMA enable_profiling")
    assert con.execute("SELECT count(*) FROM range(100) t(x) WHERE x < 5").fetchall() == [(5,)]
    printed = capsys.readouterr().out
    assert printed.startswith("Total Time: ") and "rows=5 " in printed, printed
    # Into a file instead, as JSON.
    path = tmp_path / "profile.json"
    con.execute("SET enable_profiling = 'json'")
    con.execute(f"SET profiling_output = '{path}'")
    assert con.sql("SELECT 42").fetchall() == [(42,)]
    assert capsys.readouterr().out == ""
    import json

    assert json.loads(path.read_text())["rows_returned"] == 1
    con.execute("PRAGMA disable_profiling")
    con.execute("SELECT 1").fetchall()
    assert capsys.readouterr().out == ""
