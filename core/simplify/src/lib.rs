//! Simplification of scalar computations with an e-graph (`egg`).
//!
//! Scalar computations (the `arith`/`math` code of a block, for the
//! `ocannl-simplify` pass; the computation of one cell of an assignment)
//! are simplified by equality saturation: OCANNL's algebraic rewrites, as a table of named rules
//! ([`rules::rules`]), constant folding through the one op vocabulary's f64
//! semantics ([`lang::ConstFold`]), shared subexpressions (the e-graph
//! keeps one class per value), and extraction of the cheapest equivalent
//! ([`cost::OpCost`], ties broken towards the input's own nodes by
//! [`cost::PreferGiven`]). Every run has explicit node, iteration and time
//! limits and reports why it stopped ([`Simplified::stop`]).
//!
//! - [`lang`]: the language (`define_language!` over `core/ops`' names).
//! - [`rules`]: the rewrites, as data.
//! - [`cost`]: the cost model.
//! - [`simplify_roots`]: several roots simplified in one e-graph and
//!   extracted with their common subexpressions shared (a pass simplifies
//!   a block's computations at once); [`simplify`] and [`simplify_with`]
//!   for one expression; [`eval`] to check that a rewrite keeps values.
//!
//! [`Options::fast_math`] selects the rules: without it only the rewrites
//! that keep IEEE values exactly ([`rules::Needs::Exact`]) and exact
//! constant folding in the computation's format ([`Precision`]).
//!
//! Architecture invariant: no MLIR; the language's names are the op
//! vocabulary's, so the dialect layer converts by name.

pub mod cost;
pub mod lang;
pub mod rules;

use std::time::Duration;

use std::collections::{HashMap, HashSet};

use egg::{EGraph, Runner};

pub use egg::{FromOp, Id, Language, RecExpr, StopReason, Symbol};
pub use lang::{Constant, Precision, Scalar};
pub use rules::{Needs, Rule, RULES};

/// The limits of one run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub nodes: usize,
    pub iterations: usize,
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            nodes: 10_000,
            iterations: 30,
            time: Duration::from_millis(50),
        }
    }
}

/// How a run simplifies: its limits, the rules it may use, and the format
/// its constants fold in.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub limits: Limits,
    /// Also the rules that change IEEE values ([`rules::Needs`]), and
    /// folding of every op; without it, only exact rewrites and exact
    /// folding.
    pub fast_math: bool,
    pub precision: lang::Precision,
}

/// The result of a simplification.
#[derive(Clone, Debug)]
pub struct Simplified {
    /// The cheapest equivalent found (common subexpressions shared).
    pub expr: RecExpr<Scalar>,
    pub cost_before: f64,
    pub cost_after: f64,
    /// Why saturation stopped (`Saturated` when every rule was applied to
    /// a fixpoint).
    pub stop: StopReason,
}

/// Several roots simplified together.
#[derive(Clone, Debug)]
pub struct SimplifiedRoots {
    /// Every root's cheapest equivalent, in one expression: a
    /// subexpression common to several roots (or repeated in one) is one
    /// node. A root's nodes come after those of the roots before it.
    pub expr: RecExpr<Scalar>,
    /// Each root's node in `expr`, in the order of the roots given.
    pub roots: Vec<Id>,
    /// The cost of the input: each node reachable from a root counted once
    /// (a node written twice counts twice).
    pub cost_before: f64,
    /// The cost of `expr`, each node once.
    pub cost_after: f64,
    /// E-graph nodes when the run stopped.
    pub nodes: usize,
    pub iterations: usize,
    pub stop: StopReason,
}

/// The name of a stop reason (`Saturated`, `NodeLimit`, `IterationLimit`,
/// `TimeLimit`, or the message of another reason).
pub fn stop_name(stop: &StopReason) -> String {
    match stop {
        StopReason::Saturated => "Saturated".into(),
        StopReason::NodeLimit(_) => "NodeLimit".into(),
        StopReason::IterationLimit(_) => "IterationLimit".into(),
        StopReason::TimeLimit(_) => "TimeLimit".into(),
        StopReason::Other(m) => m.clone(),
    }
}

