//! `ocannl-virtualize{max-visits=1 recompute-when-cheaper=true explain=false}`: decides every tensor
//! node's memory mode, as OCANNL does, and inlines the virtual nodes.
//!
//! A node whose `memory` is `"undecided"` becomes `"virtual"` when its one
//! computation can be substituted into each assignment that reads it
//! (through the projections; the readers become `ocannl_assign.accum` ops
//! whose bodies compute the node's cell where they read it), else
//! `"local"`. The reason is written on the node (`memory_reason`), and
//! with `explain` reported as a remark at the node. Any other mode is the
//! user's (or the lowering's, for params and results) and is kept; a node
//! pinned `"virtual"` that cannot be inlined is an error. Results, params,
//! their gradients and optimizer state are never virtual. A virtual node
//! keeps its op (without uses) as the record of the decision;
//! `ocannl-lower-to-loops` gives it no buffer.
//!
//! The decisions and the inlining are `ocannl_assign::virtualize`, on the
//! assignment model; this pass reads each routine into the model and writes
//! the changed assignments back.

use melior::ir::{
    attribute::StringAttribute, block::BlockLike, operation::OperationLike, OperationRef,
    RegionLike,
};
use ocannl_assign::{
    virtualize::{virtualize, Decision, Memory, NodeInfo, Options as VOptions, Refusal},
    Stmt,
};
use ocannl_assign_dialect::{emit::stmt_before, model_routine, string_attr, ModelRoutine};
use ocannl_mlir::{
    attr,
    ir::{self, Graveyard},
};

use crate::{
    diag::Diagnostic,
    framework::{Locate, Options, PassError, PassResult},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-virtualize",
    "OcannlVirtualize",
    "Decide every tensor node's memory mode (virtual, local; pinned modes kept) as OCANNL does, and inline virtual nodes into the assignments that read them",
    [
        (
            "max-visits",
            COUNT,
            "1",
            "The most times one cell of a virtual node may be computed (OCANNL's max_visits); constant expressions and copies are exempt"
        ),
        (
            "recompute-when-cheaper",
            BOOL,
            "true",
            "Also make virtual, beyond max-visits, a node whose cells cost less to recompute at each read than to write into a buffer and read back (a cost model: a cheap op 1, a division or square root 4, a transcendental 16, a memory access 4)"
        ),
        (
            "explain",
            BOOL,
            "false",
            "Report each node's mode and its reason as a remark at the node"
        ),
    ],
    r#"decides every undecided tensor node's memory mode as OCANNL does and writes it on the node with its reason (`memory = "virtual"` or `"local"`, `memory_reason = ...`): a node whose one computation can be substituted into every assignment that reads it becomes virtual (no buffer; its readers become `ocannl_assign.accum` ops computing its cells where they read them); refusals are OCANNL's (returned, pinned, a param's gradient, never written or written by several computations or from data, accumulating onto unset cells, read before written, an input overwritten before a read, a reduction, a partial, diagonal or padded write, a padded read or different padding, an operand of a contraction (which every target's kernel reads from a buffer), more than `max-visits` computations of a cell, constant expressions, copies and (`recompute-when-cheaper`) cells cheaper to recompute than to keep exempt); a mode the user set is kept, and a node pinned `"virtual"` that cannot be is an error; `explain=true` reports each decision as a remark. In the tools' default pipelines (`ocannl-run --no-optimize` turns it off)"#
);

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    let opts = VOptions {
        max_visits: options.count("max-visits"),
        recompute_when_cheaper: options.flag("recompute-when-cheaper"),
    };
    for func in ir::ops_named(module, "func.func") {
        routine(func, opts, options.flag("explain"))?;
    }
    Ok(())
}

/// The names of the params of a routine: arguments marked
/// `{ocannl.param = NAME}`, and nodes initialized by `uniform`.
fn param_names(func: OperationRef, ops: &[OperationRef]) -> Vec<String> {
    let mut names = vec![];
    if let Ok(region) = func.region(0) {
        if let Some(entry) = region.first_block() {
            for i in 0..entry.argument_count() {
                if let Some(n) = ir::arg_string_attr(func, i, ocannl_dialect_spec::abi::PARAM) {
                    names.push(n);
                }
            }
        }
    }
    for op in ops {
        if matches!(
            ir::name(op).as_str(),
            "ocannl_assign.uniform" | "ocannl_assign.normal"
        ) {
            if let Some(n) = op
                .operand(0)
                .ok()
                .and_then(ocannl_assign_dialect::emit::defining_name)
            {
                names.push(n);
            }
        }
    }
    names
}

