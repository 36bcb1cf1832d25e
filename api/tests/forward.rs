//! The forward routine runs on the trainer's current params: after a step,
//! after a param is set, and unchanged between calls.

use ocannl::*;

#[test]
fn the_forward_routine_follows_the_params() {
    let x = data("x", "4|3");
    let y = param("w").output(&[2]) * &x;
    let points = data("points", "1|3");
    let f = param("w").output(&[2]) * &points;
    let mut t = Trainer::new(&sum(&y), &f, Sgd::default()).unwrap();
    let p = HostTensor::f32(vec![1, 3], vec![1.0, 2.0, 3.0]);
    // The forward function's value from the param itself: w (2x3) times p.
    let expected = |t: &Trainer| -> Vec<f64> {
        let w = t.param("w").unwrap().to_f64();
        (0..2)
            .map(|o| (0..3).map(|i| w[o * 3 + i] * f64::from(i as u8 + 1)).sum())
            .collect()
    };
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
    let f0 = t.forward(std::slice::from_ref(&p)).unwrap().to_f64();
    assert!(close(&f0, &expected(&t)), "{f0:?}");
    assert_eq!(t.forward(std::slice::from_ref(&p)).unwrap().to_f64(), f0);
    let batch = HostTensor::f32(vec![4, 3], vec![1.0; 12]);
    t.step(&[batch], 0.5).unwrap();
    let f1 = t.forward(std::slice::from_ref(&p)).unwrap().to_f64();
    assert_ne!(f1, f0);
    assert!(close(&f1, &expected(&t)), "{f1:?}");
    t.set_param("w", &HostTensor::zeros(Elt::F32, vec![2, 3]))
        .unwrap();
    assert_eq!(t.forward(&[p]).unwrap().to_f64(), [0.0, 0.0]);
}

#[test]
fn more_routines_read_the_same_params_and_return_every_result() {
    // A routine of two results besides the forward function: both follow
    // the params through a step, and a routine is called by its name.
    let x = data("x", "4|3");
    let y = param("w").output(&[2]) * &x;
    let f = param("w").output(&[2]) * &data("points", "1|3");
    let q = data("q", "3");
    let (wq, twice) = (param("w").output(&[2]) * &q, &q * 2.0);
    let mut t = Trainer::with_routines(
        Device::CPU,
        &sum(&y),
        &f,
        &[("project", &[&wq, &twice])],
        Sgd::default(),
    )
    .unwrap();
    let q0 = HostTensor::f32(vec![3], vec![1.0, 0.0, 2.0]);
    let expected = |t: &Trainer| -> Vec<f64> {
        let w = t.param("w").unwrap().to_f64();
        (0..2).map(|o| w[o * 3] + 2.0 * w[o * 3 + 2]).collect()
    };
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
    let r = t.call("project", std::slice::from_ref(&q0)).unwrap();
    assert_eq!(r.len(), 2);
    assert!(close(&r[0].to_f64(), &expected(&t)));
    assert_eq!(r[1].to_f64(), vec![2.0, 0.0, 4.0]);
    t.step(&[HostTensor::f32(vec![4, 3], vec![1.0; 12])], 0.5)
        .unwrap();
    let r = t.call("project", std::slice::from_ref(&q0)).unwrap();
    assert!(close(&r[0].to_f64(), &expected(&t)), "{:?}", r[0].to_f64());
    // The forward function is a routine too; a name nothing defines is an
    // error that names the routines.
    let p = HostTensor::f32(vec![1, 3], vec![1.0, 2.0, 3.0]);
    assert_eq!(
        t.call("forward", std::slice::from_ref(&p)).unwrap()[0].to_f64(),
        t.forward(&[p]).unwrap().to_f64()
    );
    let e = t.call("decode", &[]).unwrap_err().to_string();
    assert!(e.contains("no routine 'decode'"), "{e}");
}

#[test]
fn routine_names_are_checked() {
    let x = data("x", "2");
    let y = param("w").output(&[1]) * &x;
    for bad in [
        "forward",
        "loss_extra",
        "2nd",
        "a-b",
        "",
        "decode_init",
        "f_update",
    ] {
        let e = Trainer::with_routines(Device::CPU, &sum(&y), &y, &[(bad, &[&y])], Sgd::default())
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("cannot name a routine"), "{bad}: {e}");
    }
}
