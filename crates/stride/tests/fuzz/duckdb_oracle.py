"""DuckDB as the query fuzzer's second oracle (crates/stride/tests/fuzz.rs).

Reads one command per line on stdin and answers on stdout:
  R            a fresh in-memory database             -> OK
  E <sql>      run a statement                        -> OK | ERR <message>
  Q <sql>      run a query                            -> ROWS <n>, then n lines | ERR <message>
Each row is its values separated by tabs, each tagged: N (NULL), B0/B1, F<number>
(integers, floats and decimals alike, as Python's repr of a float), S<text>.
"""
import sys

import duckdb


def tag(v):
    if v is None:
        return "N"
    if isinstance(v, bool):
        return "B1" if v else "B0"
    if isinstance(v, (int, float)) or type(v).__name__ == "Decimal":
        return "F" + repr(float(v))
    return "S" + str(v).replace("\t", " ").replace("\n", " ")


def main():
    con = duckdb.connect()
    for line in sys.stdin:
        line = line.rstrip("\n")
        cmd, _, sql = line.partition(" ")
        try:
            if cmd == "R":
                con = duckdb.connect()
                print("OK")
            elif cmd == "E":
                con.execute(sql)
                print("OK")
            else:
                rows = con.execute(sql).fetchall()
                print(f"ROWS {len(rows)}")
                for r in rows:
                    print("\t".join(tag(v) for v in r))
        except Exception as e:  # every DuckDB error is an answer, not a crash
            print("ERR " + str(e).replace("\n", " "))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
