//! `ocannl-simplify`: simplifies the scalar float computations of every
//! block with an e-graph (`ocannl-simplify`, over `egg`).
//!
//! In each block, whoever owns it (`func.func`, `scf.for`,
//! `linalg.generic`, an `ocannl_assign` op's body), the pure scalar float
//! `arith`/`math` ops that the language has (the dialect crate's
//! `numeric::SCALAR_OPS`, and float
//! `arith.constant`) form DAGs; every other value they use (block
//! arguments, results of other ops, values of enclosing regions) is an
//! opaque operand. The roots are the values something else uses (another
//! op, the terminator, an op in a nested block). All roots of one block and
//! one float type are simplified in one e-graph, so subexpressions common
//! to several roots are computed once; the extracted terms are emitted
//! before each root's op, reusing the block's own ops wherever they compute
//! a node already (so what does not change stays as it is), the uses of the
//! roots are replaced and the ops left unused are erased.
//!
//! Invariants: a block is rewritten only when the cost model says the
//! result is cheaper, else it is left untouched. No use comes before its
//! definition: a root's term is emitted right before the root's op from
//! values defined before it (a term that needs a later value, after two
//! roots merged, keeps the original root). Without `fast-math` only
//! rewrites that keep IEEE values exactly run, and constants fold exactly
//! in the computation's format.

use std::time::Duration;

use melior::ir::{
    attribute::AttributeLike,
    block::BlockLike,
    operation::{OperationLike, OperationResult},
    Attribute, BlockRef, OperationRef, Type, Value, ValueLike,
};
use ocannl_assign_dialect::numeric;
use ocannl_mlir::{
    attr,
    ir::{self, key},
    types, At, Builder,
};
use ocannl_simplify::{
    cost::node_cost, lang::num_op, stop_name, Constant, FromOp, Id, Language, Limits,
    Options as SimplifyOptions, Precision, RecExpr, Scalar, SimplifiedRoots, Symbol,
};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::{
    diag::Diagnostic,
    framework::{Locate, Options, PassResult},
};

// The limits' defaults are `ocannl_simplify::Limits::default()` (a test
// below keeps them equal).
crate::define_pass!(
    DEF,
    run,
    "ocannl-simplify",
    "OcannlSimplify",
    "Simplify the scalar float arith/math computations of every block with an e-graph (algebraic rewrites, constant folding, common subexpressions across a block); only rewrites that keep IEEE values exactly unless fast-math=true",
    [
        ("node-limit", COUNT, "10000", "E-graph node limit of each block's run"),
        ("iter-limit", COUNT, "30", "Iteration limit of each block's run"),
        ("time-limit-ms", COUNT, "50", "Time limit of each block's run, in milliseconds"),
        ("fast-math", BOOL, "false", "Also the rewrites that assume finite values, ignore signed zeros, reassociate, contract or replace library functions (x*0 -> 0, x-x -> 0, constants reassociated, small integer powers as products, a*b+c -> fma), and folding of every op"),
        ("remarks", BOOL, "false", "Report each simplified block as a remark: the cost before and after, the e-graph's nodes and iterations, and why the run stopped"),
    ],
    r#"simplifies the scalar float `arith`/`math` code of every block, whatever op owns it (function and loop bodies, `linalg.generic` and other ops' regions), with an e-graph (`core/simplify`): algebraic rewrites from a table of named rules, constant folding in the computation's format, common subexpressions shared across the block; without `fast-math` only rewrites that keep IEEE values exactly (`x*1`, `x/1`, `-(-x)`, exact folding, CSE), with it also `x*0 → 0`, `x-x → 0`, reassociated constants, small integer powers as products, `a*b+c → fma`; a block is rewritten only when the cost model says it got cheaper; each run has node, iteration and time limits, and `remarks=true` reports each simplified block (cost before and after, e-graph size, iterations, why the run stopped). In no named pipeline"#
);

/// The fast-math flags, in the order `#arith.fastmath` prints them.
const FLAGS: [&str; 7] = ["reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"];

struct Settings {
    limits: Limits,
    fast_math: bool,
    remarks: bool,
}

