//! Property-based fuzzing (proptest) of the reference interpreter: random
//! routines (buffers, initializations, accumulating assignments with index
//! expressions built from the iteration space, symbols, dynamic indices,
//! padded reads and every op and accumulation; now and then a malformed
//! one) run to results
//! or to an error with a message, never a panic.
//!
//! A routine is built from a list of random choices, so that proptest
//! shrinks a failure to a short list (a small routine).
//!
//! `cargo test` runs a short fixed-seed version. To fuzz for long:
//!
//! ```text
//! PROPTEST_CASES=200000 PROPTEST_RNG_SEED=$RANDOM cargo test -p ocannl-assign --test fuzz
//! ```

use ocannl_assign::{
    run, Accum, Affine, Arg, Assignment, Dist, Dynamic, Generator, NumOp, Routine, Stmt, Value,
};
use ocannl_ops::{BinaryOp, TernaryOp, UnaryOp};
use proptest::{
    prelude::*,
    test_runner::{Config, RngSeed},
};

fn config(cases: u32) -> Config {
    let d = Config::default();
    Config {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            d.cases
        } else {
            cases
        },
        rng_seed: if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
            d.rng_seed
        } else {
            RngSeed::Fixed(0x0CA_442)
        },
        failure_persistence: None,
        ..d
    }
}

/// The choices a routine is built from (0 once they run out).
struct Choices<'a>(std::slice::Iter<'a, u32>);

impl Choices<'_> {
    fn below(&mut self, n: usize) -> usize {
        self.0.next().copied().unwrap_or(0) as usize % n.max(1)
    }
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == n - 1
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
}

fn dims(c: &mut Choices) -> Vec<u64> {
    (0..c.below(3))
        .map(|_| {
            if c.one_in(30) {
                0
            } else {
                1 + c.below(3) as u64
            }
        })
        .collect()
}

fn add(a: Affine, b: Affine) -> Affine {
    Affine::Add(Box::new(a), Box::new(b))
}

/// A random expression (for the rare malformed or exotic index).
fn wild(c: &mut Choices, depth: usize) -> Affine {
    let k = if depth == 0 { c.below(3) } else { c.below(8) };
    let sub = |c: &mut Choices| Box::new(wild(c, depth.saturating_sub(1)));
    match k {
        0 => Affine::Dim(c.below(5)),
        1 => Affine::Sym(c.below(2)),
        2 => Affine::Const(c.pick(&[0, 1, -1, 2, i64::MAX, i64::MIN])),
        3 => Affine::Add(sub(c), sub(c)),
        4 => Affine::Mul(sub(c), sub(c)),
        5 => Affine::Mod(sub(c), sub(c)),
        6 => Affine::FloorDiv(sub(c), sub(c)),
        _ => Affine::CeilDiv(sub(c), sub(c)),
    }
}

/// The index of an axis of size `d` over `space`: an iterator of that size,
/// a fixed index, a padded convolution index, a symbol, or anything.
fn index(c: &mut Choices, d: u64, space: &[u64], symbols: usize) -> Affine {
    let same: Vec<usize> = (0..space.len()).filter(|&i| space[i] == d).collect();
    match c.below(12) {
        0 => Affine::Const(c.below(d as usize + 1) as i64),
        1 if symbols > 0 => Affine::Sym(0),
        2 if space.len() >= 2 => add(
            add(
                Affine::Dim(c.below(space.len())),
                Affine::Dim(c.below(space.len())),
            ),
            Affine::Const(-1),
        ),
        3 if c.one_in(3) => wild(c, 2),
        _ if !same.is_empty() => Affine::Dim(c.pick(&same)),
        _ => Affine::Const(0),
    }
}

fn num_op(c: &mut Choices, arity: usize) -> NumOp {
    match arity {
        1 => NumOp::Unary(c.pick(UnaryOp::ALL)),
        2 => NumOp::Binary(c.pick(BinaryOp::ALL)),
        _ => NumOp::Ternary(c.pick(TernaryOp::ALL)),
    }
}

