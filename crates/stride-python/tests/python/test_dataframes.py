"""DataFrames and Arrow data as tables: register() and replacement scans."""

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import stride


def test_register_each_kind(con):
    frames = {
        "pandas_df": pd.DataFrame({"k": [1, 2, 1], "v": [1.5, 2.5, 3.0], "s": ["a", None, "c"]}),
        "polars_df": pl.DataFrame({"k": [1, 2, 1], "v": [1.5, 2.5, 3.0], "s": ["a", None, "c"]}),
        "arrow_table": pa.table({"k": [1, 2, 1], "v": [1.5, 2.5, 3.0], "s": ["a", None, "c"]}),
    }
    for name, frame in frames.items():
        con.register(name, frame)
        rows = con.execute(f"SELECT k, sum(v), count(s) FROM {name} GROUP BY k ORDER BY k").fetchall()
        assert rows == [(1, 4.5, 2), (2, 2.5, 0)], name
    con.unregister("pandas_df")
    with pytest.raises(stride.CatalogException):
        con.execute("SELECT * FROM pandas_df")
    with pytest.raises(stride.CatalogException, match="no relation is registered"):
        con.unregister("pandas_df")


def test_replacement_scan_finds_local_variables(con):
    orders = pd.DataFrame({"id": range(1000), "amount": [i * 0.5 for i in range(1000)]})
    assert con.execute("SELECT count(*), sum(amount) FROM orders WHERE id >= 500").fetchone() == (
        500,
        sum(i * 0.5 for i in range(500, 1000)),
    )
    # Each statement reads the variable as it is then.
    orders = pd.DataFrame({"id": [1], "amount": [7.0]})
    assert con.execute("SELECT sum(amount) FROM orders").fetchone() == (7.0,)
    # Nothing stays registered.
    del orders
    with pytest.raises(stride.CatalogException, match="orders"):
        con.execute("SELECT * FROM orders")


def test_replacement_scans_in_joins_and_relations(con):
    people = pl.DataFrame({"id": [1, 2, 3], "name": ["ann", "bob", "cy"]})
    visits = pa.table({"person": [1, 1, 3], "day": [1, 2, 3]})
    rel = con.sql("SELECT name, count(*) AS n FROM people JOIN visits ON people.id = visits.person GROUP BY name")
    assert sorted(rel.fetchall()) == [("ann", 2), ("cy", 1)]
    assert stride.sql("SELECT count(*) FROM people").fetchone() == (3,)
    # Tables come first: a table of that name hides the variable.
    con.execute("CREATE TABLE people AS SELECT 42 AS id")
    assert con.execute("SELECT id FROM people").fetchall() == [(42,)]


