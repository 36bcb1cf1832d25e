//! Layers, in the spirit of OCANNL's `nn_blocks`: functions from tensors to
//! tensors built from the op vocabulary and einsum specs.
//!
//! Reductions over "the last axis" are over the last output axis of a
//! tensor (`"...|...->..., c => ...|...->..., 0"`): its classes, features
//! or positions, with the batch and input rows kept. The result keeps that
//! axis with one cell, so it broadcasts back against its operand.

use ocannl_ops::{Accum, BinaryOp, UnaryOp};

use crate::{
    expr::{
        binary, einsum, einsum_with, erf, exp, full, log, number, one_hot, param, pointdiv,
        pointmul, relu, sqrt, sum, tanh,
    },
    Param, ParamInit, Tensor,
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
    let picked = sum_last(&pointmul(
        &one_hot(class_ids, classes),
        &log_softmax(logits),
    ));
    -pointdiv(&sum(&pointmul(&picked, mask)), &sum(mask))
}

/// Layer normalization over the last axis: `(x - mean) / sqrt(var + eps)`
/// with the mean and the (biased) variance divided by the axis's size, then
/// scaled and shifted by learned params: `(1 + NAME.gain) * y + NAME.bias`
/// (both zero-initialized, so the layer starts as the plain normalization).
/// OCANNL's `layer_norm` sums without dividing; this one normalizes.
pub fn layer_norm(name: &str, x: &Tensor, eps: f64) -> Tensor {
    let scaled = layer_norm_without_bias(name, x, eps);
    scaled + &param(&format!("{name}.bias")).init(ParamInit::Zeros)
}

/// [`layer_norm`] without the shift: `(1 + NAME.gain) * y` (PyTorch's
/// `LayerNorm(bias=False)`, nanoGPT's and GPT-2-style models' without
/// biases; `NAME.gain` is the weight less 1).
pub fn layer_norm_without_bias(name: &str, x: &Tensor, eps: f64) -> Tensor {
    let d = x - &mean_last(x);
    let var = mean_last(&pointmul(&d, &d));
    let y = pointdiv(&d, &sqrt(&(var + eps)));
    let gain = param(&format!("{name}.gain")).init(ParamInit::Zeros);
    pointmul(&(1.0 + &gain), &y)
}

/// GELU, exact: `x·Φ(x) = x/2 · (1 + erf(x/√2))` (PyTorch's `gelu`,
/// nanoGPT's MLP).
pub fn gelu(x: &Tensor) -> Tensor {
    pointmul(x, &(1.0 + &erf(&(x * std::f64::consts::FRAC_1_SQRT_2)))) * 0.5
}

/// GELU, the tanh approximation: `x/2 · (1 + tanh(√(2/π)·(x + 0.044715·x³)))`
/// (PyTorch's `gelu(approximate="tanh")`, GPT-2's).
pub fn gelu_tanh(x: &Tensor) -> Tensor {
    let cube = pointmul(x, &pointmul(x, x));
    let inner = (x + &(cube * 0.044715)) * (2.0 / std::f64::consts::PI).sqrt();
    pointmul(x, &(1.0 + &tanh(&inner))) * 0.5
}

/// Dropout of `x` with the keep mask `keep` (a data input of `x`'s shape,
/// or one that broadcasts to it: 1 where a cell is kept, 0 where it is
/// dropped, drawn anew each step by `ocannl::data::batches::dropout_mask`):
/// `x * keep / (1 - rate)`, so that the expected value is `x`'s. Put it in
/// the training loss only; the forward routine for inference leaves it
/// out.
pub fn dropout(x: &Tensor, keep: &Tensor, rate: f64) -> Tensor {
    pointmul(x, keep) * (1.0 / (1.0 - rate))
}

/// A 2-d convolution's geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv2d {
    /// The kernel's height and width.
    pub kernel: u64,
    pub stride: u64,
    /// `true`: the output has `input / stride` rows and columns, the input
    /// padded with zeros (OCANNL's `use_padding`); `false`: only windows
    /// inside the input ("valid").
    pub padding: bool,
    pub in_channels: u64,
    pub out_channels: u64,
}