/// A routine and its arguments from `choices`.
fn build(choices: &[u32]) -> (Routine, Vec<Value>) {
    let c = &mut Choices(choices.iter());
    let mut args = vec![];
    let mut values = vec![];
    // Buffers by number: their sizes (`None`: an index argument).
    let mut bufs: Vec<Option<Vec<u64>>> = vec![];
    let mut index_args = vec![];
    for i in 0..c.below(4) {
        if c.one_in(3) {
            args.push(Arg::Index);
            values.push(Value::Index(c.pick(&[-1, 0, 1, 2, 3, i64::MAX])));
            bufs.push(None);
            index_args.push(i);
        } else {
            let d = dims(c);
            let n: u64 = d.iter().product();
            args.push(Arg::Buffer { dims: d.clone() });
            values.push(Value::Buffer {
                dims: d.clone(),
                data: (0..n).map(|x| x as f64 - 1.5).collect(),
            });
            bufs.push(Some(d));
        }
    }
    let mut stmts = vec![];
    for _ in 0..1 + c.below(6) {
        let live: Vec<usize> = (0..bufs.len()).filter(|&b| bufs[b].is_some()).collect();
        let target = if live.is_empty() || c.one_in(40) {
            bufs.len()
        } else {
            c.pick(&live)
        };
        let size = |b: usize| bufs.get(b).cloned().flatten().unwrap_or_default();
        match c.below(10) {
            0..=2 => {
                let d = dims(c);
                stmts.push(Stmt::Alloc {
                    buf: bufs.len(),
                    dims: d.clone(),
                });
                bufs.push(Some(d));
            }
            3 => stmts.push(match c.below(4) {
                0 => Stmt::Fill {
                    buf: target,
                    value: c.below(5) as f64 - 2.0,
                },
                1 => Stmt::Range { buf: target },
                2 => Stmt::Random {
                    buf: target,
                    seed: c.below(1000) as u64,
                    generator: if c.one_in(2) {
                        Generator::Threefry
                    } else {
                        Generator::SplitMix64
                    },
                    dist: if c.one_in(2) {
                        Dist::Uniform {
                            low: -1.0,
                            high: 1.0,
                        }
                    } else {
                        Dist::Normal {
                            mean: 0.5,
                            std: 2.0,
                        }
                    },
                },
                _ => {
                    let n = size(target).iter().product::<u64>() as usize;
                    let n = if c.one_in(10) { n + 1 } else { n };
                    Stmt::Literal {
                        buf: target,
                        values: (0..n).map(|x| x as f64).collect(),
                    }
                }
            }),
            _ => {
                let lhs_dims = size(target);
                let arity = 1 + c.below(3);
                let rhs: Vec<usize> = (0..arity)
                    .map(|_| if live.is_empty() { 0 } else { c.pick(&live) })
                    .collect();
                // Now and then an op of another arity than the operands'.
                let op_arity = if c.one_in(20) { 1 + c.below(3) } else { arity };
                let op = num_op(c, op_arity);
                // The result's axes, then reduced ones.
                let mut space = lhs_dims.clone();
                for _ in 0..c.below(3) {
                    space.push(1 + c.below(3) as u64);
                }
                let symbols: Vec<usize> = if !index_args.is_empty() && c.one_in(3) {
                    vec![c.pick(&index_args)]
                } else {
                    vec![]
                };
                let mut maps = vec![(0..lhs_dims.len())
                    .map(|i| {
                        if c.one_in(12) {
                            index(c, lhs_dims[i], &space, symbols.len())
                        } else {
                            Affine::Dim(i)
                        }
                    })
                    .collect::<Vec<_>>()];
                for &b in &rhs {
                    let d = size(b);
                    maps.push(
                        d.iter()
                            .map(|&n| index(c, n, &space, symbols.len()))
                            .collect(),
                    );
                }
                if c.one_in(30) {
                    maps.pop();
                }
                // Now and then a dynamic index (a gather's or a scatter's),
                // read from an operand (now and then one that does not
                // exist, or one the body reads), bounded (now and then by
                // 0), on an axis of some operand.
                let mut dynamic = vec![];
                let mut rhs = rhs;
                if c.one_in(5) && !live.is_empty() {
                    // Read from an operand of its own (the body reads the
                    // others); now and then from one the body reads or
                    // one that does not exist.
                    let source = match c.below(12) {
                        0 => c.below(rhs.len()),
                        1 => rhs.len() + 1,
                        _ => {
                            let b = c.pick(&live);
                            rhs.push(b);
                            maps.push(
                                size(b)
                                    .iter()
                                    .map(|&n| index(c, n, &space, symbols.len()))
                                    .collect(),
                            );
                            rhs.len() - 1
                        }
                    };
                    // On an axis of some operand, mostly bounded by its
                    // size (now and then by more, or by 0).
                    let k = c.below(maps.len().max(1));
                    let mut bound = c.below(4) as u64;
                    if let Some(m) = maps.get_mut(k).filter(|m| !m.is_empty()) {
                        let axis = c.below(m.len());
                        m[axis] = Affine::Sym(symbols.len());
                        let buf = if k == 0 { target } else { rhs[k - 1] };
                        if !c.one_in(8) {
                            bound = size(buf).get(axis).copied().unwrap_or(1);
                        }
                    }
                    dynamic.push(Dynamic { source, bound });
                }
                stmts.push(Stmt::Accum(Assignment {
                    lhs: target,
                    rhs,
                    accum: c.pick(Accum::ALL),
                    op: op.into(),
                    initialize_neutral: c.one_in(2),
                    space,
                    maps,
                    symbols,
                    dynamic,
                }));
            }
        }
    }
    let live: Vec<usize> = (0..bufs.len()).filter(|&b| bufs[b].is_some()).collect();
    let results = (0..c.below(3))
        .map(|_| {
            if live.is_empty() || c.one_in(30) {
                bufs.len()
            } else {
                c.pick(&live)
            }
        })
        .collect();
    (
        Routine {
            elts: Default::default(),
            args,
            stmts,
            results,
        },
        values,
    )
}

