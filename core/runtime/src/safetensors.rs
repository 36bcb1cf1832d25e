//! Checkpoints of named tensors in one file, in the `safetensors` format
//! (the ecosystem's: PyTorch, JAX and Hugging Face tools read it), through
//! the `safetensors` crate. f32 and f64 tensors are stored as they are;
//! writing is atomic ([`crate::write_atomically`]).

use std::path::Path;

use ::safetensors::{tensor::TensorView, Dtype, SafeTensors};

use crate::{Elt, HostTensor};

/// Writes `tensors` (distinct names) as one `safetensors` file.
pub fn write(path: &Path, tensors: &[(String, HostTensor)]) -> Result<(), String> {
    let fail = |m: String| format!("cannot write {}: {m}", path.display());
    let mut bytes: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = Vec::with_capacity(tensors.len());
    for (name, t) in tensors {
        t.check()
            .map_err(|e| fail(format!("tensor '{name}': {e}")))?;
        let (dtype, data) = match t.elt {
            Elt::F32 => (
                Dtype::F32,
                t.data
                    .iter()
                    .flat_map(|&x| (x as f32).to_le_bytes())
                    .collect(),
            ),
            Elt::F64 => (
                Dtype::F64,
                t.data.iter().flat_map(|&x| x.to_le_bytes()).collect(),
            ),
        };
        let shape = t.dims.iter().map(|&d| d as usize).collect();
        bytes.push((name.clone(), dtype, shape, data));
    }
    let views = bytes
        .iter()
        .map(|(name, dtype, shape, data)| {
            TensorView::new(*dtype, shape.clone(), data)
                .map(|v| (name.clone(), v))
                .map_err(|e| fail(format!("tensor '{name}': {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let out = ::safetensors::serialize(views, None).map_err(|e| fail(e.to_string()))?;
    crate::write_atomically(path, |w| w.write_all(&out))
}

/// Reads every tensor of a `safetensors` file (f32 or f64), by name in the
/// file's order.
pub fn read(path: &Path) -> Result<Vec<(String, HostTensor)>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file = SafeTensors::deserialize(&bytes)
        .map_err(|e| format!("{} is not a safetensors file: {e}", path.display()))?;
    let mut out = vec![];
    for (name, view) in file.iter() {
        let (elt, data): (Elt, Vec<f64>) = match view.dtype() {
            Dtype::F32 => (
                Elt::F32,
                view.data()
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64)
                    .collect(),
            ),
            Dtype::F64 => (
                Elt::F64,
                view.data()
                    .chunks_exact(8)
                    .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
                    .collect(),
            ),
            other => {
                return Err(format!(
                    "{}: tensor '{name}' has dtype {other:?} (F32 and F64 are supported)",
                    path.display()
                ))
            }
        };
        out.push((
            name.to_string(),
            HostTensor {
                elt,
                dims: view.shape().iter().map(|&d| d as u64).collect(),
                data,
            },
        ));
    }
    Ok(out)
}
