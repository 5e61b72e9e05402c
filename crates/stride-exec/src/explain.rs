//! EXPLAIN ANALYZE and `EXPLAIN (FORMAT json)`: the physical plan, one node per
//! operator, with its estimated rows ([`crate::estimate`]) and what it did when the
//! query ran ([`crate::profile`]): rows produced, its own time and share of the total,
//! the peak memory its state reserved, and for table scans the row groups read and
//! skipped by zone maps. Totals first: wall and CPU time, peak memory, threads. As
//! text (a tree, one line per node) or as JSON.

use crate::estimate::Estimates;
use crate::physical_plan::PhysicalPlan;
use crate::profile::Profile;
use std::fmt::Write;
use std::time::Duration;
use stride_common::settings::format_bytes;
use stride_sql::plan::explain::{
    aggregates_text, join_kind_name as join_kind, join_list as list, set_op_text,
    sort_keys_text as keys,
};
use stride_sql::plan::RegisteredRows;

/// How the query as a whole ran.
pub struct Totals {
    pub wall: Duration,
    /// CPU time of the whole process while it ran (user and system, all threads).
    pub cpu: Duration,
    pub rows: u64,
    pub threads: usize,
}

/// What a node does, after its name.
fn detail(plan: &PhysicalPlan) -> String {
    match plan {
        PhysicalPlan::Scan {
            table,
            columns,
            filters,
            ..
        } => {
            let names = list(columns.iter().map(|&c| {
                table
                    .schema
                    .columns
                    .get(c)
                    .map_or("rowid", |c| c.name.as_str())
            }));
            let mut s = format!("{} [{names}]", table.schema.name);
            if !filters.is_empty() {
                let _ = write!(s, " zone filters on {} column(s)", filters.len());
            }
            s
        }
        PhysicalPlan::CsvScan { reader, filter, .. } => {
            let mut s = list(reader.files.iter().map(|f| f.path.as_str()));
            if let Some(f) = filter {
                let _ = write!(s, " filter={f}");
            }
            s
        }
        PhysicalPlan::Registered {
            data,
            columns,
            filters,
            ..
        } => match &data.rows {
            RegisteredRows::Chunks(_) => format!("{} rows", data.known_rows().unwrap_or(0)),
            RegisteredRows::External(source) => {
                let mut s = format!(
                    "{} [{}]",
                    source.kind(),
                    list(columns.iter().map(|&c| data.names[c].as_str()))
                );
                if !filters.is_empty() {
                    let conditions: Vec<String> = filters
                        .iter()
                        .map(|f| f.describe(&data.names[f.column]))
                        .collect();
                    let _ = write!(s, " filters: {}", conditions.join(" AND "));
                }
                s
            }
        },
        PhysicalPlan::ColumnarScan {
            reader,
            columns,
            filters,
            ..
        } => {
            let mut s = format!(
                "{} [{}]",
                list(reader.paths()),
                list(columns.iter().map(|&c| reader.names()[c].as_str()))
            );
            if !filters.is_empty() {
                let _ = write!(s, " row group filters on {} column(s)", filters.len());
            }
            s
        }
        PhysicalPlan::Range {
            start, stop, step, ..
        } => format!("{start} to {stop} step {step}"),
        PhysicalPlan::Values { rows, types } => {
            format!("{} rows, {} columns", rows.len(), types.len())
        }
        PhysicalPlan::CteScan { .. } => "computed once".into(),
        PhysicalPlan::Filter { predicate, .. } => predicate.to_string(),
        PhysicalPlan::Project { exprs, .. } => list(exprs),
        PhysicalPlan::Unnest { functions, .. } => list(functions),
        PhysicalPlan::LateralJoin { kind, .. } => {
            format!("{} (per distinct left row)", join_kind(*kind))
        }
        PhysicalPlan::HashAggregate {
            groups, aggregates, ..
        } => format!(
            "groups=[{}] aggregates=[{}]",
            list(groups),
            aggregates_text(aggregates)
        ),
        PhysicalPlan::Sort { keys: k, .. } => keys(k),
        PhysicalPlan::TopN {
            keys: k,
            limit,
            offset,
            ..
        } => format!("{} LIMIT {limit} OFFSET {offset}", keys(k)),
        PhysicalPlan::Limit { limit, offset, .. } => format!(
            "{} OFFSET {offset}",
            limit.map_or("ALL".to_string(), |l| l.to_string())
        ),
        PhysicalPlan::HashJoin {
            kind,
            left_keys,
            right_keys,
            filter,
            build_left,
            ..
        } => {
            let mut s = format!(
                "{} on=[{}] build={}",
                join_kind(*kind),
                list(
                    left_keys
                        .iter()
                        .zip(right_keys)
                        .map(|(a, b)| format!("{a} = {b}"))
                ),
                if *build_left { "left" } else { "right" }
            );
            if let Some(f) = filter {
                let _ = write!(s, " filter={f}");
            }
            s
        }
        PhysicalPlan::NestedLoopJoin { kind, filter, .. } => match filter {
            Some(f) => format!("{} filter={f}", join_kind(*kind)),
            None => join_kind(*kind).to_string(),
        },
        PhysicalPlan::RecursiveCte { all, .. } => {
            format!("UNION{}", if *all { " ALL" } else { "" })
        }
        PhysicalPlan::RecursiveScan { .. } => "the last round's rows".into(),
        PhysicalPlan::Window { functions, .. } => {
            list(functions.iter().map(stride_sql::plan::WindowExpr::describe))
        }
        PhysicalPlan::SetOp { kind, all, .. } => set_op_text(*kind, *all),
    }
}

