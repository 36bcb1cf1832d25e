//! `ocannl-train-step{momentum=0 weight-decay=0 nesterov=false}`: for every
//! gradient routine `@<f>_grad` made by `ocannl-autodiff`, adds
//! `@<f>_train_step`: the forward computation, backprop, then one SGD step
//! (`ocannl_assign::optim`, OCANNL's options) that updates the params in
//! place. Its arguments are those of `@<f>_grad`, then one momentum buffer
//! per param when `momentum > 0` (`{ocannl.momentum = NAME}`, kept by the
//! caller like the params), then the learning rate as a 0-d buffer
//! (`{ocannl.learning_rate}`); it returns the loss.

use melior::ir::{
    attribute::StringAttribute, block::BlockLike, operation::OperationLike, OperationRef,
    RegionLike, Value, ValueLike,
};
use ocannl_assign::optim::{sgd_step, ParamUpdate, Sgd};
use ocannl_assign_dialect::emit::{Emitter, NodeInfo};
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
    "ocannl-train-step",
    "OcannlTrainStep",
    "For every gradient routine of ocannl-autodiff, add @<f>_train_step: forward, backprop and one SGD step updating the params in place; it takes momentum buffers (when momentum > 0) and the learning rate as arguments, and returns the loss",
    [
        ("momentum", STRING, "0", "SGD momentum (0: none)"),
        ("weight-decay", STRING, "0", "Weight decay added to each gradient (times the param)"),
        ("nesterov", BOOL, "false", "Nesterov momentum"),
    ]
);

fn number(options: &Options, name: &str) -> Result<f64, String> {
    let text = options.get(name).unwrap_or("0");
    text.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| format!("option '{name}' must be a non-negative number, not '{text}'"))
}

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    let opts = Sgd {
        momentum: number(options, "momentum").at(module.location())?,
        weight_decay: number(options, "weight-decay").at(module.location())?,
        nesterov: options.flag("nesterov"),
    };
    for func in ir::ops_named(module, "func.func") {
        let Some(of) = func
            .attribute("ocannl.grad_of")
            .ok()
            .and_then(ocannl_mlir::attr::string_value)
        else {
            continue;
        };
        train_step(func, &of, &opts)?;
    }
    Ok(())
}

fn train_step<'c, 'a>(grad_fn: OperationRef<'c, 'a>, of: &str, opts: &Sgd) -> PassResult<'c> {
    let loc = grad_fn.location();
    let ctx_ref = grad_fn.context();
    let ctx = ir::context(&ctx_ref);
    let block = grad_fn
        .block()
        .ok_or("a function outside a module".to_string())
        .at(loc)?;
    let step = block.insert_operation_after(grad_fn, ir::clone(grad_fn));
    ir::set_attribute(
        step,
        "sym_name",
        StringAttribute::new(ctx, &format!("{of}_train_step")).into(),
    );
    ir::remove_attribute(step, "ocannl.grad_of");
    ir::set_attribute(
        step,
        "ocannl.train_step_of",
        StringAttribute::new(ctx, of).into(),
    );
    let (routine, values) = ocannl_assign_dialect::to_routine_with_values(step).at(loc)?;
    let entry = step
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| PassError::at(loc, "a function without a body"))?;
    let n_args = entry.argument_count();
    let params: Vec<(usize, String)> = (0..n_args)
        .filter_map(|i| ir::arg_string_attr(step, i, "ocannl.param").map(|n| (i, n)))
        .collect();
    if routine.results.len() != 1 + params.len() {
        return Err(PassError::at(
            loc,
            format!(
                "@{of}_grad must return the loss and one gradient per param ({} values), not {}",
                1 + params.len(),
                routine.results.len()
            ),
        ));
    }
    let loss: Value = values[routine.results[0]];
    let elt = types::element_type(loss.r#type())
        .ok_or_else(|| PassError::at(loc, "the loss is not a buffer"))?;
    let mut arg_attrs: Vec<Option<(String, String)>> = (0..n_args)
        .map(|i| {
            ir::arg_string_attr(step, i, "ocannl.param").map(|n| ("ocannl.param".to_string(), n))
        })
        .collect();
    let mut all: Vec<Option<Value>> = values.iter().map(|v| Some(*v)).collect();
    let mut updates = vec![];
    for (k, (p, pname)) in params.iter().enumerate() {
        let ty = values[*p].r#type();
        let momentum = if opts.momentum > 0.0 {
            let m: Value = entry.add_argument(ty, loc);
            arg_attrs.push(Some(("ocannl.momentum".into(), pname.clone())));
            all.push(Some(m));
            Some(all.len() - 1)
        } else {
            None
        };
        updates.push(ParamUpdate {
            param: *p,
            grad: routine.results[1 + k],
            momentum,
            dims: types::memref_dims(ty).unwrap_or_default(),
        });
    }
    let lr_ty = Builder::new(ctx, loc)
        .ty(&format!("memref<{elt}>"))
        .at(loc)?;
    let lr: Value = entry.add_argument(lr_ty, loc);
    arg_attrs.push(Some(("ocannl.learning_rate".into(), String::new())));
    all.push(Some(lr));
    let lr_buf = all.len() - 1;
    let mut next = all.len();
    let stmts = sgd_step(opts, &updates, lr_buf, &mut next);
    let ret = *ir::ops_named(step, "func.return")
        .last()
        .ok_or_else(|| PassError::at(loc, "a function without a return"))?;
    let at = At::before(ret).at(loc)?;
    let mut em = Emitter::new(ctx, ret.location(), at, all, elt);
    let info = |b: usize| NodeInfo {
        name: format!("sgd_const_{b}"),
        kind: "value",
    };
    for s in &stmts {
        em.stmt(s, &info).at(loc)?;
    }
    Builder::new(ctx, ret.location()).op(at, "func.return", &[loss], &[], &[]);
    let mut gone = Graveyard::new();
    gone.bury(ret);
    // SAFETY: the old return is not used after (`at` and `em`, which hold
    // it, are not used again).
    unsafe { gone.erase_all() }.at(loc)?;
    let attrs: Vec<Option<(&str, &str)>> = arg_attrs
        .iter()
        .map(|a| a.as_ref().map(|(n, v)| (n.as_str(), v.as_str())))
        .collect();
    ir::set_arg_string_attrs(ctx, step, &attrs);
    update_signature(step);
    Ok(())
}
