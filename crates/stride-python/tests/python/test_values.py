"""Python values as parameters and SQL values as Python objects."""

import datetime
import decimal
import uuid

import pytest

import stride


def roundtrip(con, value, cast=None):
    sql = "SELECT ?" if cast is None else f"SELECT ?::{cast}"
    return con.execute(sql, [value]).fetchone()[0]


def test_scalars_round_trip(con):
    for v in [None, True, False, 0, -7, 2**62, 1.5, -0.0, "", "héllo ✓", "x" * 100]:
        got = roundtrip(con, v)
        assert got == v and type(got) is type(v), (v, got)


def test_big_integers_become_hugeints(con):
    assert roundtrip(con, 2**64) == 2**64
    assert con.execute("SELECT typeof(?)", [2**64]).fetchone()[0] == "HUGEINT"
    assert roundtrip(con, -(2**127)) == -(2**127)
    big = con.execute("SELECT 170141183460469231731687303715884105727::HUGEINT").fetchone()[0]
    assert big == 2**127 - 1 and type(big) is int
    assert con.execute("SELECT sum(i) FROM range(10) t(i)").fetchone()[0] == 45
    # beyond HUGEINT a UHUGEINT, both ways
    assert roundtrip(con, 2**128 - 1) == 2**128 - 1
    assert con.execute("SELECT typeof(?)", [2**127]).fetchone()[0] == "UHUGEINT"
    top = con.execute("SELECT 340282366920938463463374607431768211455::UHUGEINT").fetchone()[0]
    assert top == 2**128 - 1 and type(top) is int
    with pytest.raises(stride.OutOfRangeException):
        roundtrip(con, 10**40)


def test_decimal(con):
    for text in ["1.50", "-0.001", "12345678901234567890.123", "100"]:
        d = decimal.Decimal(text)
        got = roundtrip(con, d)
        assert got == d and isinstance(got, decimal.Decimal)
    assert con.execute("SELECT 1.25::DECIMAL(10,2)").fetchone()[0] == decimal.Decimal("1.25")
    with pytest.raises(stride.ConversionException):
        roundtrip(con, decimal.Decimal("NaN"))


