//! Checkpoints in one `safetensors` file.

use ocannl_runtime::HostTensor;

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
