"""stride: an analytical SQL database embedded in Python.

The API is DuckDB's (``connect``, ``sql``, ``execute``, relations with ``.arrow()``,
``.df()``, ``.pl()``), and connections follow DB-API 2.0 (PEP 249). Results reach
pyarrow, pandas and polars through the Arrow PyCapsule stream protocol without
copying their values.
"""

import datetime as _datetime
import time as _time

from stride._stride import *  # noqa: F401,F403  (connect, sql, execute, exceptions)
from stride._stride import __version__, StrideConnection, StrideRelation  # noqa: F401

# PEP 249 module globals.
apilevel = "2.0"
threadsafety = 1  # threads may share the module, not connections: use con.cursor()
paramstyle = "qmark"  # also $1, $2, ... (numeric)


class _TypeObject:
    """A PEP 249 type object: equal to the names of the SQL types it stands for, as
    they appear in ``cursor.description``."""

    def __init__(self, name, *prefixes):
        self._name = name
        self._prefixes = prefixes

    def __eq__(self, other):
        if isinstance(other, str):
            return other.upper().startswith(self._prefixes)
        return other is self

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f"stride.{self._name}"


STRING = _TypeObject("STRING", "VARCHAR")
BINARY = _TypeObject("BINARY", "BLOB")
NUMBER = _TypeObject(
    "NUMBER",
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "REAL",
    "DOUBLE",
    "DECIMAL",
)
DATETIME = _TypeObject("DATETIME", "DATE", "TIME", "TIMESTAMP", "INTERVAL")
ROWID = _TypeObject("ROWID", "ROWID")

# PEP 249 constructors.
Date = _datetime.date
Time = _datetime.time
Timestamp = _datetime.datetime


def DateFromTicks(ticks):
    return Date(*_time.localtime(ticks)[:3])


def TimeFromTicks(ticks):
    return Time(*_time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks):
    return Timestamp(*_time.localtime(ticks)[:6])


def Binary(value):
    return bytes(value)


def query(query, params=None):
    """``stride.sql`` under its other DuckDB name."""
    return sql(query, params)  # noqa: F405
