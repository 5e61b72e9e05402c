//! Binding what reads the system catalog (`crate::system`): system tables in FROM,
//! the casts `::regclass`, `::regtype`, `::regnamespace`, `::regrole`, `::oid`, and the
//! functions that look objects up (`pg_table_is_visible`, `pg_get_viewdef`,
//! `pg_get_indexdef`, `pg_get_constraintdef`, `pg_get_userbyid`, `to_regclass`,
//! `obj_description`, ...). All of them read one [`Snapshot`] per statement, taken
//! the first time the statement needs it, and bind to ordinary expressions over it:
//! a lookup by OID or name becomes a CASE over the snapshot's objects, a membership
//! test an IN list, and a constant argument folds to its answer at once.

use super::expr::{call, cast_expr, compare};
use super::fold::fold_constant;
use super::Binder;
use crate::catalog::Catalog;
use crate::plan::{Expr, Field, LogicalPlan};
use crate::system::pg_catalog as defs;
use crate::system::pg_proc;
use crate::system::snapshot::*;
use crate::system::{self, SystemTable};
use std::sync::Arc;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_functions::pg_types;

/// The `reg*` types: casts to them look objects up by name or OID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegType {
    Class,
    Type,
    Namespace,
    Role,
    Oid,
}

impl RegType {
    pub fn name(self) -> &'static str {
        match self {
            RegType::Class => "regclass",
            RegType::Type => "regtype",
            RegType::Namespace => "regnamespace",
            RegType::Role => "regrole",
            RegType::Oid => "oid",
        }
    }

    /// The reg type a type name (`regclass`, `pg_catalog.regclass`, `oid`) names.
    pub fn from_name(name: &str) -> Option<RegType> {
        let n = name.to_ascii_lowercase();
        let n = n.strip_prefix("pg_catalog.").unwrap_or(&n);
        Some(match n {
            "regclass" => RegType::Class,
            "regtype" => RegType::Type,
            "regnamespace" => RegType::Namespace,
            "regrole" => RegType::Role,
            "oid" => RegType::Oid,
            _ => return None,
        })
    }
}

fn varchar(s: impl Into<String>) -> Expr {
    Expr::Literal {
        value: ScalarValue::Varchar(s.into()),
        ty: DataType::Varchar,
    }
}

fn oid_literal(v: i64) -> Expr {
    Expr::Literal {
        value: ScalarValue::BigInt(v),
        ty: DataType::BigInt,
    }
}

fn null_of(ty: DataType) -> Expr {
    Expr::Literal {
        value: ScalarValue::Null,
        ty,
    }
}

/// `CASE WHEN key = k1 THEN v1 ... ELSE default END`, folded when `key` is constant.
fn lookup(key: Expr, pairs: Vec<(Expr, Expr)>, default: Expr, ty: DataType) -> Result<Expr> {
    let mut branches = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        branches.push((compare("=", key.clone(), k)?, cast_expr(v, &ty)?));
    }
    let e = if branches.is_empty() {
        cast_expr(default, &ty)?
    } else {
        Expr::Case {
            branches,
            else_expr: Box::new(cast_expr(default, &ty)?),
            ty: ty.clone(),
        }
    };
    fold(e)
}

/// Folds an expression whose inputs are all constants.
fn fold(e: Expr) -> Result<Expr> {
    if e.any(&mut |x| {
        matches!(
            x,
            Expr::Column { .. } | Expr::OuterColumn { .. } | Expr::Subquery(_)
        )
    }) {
        return Ok(e);
    }
    Ok(match fold_constant(&e)? {
        Some(value) => Expr::Literal {
            value,
            ty: e.data_type(),
        },
        None => e,
    })
}

/// An OID argument: integers as they are, text holding digits (`'16384'`, as psql
/// sends them) read as a number, other text as a relation name.
fn oid_arg(e: Expr, snap: &Snapshot) -> Result<Expr> {
    if e.data_type() != DataType::Varchar {
        return cast_expr(e, &DataType::BigInt);
    }
    match fold_constant(&e)? {
        Some(ScalarValue::Varchar(s)) => Ok(oid_literal(relation_oid(&s, snap)?)),
        Some(_) => Ok(null_of(DataType::BigInt)),
        None => cast_expr(e, &DataType::BigInt),
    }
}

