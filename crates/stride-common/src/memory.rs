//! The memory accountant: one per database, so `SET memory_limit` bounds the buffer
//! pool's cached segments, in-memory tables and every operator's state together.
//!
//! Whatever grows with its input reserves bytes here before it grows: the buffer pool
//! when it caches a segment, a hash aggregate or join when its tables grow, a sort or
//! window when it buffers rows. (Rows a statement must keep, collected or materialized,
//! are tracked with [`Reservation::track`] and never refused; so are the values of
//! in-memory tables, recounted after each statement that changes data, which take
//! from the operators' room only down to a quarter of the limit.) When a
//! reservation would pass the limit, the accountant first asks the evictors (the buffer
//! pools, whose segments can be read again) to drop what they cache; if that is not
//! enough the reservation fails. An operator that can spill then writes part of its
//! state to disk and frees it; one that cannot fails the query with an "Out of Memory
//! Error" naming itself and the limit, and the process and every other session go on.
//!
//! The counts are estimates of the bytes each part holds (vectors' buffers, table
//! slots), taken where state grows; they are not the allocator's numbers.
//! `stride_memory()` shows them by part.
//!
//! Under EXPLAIN ANALYZE each plan node also has a [`MemoryGauge`]: a reservation made
//! on a thread while [`gauged`] runs there counts in that node's gauge for its whole
//! life, wherever it later grows, so the plan shows each operator's peak.

use crate::error::{Error, ErrorKind, Result};
use crate::settings::format_bytes;
use std::alloc::{GlobalAlloc, Layout};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// What holds reserved memory, for error messages and `stride_memory()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryTag {
    /// The values of tables held in memory (an in-memory database's, and a database
    /// file's rows not checkpointed yet): counted after each statement that changes
    /// data, never refused, so that operators get what the limit leaves.
    InMemoryTables,
    BufferPool,
    HashAggregate,
    HashJoin,
    Sort,
    Window,
    SetOperation,
    Materialized,
}

impl MemoryTag {
    pub const ALL: [MemoryTag; 8] = [
        MemoryTag::InMemoryTables,
        MemoryTag::BufferPool,
        MemoryTag::HashAggregate,
        MemoryTag::HashJoin,
        MemoryTag::Sort,
        MemoryTag::Window,
        MemoryTag::SetOperation,
        MemoryTag::Materialized,
    ];

    /// The name `stride_memory()` and error messages use.
    pub fn name(self) -> &'static str {
        match self {
            MemoryTag::InMemoryTables => "in-memory tables",
            MemoryTag::BufferPool => "buffer pool",
            MemoryTag::HashAggregate => "hash aggregate",
            MemoryTag::HashJoin => "hash join",
            MemoryTag::Sort => "sort",
            MemoryTag::Window => "window",
            MemoryTag::SetOperation => "set operation",
            MemoryTag::Materialized => "materialized rows",
        }
    }
}

/// Something holding memory it can give back on request: the buffer pool.
pub trait Evict: Send + Sync {
    /// Frees at least `bytes` bytes if it can; returns how many it freed.
    fn evict(&self, bytes: u64) -> u64;
}

pub struct MemoryAccountant {
    limit: AtomicU64,
    used: [AtomicU64; MemoryTag::ALL.len()],
    /// Bytes written to spill files and not yet deleted.
    spilled: AtomicU64,
    /// Bytes ever written to spill files (for tests and profiles).
    spilled_total: AtomicU64,
    evictors: Mutex<Vec<Weak<dyn Evict>>>,
    /// Held while a reservation checks the limit and counts itself, so that two
    /// reservations never see each other's bytes before they are granted.
    reserving: Mutex<()>,
}

impl std::fmt::Debug for MemoryAccountant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryAccountant")
            .field("limit", &self.limit())
            .field("used", &self.used())
            .finish()
    }
}

