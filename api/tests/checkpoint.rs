//! Checkpoints: every param in one safetensors file, read back exactly;
//! a checkpoint of another model is refused and changes nothing.

use ocannl::*;

fn model(out: u64, extra: bool) -> Trainer {
    let x = data("x", "4|3");
    let mut y = param("w").output(&[out]) * &x;
    if extra {
        y = y + param("b").output(&[out]);
    }
    Trainer::new(&sum(&y), &y, Sgd::default()).unwrap()
}

#[test]
fn checkpoints_round_trip_and_refuse_other_models() {
    let dir = std::env::temp_dir().join(format!("ocannl-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.safetensors");
    let mut a = model(2, true);
    let batch = HostTensor::from_f64(Elt::F32, vec![4, 3], (0..12).map(|k| k as f64 * 0.1));
    a.step(&[batch], 0.1).unwrap();
    a.save_checkpoint(&path).unwrap();
    let mut b = model(2, true);
    b.load_checkpoint(&path).unwrap();
    for n in ["w", "b"] {
        assert_eq!(a.param(n).unwrap(), b.param(n).unwrap(), "{n}");
    }
    // Another model: a param missing, another shape, a tensor too many.
    let before = model(2, true).param("w").unwrap();
    let mut other = model(5, true);
    let e = other.load_checkpoint(&path).unwrap_err().to_string();
    assert!(e.contains("has shape [2, 3] in the file but [5, 3]"), "{e}");
    let mut fewer = model(2, false);
    let e = fewer.load_checkpoint(&path).unwrap_err().to_string();
    assert!(e.contains("'b' is no param of the model"), "{e}");
    assert_eq!(fewer.param("w").unwrap().dims, before.dims);
    assert_ne!(fewer.param("w").unwrap(), a.param("w").unwrap());
    let small = dir.join("small.safetensors");
    fewer.save_checkpoint(&small).unwrap();
    let e = b.load_checkpoint(&small).unwrap_err().to_string();
    assert!(e.contains("no tensor for the param 'b'"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