/// A 2-d convolution of channels-last images (`"B|H,W,C"`: the output row
/// holds height, width and channels) with the params `NAME.kernel`
/// (`kernel x kernel x in_channels -> out_channels`, He-initialized) and
/// `NAME.bias` (zeros): OCANNL's `conv2d` spec
/// `"...|s*oh+kh, s*ow+kw, ic; kh, kw, ic -> oc => ...|oh, ow, oc"`. The
/// input channels are given, not inferred: a single channel broadcasts, so
/// nothing else would decide the kernel's.
pub fn conv2d(name: &str, x: &Tensor, c: Conv2d) -> Tensor {
    let pad = if c.padding { "=+" } else { "<+" };
    let s = c.stride;
    let spec = format!("...|{s}*oh{pad}kh, {s}*ow{pad}kw, ic; kh, kw, ic -> oc => ...|oh, ow, oc");
    let kernel = param(&format!("{name}.kernel"))
        .input(&[c.kernel, c.kernel, c.in_channels])
        .output(&[c.out_channels])
        .init(ParamInit::He);
    let bias = param(&format!("{name}.bias"))
        .output(&[c.out_channels])
        .init(ParamInit::Zeros);
    einsum(&spec, &[x, &kernel]) + &bias
}

/// A depthwise-separable convolution (MobileNet's) of channels-last
/// images: a depthwise `kernel x kernel` convolution of each channel by its
/// own filter (`NAME.depthwise`, `kernel x kernel -> in_channels`, He) then
/// a pointwise 1x1 convolution across channels (`NAME.pointwise`,
/// `in_channels -> out_channels`, He) plus `NAME.bias` (zeros): the
/// geometry of [`conv2d`] at a fraction of its multiply-adds.
pub fn depthwise_separable_conv2d(name: &str, x: &Tensor, c: Conv2d) -> Tensor {
    let pad = if c.padding { "=+" } else { "<+" };
    let s = c.stride;
    let spec = format!("...|{s}*oh{pad}kh, {s}*ow{pad}kw, ch; kh, kw -> ch => ...|oh, ow, ch");
    let depthwise = param(&format!("{name}.depthwise"))
        .input(&[c.kernel, c.kernel])
        .output(&[c.in_channels])
        .init(ParamInit::He);
    let pointwise = param(&format!("{name}.pointwise"))
        .input(&[c.in_channels])
        .output(&[c.out_channels])
        .init(ParamInit::He);
    let bias = param(&format!("{name}.bias"))
        .output(&[c.out_channels])
        .init(ParamInit::Zeros);
    let d = einsum(&spec, &[x, &depthwise]);
    einsum(
        "...|oh, ow, ch; ch -> oc => ...|oh, ow, oc",
        &[&d, &pointwise],
    ) + &bias
}

/// A residual block of channels-last images (ResNet's basic block, without
/// normalization): `relu(x + conv(relu(conv(x))))`, two `kernel x kernel`
/// convolutions of `channels` channels that keep the size (`NAME.0`,
/// `NAME.1`, padded, stride 1).
pub fn residual_block(name: &str, x: &Tensor, kernel: u64, channels: u64) -> Tensor {
    let c = Conv2d {
        kernel,
        stride: 1,
        padding: true,
        in_channels: channels,
        out_channels: channels,
    };
    let h = relu(&conv2d(&format!("{name}.0"), x, c));
    relu(&(x + &conv2d(&format!("{name}.1"), &h, c)))
}

/// The spec of a pooling window of `window x window` cells moved by
/// `stride`, inside the input, over channels-last images.
fn pool_spec(stride: u64) -> String {
    format!("...|{stride}*oh<+wh, {stride}*ow<+ww, c; wh, ww => ...|oh, ow, c")
}

/// Max-pooling of channels-last images (OCANNL's `max_pool2d`: the window
/// is the shape of a constant of zeros added to each cell, `@^+`).
pub fn max_pool2d(x: &Tensor, window: u64, stride: u64) -> Tensor {
    let w = full(&format!("{window},{window}"), 0.0);
    einsum_with(&pool_spec(stride), Accum::Max, BinaryOp::Add, &[x, &w])
}

/// Average-pooling: the window's sum divided by its `window * window`
/// cells.
pub fn avg_pool2d(x: &Tensor, window: u64, stride: u64) -> Tensor {
    let w = full(&format!("{window},{window}"), 0.0);
    let s = einsum_with(&pool_spec(stride), Accum::Add, BinaryOp::Add, &[x, &w]);
    s * (1.0 / (window * window) as f64)
}