/// `'name'::regclass` of a constant: digits are an OID, anything else a name that
/// must exist.
fn relation_oid(text: &str, snap: &Snapshot) -> Result<i64> {
    let t = text.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return t
            .parse()
            .map_err(|_| Error::invalid_input(format!("invalid OID \"{t}\"")));
    }
    snap.relation_by_name(t)
        .map(|r| r.oid)
        .ok_or_else(|| Error::catalog(format!("relation \"{t}\" does not exist")))
}

impl<'a> Binder<'a> {
    /// The statement's snapshot of the catalog, taken on first use. Views are bound
    /// to learn their columns' types; a view whose query no longer binds is listed
    /// without columns.
    pub(super) fn system_snapshot(&mut self) -> Result<Arc<Snapshot>> {
        if let Some(s) = &self.system {
            return Ok(s.clone());
        }
        let outer = self.building_system;
        self.building_system = true;
        let snap = self.take_snapshot(outer);
        self.building_system = outer;
        let snap = Arc::new(snap?);
        if !outer {
            self.system = Some(snap.clone());
        }
        Ok(snap)
    }

    /// `nested`: taken while another snapshot is being taken (a view reads the
    /// catalog); views are then listed without columns instead of recursing.
    fn take_snapshot(&mut self, nested: bool) -> Result<Snapshot> {
        let mut relations = Vec::new();
        for t in system::tables() {
            let kind = if t.namespace == INFORMATION_SCHEMA_OID {
                RelKind::View
            } else {
                RelKind::Table
            };
            let columns = t
                .columns
                .iter()
                .map(|(n, ty)| Column::new(*n, ty.data_type()))
                .collect();
            relations.push(Relation {
                system: true,
                ..Relation::new(
                    system::table_oid(t),
                    t.name.to_string(),
                    t.namespace,
                    kind,
                    columns,
                )
            });
        }
        let current = self.catalog.clone();
        let mine = self.user_relations(&current, nested);
        relations.extend(mine.iter().cloned());
        let mut databases = Vec::new();
        for (oid, d) in self.catalog.databases().into_iter().enumerate() {
            let relations = if d.name.eq_ignore_ascii_case(&current.database_name()) {
                mine.clone()
            } else {
                match self.catalog.database(&d.name) {
                    Some(c) => self.user_relations(&c, nested),
                    None => continue,
                }
            };
            databases.push(DatabaseObjects {
                name: d.name,
                oid: oid as i64,
                temporary: d.temporary,
                relations,
            });
        }
        if databases.is_empty() {
            databases.push(DatabaseObjects {
                name: current.database_name(),
                oid: DATABASE_OID,
                temporary: false,
                relations: mine,
            });
        }
        let defaults = stride_common::Settings::default();
        let mut settings = Vec::new();
        let names = stride_common::settings::SETTING_NAMES
            .iter()
            .copied()
            .chain(
                stride_common::settings::CLIENT_PARAMETERS
                    .iter()
                    .map(|(n, _)| *n),
            );
        for name in names {
            settings.push(SettingRow {
                name: name.to_string(),
                value: self.settings.get(name)?.to_string(),
                default: defaults.get(name)?.to_string(),
            });
        }
        Ok(Snapshot {
            database: self.catalog.database_name(),
            relations,
            settings,
            databases,
        })
    }

