//! Passes within a dialect: `ocannl-verify` and `ocannl-infer-shapes` on
//! `ocannl_shape`, `ocannl-autodiff`, `ocannl-train-step` and `ocannl-virtualize` on
//! `ocannl_assign`.

pub mod autodiff;
pub mod infer_shapes;
pub mod train_step;
pub mod verify;
pub mod virtualize;
