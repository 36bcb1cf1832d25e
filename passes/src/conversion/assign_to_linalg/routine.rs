//! A routine (a `func.func` of `ocannl_assign` ops on memrefs) as a
//! function on tensors: buffer arguments become tensor arguments, each op
//! gives the next value of the buffer it writes ([`Values`]), and the
//! function returns its results' last values followed by the last values
//! of the buffer arguments it writes, in argument order (a train step's
//! params and optimizer state, an init routine's params): tensors are
//! values, so what the loops update in place comes back as results. The
//! project's attributes (`ocannl.*` on the function and its arguments) are
//! dropped.

use melior::ir::{
    attribute::{ArrayAttribute, DictionaryAttribute},
    block::BlockLike,
    operation::OperationLike,
    Attribute, Identifier, OperationRef, RegionLike, Value, ValueLike,
};
use ocannl_mlir::{
    ir::{self, Graveyard},
    types, At, Builder,
};

use super::{generic, init, values::Values};
use crate::{framework::PassError, util::update_signature};

/// The prefix of the project's attributes and ops.
const OURS: &str = "ocannl";

fn is_ours(name: &str) -> bool {
    name.starts_with("ocannl_") || name.starts_with("ocannl.")
}

/// Why another op on buffers is an error.
const OTHER_OPS: &str =
    "ocannl-lower-to-linalg converts the ocannl_assign ops of a routine, whose buffers no other op may use";

/// Whether `op` is inside one of the project's ops (an `accum` body).
fn in_ours(op: OperationRef) -> bool {
    let mut cur = op.parent_operation();
    while let Some(p) = cur {
        if is_ours(&ir::name(&p)) {
            return true;
        }
        cur = p.parent_operation();
    }
    false
}

/// Whether a type is a buffer or one of the project's types.
fn needs_lowering(t: melior::ir::Type) -> bool {
    types::memref_dims(t).is_some()
        || types::dialect_namespace(t).is_some_and(|d| d.starts_with(OURS))
}

