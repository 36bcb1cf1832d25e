//! Layers, in the spirit of OCANNL's `nn_blocks`: functions from tensors to
//! tensors built from the op vocabulary and einsum specs.
//!
//! Reductions over "the last axis" are over the last output axis of a
//! tensor (`"...|...->..., c => ...|...->..., 0"`): its classes, features
//! or positions, with the batch and input rows kept. The result keeps that
//! axis with one cell, so it broadcasts back against its operand.

use ocannl_ops::{Accum, BinaryOp, UnaryOp};

use crate::{
    expr::{binary, einsum, einsum_with, exp, log, number, one_hot, param, pointdiv, pointmul, relu, sqrt, sum},
    ParamInit, Tensor,
};

/// The einsum spec that reduces the last output axis to one cell.
pub const LAST_AXIS: &str = "...|...->..., c => ...|...->..., 0";

/// `1` in every cell of `x`'s shape, whatever `x` holds (`1^x` is 1 for
/// every `x`, NaN and infinities included, and its derivative is 0).
pub fn ones_like(x: &Tensor) -> Tensor {
    binary(BinaryOp::Pow, &number(1.0), x)
}

/// The sum over the last axis.
pub fn sum_last(x: &Tensor) -> Tensor {
    einsum(LAST_AXIS, &[x])
}

/// The largest value along the last axis (OCANNL's `@^^` max-reduction).
pub fn max_last(x: &Tensor) -> Tensor {
    einsum_with(LAST_AXIS, Accum::Max, UnaryOp::Identity, &[x])
}

/// The mean over the last axis: the sum divided by the axis's size.
pub fn mean_last(x: &Tensor) -> Tensor {
    pointdiv(&sum_last(x), &sum_last(&ones_like(x)))
}

/// The mean of every cell (a tensor of one cell).
pub fn mean(x: &Tensor) -> Tensor {
    pointdiv(&sum(x), &sum(&ones_like(x)))
}

/// `w * x + b` with `w` and `b` the params `NAME.w` (Glorot-initialized)
/// and `NAME.b` (zeros), of output dims `out`; `w`'s input dims are `x`'s
/// output dims, inferred.
pub fn linear(name: &str, x: &Tensor, out: &[u64]) -> Tensor {
    let w = param(&format!("{name}.w"))
        .output(out)
        .init(ParamInit::Glorot);
    let b = param(&format!("{name}.b"))
        .output(out)
        .init(ParamInit::Zeros);
    &w * x + &b
}

/// OCANNL's `mlp_layer`: `relu(w * x + b)`, `w` He-initialized.
pub fn mlp_layer(name: &str, x: &Tensor, out: &[u64]) -> Tensor {
    let w = param(&format!("{name}.w")).output(out).init(ParamInit::He);
    let b = param(&format!("{name}.b"))
        .output(out)
        .init(ParamInit::Zeros);
    relu(&(&w * x + &b))
}

/// An MLP: `mlp_layer`s of the `hidden` widths (`NAME.0`, `NAME.1`, ...),
/// then a `linear` layer of `out` dims (`NAME.out`).
pub fn mlp(name: &str, x: &Tensor, hidden: &[u64], out: &[u64]) -> Tensor {
    let mut h = x.clone();
    for (k, &width) in hidden.iter().enumerate() {
        h = mlp_layer(&format!("{name}.{k}"), &h, &[width]);
    }
    linear(&format!("{name}.out"), &h, out)
}

/// Softmax over the last axis, computed as `exp(x - max) / sum(exp(x -
/// max))` so that no `exp` overflows.
pub fn softmax(x: &Tensor) -> Tensor {
    let e = exp(&(x - &max_last(x)));
    pointdiv(&e, &sum_last(&e))
}

/// The log of [`softmax`], as `z - log(sum(exp(z)))` with `z = x - max`
/// (finite where the softmax underflows).
pub fn log_softmax(x: &Tensor) -> Tensor {
    let z = x - &max_last(x);
    &z - &log(&sum_last(&exp(&z)))
}

/// The negative log-likelihood of class ids under log-probabilities over
/// the last axis (`log_probs` of shape `"B|C"`, `class_ids` of `"B|1"`,
/// each a class in `0..classes`), averaged over the rows.
pub fn nll(log_probs: &Tensor, class_ids: &Tensor, classes: u64) -> Tensor {
    let picked = sum_last(&pointmul(&one_hot(class_ids, classes), log_probs));
    -mean(&picked)
}

/// The cross-entropy of logits (unnormalized, over the last axis) against
/// class ids, averaged over the rows: `nll(log_softmax(logits), ...)`,
/// numerically stable.
pub fn cross_entropy(logits: &Tensor, class_ids: &Tensor, classes: u64) -> Tensor {
    nll(&log_softmax(logits), class_ids, classes)
}

/// [`cross_entropy`] with a mask (shape `"B|1"`: 1 for the rows that
/// count, 0 for padded positions), averaged over the rows that count.
pub fn masked_cross_entropy(
    logits: &Tensor,
    class_ids: &Tensor,
    classes: u64,
    mask: &Tensor,
) -> Tensor {
    let picked = sum_last(&pointmul(&one_hot(class_ids, classes), &log_softmax(logits)));
    -pointdiv(&sum(&pointmul(&picked, mask)), &sum(mask))
}

/// Layer normalization over the last axis: `(x - mean) / sqrt(var + eps)`
/// with the mean and the (biased) variance divided by the axis's size, then
/// scaled and shifted by learned params: `(1 + NAME.gain) * y + NAME.bias`
/// (both zero-initialized, so the layer starts as the plain normalization).
/// OCANNL's `layer_norm` sums without dividing; this one normalizes.
pub fn layer_norm(name: &str, x: &Tensor, eps: f64) -> Tensor {
    let d = x - &mean_last(x);
    let var = mean_last(&pointmul(&d, &d));
    let y = pointdiv(&d, &sqrt(&(var + eps)));
    let gain = param(&format!("{name}.gain")).init(ParamInit::Zeros);
    let bias = param(&format!("{name}.bias")).init(ParamInit::Zeros);
    pointmul(&(1.0 + &gain), &y) + &bias
}
