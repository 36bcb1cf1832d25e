//! `ocannl-autodiff`: adds, for every `ocannl_assign` routine whose
//! arguments include params (`{ocannl.param = NAME}`, made by
//! `ocannl-lower-to-assign{params-as-arguments=true}`) and whose first
//! result is a loss, a routine `@<f>_grad` that runs the forward
//! computation, then backprop (`ocannl_assign::autodiff`: gradient nodes
//! zeroed, the loss's gradient set to 1, each op's gradient rule over its
//! forward projections in reverse order), and returns the loss followed by
//! the gradient of every param, in argument order.

use melior::ir::{
    attribute::StringAttribute, block::BlockLike, operation::OperationLike, OperationRef,
    RegionLike, Value,
};
use ocannl_assign::autodiff::{backprop, Role};
use ocannl_assign_dialect::emit::{defining_name, Emitter, NodeInfo};
use ocannl_mlir::{
    ir::{self, Graveyard},
    types, At, Builder,
};

use crate::{
    framework::{Locate, Options, PassError, PassResult},
    util::update_signature,
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-autodiff",
    "OcannlAutodiff",
    "For every ocannl_assign routine with params ({ocannl.param} arguments) whose first result is a loss, add @<f>_grad: the forward computation, then backprop; it returns the loss and the gradient of each param",
    [("functions", TEXT, "", "Comma-separated names of the functions to differentiate (default: every function with params)")],
    r#"for every `ocannl_assign` routine with params (`{ocannl.param}` arguments) whose first result is a loss, adds `@<f>_grad`: the forward computation, then backprop as OCANNL generates it (each op's gradient rule over its forward projections, in reverse order; gradients of params and of what is computed from them; the loss's gradient set to 1); it returns the loss and the params' gradients"#
);

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    let only: Vec<&str> = options
        .text("functions")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let funcs = ir::ops_named(module, "func.func");
    let mut errors = vec![];
    for func in funcs {
        let name = func
            .attribute("sym_name")
            .ok()
            .and_then(ocannl_mlir::attr::string_value)
            .unwrap_or_default();
        if !only.is_empty() && !only.contains(&name.as_str()) {
            continue;
        }
        if let Err(e) = differentiate(func) {
            errors.extend(e.diagnostics);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(PassError::all(errors))
    }
}

/// The params of a function: its arguments marked `ocannl.param`.
fn params(func: OperationRef) -> Vec<(usize, String)> {
    let Some(entry) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return vec![];
    };
    (0..entry.argument_count())
        .filter_map(|i| {
            ir::arg_string_attr(func, i, ocannl_dialect_spec::abi::PARAM).map(|n| (i, n))
        })
        .collect()
}

fn differentiate<'c, 'a>(func: OperationRef<'c, 'a>) -> PassResult<'c> {
    let params = params(func);
    if params.is_empty() {
        return Ok(());
    }
    let loc = func.location();
    let ctx_ref = func.context();
    let ctx = ir::context(&ctx_ref);
    let name = func
        .attribute("sym_name")
        .ok()
        .and_then(ocannl_mlir::attr::string_value)
        .unwrap_or_default();
    let shape_ops = ir::collect(func, |o| {
        o.name()
            .as_string_ref()
            .as_str()
            .is_ok_and(|n| n.starts_with("ocannl_shape."))
    });
    if !shape_ops.is_empty() {
        return Err(PassError::at(
            loc,
            "ocannl-autodiff differentiates ocannl_assign routines: run ocannl-lower-to-assign first",
        ));
    }
    // The gradient routine starts as a copy of the forward one.
    let block = func
        .block()
        .ok_or("a function outside a module".to_string())
        .at(loc)?;
    let grad_fn = block.insert_operation_after(func, ir::clone(func));
    ir::set_attribute(
        grad_fn,
        "sym_name",
        StringAttribute::new(ctx, &format!("{name}_grad")).into(),
    );
    // Marks the routine for optimizers (`ocannl-train-step`).
    ir::set_attribute(
        grad_fn,
        "ocannl.grad_of",
        StringAttribute::new(ctx, &name).into(),
    );
    let (routine, values) = ocannl_assign_dialect::to_routine_with_values(grad_fn).at(loc)?;
    let Some(&loss) = routine.results.first() else {
        return Err(PassError::at(
            loc,
            format!(
                "@{name} has params but no result: its first result is the loss to differentiate"
            ),
        ));
    };
    let ops: Vec<OperationRef> = ir::collect(grad_fn, |_| true).into_iter().skip(1).collect();
    let param_bufs: Vec<usize> = params.iter().map(|(i, _)| *i).collect();
    let bp = backprop(&routine, loss, &param_bufs).map_err(|e| {
        let at = e
            .stmt
            .and_then(|k| ops.get(k))
            .map(|o| o.location())
            .unwrap_or(loc);
        PassError::at(at, format!("cannot generate the backprop of @{name}: {e}"))
    })?;
    let ret = *ir::ops_named(grad_fn, "func.return")
        .last()
        .ok_or_else(|| PassError::at(loc, "a function without a return"))?;
    let loss_value = values[loss];
    let elt = types::element_type(melior::ir::ValueLike::r#type(&loss_value))
        .ok_or_else(|| PassError::at(loc, "the loss is not a buffer"))?;
    // Names of the new nodes: `<name>.grad` for gradients.
    let name_of = |b: usize| -> String {
        if b < routine.args.len() {
            params
                .iter()
                .find(|(i, _)| *i == b)
                .map(|(_, n)| n.clone())
                .unwrap_or_else(|| format!("arg{b}"))
        } else {
            defining_name(values[b]).unwrap_or_else(|| format!("node{b}"))
        }
    };
    let roles = bp.roles.clone();
    let info = |b: usize| -> NodeInfo {
        let k = roles.iter().position(|(x, _)| *x == b).unwrap_or(0);
        match roles.get(k).map(|(_, r)| r) {
            Some(Role::Grad(of)) => NodeInfo {
                name: format!("{}.grad", name_of(*of)),
                kind: "grad",
            },
            Some(Role::Const(_)) => NodeInfo {
                name: format!("const_{k}"),
                kind: "value",
            },
            _ => NodeInfo {
                name: format!("grad_tmp_{k}"),
                kind: "value",
            },
        }
    };
    let at = At::before(ret).at(loc)?;
    let mut em = Emitter::new(
        ctx,
        ret.location(),
        at,
        values.iter().map(|v| Some(*v)).collect(),
        elt,
    );
    // Each statement at the forward op it is the backprop of, so that
    // diagnostics and the profile name it; the others at the return.
    for (s, origin) in bp.stmts.iter().zip(&bp.origins) {
        em.locate(
            origin
                .and_then(|k| ops.get(k))
                .map_or(ret.location(), |o| o.location()),
        );
        em.stmt(s, &info).at(loc)?;
    }
    // Return the loss and the gradients.
    let mut results: Vec<Value> = vec![loss_value];
    for (_, g) in &bp.grads {
        results.push(
            em.values[*g]
                .ok_or_else(|| PassError::at(loc, "internal error: a gradient was not made"))?,
        );
    }
    Builder::new(ctx, ret.location()).op(at, "func.return", &results, &[], &[]);
    let mut gone = Graveyard::new();
    gone.bury(ret);
    // SAFETY: the old return is not used after (`at` and `em`, which hold
    // it, are not used again).
    unsafe { gone.erase_all() }.at(loc)?;
    update_signature(grad_fn);
    Ok(())
}
