//! What the command-line runners share (`ocannl-run`, `ocannl-gpu`): a
//! function's arguments made from specs, and results printed as text.
//!
//! An argument spec is one of: a tensor file ([`read_tensor`]: a `.npy`
//! file, or a `.safetensors` file of one tensor or `FILE.safetensors:NAME`;
//! its shape and element type must be the slot's), `range` (the cells 0, 1,
//! 2, ... in row-major order), `random:SEED` (uniform in `[0, 1)` from
//! `ocannl_ops::SplitMix64`, the same values on every machine, rounded to
//! the slot's element type), `fill:X` (every cell `X`), or an integer for
//! an `index` argument. Results are written by [`write_tensor`]: `.npy`,
//! or `.safetensors` for bf16, which numpy has no dtype for.

use std::path::Path;

use crate::{Elt, Error, HostTensor, HostValue, Slot};

/// The arguments of `entry` from specs, one per input slot (generated
/// tensors no larger than `limit` bytes on the host). Relative `.npy`
/// paths are read from `base` when given.
pub fn from_specs(
    entry: &str,
    specs: &[String],
    inputs: &[Slot],
    limit: Option<u64>,
    base: Option<&Path>,
) -> Result<Vec<HostValue>, Error> {
    if specs.len() != inputs.len() {
        return Err(Error::argument(format!(
            "@{entry} takes {} argument(s) but {} --arg were given",
            inputs.len(),
            specs.len()
        )));
    }
    specs
        .iter()
        .zip(inputs)
        .enumerate()
        .map(|(i, (spec, slot))| match slot {
            Slot::Index => spec.parse::<i64>().map(HostValue::Index).map_err(|_| {
                Error::argument(format!(
                    "argument #{i} is an index: expected an integer, found {spec:?}"
                ))
            }),
            Slot::MemRef { elt, dims } => {
                tensor(i, spec, *elt, dims, limit, base).map(HostValue::Tensor)
            }
        })
        .collect()
}

/// Tensor argument `#i` of `elt` and `dims` from `spec`.
fn tensor(
    i: usize,
    spec: &str,
    elt: Elt,
    dims: &[u64],
    limit: Option<u64>,
    base: Option<&Path>,
) -> Result<HostTensor, Error> {
    let generated = |value: &dyn Fn(usize) -> f64| -> Result<HostTensor, Error> {
        // The host holds the cells in their type.
        let size = elt.size();
        let n = ocannl_assign::check_buffer(dims, size)
            .map_err(|e| Error::memory(format!("argument #{i}: {e}")))?;
        if let Some(limit) = limit.filter(|&l| n.saturating_mul(size) > l) {
            return Err(Error::memory(format!(
                "argument #{i}: {n} values take {} bytes on the host, more than the memory limit of {limit} bytes (see --memory-limit)",
                n.saturating_mul(size)
            )));
        }
        let mut t = HostTensor::try_zeros(elt, dims.to_vec())
            .map_err(|e| e.prefixed(format_args!("argument #{i}")))?;
        t.data.fill_with(value);
        Ok(t)
    };
    if spec == "range" {
        return generated(&|k| k as f64);
    }
    if let Some(seed) = spec.strip_prefix("random:") {
        let seed: u64 = seed.parse().map_err(|_| {
            Error::argument(format!(
                "argument #{i}: expected random:SEED with an integer seed, found {spec:?}"
            ))
        })?;
        let rng = std::cell::RefCell::new(ocannl_ops::SplitMix64::new(seed));
        return generated(&|_| rng.borrow_mut().next_f64());
    }
    if let Some(x) = spec.strip_prefix("fill:") {
        let x: f64 = x.parse().map_err(|_| {
            Error::argument(format!(
                "argument #{i}: expected fill:VALUE with a number, found {spec:?}"
            ))
        })?;
        return generated(&|_| x);
    }
    let path = match base {
        Some(b) if Path::new(spec).is_relative() => b.join(spec),
        _ => Path::new(spec).to_path_buf(),
    };
    let arr = read_tensor(&path.to_string_lossy())
        .map_err(|e| e.prefixed(format_args!("argument #{i}")))?;
    if arr.dims != dims {
        return Err(Error::argument(format!(
            "argument #{i}: {spec} has shape {:?} but the argument's tensor needs {:?} (batch, output, input)",
            arr.dims, dims
        )));
    }
    if arr.elt() != elt {
        let numpy = |e: Elt| match e {
            Elt::F16 => "float16",
            Elt::BF16 => "bfloat16",
            Elt::F32 => "float32",
            Elt::F64 => "float64",
        };
        return Err(Error::argument(format!(
            "argument #{i}: {spec} holds {} but the argument's tensor is {}",
            numpy(arr.elt()),
            elt.name()
        )));
    }
    Ok(arr)
}