proptest! {
    #![proptest_config(config(4000))]

    #[test]
    fn interpreter_never_panics(choices in prop::collection::vec(any::<u32>(), 0..160)) {
        let (routine, values) = build(&choices);
        match run(&routine, &values) {
            Ok(results) => prop_assert_eq!(results.len(), routine.results.len()),
            Err(e) => prop_assert!(!e.0.is_empty()),
        }
    }
}

/// The generator reaches the interpreter's work: most routines with
/// assignments run to results.
#[test]
fn routines_mostly_run() {
    let mut rng = ocannl_ops::SplitMix64::new(7);
    let (mut ran, mut with_accum) = (0, 0);
    for _ in 0..2000 {
        let choices: Vec<u32> = (0..160).map(|_| rng.next_u64() as u32).collect();
        let (routine, values) = build(&choices);
        if routine.stmts.iter().any(|s| matches!(s, Stmt::Accum(_))) {
            with_accum += 1;
            ran += run(&routine, &values).is_ok() as usize;
        }
    }
    assert!(
        with_accum > 1000 && ran * 3 > with_accum,
        "{ran} of {with_accum} ran"
    );
}

/// The routine with a virtualization plan applied.
fn virtualized(r: &Routine, max_visits: u64) -> Routine {
    use ocannl_assign::virtualize::{virtualize, NodeInfo, Options};
    let plan = virtualize(
        r,
        &|_| NodeInfo::default(),
        Options {
            max_visits,
            ..Options::default()
        },
    );
    let mut stmts: Vec<Option<Stmt>> = r.stmts.iter().cloned().map(Some).collect();
    for (k, s) in plan.changes {
        stmts[k] = s;
    }
    Routine {
        elts: Default::default(),
        args: r.args.clone(),
        stmts: stmts.into_iter().flatten().collect(),
        results: r.results.clone(),
    }
}

fn same(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Value::Buffer { dims: d1, data: x1 }, Value::Buffer { dims: d2, data: x2 }) => {
                d1 == d2
                    && x1
                        .iter()
                        .zip(x2)
                        .all(|(p, q)| p == q || (p.is_nan() && q.is_nan()))
            }
            (p, q) => p == q,
        })
}

/// Virtualizing a routine (with visit budget `budget`) never panics, and a
/// routine that runs computes the same values after.
fn keeps_values(
    routine: &Routine,
    values: &[Value],
    budget: u64,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let v = virtualized(routine, budget);
    if let Ok(want) = run(routine, values) {
        let got = run(&v, values);
        prop_assert!(got.is_ok(), "{:?}\n{:?}", got, v);
        prop_assert!(same(&want, &got.unwrap()), "{:?}\nbecame\n{:?}", routine, v);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(4000))]

    /// Virtualization never panics, and a routine that runs computes the
    /// same values with its virtual nodes inlined (f64, the same operations
    /// in the same order: exactly).
    #[test]
    fn virtualization_keeps_values(choices in prop::collection::vec(any::<u32>(), 0..160), budget in 1u64..4) {
        let (routine, values) = build(&choices);
        keeps_values(&routine, &values, budget)?;
    }
}

