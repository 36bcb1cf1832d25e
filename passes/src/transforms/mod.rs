//! Passes within a dialect: `ocannl-verify` and `ocannl-infer-shapes` on
//! `ocannl_shape`, `ocannl-autodiff`, `ocannl-train-step`, `ocannl-virtualize`
//! and `ocannl-one-hot-to-gather` on `ocannl_assign`; `ocannl-simplify` on upstream `arith`/`math` in any block;
//! `ocannl-outline-kernels`, `ocannl-approximate-math` and
//! `ocannl-check-lowered` on the loops stage
//! (the CPU's own `ocannl-kernel-bare-ptrs` is in `backends/cpu`).

pub mod approximate_math;
pub mod autodiff;
pub mod check_lowered;
pub mod infer_shapes;
pub mod one_hot_to_gather;
pub mod outline_kernels;
pub mod simplify;
pub mod train_step;
pub mod verify;
pub mod virtualize;