/// The e-graph's limits that the options give.
fn limits(options: &Options) -> Limits {
    let count = |name| usize::try_from(options.count(name)).unwrap_or(usize::MAX);
    Limits {
        nodes: count("node-limit"),
        iterations: count("iter-limit"),
        time: Duration::from_millis(options.count("time-limit-ms")),
    }
}

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    let loc = module.location();
    let settings = Settings {
        limits: limits(options),
        fast_math: options.flag("fast-math"),
        remarks: options.flag("remarks"),
    };
    // The blocks holding ops of the language, in pre-order.
    let mut seen = FxHashSet::default();
    let mut blocks: Vec<BlockRef> = vec![];
    for op in ir::collect(module, |op| member_kind(op).is_some()) {
        if let Some(b) = op.block() {
            if seen.insert(b.to_raw().ptr as usize) {
                blocks.push(b);
            }
        }
    }
    for block in blocks {
        simplify_block(block, &settings).at(loc)?;
    }
    Ok(())
}

/// What an op of the language is.
#[derive(Clone, Copy)]
enum Kind {
    Constant(f64),
    /// The language's name.
    Op(&'static str),
}

/// An op of the language: its kind and its float type's name.
fn member_kind(op: &OperationRef) -> Option<(Kind, &'static str)> {
    if op.result_count() != 1 || op.region_count() != 0 {
        return None;
    }
    let ty = op.result(0).ok()?.r#type();
    let float = types::float_name(ty)?;
    let name = op.name();
    let name = name.as_string_ref().as_str().ok()?;
    if name == "arith.constant" {
        let a = op.attribute("value").ok()?;
        return a
            .is_float()
            .then(|| attr::number_value(a))
            .flatten()
            .map(|v| (Kind::Constant(v), float));
    }
    let lang = numeric::op_of_name(name, op.operand_count())?.name();
    op.operands()
        .all(|v| v.r#type() == ty)
        .then_some((Kind::Op(lang), float))
}

fn simplify_block(block: BlockRef, settings: &Settings) -> Result<(), String> {
    // One e-graph per float type (the ops of a DAG share their type).
    let mut floats: Vec<&'static str> = vec![];
    let mut cur = block.first_operation();
    while let Some(op) = cur {
        if let Some((_, f)) = member_kind(&op) {
            if !floats.contains(&f) {
                floats.push(f);
            }
        }
        cur = op.next_in_block();
    }
    for float in floats {
        simplify_group(block, float, settings)?;
    }
    Ok(())
}

/// An operand that is not an op of the DAG.
struct Leaf<'c, 'a> {
    value: Value<'c, 'a>,
    /// The position of its op in the block (`None`: defined before the
    /// block's ops, a block argument or a value of an enclosing region).
    pos: Option<usize>,
}

/// A value of the plan: one of the block's, or an op to emit.
#[derive(Clone, Copy, PartialEq)]
enum Ref<'c, 'a> {
    Old(Value<'c, 'a>),
    New(usize),
}

/// An op to emit, right before the op at position `before`.
struct NewOp<'c, 'a> {
    node: Scalar,
    operands: Vec<Ref<'c, 'a>>,
    before: usize,
}

/// Values of the block with the positions of their ops.
type Defs<'c, 'a> = Vec<(usize, Value<'c, 'a>)>;

/// The block's ops of one float type and what the run made of them.
struct Group<'c, 'a> {
    /// Every op of the block, in order.
    ops: Vec<OperationRef<'c, 'a>>,
    /// The DAG's ops: position, node in `dag`.
    members: Vec<(usize, Id)>,
    /// Members by op.
    member_of_op: FxHashMap<usize, usize>,
    dag: RecExpr<Scalar>,
    leaves: Vec<Leaf<'c, 'a>>,
    /// The block's ops by what they compute: (language name, operands) and
    /// constants by bits, with their positions.
    by_node: FxHashMap<(String, Vec<usize>), Defs<'c, 'a>>,
    by_constant: FxHashMap<u64, Defs<'c, 'a>>,
    /// Constants of enclosing regions the DAG uses.
    outer_constants: Vec<Value<'c, 'a>>,
}

impl<'c, 'a> Group<'c, 'a> {
    fn value(&self, m: usize) -> Value<'c, 'a> {
        self.ops[self.members[m].0]
            .result(0)
            .expect("a member has one result")
            .into()
    }

    /// The member computing `v`, if any.
    fn member(&self, v: Value<'c, 'a>) -> Option<usize> {
        let r = OperationResult::try_from(v).ok()?;
        self.member_of_op
            .get(&(r.owner().to_raw().ptr as usize))
            .copied()
    }
}

/// Reads the block's ops of type `float` as a DAG (`None`: nothing to
/// simplify, or an operand defined after its use, as in a graph region).
fn read_group<'c, 'a>(block: BlockRef<'c, 'a>, float: &str) -> Option<Group<'c, 'a>> {
    let mut ops = vec![];
    let mut pos_of_op: FxHashMap<usize, usize> = FxHashMap::default();
    let mut cur = block.first_operation();
    while let Some(op) = cur {
        pos_of_op.insert(op.to_raw().ptr as usize, ops.len());
        ops.push(op);
        cur = op.next_in_block();
    }
    let mut g = Group {
        ops: vec![],
        members: vec![],
        member_of_op: FxHashMap::default(),
        dag: RecExpr::default(),
        leaves: vec![],
        by_node: FxHashMap::default(),
        by_constant: FxHashMap::default(),
        outer_constants: vec![],
    };
    let mut leaf_ids: FxHashMap<usize, Id> = FxHashMap::default();
    let mut any_op = false;
    for (pos, op) in ops.iter().enumerate() {
        let Some((kind, f)) = member_kind(op) else {
            continue;
        };
        if f != float {
            continue;
        }
        let value: Value = op.result(0).ok()?.into();
        let node = match kind {
            Kind::Constant(c) => {
                g.by_constant
                    .entry(c.to_bits())
                    .or_default()
                    .push((pos, value));
                Scalar::Num(Constant::new(c))
            }
            Kind::Op(name) => {
                any_op = true;
                let mut children = vec![];
                for v in op.operands() {
                    let def = OperationResult::try_from(v)
                        .ok()
                        .and_then(|r| pos_of_op.get(&(r.owner().to_raw().ptr as usize)).copied());
                    if def.is_some_and(|d| d >= pos) {
                        return None;
                    }
                    let id = match g.member(v) {
                        Some(m) => g.members[m].1,
                        None => *leaf_ids.entry(key(v)).or_insert_with(|| {
                            // A constant of an enclosing region is a
                            // constant (available everywhere in the block).
                            let outer = OperationResult::try_from(v)
                                .ok()
                                .map(|r| r.owner())
                                .filter(|o| def.is_none() && o.block() != Some(block))
                                .and_then(|o| member_kind(&o));
                            if let Some((Kind::Constant(c), _)) = outer {
                                g.by_constant.entry(c.to_bits()).or_default().push((0, v));
                                g.outer_constants.push(v);
                                return g.dag.add(Scalar::Num(Constant::new(c)));
                            }
                            let k = g.leaves.len();
                            g.leaves.push(Leaf { value: v, pos: def });
                            g.dag.add(Scalar::Arg(Symbol::from(format!("v{k}"))))
                        }),
                    };
                    children.push(id);
                }
                let keys = op.operands().map(key).collect();
                g.by_node
                    .entry((name.to_string(), keys))
                    .or_default()
                    .push((pos, value));
                Scalar::from_op(name, children).ok()?
            }
        };
        g.member_of_op
            .insert(op.to_raw().ptr as usize, g.members.len());
        g.members.push((pos, g.dag.add(node)));
    }
    g.ops = ops;
    any_op.then_some(g)
}

/// Whether the pass can emit the node as MLIR (a constant, an operand, or
/// an op of `numeric::SCALAR_OPS`; `recip` as a division, `identity` as its
/// operand).
fn emittable(node: &Scalar) -> bool {
    match node {
        Scalar::Num(_) | Scalar::Arg(_) | Scalar::Recip(_) | Scalar::Identity(_) => true,
        n => num_op(n).and_then(numeric::name_of_op).is_some(),
    }
}

/// The plan of a block's rewrite.
struct Planner<'g, 'c, 'a> {
    g: &'g Group<'c, 'a>,
    out: &'g RecExpr<Scalar>,
    /// What each node of `out` is, once known (valid from then on: roots are
    /// planned in block order).
    avail: FxHashMap<Id, Ref<'c, 'a>>,
    new_ops: Vec<NewOp<'c, 'a>>,
    /// The constants to emit, by bits.
    new_constants: FxHashMap<u64, Ref<'c, 'a>>,
}

impl<'g, 'c, 'a> Planner<'g, 'c, 'a> {
    /// The block's value with position at most `p` in `list`.
    fn old_at(list: Option<&Defs<'c, 'a>>, p: usize) -> Option<Value<'c, 'a>> {
        list?.iter().find(|(q, _)| *q <= p).map(|(_, v)| *v)
    }