/// Routines shaped for virtualization: chains of well-formed assignments
/// (pointwise, transposed, broadcast, fixed-index and sliced reads,
/// reductions, diagonal and fixed-index writes, fills, fills followed by an
/// accumulation), several readers per node, results among them.
fn build_chain(choices: &[u32]) -> (Routine, Vec<Value>) {
    let c = &mut Choices(choices.iter());
    let mut args = vec![
        Arg::Buffer { dims: vec![2, 3] },
        Arg::Buffer { dims: vec![3] },
        Arg::Index,
    ];
    let mut values = vec![
        Value::Buffer {
            dims: vec![2, 3],
            data: (0..6).map(|x| x as f64 * 0.7 - 1.9).collect(),
        },
        Value::Buffer {
            dims: vec![3],
            data: vec![0.5, -1.25, 2.0],
        },
        Value::Index(1),
    ];
    let mut bufs: Vec<Option<Vec<u64>>> = vec![Some(vec![2, 3]), Some(vec![3]), None];
    if c.one_in(2) {
        args.push(Arg::Buffer { dims: vec![1] });
        values.push(Value::Buffer {
            dims: vec![1],
            data: vec![3.0],
        });
        bufs.push(Some(vec![1]));
    }
    let mut stmts = vec![];
    let pool: [&[u64]; 6] = [&[2, 3], &[3, 2], &[3], &[2], &[1], &[2, 3, 2]];
    for _ in 0..2 + c.below(7) {
        let d: Vec<u64> = c.pick(&pool).to_vec();
        let v = bufs.len();
        stmts.push(Stmt::Alloc {
            buf: v,
            dims: d.clone(),
        });
        bufs.push(Some(d.clone()));
        let live: Vec<usize> = (0..v).filter(|&b| bufs[b].is_some()).collect();
        let kind = c.below(10);
        if kind == 0 {
            stmts.push(Stmt::Fill {
                buf: v,
                value: c.below(5) as f64 - 2.0,
            });
            continue;
        }
        let fill_first = kind == 1;
        if fill_first {
            stmts.push(Stmt::Fill {
                buf: v,
                value: c.below(3) as f64,
            });
        }
        // The result's iterators (now and then a write of part of the
        // cells: a fixed index on an axis, or a diagonal of two axes of one
        // size), then maybe a reduced one.
        let mut space = vec![];
        let mut lhs_map: Vec<Affine> = vec![];
        let partial = c.one_in(5);
        for (a, &n) in d.iter().enumerate() {
            let diagonal = (0..a).find(|&b| d[b] == n && n > 1);
            lhs_map.push(match diagonal {
                Some(b) if partial && c.one_in(2) => lhs_map[b].clone(),
                _ if partial && n > 1 && c.one_in(3) => Affine::Const(c.below(n as usize) as i64),
                _ => {
                    space.push(n);
                    Affine::Dim(space.len() - 1)
                }
            });
        }
        let reduce = !fill_first && c.one_in(4);
        if reduce {
            space.push(1 + c.below(3) as u64);
        }
        // As the lowering does: a plain assignment only when every cell is
        // written once, else the cells are initialized to the neutral
        // element and accumulated onto.
        let once = ocannl_assign::writes_each_cell_once(&lhs_map, &space, &d);
        let accum = if fill_first {
            c.pick(&[Accum::Add, Accum::Sub, Accum::Max])
        } else if reduce || !once {
            c.pick(&[Accum::Add, Accum::Max])
        } else {
            Accum::Assign
        };
        let arity = 1 + c.below(3);
        let mut rhs = vec![];
        let mut maps = vec![lhs_map];
        let mut symbols = vec![];
        for _ in 0..arity {
            let b = c.pick(&live);
            let bd = bufs[b].clone().unwrap_or_default();
            let mut m = vec![];
            for (a, &n) in bd.iter().enumerate() {
                let fits: Vec<usize> = (0..space.len()).filter(|&i| space[i] == n).collect();
                m.push(if a == 0 && n == 2 && b == 0 && c.one_in(5) {
                    // A slice by the index argument (1, within the axis).
                    if symbols.is_empty() {
                        symbols.push(2);
                    }
                    Affine::Sym(0)
                } else if !fits.is_empty() && !c.one_in(6) {
                    Affine::Dim(c.pick(&fits))
                } else {
                    Affine::Const(c.below(n as usize) as i64)
                });
            }
            rhs.push(b);
            maps.push(m);
        }
        stmts.push(Stmt::Accum(Assignment {
            lhs: v,
            rhs,
            accum,
            op: num_op(c, arity).into(),
            initialize_neutral: !fill_first && (reduce || !once),
            space,
            maps,
            symbols,
            dynamic: vec![],
        }));
    }
    let nodes: Vec<usize> = (3..bufs.len()).filter(|&b| bufs[b].is_some()).collect();
    let mut results = vec![*nodes.last().expect("a node")];
    if c.one_in(3) {
        results.push(c.pick(&nodes));
    }
    (
        Routine {
            elts: Default::default(),
            args,
            stmts,
            results,
        },
        values,
    )
}