fn routine<'c, 'a>(func: OperationRef<'c, 'a>, opts: VOptions, explain: bool) -> PassResult<'c> {
    let Some(ModelRoutine {
        ops,
        routine: r,
        values,
    }) = model_routine(func).at(func.location())?
    else {
        return Ok(());
    };
    let params = param_names(func, &ops);
    // The node op of each allocated buffer, by buffer number.
    let mut nodes: Vec<Option<OperationRef<'c, 'a>>> = vec![None; values.len()];
    for (s, o) in r.stmts.iter().zip(&ops) {
        if let Stmt::Alloc { buf, .. } = s {
            if let Some(slot) = nodes.get_mut(*buf) {
                *slot = Some(*o);
            }
        }
    }
    let node_of = |buf: usize| nodes.get(buf).copied().flatten();
    let info = |buf: usize| -> NodeInfo {
        let Some(op) = node_of(buf) else {
            return NodeInfo::default();
        };
        let memory = string_attr(&op, "memory").unwrap_or_default();
        let name = string_attr(&op, "name").unwrap_or_default();
        let kind = string_attr(&op, "kind").unwrap_or_default();
        let never_virtual = match name.strip_suffix(".grad") {
            Some(p) if kind == "grad" && params.iter().any(|n| n == p) => {
                Some(format!("the gradient of param '{p}'"))
            }
            _ => None,
        };
        NodeInfo {
            pinned: Memory::parse(&memory),
            never_virtual,
        }
    };
    let plan = virtualize(&r, &info, opts);
    let ctx_ref = func.context();
    let ctx = ir::context(&ctx_ref);
    // Pinned virtual nodes that cannot be.
    let mut errors = vec![];
    for d in &plan.decisions {
        let op = node_of(d.buf).expect("a decision per node");
        if info(d.buf).pinned == Some(Memory::Virtual) && d.memory != Memory::Virtual {
            errors.push(Diagnostic::error(
                op.location(),
                format!(
                    "node '{}' is pinned virtual but cannot be inlined: {}; give it a buffer (memory = \"local\") or change how it is computed",
                    string_attr(&op, "name").unwrap_or_default(),
                    d.reason()
                ),
            ));
        }
    }
    if !errors.is_empty() {
        return Err(PassError::all(errors));
    }
    // Changed statements are written before their op, which goes.
    let mut dead = Graveyard::new();
    for (k, stmt) in &plan.changes {
        let op = ops[*k];
        if let Some(s) = stmt {
            stmt_before(ctx, op, s, &values).at(op.location())?;
        }
        dead.bury(op);
    }
    // SAFETY: of `ops`, only node ops are used after, and no node is
    // buried (changes are to assignments and initializations).
    unsafe { dead.erase_all() }.at(func.location())?;
    for d in &plan.decisions {
        let op = node_of(d.buf).expect("a decision per node");
        // A node decided by an earlier run (it has a reason) keeps its
        // record: its mode now reads as pinned, or virtual and unused.
        let earlier = op.attribute("memory_reason").is_ok()
            && (matches!(d.refusal, Some(Refusal::Pinned(_)))
                || (d.memory == Memory::Virtual && d.inlined_into == 0));
        if !earlier {
            record(ctx, op, d, explain);
        }
    }
    Ok(())
}

/// Writes a decision on its node (and reports it with `explain`).
fn record<'c>(ctx: &'c melior::Context, op: OperationRef<'c, '_>, d: &Decision, explain: bool) {
    let reason = d.reason();
    let s = |v: &str| StringAttribute::new(ctx, v).into();
    ir::set_attribute(op, "memory", s(d.memory.name()));
    ir::set_attribute(op, "memory_reason", s(&reason));
    if explain {
        let name = op
            .attribute("name")
            .ok()
            .and_then(attr::string_value)
            .unwrap_or_default();
        Diagnostic::remark(
            op.location(),
            format!("node '{name}' is {}: {reason}", d.memory.name()),
        )
        .emit();
    }
}
