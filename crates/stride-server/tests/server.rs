//! Drives `stride-server` with a real PostgreSQL client library (tokio-postgres):
//! simple and extended queries, parameters, text and binary results, NULLs, command
//! tags, SQLSTATE codes, a streamed million-row result and concurrent clients.

use crate::common;

use common::{start, start_with};
use std::net::SocketAddr;
use tokio_postgres::types::Type;
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

async fn connect(addr: SocketAddr) -> Client {
    let (client, connection) = tokio_postgres::connect(
        &format!(
            "host={} port={} user=stride dbname=stride",
            addr.ip(),
            addr.port()
        ),
        NoTls,
    )
    .await
    .unwrap();
    tokio::spawn(connection);
    client
}

fn rows(msgs: &[SimpleQueryMessage]) -> Vec<Vec<Option<String>>> {
    msgs.iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => {
                Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
            }
            _ => None,
        })
        .collect()
}

fn tags(msgs: &[SimpleQueryMessage]) -> Vec<u64> {
    msgs.iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::CommandComplete(n) => Some(*n),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simple_and_extended_queries() {
    let addr = start(100);
    let c = connect(addr).await;
    let msgs = c
        .simple_query(
            "CREATE TABLE t (id BIGINT, name VARCHAR, price DECIMAL(10,2), day DATE, ok BOOLEAN, \
             at TIMESTAMP, d DOUBLE); \
             INSERT INTO t VALUES (1, 'a', 1.50, DATE '2024-01-02', true, TIMESTAMP '2024-01-02 03:04:05.5', 2.5), \
             (2, NULL, NULL, NULL, NULL, NULL, NULL); \
             SELECT * FROM t ORDER BY id",
        )
        .await
        .unwrap();
    // CREATE TABLE, INSERT 0 2, SELECT 2
    assert_eq!(tags(&msgs), vec![0, 2, 2]);
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        rows(&msgs),
        vec![
            vec![
                s("1"),
                s("a"),
                s("1.50"),
                s("2024-01-02"),
                s("t"),
                s("2024-01-02 03:04:05.5"),
                s("2.5")
            ],
            vec![s("2"), None, None, None, None, None, None],
        ]
    );

    // Extended protocol, binary results. An untyped parameter takes the type its
    // context gives it (id's BIGINT), so the driver sends an i64 in binary.
    let r = c
        .query("SELECT id, name, ok, d FROM t WHERE id = $1", &[&1i64])
        .await
        .unwrap();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].get::<_, i64>(0), 1);
    assert_eq!(r[0].get::<_, String>(1), "a");
    assert!(r[0].get::<_, bool>(2));
    assert_eq!(r[0].get::<_, f64>(3), 2.5);
    // A parameter declared text compares like a string literal.
    let st = c
        .prepare_typed("SELECT name FROM t WHERE id = $1", &[Type::TEXT])
        .await
        .unwrap();
    let r = c.query(&st, &[&"2"]).await.unwrap();
    assert_eq!(r[0].get::<_, Option<String>>(0), None);
    // What ParameterDescription reports for untyped parameters, by context.
    for (sql, types) in [
        ("SELECT id FROM t WHERE id >= $1", vec![Type::INT8]),
        ("SELECT id + $1 FROM t", vec![Type::INT8]),
        ("SELECT $1::DATE", vec![Type::DATE]),
        (
            "SELECT id FROM t LIMIT $1 OFFSET $2",
            vec![Type::INT8, Type::INT8],
        ),
        (
            "SELECT id FROM t WHERE name IN ($1, $2)",
            vec![Type::VARCHAR, Type::VARCHAR],
        ),
        (
            "SELECT id FROM t WHERE d BETWEEN $1 AND $2",
            vec![Type::FLOAT8, Type::FLOAT8],
        ),
        ("SELECT $1", vec![Type::TEXT]),
    ] {
        let st = c.prepare(sql).await.unwrap();
        assert_eq!(st.params(), types.as_slice(), "{sql}");
    }
    c.simple_query("CREATE TABLE p (id INTEGER, name VARCHAR)")
        .await
        .unwrap();
    let st = c
        .prepare("INSERT INTO p (name, id) VALUES ($1, $2)")
        .await
        .unwrap();
    assert_eq!(st.params(), &[Type::VARCHAR, Type::INT4]);
    c.execute(&st, &[&"seven", &7i32]).await.unwrap();
    c.execute(&st, &[&"eight", &8i32]).await.unwrap();
    let r = c
        .query_one(
            "SELECT name FROM p WHERE id >= $1 ORDER BY id LIMIT $2",
            &[&7i32, &1i64],
        )
        .await
        .unwrap();
    assert_eq!(r.get::<_, String>(0), "seven");

    // Typed parameters arrive in binary and are bound as values, never as SQL text.
    let st = c
        .prepare_typed(
            "SELECT id + $1, $2 FROM t WHERE id = 1",
            &[Type::INT8, Type::TEXT],
        )
        .await
        .unwrap();
    let r = c
        .query(&st, &[&41i64, &"x'); DROP TABLE t; --"])
        .await
        .unwrap();
    assert_eq!(r[0].get::<_, i64>(0), 42);
    assert_eq!(r[0].get::<_, String>(1), "x'); DROP TABLE t; --");
    assert_eq!(
        c.query("SELECT count(*) FROM t", &[]).await.unwrap()[0].get::<_, i64>(0),
        2
    );

    // Errors carry SQLSTATE codes; later statements of a failed message do not run.
    let code = |e: tokio_postgres::Error| e.code().map(|c| c.code().to_string());
    let e = c.simple_query("SELECT * FROM nope").await.unwrap_err();
    assert_eq!(code(e), Some("42P01".into()));
    let e = c.simple_query("SELECT 1 / 0").await.unwrap_err();
    assert_eq!(code(e), Some("22012".into()));
    let e = c.simple_query("SELEC 1").await.unwrap_err();
    assert_eq!(code(e), Some("42601".into()));
    let e = c
        .simple_query("INSERT INTO t VALUES (3, 'x', 1, NULL, NULL, NULL, NULL); SELECT * FROM nope; INSERT INTO t VALUES (4, 'y', 1, NULL, NULL, NULL, NULL)")
        .await
        .unwrap_err();
    assert_eq!(code(e), Some("42P01".into()));
    let r = c.query("SELECT max(id) FROM t", &[]).await.unwrap();
    assert_eq!(r[0].get::<_, i64>(0), 3);
    // The session still works after errors.
    assert_eq!(
        c.query("SELECT 1 + 1", &[]).await.unwrap()[0].get::<_, i32>(0),
        2
    );
}

