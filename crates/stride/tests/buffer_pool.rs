//! The buffer pool of a database file: opening reads no data, scans read only the
//! columns and row groups they need (zone maps skip the others), `memory_limit` bounds
//! what stays cached without changing answers, and blocks that an open transaction may
//! still read are not reused.

use crate::common;

use stride::{Connection, Database, ScalarValue};

fn path(name: &str) -> String {
    common::fresh_dir(&format!("pool-{name}"))
        .join("db.stride")
        .to_string_lossy()
        .into_owned()
}

fn one(conn: &Connection, sql: &str) -> ScalarValue {
    let r = conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let rows: Vec<Vec<ScalarValue>> = r.rows().map(|r| r.unwrap()).collect();
    rows[0][0].clone()
}

fn int(v: ScalarValue) -> i128 {
    match v {
        ScalarValue::BigInt(x) => x as i128,
        ScalarValue::Integer(x) => x as i128,
        ScalarValue::HugeInt(x) => x,
        ScalarValue::Decimal(x, _, 0) => x,
        other => panic!("not an integer: {other:?}"),
    }
}

/// 300,000 rows: three row groups (122,880 rows each, the last one shorter), `a`
/// ascending so each group covers its own range of `a`.
fn create(path: &str) {
    let db = Database::open(path).unwrap();
    db.connect()
        .unwrap()
        .execute(
            "CREATE TABLE t AS SELECT i AS a, 'v' || (i % 100) AS b, i * 0.5 AS c FROM range(300000) r(i)",
        )
        .unwrap();
}

#[test]
fn opening_reads_no_data_and_scans_read_only_what_they_need() {
    let path = path("lazy");
    create(&path);
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    let pool = conn.buffer_pool().clone();
    assert_eq!(pool.reads(), 0, "opening read column segments");
    assert_eq!(
        int(one(&conn, "SELECT sum(a) FROM t")),
        (0..300000i128).sum()
    );
    assert_eq!(pool.reads(), 3, "one column of three row groups");
    // `a >= 250000` can only hold in the last group: only its `c` is read.
    assert_eq!(
        one(
            &conn,
            "SELECT CAST(max(c) * 10 AS BIGINT) FROM t WHERE a >= 250000"
        ),
        ScalarValue::BigInt(1499995)
    );
    assert_eq!(pool.reads(), 4);
    // No group can hold a match: nothing is read.
    assert_eq!(int(one(&conn, "SELECT count(b) FROM t WHERE a < 0")), 0);
    assert_eq!(
        int(one(&conn, "SELECT count(b) FROM t WHERE a IN (-5, 400000)")),
        0
    );
    assert_eq!(pool.reads(), 4);
    // A filter the zone maps cannot decide reads what it needs and stays right.
    assert_eq!(
        int(one(&conn, "SELECT count(*) FROM t WHERE b = 'v7'")),
        3000
    );
    assert_eq!(
        int(one(&conn, "SELECT count(*) FROM t WHERE a <> 5")),
        299999
    );
    assert_eq!(int(one(&conn, "SELECT count(*) FROM t WHERE a IS NULL")), 0);
}

#[test]
fn a_memory_limit_below_the_data_evicts_and_answers_stay_right() {
    let path = path("limit");
    create(&path);
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    let pool = conn.buffer_pool().clone();
    let expected = int(one(&conn, "SELECT sum(a) + count(b) FROM t"));
    // Below even the compressed columns (about 1 MB).
    conn.execute("SET memory_limit = '512KB'").unwrap();
    assert_eq!(
        one(&conn, "SHOW memory_limit"),
        ScalarValue::Varchar("500.0 KiB".into())
    );
    // Every connection sees the one limit.
    let other = db.connect().unwrap();
    assert_eq!(
        one(&other, "SHOW memory_limit"),
        ScalarValue::Varchar("500.0 KiB".into())
    );
    assert!(pool.used() <= 512_000, "{} bytes cached", pool.used());
    for _ in 0..3 {
        let before = pool.reads();
        assert_eq!(int(one(&conn, "SELECT sum(a) + count(b) FROM t")), expected);
        assert!(pool.reads() > before, "evicted segments are read again");
        assert!(pool.used() <= 512_000, "{} bytes cached", pool.used());
    }
    conn.execute("RESET memory_limit").unwrap();
    one(&conn, "SELECT sum(a) + count(b) FROM t");
    let before = pool.reads();
    one(&conn, "SELECT sum(a) + count(b) FROM t");
    assert_eq!(pool.reads(), before, "with room, segments stay cached");
    let err = conn.execute("SET memory_limit = 'lots'").unwrap_err();
    assert!(err.to_string().contains("expected a size"), "{err}");
}