impl MemoryAccountant {
    pub fn new(limit: u64) -> Arc<MemoryAccountant> {
        pressure_limit(limit);
        Arc::new(MemoryAccountant {
            limit: AtomicU64::new(limit),
            used: Default::default(),
            spilled: AtomicU64::new(0),
            spilled_total: AtomicU64::new(0),
            evictors: Mutex::new(Vec::new()),
            reserving: Mutex::new(()),
        })
    }

    pub fn limit(&self) -> u64 {
        self.limit.load(Ordering::Relaxed)
    }

    /// Changes the limit, asking the evictors to drop what no longer fits. The
    /// process counts as under memory pressure from the limit on (see
    /// [`CountingAllocator::on_pressure`]), so a shell keeps no freed memory beyond
    /// what `memory_limit` allows.
    pub fn set_limit(&self, bytes: u64) {
        self.limit.store(bytes, Ordering::Relaxed);
        pressure_limit(bytes);
        self.evict_excess();
    }

    /// Asks the evictors to drop what the parts hold past their room.
    fn evict_excess(&self) {
        let over = self.excess(0);
        if over > 0 {
            self.evict(over);
        }
    }

    /// How far past their room (see `room`) the parts would be with `extra` more
    /// bytes: what the buffer pool drops before it caches `extra`.
    pub fn excess(&self, extra: u64) -> u64 {
        let (held, room) = self.room();
        held.saturating_add(extra).saturating_sub(room)
    }

    /// What the parts other than the in-memory tables hold, and the room they have:
    /// the limit less the tables, but never less than a quarter of it. Tables can
    /// neither be evicted nor spilled, and an operator needs memory to spill from,
    /// so tables larger than the limit leave operators that quarter (the process
    /// then holds the tables and a quarter of the limit).
    fn room(&self) -> (u64, u64) {
        let limit = self.limit();
        let tables = self.used_by(MemoryTag::InMemoryTables);
        let held = self.used().saturating_sub(tables);
        (held, limit.saturating_sub(tables).max(limit / 4))
    }

    /// Bytes reserved by every part.
    pub fn used(&self) -> u64 {
        self.used.iter().map(|u| u.load(Ordering::Relaxed)).sum()
    }

    /// Bytes reserved by one part.
    pub fn used_by(&self, tag: MemoryTag) -> u64 {
        self.used[tag as usize].load(Ordering::Relaxed)
    }

    /// Bytes in spill files not yet deleted.
    pub fn spilled(&self) -> u64 {
        self.spilled.load(Ordering::Relaxed)
    }

    /// Bytes ever written to spill files.
    pub fn spilled_total(&self) -> u64 {
        self.spilled_total.load(Ordering::Relaxed)
    }

