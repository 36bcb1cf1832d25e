//! Training through `Trainer` with Adam and AdamW (with and without
//! clipping, with a warmup and cosine schedule): the loss decreases, and
//! the params and the step count after the steps are the closed form's,
//! computed here in f64.

use ocannl::*;

const BATCH: usize = 8;
const STEPS: usize = 25;

/// The data: 8 points of 3 features and a linear target.
fn batch() -> (Vec<[f64; 3]>, Vec<f64>) {
    let x: Vec<[f64; 3]> = (0..BATCH)
        .map(|b| std::array::from_fn(|j| ((3 * b + j) as f64).sin()))
        .collect();
    let t = x
        .iter()
        .map(|x| 0.5 * x[0] - x[1] + 0.25 * x[2] + 0.1)
        .collect();
    (x, t)
}

fn tensor(dims: Vec<u64>, data: Vec<f64>) -> HostTensor {
    HostTensor::from_f64(Elt::F32, dims, data)
}

fn schedule() -> Schedule {
    Schedule::WarmupCosine {
        peak: 0.05,
        warmup: 3,
        steps: STEPS,
        end: 0.005,
    }
}

/// The mean squared error of `w x + b` against the target, its value and
/// gradient (w's three cells, then b).
fn loss_and_grad(p: &[f64; 4]) -> (f64, [f64; 4]) {
    let (x, t) = batch();
    let (mut loss, mut g) = (0.0, [0.0; 4]);
    for (x, t) in x.iter().zip(&t) {
        let e = p[0] * x[0] + p[1] * x[1] + p[2] * x[2] + p[3] - t;
        loss += e * e / BATCH as f64;
        for j in 0..3 {
            g[j] += 2.0 * e * x[j] / BATCH as f64;
        }
        g[3] += 2.0 * e / BATCH as f64;
    }
    (loss, g)
}

/// The closed form of `opt` (Adam or AdamW) from zeros: the params after
/// [`STEPS`] steps, and whether the clipping scaled the gradient at some
/// step.
fn reference(opt: &Optimizer) -> ([f64; 4], bool) {
    let (Optimizer::Adam(o) | Optimizer::AdamW(o)) = opt else {
        unreachable!()
    };
    let decoupled = matches!(opt, Optimizer::AdamW(_));
    let (mut p, mut m, mut v) = ([0.0; 4], [0.0; 4], [0.0; 4]);
    let mut clipped = false;
    for step in 0..STEPS {
        let lr = schedule().lr(step);
        let t = (step + 1) as f64;
        let (_, mut g) = loss_and_grad(&p);
        if let Some(c) = o.clip_norm {
            let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
            let scale = (c / (norm + 1e-6)).min(1.0);
            clipped |= scale < 1.0;
            g.iter_mut().for_each(|x| *x *= scale);
        }
        for k in 0..4 {
            let mut gk = g[k];
            if decoupled {
                p[k] *= 1.0 - lr * o.weight_decay;
            } else {
                gk += o.weight_decay * p[k];
            }
            m[k] = o.beta1 * m[k] + (1.0 - o.beta1) * gk;
            v[k] = o.beta2 * v[k] + (1.0 - o.beta2) * gk * gk;
            let mhat = m[k] / (1.0 - o.beta1.powf(t));
            let vhat = v[k] / (1.0 - o.beta2.powf(t));
            p[k] -= lr * mhat / (vhat.sqrt() + o.eps);
        }
    }
    (p, clipped)
}

/// Trains `opt` through a `Trainer`; returns the losses and the params
/// (w's three cells, then b).
fn train(opt: Optimizer) -> (Vec<f64>, [f64; 4], Trainer) {
    let x = data("x", &format!("{BATCH}|3"));
    let t = data("t", &format!("{BATCH}|1"));
    let w = param("w").output(&[1]).init(ParamInit::Zeros);
    let b = param("b").output(&[1]).init(ParamInit::Zeros);
    let pred = &b + &w * &x;
    let e = &pred - &t;
    let loss = sum(&pointmul(&e, &e)) * (1.0 / BATCH as f64);
    let mut trainer = Trainer::new(&loss, &pred, opt).unwrap();
    let (xs, ts) = batch();
    let xb = tensor(
        vec![BATCH as u64, 3],
        xs.iter().flatten().copied().collect(),
    );
    let tb = tensor(vec![BATCH as u64, 1], ts);
    let losses = (0..STEPS)
        .map(|step| {
            trainer
                .step(&[xb.clone(), tb.clone()], schedule().lr(step))
                .unwrap()
        })
        .collect();
    let w = trainer.param("w").unwrap().to_f64();
    let b = trainer.param("b").unwrap().to_f64();
    (losses, [w[0], w[1], w[2], b[0]], trainer)
}

