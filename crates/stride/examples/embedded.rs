//! Using stride as an embedded library: create a table, query it, read rows.
//! Run with `cargo run --example embedded -p stride`.

fn main() -> stride::Result<()> {
    let conn = stride::Database::open_in_memory()?.connect()?;
    conn.execute("CREATE TABLE trips(city VARCHAR, km DECIMAL(8,2))")?;
    conn.execute("INSERT INTO trips VALUES ('Lyon', 12.50), ('Oslo', 3.25), ('Lyon', 7.00)")?;
    let result =
        conn.query("SELECT city, sum(km) AS total FROM trips GROUP BY city ORDER BY city")?;
    println!("{}", result.names.join(" | "));
    for row in result.rows() {
        let row = row?;
        println!("{} | {}", row[0], row[1]);
    }
    Ok(())
}
