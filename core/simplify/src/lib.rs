//! Simplification of scalar computations with an e-graph (`egg`).
//!
//! The computation of one cell of an assignment (after inlining, a tree of
//! numeric ops over the operands' elements) is simplified by equality
//! saturation: OCANNL's algebraic rewrites, as a table of named rules
//! ([`rules::rules`]), constant folding through the one op vocabulary's f64
//! semantics ([`lang::ConstFold`]), shared subexpressions (the e-graph
//! keeps one class per value), and extraction of the cheapest equivalent
//! ([`cost::OpCost`]). Every run has explicit node, iteration and time
//! limits and reports why it stopped ([`Simplified::stop`]).
//!
//! - [`lang`]: the language (`define_language!` over `core/ops`' names).
//! - [`rules`]: the rewrites, as data.
//! - [`cost`]: the cost model.
//! - [`simplify`]: the runner, and [`eval`] to check that a rewrite keeps
//!   values.
//!
//! Architecture invariant: no MLIR; the language's names are the op
//! vocabulary's, so the dialect layer converts by name.

pub mod cost;
pub mod lang;
pub mod rules;

use std::time::Duration;

use egg::{Extractor, RecExpr, Runner, StopReason};

pub use lang::{Constant, Scalar};

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

/// Simplifies an expression within `limits`.
pub fn simplify(expr: &RecExpr<Scalar>, limits: Limits) -> Simplified {
    let runner = Runner::<Scalar, lang::ConstFold>::default()
        .with_node_limit(limits.nodes)
        .with_iter_limit(limits.iterations)
        .with_time_limit(limits.time)
        .with_expr(expr)
        .run(&rules::rules());
    let root = runner.roots[0];
    let extractor = Extractor::new(&runner.egraph, cost::OpCost);
    let (cost_after, best) = extractor.find_best(root);
    Simplified {
        cost_before: cost::cost_of(expr),
        cost_after,
        expr: best,
        stop: runner.stop_reason.unwrap_or(StopReason::Saturated),
    }
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
