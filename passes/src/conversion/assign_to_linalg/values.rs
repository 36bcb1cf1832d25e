//! Buffers as values: in a routine, a tensor node or buffer argument is
//! memory updated in place; on tensors it is a sequence of values, each
//! assignment or initialization giving the next. [`Values`] holds the
//! current value of each buffer (keyed by the routine's memref value),
//! and which buffer arguments were written (their last values are
//! returned).

use std::collections::HashMap;

use melior::ir::{Type, Value, ValueLike};
use ocannl_mlir::{ir, types, Builder};

/// A buffer's current value and type.
#[derive(Clone, Copy)]
pub struct Current<'c, 'a> {
    pub value: Value<'c, 'a>,
    /// The tensor type of the buffer.
    pub ty: Type<'c>,
    /// The element type.
    pub elt: Type<'c>,
}

struct Buffer<'c, 'a> {
    current: Current<'c, 'a>,
    dims: Vec<u64>,
    written: bool,
}

/// The current value of each buffer of a routine.
#[derive(Default)]
pub struct Values<'c, 'a> {
    buffers: HashMap<usize, Buffer<'c, 'a>>,
}

/// `tensor<DIMSxELT>`.
pub(crate) fn tensor_type<'c>(
    e: &Builder<'c>,
    dims: &[u64],
    elt: Type<'c>,
) -> Result<Type<'c>, String> {
    let dims: String = dims.iter().map(|d| format!("{d}x")).collect();
    e.ty(&format!("tensor<{dims}{elt}>"))
        .map_err(|e| e.to_string())
}

/// The static sizes and the element type of a memref type.
pub fn memref_parts(ty: Type) -> Option<(Vec<u64>, Type)> {
    let dims = types::memref_dims(ty)?;
    Some((dims, types::element_type(ty)?))
}

impl<'c, 'a> Values<'c, 'a> {
    /// Starts buffer `buf` (a memref value of the routine) at `value`.
    pub(crate) fn start(
        &mut self,
        e: &Builder<'c>,
        buf: Value<'c, 'a>,
        value: Value<'c, 'a>,
    ) -> Result<(), String> {
        let (dims, elt) = memref_parts(buf.r#type())
            .ok_or_else(|| format!("a buffer of type {} is not a memref", buf.r#type()))?;
        let ty = tensor_type(e, &dims, elt)?;
        self.buffers.insert(
            ir::key(buf),
            Buffer {
                current: Current { value, ty, elt },
                dims,
                written: false,
            },
        );
        Ok(())
    }

    fn buffer(&self, buf: Value<'c, 'a>) -> Result<&Buffer<'c, 'a>, String> {
        self.buffers.get(&ir::key(buf)).ok_or_else(|| {
            "an operand is not a tensor node or buffer argument of the routine".to_string()
        })
    }

    /// The current value of `buf`.
    pub(crate) fn current(&self, buf: Value<'c, 'a>) -> Result<Current<'c, 'a>, String> {
        Ok(self.buffer(buf)?.current)
    }

    /// The sizes of `buf`.
    pub(crate) fn dims(&self, buf: Value<'c, 'a>) -> Result<Vec<u64>, String> {
        Ok(self.buffer(buf)?.dims.clone())
    }

    /// `value` is the next value of `buf`.
    pub(crate) fn set(&mut self, buf: Value<'c, 'a>, value: Value<'c, 'a>) -> Result<(), String> {
        let b = self.buffers.get_mut(&ir::key(buf)).ok_or_else(|| {
            "the result is not a tensor node or buffer argument of the routine".to_string()
        })?;
        b.current.value = value;
        b.written = true;
        Ok(())
    }

    /// Whether `buf` was given a new value.
    pub fn written(&self, buf: Value<'c, 'a>) -> bool {
        self.buffers.get(&ir::key(buf)).is_some_and(|b| b.written)
    }
}
