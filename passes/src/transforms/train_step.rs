//! `ocannl-train-step{optimizer=sgd momentum=0 nesterov=false weight-decay=
//! beta1=0.9 beta2=0.999 eps=1e-8 clip-norm=0}`: for every gradient routine
//! `@<f>_grad` made by `ocannl-autodiff`, adds `@<f>_train_step`: the
//! forward computation, backprop, then one step of the optimizer
//! (`ocannl_assign::optim`: SGD with OCANNL's options, Adam or AdamW, with
//! optional global-norm clipping) that updates the params in place.
//!
//! Its arguments are those of `@<f>_grad`, then the optimizer's state, which
//! the caller keeps across calls like the params (zeros before the first
//! step), then the learning rate as a 0-d buffer
//! (`{ocannl.learning_rate = ""}`). Each state argument is marked with an
//! attribute naming its kind, `ocannl.<kind>` ([`state_attribute`]), whose
//! value is the param's name (empty for the routine's own state): per
//! param, kind after kind, `{ocannl.momentum = NAME}` (SGD with momentum)
//! or `{ocannl.adam_m = NAME}` then `{ocannl.adam_v = NAME}` (Adam,
//! AdamW); then `{ocannl.step = ""}` (Adam, AdamW: the number of steps
//! taken, 0-d, incremented by the step). It returns the loss.
//!
//! With `split=true` it also adds `@<f>_update`, the optimizer step alone,
//! for a caller that reduces the gradients between backprop and the update
//! (data-parallel training: `@<f>_grad` on each shard, the gradients
//! all-reduced, then `@<f>_update` on every rank). Its arguments are the
//! params (`{ocannl.param = NAME}`, updated in place), their gradients
//! (`{ocannl.gradient = NAME}`, in the params' order, as `@<f>_grad`
//! returns them; read and possibly overwritten), then the optimizer's state
//! and the learning rate as in `@<f>_train_step`; it returns nothing. The
//! fused train step and the update are one decision
//! (`ocannl_assign::optim::step`): the same statements on the same values.
//!
//! The options are read into an [`Optimizer`] by [`optimizer`] and
//! printed back by [`optimizer_options`] (what
//! `ocannl_passes::pipelines::train_step` writes); an option of another
//! optimizer than the one chosen, set to other than its default, is an
//! error, as is an unknown optimizer.

use melior::ir::{
    attribute::{StringAttribute, TypeAttribute},
    block::BlockLike,
    operation::OperationLike,
    r#type::FunctionType,
    Attribute, Block, Identifier, OperationRef, Region, RegionLike, Type, Value, ValueLike,
};
use ocannl_assign::optim::{self, Adam, DecayOn, Optimizer, ParamUpdate, Sgd, State};
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
    "For every gradient routine of ocannl-autodiff, add @<f>_train_step: forward, backprop and one optimizer step (SGD, Adam or AdamW, optionally with global-norm clipping) updating the params in place; it takes the optimizer's state ({ocannl.momentum|adam_m|adam_v = PARAM}, {ocannl.step}) and the learning rate as arguments, and returns the loss; with split=true, also @<f>_update: the optimizer step alone on given gradients ({ocannl.gradient = PARAM})",
    [
        ("optimizer", CHOICE(&Optimizer::NAMES), "sgd", "The optimizer: sgd, adam or adamw"),
        ("momentum", NUMBER, "0", "SGD momentum (0: none)"),
        ("nesterov", BOOL, "false", "Nesterov momentum (SGD)"),
        ("weight-decay", NUMBER, "", "Weight decay: sgd and adam add it times the param to the gradient, adamw decays the param by the learning rate times it (default: 0 for sgd and adam, 0.01 for adamw)"),
        ("weight-decay-on", CHOICE(&DecayOn::NAMES), "all", "The params the weight decay applies to: all, or matrices (params of two axes or more: not biases or gains, as nanoGPT's param groups)"),
        ("beta1", NUMBER, "0.9", "Adam's decay of the first moment (adam, adamw)"),
        ("beta2", NUMBER, "0.999", "Adam's decay of the second moment (adam, adamw)"),
        ("eps", NUMBER, "1e-8", "Adam's term added to the root of the second moment (adam, adamw)"),
        ("clip-norm", NUMBER, "0", "Global-norm gradient clipping: the gradients are scaled so that their norm is at most this (0: none)"),
        ("split", BOOL, "false", "Also add @<f>_update: the optimizer step alone, on gradients given as arguments (for a collective between backprop and the update)"),
    ],
    r#"for every gradient routine, adds `@<f>_train_step`: forward, backprop and one optimizer step updating the params in place, then returns the loss. `optimizer=sgd` (OCANNL's SGD: `momentum`, `nesterov`, `weight-decay`), `adam` (bias-corrected; `weight-decay` an L2 term of the gradient) or `adamw` (decoupled `weight-decay`, default 0.01), as PyTorch defines them; `clip-norm > 0` scales all gradients to that global norm first. The optimizer's state is arguments after the params, which the caller keeps across calls (zeros at first), each marked with its kind and its param's name: kind after kind, `{ocannl.momentum = NAME}`, or `{ocannl.adam_m = NAME}` then `{ocannl.adam_v = NAME}`, then `{ocannl.step = ""}` (Adam's step count, 0-d, incremented by the step); then the learning rate (`{ocannl.learning_rate = ""}`, 0-d). An unknown optimizer, or an option of another optimizer than the one chosen, is an error at the function. With `split=true` it also adds `@<f>_update`, the optimizer step alone (data parallelism: a collective between backprop and the update): the params (`{ocannl.param = NAME}`, updated in place), their gradients in the params' order (`{ocannl.gradient = NAME}`), the state and the learning rate as the train step takes them; it returns nothing"#
);

