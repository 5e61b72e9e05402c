//! What this process has used so far, as the operating system counts it: the CPU
//! time of all its threads. The shell's `.timer` and EXPLAIN ANALYZE's totals read it
//! before and after a statement.

/// User and system CPU seconds used by this process so far; zeros if unavailable.
pub fn cpu_times() -> (f64, f64) {
    // SAFETY: getrusage only writes into the struct we pass, which is plain data that
    // may start zeroed.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return (0.0, 0.0);
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(usage.ru_utime), secs(usage.ru_stime))
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_time_grows_with_work() {
        let (u0, s0) = super::cpu_times();
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed().as_millis() < 50 {
            x = x.wrapping_mul(31).wrapping_add(std::hint::black_box(7));
        }
        std::hint::black_box(x);
        let (u1, s1) = super::cpu_times();
        assert!(u1 + s1 > u0 + s0, "{u0} {s0} -> {u1} {s1}");
    }
}