def test_large_frames_and_types(con):
    n = 100_000
    df = pd.DataFrame(
        {
            "i": range(n),
            "f": [float(i) / 3 for i in range(n)],
            "s": [f"s{i % 1000}" for i in range(n)],
            "ts": pd.date_range("2024-01-01", periods=n, freq="s"),
            "cat": pd.Categorical([["x", "y", "z"][i % 3] for i in range(n)]),
        }
    )
    rows = con.execute(
        "SELECT count(*), sum(i), count(DISTINCT s), max(ts), count(*) FILTER (WHERE cat = 'y') FROM df"
    ).fetchone()
    assert rows[:3] == (n, n * (n - 1) // 2, 1000)
    assert str(rows[3]) == "2024-01-02 03:46:39"
    assert rows[4] == n // 3


def test_things_that_are_not_tables(con):
    not_a_frame = [1, 2, 3]  # noqa: F841
    with pytest.raises(stride.CatalogException, match="not_a_frame"):
        con.execute("SELECT * FROM not_a_frame")
    with pytest.raises(stride.InvalidInputException, match="cannot be read as a table"):
        con.register("x", {"a": [1]})
    with pytest.raises(stride.NotSupportedError, match="column \"b\""):
        con.register("bad", pa.table({"b": pa.array([1], pa.duration("s"))}))


def test_frames_are_read_in_place(con):
    import numpy as np

    values = np.arange(1_000_000, dtype=np.int64)
    table = pa.table({"x": pa.array(values), "s": pa.array([f"value {i}" for i in range(1_000_000)])})
    con.register("t", table)
    assert con.execute("SELECT sum(x) FROM t").fetchone() == (499999500000,)
    # The registered relation reads the numpy array's memory itself: a change made
    # in place shows (as in DuckDB), which a copy would not.
    con.execute("CREATE TABLE stored AS SELECT * FROM t")
    values[0] = 1_000_000_000
    assert con.execute("SELECT sum(x) FROM t").fetchone() == (499999500000 + 1_000_000_000,)
    # A table made from the frame holds rows of its own.
    assert con.execute("SELECT sum(x) FROM stored").fetchone() == (499999500000,)
    con.execute("UPDATE stored SET x = t.x FROM t WHERE stored.x = 1 AND t.x = 1")
    values[1] = 5
    assert con.execute("SELECT sum(x) FROM stored").fetchone() == (499999500000,)
    # A result abandoned half read, the frame dropped, the connection closed: the
    # Arrow memory is released without deadlocking on the GIL.
    df = pd.DataFrame({"x": values})
    rel = con.sql("SELECT x, x + 1 FROM df")
    assert rel.fetchone() is not None
    cur = con.execute("SELECT * FROM t")
    assert cur.fetchmany(10)
    del rel, df, table
    con.unregister("t")
    con.close()


def test_lazy_frames_datasets_and_readers(con):
    import pyarrow.dataset as ds

    table = pa.table({"a": [1, 2, 3], "b": ["x", "y", "x"]})
    lazy = pl.DataFrame({"a": [1, 2, 3]}).lazy().filter(pl.col("a") > 1)
    assert con.execute("SELECT sum(a) FROM lazy").fetchone()[0] == 5
    dataset = ds.dataset(table)
    assert con.execute("SELECT count(*) FROM dataset WHERE b = 'x'").fetchone() == (2,)
    # A reader can be read once: a relation reads it when it is made, and every run
    # of the relation (and the relations built on it) sees those rows.
    reader = table.to_reader()
    rel = con.sql("SELECT sum(a) AS s FROM reader")
    assert rel.fetchall()[0][0] == 6
    assert rel.fetchall()[0][0] == 6
    assert rel.filter("s > 5").fetchall()[0][0] == 6
    # The variable as it was when the relation was made, as in DuckDB.
    frame = pd.DataFrame({"a": [10]})
    rel = con.sql("SELECT a FROM frame")
    frame = pd.DataFrame({"a": [20]})
    assert rel.fetchall() == [(10,)]
    assert con.sql("SELECT a FROM frame").fetchall() == [(20,)]
    # A view made from a relation keeps reading the objects the relation found.
    con.sql("SELECT a * 2 AS b FROM frame").create_view("doubled")
    del frame
    assert con.execute("SELECT b FROM doubled").fetchall() == [(40,)]


PUSHDOWN_QUERIES = [
    "SELECT count(*), sum(k) FROM src WHERE k < 5000 AND s = 's7'",
    "SELECT count(*) FROM src WHERE d >= DATE '2021-06-01' AND b AND s IN ('s2', 's4', 'é')",
    "SELECT count(*) FROM src WHERE NOT b AND k <> 3 AND 100 > k",
    "SELECT count(*) FROM src WHERE s IS NULL OR k = 1",
    "SELECT count(*) FROM src WHERE s IS NULL",
    "SELECT count(*), count(s) FROM src WHERE s IS NOT NULL AND s > 's5'",
    # Floating point is not pushed: stride orders NaN above every number.
    "SELECT count(*) FROM src WHERE f > 1000",
    "SELECT count(*) FROM src WHERE f = 'NaN'::DOUBLE",
    "SELECT count(*) FROM src WHERE k IN (1, 2, 99999) AND d = DATE '2020-01-02'",
    "SELECT count(*) FROM src WHERE k > 99999999",
    "SELECT min(s), max(k) FROM src WHERE s < 's10'",
]


def _pushdown_table():
    import datetime

    n = 20000
    return pa.table(
        {
            "k": pa.array(range(n), pa.int64()),
            "s": pa.array([None if i % 97 == 0 else ("é" if i % 101 == 0 else f"s{i % 100}") for i in range(n)]),
            "d": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 1000) for i in range(n)]),
            "f": pa.array([float("nan") if i % 50 == 0 else float(i) for i in range(n)]),
            "b": pa.array([i % 3 == 0 for i in range(n)]),
        }
    )


