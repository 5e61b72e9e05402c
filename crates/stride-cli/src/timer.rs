//! `.timer on`: measures each statement's wall-clock time and the CPU time the whole
//! process spent on it (all threads, user and system, from `getrusage`), and formats
//! them as DuckDB does: `Run Time (s): real 0.012 user 0.020 sys 0.001`.

use std::time::Instant;
use stride_common::process::cpu_times;

/// Taken when a statement starts; [`Stopwatch::report`] gives the line to print.
pub struct Stopwatch {
    wall: Instant,
    user: f64,
    sys: f64,
}

impl Stopwatch {
    pub fn start() -> Self {
        let (user, sys) = cpu_times();
        Stopwatch {
            wall: Instant::now(),
            user,
            sys,
        }
    }

    /// The time since [`Stopwatch::start`], as the line the shell prints.
    pub fn report(&self) -> String {
        let real = self.wall.elapsed().as_secs_f64();
        let (user, sys) = cpu_times();
        format_times(real, (user - self.user).max(0.0), (sys - self.sys).max(0.0))
    }
}

pub fn format_times(real: f64, user: f64, sys: f64) -> String {
    format!("Run Time (s): real {real:.3} user {user:.3} sys {sys:.3}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_has_three_decimals() {
        assert_eq!(
            format_times(0.0123, 0.02, 0.0004),
            "Run Time (s): real 0.012 user 0.020 sys 0.000"
        );
        let line = Stopwatch::start().report();
        assert!(line.starts_with("Run Time (s): real 0.0"), "{line}");
    }
}
