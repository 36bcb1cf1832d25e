//! Errors have kinds a caller can match on; the loss and the forward
//! function are checked against each other when a trainer is built.

use ocannl::*;

fn mlp(x: &Tensor) -> Tensor {
    let h = relu(&(param("b1").output(&[16]) + param("w1").output(&[16]) * x));
    param("b2").output(&[1]) + param("w2").output(&[1]) * &h
}

#[test]
fn a_param_with_other_shapes_in_the_loss_and_the_forward_function_is_a_shape_error() {
    let x = data("x", "128|784");
    let loss = sum(&mlp(&x));
    let forward = mlp(&data("points", "128|785"));
    let e = Trainer::new(&loss, &forward, Sgd::default()).err().unwrap();
    match &e {
        Error::Shape(d) => {
            assert_eq!(d.len(), 1, "{e}");
            assert_eq!(d[0].place, "w1");
            assert_eq!(
                d[0].message,
                "the param has shape [16, 784] in the loss but [16, 785] in the forward function"
            );
        }
        other => panic!("not a shape error: {other:?}"),
    }
    assert_eq!(
        e.to_string(),
        "w1: error: the param has shape [16, 784] in the loss but [16, 785] in the forward function"
    );
}

#[test]
fn shape_inference_errors_are_shape_errors_at_their_place() {
    let a = data("a", "4|3");
    let b = data("b", "4|5");
    let y = pointmul(&a, &b);
    let e = Trainer::new(&sum(&(param("w").output(&[3]) * &y)), &y, Sgd::default())
        .err()
        .unwrap();
    let Error::Shape(d) = &e else {
        panic!("not a shape error: {e:?}");
    };
    assert!(!d.is_empty());
    assert!(d.iter().all(|d| d.severity == "error"), "{e}");
    assert!(e.to_string().contains(": error: "), "{e}");
}

#[test]
fn devices_inputs_and_files_have_their_kinds() {
    let x = data("x", "4|3");
    let y = param("w").output(&[2]) * &x;
    let e = Trainer::new_on("nope", &sum(&y), &y, Sgd::default())
        .err()
        .unwrap();
    assert!(matches!(e, Error::UnknownDevice(_)), "{e:?}");
    assert!(e.to_string().starts_with("unknown backend 'nope'"), "{e}");

    let mut t = Trainer::new(&sum(&y), &y, Sgd::default()).unwrap();
    let wrong = HostTensor::zeros(Elt::F32, vec![4, 4]);
    let e = t.step(std::slice::from_ref(&wrong), 0.1).unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e:?}");
    assert_eq!(
        e.to_string(),
        "argument #0: a f32 tensor of shape [4, 4] where @loss_train_step takes a f32 tensor of shape [4, 3]"
    );
    let e = t.step(&[], 0.1).unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e:?}");
    let e = t.param("nope").unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e:?}");
    let missing = std::env::temp_dir().join("ocannl-no-such-dir/none.safetensors");
    let e = t.load_checkpoint(&missing).unwrap_err();
    assert!(matches!(e, Error::File(_)), "{e:?}");
    // Nothing here is a compile error with a cause.
    assert!(std::error::Error::source(&e).is_none());
}

/// A runtime failure keeps its kind across the API: each runtime kind maps
/// to one of the API's, the message unchanged.
#[test]
fn runtime_kinds_map_to_the_apis() {
    use ocannl_runtime::Error as R;
    let cases = [
        (R::argument("a"), "Invalid"),
        (R::check("b"), "Run"),
        (R::memory("c"), "Run"),
        (R::format("d"), "File"),
        (R::device("e"), "Run"),
        (R::internal("f"), "Internal"),
        (R::compile("g"), "Compile"),
    ];
    for (r, want) in cases {
        let message = r.to_string();
        let e = Error::from(r);
        let got = match &e {
            Error::Invalid(_) => "Invalid",
            Error::Run(_) => "Run",
            Error::File(_) => "File",
            Error::Internal(_) => "Internal",
            Error::Compile { .. } => "Compile",
            other => panic!("{other:?}"),
        };
        assert_eq!(got, want, "{message}");
        assert_eq!(e.to_string(), message);
    }
    // A forward call of the wrong shape is the caller's error.
    let x = data("x", "4|3");
    let y = param("w").output(&[2]) * &x;
    let t = Trainer::new(&sum(&y), &y, Sgd::default()).unwrap();
    let e = t
        .forward(&[HostTensor::zeros(Elt::F32, vec![4, 5])])
        .unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e:?}");
}