    /// `out`'s node `top` as a value available right before the op at
    /// position `p` (or that op's own result): a value of the block, or ops
    /// to emit there. `None` when it needs a value defined later.
    fn resolve(&mut self, top: Id, p: usize) -> Option<Ref<'c, 'a>> {
        let mut failed: FxHashSet<Id> = FxHashSet::default();
        let mut stack = vec![(top, false)];
        while let Some((id, expanded)) = stack.pop() {
            if self.avail.contains_key(&id) || failed.contains(&id) {
                continue;
            }
            let node = &self.out[id];
            if !emittable(node) {
                failed.insert(id);
                continue;
            }
            let r = match node {
                Scalar::Arg(sym) => {
                    let k: usize = sym.as_str()[1..].parse().expect("leaf symbols are v<k>");
                    let leaf = &self.g.leaves[k];
                    if leaf.pos.is_some_and(|q| q > p) {
                        failed.insert(id);
                        continue;
                    }
                    Ref::Old(leaf.value)
                }
                Scalar::Num(c) => self.constant(c.value(), p),
                _ if !expanded => {
                    stack.push((id, true));
                    for &c in node.children() {
                        stack.push((c, false));
                    }
                    continue;
                }
                _ => {
                    if node.children().iter().any(|c| failed.contains(c)) {
                        failed.insert(id);
                        continue;
                    }
                    let mut operands: Vec<Ref> =
                        node.children().iter().map(|c| self.avail[c]).collect();
                    let mut node = node.clone();
                    if let Scalar::Recip([x]) = node {
                        // 1 / x.
                        operands.insert(0, self.constant(1.0, p));
                        node = Scalar::Div([x, x]);
                    }
                    if let Scalar::Identity(_) = node {
                        operands[0]
                    } else {
                        let olds: Option<Vec<usize>> = operands
                            .iter()
                            .map(|r| match r {
                                Ref::Old(v) => Some(key(*v)),
                                Ref::New(_) => None,
                            })
                            .collect();
                        let existing = olds.and_then(|keys| {
                            Self::old_at(self.g.by_node.get(&(node.to_string(), keys)), p)
                        });
                        match existing {
                            Some(v) => Ref::Old(v),
                            None => self.push(node.clone(), operands, p),
                        }
                    }
                }
            };
            self.avail.insert(id, r);
        }
        self.avail.get(&top).copied()
    }