    pub fn add_spilled(&self, bytes: u64) {
        self.spilled.fetch_add(bytes, Ordering::Relaxed);
        self.spilled_total.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn sub_spilled(&self, bytes: u64) {
        self.spilled.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Registers something that frees memory when asked (kept until it is dropped).
    pub fn register_evictor(&self, e: Weak<dyn Evict>) {
        let mut list = self.evictors.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|w| w.strong_count() > 0);
        list.push(e);
    }

    /// Asks the evictors to free `bytes`; returns how many they freed.
    fn evict(&self, bytes: u64) -> u64 {
        let evictors: Vec<Arc<dyn Evict>> = {
            let list = self.evictors.lock().unwrap_or_else(|e| e.into_inner());
            list.iter().filter_map(|w| w.upgrade()).collect()
        };
        let mut freed = 0;
        for e in evictors {
            if freed >= bytes {
                break;
            }
            freed += e.evict(bytes - freed);
        }
        freed
    }

    /// Counts `bytes` more for `tag` without checking the limit (the buffer pool, which
    /// evicts on its own right after).
    pub fn add(&self, tag: MemoryTag, bytes: u64) {
        self.used[tag as usize].fetch_add(bytes, Ordering::Relaxed);
    }

    /// Sets what `tag` holds to `bytes`, without checking the limit (the in-memory
    /// tables, counted whole after a change); the evictors drop what no longer fits.
    pub fn set(&self, tag: MemoryTag, bytes: u64) {
        self.used[tag as usize].store(bytes, Ordering::Relaxed);
        self.evict_excess();
    }

    pub fn sub(&self, tag: MemoryTag, bytes: u64) {
        // Saturating: a release never underflows the count, even if mismatched.
        let _ = self.used[tag as usize].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
            Some(u.saturating_sub(bytes))
        });
    }

    /// Reserves `bytes` for `tag` if they fit under the limit, evicting cached
    /// segments to make room; false (and nothing reserved) when they do not fit.
    ///
    /// The check and the count happen under one lock: two workers reserving at once
    /// (an aggregate's two threads asking for megabytes ahead) used to count their
    /// bytes first and check after, so each could see the other's request, not yet
    /// granted, and fail one that fitted. Eviction runs outside the lock.
    pub fn try_reserve(&self, tag: MemoryTag, bytes: u64) -> bool {
        for attempt in 0..2 {
            let over = {
                let _held = self.reserving.lock().unwrap_or_else(|e| e.into_inner());
                let (held, room) = self.room();
                if held.saturating_add(bytes) <= room {
                    self.add(tag, bytes);
                    return true;
                }
                held.saturating_add(bytes) - room
            };
            // Other parts may fit by evicting the pool's cache (never the pool
            // itself: it makes its own room).
            if attempt == 1 || tag == MemoryTag::BufferPool {
                break;
            }
            self.evict(over);
        }
        false
    }

    /// The error for a reservation of `bytes` by `tag` that did not fit.
    pub fn out_of_memory(&self, tag: MemoryTag, bytes: u64) -> Error {
        let mut parts: Vec<String> = MemoryTag::ALL
            .iter()
            .filter(|t| self.used_by(**t) > 0)
            .map(|t| format!("{} {}", t.name(), format_bytes(self.used_by(*t))))
            .collect();
        if parts.is_empty() {
            parts.push("nothing".into());
        }
        Error::new(
            ErrorKind::OutOfMemory,
            format!(
                "the {} could not reserve {} more: memory_limit is {} and {} is in use ({}); raise it with SET memory_limit = '...', or make the query need less (fewer groups, a smaller join build side)",
                tag.name(),
                format_bytes(bytes),
                format_bytes(self.limit()),
                format_bytes(self.used()),
                parts.join(", ")
            ),
        )
    }
}

/// Bytes one operator holds, reserved from the accountant and given back when it is
/// dropped (also when the query fails or is cancelled).
pub struct Reservation {
    accountant: Arc<MemoryAccountant>,
    tag: MemoryTag,
    bytes: u64,
    /// The plan node it counts for, under EXPLAIN ANALYZE.
    gauge: Option<Arc<MemoryGauge>>,
}

impl std::fmt::Debug for Reservation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Reservation({}, {})", self.tag.name(), self.bytes)
    }
}

impl Reservation {
    pub fn new(accountant: &Arc<MemoryAccountant>, tag: MemoryTag) -> Reservation {
        Reservation {
            accountant: accountant.clone(),
            tag,
            bytes: 0,
            gauge: GAUGE.with(|g| g.borrow().clone()),
        }
    }

    pub fn size(&self) -> u64 {
        self.bytes
    }

    pub fn accountant(&self) -> &Arc<MemoryAccountant> {
        &self.accountant
    }

    /// Grows by `bytes` if they fit; false (and no change) when they do not.
    pub fn try_grow(&mut self, bytes: u64) -> bool {
        if bytes == 0 || self.accountant.try_reserve(self.tag, bytes) {
            self.bytes += bytes;
            if let Some(g) = &self.gauge {
                g.add(bytes);
            }
            true
        } else {
            false
        }
    }