/// Simplifies the expressions rooted at `roots` of the DAG `dag` (a node's
/// children come before it) together, in one e-graph: rewrites are shared,
/// and so are the subexpressions of the extracted terms.
pub fn simplify_roots(dag: &RecExpr<Scalar>, roots: &[Id], options: &Options) -> SimplifiedRoots {
    let nodes = dag.as_ref();
    // The input's cost: the nodes reachable from the roots.
    let mut reachable = vec![false; nodes.len()];
    let mut stack: Vec<Id> = roots.to_vec();
    while let Some(id) = stack.pop() {
        let k = usize::from(id);
        if !std::mem::replace(&mut reachable[k], true) {
            stack.extend(nodes[k].children().iter().copied());
        }
    }
    let cost_before = nodes
        .iter()
        .zip(&reachable)
        .filter(|(_, r)| **r)
        .map(|(n, _)| cost::node_cost(n))
        .sum();

    let analysis = lang::ConstFold {
        precision: options.precision,
        exact: !options.fast_math,
    };
    let mut egraph = EGraph::<Scalar, lang::ConstFold>::new(analysis);
    let mut ids: Vec<Id> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let n = n.clone().map_children(|c| ids[usize::from(c)]);
        ids.push(egraph.add(n));
    }
    egraph.rebuild();
    let limits = options.limits;
    let runner = Runner::<Scalar, lang::ConstFold>::new(analysis)
        .with_egraph(egraph)
        .with_node_limit(limits.nodes)
        .with_iter_limit(limits.iterations)
        .with_time_limit(limits.time)
        .run(rules::shared_rules(options.fast_math));
    let stop = runner.stop_reason.clone().unwrap_or(StopReason::Saturated);
    let egraph = &runner.egraph;
    // Ties go to the input's own nodes.
    let given: HashSet<Scalar> = nodes
        .iter()
        .map(|n| n.clone().map_children(|c| egraph.find(ids[usize::from(c)])))
        .collect();
    let best = cost::best_nodes(egraph, &given);

    // Each class's best node once, children first.
    let mut expr = RecExpr::default();
    let mut made: HashMap<Id, Id> = HashMap::new();
    let mut out_roots = Vec::with_capacity(roots.len());
    for &r in roots {
        let top = egraph.find(ids[usize::from(r)]);
        let mut work = vec![(top, false)];
        while let Some((class, expanded)) = work.pop() {
            if made.contains_key(&class) {
                continue;
            }
            let node = &best[&class];
            if expanded {
                let n = node.clone().map_children(|c| made[&egraph.find(c)]);
                made.insert(class, expr.add(n));
            } else {
                work.push((class, true));
                for &c in node.children() {
                    let c = egraph.find(c);
                    if !made.contains_key(&c) {
                        work.push((c, false));
                    }
                }
            }
        }
        out_roots.push(made[&top]);
    }
    let cost_after = expr.as_ref().iter().map(cost::node_cost).sum();
    SimplifiedRoots {
        expr,
        roots: out_roots,
        cost_before,
        cost_after,
        nodes: egraph.total_number_of_nodes(),
        iterations: runner.iterations.len(),
        stop,
    }
}

/// Simplifies an expression with `options`.
pub fn simplify_with(expr: &RecExpr<Scalar>, options: &Options) -> Simplified {
    let root = Id::from(expr.as_ref().len() - 1);
    let s = simplify_roots(expr, &[root], options);
    Simplified {
        cost_before: cost::cost_of(expr),
        cost_after: s.cost_after,
        expr: s.expr,
        stop: s.stop,
    }
}

/// Simplifies an expression within `limits` with every rule (OCANNL's
/// simplifier: fast-math), constants folded in f64.
pub fn simplify(expr: &RecExpr<Scalar>, limits: Limits) -> Simplified {
    simplify_with(
        expr,
        &Options {
            limits,
            fast_math: true,
            precision: lang::Precision::F64,
        },
    )
}

/// The value of an expression with operands `x0, x1, ...` bound to `args`
/// (`None` for an unbound operand).
pub fn eval(expr: &RecExpr<Scalar>, args: &[f64]) -> Option<f64> {
    let mut vals: Vec<f64> = Vec::with_capacity(expr.as_ref().len());
    for node in expr.as_ref() {
        let v = match node {
            Scalar::Num(c) => c.value(),
            Scalar::Arg(name) => {
                let k: usize = name.as_str().strip_prefix('x')?.parse().ok()?;
                *args.get(k)?
            }
            op => {
                let xs: Vec<f64> = egg::Language::children(op)
                    .iter()
                    .map(|&id| vals[usize::from(id)])
                    .collect();
                lang::num_op(op)?.eval(&xs)?
            }
        };
        vals.push(v);
    }
    vals.last().copied()
}

#[cfg(test)]
mod tests;