#[test]
fn blocks_an_open_transaction_may_read_are_not_reused() {
    let path = path("reuse");
    create(&path);
    let db = Database::open(&path).unwrap();
    let reader = db.connect().unwrap();
    let writer = db.connect().unwrap();
    reader.execute("BEGIN").unwrap();
    // The transaction's snapshot holds t, not read yet; t is dropped, its blocks
    // leave the checkpoint, and a new table is loaded into free blocks.
    writer.execute("DROP TABLE t").unwrap();
    writer.execute("CHECKPOINT").unwrap();
    writer
        .execute("CREATE TABLE u AS SELECT -i AS a, 'w' AS b, -1.0 AS c FROM range(300000) r(i)")
        .unwrap();
    writer.execute("CHECKPOINT").unwrap();
    assert_eq!(
        int(one(&reader, "SELECT sum(a) FROM t")),
        (0..300000i128).sum()
    );
    assert_eq!(
        int(one(&reader, "SELECT count(*) FROM t WHERE b = 'v3'")),
        3000
    );
    reader.execute("COMMIT").unwrap();
    assert_eq!(
        int(one(&writer, "SELECT sum(a) FROM u")),
        -(0..300000i128).sum::<i128>()
    );
    drop((reader, writer, db));
    // Once no one holds t, its blocks are reused or cut off.
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    conn.execute("CREATE TABLE v AS SELECT * FROM u").unwrap();
    conn.execute("DROP TABLE u").unwrap();
    conn.execute("CHECKPOINT").unwrap();
    assert_eq!(
        int(one(&conn, "SELECT sum(a) FROM v")),
        -(0..300000i128).sum::<i128>()
    );
}

fn rows(conn: &Connection, sql: &str) -> Vec<Vec<ScalarValue>> {
    let r = conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    r.rows().map(|r| r.unwrap()).collect()
}

#[test]
fn storage_info_shows_segments_and_integrity_check_finds_damage() {
    let path = path("inspect");
    create(&path);
    let damaged_block = {
        let db = Database::open(&path).unwrap();
        let conn = db.connect().unwrap();
        assert_eq!(
            int(one(
                &conn,
                "SELECT count(*) FROM pragma_storage_info('t') WHERE persistent"
            )),
            9
        );
        assert_eq!(
            rows(
                &conn,
                "SELECT column_name, compression, stats FROM pragma_storage_info('t') WHERE row_group_id = 0 ORDER BY column_id"
            ),
            [
                ["a", "BitPacking", "[Min: 0, Max: 122879][Has Null: false]"],
                ["b", "Dictionary", "[Min: v0, Max: v99][Has Null: false]"],
                ["c", "BitPacking", "[Min: 0.0, Max: 61439.5][Has Null: false]"],
            ]
            .iter()
            .map(|r| r.iter().map(|s| ScalarValue::Varchar(s.to_string())).collect::<Vec<_>>())
            .collect::<Vec<_>>()
        );
        assert_eq!(
            rows(&conn, "PRAGMA integrity_check"),
            [[ScalarValue::Varchar("ok".into())]]
        );
        let first_a = int(one(
            &conn,
            "SELECT block_id FROM pragma_storage_info('t') WHERE row_group_id = 0 AND column_name = 'a'",
        ));
        let c = rows(
            &conn,
            "SELECT block_id, block_offset FROM pragma_storage_info('t') WHERE row_group_id = 2 AND column_name = 'c'",
        );
        let block = int(c[0][0].clone());
        assert_ne!(block, first_a);
        block as u64
    };
    // Flip a byte inside that block's payload.
    {
        use std::io::{Read, Seek, SeekFrom, Write};
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let at = 8192 + damaged_block * 262_144 + 100;
        let mut b = [0u8; 1];
        f.seek(SeekFrom::Start(at)).unwrap();
        f.read_exact(&mut b).unwrap();
        f.seek(SeekFrom::Start(at)).unwrap();
        f.write_all(&[b[0] ^ 0x55]).unwrap();
    }
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    let problems = rows(&conn, "PRAGMA integrity_check");
    assert!(!problems.is_empty());
    for p in &problems {
        let text = p[0].to_string();
        assert!(
            text.contains(&format!("block {damaged_block}")) && text.contains("damaged"),
            "{text}"
        );
    }
    // What lies outside the damaged block is still readable.
    assert_eq!(
        int(one(&conn, "SELECT count(*) FROM t WHERE a < 1000")),
        1000
    );
    let err = conn
        .query("SELECT sum(c) FROM t")
        .and_then(|r| r.rows().try_for_each(|row| row.map(|_| ())));
    assert!(err.is_err_and(|e| e.to_string().contains(&format!("block {damaged_block}"))));
}