    /// Grows by `bytes`, or fails with an Out of Memory Error naming the operator.
    pub fn grow(&mut self, bytes: u64) -> Result<()> {
        if self.try_grow(bytes) {
            Ok(())
        } else {
            Err(self.accountant.out_of_memory(self.tag, bytes))
        }
    }

    /// Grows by `bytes` even past the limit: for memory an operator must hold now
    /// (a spilled partition read back to compute it), which operators that can spill
    /// make room for as soon as their next reservation fails.
    pub fn force_grow(&mut self, bytes: u64) {
        self.accountant.add(self.tag, bytes);
        self.bytes += bytes;
        if let Some(g) = &self.gauge {
            g.add(bytes);
        }
    }

    /// Grows by `bytes` for memory that is held whatever the limit (rows a statement
    /// must keep and cannot spill): the buffer pool is asked to make room, and past
    /// the limit the count goes on, so operators that can spill do so sooner.
    pub fn track(&mut self, bytes: u64) {
        if !self.try_grow(bytes) {
            self.force_grow(bytes);
        }
    }

    /// Sets the reservation to `bytes`, growing (which may fail) or shrinking.
    pub fn resize(&mut self, bytes: u64) -> Result<()> {
        if bytes > self.bytes {
            self.grow(bytes - self.bytes)
        } else {
            self.shrink(self.bytes - bytes);
            Ok(())
        }
    }

    pub fn shrink(&mut self, bytes: u64) {
        let bytes = bytes.min(self.bytes);
        self.accountant.sub(self.tag, bytes);
        self.bytes -= bytes;
        if let Some(g) = &self.gauge {
            g.sub(bytes);
        }
    }

    /// Takes over what `other` holds (parallel workers' reservations becoming one
    /// operator's): the accountant's count does not change.
    pub fn absorb(&mut self, mut other: Reservation) {
        let bytes = other.bytes;
        let same_gauge = match (&self.gauge, &other.gauge) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        if other.tag == self.tag && Arc::ptr_eq(&other.accountant, &self.accountant) && same_gauge {
            other.bytes = 0;
        } else {
            self.accountant.add(self.tag, bytes);
            if let Some(g) = &self.gauge {
                g.add(bytes);
            }
            other.clear();
        }
        self.bytes += bytes;
    }

    /// Gives everything back.
    pub fn clear(&mut self) {
        self.shrink(self.bytes);
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.clear();
    }
}

/// The bytes one plan node's reservations hold together, and the most they held at
/// once (EXPLAIN ANALYZE). A node's gauge adds into its query's, which so gives the
/// query's peak.
#[derive(Debug, Default)]
pub struct MemoryGauge {
    held: AtomicU64,
    peak: AtomicU64,
    parent: Option<Arc<MemoryGauge>>,
}

impl MemoryGauge {
    pub fn new(parent: Option<Arc<MemoryGauge>>) -> Arc<MemoryGauge> {
        Arc::new(MemoryGauge {
            parent,
            ..MemoryGauge::default()
        })
    }

    fn add(&self, bytes: u64) {
        let now = self.held.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
        if let Some(p) = &self.parent {
            p.add(bytes);
        }
    }

    fn sub(&self, bytes: u64) {
        self.held.fetch_sub(bytes, Ordering::Relaxed);
        if let Some(p) = &self.parent {
            p.sub(bytes);
        }
    }

    /// The most held at once so far.
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }
}

thread_local! {
    /// The gauge reservations made on this thread count in, while [`gauged`] runs.
    static GAUGE: RefCell<Option<Arc<MemoryGauge>>> = const { RefCell::new(None) };
}

/// Runs `f` with the reservations made on this thread during it counted in `gauge`
/// (then the gauge that was current before is again).
pub fn gauged<T>(gauge: &Arc<MemoryGauge>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<MemoryGauge>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            GAUGE.with(|g| *g.borrow_mut() = previous);
        }
    }
    let _restore = Restore(GAUGE.with(|g| g.borrow_mut().replace(gauge.clone())));
    f()
}

