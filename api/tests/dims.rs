//! Named dimensions: labels captured from einsum specs, set and tied by
//! name (OCANNL's `capture_dims`, `Shape.set_dim`, `Shape.set_equal`), and
//! their solutions read back after inference.

use ocannl::*;

/// A layer whose width nothing in the model decides but its name.
fn layer(x: &Tensor, w: &str, out: &str) -> Tensor {
    einsum_capturing(
        &format!("...|i; i->{out} => ...|{out}"),
        &[out],
        &[x, &param(w)],
    )
}

#[test]
fn a_hidden_width_set_by_name_decides_the_params() {
    let x = data("x", "8|3");
    let h = relu(&layer(&x, "w1", "k")).set_dim("k", 5);
    let y = layer(&h, "w2", "o").set_equal("o", "k");
    assert_eq!(
        Tensor::named_dims(&[&y]).unwrap(),
        vec![("k".to_string(), 5), ("o".to_string(), 5)]
    );
    // The trainer builds the params with those shapes.
    let trainer = Trainer::new(&sum(&y), &y, Sgd::default()).unwrap();
    assert_eq!(trainer.param("w1").unwrap().dims, [5, 3]);
    assert_eq!(trainer.param("w2").unwrap().dims, [5, 5]);
}

#[test]
fn a_captured_row_reports_its_total_elements() {
    // OCANNL's test_einsum_capture: `a..r..;..r..b=>ab` over [2;3;4] and
    // [3;4;5]: r is 3,4, 12 elements.
    let a = data("a", "2,3,4");
    let b = data("b", "3,4,5");
    let c = einsum_capturing("a..r..;..r..b=>ab", &["r"], &[&a, &b]);
    assert_eq!(
        Tensor::named_dims(&[&c]).unwrap(),
        vec![("r".to_string(), 12)]
    );
}

#[test]
fn a_dimension_the_shapes_contradict_is_a_shape_error_at_the_constraint() {
    let x = data("x", "8|3");
    let y = einsum_capturing("...|i => ...|i", &["i"], &[&x]).set_dim("i", 4);
    match Tensor::named_dims(&[&y]) {
        Err(Error::Shape(d)) => {
            assert!(d[0].message.contains("cannot set 'i' to 4"), "{d:?}")
        }
        other => panic!("not a shape error: {other:?}"),
    }
    // Without the constraint, nothing decides a hidden width.
    let e = Tensor::named_dims(&[&layer(&x, "w", "k")]).unwrap_err();
    assert!(e.to_string().contains("You forgot to specify"), "{e}");
    // A label the spec does not have.
    let e = Tensor::named_dims(&[&einsum_capturing("...|i => ...|i", &["j"], &[&x])]).unwrap_err();
    assert!(
        e.to_string()
            .contains("no label or row variable 'j' to capture"),
        "{e}"
    );
    // A dimension of 0 is refused where the module is written.
    let e = Tensor::named_dims(&[&x.set_dim("i", 0)]).unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e:?}");
}

#[test]
fn a_named_dimension_is_a_number() {
    // A mean over the captured row `..d..` of 2,3 cells: its sum over
    // `dim("d")`, trained as any expression (the gradient of the mean of a
    // param's cells is 1/6 in each).
    let x = param("x").output(&[2, 3]);
    let s = einsum_capturing("..d.. => 0", &["d"], &[&x]);
    let mean = pointdiv(&s, &dim("d"));
    assert_eq!(
        Tensor::named_dims(&[&mean]).unwrap(),
        vec![("d".to_string(), 6)]
    );
    let mut trainer = Trainer::new(&mean, &mean, Sgd::default()).unwrap();
    let before = trainer.param("x").unwrap();
    trainer.step(&[], 6.0).unwrap();
    let after = trainer.param("x").unwrap();
    let moved: Vec<f64> = before
        .data
        .to_f64()
        .iter()
        .zip(after.data.to_f64())
        .map(|(b, a)| b - a)
        .collect();
    for m in moved {
        assert!((m - 1.0).abs() < 1e-6, "each cell moves by lr/6 = 1: {m}");
    }
    // A name nothing captures is a shape error at the number.
    let e = Tensor::named_dims(&[&(pointdiv(&s, &dim("q")))]).unwrap_err();
    assert!(
        e.to_string()
            .contains("no einsum of the function captures 'q'"),
        "{e}"
    );
}