/// The checks before lowering a function: a declaration must not use
/// buffers, and the project's ops must be the statements of the entry
/// block (none inside another op's region). Returns the statements, the
/// ops of the entry block in order (empty for a declaration).
pub fn statements<'c, 'a>(
    func: OperationRef<'c, 'a>,
) -> Result<Vec<OperationRef<'c, 'a>>, PassError<'c>> {
    let body = func
        .region(0)
        .map_err(|e| PassError::at(func.location(), e.to_string()))?;
    let Some(entry) = body.first_block() else {
        if let Some(ft) = ir::function_type(func) {
            let types = (0..ft.input_count())
                .filter_map(|i| ft.input(i).ok())
                .chain((0..ft.result_count()).filter_map(|i| ft.result(i).ok()));
            for t in types {
                if needs_lowering(t) {
                    return Err(PassError::at(
                        func.location(),
                        format!("a function declaration with the type {t} has no linalg form; declare it on tensors"),
                    ));
                }
            }
        }
        return Ok(vec![]);
    };
    for op in ir::collect(func, |o| !is_ours(&ir::name(o))) {
        // Ops of other dialects must not touch buffers, wherever they are
        // (the statements of the entry block are checked when lowered).
        let name = ir::name(&op);
        if op.block() == Some(entry) || name == "func.func" || in_ours(op) {
            continue;
        }
        let touches = op
            .operands()
            .map(|v| v.r#type())
            .chain(op.results().map(|r| r.r#type()))
            .any(needs_lowering);
        if touches {
            return Err(PassError::at(
                op.location(),
                format!("'{name}' uses buffers and has no linalg form: {OTHER_OPS}"),
            ));
        }
    }
    for op in ir::collect(func, |o| is_ours(&ir::name(o))) {
        if op.block() != Some(entry) {
            return Err(PassError::at(
                op.location(),
                format!(
                    "'{}' inside the region of another op has no linalg form; ocannl-lower-to-linalg converts routines whose statements are the function's",
                    ir::name(&op)
                ),
            ));
        }
    }
    let mut ops = vec![];
    let mut op = entry.first_operation();
    while let Some(o) = op {
        ops.push(o);
        op = o.next_in_block();
    }
    Ok(ops)
}

/// Why a function could not be lowered: a message, at one of its
/// statements (by number) or at the function.
pub type Failure = (Option<usize>, String);

/// Lowers one function whose entry block holds `ops` ([`statements`]).
pub fn lower<'c, 'a>(
    ctx: &'c melior::Context,
    func: OperationRef<'c, 'a>,
    ops: &[OperationRef<'c, 'a>],
    named_ops: bool,
) -> Result<(), Failure> {
    let whole = |m: String| (None, m);
    let Some(entry) = func
        .region(0)
        .map_err(|e| whole(e.to_string()))?
        .first_block()
    else {
        strip_attributes(ctx, func);
        return Ok(());
    };
    let mut values = Values::default();
    let arg_builder = Builder::new(ctx, func.location());
    let mut args = vec![];
    for i in 0..entry.argument_count() {
        let arg: Value = entry.argument(i).map_err(|e| whole(e.to_string()))?.into();
        if types::memref_dims(arg.r#type()).is_some() {
            values.start(&arg_builder, arg, arg).map_err(whole)?;
            args.push(arg);
        } else if needs_lowering(arg.r#type()) {
            return Err(whole(format!(
                "argument #{i} has the type {}; run ocannl-infer-shapes and ocannl-lower-to-assign first (or the pipeline ocannl-to-linalg)",
                arg.r#type()
            )));
        }
    }
    let mut lowered = Graveyard::new();
    let mut returned: Option<(usize, Vec<Value<'c, 'a>>)> = None;
    for (k, &op) in ops.iter().enumerate() {
        let here = |m: String| (Some(k), m);
        let name = ir::name(&op);
        if let Some(kind) = name.strip_prefix("ocannl_assign.") {
            let e = Builder::new(ctx, op.location());
            let at = At::before(op).map_err(|e| here(e.to_string()))?;
            match kind {
                "node" => init::node(&e, at, &op, &mut values),
                "fill" => init::fill_op(&e, at, &op, &mut values),
                "literal" => init::literal(&e, at, &op, &mut values),
                "range" => init::cells(&e, at, &op, init::Cells::Range, &mut values),
                "uniform" | "normal" => init::cells(&e, at, &op, init::Cells::Random, &mut values),
                "accum_unop" | "accum_binop" | "accum_ternop" | "accum" => {
                    generic::lower(&e, at, &op, &mut values, named_ops)
                }
                other => Err(format!("'ocannl_assign.{other}' has no linalg form")),
            }
            .map_err(here)?;
            lowered.bury(op);
        } else if name == "func.return" {
            let mut results = vec![];
            for v in op.operands() {
                results.push(if types::memref_dims(v.r#type()).is_some() {
                    values.current(v).map_err(here)?.value
                } else {
                    v
                });
            }
            returned = Some((k, results));
        } else {
            let touches = op
                .operands()
                .map(|v| v.r#type())
                .chain(op.results().map(|r| r.r#type()))
                .any(needs_lowering);
            if touches {
                let hint = if name.starts_with("ocannl_shape.") {
                    "run ocannl-infer-shapes and ocannl-lower-to-assign first (or the pipeline ocannl-to-linalg)"
                } else {
                    OTHER_OPS
                };
                return Err(here(format!(
                    "'{name}' uses buffers and has no linalg form: {hint}"
                )));
            }
        }
    }
    if let Some((k, mut results)) = returned {
        let ret = ops[k];
        for &arg in &args {
            if values.written(arg) {
                results.push(values.current(arg).map_err(|m| (Some(k), m))?.value);
            }
        }
        let e = Builder::new(ctx, ret.location());
        e.op(
            At::before(ret).map_err(|e| (Some(k), e.to_string()))?,
            "func.return",
            &results,
            &[],
            &[],
        );
        lowered.bury(ret);
    }
    for &arg in &args {
        let ty = values.current(arg).map_err(whole)?.ty;
        arg.set_type(ty);
    }
    // SAFETY: the lowered ops were moved into the graveyard, in program
    // order; nothing else holds them, and the ops replacing them use only
    // the new values.
    unsafe { lowered.erase_all() }.map_err(whole)?;
    update_signature(func);
    strip_attributes(ctx, func);
    Ok(())
}

/// Drops the project's attributes of an op (`ocannl.*`), and those of a
/// function's arguments and results.
pub fn strip_attributes<'c>(ctx: &'c melior::Context, op: OperationRef<'c, '_>) {
    let names: Vec<String> = op
        .attributes()
        .filter_map(|(n, _)| n.as_string_ref().as_str().ok().map(str::to_string))
        .filter(|n| is_ours(n))
        .collect();
    for n in names {
        ir::remove_attribute(op, &n);
    }
    for list in ["arg_attrs", "res_attrs"] {
        let Some(attrs) = op
            .attribute(list)
            .ok()
            .and_then(|a| ArrayAttribute::try_from(a).ok())
        else {
            continue;
        };
        let dicts: Vec<Attribute> = (0..attrs.len())
            .filter_map(|i| attrs.element(i).ok())
            .map(|d| {
                let kept: Vec<(Identifier, Attribute)> = DictionaryAttribute::try_from(d)
                    .map(|d| {
                        (0..d.len())
                            .filter_map(|k| d.element(k).ok())
                            .filter(|(n, _)| !n.as_string_ref().as_str().is_ok_and(is_ours))
                            .collect()
                    })
                    .unwrap_or_default();
                DictionaryAttribute::new(ctx, &kept).into()
            })
            .collect();
        ir::remove_attribute(op, list);
        let all_empty = dicts
            .iter()
            .all(|d| DictionaryAttribute::try_from(*d).is_ok_and(|d| d.is_empty()));
        // Result attributes are per result: the results changed, so only
        // argument attributes are kept (when any remains).
        if list == "arg_attrs" && !all_empty {
            ir::set_attribute(op, list, ArrayAttribute::new(ctx, &dicts).into());
        }
    }
}