/// The process's limits on memory, where the system sets one below the machine's
/// memory: the address-space limit (`ulimit -v`) and the cgroup's (containers).
pub fn process_limit() -> Option<u64> {
    let mut limits = Vec::new();
    if let Ok(text) = std::fs::read_to_string("/proc/self/limits") {
        // "Max address space   unlimited   unlimited   bytes"
        if let Some(line) = text.lines().find(|l| l.starts_with("Max address space")) {
            let soft = line["Max address space".len()..].split_whitespace().next();
            if let Some(Ok(n)) = soft.map(str::parse::<u64>) {
                limits.push(n);
            }
        }
    }
    for path in [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ] {
        if let Ok(text) = std::fs::read_to_string(path) {
            if let Ok(n) = text.trim().parse::<u64>() {
                limits.push(n);
            }
        }
    }
    limits.into_iter().min()
}

/// Wraps the process's allocator to count the bytes it hands out, so a query that
/// makes the process grow past what the system allows fails with an error (see
/// [`process_ceiling`]) before an allocation fails, which Rust answers with an abort.
/// The binaries (shell, server, Python module) install it as the global allocator.
pub struct CountingAllocator<A>(pub A);

/// Bytes allocated by the process, when [`CountingAllocator`] is installed.
static ALLOCATED: AtomicI64 = AtomicI64::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's allocations not yet added to [`ALLOCATED`]: added in steps of
    /// [`FLUSH_BYTES`], so most allocations touch no shared counter.
    static PENDING: Cell<i64> = const { Cell::new(0) };
}

const FLUSH_BYTES: i64 = 1 << 20;

/// Allocations past which the process is under memory pressure ([`PRESSURE_HOOK`] is
/// called with `true`), and below which it is no longer (`false`); 0 when no hook is
/// set.
static PRESSURE_HIGH: AtomicI64 = AtomicI64::new(0);
static PRESSURE_LOW: AtomicI64 = AtomicI64::new(0);
static PRESSED: AtomicBool = AtomicBool::new(false);
/// The thresholds the machine's memory sets; a smaller `memory_limit` lowers them.
static RAM_HIGH: AtomicI64 = AtomicI64::new(0);
static RAM_LOW: AtomicI64 = AtomicI64::new(0);
static PRESSURE_HOOK: std::sync::OnceLock<fn(bool)> = std::sync::OnceLock::new();

/// Puts the pressure thresholds at `limit` (pressed above it, relieved below half of
/// it) where that is below the machine's: the latest `memory_limit` set wins. No
/// effect before [`CountingAllocator::on_pressure`].
fn pressure_limit(limit: u64) {
    let (high, low) = (
        RAM_HIGH.load(Ordering::Relaxed),
        RAM_LOW.load(Ordering::Relaxed),
    );
    if high == 0 {
        return;
    }
    let limit = limit.min(i64::MAX as u64) as i64;
    PRESSURE_HIGH.store(high.min(limit), Ordering::Relaxed);
    PRESSURE_LOW.store(low.min(limit / 2), Ordering::Relaxed);
}

/// Calls the pressure hook when `total` allocated bytes cross a threshold.
#[inline]
fn check_pressure(total: i64) {
    let high = PRESSURE_HIGH.load(Ordering::Relaxed);
    if high == 0 {
        return;
    }
    let pressed = PRESSED.load(Ordering::Relaxed);
    let now = match pressed {
        false if total > high => true,
        true if total < PRESSURE_LOW.load(Ordering::Relaxed) => false,
        _ => return,
    };
    if PRESSED
        .compare_exchange(pressed, now, Ordering::Relaxed, Ordering::Relaxed)
        .is_ok()
    {
        if let Some(hook) = PRESSURE_HOOK.get() {
            hook(now);
        }
    }
}

