//! Passes within the `ocannl_shape` dialect.

pub mod infer_shapes;
pub mod verify;