/// The argument ABI's attributes (`dialects/spec`'s one table).
pub use ocannl_dialect_spec::abi::{GRADIENT, LEARNING_RATE, PARAM};

/// The attribute that marks a state argument of a train step
/// (`ocannl.momentum`, `ocannl.adam_m`, `ocannl.adam_v`, `ocannl.step`).
pub fn state_attribute(s: State) -> &'static str {
    ocannl_dialect_spec::abi::STATE[State::ALL
        .iter()
        .position(|&k| k == s)
        .expect("every state kind is in State::ALL")]
}

/// What argument `i` of a train step is, if it is the optimizer's state:
/// its kind and its param's name (empty for the routine's own state).
pub fn state_arg(func: OperationRef, i: usize) -> Option<(State, String)> {
    State::ALL
        .into_iter()
        .find_map(|s| ir::arg_string_attr(func, i, state_attribute(s)).map(|p| (s, p)))
}

/// The optimizer that the pass's options give. Options of another
/// optimizer than the one named must keep their defaults.
pub fn optimizer(options: &Options) -> Result<Optimizer, ocannl_mlir::Error> {
    optimizer_text(options).map_err(ocannl_mlir::Error::parse)
}

fn optimizer_text(options: &Options) -> Result<Optimizer, String> {
    let name = options.choice("optimizer");
    let (sgd, adam) = (Sgd::default(), Adam::default());
    let momentum = options.number("momentum").unwrap_or(sgd.momentum);
    let nesterov = options.flag("nesterov");
    let beta1 = options.number("beta1").unwrap_or(adam.beta1);
    let beta2 = options.number("beta2").unwrap_or(adam.beta2);
    let eps = options.number("eps").unwrap_or(adam.eps);
    let clip_norm = options.number("clip-norm").filter(|&c| c > 0.0);
    let decay_on = DecayOn::parse(options.choice("weight-decay-on")).unwrap_or_default();
    let not_for = |what: &str, option: &str| {
        Err(format!(
            "option '{option}' is {what}'s, not {name}'s (set optimizer={})",
            if what == "SGD" {
                "sgd"
            } else {
                "adam or adamw"
            }
        ))
    };
    let opt = if name == "sgd" {
        for (option, value, default) in [
            ("beta1", beta1, adam.beta1),
            ("beta2", beta2, adam.beta2),
            ("eps", eps, adam.eps),
        ] {
            if value != default {
                return not_for("Adam", option);
            }
        }
        Optimizer::Sgd(Sgd {
            momentum,
            weight_decay: options.number("weight-decay").unwrap_or(sgd.weight_decay),
            decay_on,
            nesterov,
            clip_norm,
        })
    } else {
        if momentum != sgd.momentum {
            return not_for("SGD", "momentum");
        }
        if nesterov {
            return not_for("SGD", "nesterov");
        }
        let defaults = if name == "adam" {
            adam
        } else {
            Adam::adamw_default()
        };
        let o = Adam {
            beta1,
            beta2,
            eps,
            weight_decay: options
                .number("weight-decay")
                .unwrap_or(defaults.weight_decay),
            decay_on,
            clip_norm,
        };
        if name == "adam" {
            Optimizer::Adam(o)
        } else {
            Optimizer::AdamW(o)
        }
    };
    opt.check().map_err(|e| e.to_string())?;
    Ok(opt)
}