    /// The tables, views and indexes of one database of the session, as relations of
    /// the schema main. A view is bound where its names are looked up
    /// ([`Binder::view_home`]) to learn its columns; `nested`: not at all.
    fn user_relations(&mut self, catalog: &Arc<dyn Catalog + 'a>, nested: bool) -> Vec<Relation> {
        let mut relations = Vec::new();
        let user = |id: u64| USER_OID_BASE + id as i64;
        let mut tables = catalog.tables();
        tables.sort_by_key(|(id, _)| *id);
        for (id, schema) in &tables {
            let columns = schema
                .columns
                .iter()
                .map(|c| Column {
                    not_null: c.not_null,
                    default: c
                        .default
                        .as_ref()
                        .map(sql_literal)
                        .or_else(|| c.default_expr.clone()),
                    duckdb_default: duckdb_default(c),
                    ..Column::new(c.name.clone(), c.ty.clone())
                })
                .collect();
            let mut table = Relation {
                rows: Some(catalog.row_count(*id)),
                bytes: Some(catalog.table_bytes(*id)),
                unique_keys: schema
                    .unique_keys
                    .iter()
                    .map(|k| k.iter().map(|&c| c as i16 + 1).collect())
                    .collect(),
                primary_key: schema.primary_key,
                ..Relation::new(
                    user(*id),
                    schema.name.clone(),
                    MAIN_NAMESPACE_OID,
                    RelKind::Table,
                    columns,
                )
            };
            let checks: Vec<(Option<String>, String)> = schema
                .checks
                .iter()
                .map(|c| (c.name.clone(), c.expr.clone()))
                .collect();
            table.checks = table.name_checks(&checks);
            // PostgreSQL makes an index for each key, named as its constraint.
            let keys: Vec<Relation> = table
                .constraints()
                .into_iter()
                .filter(|c| !c.columns.is_empty())
                .enumerate()
                .map(|(k, c)| {
                    let columns = c
                        .columns
                        .iter()
                        .filter_map(|&a| table.columns.get((a - 1) as usize))
                        .map(|col| Column::new(col.name.clone(), col.ty.clone()))
                        .collect();
                    Relation {
                        index: Some(IndexDef {
                            table: table.oid,
                            columns: c.columns,
                            unique: true,
                            key: Some(k),
                            primary: c.kind == "p",
                        }),
                        ..Relation::new(
                            c.index,
                            c.name,
                            MAIN_NAMESPACE_OID,
                            RelKind::Index,
                            columns,
                        )
                    }
                })
                .collect();
            relations.push(table);
            relations.extend(keys);
        }
        for q in catalog.sequences() {
            // A PostgreSQL sequence reads as one row of these.
            let columns = [
                ("last_value", DataType::BigInt),
                ("log_cnt", DataType::BigInt),
                ("is_called", DataType::Boolean),
            ]
            .into_iter()
            .map(|(name, ty)| Column {
                not_null: true,
                ..Column::new(name, ty)
            })
            .collect();
            let (oid, name) = (user(q.id), q.name.clone());
            relations.push(Relation {
                sequence: Some(q),
                ..Relation::new(oid, name, MAIN_NAMESPACE_OID, RelKind::Sequence, columns)
            });
        }
        let mut views = catalog.views();
        views.sort_by_key(|v| v.id);
        for v in views {
            let columns = if nested {
                Vec::new()
            } else {
                let home = self.view_home(catalog.clone());
                let outer = std::mem::replace(&mut self.catalog, home);
                let plan = self.bind_view(&v.name, &v.sql);
                self.catalog = outer;
                match plan {
                    Ok(plan) => plan
                        .schema()
                        .iter()
                        .enumerate()
                        .map(|(i, f)| {
                            let name = v.columns.get(i).cloned().unwrap_or_else(|| f.name.clone());
                            Column::new(name, f.ty.clone())
                        })
                        .collect(),
                    Err(_) => Vec::new(),
                }
            };
            relations.push(Relation {
                view_sql: Some(v.sql),
                ..Relation::new(
                    user(v.id),
                    v.name,
                    MAIN_NAMESPACE_OID,
                    RelKind::View,
                    columns,
                )
            });
        }
        let mut indexes = catalog.indexes();
        indexes.sort_by_key(|i| i.id);
        for ix in indexes {
            let Some((_, schema)) = tables.iter().find(|(id, _)| *id == ix.table_id) else {
                continue;
            };
            let columns = ix
                .columns
                .iter()
                .filter_map(|&c| schema.columns.get(c))
                .map(|c| Column::new(c.name.clone(), c.ty.clone()))
                .collect();
            relations.push(Relation {
                index: Some(IndexDef {
                    table: user(ix.table_id),
                    columns: ix.columns.iter().map(|&c| c as i16 + 1).collect(),
                    unique: ix.unique,
                    key: None,
                    primary: false,
                }),
                ..Relation::new(
                    user(ix.id),
                    ix.name,
                    MAIN_NAMESPACE_OID,
                    RelKind::Index,
                    columns,
                )
            });
        }
        relations
    }

