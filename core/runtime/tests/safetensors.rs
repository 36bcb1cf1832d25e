//! Checkpoints in one `safetensors` file.

use ocannl_runtime::{Elt, HostTensor};

/// Named f32 and f64 tensors (a 0-d one too) round-trip through one
/// `safetensors` file; a file that is not one, and a tensor whose values do
/// not fill its shape, are clear errors that write nothing.
#[test]
fn safetensors_checkpoints_round_trip() {
    use ocannl_runtime::safetensors;
    let dir = std::env::temp_dir().join(format!("ocannl-st-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.safetensors");
    let tensors = vec![
        (
            "layer.w".to_string(),
            HostTensor::f32(vec![2, 3], vec![1.5, -2.0, 3.25, 0.0, 7.0, -0.125]),
        ),
        (
            "b".to_string(),
            HostTensor::f64(vec![], vec![std::f64::consts::PI]),
        ),
    ];
    safetensors::write(&path, &tensors).unwrap();
    let mut back = safetensors::read(&path).unwrap();
    back.sort_by(|a, b| a.0.cmp(&b.0));
    let mut want = tensors.clone();
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(back, want);
    // A broken tensor: nothing written, the old file kept.
    let bad = vec![("w".to_string(), HostTensor::f32(vec![2, 2], vec![1.0]))];
    let e = safetensors::write(&path, &bad).unwrap_err().to_string();
    assert!(e.contains("tensor 'w'") && e.contains("1 values"), "{e}");
    assert_eq!(safetensors::read(&path).unwrap().len(), 2);
    std::fs::write(dir.join("junk.safetensors"), b"not a checkpoint").unwrap();
    let e = safetensors::read(&dir.join("junk.safetensors"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("is not a safetensors file"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// F16 and BF16 tensors are stored as they are (2 bytes a cell, the
/// dtypes Python's `safetensors` names F16 and BF16) and read back bit for
/// bit; `args::read_tensor` takes the one tensor of a file, or one by name.
#[test]
fn sixteen_bit_checkpoints_keep_their_types() {
    use ocannl_runtime::{args, safetensors};
    let dir = std::env::temp_dir().join(format!("ocannl-st16-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("half.safetensors");
    let values = [0.1, -2.5, 1e-3, 3.0e38];
    let tensors = vec![
        (
            "bf".to_string(),
            HostTensor::from_f64(Elt::BF16, vec![2, 2], values),
        ),
        (
            "h".to_string(),
            HostTensor::from_f64(Elt::F16, vec![4], values),
        ),
    ];
    safetensors::write(&path, &tensors).unwrap();
    // 8 bytes of cells each: the header names the dtypes.
    let bytes = std::fs::read(&path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        text.contains("\"BF16\"") && text.contains("\"F16\""),
        "{text}"
    );
    let mut back = safetensors::read(&path).unwrap();
    back.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(back, tensors);
    // 3e38 is finite in bf16 and infinite in f16.
    assert!(back[0].1.to_f64()[3].is_finite() && back[1].1.to_f64()[3].is_infinite());
    let one = args::read_tensor(&format!("{}:h", path.display())).unwrap();
    assert_eq!(one, tensors[1].1);
    let e = args::read_tensor(&path.display().to_string())
        .unwrap_err()
        .to_string();
    assert!(e.contains("holds 2 tensors (bf, h)"), "{e}");
    let e = args::read_tensor(&format!("{}:w", path.display()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("has no tensor 'w'"), "{e}");
    // A bf16 result goes to a safetensors file, an f16 one to .npy.
    let written = args::write_tensor(&dir, "r", &tensors[0].1).unwrap();
    assert_eq!(written, dir.join("r.safetensors"));
    assert_eq!(
        args::read_tensor(&written.display().to_string()).unwrap(),
        tensors[0].1
    );
    assert_eq!(
        args::write_tensor(&dir, "s", &tensors[1].1).unwrap(),
        dir.join("s.npy")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