#[test]
fn unique_keys_are_indexed_at_the_first_change_not_at_opening() {
    let path = path("keys");
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect().unwrap();
        conn.execute("CREATE TABLE k(id BIGINT PRIMARY KEY, v VARCHAR)")
            .unwrap();
        conn.execute("INSERT INTO k SELECT i, 'v' || i FROM range(200000) r(i)")
            .unwrap();
    }
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    let pool = conn.buffer_pool().clone();
    assert_eq!(pool.reads(), 0, "opening read column segments");
    let err = conn
        .execute("INSERT INTO k VALUES (199999, 'again')")
        .unwrap_err();
    assert!(err.to_string().contains("Duplicate key"), "{err}");
    assert_eq!(pool.reads(), 2, "only the key column was read");
    conn.execute("INSERT INTO k VALUES (200000, 'new')")
        .unwrap();
    assert_eq!(int(one(&conn, "SELECT count(*) FROM k")), 200001);
    assert_eq!(
        rows(&conn, "PRAGMA integrity_check"),
        [[ScalarValue::Varchar("ok".into())]]
    );
}

#[test]
fn distinct_counts_are_kept_in_the_file() {
    let path = path("counts");
    let plan = "EXPLAIN SELECT count(*) FROM t, t AS u WHERE t.a = u.c AND t.b = u.b";
    let first = {
        create(&path);
        let db = Database::open(&path).unwrap();
        let conn = db.connect().unwrap();
        // Planning a join counts the distinct values of its keys, reading them.
        let text = rows(&conn, plan);
        assert!(conn.buffer_pool().reads() > 0);
        text
    };
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    assert_eq!(
        rows(&conn, plan),
        first,
        "the same estimates, the same plan"
    );
    assert_eq!(conn.buffer_pool().reads(), 0, "counts came from the file");
}

#[test]
fn a_join_reads_only_the_row_groups_its_build_side_can_match() {
    let path = path("joinfilter");
    let sql = "SELECT count(*), sum(t.c) FROM t JOIN d ON t.a = d.x";
    {
        create(&path);
        let db = Database::open(&path).unwrap();
        let conn = db.connect().unwrap();
        conn.execute("CREATE TABLE d AS SELECT 250000 + i AS x FROM range(10) r(i)")
            .unwrap();
        // Counts the join keys' distinct values once (kept in the file).
        one(&conn, sql);
    }
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    let r = rows(&conn, sql);
    assert_eq!(int(r[0][0].clone()), 10);
    // d's one column, and t's a and c of the last row group only (250000.. lies
    // there), not of the two before it.
    assert_eq!(conn.buffer_pool().reads(), 3);
}

