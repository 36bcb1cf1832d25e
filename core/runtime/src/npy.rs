//! `.npy` files, through the `npyz` crate: the one reader and writer of the
//! project (the `ocannl` API's params, `ocannl-run`'s arguments and results,
//! the tests).
//!
//! Reading accepts float32 and float64 cells in either byte order and
//! either axis order: a Fortran-order file is permuted into the row-major
//! order of [`HostTensor::data`]. Cells are read and written in their own
//! type. Other dtypes, and data that is not exactly
//! what the header describes, are errors naming the file. Writing goes to a
//! temporary file in the same directory, renamed over the target once
//! complete: a failed write leaves no partial file.

use std::{io::Write, path::Path};

use npyz::{DType, Order, TypeChar, WriterBuilder};

use crate::{Cells, Elt, Error, HostTensor};

/// Reads a `.npy` file of float16, float32 or float64 cells as a row-major
/// tensor. (numpy has no bfloat16: such tensors go to safetensors files.)
pub fn read(path: &Path) -> Result<HostTensor, Error> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::io(format!("cannot read {}: {e}", path.display()), e))?;
    from_bytes(&bytes, &path.display().to_string())
}

/// Reads the bytes of a `.npy` file; `name` names it in errors.
pub fn from_bytes(bytes: &[u8], name: &str) -> Result<HostTensor, Error> {
    let mut data: &[u8] = bytes;
    let header = npyz::NpyHeader::from_reader(&mut data)
        .map_err(|e| Error::format(format!("{name} is not a .npy file: {e}")))?;
    let dtype = header.dtype();
    let descr = dtype.descr();
    let descr = descr.trim_matches('\'');
    let elt = match &dtype {
        DType::Plain(t) if t.type_char() == TypeChar::Float && t.size_field() == 2 => Elt::F16,
        DType::Plain(t) if t.type_char() == TypeChar::Float && t.size_field() == 4 => Elt::F32,
        DType::Plain(t) if t.type_char() == TypeChar::Float && t.size_field() == 8 => Elt::F64,
        _ => {
            return Err(Error::format(format!(
                "{name} has dtype {descr}; float16 (<f2), float32 (<f4) and float64 (<f8) are supported"
            )))
        }
    };
    let dims = header.shape().to_vec();
    // The data is exactly what the header describes: no more, no less.
    let need = ocannl_assign::check_buffer(&dims, elt.size())
        .map_err(|e| Error::format(format!("{name}: {e}")))?
        * elt.size();
    if data.len() as u64 != need {
        return Err(Error::format(format!(
            "{name} has {} bytes of data but its header (shape {dims:?}, dtype {descr}) describes {need}",
            data.len()
        )));
    }
    let order = header.order();
    let strides = header.strides().to_vec();
    let npy = npyz::NpyFile::with_header(header, data);
    let bad = |e: std::io::Error| Error::format(format!("{name}: {e}"));
    // The cells in row-major order, as `T`.
    fn cells<T: npyz::Deserialize + Copy>(
        npy: npyz::NpyFile<&[u8]>,
        order: Order,
        dims: &[u64],
        strides: &[u64],
    ) -> std::io::Result<Vec<T>> {
        Ok(in_row_major(npy.into_vec::<T>()?, order, dims, strides))
    }
    let data = match elt {
        Elt::F16 => Cells::F16(cells(npy, order, &dims, &strides).map_err(bad)?),
        Elt::F32 => Cells::F32(cells(npy, order, &dims, &strides).map_err(bad)?),
        Elt::F64 => Cells::F64(cells(npy, order, &dims, &strides).map_err(bad)?),
        Elt::BF16 => {
            return Err(Error::format(format!(
                "{name}: numpy has no bfloat16 dtype"
            )))
        }
    };
    Ok(HostTensor { dims, data })
}

/// The cells of an array stored in `order`, in row-major order.
fn in_row_major<T: Copy>(stored: Vec<T>, order: Order, dims: &[u64], strides: &[u64]) -> Vec<T> {
    match order {
        Order::C => stored,
        Order::Fortran => row_major(&stored, dims, strides),
    }
}

/// The cells of an array stored with `strides` (cells per step along each
/// axis), in row-major order.
fn row_major<T: Copy>(stored: &[T], dims: &[u64], strides: &[u64]) -> Vec<T> {
    let mut out = Vec::with_capacity(stored.len());
    let mut index = vec![0u64; dims.len()];
    let mut at = 0u64;
    for _ in 0..stored.len() {
        out.push(stored[at as usize]);
        // The next index in row-major order: the last axis fastest.
        for k in (0..dims.len()).rev() {
            index[k] += 1;
            at += strides[k];
            if index[k] < dims[k] {
                break;
            }
            at -= strides[k] * dims[k];
            index[k] = 0;
        }
    }
    out
}

/// Writes a tensor as a `.npy` file (C order, little-endian `<f2`, `<f4`
/// or `<f8`), replacing `path` only once the whole file is written. A bf16
/// tensor is refused: numpy has no such dtype (a safetensors file keeps
/// it).
pub fn write(path: &Path, t: &HostTensor) -> Result<(), Error> {
    t.check()
        .map_err(|e| e.prefixed(format_args!("cannot write {}", path.display())))?;
    if t.elt() == Elt::BF16 {
        return Err(Error::argument(format!(
            "cannot write {}: a .npy file cannot hold bf16 (numpy has no bfloat16 dtype); write a safetensors file instead",
            path.display()
        )));
    }
    crate::write_atomically(path, |w| write_to(w, t))
}

fn write_to(w: &mut dyn Write, t: &HostTensor) -> std::io::Result<()> {
    /// The `.npy` file of `cells` of `dims`, in C order.
    fn cells<T: npyz::AutoSerialize + Copy>(
        w: &mut dyn Write,
        dims: &[u64],
        cells: &[T],
    ) -> std::io::Result<()> {
        let mut out = npyz::WriteOptions::<T>::new()
            .default_dtype()
            .shape(dims)
            .writer(w)
            .begin_nd()?;
        out.extend(cells.iter().copied())?;
        out.finish()
    }
    match &t.data {
        Cells::F16(c) => cells(w, &t.dims, c),
        Cells::BF16(_) => Err(std::io::Error::other("numpy has no bfloat16 dtype")),
        Cells::F32(c) => cells(w, &t.dims, c),
        Cells::F64(c) => cells(w, &t.dims, c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_permutes_fortran_strides() {
        // A 2x3 array [[1, 2, 3], [4, 5, 6]] stored column by column.
        let stored = [1.0, 4.0, 2.0, 5.0, 3.0, 6.0];
        assert_eq!(
            row_major(&stored, &[2, 3], &[1, 2]),
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        );
        // C strides keep the order.
        assert_eq!(row_major(&stored, &[2, 3], &[3, 1]), stored);
        // 0-d and 1-d arrays.
        assert_eq!(row_major(&[7.0], &[], &[]), [7.0]);
        assert_eq!(row_major(&[1.0, 2.0], &[2], &[1]), [1.0, 2.0]);
    }
}