/// The optimizer that option texts give (`(name, text)` pairs, as
/// [`optimizer_options`] prints them or a user writes them; the pass's
/// defaults for the others): the pass's own parsing, for callers that take
/// the options elsewhere than in a pipeline (`ocannl-run --optimizer`).
pub fn parse_optimizer(given: &[(&str, &str)]) -> Result<Optimizer, ocannl_mlir::Error> {
    optimizer(&Options::parse(DEF.options(), given)?)
}

/// The options of the pass that give `opt` (the inverse of
/// [`optimizer`]).
pub fn optimizer_options(opt: &Optimizer) -> Vec<(&'static str, String)> {
    let mut out = vec![("optimizer", opt.name().to_string())];
    match opt {
        Optimizer::Sgd(o) => {
            out.push(("momentum", o.momentum.to_string()));
            out.push(("nesterov", o.nesterov.to_string()));
        }
        Optimizer::Adam(o) | Optimizer::AdamW(o) => {
            out.push(("beta1", o.beta1.to_string()));
            out.push(("beta2", o.beta2.to_string()));
            out.push(("eps", o.eps.to_string()));
        }
    }
    out.push(("weight-decay", opt.weight_decay().to_string()));
    out.push(("weight-decay-on", opt.decay_on().name().to_string()));
    out.push(("clip-norm", opt.clip_norm().unwrap_or(0.0).to_string()));
    out
}

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    let grad_fns: Vec<(OperationRef, String)> = ir::ops_named(module, "func.func")
        .into_iter()
        .filter_map(|func| {
            let of = func
                .attribute("ocannl.grad_of")
                .ok()
                .and_then(ocannl_mlir::attr::string_value)?;
            Some((func, of))
        })
        .collect();
    // Bad options are reported at the first function they would make a
    // train step of (at the module when there is none).
    let at = grad_fns
        .first()
        .map_or(module.location(), |(f, _)| f.location());
    let opt = optimizer(options).at(at)?;
    let split = options.flag("split");
    for (func, of) in grad_fns {
        let step = train_step(func, &of, &opt)?;
        if split {
            update(step, &of, &opt).at(step.location())?;
        }
    }
    Ok(())
}

