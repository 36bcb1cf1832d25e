//! The cost model of extraction: what one evaluation of a node costs,
//! roughly in cycles of a CPU core (a fused multiply-add costs one
//! multiplication; transcendental functions cost tens).

use egg::{CostFunction, Id, Language, RecExpr};

use crate::lang::Scalar;

/// The cost of one node, its operands excluded.
pub fn node_cost(node: &Scalar) -> f64 {
    match node {
        Scalar::Num(_) | Scalar::Arg(_) | Scalar::Identity(_) | Scalar::StopGradient(_) => 0.0,
        Scalar::Neg(_) | Scalar::Relu(_) | Scalar::Not(_) => 1.0,
        Scalar::Add(_) | Scalar::Sub(_) | Scalar::Max(_) | Scalar::Min(_) => 1.0,
        Scalar::Lt(_) | Scalar::Eq(_) | Scalar::Ne(_) | Scalar::And(_) | Scalar::Or(_) => 1.0,
        Scalar::ReluGate(_) | Scalar::Satur01(_) | Scalar::Satur01Gate(_) | Scalar::Where(_) => 2.0,
        Scalar::Mul(_) | Scalar::Fma(_) => 1.5,
        Scalar::Div(_) | Scalar::Recip(_) | Scalar::Mod(_) => 5.0,
        Scalar::Sqrt(_) | Scalar::RecipSqrt(_) => 6.0,
        Scalar::Exp(_) | Scalar::Exp2(_) | Scalar::Log(_) | Scalar::Log2(_) => 20.0,
        Scalar::Sin(_) | Scalar::Cos(_) | Scalar::Tanh(_) | Scalar::Erf(_) => 25.0,
        Scalar::Pow(_) => 40.0,
    }
}

/// Extraction's cost: the sum over the nodes of the tree.
pub struct OpCost;

impl CostFunction<Scalar> for OpCost {
    type Cost = f64;
    fn cost<C>(&mut self, enode: &Scalar, mut costs: C) -> f64
    where
        C: FnMut(Id) -> f64,
    {
        enode.fold(node_cost(enode), |sum, id| sum + costs(id))
    }
}

/// The cost of an expression, each distinct node counted once (common
/// subexpressions are computed once).
pub fn cost_of(expr: &RecExpr<Scalar>) -> f64 {
    let mut seen = std::collections::HashSet::new();
    expr.as_ref()
        .iter()
        .filter(|n| seen.insert((*n).clone()))
        .map(node_cost)
        .sum()
}

/// Extraction's cost with ties broken towards given nodes (the input's, so
/// that what no rewrite improves is extracted as written): the cost, then
/// how many nodes of the tree are not given. `given` holds nodes with
/// canonical children.
pub struct PreferGiven<'a, N: egg::Analysis<Scalar>> {
    pub egraph: &'a egg::EGraph<Scalar, N>,
    pub given: &'a std::collections::HashSet<Scalar>,
}

impl<N: egg::Analysis<Scalar>> CostFunction<Scalar> for PreferGiven<'_, N> {
    type Cost = (f64, usize);
    fn cost<C>(&mut self, enode: &Scalar, mut costs: C) -> (f64, usize)
    where
        C: FnMut(Id) -> (f64, usize),
    {
        let canonical = enode.clone().map_children(|c| self.egraph.find(c));
        let own = (
            node_cost(enode),
            usize::from(!self.given.contains(&canonical)),
        );
        enode.fold(own, |(cost, new), id| {
            let (c, n) = costs(id);
            (cost + c, new + n)
        })
    }
}

/// The best node of every class under [`PreferGiven`] (children by class,
/// canonical). Costs only decrease, so a worklist reaches the fixpoint:
/// a class whose cost drops sends its parents back to the list (linear on
/// a long chain, where a sweep over all classes until nothing changes is
/// quadratic).
pub fn best_nodes<N: egg::Analysis<Scalar>>(
    egraph: &egg::EGraph<Scalar, N>,
    given: &std::collections::HashSet<Scalar>,
) -> std::collections::HashMap<Id, Scalar> {
    use std::collections::{HashMap, HashSet, VecDeque};
    let mut cf = PreferGiven { egraph, given };
    let mut best: HashMap<Id, ((f64, usize), Scalar)> = HashMap::new();
    let mut queue: VecDeque<Id> = egraph.classes().map(|c| c.id).collect();
    let mut queued: HashSet<Id> = queue.iter().copied().collect();
    while let Some(id) = queue.pop_front() {
        queued.remove(&id);
        let class = &egraph[id];
        let mut found: Option<((f64, usize), &Scalar)> = None;
        for node in &class.nodes {
            let known = node
                .children()
                .iter()
                .all(|c| best.contains_key(&egraph.find(*c)));
            if !known {
                continue;
            }
            let cost = cf.cost(node, |c| best[&egraph.find(c)].0);
            if found.as_ref().is_none_or(|(f, _)| cost < *f) {
                found = Some((cost, node));
            }
        }
        let Some((cost, node)) = found else { continue };
        let improves = best.get(&class.id).is_none_or(|(old, _)| cost < *old);
        if improves {
            let canonical = node.clone().map_children(|c| egraph.find(c));
            best.insert(class.id, (cost, canonical));
            for p in class.parents() {
                let p = egraph.find(p);
                if queued.insert(p) {
                    queue.push_back(p);
                }
            }
        }
    }
    best.into_iter().map(|(id, (_, n))| (id, n)).collect()
}
