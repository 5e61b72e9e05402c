"""Relations: lazy queries that build bigger queries and fetch in every format."""

import pyarrow as pa
import pytest

import stride


@pytest.fixture
def con_t(con):
    con.execute(
        "CREATE TABLE t AS SELECT range AS i, range % 3 AS g, 'name' || range AS s FROM range(10)"
    )
    return con


def test_relations_are_lazy(con_t):
    rel = con_t.sql("SELECT count(*) FROM t")
    assert rel.fetchall() == [(10,)]
    con_t.execute("INSERT INTO t VALUES (100, 1, 'x')")
    # Each fetch runs the query again.
    assert rel.fetchall() == [(11,)]


def test_statements_that_are_not_queries(con):
    assert con.sql("CREATE TABLE u (i INTEGER)") is None
    assert con.sql("INSERT INTO u VALUES (1), (2)") is None
    returned = con.sql("INSERT INTO u VALUES (3) RETURNING i * 10")
    # The insert ran once; its relation holds the rows it returned.
    assert returned.fetchall() == [(30,)]
    assert returned.fetchall() == [(30,)]
    assert con.sql("SELECT count(*) FROM u").fetchone() == (3,)
    with pytest.raises(stride.NotSupportedError, match="cannot be built on"):
        returned.filter("true")
    # Several statements: all run, the last one gives the relation.
    assert con.sql("CREATE TABLE w AS SELECT 1 AS a; SELECT a + 1 FROM w").fetchall() == [(2,)]


def test_columns_and_types(con_t):
    rel = con_t.sql("SELECT i, s, i * 1.5 AS d FROM t")
    assert rel.columns == ["i", "s", "d"]
    assert rel.types == ["BIGINT", "VARCHAR", "DECIMAL(21,1)"]
    assert len(rel) == 10
    assert rel.shape == (10, 3)


def test_building_on_a_relation(con_t):
    rel = con_t.sql("SELECT * FROM t")
    assert rel.filter("i > 6").order("i DESC").limit(2).project("i", "s").fetchall() == [
        (9, "name9"),
        (8, "name8"),
    ]
    agg = rel.aggregate("g, count(*) AS n, sum(i) AS total", "g").order("g")
    assert agg.fetchall() == [(0, 4, 18), (1, 3, 12), (2, 3, 15)]
    assert rel.project("g").distinct().order("g").fetchall() == [(0,), (1,), (2,)]
    assert rel.limit(3, offset=8).fetchall() == [(8, 2, "name8"), (9, 0, "name9")]
    assert "unnamed_relation" in rel.filter("i = 1").sql_query()


def test_parameters_carry_through(con_t):
    rel = con_t.sql("SELECT i FROM t WHERE i < ?", [3]).order("i")
    assert rel.fetchall() == [(0,), (1,), (2,)]


def test_create_insert_and_view(con_t):
    con_t.sql("SELECT i FROM t WHERE i < 3").create("small")
    con_t.sql("SELECT 99").insert_into("small")
    assert con_t.sql("SELECT i FROM small ORDER BY i").fetchall() == [(0,), (1,), (2,), (99,)]
    con_t.sql("SELECT max(i) AS m FROM small").create_view("v")
    assert con_t.table("v").fetchall() == [(99,)]


def test_fetchone_goes_on(con_t):
    rel = con_t.sql("SELECT i FROM t ORDER BY i")
    assert rel.fetchone() == (0,)
    assert rel.fetchmany(2) == [(1,), (2,)]
    assert rel.fetchall() == [(i,) for i in range(3, 10)]
    # A finished relation starts over.
    assert rel.fetchone() == (0,)


def test_show_and_repr(con_t, capsys):
    rel = con_t.sql("SELECT i, s FROM t WHERE i < 2 ORDER BY i")
    rel.show()
    out = capsys.readouterr().out
    assert "│ bigint │ varchar │" in out
    assert "│      1 │ name1   │" in out
    assert repr(rel) == str(rel)
    assert "name0" in repr(rel)


def test_module_level_sql():
    assert stride.sql("SELECT 1 + 1").fetchall() == [(2,)]
    assert stride.query("SELECT 'q'").fetchone() == ("q",)


def test_errors_surface_when_fetched(con):
    rel = con.sql("SELECT 1 // (range - 5) FROM range(10)")
    with pytest.raises(stride.OutOfRangeException):
        rel.fetchall()


def test_files_numpy_and_writers(con, tmp_path):
    import numpy as np
    import pandas as pd

    rel = con.sql("SELECT range AS i, 'v' || range AS s, CASE WHEN range % 2 = 0 THEN range END AS m FROM range(5)")
    parquet = str(tmp_path / "r.parquet")
    rel.write_parquet(parquet, compression="zstd")
    csv = str(tmp_path / "r.csv")
    rel.to_csv(csv)
    assert open(csv).readline().strip() == "i,s,m"
    assert con.read_parquet(parquet).fetchall() == rel.fetchall()
    assert con.from_parquet([parquet, parquet]).aggregate("count(*)", "").fetchone() == (10,)
    assert con.read_csv(csv).order("i").fetchall() == rel.fetchall()
    arrays = rel.fetchnumpy()
    assert list(arrays) == ["i", "s", "m"]
    assert isinstance(arrays["i"], np.ndarray) and arrays["i"].tolist() == [0, 1, 2, 3, 4]
    assert np.ma.is_masked(arrays["m"]) and arrays["m"].count() == 3
    df = pd.DataFrame({"k": [1, 2, 3]})
    r = con.from_df(df)
    assert r.aggregate("sum(k)", "").fetchone()[0] == 6
    assert con.from_arrow(pa.table({"k": [4]})).fetchall() == [(4,)]
    rel.to_table("kept")
    assert con.table("kept").aggregate("count(*)", "").fetchone() == (5,)
    with pytest.raises(stride.IOException):
        con.read_parquet(str(tmp_path / "missing.parquet"))
