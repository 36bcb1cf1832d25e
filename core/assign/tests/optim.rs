//! The optimizers' assignments, run by the interpreter step after step
//! (the state kept in the arguments, as a caller keeps it), against their
//! closed forms computed here in f64: SGD (weight decay, momentum,
//! Nesterov), Adam (with L2 weight decay), AdamW (decoupled), each with and
//! without global-norm clipping, over several steps with a learning rate
//! that changes.

use ocannl_assign::{
    optim::{self, Adam, DecayOn, Optimizer, ParamUpdate, Sgd, State, CLIP_TINY},
    run_mut, Arg, Routine, Value,
};

/// The params' shapes: a matrix and a scalar-like vector.
const DIMS: [&[u64]; 2] = [&[2, 3], &[1]];
const STEPS: usize = 5;

fn lr_at(step: usize) -> f64 {
    [0.1, 0.05, 0.2, 0.02, 0.1][step]
}

/// The gradient a step sees for param `k`, from the param's current value
/// (a quadratic loss around a point, plus a term that changes with the
/// step, so that the moments see different gradients).
fn grad(k: usize, p: &[f64], step: usize) -> Vec<f64> {
    p.iter()
        .enumerate()
        .map(|(j, x)| 2.0 * (x - 0.3 * j as f64 + 0.5 * k as f64) + 0.7 * ((step + j) as f64).sin())
        .collect()
}

fn initial(k: usize) -> Vec<f64> {
    let n: u64 = DIMS[k].iter().product();
    (0..n).map(|j| 1.5 - 0.8 * j as f64 + k as f64).collect()
}

/// The closed form, step by step: the params and the state after each step.
#[derive(Clone, Debug)]
struct Reference {
    p: Vec<Vec<f64>>,
    /// Momentum, or Adam's m.
    m: Vec<Vec<f64>>,
    v: Vec<Vec<f64>>,
    t: f64,
    /// Whether clipping scaled the gradients down at some step.
    clipped: bool,
}

impl Reference {
    fn new() -> Reference {
        let p: Vec<Vec<f64>> = (0..DIMS.len()).map(initial).collect();
        let zeros: Vec<Vec<f64>> = p.iter().map(|x| vec![0.0; x.len()]).collect();
        Reference {
            p,
            m: zeros.clone(),
            v: zeros,
            t: 0.0,
            clipped: false,
        }
    }

    fn step(&mut self, opt: &Optimizer, step: usize) {
        let lr = lr_at(step);
        let mut g: Vec<Vec<f64>> = (0..DIMS.len()).map(|k| grad(k, &self.p[k], step)).collect();
        if let Some(c) = opt.clip_norm() {
            let norm = g.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
            let scale = (c / (norm + CLIP_TINY)).min(1.0);
            self.clipped |= scale < 1.0;
            g.iter_mut().flatten().for_each(|x| *x *= scale);
        }
        match opt {
            Optimizer::Sgd(o) => {
                for (k, gk) in g.iter().enumerate() {
                    let wd = group_decay(o.weight_decay, o.decay_on, k);
                    for (j, gj) in gk.iter().enumerate() {
                        let (p, m) = (&mut self.p[k][j], &mut self.m[k][j]);
                        let mut delta = gj + wd * *p;
                        if o.momentum > 0.0 {
                            *m = o.momentum * *m + delta;
                            delta = if o.nesterov {
                                delta + o.momentum * *m
                            } else {
                                *m
                            };
                        }
                        *p -= lr * delta;
                    }
                }
            }
            Optimizer::Adam(o) | Optimizer::AdamW(o) => {
                let decoupled = matches!(opt, Optimizer::AdamW(_));
                self.t += 1.0;
                for (k, gk) in g.iter().enumerate() {
                    let wd = group_decay(o.weight_decay, o.decay_on, k);
                    for (j, &gj) in gk.iter().enumerate() {
                        let p = &mut self.p[k][j];
                        let mut gj = gj;
                        if decoupled {
                            *p -= lr * wd * *p;
                        } else {
                            gj += wd * *p;
                        }
                        let (m, v) = (&mut self.m[k][j], &mut self.v[k][j]);
                        *m = o.beta1 * *m + (1.0 - o.beta1) * gj;
                        *v = o.beta2 * *v + (1.0 - o.beta2) * gj * gj;
                        let mhat = *m / (1.0 - o.beta1.powf(self.t));
                        let vhat = *v / (1.0 - o.beta2.powf(self.t));
                        *p -= lr * mhat / (vhat.sqrt() + o.eps);
                    }
                }
            }
        }
    }
}

fn buffer(dims: &[u64], data: Vec<f64>) -> Value {
    Value::Buffer {
        dims: dims.to_vec(),
        data,
    }
}

fn data(v: &Value) -> &[f64] {
    match v {
        Value::Buffer { data, .. } => data,
        Value::Index(_) => unreachable!(),
    }
}

/// The routine of one step of `opt` and its arguments: params, gradients,
/// the params' state (kind by kind), the global state, the learning rate.
struct Stepper {
    routine: Routine,
    args: Vec<Value>,
    grads: Vec<usize>,
    /// Per param, its state buffers.
    state: Vec<Vec<usize>>,
    global: Vec<usize>,
    lr: usize,
}