#[test]
fn adam_and_adamw_train_as_their_closed_forms() {
    let opts = [
        Optimizer::adam(),
        Optimizer::adamw(),
        Optimizer::AdamW(Adam {
            weight_decay: 0.5,
            clip_norm: Some(0.3),
            ..Adam::default()
        }),
        Optimizer::Adam(Adam {
            beta1: 0.8,
            beta2: 0.9,
            weight_decay: 0.05,
            clip_norm: Some(0.3),
            ..Adam::default()
        }),
    ];
    let mut finals = vec![];
    for opt in opts {
        let (losses, p, trainer) = train(opt);
        let first = loss_and_grad(&[0.0; 4]).0;
        assert!((losses[0] - first).abs() < 1e-5, "{opt:?}: {losses:?}");
        assert!(
            losses[STEPS - 1] < 0.5 * losses[0],
            "{opt:?}: the loss did not decrease: {losses:?}"
        );
        let (want, clipped) = reference(&opt);
        assert_eq!(clipped, opt.clip_norm().is_some(), "{opt:?}");
        for k in 0..4 {
            assert!(
                (p[k] - want[k]).abs() < 1e-4,
                "{opt:?}: param {k} is {}, the closed form {}",
                p[k],
                want[k]
            );
        }
        // The state: the step count, and the moments of each param.
        let t = trainer.optimizer_state(State::Step, "").unwrap();
        assert_eq!(
            (t.dims.as_slice(), t.to_f64().as_slice()),
            (&[][..], &[STEPS as f64][..])
        );
        let m = trainer.optimizer_state(State::AdamM, "w").unwrap();
        assert_eq!(m.dims, [1, 3]);
        assert!(m.to_f64().iter().all(|x| *x != 0.0), "{m:?}");
        let v = trainer.optimizer_state(State::AdamV, "b").unwrap();
        assert!(v.to_f64()[0] > 0.0, "{v:?}");
        assert!(trainer.optimizer_state(State::Momentum, "w").is_err());
        finals.push(p);
    }
    // The options matter: every run ends elsewhere.
    for i in 0..finals.len() {
        for j in 0..i {
            assert!(finals[i] != finals[j], "{i} and {j}: {:?}", finals[i]);
        }
    }
}

#[test]
fn options_out_of_range_are_errors() {
    let x = data("x", "2|3");
    let y = param("w").output(&[1]) * &x;
    let e = match Trainer::new(
        &sum(&y),
        &y,
        Adam {
            beta1: 1.0,
            ..Adam::default()
        },
    ) {
        Err(e) => e,
        Ok(_) => panic!("beta1 = 1 was accepted"),
    };
    assert!(e.to_string().contains("beta1 must be in [0, 1)"), "{e}");
}

#[test]
fn a_param_initialized_to_a_given_value() {
    let b = param("b")
        .input(&[])
        .output(&[2])
        .init(ParamInit::constant(0.5));
    let loss = sum(&b);
    let trainer = Trainer::new(&loss, &b, Sgd::default()).unwrap();
    assert_eq!(trainer.param("b").unwrap().data.to_f64(), vec![0.5, 0.5]);
    // Not a number is refused where the module is written.
    let bad = param("c").output(&[2]).init(ParamInit::constant(f64::NAN));
    assert!(matches!(
        Trainer::new(&sum(&bad), &bad, Sgd::default()),
        Err(Error::Invalid(_))
    ));
}

/// A linear model's mean squared error over a batch of `rows`.
fn mse(rows: u64) -> (Tensor, Tensor) {
    let x = data("x", &format!("{rows}|3"));
    let y = data("y", &format!("{rows}|1"));
    let pred = param("w").input(&[3]).output(&[1]).init(ParamInit::Zeros) * &x;
    let d = &pred - &y;
    let loss = sum(&pointmul(&d, &d)) * number(1.0 / rows as f64);
    (loss, pred)
}

#[test]
fn gradients_accumulated_over_micro_batches_update_as_one_batch() {
    let xs: Vec<f32> = (0..12).map(|i| (i as f32 * 0.37).sin()).collect();
    let ys: Vec<f32> = (0..4).map(|i| i as f32 - 1.5).collect();
    let w0 = HostTensor::new(vec![1, 3], vec![0.5f32, -0.25, 1.0]);
    // One batch of 4 rows.
    let (loss, pred) = mse(4);
    let mut whole = Trainer::new(&loss, &pred, Sgd::default()).unwrap();
    whole.set_param("w", &w0).unwrap();
    let l_whole = whole
        .step(
            &[
                HostTensor::new(vec![4, 3], xs.clone()),
                HostTensor::new(vec![4, 1], ys.clone()),
            ],
            0.1,
        )
        .unwrap();
    // Two micro-batches of 2 rows, accumulated.
    let (loss, pred) = mse(2);
    let mut acc = Trainer::new_accumulating(Device::CPU, &loss, &pred, Sgd::default()).unwrap();
    acc.set_param("w", &w0).unwrap();
    let half = |r: std::ops::Range<usize>| {
        vec![
            HostTensor::new(vec![2, 3], xs[3 * r.start..3 * r.end].to_vec()),
            HostTensor::new(vec![2, 1], ys[r].to_vec()),
        ]
    };
    let l_acc = acc
        .step_accumulating(&[half(0..2), half(2..4)], 0.1)
        .unwrap();
    assert!((l_whole - l_acc).abs() < 1e-6, "{l_whole} vs {l_acc}");
    let (a, b) = (
        whole.param("w").unwrap().data.to_f64(),
        acc.param("w").unwrap().data.to_f64(),
    );
    assert_ne!(a, w0.data.to_f64(), "the step moved w");
    for (p, q) in a.iter().zip(&b) {
        assert!((p - q).abs() < 1e-6, "{a:?} vs {b:?}");
    }
    // A fused trainer has no separate update to accumulate for.
    assert!(matches!(
        whole.step_accumulating(&[half(0..2)], 0.1),
        Err(Error::Invalid(_))
    ));
    assert!(matches!(
        acc.step_accumulating(&[], 0.1),
        Err(Error::Invalid(_))
    ));
}