    /// The constant `c`: the block's, or one to emit (once).
    fn constant(&mut self, c: f64, p: usize) -> Ref<'c, 'a> {
        if let Some(v) = Self::old_at(self.g.by_constant.get(&c.to_bits()), p) {
            return Ref::Old(v);
        }
        if let Some(r) = self.new_constants.get(&c.to_bits()) {
            return *r;
        }
        let r = self.push(Scalar::Num(Constant::new(c)), vec![], p);
        self.new_constants.insert(c.to_bits(), r);
        r
    }

    fn push(&mut self, node: Scalar, operands: Vec<Ref<'c, 'a>>, before: usize) -> Ref<'c, 'a> {
        self.new_ops.push(NewOp {
            node,
            operands,
            before,
        });
        Ref::New(self.new_ops.len() - 1)
    }
}

/// The fast-math attribute of a new op named `name` replacing the ops
/// `members`: the flags common to those of the same name, or, when none
/// has that name, to all of them (constants aside). `None`: no flag.
fn fastmath_attr<'c>(
    ctx: &'c melior::Context,
    g: &Group,
    members: &[usize],
    name: &str,
) -> Option<Attribute<'c>> {
    if name == "arith.constant" {
        return None;
    }
    let ops: Vec<OperationRef> = members
        .iter()
        .map(|&m| g.ops[g.members[m].0])
        .filter(|op| ir::name(op) != "arith.constant")
        .collect();
    let same: Vec<OperationRef> = ops
        .iter()
        .copied()
        .filter(|op| ir::name(op) == name)
        .collect();
    let from = if same.is_empty() { ops } else { same };
    let mut common: Vec<&'static str> = FLAGS.to_vec();
    for op in from {
        let text = op
            .attribute("fastmath")
            .map(|a| a.to_string())
            .unwrap_or_default();
        let inner = text
            .split_once('<')
            .and_then(|(_, r)| r.split_once('>'))
            .map(|(f, _)| f)
            .unwrap_or("");
        let flags: Vec<&str> = inner.split(',').map(str::trim).collect();
        if !flags.contains(&"fast") {
            common.retain(|f| flags.contains(f));
        }
    }
    if common.is_empty() {
        return None;
    }
    let text = if common.len() == FLAGS.len() {
        "fast".to_string()
    } else {
        common.join(",")
    };
    Attribute::parse(ctx, &format!("#arith.fastmath<{text}>"))
}

