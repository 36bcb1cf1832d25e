//! `.npy` files read and written by `ocannl_runtime::npy`: files written by
//! `npyz` itself (C and Fortran order, both byte orders), round trips, and
//! the errors for files it cannot read.

use std::path::{Path, PathBuf};

use npyz::WriterBuilder;
use ocannl_runtime::{npy, Elt, HostTensor};

/// A fresh directory under the target's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("npy-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// The bytes of a `.npy` file written by `npyz` with the given dtype and
/// order, the cells in the order they are stored.
fn npyz_bytes<T: npyz::Serialize + npyz::AutoSerialize + Copy>(
    dtype: &str,
    order: npyz::Order,
    shape: &[u64],
    stored: &[T],
) -> Vec<u8> {
    let mut bytes = vec![];
    let mut w = npyz::WriteOptions::<T>::new()
        .dtype(npyz::DType::parse(dtype).expect("dtype"))
        .order(order)
        .shape(shape)
        .writer(&mut bytes)
        .begin_nd()
        .expect("header");
    w.extend(stored.iter().copied()).expect("data");
    w.finish().expect("end");
    bytes
}

/// A Fortran-order file stores a 2x3 array column by column; it reads as
/// the same array in row-major order (not transposed).
#[test]
fn fortran_order_reads_row_major() {
    let bytes = npyz_bytes::<f32>(
        "'<f4'",
        npyz::Order::Fortran,
        &[2, 3],
        &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0],
    );
    assert!(
        String::from_utf8_lossy(&bytes).contains("'fortran_order': True"),
        "npyz wrote a C-order file"
    );
    let t = npy::from_bytes(&bytes, "f.npy").expect("reads");
    assert_eq!(
        t,
        HostTensor::f32(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // Three axes: cell (i, j, k) at i + 2j + 6k.
    let dims = [2u64, 3, 4];
    let mut stored = vec![0.0f64; 24];
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                stored[i + 2 * j + 6 * k] = (100 * i + 10 * j + k) as f64;
            }
        }
    }
    let t = npy::from_bytes(
        &npyz_bytes::<f64>("'<f8'", npyz::Order::Fortran, &dims, &stored),
        "g.npy",
    )
    .expect("reads");
    let mut expected = vec![];
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                expected.push((100 * i + 10 * j + k) as f64);
            }
        }
    }
    assert_eq!(t.as_f64(), Some(&expected[..]));
    assert_eq!(t.elt(), Elt::F64);
}

/// Big-endian cells are read by value.
#[test]
fn big_endian_cells() {
    let bytes = npyz_bytes::<f64>("'>f8'", npyz::Order::C, &[3], &[1.5, -2.0, 1e300]);
    assert_eq!(
        npy::from_bytes(&bytes, "b.npy").expect("reads").as_f64(),
        Some(&[1.5, -2.0, 1e300][..])
    );
    let bytes = npyz_bytes::<f32>("'>f4'", npyz::Order::C, &[2], &[0.25, 3.0]);
    assert_eq!(
        npy::from_bytes(&bytes, "b.npy").expect("reads").as_f32(),
        Some(&[0.25, 3.0][..])
    );
}

/// f64, f32 and 0-d tensors are written and read back unchanged, and the
/// files are what numpy reads (C order, little-endian).
#[test]
fn round_trips() {
    let dir = scratch("round-trips");
    let cases = [
        HostTensor::f64(vec![2, 2], vec![0.1, -1e-300, f64::MAX, 3.0]),
        HostTensor::f32(vec![3, 1, 2], vec![0.5, 1.0, -2.25, 4.0, 8.0, 1e-3]),
        HostTensor::f64(vec![], vec![42.5]),
    ];
    for (k, t) in cases.iter().enumerate() {
        let path = dir.join(format!("t{k}.npy"));
        npy::write(&path, t).expect("writes");
        assert_eq!(&npy::read(&path).expect("reads"), t);
        let bytes = std::fs::read(&path).expect("file");
        let header = String::from_utf8_lossy(&bytes[..bytes.len().min(128)]).into_owned();
        assert!(header.contains("'fortran_order': False"), "{header}");
        let descr = if t.elt() == Elt::F32 {
            "'<f4'"
        } else {
            "'<f8'"
        };
        assert!(header.contains(descr), "{header}");
    }
    // A 0-d file has the shape ().
    let header = std::fs::read(dir.join("t2.npy")).expect("file");
    assert!(String::from_utf8_lossy(&header).contains("'shape': ()"));
    // Only the files written are left.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["t0.npy", "t1.npy", "t2.npy"]);
}