    /// A system table as VALUES rows.
    pub(super) fn bind_system_table(&mut self, t: &SystemTable) -> Result<LogicalPlan> {
        let snap = self.system_snapshot()?;
        let schema: Vec<Field> = t
            .columns
            .iter()
            .map(|(n, ty)| Field::new(*n, ty.data_type()))
            .collect();
        Ok(super::constant_rows(schema, (t.rows)(&snap)))
    }

    /// `e::regclass` and the other reg types.
    pub(super) fn bind_reg_cast(&mut self, e: Expr, to: RegType) -> Result<Expr> {
        let text_input = matches!(e.data_type(), DataType::Varchar);
        match (to, text_input) {
            (RegType::Oid, _) => cast_expr(e, &DataType::BigInt),
            (RegType::Class, true) => {
                let snap = self.system_snapshot()?;
                if let Some(v) = fold_constant(&e)? {
                    return Ok(match v {
                        ScalarValue::Varchar(s) => oid_literal(relation_oid(&s, &snap)?),
                        _ => null_of(DataType::BigInt),
                    });
                }
                self.catalog_function("to_regclass", vec![e])
            }
            (RegType::Class, false) => {
                let snap = self.system_snapshot()?;
                let key = cast_expr(e, &DataType::BigInt)?;
                let pairs = snap
                    .relations
                    .iter()
                    .map(|r| (oid_literal(r.oid), varchar(snap.regclass_name(r))))
                    .collect();
                let default = cast_expr(key.clone(), &DataType::Varchar)?;
                lookup(key, pairs, default, DataType::Varchar)
            }
            (RegType::Type, true) => match fold_constant(&e)? {
                Some(ScalarValue::Varchar(s)) => pg_types::oid_by_name(&s)
                    .map(|o| oid_literal(o as i64))
                    .ok_or_else(|| {
                        Error::catalog(format!("type \"{s}\" does not exist"))
                            .with_sqlstate(stride_common::error::sqlstate::UNDEFINED_OBJECT)
                    }),
                Some(_) => Ok(null_of(DataType::BigInt)),
                None => call("to_regtype", vec![e]),
            },
            (RegType::Type, false) => fold(call(
                "format_type",
                vec![cast_expr(e, &DataType::BigInt)?, null_of(DataType::Integer)],
            )?),
            (RegType::Namespace, true) => {
                let pairs = NAMESPACES
                    .iter()
                    .map(|n| (varchar(n.name), oid_literal(n.oid)))
                    .collect();
                let r = lookup(
                    e.clone(),
                    pairs,
                    null_of(DataType::BigInt),
                    DataType::BigInt,
                )?;
                self.require_found(r, &e, "schema")
            }
            (RegType::Namespace, false) => {
                let key = cast_expr(e, &DataType::BigInt)?;
                let pairs = NAMESPACES
                    .iter()
                    .map(|n| (oid_literal(n.oid), varchar(n.name)))
                    .collect();
                let default = cast_expr(key.clone(), &DataType::Varchar)?;
                lookup(key, pairs, default, DataType::Varchar)
            }
            (RegType::Role, true) => {
                let pairs = vec![(varchar(OWNER_NAME), oid_literal(OWNER_OID))];
                let r = lookup(
                    e.clone(),
                    pairs,
                    null_of(DataType::BigInt),
                    DataType::BigInt,
                )?;
                self.require_found(r, &e, "role")
            }
            (RegType::Role, false) => {
                let key = cast_expr(e, &DataType::BigInt)?;
                let default = cast_expr(key.clone(), &DataType::Varchar)?;
                lookup(
                    key,
                    vec![(oid_literal(OWNER_OID), varchar(OWNER_NAME))],
                    default,
                    DataType::Varchar,
                )
            }
        }
    }