/// A value's bytes as they travel, whatever its type (tokio-postgres reads UUID and
/// TIME only with optional features).
#[derive(Debug, PartialEq)]
struct Raw(Vec<u8>);

impl<'a> tokio_postgres::types::FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(raw.to_vec()))
    }
    fn accepts(_: &Type) -> bool {
        true
    }
}

impl tokio_postgres::types::ToSql for Raw {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(tokio_postgres::types::IsNull::No)
    }
    fn accepts(_: &Type) -> bool {
        true
    }
    tokio_postgres::types::to_sql_checked!();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enums_travel_as_varchar_text() {
    let addr = start(100);
    let c = connect(addr).await;
    let sql = "SELECT 'ok'::ENUM('sad', 'ok') AS m, ['sad'::ENUM('sad', 'ok')] AS l";
    let msgs = c.simple_query(sql).await.unwrap();
    assert_eq!(
        rows(&msgs),
        vec![vec![Some("ok".to_string()), Some("{sad}".to_string())]]
    );
    let st = c.prepare(sql).await.unwrap();
    let types: Vec<Type> = st.columns().iter().map(|c| c.type_().clone()).collect();
    // a list travels as its element type's array (`encode::pg_type`)
    assert_eq!(types, [Type::VARCHAR, Type::VARCHAR_ARRAY]);
    let r = c.query(&st, &[]).await.unwrap();
    assert_eq!(r[0].get::<_, String>(0), "ok");
    assert_eq!(r[0].get::<_, Vec<String>>(1), ["sad"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hugeint_uuid_and_time_travel_as_numeric_uuid_and_time() {
    let addr = start(100);
    let c = connect(addr).await;
    let sql = "SELECT 170141183460469231731687303715884105727::HUGEINT AS h, \
               'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::UUID AS u, TIME '10:00:00.5' AS t";
    let msgs = c.simple_query(sql).await.unwrap();
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        rows(&msgs),
        vec![vec![
            s("170141183460469231731687303715884105727"),
            s("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
            s("10:00:00.5")
        ]]
    );
    // Binary results: numeric, the UUID's 16 bytes, microseconds as an int8.
    let st = c.prepare(sql).await.unwrap();
    let types: Vec<Type> = st.columns().iter().map(|c| c.type_().clone()).collect();
    assert_eq!(types, [Type::NUMERIC, Type::UUID, Type::TIME]);
    let r = c.query(&st, &[]).await.unwrap();
    let uuid = 0xa0eebc99_9c0b_4ef8_bb6d_6bb9bd380a11u128;
    assert_eq!(r[0].get::<_, Raw>(1), Raw(uuid.to_be_bytes().to_vec()));
    assert_eq!(
        r[0].get::<_, Raw>(2),
        Raw(36_000_500_000i64.to_be_bytes().to_vec())
    );
    let Raw(numeric) = r[0].get::<_, Raw>(0);
    // 39 digits: ten base-10000 groups, weight 9, positive, scale 0.
    assert_eq!(&numeric[..8], &[0, 10, 0, 9, 0, 0, 0, 0]);
    // Binary parameters of both types.
    let st = c
        .prepare_typed("SELECT $1::VARCHAR, $2::VARCHAR", &[Type::UUID, Type::TIME])
        .await
        .unwrap();
    let r = c
        .query(
            &st,
            &[
                &Raw(uuid.to_be_bytes().to_vec()),
                &Raw(3_600_000_001i64.to_be_bytes().to_vec()),
            ],
        )
        .await
        .unwrap();
    assert_eq!(
        r[0].get::<_, String>(0),
        "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
    );
    assert_eq!(r[0].get::<_, String>(1), "01:00:00.000001");
    // A text parameter for a UUID column.
    c.simple_query("CREATE TABLE ids (id UUID, at TIME, n HUGEINT)")
        .await
        .unwrap();
    let st = c
        .prepare("INSERT INTO ids VALUES ($1, $2, $3)")
        .await
        .unwrap();
    assert_eq!(st.params(), &[Type::UUID, Type::TIME, Type::NUMERIC]);
    let e = c
        .simple_query("SELECT 'not-a-uuid'::UUID")
        .await
        .unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("22P02"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamptz_travels_as_1184_in_the_session_zone() {
    let addr = start(100);
    let c = connect(addr).await;
    let sql = "SELECT TIMESTAMPTZ '2024-07-01 12:00:00.5+00' AS t";
    let msgs = c.simple_query(sql).await.unwrap();
    let s = |x: &str| Some(x.to_string());
    assert_eq!(rows(&msgs), vec![vec![s("2024-07-01 12:00:00.5+00")]]);
    c.simple_query("SET TIME ZONE 'America/New_York'")
        .await
        .unwrap();
    let msgs = c.simple_query(sql).await.unwrap();
    assert_eq!(rows(&msgs), vec![vec![s("2024-07-01 08:00:00.5-04")]]);
    // binary: microseconds since 2000-01-01 UTC, whatever the session's zone
    let st = c.prepare(sql).await.unwrap();
    assert_eq!(st.columns()[0].type_(), &Type::TIMESTAMPTZ);
    let r = c.query_one(&st, &[]).await.unwrap();
    let t: std::time::SystemTime = r.get(0);
    let since = t.duration_since(std::time::UNIX_EPOCH).unwrap();
    assert_eq!(since.as_micros(), 1_719_835_200_500_000);
    // a binary TIMESTAMPTZ parameter is the same instant
    let st = c
        .prepare_typed("SELECT $1::VARCHAR", &[Type::TIMESTAMPTZ])
        .await
        .unwrap();
    let r = c.query_one(&st, &[&t]).await.unwrap();
    assert_eq!(r.get::<_, String>(0), "2024-07-01 08:00:00.5-04");
    let e = c
        .simple_query("SET TimeZone = 'Nowhere/Else'")
        .await
        .unwrap_err();
    assert!(
        e.as_db_error()
            .is_some_and(|d| d.message().contains("Unknown TimeZone 'Nowhere/Else'")),
        "{e:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_a_million_rows_and_serves_clients_concurrently() {
    let addr = start(100);
    let c = connect(addr).await;
    let msgs = c
        .simple_query("SELECT i, i * 2 FROM range(1000000) t(i)")
        .await
        .unwrap();
    let n = msgs
        .iter()
        .filter(|m| matches!(m, SimpleQueryMessage::Row(_)))
        .count();
    assert_eq!(n, 1_000_000);

    let mut tasks = Vec::new();
    for k in 0..16i64 {
        tasks.push(tokio::spawn(async move {
            let c = connect(addr).await;
            c.simple_query(&format!(
                "CREATE TABLE c{k} AS SELECT i FROM range({k} * 1000) t(i)"
            ))
            .await
            .unwrap();
            let r = c
                .query(&format!("SELECT count(*), sum(i) FROM c{k}"), &[])
                .await
                .unwrap();
            (r[0].get::<_, i64>(0), k)
        }));
    }
    for t in tasks {
        let (count, k) = t.await.unwrap();
        assert_eq!(count, k * 1000);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuses_clients_over_the_limit() {
    let addr = start(1);
    let first = connect(addr).await;
    let second = tokio_postgres::connect(
        &format!("host={} port={} user=stride", addr.ip(), addr.port()),
        NoTls,
    )
    .await;
    let e = second.err().expect("the second client is refused");
    assert_eq!(e.code().map(|c| c.code()), Some("53300"), "{e}");
    assert_eq!(first.query("SELECT 1", &[]).await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_client_settings_and_file_access() {
    let addr = start(100);
    let c = connect(addr).await;

    // A CancelRequest stops the running statement.
    let token = c.cancel_token();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        token.cancel_query(NoTls).await.unwrap();
    });
    let started = std::time::Instant::now();
    let e = c
        .simple_query("SELECT count(*) FROM range(100000000000::BIGINT) t(i) WHERE i % 7 = 3")
        .await
        .unwrap_err();
    canceller.await.unwrap();
    assert_eq!(e.code().map(|c| c.code()), Some("57014"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(c.query("SELECT 1", &[]).await.unwrap().len(), 1);

    // What clients set and ask for when they connect.
    c.simple_query("SET application_name = 'tests'; SET extra_float_digits = 3")
        .await
        .unwrap();
    let r = rows(&c.simple_query("SHOW application_name").await.unwrap());
    assert_eq!(r, vec![vec![Some("tests".to_string())]]);
    let r = c
        .query(
            "SELECT version(), current_database(), current_schema()",
            &[],
        )
        .await
        .unwrap();
    assert!(r[0].get::<_, String>(0).starts_with("PostgreSQL"));
    assert_eq!(r[0].get::<_, String>(2), "main");

    // Network clients may not touch files unless the operator allowed a directory.
    let e = c
        .simple_query("SELECT * FROM read_csv('/etc/passwd')")
        .await
        .unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("42501"), "{e}");
    let e = c
        .simple_query("COPY (SELECT 1) TO '/tmp/stride-server-test.csv'")
        .await
        .unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("42501"), "{e}");
    let e = c
        .simple_query("SET allowed_directories = '/'")
        .await
        .unwrap_err();
    assert!(e.code().is_some(), "{e}");
    for sql in [
        "SELECT * FROM read_parquet('/etc/x.parquet')",
        "SELECT * FROM '/etc/x.arrow'",
        "COPY (SELECT 1) TO '/tmp/stride-server-test.parquet'",
        "COPY (SELECT 1) TO '/tmp/stride-server-test.arrow' (FORMAT arrow)",
    ] {
        let e = c.simple_query(sql).await.unwrap_err();
        assert_eq!(e.code().map(|c| c.code()), Some("42501"), "{sql}: {e}");
    }
}

/// With a directory allowed (`stride serve --allow-dir`), clients write and read
/// Parquet and Arrow files inside it, and nowhere else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn columnar_files_in_an_allowed_directory() {
    let dir = std::env::temp_dir().join(format!("stride-server-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let addr = start_with(stride_server::ServerOptions {
        listen: "127.0.0.1:0".into(),
        allowed_directories: vec![dir.clone()],
        ..Default::default()
    });
    let c = connect(addr).await;
    let d = dir.to_str().unwrap();
    for ext in ["parquet", "arrow"] {
        c.simple_query(&format!(
            "COPY (SELECT range AS i, 'v' || range AS s FROM range(1000)) TO '{d}/t.{ext}'"
        ))
        .await
        .unwrap();
        let r = rows(
            &c.simple_query(&format!(
                "SELECT sum(i), max(s) FROM read_{ext}('{d}/t.{ext}')"
            ))
            .await
            .unwrap(),
        );
        assert_eq!(r, vec![vec![Some("499500".into()), Some("v999".into())]]);
        let outside = format!("{d}-outside.{ext}");
        std::fs::copy(format!("{d}/t.{ext}"), &outside).unwrap();
        let e = c
            .simple_query(&format!("SELECT * FROM read_{ext}('{outside}')"))
            .await
            .unwrap_err();
        let _ = std::fs::remove_file(&outside);
        assert_eq!(e.code().map(|c| c.code()), Some("42501"), "{e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// COPY over the protocol, through tokio-postgres's extended-protocol COPY: rows in
/// (text format and CSV), rows out, errors and a client that gives up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_from_stdin_and_to_stdout() {
    use futures::{SinkExt, TryStreamExt};
    let addr = start(100);
    let c = connect(addr).await;
    c.simple_query("CREATE TABLE t (id INTEGER, name VARCHAR, amount DECIMAL(8,2))")
        .await
        .unwrap();

    let sink = c.copy_in("COPY t FROM STDIN").await.unwrap();
    futures::pin_mut!(sink);
    let mut data = String::new();
    for i in 0..5000 {
        data.push_str(&format!("{i}\tname\\t{i}\t{}.5\n", i % 100));
    }
    data.push_str("5000\t\\N\t\\N\n");
    // Rows split across CopyData messages anywhere, even inside a value.
    for part in data.as_bytes().chunks(777) {
        sink.send(bytes::Bytes::copy_from_slice(part))
            .await
            .unwrap();
    }
    assert_eq!(sink.finish().await.unwrap(), 5001);

    let sink = c
        .copy_in("COPY t (name, id) FROM STDIN (FORMAT csv, HEADER)")
        .await
        .unwrap();
    futures::pin_mut!(sink);
    sink.send(bytes::Bytes::from_static(b"name,id\n\"a,b\",6000\n,6001\n"))
        .await
        .unwrap();
    assert_eq!(sink.finish().await.unwrap(), 2);

    let r = c
        .query_one(
            "SELECT count(*), count(name), max(name), sum(amount)::VARCHAR FROM t",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(r.get::<_, i64>(0), 5003);
    assert_eq!(r.get::<_, i64>(1), 5001);
    assert_eq!(r.get::<_, String>(2), "name\t999");
    let r = c
        .query_one("SELECT name FROM t WHERE id = 6000", &[])
        .await
        .unwrap();
    assert_eq!(r.get::<_, String>(0), "a,b");

    // Out, as text and as CSV: values spelled as in text results.
    let out = c
        .copy_out(
            "COPY (SELECT id, name, amount, id > 1 FROM t WHERE id < 3 ORDER BY id) TO STDOUT",
        )
        .await
        .unwrap();
    let chunks: Vec<bytes::Bytes> = out.try_collect().await.unwrap();
    let text: Vec<u8> = chunks.concat();
    assert_eq!(
        String::from_utf8(text).unwrap(),
        "0\tname\\t0\t0.50\tf\n1\tname\\t1\t1.50\tf\n2\tname\\t2\t2.50\tt\n"
    );
    let out = c
        .copy_out("COPY (SELECT id, name FROM t WHERE id >= 5000 ORDER BY id) TO STDOUT (FORMAT csv, HEADER)")
        .await
        .unwrap();
    let chunks: Vec<bytes::Bytes> = out.try_collect().await.unwrap();
    assert_eq!(
        String::from_utf8(chunks.concat()).unwrap(),
        "id,name\n5000,\n6000,\"a,b\"\n6001,\n"
    );

    // A bad value fails the whole COPY: no row of it is added.
    let sink = c.copy_in("COPY t FROM STDIN").await.unwrap();
    futures::pin_mut!(sink);
    sink.send(bytes::Bytes::from_static(
        b"7000\tok\t1\nnot a number\tx\t1\n",
    ))
    .await
    .unwrap();
    let e = sink.finish().await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("22P02"), "{e}");
    assert!(format!("{e:?}").contains("line 2"), "{e:?}");
    let n = c.query_one("SELECT count(*) FROM t", &[]).await.unwrap();
    assert_eq!(n.get::<_, i64>(0), 5003);

    // A row failing a CHECK constraint fails the COPY (check_violation); columns
    // not listed take their DEFAULT.
    c.simple_query("CREATE TABLE ck (a INTEGER CHECK (a < 10), b INTEGER DEFAULT 7)")
        .await
        .unwrap();
    for (data, rows) in [(&b"1\n2\n"[..], Ok(2)), (&b"3\n12\n"[..], Err("23514"))] {
        let sink = c.copy_in("COPY ck (a) FROM STDIN").await.unwrap();
        futures::pin_mut!(sink);
        sink.send(bytes::Bytes::from_static(data)).await.unwrap();
        match (sink.finish().await, rows) {
            (Ok(n), Ok(want)) => assert_eq!(n, want),
            (Err(e), Err(code)) => {
                assert_eq!(e.code().map(|c| c.code()), Some(code), "{e}");
                assert!(format!("{e:?}").contains("CHECK (a < 10)"), "{e:?}");
            }
            (got, want) => panic!("{got:?}, expected {want:?}"),
        }
    }
    let r = c
        .query_one("SELECT count(*), sum(b)::BIGINT FROM ck", &[])
        .await
        .unwrap();
    assert_eq!((r.get::<_, i64>(0), r.get::<_, i64>(1)), (2, 14));

    // Errors before the data: unknown table or column, a binary COPY.
    for (sql, code) in [
        ("COPY nope FROM STDIN", "42P01"),
        ("COPY t (nope) FROM STDIN", "42703"),
        ("COPY t FROM STDIN (FORMAT binary)", "0A000"),
    ] {
        let e = c.copy_in::<_, bytes::Bytes>(sql).await.err().expect(sql);
        assert_eq!(e.code().map(|c| c.code()), Some(code), "{sql}: {e}");
    }
    // The session is still usable.
    assert_eq!(c.query("SELECT 1", &[]).await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_variables_belong_to_their_connection() {
    let addr = start(100);
    let (a, b) = (connect(addr).await, connect(addr).await);
    a.simple_query("SET VARIABLE who = 'a'").await.unwrap();
    b.simple_query("SET VARIABLE who = 'b'").await.unwrap();
    let read = "SELECT getvariable('who')";
    let got = |m: &[SimpleQueryMessage]| rows(m)[0][0].clone();
    assert_eq!(got(&a.simple_query(read).await.unwrap()), Some("a".into()));
    assert_eq!(got(&b.simple_query(read).await.unwrap()), Some("b".into()));
    // a parameter folds to a constant name
    let r = a
        .query_one("SELECT getvariable($1::VARCHAR)", &[&"who"])
        .await
        .unwrap();
    assert_eq!(r.get::<_, Option<String>>(0), Some("a".into()));
    a.simple_query("RESET VARIABLE who").await.unwrap();
    assert_eq!(got(&a.simple_query(read).await.unwrap()), None);
    assert_eq!(got(&b.simple_query(read).await.unwrap()), Some("b".into()));
}