#[test]
fn scans_keep_segments_compressed_until_they_are_scanned_again_and_again() {
    let path = path("packed");
    create(&path);
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    let pool = conn.buffer_pool().clone();
    let q = "SELECT sum(a), count(DISTINCT b) FROM t";
    let first = rows(&conn, q);
    let compressed = pool.used();
    // 300,000 BIGINTs and 300,000 short strings take 7.2 MB decoded; bit-packed
    // integers and dictionary codes, about 1 MB.
    assert!(compressed < 1_500_000, "{compressed} bytes cached");
    // Asking for the table's size decodes nothing.
    one(&conn, "SELECT pg_table_size('t')");
    assert_eq!(pool.used(), compressed);
    let reads = pool.reads();
    for _ in 0..3 {
        assert_eq!(rows(&conn, q), first);
    }
    assert_eq!(pool.reads(), reads, "decoding reads nothing again");
    assert!(pool.used() > 5_000_000, "{} bytes cached", pool.used());
}

/// Conditions on a dictionary-compressed string column are tested once per dictionary
/// value while the pool keeps the segment compressed, and only the rows that pass are
/// decoded: every answer (NULLs, =, <>, <, >=, IN, two such conditions, the row ids a
/// DELETE takes, a window where no row passes) equals the one over decoded values.
#[test]
fn string_conditions_on_compressed_dictionaries_select_the_same_rows() {
    let path = path("dictionary-filters");
    {
        let db = Database::open(&path).unwrap();
        db.connect()
            .unwrap()
            .execute(
                "CREATE TABLE t AS SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE 'mode' || (i % 7) END AS m, \
                 CASE WHEN i < 100000 THEN 'early' ELSE 'late' || (i % 3) END AS s FROM range(300000) r(i)",
            )
            .unwrap();
    }
    let queries = [
        "SELECT count(*), sum(i) FROM t WHERE m = 'mode3'",
        "SELECT count(*), sum(i) FROM t WHERE m <> 'mode3'",
        "SELECT count(*), sum(i) FROM t WHERE m < 'mode2'",
        "SELECT count(*), sum(i) FROM t WHERE m >= 'mode5'",
        "SELECT count(*), sum(i) FROM t WHERE m IN ('mode1', 'mode6', 'none')",
        "SELECT count(*), sum(i) FROM t WHERE m IN ('mode1', 'mode6') AND s = 'late2'",
        "SELECT count(*), sum(i) FROM t WHERE s = 'early' AND i % 2 = 0",
        "SELECT count(*), sum(i) FROM t WHERE s = 'absent'",
        "SELECT count(*), min(m), max(s) FROM t WHERE m IS NULL OR s = 'late1'",
        "SELECT string_agg(m, ',' ORDER BY i) FROM (SELECT i, m FROM t WHERE m = 'mode4' AND i < 200)",
        "SELECT count(*), sum(rowid) FROM t WHERE m = 'mode0'",
    ];
    // Decoded: a database in memory holding the same rows.
    let memory = Database::open_in_memory().unwrap().connect().unwrap();
    memory
        .execute(&format!("ATTACH '{path}' AS f (READ_ONLY)"))
        .unwrap();
    memory
        .execute("CREATE TABLE t AS SELECT * FROM f.t")
        .unwrap();
    memory.execute("DETACH f").unwrap();
    // Every row of every answer.
    let answers = |conn: &Connection, queries: &[&str]| -> Vec<Vec<Vec<ScalarValue>>> {
        queries
            .iter()
            .map(|q| conn.query(q).unwrap().rows().map(|r| r.unwrap()).collect())
            .collect()
    };
    let expected = answers(&memory, &queries);
    // Compressed: a limit too small for any decoded copy keeps every segment packed.
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    conn.execute("SET memory_limit = '2MB'").unwrap();
    for round in 0..3 {
        assert_eq!(answers(&conn, &queries), expected, "round {round}");
    }
    // A DELETE finds its rows through the same scan.
    drop(conn);
    drop(db);
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    conn.execute("SET memory_limit = '2MB'").unwrap();
    let deleted = conn
        .execute("DELETE FROM t WHERE m IN ('mode2', 'mode5') AND s <> 'early'")
        .unwrap();
    memory
        .execute("DELETE FROM t WHERE m IN ('mode2', 'mode5') AND s <> 'early'")
        .unwrap();
    assert!(deleted.changes.unwrap() > 0);
    let check = ["SELECT count(*), sum(i), count(m) FROM t"];
    assert_eq!(answers(&conn, &check), answers(&memory, &check));
}
