//! `ocannl-one-hot-to-gather{explain=false}`: sums of products with a
//! one-hot operand computed as gathers and scatter-adds (OCANNL's
//! `rewrite_one_hot_reductions`, gh-343): an embedding's O(vocab × dim)
//! contraction per token becomes an O(dim) lookup, its gradient a
//! scatter-add of the rows, a cross-entropy's pick one cell per row.
//!
//! The rewrite is `ocannl_assign::gather`, on the assignment model; this
//! pass reads each routine into the model, writes the rewritten
//! assignments back (`ocannl_assign.accum` ops with `dynamic_indices`),
//! and drops a one-hot node that nothing reads any more: its computation
//! goes and it becomes virtual. The loop targets run it (linalg has no
//! form of a dynamic index).

use std::collections::BTreeSet;

use melior::ir::{attribute::StringAttribute, operation::OperationLike, OperationRef};
use ocannl_assign::{gather::one_hot_gathers, Stmt};
use ocannl_assign_dialect::{emit::stmt_before, model_routine, string_attr, ModelRoutine};
use ocannl_mlir::ir::{self, Graveyard};

use crate::{
    diag::Diagnostic,
    framework::{Locate, Options, PassResult},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-one-hot-to-gather",
    "OcannlOneHotToGather",
    "Compute sums of products with a one-hot operand (ids compared with a range) as gathers and scatter-adds of the ids' rows",
    [(
        "explain",
        BOOL,
        "false",
        "Report each rewritten assignment, with its points before and after, as a remark at its op"
    )],
    r#"rewrites each accumulating assignment `y += h * f` (or `-=`) whose factor `h` is one-hot: a node `h[.., k, ..] = x[..] == r[k]` (`r` a `range` or a literal `0, 1, ..`; written once, the ids `x` unchanged until the read) or that comparison in the assignment's body (after inlining), and whose class iterator indexes other operands only as whole indices: the iterator leaves the iteration space and its indices become a dynamic index read from `x` (`dynamic_indices`), so an embedding is a gather, its gradient a scatter-add and a cross-entropy's pick a read of one cell per row; an id that is not an integer in range selects nothing, as before; a product `0 * inf` of a row not selected no longer makes a NaN (as in OCANNL). A one-hot node nothing reads any more becomes virtual and its computation goes (unless the user pinned its memory). In the loop targets' pipelines (`ocannl-lower-to-loops` follows it); `explain=true` reports each rewrite"#
);

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    for func in ir::ops_named(module, "func.func") {
        routine(func, options.flag("explain"))?;
    }
    Ok(())
}

fn routine<'c, 'a>(func: OperationRef<'c, 'a>, explain: bool) -> PassResult<'c> {
    let Some(ModelRoutine {
        ops,
        routine: r,
        values,
    }) = model_routine(func).at(func.location())?
    else {
        return Ok(());
    };
    let gathers = one_hot_gathers(&r);
    if gathers.is_empty() {
        return Ok(());
    }
    let ctx_ref = func.context();
    let ctx = ir::context(&ctx_ref);
    let mut dead = Graveyard::new();
    let mut rewritten = r.clone();
    for g in &gathers {
        let op = ops[g.stmt];
        let stmt = Stmt::Accum(g.new.clone());
        stmt_before(ctx, op, &stmt, &values).at(op.location())?;
        if explain {
            let what = match g.one_hot {
                Some(h) => format!("the one-hot node '{}'", node_name(values.get(h).copied())),
                None => "a comparison of ids with a range".to_string(),
            };
            Diagnostic::remark(
                op.location(),
                format!(
                    "{what} is read through the ids: {} points instead of {}",
                    g.points.1, g.points.0
                ),
            )
            .emit();
        }
        rewritten.stmts[g.stmt] = stmt;
        dead.bury(op);
    }
    // One-hot nodes nothing reads any more: their computation goes.
    let one_hots: BTreeSet<usize> = gathers.iter().filter_map(|g| g.one_hot).collect();
    let mut unused = vec![];
    for h in one_hots {
        let read = rewritten
            .stmts
            .iter()
            .any(|s| matches!(s, Stmt::Accum(a) if a.rhs.contains(&h)));
        let Some(node) = values.get(h).and_then(|v| defining_node(*v)) else {
            continue;
        };
        let memory = string_attr(&node, "memory").unwrap_or_default();
        let pinned = node.attribute("memory_reason").is_err() && memory != "undecided";
        if read || r.results.contains(&h) || pinned {
            continue;
        }
        for (k, s) in rewritten.stmts.iter().enumerate() {
            let gathered = gathers.iter().any(|g| g.stmt == k);
            if !gathered && matches!(s, Stmt::Accum(a) if a.lhs == h) {
                dead.bury(ops[k]);
            }
        }
        unused.push(node);
    }
    // SAFETY: the buried ops are assignments of this routine (rewritten
    // ones, and the computations of unused one-hot nodes), each buried
    // once; nothing uses them after (they have no results), and the node
    // ops used below are not among them.
    unsafe { dead.erase_all() }.at(func.location())?;
    for node in unused {
        let s = |v: &str| StringAttribute::new(ctx, v).into();
        ir::set_attribute(node, "memory", s("virtual"));
        ir::set_attribute(
            node,
            "memory_reason",
            s("a one-hot node read only through its ids (ocannl-one-hot-to-gather)"),
        );
    }
    Ok(())
}

/// The `ocannl_assign.node` op defining a buffer, if any.
fn defining_node<'c, 'a>(v: melior::ir::Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let owner = melior::ir::operation::OperationResult::try_from(v)
        .ok()?
        .owner();
    (ir::name(&owner) == "ocannl_assign.node").then_some(owner)
}

/// The name of the node defining a buffer (empty for an argument).
fn node_name(v: Option<melior::ir::Value>) -> String {
    v.and_then(|v| defining_node(v))
        .and_then(|n| string_attr(&n, "name").ok())
        .unwrap_or_default()
}
