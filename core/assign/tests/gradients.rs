//! Backprop checked against central finite differences, in f64, with the
//! reference interpreter: every numeric op (as a pointwise op, and
//! broadcast), contractions, fixed indices, subtracting accumulations and
//! convolution-like sums, on random inputs from a fixed seed.

use ocannl_assign::{autodiff::backprop, run, Affine, Arg, Assignment, Routine, Stmt, Value};
use ocannl_ops::{Accum, BinaryOp, NumOp, SplitMix64, TernaryOp, UnaryOp};

/// The loss: the sum of every cell of the routine's first result.
fn loss(r: &Routine, args: &[Value]) -> f64 {
    match &run(r, args).expect("the forward routine runs")[0] {
        Value::Buffer { data, .. } => data.iter().sum(),
        Value::Index(_) => unreachable!(),
    }
}

/// Checks the gradients of the sum of result 0 with respect to the buffer
/// arguments `params` against central differences.
fn check(name: &str, r: &Routine, params: &[usize], args: &[Value]) {
    let loss_buf = r.results[0];
    let bp = backprop(r, loss_buf, params).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut with_grads = r.clone();
    with_grads.stmts.extend(bp.stmts.clone());
    with_grads.results = bp.grads.iter().map(|&(_, g)| g).collect();
    let grads = run(&with_grads, args).unwrap_or_else(|e| panic!("{name}: {e}"));
    let h = 1e-6;
    for (k, &p) in params.iter().enumerate() {
        let Value::Buffer { data: analytic, .. } = &grads[k] else {
            unreachable!()
        };
        let Value::Buffer { data, .. } = &args[p] else {
            unreachable!()
        };
        for j in 0..data.len() {
            let at = |delta: f64| {
                let mut a = args.to_vec();
                if let Value::Buffer { data, .. } = &mut a[p] {
                    data[j] += delta;
                }
                loss(r, &a)
            };
            let fd = (at(h) - at(-h)) / (2.0 * h);
            let tol = 1e-5 * (1.0f64).max(fd.abs()).max(analytic[j].abs());
            assert!(
                (analytic[j] - fd).abs() <= tol,
                "{name}: d loss / d arg{p}[{j}]: backprop {} vs finite differences {fd}",
                analytic[j]
            );
        }
    }
}

fn d(i: usize) -> Affine {
    Affine::Dim(i)
}

fn buffer(dims: &[u64], data: Vec<f64>) -> Value {
    Value::Buffer {
        dims: dims.to_vec(),
        data,
    }
}

/// Values for an operand of `op` away from kinks and outside no domain.
fn values(rng: &mut SplitMix64, n: usize, op: NumOp, operand: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let u = 0.1 + 0.8 * rng.next_f64();
            let sign = if rng.below(2) == 0 { -1.0 } else { 1.0 };
            match op {
                NumOp::Unary(UnaryOp::Log | UnaryOp::Log2 | UnaryOp::Sqrt | UnaryOp::RecipSqrt)
                | NumOp::Binary(BinaryOp::Pow) => 0.5 + u,
                NumOp::Unary(UnaryOp::Recip) | NumOp::Binary(BinaryOp::Div) if operand == 1 => {
                    sign * (0.5 + u)
                }
                NumOp::Unary(UnaryOp::Recip) => sign * (0.5 + u),
                // Away from the gate's edges at 0 and 1.
                NumOp::Unary(UnaryOp::Satur01) | NumOp::Binary(BinaryOp::Satur01Gate)
                    if operand == 0 =>
                {
                    [-0.4, 0.3, 0.6, 1.4][rng.below(4) as usize] + 0.05 * u
                }
                NumOp::Binary(BinaryOp::Mod) if operand == 1 => 2.0 + u,
                // Conditions: zero or not.
                NumOp::Ternary(TernaryOp::Where) if operand == 0 => rng.below(2) as f64,
                _ => sign * u,
            }
        })
        .collect()
}

