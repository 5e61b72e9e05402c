//! Binding STRUCT expressions: the `{'a': 1, 'b': x}` literal, `(1, 'x')` and
//! `row(...)`, `struct_pack(a := 1)`, field access (`s.a`, `t.s.a`, `s['a']`,
//! `(expr).a`), and `struct_insert` / `struct_update` / `struct_concat`, which become
//! a `struct_pack` of the fields they keep and the values they add. `union_value(k :=
//! v)` (a cast into a union of one member) and a UNION's `u.name` are bound here too. The functions
//! themselves live in stride-functions (`scalar/structs.rs`).

use super::expr::{call, ident_name, ExprCtx};
use super::fold::fold_constant;
use super::Binder;
use crate::plan::Expr;
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_functions::scalar::structs::bind_pack;

/// The struct functions with named arguments, bound here rather than in the
/// scalar catalogue (`duckdb_functions()` lists them).
pub const STRUCT_FUNCTIONS: &[&str] = &[
    "struct_pack",
    "struct_insert",
    "struct_update",
    "struct_concat",
    "union_value",
];

/// The struct of `values` named `names` (empty names: unnamed fields), folded to a
/// literal when every value is constant.
pub fn pack(names: Vec<String>, values: Vec<Expr>) -> Result<Expr> {
    let types: Vec<DataType> = values.iter().map(Expr::data_type).collect();
    let func = bind_pack(&names, &types)?;
    let e = Expr::Function { func, args: values };
    Ok(match fold_constant(&e)? {
        Some(value) => Expr::Literal {
            value,
            ty: e.data_type(),
        },
        None => e,
    })
}

/// `x.name` or `x['name']` (or `x[2]` for unnamed fields) on a struct value.
pub fn field(x: Expr, key: Expr) -> Result<Expr> {
    call("struct_extract", vec![x, key])
}

/// `x.name`: a struct's field by name (or a MAP's value under the key `name`).
pub fn field_named(x: Expr, name: &str) -> Result<Expr> {
    let key = Expr::literal(ScalarValue::Varchar(name.to_string()));
    if matches!(x.data_type(), DataType::Map(..)) {
        return call("map_extract_value", vec![x, key]);
    }
    if matches!(x.data_type(), DataType::Union(_)) {
        return call("union_extract", vec![x, key]);
    }
    if !matches!(x.data_type(), DataType::Struct(_)) {
        return Err(Error::binder(format!(
            "cannot read field \"{name}\" of a value of type {}: only STRUCT values have fields",
            x.data_type()
        )));
    }
    field(x, key)
}

/// The fields of a struct-typed expression, each read out (`s.a, s.b, ...`).
fn fields_of(s: &Expr) -> Result<Vec<(String, Expr)>> {
    let DataType::Struct(fields) = s.data_type() else {
        return Err(Error::binder(format!(
            "expected a STRUCT argument, got a value of type {}",
            s.data_type()
        )));
    };
    fields
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let position = Expr::literal(ScalarValue::BigInt(i as i64 + 1));
            Ok((
                name.clone(),
                call("struct_extract_at", vec![s.clone(), position])?,
            ))
        })
        .collect()
}

/// The struct expression of `s.*` or `(expr).*` when `s` is not a FROM item's name
/// (a FROM item's `t.*` is its columns).
pub fn star_operand(
    kind: &ast::SelectItemQualifiedWildcardKind,
    scope: &super::scope::Scope,
) -> Option<ast::Expr> {
    match kind {
        ast::SelectItemQualifiedWildcardKind::Expr(e) => Some(e.clone()),
        ast::SelectItemQualifiedWildcardKind::ObjectName(n) => {
            let ids: Vec<ast::Ident> =
                n.0.iter()
                    .map(|p| p.as_ident().cloned())
                    .collect::<Option<_>>()?;
            if scope.has_qualifier(&ids.last()?.value) {
                return None;
            }
            Some(match ids.as_slice() {
                [one] => ast::Expr::Identifier(one.clone()),
                _ => ast::Expr::CompoundIdentifier(ids),
            })
        }
    }
}

/// The argument of `unnest(x)` (one positional argument).
pub fn unnest_operand(e: &ast::Expr) -> Option<&ast::Expr> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    if !f.name.to_string().eq_ignore_ascii_case("unnest") || f.over.is_some() {
        return None;
    }
    let ast::FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match list.args.as_slice() {
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x))] => Some(x),
        _ => None,
    }
}

/// A struct's fields as select-list columns (`s.*`, `unnest(s)`), each named by its
/// field; `EXCLUDE` / `REPLACE` / `RENAME` options are refused rather than ignored.
pub fn expand(s: Expr, opts: &ast::WildcardAdditionalOptions) -> Result<Vec<(Expr, String)>> {
    if opts.opt_exclude.is_some()
        || opts.opt_except.is_some()
        || opts.opt_replace.is_some()
        || opts.opt_rename.is_some()
        || opts.opt_ilike.is_some()
        || opts.opt_alias.is_some()
    {
        return Err(Error::not_supported(
            "EXCLUDE, REPLACE and RENAME on a STRUCT's fields (s.* EXCLUDE ...) are not supported yet",
        ));
    }
    let DataType::Struct(field_types) = s.data_type() else {
        return Err(Error::binder(format!(
            "cannot expand a value of type {} with .*: only STRUCT values have fields",
            s.data_type()
        )));
    };
    let mut out = Vec::with_capacity(field_types.len());
    for (i, (name, _)) in field_types.iter().enumerate() {
        let position = Expr::literal(ScalarValue::BigInt(i as i64 + 1));
        let label = if name.is_empty() {
            format!("v{}", i + 1)
        } else {
            name.clone()
        };
        out.push((call("struct_extract_at", vec![s.clone(), position])?, label));
    }
    Ok(out)
}