proptest! {
    #![proptest_config(config(4000))]

    #[test]
    fn virtualizing_chains_keeps_values(choices in prop::collection::vec(any::<u32>(), 0..200), budget in 1u64..4) {
        let (routine, values) = build_chain(&choices);
        keeps_values(&routine, &values, budget)?;
    }
}

/// The generator reaches virtualization: some random routines get virtual
/// nodes.
#[test]
fn routines_get_virtual_nodes() {
    use ocannl_assign::virtualize::{virtualize, Memory, NodeInfo, Options};
    let mut rng = ocannl_ops::SplitMix64::new(11);
    let mut inlined = 0;
    for _ in 0..2000 {
        let choices: Vec<u32> = (0..160).map(|_| rng.next_u64() as u32).collect();
        let (routine, values) = build_chain(&choices);
        assert!(run(&routine, &values).is_ok(), "{routine:?}");
        let plan = virtualize(&routine, &|_| NodeInfo::default(), Options::default());
        inlined += plan
            .decisions
            .iter()
            .filter(|d| d.memory == Memory::Virtual && d.inlined_into > 0)
            .count();
    }
    assert!(inlined > 1000, "{inlined} nodes inlined");
}

/// A random index map of a buffer of sizes `dims` over a random space:
/// plain iterators of any size (so permutations, diagonals, iterators of
/// another size), fixed indices, padded indices, and iterators indexing
/// nothing (reductions, broadcast writes).
fn write_map(c: &mut Choices) -> (Vec<Affine>, Vec<u64>, Vec<u64>) {
    let dims: Vec<u64> = (0..c.below(4)).map(|_| c.below(4) as u64).collect();
    let space: Vec<u64> = (0..c.below(5)).map(|_| c.below(4) as u64).collect();
    let map = dims
        .iter()
        .map(|&d| match c.below(8) {
            0 => Affine::Const(c.below(d as usize + 2) as i64),
            1 if !space.is_empty() => add(Affine::Dim(c.below(space.len())), Affine::Const(-1)),
            _ => {
                let fits: Vec<usize> = (0..space.len()).filter(|&i| space[i] == d).collect();
                if !fits.is_empty() && !c.one_in(5) {
                    Affine::Dim(c.pick(&fits))
                } else {
                    Affine::Dim(c.below(space.len().max(1)))
                }
            }
        })
        .collect();
    (map, space, dims)
}

/// Whether `map` writes every cell of `dims` once over `space`, counted
/// point by point.
fn counted_once(map: &[Affine], space: &[u64], dims: &[u64]) -> bool {
    if map.len() != dims.len() {
        return false;
    }
    let n: u64 = dims.iter().product();
    let mut counts = vec![0u32; n as usize];
    let total: u64 = space.iter().product();
    let strides = ocannl_assign::row_major_strides(dims);
    for mut point in 0..total {
        let mut it = vec![0i64; space.len()];
        for k in (0..space.len()).rev() {
            it[k] = (point % space[k]) as i64;
            point /= space[k];
        }
        let mut off = 0u64;
        for ((e, &d), &s) in map.iter().zip(dims).zip(&strides) {
            match e.eval(&it, &[]) {
                Some(i) if i >= 0 && (i as u64) < d => off += i as u64 * s,
                _ => return false,
            }
        }
        counts[off as usize] += 1;
    }
    counts.iter().all(|&k| k == 1)
}

proptest! {
    #![proptest_config(config(4000))]

    /// The one decision of whether an assignment may skip initializing its
    /// result is exact on maps of iterators and constants (diagonals,
    /// fixed indices, partial and broadcast writes, reductions included),
    /// and never claims more than counting shows on the others.
    #[test]
    fn writes_each_cell_once_is_what_counting_shows(choices in prop::collection::vec(any::<u32>(), 0..40)) {
        let (map, space, dims) = write_map(&mut Choices(choices.iter()));
        let decided = ocannl_assign::writes_each_cell_once(&map, &space, &dims);
        let counted = counted_once(&map, &space, &dims);
        if map.iter().all(|e| matches!(e, Affine::Dim(_) | Affine::Const(_))) {
            prop_assert_eq!(decided, counted, "{:?} over {:?} into {:?}", map, space, dims);
        } else {
            prop_assert!(!decided || counted, "{:?} over {:?} into {:?}", map, space, dims);
        }
    }
}