    /// The OID a `value::regX` cast (the AST `e`) stands for: names are looked up, OIDs
    /// kept as they are.
    pub(super) fn bind_reg_oid(
        &mut self,
        e: &sqlparser::ast::Expr,
        reg: RegType,
        ctx: &mut super::expr::ExprCtx,
    ) -> Result<Expr> {
        let mut e = e;
        while let sqlparser::ast::Expr::Nested(inner) = e {
            e = inner;
        }
        let sqlparser::ast::Expr::Cast { expr, .. } = e else {
            return Err(Error::internal("a reg cast was expected"));
        };
        let inner = self.bind_expr(expr, ctx)?;
        if inner.data_type() == DataType::Varchar {
            self.bind_reg_cast(inner, reg)
        } else {
            cast_expr(inner, &DataType::BigInt)
        }
    }

    /// `oids::regtype[]`: a list of type OIDs as the types' names; `::oid[]` keeps the
    /// numbers.
    pub(super) fn bind_reg_list_cast(&mut self, e: Expr, to: RegType) -> Result<Expr> {
        let oids = DataType::List(Box::new(DataType::BigInt));
        let e = cast_expr(e, &oids)?;
        match to {
            RegType::Oid => Ok(e),
            RegType::Type => fold(Expr::Function {
                func: stride_functions::BoundFunction::new(
                    stride_functions::ScalarFunction::FormatTypes,
                    vec![oids],
                    DataType::List(Box::new(DataType::Varchar)),
                ),
                args: vec![e],
            }),
            other => Err(Error::not_supported(format!(
                "casting a list to {}[] is not supported; cast each element instead (unnest, then ::{})",
                other.name(),
                other.name()
            ))),
        }
    }

    /// A constant name that looked up nothing is an error, as in PostgreSQL.
    fn require_found(&self, result: Expr, input: &Expr, what: &str) -> Result<Expr> {
        if let (Expr::Literal { value, .. }, Some(name)) = (&result, fold_constant(input)?) {
            if value.is_null() && !name.is_null() {
                let e = Error::catalog(format!("{what} \"{name}\" does not exist"));
                use stride_common::error::sqlstate;
                // undefined_table for relations (the kind's code)
                return Err(match what {
                    "relation" => e,
                    "schema" => e.with_sqlstate(sqlstate::INVALID_SCHEMA_NAME),
                    _ => e.with_sqlstate(sqlstate::UNDEFINED_OBJECT),
                });
            }
        }
        Ok(result)
    }

