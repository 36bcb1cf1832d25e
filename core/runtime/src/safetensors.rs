//! Checkpoints of named tensors in one file, in the `safetensors` format
//! (the ecosystem's: PyTorch, JAX and Hugging Face tools read it), through
//! the `safetensors` crate. Tensors of every element type (F16, BF16, F32,
//! F64) are stored as they are (their cells' bytes, little-endian); writing
//! is atomic
//! ([`crate::write_atomically`]).

use std::{borrow::Cow, path::Path};

use ::safetensors::{tensor::TensorView, Dtype, SafeTensors};

use crate::{Cells, Elt, Error, HostTensor};

/// Cells' bytes in the machine's byte order as little-endian bytes, or
/// back (the same swap): a copy only on a big-endian machine.
fn little_endian(bytes: &[u8], elt: Elt) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        Cow::Borrowed(bytes)
    } else {
        Cow::Owned(
            bytes
                .chunks_exact(elt.size() as usize)
                .flat_map(|c| c.iter().rev().copied())
                .collect(),
        )
    }
}

/// Writes `tensors` (distinct names) as one `safetensors` file.
pub fn write(path: &Path, tensors: &[(String, HostTensor)]) -> Result<(), Error> {
    let fail = |m: String| Error::argument(format!("cannot write {}: {m}", path.display()));
    for (name, t) in tensors {
        t.check().map_err(|e| {
            e.prefixed(format_args!(
                "cannot write {}: tensor '{name}'",
                path.display()
            ))
        })?;
    }
    let bytes: Vec<Cow<[u8]>> = tensors
        .iter()
        .map(|(_, t)| little_endian(t.bytes(), t.elt()))
        .collect();
    let views = tensors
        .iter()
        .zip(&bytes)
        .map(|((name, t), data)| {
            let dtype = match t.elt() {
                Elt::F16 => Dtype::F16,
                Elt::BF16 => Dtype::BF16,
                Elt::F32 => Dtype::F32,
                Elt::F64 => Dtype::F64,
            };
            let shape = t.dims.iter().map(|&d| d as usize).collect();
            TensorView::new(dtype, shape, data)
                .map(|v| (name.clone(), v))
                .map_err(|e| fail(format!("tensor '{name}': {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let out = ::safetensors::serialize(views, None).map_err(|e| fail(e.to_string()))?;
    crate::write_atomically(path, |w| w.write_all(&out))
}

/// Reads every tensor of a `safetensors` file (F16, BF16, F32 or F64), in
/// the order of their names.
pub fn read(path: &Path) -> Result<Vec<(String, HostTensor)>, Error> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::io(format!("cannot read {}: {e}", path.display()), e))?;
    let file = SafeTensors::deserialize(&bytes)
        .map_err(|e| Error::format(format!("{} is not a safetensors file: {e}", path.display())))?;
    let mut out = vec![];
    for (name, view) in file.iter() {
        let elt = match view.dtype() {
            Dtype::F16 => Elt::F16,
            Dtype::BF16 => Elt::BF16,
            Dtype::F32 => Elt::F32,
            Dtype::F64 => Elt::F64,
            other => {
                return Err(Error::format(format!(
                "{}: tensor '{name}' has dtype {other:?} (F16, BF16, F32 and F64 are supported)",
                path.display()
            )))
            }
        };
        let data = Cells::from_bytes(elt, &little_endian(view.data(), elt))
            .map_err(|e| e.prefixed(format_args!("{}: tensor '{name}'", path.display())))?;
        let dims = view.shape().iter().map(|&d| d as u64).collect();
        out.push((name.to_string(), HostTensor { dims, data }));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}