/// The plan as an indented tree, with each node's counters when it ran.
pub fn text(plan: &PhysicalPlan, profile: Option<&Profile>, totals: Option<&Totals>) -> String {
    let mut out = String::new();
    let total_secs = totals.map_or(0.0, |t| t.wall.as_secs_f64());
    if let Some(t) = totals {
        let cpu: f64 = profile.map_or(0.0, |p| {
            let mut sum = 0.0;
            plan.visit(&mut |n| sum += p.get(n).map_or(0.0, |s| s.seconds()));
            sum
        });
        let _ = writeln!(
            out,
            "Total Time: {:.4}s (CPU time: {:.4}s; operators' time on all threads: {cpu:.4}s; peak memory: {}; threads: {}; rows returned: {})",
            total_secs,
            t.cpu.as_secs_f64(),
            format_bytes(profile.map_or(0, |p| p.memory.peak())),
            t.threads,
            t.rows
        );
    }
    render_text(
        plan,
        profile,
        &mut Estimates::default(),
        total_secs,
        0,
        &mut out,
    );
    out
}

fn render_text(
    plan: &PhysicalPlan,
    profile: Option<&Profile>,
    estimates: &mut Estimates,
    total: f64,
    depth: usize,
    out: &mut String,
) {
    let detail = detail(plan);
    let _ = write!(
        out,
        "{}{}{}{detail}  (~{} rows",
        "  ".repeat(depth),
        plan.name(),
        if detail.is_empty() { "" } else { " " },
        estimates.rows(plan).round() as u64
    );
    if let Some(s) = profile.and_then(|p| p.get(plan)) {
        let secs = s.seconds();
        let share = if total > 0.0 {
            100.0 * secs / total
        } else {
            0.0
        };
        let _ = write!(out, "; rows={} time={secs:.4}s {share:.1}%", s.rows());
        let (read, skipped) = (
            s.groups_read.load(std::sync::atomic::Ordering::Relaxed),
            s.groups_skipped.load(std::sync::atomic::Ordering::Relaxed),
        );
        if matches!(
            plan,
            PhysicalPlan::Scan { .. } | PhysicalPlan::ColumnarScan { .. }
        ) {
            let _ = write!(out, " row_groups: {read} read, {skipped} skipped");
        }
        let peak = s.memory.peak();
        if peak > 0 {
            let _ = write!(out, " memory={}", format_bytes(peak));
        }
    } else if let Some(rows) = profile.and_then(|p| passed_on(plan, p)) {
        let _ = write!(out, "; rows={rows}, only renames columns");
    } else if profile.is_some() {
        out.push_str("; not run");
    }
    out.push_str(")\n");
    for c in plan.children() {
        render_text(c, profile, estimates, total, depth + 1, out);
    }
}

/// The rows of a node that ran as part of its input (a projection that only renames
/// columns): its input's.
fn passed_on(plan: &PhysicalPlan, profile: &Profile) -> Option<u64> {
    match plan {
        PhysicalPlan::Project { input, .. } => profile
            .get(input)
            .map(|s| s.rows())
            .or_else(|| passed_on(input, profile)),
        _ => None,
    }
}

/// The plan as JSON: `{"name", "detail", "children": [...]}` per node, with `rows`,
/// `seconds` (and for scans `row_groups_read` / `row_groups_skipped`) when it ran,
/// under totals when the query ran.
pub fn json(plan: &PhysicalPlan, profile: Option<&Profile>, totals: Option<&Totals>) -> String {
    let mut out = String::new();
    match totals {
        Some(t) => {
            let _ = write!(
                out,
                "{{\"total_seconds\": {}, \"cpu_seconds\": {}, \"peak_memory_bytes\": {}, \"rows_returned\": {}, \"threads\": {}, \"plan\": ",
                t.wall.as_secs_f64(),
                t.cpu.as_secs_f64(),
                profile.map_or(0, |p| p.memory.peak()),
                t.rows,
                t.threads
            );
            render_json(plan, profile, &mut Estimates::default(), &mut out);
            out.push('}');
        }
        None => render_json(plan, profile, &mut Estimates::default(), &mut out),
    }
    out
}

fn render_json(
    plan: &PhysicalPlan,
    profile: Option<&Profile>,
    estimates: &mut Estimates,
    out: &mut String,
) {
    let _ = write!(
        out,
        "{{\"name\": {}, \"detail\": {}, \"estimated_rows\": {}",
        quote(plan.name()),
        quote(&detail(plan)),
        estimates.rows(plan).round() as u64
    );
    if let Some(s) = profile.and_then(|p| p.get(plan)) {
        let _ = write!(
            out,
            ", \"rows\": {}, \"seconds\": {}, \"peak_memory_bytes\": {}",
            s.rows(),
            s.seconds(),
            s.memory.peak()
        );
        if matches!(
            plan,
            PhysicalPlan::Scan { .. } | PhysicalPlan::ColumnarScan { .. }
        ) {
            let _ = write!(
                out,
                ", \"row_groups_read\": {}, \"row_groups_skipped\": {}",
                s.groups_read.load(std::sync::atomic::Ordering::Relaxed),
                s.groups_skipped.load(std::sync::atomic::Ordering::Relaxed)
            );
        }
    } else if let Some(rows) = profile.and_then(|p| passed_on(plan, p)) {
        let _ = write!(out, ", \"rows\": {rows}, \"seconds\": 0");
    }
    out.push_str(", \"children\": [");
    for (i, c) in plan.children().into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        render_json(c, profile, estimates, out);
    }
    out.push_str("]}");
}

/// `s` as a JSON string.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for ch in s.chars() {
        match ch {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(q, "\\u{:04x}", c as u32);
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}