/// `t = op(x...)` pointwise over a 2x3 space, then `loss = sum(t * w)`.
/// With `broadcast`, operand 0 is a row of 3 read by every row.
fn pointwise(op: NumOp, broadcast: bool, seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let n = op.arity();
    let dims = |i: usize| -> Vec<u64> {
        if broadcast && i == 0 {
            vec![3]
        } else {
            vec![2, 3]
        }
    };
    let map = |i: usize| -> Vec<Affine> {
        if broadcast && i == 0 {
            vec![d(1)]
        } else {
            vec![d(0), d(1)]
        }
    };
    // Args: the operands, then the weights.
    let mut args: Vec<Arg> = (0..n).map(|i| Arg::Buffer { dims: dims(i) }).collect();
    args.push(Arg::Buffer { dims: vec![2, 3] });
    let (t, l) = (n + 1, n + 2);
    let r = Routine {
        elts: Default::default(),
        args,
        stmts: vec![
            Stmt::Alloc {
                buf: t,
                dims: vec![2, 3],
            },
            Stmt::Accum(Assignment {
                lhs: t,
                rhs: (0..n).collect(),
                accum: Accum::Assign,
                op: op.into(),
                initialize_neutral: false,
                space: vec![2, 3],
                maps: std::iter::once(vec![d(0), d(1)])
                    .chain((0..n).map(map))
                    .collect(),
                symbols: vec![],
                dynamic: vec![],
            }),
            Stmt::Alloc {
                buf: l,
                dims: vec![],
            },
            Stmt::Accum(Assignment {
                lhs: l,
                rhs: vec![t, n],
                accum: Accum::Add,
                op: NumOp::Binary(BinaryOp::Mul).into(),
                initialize_neutral: true,
                space: vec![2, 3],
                maps: vec![vec![], vec![d(0), d(1)], vec![d(0), d(1)]],
                symbols: vec![],
                dynamic: vec![],
            }),
        ],
        results: vec![l],
    };
    let mut vals: Vec<Value> = (0..n)
        .map(|i| {
            let dd = dims(i);
            let cells = dd.iter().product::<u64>() as usize;
            buffer(&dd, values(&mut rng, cells, op, i))
        })
        .collect();
    vals.push(buffer(
        &[2, 3],
        (0..6).map(|_| rng.next_f64() - 0.5).collect(),
    ));
    // The divisor of `mod` has no gradient: it is data.
    let params: Vec<usize> = match op {
        NumOp::Binary(BinaryOp::Mod) => vec![0],
        _ => (0..n).collect(),
    };
    let kind = if broadcast { "broadcast" } else { "pointwise" };
    check(&format!("{kind} {op}"), &r, &params, &vals);
}

#[test]
fn every_op_pointwise_and_broadcast() {
    let ops: Vec<NumOp> = UnaryOp::ALL
        .iter()
        .map(|&o| NumOp::Unary(o))
        .chain(BinaryOp::ALL.iter().map(|&o| NumOp::Binary(o)))
        .chain(TernaryOp::ALL.iter().map(|&o| NumOp::Ternary(o)))
        .collect();
    for (k, &op) in ops.iter().enumerate() {
        // A stopped gradient is 0 by definition, not the finite
        // differences of the identity (tests/stop_gradient.rs of the API,
        // lit autodiff.mlir).
        if op == NumOp::Unary(UnaryOp::StopGradient) {
            continue;
        }
        for seed in 0..3 {
            pointwise(op, false, 100 * k as u64 + seed);
            if op.arity() > 1 {
                pointwise(op, true, 100 * k as u64 + seed + 50);
            }
        }
    }
}