/// Adds `@<of>_train_step` after the gradient routine `grad_fn`, and
/// returns it.
fn train_step<'c, 'a>(
    grad_fn: OperationRef<'c, 'a>,
    of: &str,
    opt: &Optimizer,
) -> Result<OperationRef<'c, 'a>, PassError<'c>> {
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
        .filter_map(|i| ir::arg_string_attr(step, i, PARAM).map(|n| (i, n)))
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
        .map(|i| ir::arg_string_attr(step, i, PARAM).map(|n| (PARAM.to_string(), n)))
        .collect();
    let mut all: Vec<Option<Value>> = values.iter().map(|v| Some(*v)).collect();
    // The state, kind after kind: one buffer per param of its type, then
    // the routine's own (0-d, of the loss's type).
    let mut state: Vec<Vec<usize>> = vec![vec![]; params.len()];
    for kind in opt.param_state() {
        for (k, (p, pname)) in params.iter().enumerate() {
            let arg: Value = entry.add_argument(values[*p].r#type(), loc);
            arg_attrs.push(Some((state_attribute(kind).to_string(), pname.clone())));
            all.push(Some(arg));
            state[k].push(all.len() - 1);
        }
    }
    let scalar_ty = Builder::new(ctx, loc)
        .ty(&format!("memref<{elt}>"))
        .at(loc)?;
    let mut global = vec![];
    for kind in opt.global_state() {
        let arg: Value = entry.add_argument(scalar_ty, loc);
        arg_attrs.push(Some((state_attribute(kind).to_string(), String::new())));
        all.push(Some(arg));
        global.push(all.len() - 1);
    }
    let updates: Vec<ParamUpdate> = params
        .iter()
        .zip(state)
        .enumerate()
        .map(|(k, ((p, _), state))| ParamUpdate {
            param: *p,
            grad: routine.results[1 + k],
            state,
            dims: types::memref_dims(values[*p].r#type()).unwrap_or_default(),
        })
        .collect();
    let lr: Value = entry.add_argument(scalar_ty, loc);
    arg_attrs.push(Some((LEARNING_RATE.into(), String::new())));
    all.push(Some(lr));
    let lr_buf = all.len() - 1;
    let mut next = all.len();
    let step_stmts = optim::step(opt, &updates, &global, lr_buf, &mut next).at(loc)?;
    let ret = *ir::ops_named(step, "func.return")
        .last()
        .ok_or_else(|| PassError::at(loc, "a function without a return"))?;
    let at = At::before(ret).at(loc)?;
    emit(Emitter::new(ctx, ret.location(), at, all, elt), &step_stmts).at(loc)?;
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
    Ok(step)
}

/// Emits an optimizer step's statements, naming the buffers they allocate.
fn emit(mut em: Emitter, step: &optim::OptimizerStep) -> Result<(), String> {
    let info = |b: usize| NodeInfo {
        name: step
            .names
            .iter()
            .find(|(n, _)| *n == b)
            .map_or_else(|| format!("optim_{b}"), |(_, name)| name.clone()),
        kind: "value",
    };
    for s in &step.stmts {
        em.stmt(s, &info).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Adds `@<of>_update` after the train step `step`: its optimizer step
/// alone, on the params, their gradients, the state and the learning rate
/// given as arguments (in that order; the state and the learning rate as
/// the train step takes them).
fn update(step: OperationRef, of: &str, opt: &Optimizer) -> Result<(), String> {
    let loc = step.location();
    let ctx_ref = step.context();
    let ctx = ir::context(&ctx_ref);
    let entry = step
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| String::from("a function without a body"))?;
    let n = entry.argument_count();
    let ty = |i: usize| -> Result<Type, String> {
        entry
            .argument(i)
            .map(|a| a.r#type())
            .map_err(|e| e.to_string())
    };
    let params: Vec<(usize, String)> = (0..n)
        .filter_map(|i| ir::arg_string_attr(step, i, PARAM).map(|p| (i, p)))
        .collect();
    let state: Vec<(usize, State, String)> = (0..n)
        .filter_map(|i| state_arg(step, i).map(|(k, p)| (i, k, p)))
        .collect();
    let lr = (0..n)
        .find(|&i| ir::arg_string_attr(step, i, LEARNING_RATE).is_some())
        .ok_or_else(|| String::from("a train step without a learning rate"))?;
    // The arguments: params, gradients, state, learning rate.
    let mut types = vec![];
    let mut attrs: Vec<(String, String)> = vec![];
    for (i, p) in &params {
        types.push(ty(*i)?);
        attrs.push((PARAM.into(), p.clone()));
    }
    for (i, p) in &params {
        types.push(ty(*i)?);
        attrs.push((GRADIENT.into(), p.clone()));
    }
    for (i, kind, p) in &state {
        types.push(ty(*i)?);
        attrs.push((state_attribute(*kind).to_string(), p.clone()));
    }
    types.push(ty(lr)?);
    attrs.push((LEARNING_RATE.into(), String::new()));
    let elt = types::element_type(ty(lr)?)
        .ok_or_else(|| String::from("the learning rate is not a buffer"))?;
    let region = Region::new();
    let arg_locs: Vec<_> = types.iter().map(|t| (*t, loc)).collect();
    region.append_block(Block::new(&arg_locs));
    let block = step
        .block()
        .ok_or_else(|| String::from("a function outside a module"))?;
    let s = |v: &str| -> Attribute { StringAttribute::new(ctx, v).into() };
    let func = block.insert_operation_after(
        step,
        melior::dialect::func::func(
            ctx,
            StringAttribute::new(ctx, &format!("{of}_update")),
            TypeAttribute::new(FunctionType::new(ctx, &types, &[]).into()),
            region,
            &[(Identifier::new(ctx, "ocannl.update_of"), s(of))],
            loc,
        ),
    );
    let body = func
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| String::from("internal error: an update without a body"))?;
    let ret = body.append_operation(melior::dialect::func::r#return(&[], loc));
    // Buffer numbers are argument positions; the step's temporaries follow.
    let np = params.len();
    let position = |kind: State, name: &str| {
        state
            .iter()
            .position(|(_, k, p)| *k == kind && p == name)
            .map(|s| 2 * np + s)
            .ok_or_else(|| format!("no {} state for '{name}'", kind.name()))
    };
    let mut updates = vec![];
    for (k, (i, name)) in params.iter().enumerate() {
        updates.push(ParamUpdate {
            param: k,
            grad: np + k,
            state: opt
                .param_state()
                .into_iter()
                .map(|kind| position(kind, name))
                .collect::<Result<_, _>>()?,
            dims: types::memref_dims(ty(*i)?).unwrap_or_default(),
        });
    }
    let global: Vec<usize> = opt
        .global_state()
        .into_iter()
        .map(|kind| position(kind, ""))
        .collect::<Result<_, _>>()?;
    let lr_buf = types.len() - 1;
    let mut next = types.len();
    let stmts =
        optim::step(opt, &updates, &global, lr_buf, &mut next).map_err(|e| e.to_string())?;
    let all: Vec<Option<Value>> = (0..types.len())
        .map(|i| body.argument(i).ok().map(Into::into))
        .collect();
    let at = At::before(ret).map_err(|e| e.to_string())?;
    emit(Emitter::new(ctx, loc, at, all, elt), &stmts)?;
    let attrs: Vec<Option<(&str, &str)>> = attrs
        .iter()
        .map(|(n, v)| Some((n.as_str(), v.as_str())))
        .collect();
    ir::set_arg_string_attrs(ctx, func, &attrs);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(options: &[(&str, &str)]) -> Result<Optimizer, String> {
        parse_optimizer(options).map_err(String::from)
    }

    /// The state kinds and their attributes in the ABI's table line up.
    #[test]
    fn state_attributes_are_the_tables() {
        for s in State::ALL {
            assert_eq!(state_attribute(s), format!("ocannl.{}", s.name()));
            assert_eq!(
                ocannl_dialect_spec::abi::state_attribute(s.name()),
                Some(state_attribute(s))
            );
        }
    }

    /// Every optimizer printed as options reads back as itself.
    #[test]
    fn options_round_trip() {
        let opts = [
            Optimizer::default(),
            Optimizer::Sgd(Sgd {
                momentum: 0.9,
                weight_decay: 1e-4,
                decay_on: DecayOn::Matrices,
                nesterov: true,
                clip_norm: Some(2.5),
            }),
            Optimizer::adam(),
            Optimizer::adamw(),
            Optimizer::AdamW(Adam {
                beta1: 0.8,
                beta2: 0.95,
                eps: 1e-6,
                weight_decay: 0.0,
                decay_on: DecayOn::All,
                clip_norm: Some(1.0),
            }),
            Optimizer::AdamW(Adam {
                weight_decay: 0.1,
                decay_on: DecayOn::Matrices,
                ..Adam::adamw_default()
            }),
        ];
        for o in opts {
            let text: Vec<(&str, String)> = optimizer_options(&o);
            let pairs: Vec<(&str, &str)> = text.iter().map(|(k, v)| (*k, v.as_str())).collect();
            assert_eq!(parse(&pairs), Ok(o), "{pairs:?}");
        }
    }

    #[test]
    fn defaults_and_errors() {
        assert_eq!(parse(&[]), Ok(Optimizer::default()));
        // The pass's own defaults (every option given, as MLIR gives them).
        let defaults = [
            ("momentum", "0"),
            ("nesterov", "false"),
            ("weight-decay", ""),
            ("beta1", "0.9"),
            ("beta2", "0.999"),
            ("eps", "1e-8"),
            ("clip-norm", "0"),
        ];
        let with = |name: &'static str| {
            let mut o = vec![("optimizer", name)];
            o.extend(defaults);
            o
        };
        assert_eq!(parse(&with("sgd")), Ok(Optimizer::default()));
        assert_eq!(parse(&with("adam")), Ok(Optimizer::adam()));
        assert_eq!(parse(&with("adamw")), Ok(Optimizer::adamw()));
        let e = parse(&[("optimizer", "adagrad")]).unwrap_err();
        assert_eq!(
            e,
            "option 'optimizer' must be one of sgd, adam, adamw, not 'adagrad'"
        );
        let e = parse(&[("lr", "0.1")]).unwrap_err();
        assert!(
            e.starts_with("unknown option 'lr' (expected one of optimizer, momentum,"),
            "{e}"
        );
        let e = parse(&[("nesterov", "yes")]).unwrap_err();
        assert_eq!(e, "option 'nesterov' must be true or false, not 'yes'");
        // Empty: the optimizer's own default (adamw decays by 0.01).
        assert_eq!(
            parse(&[("optimizer", "adamw"), ("weight-decay", "")]),
            Ok(Optimizer::adamw())
        );
        let e = parse(&[("optimizer", "adam"), ("momentum", "0.9")]).unwrap_err();
        assert!(e.contains("'momentum' is SGD's"), "{e}");
        let e = parse(&[("optimizer", "sgd"), ("beta2", "0.9")]).unwrap_err();
        assert!(e.contains("'beta2' is Adam's"), "{e}");
        let e = parse(&[("optimizer", "adam"), ("beta1", "1")]).unwrap_err();
        assert!(e.contains("beta1 must be in [0, 1)"), "{e}");
        let e = parse(&[("clip-norm", "-1")]).unwrap_err();
        assert!(
            e.contains("'clip-norm' must be a non-negative number"),
            "{e}"
        );
    }
}
