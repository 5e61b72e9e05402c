//! Lists whose size a query asks for at once (`range(n)` and `list_resize` as values,
//! a `list()` aggregate's group) are checked against what the process may still
//! allocate before they grow: an allocation that fails aborts the process (in
//! `stride serve`, every session's), where the check fails only the statement.

use stride_common::{Error, ErrorKind, Result, ScalarValue};

/// Fails with an Out of Memory Error when a list of `n` elements would not fit in
/// what the process may still allocate: an allocation that fails aborts the process
/// (in `stride serve`, every session), and a list's size is asked for at once.
pub(crate) fn check_list_memory(what: &str, n: i128) -> Result<()> {
    use stride_common::memory::{allocated, process_ceiling};
    // The elements as values (twice while a growing list is copied), then as the
    // list vector's child; what is counted misses what the allocator holds aside.
    let per = 3 * std::mem::size_of::<ScalarValue>() as i128;
    let need = n.saturating_mul(per);
    let free = process_ceiling().saturating_sub(allocated().unwrap_or(0));
    if need > free as i128 {
        return Err(Error::new(
            ErrorKind::OutOfMemory,
            format!(
                "{what}: a list of {n} elements needs about {} of memory, more than the process may still allocate ({}); build a smaller list, or use the table function (FROM range(...)), which streams",
                stride_common::settings::format_bytes(need.min(u64::MAX as i128) as u64),
                stride_common::settings::format_bytes(free)
            ),
        ));
    }
    Ok(())
}