/// The mean over the height and width of channels-last images (`"B|H,W,C"`
/// to `"B|1,1,C"`), dividing by `H * W` (OCANNL's sums without dividing).
pub fn global_avg_pool2d(x: &Tensor) -> Tensor {
    const SPEC: &str = "...|h, w, c => ...|0, 0, c";
    pointdiv(&einsum(SPEC, &[x]), &einsum(SPEC, &[&ones_like(x)]))
}

/// LeNet-5 on channels-last images of `channels` channels (28 x 28: the
/// first convolution keeps the size): 5x5 convolution to 6 channels, relu,
/// 2x2 max-pooling, 5x5 convolution to 16, relu, 2x2 max-pooling, then
/// layers of 120 and 84 (relu) and the `classes` logits.
pub fn lenet(name: &str, x: &Tensor, channels: u64, classes: u64) -> Tensor {
    let conv = |k: &str, x: &Tensor, padding, in_channels, out_channels| {
        let c = Conv2d {
            kernel: 5,
            stride: 1,
            padding,
            in_channels,
            out_channels,
        };
        max_pool2d(&relu(&conv2d(&format!("{name}.{k}"), x, c)), 2, 2)
    };
    let h = conv("conv1", x, true, channels, 6);
    let h = conv("conv2", &h, false, 6, 16);
    let h = mlp_layer(&format!("{name}.fc1"), &h, &[120]);
    let h = mlp_layer(&format!("{name}.fc2"), &h, &[84]);
    linear(&format!("{name}.logits"), &h, &[classes])
}

/// The softmax of `x` over the axes `reduce` reduces: `reduce` is an einsum
/// spec of one operand whose result keeps every other axis and has one
/// cell where the reduced ones were (so it broadcasts back), e.g.
/// [`LAST_AXIS`] or, for attention scores `"...|t->h"`, `"...|t->h =>
/// ...|0->h"`.
pub fn softmax_over(x: &Tensor, reduce: &str) -> Tensor {
    let m = einsum_with(reduce, Accum::Max, UnaryOp::Identity, &[x]);
    let e = exp(&(x - &m));
    pointdiv(&e, &einsum(reduce, &[&e]))
}

/// A learned embedding of token ids (`"...|1"`: one id per position, the
/// positions in the batch row) into `dim` features: the param `NAME`
/// (`vocab -> dim`) times the ids' one-hot rows.
pub fn embedding(name: &str, ids: &Tensor, vocab: u64, dim: u64) -> Tensor {
    let table = param(name)
        .input(&[vocab])
        .output(&[dim])
        .init(ParamInit::Glorot);
    &table * &one_hot(ids, vocab)
}

/// Learned positions: `len` vectors of `dim` features (the param `NAME`,
/// `len -> dim`), one per position, as a `"len|dim"` tensor that broadcasts
/// over a `"...,len|dim"` sequence.
pub fn learned_positions(name: &str, len: u64, dim: u64) -> Tensor {
    let positions: Vec<f64> = (0..len).map(|p| p as f64).collect();
    let ids = crate::expr::constant(&format!("{len}|1"), &positions);
    embedding(name, &ids, len, dim)
}

/// Sinusoidal positions (`sin` on even features, `cos` on odd ones, of
/// frequencies `10000^(-2i/dim)`), a `"len|dim"` constant.
pub fn sinusoidal_positions(len: u64, dim: u64) -> Tensor {
    let mut cells = Vec::with_capacity((len * dim) as usize);
    for p in 0..len {
        for f in 0..dim {
            let rate = 10000f64.powf(-((f / 2 * 2) as f64) / dim as f64);
            let a = p as f64 * rate;
            cells.push(if f % 2 == 0 { a.sin() } else { a.cos() });
        }
    }
    crate::expr::constant(&format!("{len}|{dim}"), &cells)
}

/// The causal mask of `len` positions, shaped to broadcast over attention
/// scores `"...,s|t->h"`: `1` where key position `t` is at most query
/// position `s`, else `0`.
pub fn causal_mask(len: u64) -> Tensor {
    let mut cells = Vec::with_capacity((len * len) as usize);
    for s in 0..len {
        for t in 0..len {
            cells.push(if t <= s { 1.0 } else { 0.0 });
        }
    }
    crate::expr::constant(&format!("{len}|{len}->1"), &cells)
}

