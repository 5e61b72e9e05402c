"""Parquet files between stride and pyarrow, both ways, and damaged files."""

import datetime
import decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import stride


def test_stride_writes_what_pyarrow_reads(con, tmp_path):
    path = str(tmp_path / "out.parquet")
    con.execute(
        f"""COPY (SELECT range AS i, 'v' || range AS s, (range * 1.25)::DECIMAL(10,2) AS d,
                  DATE '2024-01-01' + range::INTEGER AS dt, range % 2 = 0 AS b,
                  CASE WHEN range % 3 = 0 THEN NULL ELSE range END AS maybe
            FROM range(5000)) TO '{path}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 2000)"""
    )
    f = pq.ParquetFile(path)
    assert f.metadata.num_rows == 5000
    assert f.metadata.num_row_groups == 3
    assert f.metadata.row_group(0).column(0).compression == "ZSTD"
    t = f.read()
    assert t.schema.field("d").type == pa.decimal128(10, 2)
    row = t.slice(7, 1).to_pylist()[0]
    assert row == {
        "i": 7,
        "s": "v7",
        "d": decimal.Decimal("8.75"),
        "dt": datetime.date(2024, 1, 8),
        "b": False,
        "maybe": 7,
    }
    assert t.column("maybe").null_count == 1667


def test_stride_reads_what_pyarrow_writes(con, tmp_path):
    path = str(tmp_path / "in.parquet")
    n = 50_000
    table = pa.table(
        {
            "k": pa.array([i % 10 for i in range(n)], pa.int32()),
            "v": pa.array([float(i) for i in range(n)]),
            "name": pa.array([f"name {i % 100}" for i in range(n)]),
            "ts": pa.array([datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=i) for i in range(n)], pa.timestamp("ms")),
        }
    )
    pq.write_table(table, path, row_group_size=10_000)
    rows = con.execute(
        f"SELECT k, count(*), sum(v), count(DISTINCT name), max(ts) FROM '{path}' GROUP BY k ORDER BY k"
    ).fetchall()
    assert len(rows) == 10
    assert rows[0][:3] == (0, 5000, sum(float(i) for i in range(0, n, 10)))
    assert rows[9][3] == 10
    assert rows[9][4] == datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=n - 1)
    # Row groups that statistics rule out are skipped; the answer is the same.
    assert con.execute(f"SELECT count(*) FROM '{path}' WHERE v >= 45000").fetchone() == (5000,)


def test_damaged_files_give_errors(con, tmp_path):
    good = str(tmp_path / "good.parquet")
    pq.write_table(pa.table({"x": list(range(1000))}), good)
    data = open(good, "rb").read()
    truncated = str(tmp_path / "truncated.parquet")
    open(truncated, "wb").write(data[: len(data) // 2])
    with pytest.raises(stride.IOException, match="truncated.parquet"):
        con.execute(f"SELECT * FROM '{truncated}'")
    # A damaged page (the footer intact) fails when read, naming the file.
    corrupt = str(tmp_path / "corrupt.parquet")
    middle = bytearray(data)
    for i in range(8, 200):
        middle[i] ^= 0xFF
    open(corrupt, "wb").write(bytes(middle))
    with pytest.raises(stride.Error, match="corrupt.parquet"):
        con.execute(f"SELECT sum(x) FROM '{corrupt}'").fetchall()
    assert con.execute(f"SELECT sum(x) FROM '{good}'").fetchone() == (499500,)