impl Stepper {
    fn new(opt: &Optimizer) -> Stepper {
        let n = DIMS.len();
        let kinds = opt.param_state();
        let mut args: Vec<Value> = (0..n).map(|k| buffer(DIMS[k], initial(k))).collect();
        let grads: Vec<usize> = (0..n).map(|k| n + k).collect();
        for d in DIMS {
            args.push(buffer(d, vec![0.0; d.iter().product::<u64>() as usize]));
        }
        let mut state = vec![vec![]; n];
        for _ in &kinds {
            for (k, d) in DIMS.iter().enumerate() {
                state[k].push(args.len());
                args.push(buffer(d, vec![0.0; d.iter().product::<u64>() as usize]));
            }
        }
        let mut global = vec![];
        for _ in opt.global_state() {
            global.push(args.len());
            args.push(buffer(&[], vec![0.0]));
        }
        let lr = args.len();
        args.push(buffer(&[], vec![0.0]));
        let updates: Vec<ParamUpdate> = (0..n)
            .map(|k| ParamUpdate {
                param: k,
                grad: grads[k],
                state: state[k].clone(),
                dims: DIMS[k].to_vec(),
            })
            .collect();
        let mut next = args.len();
        let step = optim::step(opt, &updates, &global, lr, &mut next).unwrap();
        // Every buffer allocated is named.
        let allocated: Vec<usize> = step
            .stmts
            .iter()
            .filter_map(|s| match s {
                ocannl_assign::Stmt::Alloc { buf, .. } => Some(*buf),
                _ => None,
            })
            .collect();
        let named: Vec<usize> = step.names.iter().map(|(b, _)| *b).collect();
        assert_eq!(allocated, named, "{opt:?}");
        let routine = Routine {
            elts: Default::default(),
            args: args
                .iter()
                .map(|a| match a {
                    Value::Buffer { dims, .. } => Arg::Buffer { dims: dims.clone() },
                    Value::Index(_) => Arg::Index,
                })
                .collect(),
            stmts: step.stmts,
            results: vec![],
        };
        Stepper {
            routine,
            args,
            grads,
            state,
            global,
            lr,
        }
    }

