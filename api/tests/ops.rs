//! `stop_gradient`: a value backprop treats as a constant; and
//! `range_of_shape`, a constant of each cell's position.

use ocannl::*;

/// One SGD step (lr 1) on `loss(x)` from x = [1, 2, 3]: what x becomes.
fn step(loss: impl Fn(&Tensor) -> Tensor) -> Vec<f64> {
    let x = param("x").input(&[]).output(&[3]);
    let l = loss(&x);
    let mut trainer = Trainer::new(&l, &l, Sgd::default()).unwrap();
    trainer
        .set_param("x", &HostTensor::new(vec![3], vec![1.0f32, 2.0, 3.0]))
        .unwrap();
    trainer.step(&[], 1.0).unwrap();
    trainer.param("x").unwrap().data.to_f64()
}

#[test]
fn no_gradient_flows_through_a_stopped_value() {
    // d/dx sum(x * x) = 2x; with one factor stopped, x.
    assert_eq!(step(|x| sum(&pointmul(x, x))), vec![-1.0, -2.0, -3.0]);
    assert_eq!(
        step(|x| sum(&pointmul(x, &stop_gradient(x)))),
        vec![0.0, 0.0, 0.0]
    );
    // Stopped everywhere, the loss has no gradient: x does not move.
    assert_eq!(
        step(|x| sum(&pointmul(&stop_gradient(x), &stop_gradient(x)))),
        vec![1.0, 2.0, 3.0]
    );
}

#[test]
fn a_stopped_value_is_the_value() {
    let x = param("x").input(&[]).output(&[3]);
    let y = stop_gradient(&pointmul(&x, &x));
    let mut trainer = Trainer::new(&sum(&x), &y, Sgd::default()).unwrap();
    trainer
        .set_param("x", &HostTensor::new(vec![3], vec![1.0f32, -2.0, 3.0]))
        .unwrap();
    let out = trainer.call("forward", &[]).unwrap();
    assert_eq!(out[0].data.to_f64(), vec![1.0, 4.0, 9.0]);
}

#[test]
fn range_of_shape_holds_each_cells_position() {
    let b = param("b").input(&[]).output(&[3]).init(ParamInit::Zeros);
    let y = range_of_shape("2|3").unwrap() + &b;
    let trainer = Trainer::new(&sum(&y), &y, Sgd::default()).unwrap();
    let out = trainer.call("forward", &[]).unwrap();
    assert_eq!(out[0].dims, [2, 3]);
    assert_eq!(out[0].data.to_f64(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    for bad in ["2|n", "...|3", "2|3->k", "2,*"] {
        assert!(
            matches!(range_of_shape(bad), Err(Error::Invalid(_))),
            "{bad}"
        );
    }
}