/// `c[i,j] =+ a[i,k] * b[k,j]`, then `e[i] = tanh(c[i,1])` (a fixed index),
/// then `loss =- e[i]` (a subtracting accumulation).
#[test]
fn contraction_fixed_index_and_subtraction() {
    let mut rng = SplitMix64::new(7);
    let (a, b, c, e, l) = (0, 1, 2, 3, 4);
    let r = Routine {
        elts: Default::default(),
        args: vec![
            Arg::Buffer { dims: vec![2, 4] },
            Arg::Buffer { dims: vec![4, 3] },
        ],
        stmts: vec![
            Stmt::Alloc {
                buf: c,
                dims: vec![2, 3],
            },
            Stmt::Accum(Assignment {
                lhs: c,
                rhs: vec![a, b],
                accum: Accum::Add,
                op: NumOp::Binary(BinaryOp::Mul).into(),
                initialize_neutral: true,
                space: vec![2, 3, 4],
                maps: vec![vec![d(0), d(1)], vec![d(0), d(2)], vec![d(2), d(1)]],
                symbols: vec![],
                dynamic: vec![],
            }),
            Stmt::Alloc {
                buf: e,
                dims: vec![2],
            },
            Stmt::Accum(Assignment {
                lhs: e,
                rhs: vec![c],
                accum: Accum::Assign,
                op: NumOp::Unary(UnaryOp::Tanh).into(),
                initialize_neutral: false,
                space: vec![2],
                maps: vec![vec![d(0)], vec![d(0), Affine::Const(1)]],
                symbols: vec![],
                dynamic: vec![],
            }),
            Stmt::Alloc {
                buf: l,
                dims: vec![],
            },
            Stmt::Accum(Assignment {
                lhs: l,
                rhs: vec![e],
                accum: Accum::Sub,
                op: NumOp::Unary(UnaryOp::Identity).into(),
                initialize_neutral: true,
                space: vec![2],
                maps: vec![vec![], vec![d(0)]],
                symbols: vec![],
                dynamic: vec![],
            }),
        ],
        results: vec![l],
    };
    let vals = vec![
        buffer(&[2, 4], (0..8).map(|_| rng.next_f64() - 0.5).collect()),
        buffer(&[4, 3], (0..12).map(|_| rng.next_f64() - 0.5).collect()),
    ];
    check("contraction", &r, &[a, b], &vals);
}

/// Max- and min-reductions (of a value and of a product): the gradient
/// reaches the value each result is, then a weighted sum makes the loss.
#[test]
fn max_and_min_reductions() {
    for accum in [Accum::Max, Accum::Min] {
        let mut rng = SplitMix64::new(11);
        let (a, b, m, l) = (0, 1, 2, 3);
        for op in [
            NumOp::Unary(UnaryOp::Identity),
            NumOp::Binary(BinaryOp::Mul),
        ] {
            let rhs = if op.arity() == 1 { vec![a] } else { vec![a, b] };
            let mut maps = vec![vec![d(0)], vec![d(0), d(1)]];
            if op.arity() == 2 {
                maps.push(vec![d(1)]);
            }
            let r = Routine {
                elts: Default::default(),
                args: vec![
                    Arg::Buffer { dims: vec![3, 5] },
                    Arg::Buffer { dims: vec![5] },
                ],
                stmts: vec![
                    Stmt::Alloc {
                        buf: m,
                        dims: vec![3],
                    },
                    Stmt::Accum(Assignment {
                        lhs: m,
                        rhs,
                        accum,
                        op: op.into(),
                        initialize_neutral: true,
                        space: vec![3, 5],
                        maps,
                        symbols: vec![],
                        dynamic: vec![],
                    }),
                    Stmt::Alloc {
                        buf: l,
                        dims: vec![],
                    },
                    // sum(m * m): every row's result weighs differently.
                    Stmt::Accum(Assignment {
                        lhs: l,
                        rhs: vec![m, m],
                        accum: Accum::Add,
                        op: NumOp::Binary(BinaryOp::Mul).into(),
                        initialize_neutral: true,
                        space: vec![3],
                        maps: vec![vec![], vec![d(0)], vec![d(0)]],
                        symbols: vec![],
                        dynamic: vec![],
                    }),
                ],
                results: vec![l],
            };
            // Distinct values: no tie, so the max is differentiable.
            let vals = vec![
                buffer(
                    &[3, 5],
                    (0..15)
                        .map(|k| k as f64 * 0.37 % 1.3 - 0.6 + 0.01 * rng.next_f64())
                        .collect(),
                ),
                buffer(&[5], (0..5).map(|k| 0.5 + 0.2 * k as f64).collect()),
            ];
            let params = if op.arity() == 1 { vec![a] } else { vec![a, b] };
            check(&format!("{accum} of {op}"), &r, &params, &vals);
        }
    }
}

