"""Driven by tests/clients.rs: pgcli against `stride serve`.

First runs, in this process, every catalog query pgcli sends when it connects to
fill its completions (its completion refreshers, as pgcli runs them in the
background), then runs the pgcli program with -c commands and checks their output.
Prints OK at the end; any failed expectation raises."""
import os
import subprocess
import sys
import tempfile

import psycopg
from pgcli.completion_refresher import CompletionRefresher
from pgcli.pgcompleter import PGCompleter
from pgcli.pgexecute import PGExecute
from pgspecial.main import PGSpecial

port = sys.argv[1]
with psycopg.connect(f"host=127.0.0.1 port={port} user=stride", autocommit=True) as c:
    c.execute("CREATE TABLE sales (id INTEGER NOT NULL, region VARCHAR DEFAULT 'north', amount DECIMAL(10,2))")
    c.execute("INSERT INTO sales SELECT i, 'r' || (i % 3), i * 1.5 FROM range(20000) t(i)")
    c.execute("CREATE VIEW big AS SELECT id, amount FROM sales WHERE amount > 100")
    c.execute("CREATE INDEX sales_region ON sales(region)")

# The refreshers, in pgcli's order, with its default settings (no casing file).
executor = PGExecute("stride", "stride", None, "127.0.0.1", port)
completer = PGCompleter(smart_completion=True, pgspecial=PGSpecial(), settings={})
for name, refresh in CompletionRefresher.refreshers.items():
    try:
        refresh(completer, executor)
    except Exception as e:
        raise AssertionError(f"pgcli's {name} completion query failed: {e}") from e
meta = completer.dbmetadata
assert list(meta["tables"]["main"]["sales"]) == ["id", "region", "amount"], meta["tables"]["main"]
assert meta["tables"]["main"]["sales"]["region"].has_default
assert list(meta["views"]["main"]["big"]) == ["id", "amount"], meta["views"]["main"]
# pgcli keeps names that are SQL keywords quoted.
functions = {k.strip('"'): v for k, v in meta["functions"]["pg_catalog"].items()}
assert "sum" in functions and "lower" in functions, sorted(functions)[:20]
assert any(f.is_aggregate for f in functions["sum"])
assert "memory" in completer.databases, completer.databases
assert completer.search_path == ["pg_catalog", "main"], completer.search_path

# The program itself, as a user runs it.
def pgcli(*commands):
    args = ["pgcli", "-h", "127.0.0.1", "-p", port, "-U", "stride", "-d", "memory"]
    for cmd in commands:
        args += ["-c", cmd]
    home = tempfile.mkdtemp()
    out = subprocess.run(args, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "HOME": home, "XDG_CONFIG_HOME": home})
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    for bad in ("Error", "error", "Traceback"):
        assert bad not in text, text
    return " ".join(out.stdout.split())

out = pgcli("SELECT count(*) AS n, sum(amount) AS total FROM sales")
assert "| n | total |" in out and "| 20000 | 299985000.00 |" in out, out
out = pgcli("\\dt")
assert "| main | sales | table | stride |" in out, out
out = pgcli("\\df sum")
assert "| pg_catalog | sum | numeric | integer | agg |" in out, out
out = pgcli("\\d sales")
assert "| region | character varying | default 'north' |" in out, out
assert '"sales_region" declared (region)' in out, out
out = pgcli("\\dt+")
assert "| main | sales | table | stride |" in out and " kB |" in out, out
out = pgcli("\\dv", "\\di", "\\l")
assert "| main | big | view | stride |" in out, out
assert "| main | sales_region | index | stride |" in out, out
assert "| memory | stride | UTF8 |" in out, out
print("OK")