#[inline]
fn record(delta: i64) {
    let flushed = PENDING.try_with(|p| {
        let v = p.get() + delta;
        if v.abs() >= FLUSH_BYTES {
            let total = ALLOCATED.fetch_add(v, Ordering::Relaxed) + v;
            p.set(0);
            check_pressure(total);
        } else {
            p.set(v);
        }
    });
    // While the thread is being torn down its counter is gone: count directly.
    if flushed.is_err() {
        ALLOCATED.fetch_add(delta, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed on to the wrapped allocator unchanged; counting
// touches only atomics and a const-initialized thread-local without a destructor,
// so it neither allocates nor unwinds.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { self.0.alloc(layout) };
        if !p.is_null() {
            record(layout.size() as i64);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if !p.is_null() {
            record(layout.size() as i64);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { self.0.dealloc(ptr, layout) };
        record(-(layout.size() as i64));
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            record(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

impl<A> CountingAllocator<A> {
    /// Call once at start-up from a binary that installed the allocator.
    pub fn enable() {
        COUNTING.store(true, Ordering::Relaxed);
    }

    /// Calls `hook(true)` when the process's allocations pass half of the machine's
    /// memory, or the latest `memory_limit` set if that is lower, and `hook(false)`
    /// when they fall below half of that again: the shell keeps freed memory for
    /// reuse until then, and hands it back to the system while memory is short. The
    /// hook runs inside an allocation: it must not allocate. Call once at start-up,
    /// after [`CountingAllocator::enable`].
    pub fn on_pressure(hook: fn(bool)) {
        let Some(ram) = crate::settings::physical_memory() else {
            return;
        };
        if PRESSURE_HOOK.set(hook).is_ok() {
            RAM_LOW.store((ram / 4) as i64, Ordering::Relaxed);
            RAM_HIGH.store((ram / 2) as i64, Ordering::Relaxed);
            pressure_limit(u64::MAX);
        }
    }
}

/// Bytes the process has allocated, when it counts them.
pub fn allocated() -> Option<u64> {
    COUNTING
        .load(Ordering::Relaxed)
        .then(|| ALLOCATED.load(Ordering::Relaxed).max(0) as u64)
}

/// Where a process that counts its allocations stops queries: 90% of the machine's
/// memory, or of the process's own limit less room for what allocations do not count
/// (code, thread stacks, the allocator's own overhead). Past it, a query fails with
/// an Out of Memory Error instead of letting the system's allocator fail.
pub fn process_ceiling() -> u64 {
    static CEILING: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *CEILING.get_or_init(|| {
        let ram = crate::settings::physical_memory().unwrap_or(u64::MAX);
        let own = process_limit().map_or(u64::MAX, |l| (l / 10 * 8).saturating_sub(64 << 20));
        (ram / 10 * 9).min(own)
    })
}

/// Fails with an Out of Memory Error when the process's counted allocations have
/// passed [`process_ceiling`]; checked once per chunk with a query's cancellation.
#[inline]
pub fn check_process() -> Result<()> {
    match allocated() {
        Some(bytes) if bytes > process_ceiling() => Err(Error::new(
            ErrorKind::OutOfMemory,
            format!(
                "the process holds {} of memory, near what the system allows it ({} at most); the statement was stopped before an allocation could fail. SET memory_limit lower so operators spill sooner, or make the query need less",
                format_bytes(bytes),
                format_bytes(process_ceiling())
            ),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Cache(Mutex<u64>, Arc<MemoryAccountant>);
    impl Evict for Cache {
        fn evict(&self, bytes: u64) -> u64 {
            let mut held = self.0.lock().unwrap();
            let freed = bytes.min(*held);
            *held -= freed;
            self.1.sub(MemoryTag::BufferPool, freed);
            freed
        }
    }

    #[test]
    fn reservations_evict_the_cache_then_fail() {
        let acct = MemoryAccountant::new(1000);
        let cache = Arc::new(Cache(Mutex::new(600), acct.clone()));
        acct.add(MemoryTag::BufferPool, 600);
        let weak: Weak<dyn Evict> = Arc::downgrade(&(cache.clone() as Arc<dyn Evict>));
        acct.register_evictor(weak);
        let mut r = Reservation::new(&acct, MemoryTag::Sort);
        r.grow(300).unwrap();
        assert_eq!(acct.used(), 900);
        // 300 more: the cache gives back 200.
        r.grow(300).unwrap();
        assert_eq!(*cache.0.lock().unwrap(), 400);
        assert_eq!(acct.used(), 1000);
        // The cache can free 400 of the 500 needed: refused, nothing kept.
        let e = r.grow(500).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfMemory);
        assert!(
            e.message.contains("the sort could not reserve"),
            "{}",
            e.message
        );
        assert_eq!(r.size(), 600);
        drop(r);
        assert_eq!(acct.used_by(MemoryTag::Sort), 0);
    }

    #[test]
    fn shrinking_never_underflows() {
        let acct = MemoryAccountant::new(100);
        let mut r = Reservation::new(&acct, MemoryTag::HashJoin);
        r.shrink(50);
        assert_eq!(r.size(), 0);
        r.resize(80).unwrap();
        r.resize(20).unwrap();
        assert_eq!(acct.used(), 20);
    }

    #[test]
    fn absorbing_moves_bytes_without_counting_them_twice() {
        let acct = MemoryAccountant::new(100);
        let mut a = Reservation::new(&acct, MemoryTag::HashJoin);
        let mut b = Reservation::new(&acct, MemoryTag::HashJoin);
        a.grow(30).unwrap();
        b.grow(40).unwrap();
        a.absorb(b);
        assert_eq!((a.size(), acct.used()), (70, 70));
        let mut c = Reservation::new(&acct, MemoryTag::Sort);
        c.grow(10).unwrap();
        a.absorb(c);
        assert_eq!(acct.used_by(MemoryTag::Sort), 0);
        assert_eq!((a.size(), acct.used_by(MemoryTag::HashJoin)), (80, 80));
        drop(a);
        assert_eq!(acct.used(), 0);
    }

    #[test]
    fn gauges_keep_each_nodes_peak_and_the_querys() {
        let acct = MemoryAccountant::new(1000);
        let query = MemoryGauge::new(None);
        let (sort, join) = (
            MemoryGauge::new(Some(query.clone())),
            MemoryGauge::new(Some(query.clone())),
        );
        let mut s = gauged(&sort, || Reservation::new(&acct, MemoryTag::Sort));
        let mut j = gauged(&join, || {
            // Nested: the inner scope's reservation counts in the sort's gauge.
            let inner = gauged(&sort, || Reservation::new(&acct, MemoryTag::Sort));
            (Reservation::new(&acct, MemoryTag::HashJoin), inner)
        });
        // Outside any scope: counted nowhere.
        let mut free = Reservation::new(&acct, MemoryTag::Window);
        free.grow(500).unwrap();
        s.grow(100).unwrap();
        j.1.grow(50).unwrap();
        j.0.grow(200).unwrap();
        s.shrink(100);
        j.0.force_grow(100);
        assert_eq!((sort.peak(), join.peak(), query.peak()), (150, 300, 350));
        // Absorbing a reservation of another node moves its bytes to this node.
        let mut other = gauged(&sort, || Reservation::new(&acct, MemoryTag::HashJoin));
        other.grow(10).unwrap();
        j.0.absorb(other);
        assert_eq!(join.peak(), 310);
        drop(j);
        assert_eq!(acct.used(), 500);
        assert_eq!(query.held.load(Ordering::Relaxed), 0);
    }
}
