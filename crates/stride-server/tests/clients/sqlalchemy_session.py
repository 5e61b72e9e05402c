"""Driven by tests/clients.rs: SQLAlchemy 2 (psycopg dialect) and pandas against
`stride serve`: connect, create tables, the ORM with nested transactions, reflection
of keys, CHECK constraints, sequences and arrays.
Prints OK at the end; any failed expectation raises."""
import sys

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

port = sys.argv[1]
engine = sa.create_engine(f"postgresql+psycopg://stride@127.0.0.1:{port}/stride")

with engine.connect() as c:
    assert c.execute(sa.text("SELECT 1")).scalar() == 1
    assert engine.dialect.server_version_info[0] == 16


class Base(DeclarativeBase):
    pass


class Item(Base):
    __tablename__ = "items"
    __table_args__ = (sa.CheckConstraint("qty >= 0", name="items_qty_nonneg"),)
    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(sa.String(50), unique=True)
    qty: Mapped[int]
    tags = mapped_column(sa.ARRAY(sa.Integer), nullable=True)


Base.metadata.create_all(engine)
Base.metadata.create_all(engine)  # finds the table there and leaves it

with Session(engine) as s:
    s.add_all(
        [
            Item(id=1, name="a", qty=1, tags=[1, None, 3]),
            Item(id=2, name="b", qty=2, tags=[]),
        ]
    )
    s.commit()

with Session(engine) as s:
    assert s.get(Item, 1).tags == [1, None, 3]
    assert s.get(Item, 2).tags == []
    # A nested transaction (a savepoint) that fails is undone alone.
    nested = s.begin_nested()
    s.add(Item(id=3, name="a", qty=0))
    try:
        s.flush()
    except sa.exc.IntegrityError:
        nested.rollback()
    else:
        raise AssertionError("a duplicate name was stored")
    with s.begin_nested():
        s.add(Item(id=4, name="d", qty=4))
    s.commit()
    assert [i.id for i in s.scalars(sa.select(Item).order_by(Item.id))] == [1, 2, 4]

insp = sa.inspect(engine)
assert insp.has_table("items")
columns = {c["name"]: c for c in insp.get_columns("items")}
assert sorted(columns) == ["id", "name", "qty", "tags"], columns
assert isinstance(columns["tags"]["type"], sa.ARRAY) and not columns["id"]["nullable"]
pk = insp.get_pk_constraint("items")
assert pk["constrained_columns"] == ["id"] and pk["name"] == "items_pkey", pk
uniques = insp.get_unique_constraints("items")
assert [(u["name"], u["column_names"]) for u in uniques] == [("items_name_key", ["name"])], uniques
checks = insp.get_check_constraints("items")
assert [c["name"] for c in checks] == ["items_qty_nonneg"], checks
assert "qty >= 0" in checks[0]["sqltext"], checks
# (get_indexes, and so Table(autoload_with=...) and pandas.read_sql_table, cannot
# read stride's pg_index.indkey yet: it travels as int2[], not int2vector)

with engine.begin() as c:
    c.execute(sa.text("CREATE SEQUENCE counter START 5"))
insp = sa.inspect(engine)
assert insp.has_sequence("counter") and not insp.has_sequence("nothing")
assert "counter" in insp.get_sequence_names()

try:
    import pandas as pd
except ImportError:
    pd = None
if pd is not None:
    frame = pd.read_sql("SELECT * FROM items ORDER BY id", engine)
    assert list(frame["id"]) == [1, 2, 4]
    out = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    out.to_sql("frame", engine, if_exists="replace", index=False)
    out.to_sql("frame", engine, if_exists="replace", index=False)
    assert pd.read_sql("SELECT * FROM frame ORDER BY a", engine).equals(out)

print("OK")