/// The members reachable from `from` through operands.
fn reachable(g: &Group, from: impl IntoIterator<Item = usize>) -> Vec<bool> {
    let mut seen = vec![false; g.members.len()];
    let mut stack: Vec<usize> = from.into_iter().collect();
    while let Some(m) = stack.pop() {
        if std::mem::replace(&mut seen[m], true) {
            continue;
        }
        for v in g.ops[g.members[m].0].operands() {
            if let Some(u) = g.member(v) {
                stack.push(u);
            }
        }
    }
    seen
}

/// The group's e-graph run (all roots at once), then its placed result
/// if it is cheaper: new ops emitted, the roots' uses replaced, the ops
/// left unused erased.
fn simplify_group(block: BlockRef, float: &str, settings: &Settings) -> Result<(), String> {
    let Some(g) = read_group(block, float) else {
        return Ok(());
    };
    let roots = group_roots(&g);
    if roots.is_empty() {
        return Ok(());
    }
    let root_nodes: Vec<Id> = roots.iter().map(|&m| g.members[m].1).collect();
    let options = SimplifyOptions {
        limits: settings.limits,
        fast_math: settings.fast_math,
        precision: Precision::from_name(float).expect("a float type of the language"),
    };
    let s = ocannl_simplify::simplify_roots(&g.dag, &root_nodes, &options);
    let owner = block
        .parent_operation()
        .map(|o| ir::name(&o))
        .unwrap_or_default();
    tracing::debug!(
        block_of = %owner,
        float,
        roots = roots.len(),
        cost_before = s.cost_before,
        cost_after = s.cost_after,
        nodes = s.nodes,
        iterations = s.iterations,
        stop = %stop_name(&s.stop),
        "e-graph run"
    );
    if s.cost_after >= s.cost_before {
        return Ok(());
    }
    let (new_ops, replaced) = plan(&g, &s, &roots);
    if replaced.is_empty() {
        return Ok(());
    }
    let (emit, cost_after) = placed_cost(&g, &roots, &new_ops, &replaced);
    if cost_after >= s.cost_before {
        tracing::debug!(cost_after, "no cheaper rewrite once placed: block kept");
        return Ok(());
    }

    // Emit, replace, erase.
    let ctx_ref = block
        .parent_operation()
        .ok_or("internal error: a block without an op")?
        .context();
    let made = emit_new_ops(ir::context(&ctx_ref), &g, &new_ops, &emit)?;
    for &(m, r) in &replaced {
        let new = match r {
            Ref::Old(v) => v,
            Ref::New(j) => made[j].expect("replacements are emitted"),
        };
        ir::replace_all_uses(g.value(m), new);
    }
    erase_unused(&g, &roots)?;

    if settings.remarks {
        if let Some(owner) = block.parent_operation() {
            Diagnostic::remark(
                owner.location(),
                format!(
                    "ocannl-simplify: {float} computations of a '{}' block: cost {} -> {} (e-graph: {} nodes, {} iterations, stopped: {})",
                    ir::name(&owner),
                    show(s.cost_before),
                    show(cost_after),
                    s.nodes,
                    s.iterations,
                    stop_name(&s.stop)
                ),
            )
            .emit();
        }
    }
    Ok(())
}

