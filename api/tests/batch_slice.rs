//! Minibatches through an index input: a dataset set once as one data
//! input of shape `batches,batch|features`, sliced at the index each step
//! sets, trains exactly as the same batches given as tensors each step.

use ocannl::*;

const BATCHES: usize = 3;
const BATCH: usize = 4;
const STEPS: usize = 7;

fn tensor(dims: Vec<u64>, data: Vec<f64>) -> HostTensor {
    HostTensor::from_f64(Elt::F32, dims, data)
}

/// Batch `k`'s inputs (BATCH x 2) and targets (BATCH x 1).
fn batch(k: usize) -> (Vec<f64>, Vec<f64>) {
    let x: Vec<f64> = (0..BATCH * 2)
        .map(|j| ((k * 31 + j * 7) as f64).sin())
        .collect();
    let t = (0..BATCH)
        .map(|r| 0.3 * x[2 * r] - 0.7 * x[2 * r + 1] + 0.2)
        .collect();
    (x, t)
}

/// A 2-3-1 MLP's mean squared error on `(x, t)`, and its prediction.
fn model(x: &Tensor, t: &Tensor) -> (Tensor, Tensor) {
    let h = relu(&(param("b1").output(&[3]).seed(1) + param("w1").output(&[3]).seed(2) * x));
    let pred = param("b2").output(&[1]).seed(3) + param("w2").output(&[1]).seed(4) * &h;
    let e = &pred - t;
    (sum(&pointmul(&e, &e)) * (1.0 / BATCH as f64), pred)
}

fn params(trainer: &Trainer) -> Vec<f64> {
    ["w1", "b1", "w2", "b2"]
        .iter()
        .flat_map(|n| trainer.param(n).unwrap().to_f64())
        .collect()
}

#[test]
fn a_dataset_sliced_by_an_index_trains_as_batches_given_each_step() {
    // Each step's batch given as tensors.
    let (loss, pred) = model(
        &data("x", &format!("{BATCH}|2")),
        &data("t", &format!("{BATCH}|1")),
    );
    let mut given = Trainer::new(&loss, &pred, Sgd::default()).unwrap();
    // The dataset set once; each step sets the index of its batch.
    let xs = data("xs", &format!("{BATCHES},{BATCH}|2"));
    let ts = data("ts", &format!("{BATCHES},{BATCH}|1"));
    let i = index("i");
    let (loss, pred) = model(&xs.batch_slice(&i), &ts.batch_slice(&i));
    let mut sliced = Trainer::new(&loss, &pred, Sgd::default()).unwrap();
    let all: Vec<_> = (0..BATCHES).map(batch).collect();
    let (x_all, t_all): (Vec<f64>, Vec<f64>) = (
        all.iter().flat_map(|b| b.0.clone()).collect(),
        all.iter().flat_map(|b| b.1.clone()).collect(),
    );
    let dims = |f| vec![BATCHES as u64, BATCH as u64, f];
    sliced
        .set_input(0, &HostValue::Tensor(tensor(dims(2), x_all)))
        .unwrap();
    sliced
        .set_input(1, &HostValue::Tensor(tensor(dims(1), t_all)))
        .unwrap();
    assert_eq!(params(&given), params(&sliced), "the same init");
    for step in 0..STEPS {
        let k = (step * 2) % BATCHES;
        let (x, t) = &all[k];
        let a = given
            .step(
                &[
                    tensor(vec![BATCH as u64, 2], x.clone()),
                    tensor(vec![BATCH as u64, 1], t.clone()),
                ],
                0.1,
            )
            .unwrap();
        sliced.set_input(2, &HostValue::Index(k as i64)).unwrap();
        let b = sliced.step_on_inputs(0.1).unwrap();
        assert!(
            (a - b).abs() <= 1e-6 * a.abs().max(1.0),
            "step {step}: {a} vs {b}"
        );
    }
    let (pa, pb) = (params(&given), params(&sliced));
    for (a, b) in pa.iter().zip(&pb) {
        assert!((a - b).abs() <= 1e-6, "{pa:?} vs {pb:?}");
    }
    assert_ne!(
        pa,
        params(&Trainer::new(&loss, &pred, Sgd::default()).unwrap()),
        "trained"
    );
    // The forward routine takes the index too.
    let x0 = sliced
        .forward_values(&[
            HostValue::Tensor(tensor(dims(2), vec![0.5; BATCHES * BATCH * 2])),
            HostValue::Index(1),
        ])
        .unwrap();
    assert_eq!(x0.dims, vec![BATCH as u64, 1]);
    // An index outside the dataset is an error naming it, not a read
    // outside the buffer.
    sliced
        .set_input(2, &HostValue::Index(BATCHES as i64))
        .unwrap();
    let e = sliced.step_on_inputs(0.1).unwrap_err().to_string();
    assert!(e.contains("outside the axis of 3"), "{e}");
    // Inputs are checked: an index where a tensor goes, and no input #3.
    assert!(sliced.set_input(0, &HostValue::Index(0)).is_err());
    assert!(sliced.set_input(3, &HostValue::Index(0)).is_err());
}