impl Binder<'_> {
    /// `{'a': 1, 'b': x}`.
    pub(super) fn bind_dictionary(
        &mut self,
        entries: &[ast::DictionaryField],
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        let mut names = Vec::with_capacity(entries.len());
        let mut values = Vec::with_capacity(entries.len());
        for e in entries {
            names.push(e.key.value.clone());
            values.push(self.bind_expr(&e.value, ctx)?);
        }
        pack(names, values)
    }

    /// `MAP {k: v, ...}`: `map([keys], [values])`, folded when constant.
    pub(super) fn bind_map_literal(&mut self, m: &ast::Map, ctx: &mut ExprCtx) -> Result<Expr> {
        let mut keys = Vec::with_capacity(m.entries.len());
        let mut values = Vec::with_capacity(m.entries.len());
        for e in &m.entries {
            keys.push(self.bind_expr(&e.key, ctx)?);
            values.push(self.bind_expr(&e.value, ctx)?);
        }
        let args = if keys.is_empty() {
            vec![]
        } else {
            vec![call("list_value", keys)?, call("list_value", values)?]
        };
        let e = call("map", args)?;
        Ok(match fold_constant(&e)? {
            Some(value) => Expr::Literal {
                value,
                ty: e.data_type(),
            },
            None => e,
        })
    }

    /// `struct_pack`, `struct_insert`, `struct_update` and `struct_concat`, whose
    /// arguments are named (`a := 1`); `None` for any other function.
    pub(super) fn bind_struct_call(
        &mut self,
        name: &str,
        args: &[ast::FunctionArg],
        ctx: &mut ExprCtx,
    ) -> Result<Option<Expr>> {
        if !STRUCT_FUNCTIONS.contains(&name) {
            return Ok(None);
        }
        // (name, value); an unnamed argument has no name
        let mut bound: Vec<(Option<String>, Expr)> = Vec::with_capacity(args.len());
        for a in args {
            let (n, e) = match a {
                ast::FunctionArg::Named {
                    name,
                    arg: ast::FunctionArgExpr::Expr(e),
                    operator:
                        ast::FunctionArgOperator::Assignment | ast::FunctionArgOperator::RightArrow,
                } => (Some(ident_name(name)), e),
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => (None, e),
                other => {
                    return Err(Error::binder(format!(
                        "unsupported argument {other} in call to {name}"
                    )))
                }
            };
            // struct_pack(x) names the field after the column x
            let n = n.or_else(|| match (name, e) {
                ("struct_pack", ast::Expr::Identifier(id)) => Some(ident_name(id)),
                ("struct_pack", ast::Expr::CompoundIdentifier(ids)) => ids.last().map(ident_name),
                _ => None,
            });
            bound.push((n, self.bind_expr(e, ctx)?));
        }
        let e = match name {
            // a cast of the value into the union of one member, named and typed by it
            "union_value" => {
                match &bound[..] {
                    [(Some(n), v)] => {
                        let t = match v.data_type() {
                            DataType::Null => DataType::Integer,
                            t => t,
                        };
                        let v = super::expr::cast_expr(v.clone(), &t)?;
                        super::expr::cast_expr(v, &DataType::Union(vec![(n.clone(), t)]))?
                    }
                    _ => return Err(Error::binder(
                        "union_value takes exactly one named argument, as in union_value(k := 1)",
                    )),
                }
            }
            "struct_pack" => {
                let mut names = Vec::new();
                let mut values = Vec::new();
                for (n, v) in bound {
                    let Some(n) = n else {
                        return Err(Error::binder(
                            "struct_pack needs named arguments, as in struct_pack(a := 1, b := 'x')",
                        ));
                    };
                    names.push(n);
                    values.push(v);
                }
                pack(names, values)?
            }
            "struct_concat" => {
                let mut names = Vec::new();
                let mut values = Vec::new();
                for (_, s) in bound {
                    for (n, v) in fields_of(&s)? {
                        if !n.is_empty()
                            && names.iter().any(|m: &String| m.eq_ignore_ascii_case(&n))
                        {
                            return Err(Error::invalid_input(format!(
                                "struct_concat: Arguments contain duplicate STRUCT entry \"{n}\""
                            )));
                        }
                        names.push(n);
                        values.push(v);
                    }
                }
                if names.is_empty() {
                    return Err(Error::binder("struct_concat needs at least one STRUCT"));
                }
                pack(names, values)?
            }
            // struct_insert(s, b := 2): s's fields, then the new ones;
            // struct_update(s, a := 2): the same, a field given again replaced in place
            _ => {
                let mut it = bound.into_iter();
                let Some((None, s)) = it.next() else {
                    return Err(Error::binder(format!(
                        "{name} needs a STRUCT and then named values, as in {name}(s, b := 2)"
                    )));
                };
                let mut fields = fields_of(&s)?;
                for (n, v) in it {
                    let Some(n) = n else {
                        return Err(Error::binder(format!(
                            "{name} needs named values after the STRUCT, as in {name}(s, b := 2)"
                        )));
                    };
                    match fields.iter().position(|(m, _)| m.eq_ignore_ascii_case(&n)) {
                        Some(i) if name == "struct_update" => fields[i].1 = v,
                        Some(_) => {
                            return Err(Error::binder(format!(
                                "Duplicate struct entry name \"{n}\""
                            )))
                        }
                        None => fields.push((n, v)),
                    }
                }
                let (names, values) = fields.into_iter().unzip();
                pack(names, values)?
            }
        };
        Ok(Some(e))
    }
}