    /// Functions that read the catalog (see [`is_catalog_function`]).
    pub(super) fn catalog_function(&mut self, name: &str, mut args: Vec<Expr>) -> Result<Expr> {
        let snap = self.system_snapshot()?;
        let arity = |range: std::ops::RangeInclusive<usize>, n: usize| -> Result<()> {
            if range.contains(&n) {
                Ok(())
            } else {
                Err(Error::binder(format!(
                    "{name}() takes {} arguments, got {n}",
                    if range.start() == range.end() {
                        range.start().to_string()
                    } else {
                        format!("{} to {}", range.start(), range.end())
                    }
                )))
            }
        };
        let text = DataType::Varchar;
        match name {
            "pg_table_is_visible" => {
                arity(1..=1, args.len())?;
                let key = oid_arg(args.remove(0), &snap)?;
                let visible = snap
                    .relations
                    .iter()
                    .filter(|r| r.namespace != INFORMATION_SCHEMA_OID)
                    .map(|r| oid_literal(r.oid))
                    .collect();
                fold(Expr::in_list(key, visible, false))
            }
            "pg_type_is_visible" => {
                arity(1..=1, args.len())?;
                let key = oid_arg(args.remove(0), &snap)?;
                let list = pg_types::PG_TYPES
                    .iter()
                    .map(|t| oid_literal(t.oid as i64))
                    .collect();
                fold(Expr::in_list(key, list, false))
            }
            "pg_get_userbyid" => {
                arity(1..=1, args.len())?;
                let key = cast_expr(args.remove(0), &DataType::BigInt)?;
                // PostgreSQL's answer for an OID that names no role.
                let unknown = call(
                    "||",
                    vec![
                        call(
                            "||",
                            vec![varchar("unknown (OID="), cast_expr(key.clone(), &text)?],
                        )?,
                        varchar(")"),
                    ],
                )?;
                lookup(
                    key,
                    vec![(oid_literal(OWNER_OID), varchar(OWNER_NAME))],
                    unknown,
                    text,
                )
            }
            "pg_get_viewdef" => {
                arity(1..=2, args.len())?;
                let key = oid_arg(args.remove(0), &snap)?;
                let pairs = snap
                    .relations
                    .iter()
                    .filter_map(|r| Some((oid_literal(r.oid), varchar(r.view_sql.clone()?))))
                    .collect();
                lookup(key, pairs, null_of(text.clone()), text)
            }
            "pg_get_indexdef" => {
                arity(1..=3, args.len())?;
                let column = if args.len() > 1 {
                    Some(cast_expr(args.remove(1), &DataType::BigInt)?)
                } else {
                    None
                };
                let key = oid_arg(args.remove(0), &snap)?;
                let mut branches = Vec::new();
                for r in &snap.relations {
                    let Some(def) = defs::index_definition(&snap, r) else {
                        continue;
                    };
                    let is_index = compare("=", key.clone(), oid_literal(r.oid))?;
                    match &column {
                        None => branches.push((is_index, varchar(def))),
                        Some(col) => {
                            // Column 0: the whole definition; column k: its k-th column.
                            let whole = compare("=", col.clone(), oid_literal(0))?;
                            branches.push((
                                Expr::And(Box::new(is_index.clone()), Box::new(whole)),
                                varchar(def),
                            ));
                            for (k, c) in r.columns.iter().enumerate() {
                                let at = compare("=", col.clone(), oid_literal(k as i64 + 1))?;
                                branches.push((
                                    Expr::And(Box::new(is_index.clone()), Box::new(at)),
                                    varchar(quote_if_needed(&c.name)),
                                ));
                            }
                        }
                    }
                }
                case(branches, null_of(text.clone()), text)
            }
            "pg_get_constraintdef" => {
                arity(1..=2, args.len())?;
                let key = oid_arg(args.remove(0), &snap)?;
                let mut pairs = Vec::new();
                for r in &snap.relations {
                    for c in r.constraints() {
                        pairs.push((oid_literal(c.oid), varchar(c.definition)));
                    }
                }
                lookup(key, pairs, null_of(text.clone()), text)
            }
            "pg_relation_is_publishable" => {
                // PostgreSQL: true for the user's ordinary tables, false for other
                // relations, NULL for an OID that names none.
                arity(1..=1, args.len())?;
                let key = oid_arg(args.remove(0), &snap)?;
                let pairs = snap
                    .relations
                    .iter()
                    .map(|r| {
                        let publishable = r.kind == RelKind::Table && r.is_user();
                        (
                            oid_literal(r.oid),
                            Expr::literal(ScalarValue::Boolean(publishable)),
                        )
                    })
                    .collect();
                lookup(key, pairs, null_of(DataType::Boolean), DataType::Boolean)
            }
            "to_regclass" | "to_regnamespace" => {
                arity(1..=1, args.len())?;
                let key = cast_expr(args.remove(0), &text)?;
                let mut pairs = Vec::new();
                if name == "to_regclass" {
                    // Unqualified names find main's relations before pg_catalog's.
                    let mut ordered: Vec<&Relation> = snap.relations.iter().collect();
                    ordered.sort_by_key(|r| r.namespace != MAIN_NAMESPACE_OID);
                    for r in ordered {
                        let schema = snap.namespace_name(r.namespace).unwrap_or("");
                        pairs.push((varchar(format!("{schema}.{}", r.name)), oid_literal(r.oid)));
                        if r.namespace != INFORMATION_SCHEMA_OID {
                            pairs.push((varchar(r.name.clone()), oid_literal(r.oid)));
                        }
                    }
                } else {
                    for n in NAMESPACES {
                        pairs.push((varchar(n.name), oid_literal(n.oid)));
                    }
                }
                lookup(key, pairs, null_of(DataType::BigInt), DataType::BigInt)
            }
            // stride has no COMMENT ON: pg_description is empty, so there is never a
            // description to return.
            "obj_description" | "shobj_description" => {
                arity(1..=2, args.len())?;
                Ok(null_of(text))
            }
            "col_description" => {
                arity(2..=2, args.len())?;
                Ok(null_of(text))
            }
            // No extended statistics, partitioned tables or tablespaces exist, and every
            // function is built in (language internal): none has a SQL body.
            "pg_get_statisticsobjdef_columns"
            | "pg_get_partkeydef"
            | "pg_tablespace_location"
            | "pg_get_function_sqlbody" => {
                arity(1..=1, args.len())?;
                Ok(null_of(text))
            }
            // The sequence a SERIAL or identity column draws from: stride has neither
            // (nor sequences OWNED BY a column), so no column has one.
            "pg_get_serial_sequence" => {
                arity(2..=2, args.len())?;
                Ok(null_of(text))
            }
            // Every function lives in pg_catalog, which is always searched.
            "pg_function_is_visible" => {
                arity(1..=1, args.len())?;
                let key = cast_expr(args.remove(0), &DataType::BigInt)?;
                let list = (0..pg_proc::procs().len())
                    .map(|i| oid_literal(pg_proc::proc_oid(i)))
                    .collect();
                fold(Expr::in_list(key, list, false))
            }
            "pg_get_function_arguments"
            | "pg_get_function_identity_arguments"
            | "pg_get_function_result" => {
                arity(1..=1, args.len())?;
                let key = cast_expr(args.remove(0), &DataType::BigInt)?;
                let pairs = pg_proc::procs()
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let v = if name == "pg_get_function_result" {
                            p.result_text()
                        } else {
                            p.arguments_text()
                        };
                        (oid_literal(pg_proc::proc_oid(i)), varchar(v))
                    })
                    .collect();
                lookup(key, pairs, null_of(text.clone()), text)
            }
            // Sizes in bytes: a table's stored values; indexes are declared only and
            // hold nothing; views and system tables store nothing either.
            "pg_table_size" | "pg_relation_size" | "pg_total_relation_size" | "pg_indexes_size" => {
                let range = if name == "pg_relation_size" {
                    1..=2
                } else {
                    1..=1
                };
                arity(range, args.len())?;
                let key = oid_arg(args.remove(0), &snap)?;
                let pairs = snap
                    .relations
                    .iter()
                    .map(|r| {
                        let bytes = match name {
                            "pg_indexes_size" => 0,
                            _ => r.bytes.unwrap_or(0),
                        };
                        (oid_literal(r.oid), oid_literal(bytes as i64))
                    })
                    .collect();
                lookup(key, pairs, null_of(DataType::BigInt), DataType::BigInt)
            }
            "pg_database_size" => {
                arity(1..=1, args.len())?;
                let total: usize = snap.relations.iter().filter_map(|r| r.bytes).sum();
                let arg = args.remove(0);
                let db = snap.database.as_str();
                match fold_constant(&arg)? {
                    Some(ScalarValue::Null) => return Ok(null_of(DataType::BigInt)),
                    Some(ScalarValue::Varchar(n)) if n != db => {
                        return Err(Error::catalog(format!("database \"{n}\" does not exist")))
                    }
                    Some(v) if v.as_i64().is_some_and(|o| o != DATABASE_OID) => {
                        return Err(Error::catalog(format!(
                            "database with OID {v} does not exist"
                        )))
                    }
                    _ => {}
                }
                let known = if arg.data_type() == DataType::Varchar {
                    compare("=", arg.clone(), varchar(db))?
                } else {
                    compare(
                        "=",
                        cast_expr(arg.clone(), &DataType::BigInt)?,
                        oid_literal(DATABASE_OID),
                    )?
                };
                case(
                    vec![(known, oid_literal(total as i64))],
                    null_of(DataType::BigInt),
                    DataType::BigInt,
                )
            }
            other => Err(Error::internal(format!("catalog function {other}"))),
        }
    }
}