#[test]
fn bad_files_say_why() {
    let err = npy::from_bytes(b"not an array", "x.npy")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("x.npy is not a .npy file: "), "{err}");
    let ints = npyz_bytes::<i32>("'<i4'", npyz::Order::C, &[2], &[1, 2]);
    assert_eq!(
        npy::from_bytes(&ints, "i.npy").unwrap_err().to_string(),
        "i.npy has dtype <i4; float16 (<f2), float32 (<f4) and float64 (<f8) are supported"
    );
    let mut long = npyz_bytes::<f32>("'<f4'", npyz::Order::C, &[4], &[1.0; 4]);
    long.extend([0u8; 7]);
    assert_eq!(
        npy::from_bytes(&long, "l.npy").unwrap_err().to_string(),
        "l.npy has 23 bytes of data but its header (shape [4], dtype <f4) describes 16"
    );
    let short = npyz_bytes::<f64>("'<f8'", npyz::Order::Fortran, &[2, 2], &[1.0; 4]);
    assert_eq!(
        npy::from_bytes(&short[..short.len() - 8], "s.npy")
            .unwrap_err()
            .to_string(),
        "s.npy has 24 bytes of data but its header (shape [2, 2], dtype <f8) describes 32"
    );
    let missing = npy::read(Path::new("/nonexistent/m.npy"))
        .unwrap_err()
        .to_string();
    assert!(
        missing.starts_with("cannot read /nonexistent/m.npy: "),
        "{missing}"
    );
}

/// f16 tensors are written as `<f2` and read back bit for bit; a bf16 one
/// is refused with the reason (numpy has no bfloat16), writing nothing.
#[test]
fn sixteen_bit_cells() {
    let dir = scratch("sixteen-bits");
    let values = [0.5, -1.0, 65504.0, 5.960464477539063e-8, 0.1, f64::INFINITY];
    let t = HostTensor::from_f64(Elt::F16, vec![2, 3], values);
    assert_eq!(t.elt(), Elt::F16);
    assert_eq!(t.bytes().len(), 12);
    // Each value rounded to f16 (0.1 to its nearest, the smallest
    // subnormal kept).
    let back = t.to_f64();
    assert_eq!(back[3], 2f64.powi(-24));
    assert_eq!(back[4], Elt::F16.round(0.1));
    let path = dir.join("h.npy");
    npy::write(&path, &t).expect("writes");
    let header = String::from_utf8_lossy(&std::fs::read(&path).expect("file")[..64]).into_owned();
    assert!(header.contains("'<f2'"), "{header}");
    assert_eq!(npy::read(&path).expect("reads"), t);
    let b = HostTensor::from_f64(Elt::BF16, vec![2], [1.0, 3.0]);
    let e = npy::write(&dir.join("b.npy"), &b).unwrap_err().to_string();
    assert!(
        e.contains("numpy has no bfloat16") && e.contains("safetensors"),
        "{e}"
    );
    assert!(!dir.join("b.npy").exists());
}

/// A write that fails leaves neither a partial file nor a temporary one,
/// and keeps the file it would have replaced.
#[test]
fn failed_writes_leave_nothing() {
    let dir = scratch("failed-writes");
    let t = HostTensor::f32(vec![2], vec![1.0, 2.0]);
    // The target is a directory: the rename fails after the data is written.
    std::fs::create_dir(dir.join("d.npy")).expect("dir");
    let err = npy::write(&dir.join("d.npy"), &t).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("cannot write {}", dir.join("d.npy").display())),
        "{err}"
    );
    // Cells that do not match the shape: the old file stays.
    let path = dir.join("p.npy");
    npy::write(&path, &t).expect("writes");
    let bad = HostTensor {
        data: vec![1.0f32; 3].into(),
        ..t.clone()
    };
    let err = npy::write(&path, &bad).unwrap_err().to_string();
    assert!(
        err.contains("3 values for a tensor of shape [2] (2 cells)"),
        "{err}"
    );
    assert_eq!(npy::read(&path).expect("reads"), t);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["d.npy", "p.npy"]);
}

/// Errors have the kind a caller acts on: a damaged file is a format
/// error, a missing one an I/O error with the system's error as its
/// source, a tensor whose cells do not fill its shape the caller's.
#[test]
fn errors_have_kinds() {
    use ocannl_runtime::Kind;
    assert_eq!(
        npy::from_bytes(b"not an array", "x.npy")
            .unwrap_err()
            .kind(),
        Kind::Format
    );
    let missing = npy::read(Path::new("/nonexistent/m.npy")).unwrap_err();
    assert_eq!(missing.kind(), Kind::Io);
    assert!(std::error::Error::source(&missing).is_some());
    let bad = ocannl_runtime::HostTensor {
        dims: vec![2, 2],
        data: ocannl_runtime::Cells::F32(vec![1.0; 3]),
    };
    assert_eq!(bad.check().unwrap_err().kind(), Kind::Argument);
    let dir = std::env::temp_dir();
    assert_eq!(
        npy::write(&dir.join("ocannl-kinds-never-written.npy"), &bad)
            .unwrap_err()
            .kind(),
        Kind::Argument
    );
}