def test_dates_and_times(con):
    d = datetime.date(2024, 2, 29)
    assert roundtrip(con, d) == d
    assert roundtrip(con, datetime.date(1, 1, 1)) == datetime.date(1, 1, 1)
    ts = datetime.datetime(2024, 1, 2, 3, 4, 5, 678901)
    assert roundtrip(con, ts) == ts
    assert roundtrip(con, datetime.datetime(1969, 12, 31, 23, 59, 59)) == datetime.datetime(
        1969, 12, 31, 23, 59, 59
    )
    # An aware datetime is a TIMESTAMP WITH TIME ZONE: the same instant comes back,
    # in the session's zone (as DuckDB returns it).
    aware = datetime.datetime(2024, 1, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    got = roundtrip(con, aware)
    assert got == aware and str(got.tzinfo) == "UTC"
    assert con.execute("SELECT typeof(?)", [aware]).fetchone()[0] == "TIMESTAMP WITH TIME ZONE"
    td = datetime.timedelta(days=3, seconds=5, microseconds=7)
    assert roundtrip(con, td) == td
    assert con.execute("SELECT INTERVAL 1 MONTH").fetchone()[0] == datetime.timedelta(days=30)
    t = datetime.time(1, 2, 3, 4)
    assert roundtrip(con, t) == t
    assert con.execute("SELECT typeof(?)", [t]).fetchone()[0] == "TIME"
    assert con.execute("SELECT TIME '23:59:59.5'").fetchone()[0] == datetime.time(23, 59, 59, 500000)
    # datetime.time ends before 24:00:00: DuckDB's package returns that as text.
    assert con.execute("SELECT '24:00:00'::TIME").fetchone()[0] == "24:00:00"
    # a time with a UTC offset is a TIME WITH TIME ZONE, both ways (as in DuckDB)
    aware_time = datetime.time(1, 2, 3, tzinfo=datetime.timezone(datetime.timedelta(hours=-5, minutes=-30)))
    assert roundtrip(con, aware_time) == aware_time
    assert roundtrip(con, aware_time).utcoffset() == datetime.timedelta(hours=-5, minutes=-30)
    assert con.execute("SELECT typeof(?)", [aware_time]).fetchone()[0] == "TIME WITH TIME ZONE"
    assert con.execute("SELECT '10:00:00+02'::TIMETZ").fetchone()[0] == datetime.time(
        10, tzinfo=datetime.timezone(datetime.timedelta(hours=2))
    )


def test_timestamptz_in_the_session_zone(con):
    con.execute("SET TimeZone = 'America/New_York'")
    got = con.execute("SELECT TIMESTAMPTZ '2024-07-01 12:00:00+00'").fetchone()[0]
    assert got.utcoffset() == datetime.timedelta(hours=-4)
    assert (got.year, got.month, got.day, got.hour) == (2024, 7, 1, 8)
    assert str(got.tzinfo) == "America/New_York"
    with pytest.raises(stride.Error, match="Unknown TimeZone 'Nowhere/Else'"):
        con.execute("SET TimeZone = 'Nowhere/Else'")
    # Arrow results carry the zone too
    table = con.execute("SELECT TIMESTAMPTZ '2024-07-01 12:00:00+00' AS t").fetch_arrow_table()
    assert str(table.schema.field("t").type) == "timestamp[us, tz=America/New_York]"


def test_lists(con):
    assert roundtrip(con, [1, 2, None]) == [1, 2, None]
    assert roundtrip(con, ("a", "b")) == ["a", "b"]
    assert roundtrip(con, [1, 2.5]) == [1.0, 2.5]
    assert roundtrip(con, []) == []
    assert con.execute("SELECT [[1, 2], [3]]").fetchone()[0] == [[1, 2], [3]]
    with pytest.raises(stride.ProgrammingError, match="mixes"):
        roundtrip(con, [1, "a"])


def test_structs(con):
    assert con.execute("SELECT {'a': 1, 'b': 'x'}").fetchone()[0] == {"a": 1, "b": "x"}
    assert con.execute("SELECT row(1, 'x')").fetchone()[0] == (1, "x")
    assert con.execute("SELECT NULL::STRUCT(a INT)").fetchone()[0] is None
    assert roundtrip(con, {"a": 1, "b": [1, 2], "c": None}) == {"a": 1, "b": [1, 2], "c": None}
    assert con.execute("SELECT typeof(?)", [{"k": "v"}]).fetchone()[0] == "STRUCT(k VARCHAR)"
    table = con.sql("SELECT {'a': 1, 'b': 'x'} AS s").arrow()
    assert table.column("s").to_pylist() == [{"a": 1, "b": "x"}]


def test_maps(con):
    assert con.execute("SELECT MAP {'a': 1, 'b': 2}").fetchone()[0] == {"a": 1, "b": 2}
    assert con.execute("SELECT MAP {1: [2]}").fetchone()[0] == {1: [2]}
    table = con.sql("SELECT MAP {'a': 1} AS m").arrow()
    assert table.column("m").to_pylist() == [[("a", 1)]]


def test_uuid_and_unsupported(con):
    u = uuid.uuid4()
    assert roundtrip(con, u) == u
    assert con.execute("SELECT typeof(?)", [u]).fetchone()[0] == "UUID"
    got = con.execute("SELECT '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}'::UUID").fetchone()[0]
    assert got == uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
    assert con.execute("SELECT ?::VARCHAR", [u]).fetchone()[0] == str(u)
    with pytest.raises(stride.NotSupportedError, match="object"):
        roundtrip(con, object())


def test_blobs(con):
    assert roundtrip(con, b"\x00\xff") == b"\x00\xff"
    assert roundtrip(con, bytearray(b"ab")) == b"ab"
    assert roundtrip(con, memoryview(b"cd")) == b"cd"
    assert con.execute("SELECT typeof(?)", [b"x"]).fetchone()[0] == "BLOB"
    assert con.execute("SELECT '\\xAA'::BLOB, ''::BLOB").fetchone() == (b"\xaa", b"")
    table = con.sql("SELECT from_hex('00FF') AS b UNION ALL SELECT NULL").arrow()
    assert table.column("b").to_pylist() == [b"\x00\xff", None]
    import pyarrow as pa

    con.register("incoming", pa.table({"b": pa.array([b"\x01", None, b"zz"], pa.binary())}))
    assert con.execute("SELECT hex(b) FROM incoming").fetchall() == [("01",), (None,), ("7A7A",)]


def test_parameters_in_predicates(con):
    con.execute("CREATE TABLE t AS SELECT range AS i, DATE '2024-01-01' + range::INTEGER AS d FROM range(10)")
    rows = con.execute(
        "SELECT i FROM t WHERE d >= ? AND i < ? ORDER BY i", [datetime.date(2024, 1, 8), 9]
    ).fetchall()
    assert rows == [(7,), (8,)]
    assert con.execute("SELECT count(*) FROM t WHERE i IN (?, ?)", [1, 3]).fetchone() == (2,)


def test_enums_are_strings(con):
    con.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
    assert con.execute("SELECT 'ok'::mood, ['sad'::mood]").fetchone() == ("ok", ["sad"])
    con.execute("CREATE TABLE moods (m mood)")
    con.execute("INSERT INTO moods VALUES (?)", ["happy"])
    assert con.execute("SELECT m FROM moods").fetchall() == [("happy",)]
    with pytest.raises(stride.DependencyException):
        con.execute("DROP TYPE mood")
    with pytest.raises(stride.ConversionException):
        con.execute("SELECT 'meh'::mood")