/// The roots of a group: its members used by anything else.
fn group_roots(g: &Group) -> Vec<usize> {
    (0..g.members.len())
        .filter(|&m| {
            ir::users(g.value(m))
                .iter()
                .any(|u| !g.member_of_op.contains_key(&(u.to_raw().ptr as usize)))
        })
        .collect()
}

/// A root replaced: the member, and what replaces it.
type Replacement<'c, 'a> = (usize, Ref<'c, 'a>);

/// The plan of the simplified roots, in block order, each resolved before
/// its op: the new ops it may emit, and the roots whose value changes.
fn plan<'c, 'a>(
    g: &Group<'c, 'a>,
    s: &SimplifiedRoots,
    roots: &[usize],
) -> (Vec<NewOp<'c, 'a>>, Vec<Replacement<'c, 'a>>) {
    let mut planner = Planner {
        g,
        out: &s.expr,
        avail: FxHashMap::default(),
        new_ops: vec![],
        new_constants: FxHashMap::default(),
    };
    let mut replaced = vec![];
    for (k, &m) in roots.iter().enumerate() {
        let (pos, _) = g.members[m];
        let old = g.value(m);
        match planner.resolve(s.roots[k], pos) {
            Some(Ref::Old(v)) if v == old => {}
            Some(r) => replaced.push((m, r)),
            None => {
                planner.avail.insert(s.roots[k], Ref::Old(old));
            }
        }
    }
    (planner.new_ops, replaced)
}

/// Which new ops the replacements use (those to emit), and the cost of the
/// block once they are placed: the emitted ops, and the members still used.
fn placed_cost(
    g: &Group,
    roots: &[usize],
    new_ops: &[NewOp],
    replaced: &[Replacement],
) -> (Vec<bool>, f64) {
    let mut emit = vec![false; new_ops.len()];
    let mut stack: Vec<Ref> = replaced.iter().map(|(_, r)| *r).collect();
    let mut olds_used: Vec<Value> = vec![];
    while let Some(r) = stack.pop() {
        match r {
            Ref::Old(v) => olds_used.push(v),
            Ref::New(i) => {
                if !std::mem::replace(&mut emit[i], true) {
                    stack.extend(new_ops[i].operands.iter().copied());
                }
            }
        }
    }
    let replaced_members: FxHashSet<usize> = replaced.iter().map(|(m, _)| *m).collect();
    let kept_roots = roots
        .iter()
        .copied()
        .filter(|m| !replaced_members.contains(m));
    let live = reachable(
        g,
        kept_roots.chain(olds_used.iter().filter_map(|v| g.member(*v))),
    );
    let cost = new_ops
        .iter()
        .zip(&emit)
        .filter(|(_, e)| **e)
        .map(|(n, _)| node_cost(&n.node))
        .sum::<f64>()
        + (0..g.members.len())
            .filter(|&m| live[m])
            .map(|m| node_cost(&g.dag[g.members[m].1]))
            .sum::<f64>();
    (emit, cost)
}