/// Multi-head self-attention over sequences `"...,s|d"` (positions in the
/// batch row): queries, keys and values `NAME.q`, `NAME.k`, `NAME.v`
/// (`d -> heads, head_dim`), scores with OCANNL's spec `"...,s|h,e;
/// ...,t|h,e => ...,s|t->h"` scaled by `1/sqrt(head_dim)`, positions the
/// `mask` (`"s|t->1"`, e.g. [`causal_mask`]) zeroes set to `-1e9` before
/// the softmax over `t`, the values' weighted sum, and the output `NAME.o`
/// (`heads, head_dim -> d`), every projection Glorot-initialized and
/// without bias ([`multi_head_attention_with`] chooses the
/// initializations).
pub fn multi_head_attention(
    name: &str,
    x: &Tensor,
    dim: u64,
    heads: u64,
    mask: Option<&Tensor>,
) -> Tensor {
    let glorot = |p: Param| p.init(ParamInit::Glorot);
    multi_head_attention_with(name, x, dim, heads, mask, &glorot, &glorot)
}

/// [`multi_head_attention`] with each param (named and shaped) given to
/// `init` (the queries', keys' and values' projections) or `out_init`
/// (the output's) to set its initialization and seed: GPT-2's are
/// normal(0, 0.02), and 0.02/sqrt(2 * layers) for the output, a residual
/// projection.
pub fn multi_head_attention_with(
    name: &str,
    x: &Tensor,
    dim: u64,
    heads: u64,
    mask: Option<&Tensor>,
    init: &dyn Fn(Param) -> Param,
    out_init: &dyn Fn(Param) -> Param,
) -> Tensor {
    let head_dim = dim / heads;
    let project = |p: &str| {
        let w = init(
            param(&format!("{name}.{p}"))
                .input(&[dim])
                .output(&[heads, head_dim]),
        );
        &w * x
    };
    let (q, k, v) = (project("q"), project("k"), project("v"));
    let scores =
        einsum("...,s|h,e; ...,t|h,e => ...,s|t->h", &[&q, &k]) * (1.0 / (head_dim as f64).sqrt());
    let scores = match mask {
        Some(m) => crate::expr::where_(m, &scores, &number(-1e9)),
        None => scores,
    };
    let attn = softmax_over(&scores, "...|t->h => ...|0->h");
    let mixed = einsum("...,s|t->h; ...,t|h,e => ...,s|h,e", &[&attn, &v]);
    let o = out_init(
        param(&format!("{name}.o"))
            .input(&[heads, head_dim])
            .output(&[dim]),
    );
    &o * &mixed
}

/// A pre-norm decoder block: `h = x + attention(layer_norm(x))`, then
/// `h + mlp(layer_norm(h))` with a hidden layer of `4 * dim`.
pub fn decoder_only_block(name: &str, x: &Tensor, dim: u64, heads: u64, mask: &Tensor) -> Tensor {
    let a = multi_head_attention(
        &format!("{name}.attn"),
        &layer_norm(&format!("{name}.ln1"), x, 1e-5),
        dim,
        heads,
        Some(mask),
    );
    let h = x + &a;
    let f = mlp(
        &format!("{name}.mlp"),
        &layer_norm(&format!("{name}.ln2"), &h, 1e-5),
        &[4 * dim],
        &[dim],
    );
    &h + &f
}

/// A decoder-only transformer over token ids `"...,len|1"`: embedding and
/// learned positions, `layers` blocks, a final layer norm and the logits
/// over the vocabulary (`"...,len|vocab"`).
pub fn decoder_only(
    name: &str,
    ids: &Tensor,
    vocab: u64,
    len: u64,
    dim: u64,
    heads: u64,
    layers: u64,
) -> Tensor {
    let mask = causal_mask(len);
    let mut h = embedding(&format!("{name}.embed"), ids, vocab, dim)
        + learned_positions(&format!("{name}.pos"), len, dim);
    for l in 0..layers {
        h = decoder_only_block(&format!("{name}.{l}"), &h, dim, heads, &mask);
    }
    linear(
        &format!("{name}.head"),
        &layer_norm(&format!("{name}.ln"), &h, 1e-5),
        &[vocab],
    )
}
