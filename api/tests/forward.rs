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