/// The tensor of a file: `FILE.safetensors:NAME` (the tensor `NAME` of a
/// safetensors file), `FILE.safetensors` (its one tensor), else a `.npy`
/// file.
pub fn read_tensor(spec: &str) -> Result<HostTensor, Error> {
    let (file, name) = match spec.rsplit_once(".safetensors:") {
        Some((stem, name)) => (format!("{stem}.safetensors"), Some(name)),
        None => (spec.to_string(), None),
    };
    if !file.ends_with(".safetensors") {
        return crate::npy::read(Path::new(spec));
    }
    let mut tensors = crate::safetensors::read(Path::new(&file))?;
    let names = || {
        let mut names: Vec<&str> = tensors.iter().map(|(n, _)| n.as_str()).collect();
        names.sort_unstable();
        names.join(", ")
    };
    let k = match name {
        Some(name) => tensors.iter().position(|(n, _)| n == name).ok_or_else(|| {
            Error::argument(format!(
                "{file} has no tensor '{name}' (it has: {})",
                names()
            ))
        })?,
        None if tensors.len() == 1 => 0,
        None => {
            return Err(Error::argument(format!(
                "{file} holds {} tensors ({}): name one as {file}:NAME",
                tensors.len(),
                names()
            )))
        }
    };
    Ok(tensors.swap_remove(k).1)
}

/// Writes `t` as `DIR/STEM.npy`, or as `DIR/STEM.safetensors` (one tensor
/// named `STEM`) when it is bf16, which numpy has no dtype for; returns
/// the file written.
pub fn write_tensor(dir: &Path, stem: &str, t: &HostTensor) -> Result<std::path::PathBuf, Error> {
    if t.elt() == Elt::BF16 {
        let path = dir.join(format!("{stem}.safetensors"));
        crate::safetensors::write(&path, &[(stem.to_string(), t.clone())])?;
        return Ok(path);
    }
    let path = dir.join(format!("{stem}.npy"));
    crate::npy::write(&path, t)?;
    Ok(path)
}

/// A tensor as nested lists, numpy style (integers without a fraction,
/// others with 6 digits; more than 10,000 values as their count only).
pub fn format_tensor(a: &HostTensor) -> String {
    fn rec(out: &mut String, data: &[f64], dims: &[u64], depth: usize) {
        if dims.is_empty() {
            out.push_str(&format_number(data[0]));
            return;
        }
        let step: usize = dims[1..].iter().product::<u64>() as usize;
        out.push('[');
        for i in 0..dims[0] as usize {
            if i > 0 {
                out.push_str(if dims.len() > 1 { ",\n" } else { ", " });
                if dims.len() > 1 {
                    out.push_str(&" ".repeat(depth + 1));
                }
            }
            rec(out, &data[i * step..(i + 1) * step], &dims[1..], depth + 1);
        }
        out.push(']');
    }
    if a.len() > 10_000 {
        return format!("({} values)", a.len());
    }
    if a.check().is_err() {
        return format!("({} values for the shape {:?})", a.len(), a.dims);
    }
    let mut s = String::new();
    rec(&mut s, &a.to_f64(), &a.dims, 0);
    s
}