def test_filters_pushed_into_datasets_and_lazy_frames(con, tmp_path):
    """A pyarrow Dataset and a polars LazyFrame are read when the query runs, with
    its columns and exact conditions pushed into them; the answers are those of the
    same rows read whole."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    table = _pushdown_table()
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, row_group_size=2000)
    sources = {
        "dataset": ds.dataset(str(path)),
        "in-memory dataset": ds.dataset(table),
        "lazy frame": pl.scan_parquet(str(path)),
        "lazy frame in memory": pl.from_arrow(table).lazy(),
    }
    for query in PUSHDOWN_QUERIES:
        con.register("src", table)
        expected = con.execute(query).fetchall()
        for name, source in sources.items():
            con.register("src", source)
            assert con.execute(query).fetchall() == expected, (name, query)
    con.unregister("src")


def test_pushed_filters_show_in_explain(con, tmp_path):
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    table = _pushdown_table()
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=2000)
    dataset = ds.dataset(str(tmp_path / "t.parquet"))
    lazy = pl.scan_parquet(str(tmp_path / "t.parquet"))
    query = "EXPLAIN ANALYZE SELECT count(*) FROM {} WHERE k BETWEEN 10 AND 19 AND f > 0"
    for name, kind in [("dataset", "pyarrow Dataset"), ("lazy", "polars LazyFrame")]:
        plan = "\n".join(r[-1] for r in con.execute(query.format(name)).fetchall())
        scan = next(line for line in plan.splitlines() if "REGISTERED_SCAN" in line)
        # Only k's conditions are pushed (f is a float), and only the columns read.
        assert f"{kind} [k, f] filters: k >= 10 AND k <= 19" in scan, plan
        # The source returned the 10 rows, not all 20,000.
        assert "rows=10 " in scan, plan
    assert con.execute(
        "SELECT count(*) FROM dataset WHERE k BETWEEN 10 AND 19 AND f > 0"
    ).fetchone() == (10,)


def test_lazy_sources_are_read_at_each_query(con, tmp_path):
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), path)
    con.register("files", ds.dataset(str(path)))
    assert con.execute("SELECT sum(a) FROM files").fetchone() == (3,)
    pq.write_table(pa.table({"a": [5, 6]}), path)
    assert con.execute("SELECT sum(a) FROM files").fetchone() == (11,)
    # A source that fails when read gives an error, and the connection goes on.
    path.write_bytes(b"not parquet")
    with pytest.raises(stride.Error, match="pyarrow Dataset"):
        con.execute("SELECT sum(a) FROM files").fetchall()
    assert con.execute("SELECT 1").fetchone() == (1,)


def test_pandas_columns_of_every_kind(con):
    """numpy integer and float columns are read in place (NaN is NULL, as DuckDB
    reads it), the others through pyarrow; the chunks line up wherever pyarrow cuts
    its batches, and the index is not a column."""
    import numpy as np

    n = 200_003
    floats = np.arange(n, dtype=np.float64) / 4
    floats[::7] = np.nan
    df = pd.DataFrame(
        {
            "i8": (np.arange(n) % 100).astype(np.int8),
            "i16": (np.arange(n) % 1000).astype(np.int16),
            "i32": np.arange(n, dtype=np.int32),
            "i64": np.arange(n, dtype=np.int64) * 3,
            "f32": (np.arange(n) % 10).astype(np.float32),
            "f64": floats,
            "u64": np.arange(n, dtype=np.uint64),
            "b": np.arange(n) % 2 == 0,
            "s": [f"s{i % 10}" for i in range(n)],
            "ts": pd.date_range("2024-01-01", periods=n, freq="s"),
            "nullable": pd.array([None if i % 5 == 0 else i for i in range(n)], dtype="Int64"),
            "cat": pd.Categorical([["x", "y", "z"][i % 3] for i in range(n)]),
        },
        index=np.arange(n) * 10,
    )
    con.register("frame", df)
    assert [d[0] for d in con.execute("SELECT * FROM frame LIMIT 0").description] == list(df.columns)
    row = con.execute(
        "SELECT sum(i8), sum(i16), sum(i32), sum(i64), sum(f32), count(f64), sum(f64), sum(u64), "
        "count_if(b), count_if(s = 's3'), max(ts), count(nullable), sum(nullable), count_if(cat = 'y') "
        "FROM frame"
    ).fetchone()
    valid = floats[~np.isnan(floats)]
    assert row[:4] == (int(df.i8.sum()), int(df.i16.sum()), int(df.i32.sum()), int(df.i64.sum()))
    assert row[4] == float(df.f32.sum())
    assert row[5] == len(valid)
    assert row[6] == pytest.approx(float(valid.sum()))
    assert row[7] == int(df.u64.sum())
    assert row[8:10] == (int(df.b.sum()), int((df.s == "s3").sum()))
    assert row[10] == df.ts.max().to_pydatetime()
    assert row[11:13] == (int(df.nullable.count()), int(df.nullable.sum()))
    assert row[13] == int((df.cat == "y").sum())
    # Rows stay whole across chunks: columns read in place and through pyarrow agree.
    assert con.execute(
        "SELECT count(*) FROM frame WHERE i32 * 3 <> i64 OR s <> 's' || (i32 % 10) "
        "OR nullable IS DISTINCT FROM CASE WHEN i32 % 5 = 0 THEN NULL ELSE i32 END"
    ).fetchone() == (0,)
    # Columns that are not contiguous numpy arrays (a 2-D block's rows), integer
    # column names, an empty frame.
    grid = pd.DataFrame(np.arange(20, dtype=np.int64).reshape(10, 2))
    assert con.execute('SELECT sum("0"), sum("1") FROM grid').fetchone() == (90, 100)
    # An unaligned array (read at an odd offset) goes through pyarrow.
    raw = bytearray(8 * 1000 + 1)
    unaligned = np.frombuffer(raw, dtype=np.int64, count=1000, offset=1)
    unaligned[:] = np.arange(1000)
    odd = pd.DataFrame({"a": unaligned}, copy=False)
    assert not odd.iloc[:, 0].to_numpy(copy=False).flags.aligned
    assert con.execute("SELECT sum(a), count(*) FROM odd").fetchone() == (499500, 1000)
    empty = pd.DataFrame({"a": np.array([], dtype=np.int64), "s": pd.Series([], dtype=object)})
    assert con.execute("SELECT count(*), sum(a) FROM empty").fetchone() == (0, None)
