#!/usr/bin/env python3
"""Fills in the expected results of `.slt` files from DuckDB, so that behaviour
tests pin answers an independent engine agrees with.

    python3 tests/duckdb/expected.py tests/slt/subquery/*.slt           # rewrite
    python3 tests/duckdb/expected.py --check tests/slt/subquery/*.slt   # report only

Every `statement ok` runs in DuckDB (in memory, one connection per file); every
`query` record gets DuckDB's rows, formatted as stride's harness prints values
(NULL, true/false, (empty) for ''), sorted when the record says `rowsort`. Records
after a line `# duckdb: skip` are left as they are (a dialect difference, or a case
where DuckDB is the one that is wrong: say which in the comment). Installs the
`duckdb` package with pip when it is missing.
"""
import datetime
import decimal
import subprocess
import sys

try:
    import duckdb
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "duckdb"])
    import duckdb


def aware(v):
    """A TIMESTAMP WITH TIME ZONE as DuckDB and stride print it: the local time in the
    session's zone, then the offset as +HH, +HH:MM or +HH:MM:SS."""
    secs = int(v.utcoffset().total_seconds())
    sign, secs = ("-" if secs < 0 else "+"), abs(secs)
    off = "%s%02d" % (sign, secs // 3600)
    if secs % 3600:
        off += ":%02d" % (secs // 60 % 60)
    if secs % 60:
        off += ":%02d" % (secs % 60)
    local = v.replace(tzinfo=None)
    text = str(local).rstrip("0") if local.microsecond else str(local)
    return text + off


def fmt(v):
    if v is None:
        return "NULL"
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return aware(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return {True: "nan"}.get(v != v, "inf" if v > 0 else "-inf")
        return repr(v) if v != int(v) or abs(v) >= 1e16 else "%.1f" % v
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, bytes):
        return blob_text(v) or "(empty)"
    if isinstance(v, (datetime.datetime, datetime.time)) and v.microsecond:
        return str(v).rstrip("0")
    if isinstance(v, list):
        return "[" + ", ".join(element(x) for x in v) + "]"
    if isinstance(v, tuple):
        # an unnamed STRUCT (DuckDB's TUPLE), printed as stride prints row(...)
        return "(" + ", ".join(element(x) for x in v) + ")"
    s = str(v)
    return s if s else "(empty)"


def blob_text(b):
    """A BLOB's text form, as DuckDB and stride print it: printable ASCII as is, other
    bytes (and backslash and quotes) as \\xHH."""
    return "".join(
        chr(c) if 0x20 <= c <= 0x7E and chr(c) not in "\\\"'" else "\\x%02X" % c
        for c in b
    )


def element(v):
    """A value inside a list, as stride prints it (strings unquoted, floats in full)."""
    if v is None:
        return "NULL"
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return aware(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return fmt(v)
    if isinstance(v, (list, tuple)):
        return fmt(v)
    if isinstance(v, (datetime.datetime, datetime.time)) and v.microsecond:
        return str(v).rstrip("0")
    if isinstance(v, bytes):
        return blob_text(v)
    return str(v)


def records(lines):
    """Splits the file into records: (start, end) line ranges separated by blanks."""
    i = 0
    while i < len(lines):
        while i < len(lines) and not lines[i].strip():
            i += 1
        start = i
        while i < len(lines) and lines[i].strip():
            i += 1
        if start < i:
            yield start, i


def process(path, check):
    lines = open(path).read().split("\n")
    con = duckdb.connect()
    # stride's sessions start in UTC; DuckDB's in the machine's zone
    con.execute("SET TimeZone = 'UTC'")
    out, pos, differences = [], 0, 0
    for start, end in records(lines):
        out.extend(lines[pos:start])
        rec = lines[start:end]
        pos = end
        body = [l for l in rec if not l.startswith("#")]
        skip = any(l.strip() == "# duckdb: skip" for l in rec)
        if not body or skip:
            out.extend(rec)
            continue
        head = body[0].split()
        if head[0] == "statement":
            sql = "\n".join(body[1:])
            try:
                con.execute(sql)
            except Exception as e:
                if head[1] == "ok":
                    print(f"{path}:{start + 1}: DuckDB fails: {e}")
            out.extend(rec)
            continue
        if head[0] != "query" or "error" in head[1:2]:
            out.extend(rec)
            continue
        sep = rec.index("----") if "----" in rec else len(rec)
        h = next(k for k, l in enumerate(rec) if not l.startswith("#"))
        sql = "\n".join(l for l in rec[h + 1:sep] if not l.startswith("#"))
        try:
            rows = con.execute(sql).fetchall()
        except Exception as e:
            print(f"{path}:{start + 1}: DuckDB fails: {e}")
            out.extend(rec)
            continue
        got = [" ".join(fmt(v) for v in r) for r in rows]
        if "rowsort" in head:
            got.sort()
        old = rec[sep + 1:]
        if old != got:
            differences += 1
            print(f"{path}:{start + 1}: expected {old} but DuckDB gives {got}")
        out.extend(rec[:sep] + ["----"] + got)
    out.extend(lines[pos:])
    if not check:
        open(path, "w").write("\n".join(out))
    return differences


def main():
    args = sys.argv[1:]
    check = "--check" in args
    total = sum(process(p, check) for p in args if p != "--check")
    print(f"{total} record(s) differ from DuckDB")
    sys.exit(1 if check and total else 0)


if __name__ == "__main__":
    main()
