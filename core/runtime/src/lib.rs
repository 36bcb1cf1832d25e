//! What every backend's runtime shares, in plain Rust.
//!
//! - [`HostTensor`] and [`HostValue`]: the arguments and results of a
//!   compiled function, on the host.
//! - [`npy`]: `.npy` files read into and written from host tensors (the one
//!   reader and writer of the project).
//!
//! Architecture invariant: no MLIR, no CUDA.

pub mod npy;

/// An element type the runtimes exchange.
pub use ocannl_assign::Elt;

/// A buffer on the host: its element type, sizes (row-major) and values
/// (held as f64 whatever the element type; f32 values are exact in f64).
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    pub elt: Elt,
    pub dims: Vec<u64>,
    pub data: Vec<f64>,
}

/// An argument or result.
#[derive(Clone, Debug, PartialEq)]
pub enum HostValue {
    Tensor(HostTensor),
    Index(i64),
}