    fn step(&mut self, step: usize) {
        for (k, dims) in DIMS.iter().enumerate() {
            let g = grad(k, data(&self.args[k]), step);
            self.args[self.grads[k]] = buffer(dims, g);
        }
        self.args[self.lr] = buffer(&[], vec![lr_at(step)]);
        run_mut(&self.routine, &mut self.args).unwrap();
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// Runs `opt` for [`STEPS`] steps against the closed form, comparing the
/// params and the state after every step; returns the reference.
fn check(opt: Optimizer) -> Reference {
    let mut stepper = Stepper::new(&opt);
    let mut reference = Reference::new();
    for step in 0..STEPS {
        stepper.step(step);
        reference.step(&opt, step);
        for k in 0..DIMS.len() {
            let mut expected = vec![("param", data(&stepper.args[k]), &reference.p[k])];
            for (kind, &b) in opt.param_state().iter().zip(&stepper.state[k]) {
                let want = match kind {
                    State::Momentum | State::AdamM => &reference.m[k],
                    State::AdamV => &reference.v[k],
                    State::Step => unreachable!(),
                };
                expected.push((kind.name(), data(&stepper.args[b]), want));
            }
            for (what, got, want) in expected {
                assert_eq!(got.len(), want.len());
                for (j, (a, b)) in got.iter().zip(want.iter()).enumerate() {
                    assert!(
                        close(*a, *b),
                        "{opt:?}, step {step}: {what} {k}[{j}] is {a}, the closed form {b}"
                    );
                }
            }
        }
        for (kind, &b) in opt.global_state().iter().zip(&stepper.global) {
            assert_eq!(*kind, State::Step);
            assert_eq!(data(&stepper.args[b]), &[reference.t][..], "{opt:?}");
        }
    }
    // The params moved.
    assert!(
        (0..DIMS.len()).all(|k| data(&stepper.args[k]) != initial(k).as_slice()),
        "{opt:?}: the params did not change"
    );
    reference
}

/// Each optimizer with a clipping norm: `small` scales the gradients down,
/// a large one leaves them.
fn with_clip(opt: Optimizer, clip: Option<f64>) -> Optimizer {
    match opt {
        Optimizer::Sgd(o) => Optimizer::Sgd(Sgd {
            clip_norm: clip,
            ..o
        }),
        Optimizer::Adam(o) => Optimizer::Adam(Adam {
            clip_norm: clip,
            ..o
        }),
        Optimizer::AdamW(o) => Optimizer::AdamW(Adam {
            clip_norm: clip,
            ..o
        }),
    }
}

/// The weight decay of param `k` in PyTorch's param groups: the matrices'
/// group (`p.dim() >= 2`, nanoGPT's) decayed, the others not.
fn group_decay(weight_decay: f64, on: DecayOn, k: usize) -> f64 {
    match on {
        DecayOn::All => weight_decay,
        DecayOn::Matrices if DIMS[k].len() >= 2 => weight_decay,
        DecayOn::Matrices => 0.0,
    }
}

fn optimizers() -> Vec<Optimizer> {
    let sgd = |momentum, weight_decay, nesterov| {
        Optimizer::Sgd(Sgd {
            momentum,
            weight_decay,
            decay_on: DecayOn::All,
            nesterov,
            clip_norm: None,
        })
    };
    vec![
        sgd(0.0, 0.0, false),
        sgd(0.0, 0.1, false),
        sgd(0.9, 0.0, false),
        sgd(0.9, 0.01, true),
        Optimizer::adam(),
        Optimizer::Adam(Adam {
            beta1: 0.8,
            beta2: 0.95,
            eps: 1e-3,
            weight_decay: 0.1,
            decay_on: DecayOn::All,
            clip_norm: None,
        }),
        // Param groups: only the 2x3 matrix decays, not the 1-cell param.
        Optimizer::Sgd(Sgd {
            momentum: 0.9,
            weight_decay: 0.1,
            decay_on: DecayOn::Matrices,
            ..Sgd::default()
        }),
        Optimizer::Adam(Adam {
            weight_decay: 0.1,
            decay_on: DecayOn::Matrices,
            ..Adam::default()
        }),
        Optimizer::AdamW(Adam {
            weight_decay: 0.3,
            decay_on: DecayOn::Matrices,
            ..Adam::default()
        }),
        Optimizer::adamw(),
        Optimizer::AdamW(Adam {
            beta1: 0.5,
            weight_decay: 0.3,
            ..Adam::default()
        }),
        Optimizer::AdamW(Adam::default()),
    ]
}

#[test]
fn optimizers_match_their_closed_forms() {
    for opt in optimizers() {
        let r = check(opt);
        assert!(!r.clipped);
    }
}

#[test]
fn clipped_optimizers_match_their_closed_forms() {
    for opt in optimizers() {
        // Active: the gradients' norm is above 0.5 at the first steps.
        let r = check(with_clip(opt, Some(0.5)));
        assert!(r.clipped, "{opt:?}: the clipping never applied");
        // Inactive: the same steps as without clipping.
        let big = check(with_clip(opt, Some(1e6)));
        let none = check(opt);
        assert!(!big.clipped);
        for (a, b) in big.p.iter().flatten().zip(none.p.iter().flatten()) {
            assert!(close(*a, *b), "{opt:?}: {a} vs {b}");
        }
        // And the clipped steps differ from the plain ones.
        assert!(r.p != none.p, "{opt:?}");
    }
}

/// Adam's first step moves every param by the learning rate against the
/// sign of its gradient (mhat = g, vhat = g^2), whatever the betas: a check
/// independent of the step-by-step reference.
#[test]
fn adams_first_step_is_the_sign_of_the_gradient() {
    for opt in [
        Optimizer::adam(),
        Optimizer::Adam(Adam {
            beta1: 0.5,
            beta2: 0.6,
            ..Adam::default()
        }),
    ] {
        let mut s = Stepper::new(&opt);
        s.step(0);
        for k in 0..DIMS.len() {
            let g = grad(k, &initial(k), 0);
            for (j, (p, p0)) in data(&s.args[k]).iter().zip(initial(k)).enumerate() {
                let want = p0 - lr_at(0) * g[j].signum();
                assert!(
                    (p - want).abs() < 1e-6,
                    "{opt:?}: param {k}[{j}]: {p}, expected {want}"
                );
            }
        }
    }
}

#[test]
fn options_out_of_range_and_missing_state_are_errors() {
    let bad = [
        Optimizer::Adam(Adam {
            beta1: 1.0,
            ..Adam::default()
        }),
        Optimizer::Adam(Adam {
            beta2: -0.1,
            ..Adam::default()
        }),
        Optimizer::AdamW(Adam {
            eps: f64::NAN,
            ..Adam::default()
        }),
        Optimizer::Sgd(Sgd {
            momentum: -1.0,
            ..Sgd::default()
        }),
        Optimizer::Sgd(Sgd {
            weight_decay: f64::INFINITY,
            ..Sgd::default()
        }),
        Optimizer::Sgd(Sgd {
            clip_norm: Some(0.0),
            ..Sgd::default()
        }),
    ];
    for opt in bad {
        let e = optim::step(&opt, &[], &[0], 1, &mut 2).unwrap_err();
        assert!(e.0.contains("must be"), "{opt:?}: {e}");
    }
    // Adam without its state.
    let p = ParamUpdate {
        param: 0,
        grad: 1,
        state: vec![],
        dims: vec![2],
    };
    let e = optim::step(
        &Optimizer::adam(),
        std::slice::from_ref(&p),
        &[2],
        3,
        &mut 4,
    )
    .unwrap_err();
    assert!(e.0.contains("needs 2"), "{e}");
    let e = optim::step(
        &Optimizer::adam(),
        &[ParamUpdate {
            state: vec![2, 3],
            ..p
        }],
        &[],
        4,
        &mut 5,
    )
    .unwrap_err();
    assert!(e.0.contains("global"), "{e}");
}