/// A number as [`format_tensor`] prints it.
pub fn format_number(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x:.6}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(dims: Vec<u64>) -> Slot {
        Slot::MemRef {
            elt: Elt::F32,
            dims,
        }
    }

    #[test]
    fn specs_make_arguments() {
        let inputs = [slot(vec![2, 2]), Slot::Index, slot(vec![3]), slot(vec![])];
        let specs: Vec<String> = ["range", "-4", "fill:0.5", "random:7"]
            .map(String::from)
            .to_vec();
        let args = from_specs("f", &specs, &inputs, None, None).unwrap();
        let HostValue::Tensor(r) = &args[0] else {
            panic!()
        };
        assert_eq!(r.to_f64(), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(args[1], HostValue::Index(-4));
        let HostValue::Tensor(f) = &args[2] else {
            panic!()
        };
        assert_eq!(f.to_f64(), vec![0.5; 3]);
        let HostValue::Tensor(x) = &args[3] else {
            panic!()
        };
        assert_eq!(
            x.to_f64(),
            vec![f64::from(ocannl_ops::SplitMix64::new(7).next_f64() as f32)]
        );
        // The same seed, the same values.
        assert_eq!(from_specs("f", &specs, &inputs, None, None).unwrap(), args);
    }

    #[test]
    fn bad_specs_are_errors() {
        use crate::Kind;
        let err = |specs: &[&str], inputs: &[Slot], limit| {
            let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
            from_specs("f", &specs, inputs, limit, None)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(&[], &[Slot::Index], None),
            "@f takes 1 argument(s) but 0 --arg were given"
        );
        assert!(err(&["x"], &[Slot::Index], None).contains("is an index"));
        assert!(err(&["fill:a"], &[slot(vec![1])], None).contains("fill:VALUE"));
        assert!(err(&["random:x"], &[slot(vec![1])], None).contains("random:SEED"));
        assert!(err(&["range"], &[slot(vec![100])], Some(64)).contains("memory limit"));
        assert!(err(&["/nonexistent/a.npy"], &[slot(vec![1])], None).contains("argument #0"));
        // The kinds: a bad spec is the caller's, a missing file an I/O
        // failure (with the system's error as its source), a buffer over
        // the limit memory.
        let kind = |specs: &[&str], inputs: &[Slot], limit| {
            let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
            from_specs("f", &specs, inputs, limit, None).unwrap_err()
        };
        assert_eq!(kind(&["x"], &[Slot::Index], None).kind(), Kind::Argument);
        let e = kind(&["/nonexistent/a.npy"], &[slot(vec![1])], None);
        assert_eq!(e.kind(), Kind::Io);
        assert!(std::error::Error::source(&e).is_some());
        assert_eq!(
            kind(&["range"], &[slot(vec![100])], Some(64)).kind(),
            Kind::Memory
        );
    }

    #[test]
    fn npy_arguments_are_read_relative_to_the_base() {
        let dir = tempfile::tempdir().unwrap();
        let t = HostTensor::f32(vec![2], vec![1.5, -2.0]);
        crate::npy::write(&dir.path().join("a.npy"), &t).unwrap();
        let args = from_specs(
            "f",
            &["a.npy".into()],
            &[slot(vec![2])],
            None,
            Some(dir.path()),
        )
        .unwrap();
        assert_eq!(args, vec![HostValue::Tensor(t)]);
        let wrong = from_specs(
            "f",
            &["a.npy".into()],
            &[slot(vec![3])],
            None,
            Some(dir.path()),
        );
        assert!(wrong.unwrap_err().to_string().contains("has shape [2]"));
    }

    #[test]
    fn tensors_print_as_nested_lists() {
        let t = HostTensor::f32(vec![2, 2], vec![1.0, 2.5, 3.0, 4.0]);
        assert_eq!(format_tensor(&t), "[[1, 2.500000],\n [3, 4]]");
        let s = HostTensor::f32(vec![], vec![7.0]);
        assert_eq!(format_tensor(&s), "7");
    }
}
