#!/usr/bin/env python3
"""Writes the Parquet and Arrow files the tests read, with pyarrow (another engine's writer):
`types.parquet` (one column per type stride reads, NULLs included, dictionary-encoded
strings, nanosecond timestamps with a time zone, two row groups) and `other.parquet`
(same columns, for reading several files); the same table as Arrow IPC files in
../arrow. Run from this folder."""
import datetime
import decimal

import pyarrow as pa
import pyarrow.parquet as pq

rows = 6
table = pa.table(
    {
        "b": pa.array([True, False, None, True, False, True]),
        "i8": pa.array([1, -2, None, 4, 5, 6], pa.int8()),
        "i32": pa.array([10, 20, 30, None, 50, 60], pa.int32()),
        "i64": pa.array([100, 200, 300, 400, None, 600], pa.int64()),
        "u64": pa.array([2**64 - 1, 0, 1, 2, 3, None], pa.uint64()),
        "f32": pa.array([1.5, None, 2.5, 3.5, 4.5, 5.5], pa.float32()),
        "f64": pa.array([0.25, 0.5, None, 1.0, 2.0, 4.0], pa.float64()),
        "dec": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50"), decimal.Decimal("0.01"), decimal.Decimal("100.00"), decimal.Decimal("7.77")], pa.decimal128(9, 2)),
        "wide": pa.array([decimal.Decimal("12345678901234567890.12"), None, decimal.Decimal("0"), decimal.Decimal("-1.5"), decimal.Decimal("2"), decimal.Decimal("3")], pa.decimal128(30, 2)),
        "s": pa.array(["apple", "banana", None, "apple", "a string longer than twelve", ""]).dictionary_encode(),
        "d": pa.array([datetime.date(2024, 1, 1), None, datetime.date(1970, 1, 1), datetime.date(1969, 12, 31), datetime.date(2000, 2, 29), datetime.date(2024, 12, 31)], pa.date32()),
        "ts": pa.array([datetime.datetime(2024, 1, 1, 12, 0, 0, 123456), None, datetime.datetime(1970, 1, 1), datetime.datetime(1960, 6, 1, 1, 2, 3), datetime.datetime(2000, 1, 1), datetime.datetime(2030, 1, 1)], pa.timestamp("ns", tz="UTC")),
        "l": pa.array([[1, 2], [], None, [3], [None, 4], [5, 6, 7]], pa.list_(pa.int64())),
    }
)
assert table.num_rows == rows
pq.write_table(table, "types.parquet", row_group_size=3, compression="snappy")
pq.write_table(table.slice(0, 2), "other.parquet", compression="gzip")

# The same table as Arrow IPC files (read_arrow): uncompressed in two record batches,
# and lz4-compressed with strings as views.
import pyarrow.feather as feather

feather.write_feather(table, "../arrow/types.arrow", compression="uncompressed", chunksize=4)
views = table.set_column(9, "s", table.column("s").cast(pa.string()).cast(pa.string_view()))
feather.write_feather(views, "../arrow/views_lz4.arrow", compression="lz4")
