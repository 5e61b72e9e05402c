"""Arrow IPC files between stride and pyarrow, both ways, memory-mapped."""

import datetime

import pyarrow as pa
import pyarrow.feather as feather
import pytest

import stride


def test_pyarrow_maps_what_stride_writes(con, tmp_path):
    path = str(tmp_path / "out.arrow")
    con.execute(
        f"""COPY (SELECT range AS i, 'value number ' || range AS s, DATE '2024-01-01' + range::INTEGER AS dt,
                  CASE WHEN range % 3 = 0 THEN NULL ELSE range::DOUBLE END AS maybe
            FROM range(300000)) TO '{path}' (FORMAT arrow)"""
    )
    with pa.memory_map(path) as source:
        reader = pa.ipc.open_file(source)
        assert reader.num_record_batches == 3
        t = reader.read_all()
        assert t.num_rows == 300000
        assert t.slice(7, 1).to_pylist()[0] == {
            "i": 7,
            "s": "value number 7",
            "dt": datetime.date(2024, 1, 8),
            "maybe": 7.0,
        }
        assert t.column("maybe").null_count == 100000
        # Read in place: the numbers live in the mapping, not in pyarrow's pool.
        assert pa.total_allocated_bytes() < 1_000_000


def test_stride_reads_what_pyarrow_writes(con, tmp_path):
    n = 100_000
    table = pa.table(
        {
            "k": pa.array([i % 10 for i in range(n)], pa.int32()),
            "v": pa.array([float(i) for i in range(n)]),
            "name": pa.array([f"name {i % 100}" for i in range(n)]),
            "ts": pa.array([datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=i) for i in range(n)], pa.timestamp("us")),
        }
    )
    for compression in ["uncompressed", "lz4", "zstd"]:
        path = str(tmp_path / f"in_{compression}.feather")
        feather.write_feather(table, path, compression=compression, chunksize=30_000)
        rows = con.execute(
            f"SELECT k, count(*), sum(v), count(DISTINCT name), max(ts) FROM read_arrow('{path}') GROUP BY k ORDER BY k"
        ).fetchall()
        assert len(rows) == 10
        assert rows[0][:3] == (0, 10000, sum(float(i) for i in range(0, n, 10)))
        assert rows[9][3] == 10
        assert rows[9][4] == datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=n - 1)


def test_damaged_files_give_errors(con, tmp_path):
    good = str(tmp_path / "good.arrow")
    feather.write_feather(pa.table({"x": list(range(1000))}), good, compression="uncompressed")
    data = open(good, "rb").read()
    truncated = str(tmp_path / "truncated.arrow")
    open(truncated, "wb").write(data[: len(data) // 2])
    with pytest.raises(stride.IOException, match="truncated.arrow"):
        con.execute(f"SELECT * FROM '{truncated}'")
    assert con.execute(f"SELECT sum(x) FROM '{good}'").fetchone() == (499500,)