/// A valid 1-d convolution `y[o] =+ x[o + k] * w[k]` and its sum of squares.
#[test]
fn convolution() {
    let mut rng = SplitMix64::new(11);
    let (x, w, y, sq, l) = (0, 1, 2, 3, 4);
    let conv = Affine::Add(Box::new(d(0)), Box::new(d(1)));
    let r = Routine {
        elts: Default::default(),
        args: vec![Arg::Buffer { dims: vec![6] }, Arg::Buffer { dims: vec![3] }],
        stmts: vec![
            Stmt::Alloc {
                buf: y,
                dims: vec![4],
            },
            Stmt::Accum(Assignment {
                lhs: y,
                rhs: vec![x, w],
                accum: Accum::Add,
                op: NumOp::Binary(BinaryOp::Mul).into(),
                initialize_neutral: true,
                space: vec![4, 3],
                maps: vec![vec![d(0)], vec![conv], vec![d(1)]],
                symbols: vec![],
                dynamic: vec![],
            }),
            Stmt::Alloc {
                buf: sq,
                dims: vec![4],
            },
            Stmt::Accum(Assignment {
                lhs: sq,
                rhs: vec![y, y],
                accum: Accum::Assign,
                op: NumOp::Binary(BinaryOp::Mul).into(),
                initialize_neutral: false,
                space: vec![4],
                maps: vec![vec![d(0)], vec![d(0)], vec![d(0)]],
                symbols: vec![],
                dynamic: vec![],
            }),
            Stmt::Alloc {
                buf: l,
                dims: vec![],
            },
            Stmt::Accum(Assignment {
                lhs: l,
                rhs: vec![sq],
                accum: Accum::Add,
                op: NumOp::Unary(UnaryOp::Identity).into(),
                initialize_neutral: true,
                space: vec![4],
                maps: vec![vec![], vec![d(0)]],
                symbols: vec![],
                dynamic: vec![],
            }),
        ],
        results: vec![l],
    };
    let vals = vec![
        buffer(&[6], (0..6).map(|_| rng.next_f64() - 0.5).collect()),
        buffer(&[3], (0..3).map(|_| rng.next_f64() - 0.5).collect()),
    ];
    check("convolution", &r, &[x, w], &vals);
}

/// Backprop refuses what it cannot differentiate, with a message.
#[test]
fn refusals() {
    let r = Routine {
        elts: Default::default(),
        args: vec![Arg::Buffer { dims: vec![3] }],
        stmts: vec![
            Stmt::Alloc {
                buf: 1,
                dims: vec![],
            },
            Stmt::Accum(Assignment {
                lhs: 1,
                rhs: vec![0],
                accum: Accum::Mul,
                op: NumOp::Unary(UnaryOp::Identity).into(),
                initialize_neutral: true,
                space: vec![3],
                maps: vec![vec![], vec![d(0)]],
                symbols: vec![],
                dynamic: vec![],
            }),
        ],
        results: vec![1],
    };
    let e = backprop(&r, 1, &[0]).unwrap_err();
    assert_eq!(e.stmt, Some(1));
    assert!(e.message.contains("'mul'"), "{e}");
    assert!(backprop(&r, 7, &[0]).is_err());
}