/// Emits the new ops marked in `emit`, each before its root's op, with the
/// fast-math flags of the ops its root's rewrite replaces; returns the
/// value of each (`None`: not emitted).
fn emit_new_ops<'c, 'a>(
    ctx: &'c melior::Context,
    g: &Group<'c, 'a>,
    new_ops: &[NewOp<'c, 'a>],
    emit: &[bool],
) -> Result<Vec<Option<Value<'c, 'a>>>, String> {
    let ty: Type = g.value(0).r#type();
    // Per root position, the ops its rewrite replaces, and the fast-math
    // flags of a new op of each name.
    let mut dag_at: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    let mut flags_at: FxHashMap<(usize, &str), Option<Attribute>> = FxHashMap::default();
    let mut made: Vec<Option<Value>> = vec![None; new_ops.len()];
    for (i, n) in new_ops.iter().enumerate() {
        if !emit[i] {
            continue;
        }
        let before = g.ops[n.before];
        let b = Builder::new(ctx, before.location());
        let at = At::before(before).map_err(|e| e.to_string())?;
        let operands: Vec<Value> = n
            .operands
            .iter()
            .map(|r| match r {
                Ref::Old(v) => *v,
                Ref::New(j) => made[*j].expect("operands are emitted first"),
            })
            .collect();
        let mlir = match &n.node {
            Scalar::Num(_) => "arith.constant",
            node => num_op(node)
                .and_then(numeric::name_of_op)
                .ok_or_else(|| format!("internal error: cannot emit '{node}'"))?,
        };
        let root_dag = dag_at.entry(n.before).or_insert_with(|| {
            let m = g.member_of_op[&(before.to_raw().ptr as usize)];
            let seen = reachable(g, [m]);
            (0..seen.len()).filter(|&k| seen[k]).collect()
        });
        let fastmath = *flags_at
            .entry((n.before, mlir))
            .or_insert_with(|| fastmath_attr(ctx, g, root_dag, mlir));
        let attrs: Vec<(&str, Attribute)> = fastmath.iter().map(|a| ("fastmath", *a)).collect();
        let v = match &n.node {
            Scalar::Num(c) => b.float(at, c.value(), ty),
            _ => b.op1(at, mlir, &operands, ty, &attrs),
        };
        made[i] = Some(v);
    }
    Ok(made)
}

/// Erases the members of the roots' DAG left unused once the roots' uses
/// are replaced (users first), and the constants of enclosing regions that
/// only they used.
fn erase_unused(g: &Group, roots: &[usize]) -> Result<(), String> {
    let dag = reachable(g, roots.iter().copied());
    let mut dead = vec![false; g.members.len()];
    let mut dead_ops: FxHashSet<usize> = FxHashSet::default();
    for m in (0..g.members.len()).rev() {
        if !dag[m] {
            continue;
        }
        let unused = ir::users(g.value(m))
            .iter()
            .all(|u| dead_ops.contains(&(u.to_raw().ptr as usize)));
        if unused {
            dead[m] = true;
            dead_ops.insert(g.ops[g.members[m].0].to_raw().ptr as usize);
        }
    }
    let mut graveyard = ir::Graveyard::new();
    // Constants of enclosing regions that only dead ops used (buried
    // first: the graveyard erases users first).
    for &v in &g.outer_constants {
        let users = ir::users(v);
        if !users.is_empty()
            && users
                .iter()
                .all(|u| dead_ops.contains(&(u.to_raw().ptr as usize)))
        {
            if let Ok(r) = OperationResult::try_from(v) {
                graveyard.bury(r.owner());
            }
        }
    }
    for m in (0..g.members.len()).filter(|&m| dead[m]) {
        graveyard.bury(g.ops[g.members[m].0]);
    }
    // SAFETY: the group's handles to the erased ops are not used after
    // (the caller only reports on the block).
    unsafe { graveyard.erase_all() }
}

/// A cost as the remarks show it (no negative zero).
fn show(cost: f64) -> String {
    format!("{}", cost + 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options' declared defaults are the simplifier's own.
    #[test]
    fn default_options_are_the_default_limits() {
        let l = limits(&Options::parse(DEF.options(), &[]).unwrap());
        let d = Limits::default();
        assert_eq!(
            (l.nodes, l.iterations, l.time),
            (d.nodes, d.iterations, d.time)
        );
        let l = limits(&Options::parse(DEF.options(), &[("node-limit", "7")]).unwrap());
        assert_eq!(l.nodes, 7);
        let e = Options::parse(DEF.options(), &[("iter-limit", "-1")]).unwrap_err();
        assert_eq!(e.kind(), ocannl_mlir::Kind::Parse);
        assert_eq!(
            e.to_string(),
            "option 'iter-limit' must be a non-negative integer, not '-1'"
        );
    }
}