/// Whether `name` is a function that reads the catalog.
pub(super) fn is_catalog_function(name: &str) -> bool {
    CATALOG_FUNCTIONS.contains(&name)
}

const CATALOG_FUNCTIONS: &[&str] = &[
    "pg_table_is_visible",
    "pg_type_is_visible",
    "pg_get_userbyid",
    "pg_get_viewdef",
    "pg_get_indexdef",
    "pg_get_constraintdef",
    "pg_relation_is_publishable",
    "to_regclass",
    "to_regnamespace",
    "obj_description",
    "col_description",
    "shobj_description",
    "pg_get_statisticsobjdef_columns",
    "pg_get_partkeydef",
    "pg_tablespace_location",
    "pg_get_serial_sequence",
    "pg_function_is_visible",
    "pg_get_function_arguments",
    "pg_get_function_identity_arguments",
    "pg_get_function_result",
    "pg_get_function_sqlbody",
    "pg_table_size",
    "pg_relation_size",
    "pg_total_relation_size",
    "pg_indexes_size",
    "pg_database_size",
];

/// The signatures of the functions above, as pg_proc lists them (OIDs are BIGINT in
/// stride, names VARCHAR).
pub(crate) fn catalog_function_signatures() -> &'static [(&'static str, &'static [u32], u32)] {
    use pg_types::{BOOL, INT4, INT8, VARCHAR};
    &[
        ("pg_table_is_visible", &[INT8], BOOL),
        ("pg_type_is_visible", &[INT8], BOOL),
        ("pg_get_userbyid", &[INT8], VARCHAR),
        ("pg_get_viewdef", &[INT8], VARCHAR),
        ("pg_get_viewdef", &[INT8, BOOL], VARCHAR),
        ("pg_get_indexdef", &[INT8], VARCHAR),
        ("pg_get_indexdef", &[INT8, INT4, BOOL], VARCHAR),
        ("pg_get_constraintdef", &[INT8], VARCHAR),
        ("pg_get_constraintdef", &[INT8, BOOL], VARCHAR),
        ("pg_relation_is_publishable", &[INT8], BOOL),
        ("to_regclass", &[VARCHAR], INT8),
        ("to_regnamespace", &[VARCHAR], INT8),
        ("obj_description", &[INT8], VARCHAR),
        ("obj_description", &[INT8, VARCHAR], VARCHAR),
        ("col_description", &[INT8, INT4], VARCHAR),
        ("shobj_description", &[INT8, VARCHAR], VARCHAR),
        ("pg_get_statisticsobjdef_columns", &[INT8], VARCHAR),
        ("pg_get_partkeydef", &[INT8], VARCHAR),
        ("pg_tablespace_location", &[INT8], VARCHAR),
        ("pg_get_serial_sequence", &[VARCHAR, VARCHAR], VARCHAR),
        ("pg_function_is_visible", &[INT8], BOOL),
        ("pg_get_function_arguments", &[INT8], VARCHAR),
        ("pg_get_function_identity_arguments", &[INT8], VARCHAR),
        ("pg_get_function_result", &[INT8], VARCHAR),
        ("pg_get_function_sqlbody", &[INT8], VARCHAR),
        ("pg_table_size", &[INT8], INT8),
        ("pg_relation_size", &[INT8], INT8),
        ("pg_relation_size", &[INT8, VARCHAR], INT8),
        ("pg_total_relation_size", &[INT8], INT8),
        ("pg_indexes_size", &[INT8], INT8),
        ("pg_database_size", &[VARCHAR], INT8),
        ("pg_database_size", &[INT8], INT8),
    ]
}

/// A searched CASE (NULL default), folded when constant.
fn case(branches: Vec<(Expr, Expr)>, default: Expr, ty: DataType) -> Result<Expr> {
    if branches.is_empty() {
        return Ok(default);
    }
    fold(Expr::Case {
        branches,
        else_expr: Box::new(default),
        ty,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pg_proc lists every catalog function, and only those.
    #[test]
    fn every_catalog_function_has_a_signature() {
        let mut listed: Vec<&str> = catalog_function_signatures()
            .iter()
            .map(|(n, _, _)| *n)
            .collect();
        listed.dedup();
        assert_eq!(listed, CATALOG_FUNCTIONS);
    }
}
