//! The gradients of `ocannl::nn`'s layers, each behind a linear layer of
//! params: `ocannl-run --grad-check` compares backprop with central
//! differences in f64, and the compiled gradients with the interpreted
//! ones. The modules are written by the `ocannl` crate; their values are
//! checked against closed forms in `api/tests/nn.rs`.

use std::{path::Path, process::Command};

use ocannl::{nn, *};

/// Runs `--grad-check` on `@f` returning `loss`, with `args` (`random:SEED`
/// or `.npy` files, one per data in order of creation).
fn grad_check(tag: &str, loss: &Tensor, args: &[String]) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("layers");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{tag}.mlir"));
    let text = Tensor::module("f", &[loss]).unwrap();
    std::fs::write(&file, &text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ocannl-run"))
        .arg(&file)
        .args(["--entry", "f", "--grad-check", "--opt-level", "0"])
        .args(args.iter().map(|a| format!("--arg={a}")))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("backprop vs finite differences"),
        "{tag}:\n{text}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Class ids `0..classes`, one per row of a `dims` `.npy` file (its last
/// axis of size 1).
fn class_ids(tag: &str, dims: &[u64], classes: u64) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("layers");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{tag}-ids.npy"));
    let t = HostTensor::from_f64(
        Elt::F32,
        dims.to_vec(),
        (0..dims.iter().product::<u64>()).map(|r| ((r * 7 + 3) % classes) as f64),
    );
    ocannl::npy::write(&path, &t).unwrap();
    path.display().to_string()
}

#[test]
fn softmax_and_log_softmax() {
    let x = data("x", "5|3");
    let w = data("w", "5|4");
    let logits = nn::linear("l", &x, &[4]);
    grad_check(
        "softmax",
        &sum(&pointmul(&nn::softmax(&logits), &w)),
        &["random:1".into(), "random:2".into()],
    );
    grad_check(
        "log_softmax",
        &sum(&pointmul(&nn::log_softmax(&logits), &w)),
        &["random:3".into(), "random:4".into()],
    );
}

#[test]
fn cross_entropy_and_its_mask() {
    let x = data("x", "6|3");
    let ids = data("ids", "6|1");
    let mask = data("mask", "6|1");
    let logits = nn::linear("l", &x, &[4]);
    grad_check(
        "cross_entropy",
        &nn::cross_entropy(&logits, &ids, 4),
        &["random:5".into(), class_ids("ce", &[6, 1], 4)],
    );
    let mask_file = {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("layers/mask.npy");
        let t = HostTensor::f32(vec![6, 1], vec![1.0, 1.0, 0.0, 1.0, 0.0, 1.0]);
        ocannl::npy::write(&path, &t).unwrap();
        path.display().to_string()
    };
    grad_check(
        "masked_cross_entropy",
        &nn::masked_cross_entropy(&logits, &ids, 4, &mask),
        &["random:6".into(), class_ids("mce", &[6, 1], 4), mask_file],
    );
}

#[test]
fn max_mean_and_layer_norm() {
    let x = data("x", "4|3");
    let w = data("w", "4|5");
    let h = nn::linear("l", &x, &[5]);
    grad_check(
        "max_last",
        &sum(&pointmul(&nn::max_last(&h), &nn::mean_last(&w))),
        &["random:7".into(), "random:8".into()],
    );
    grad_check(
        "layer_norm",
        &sum(&pointmul(&nn::layer_norm("ln", &h, 1e-5), &w)),
        &["random:9".into(), "random:10".into()],
    );
}

#[test]
fn gelu_exact_and_tanh() {
    let x = data("x", "4|3");
    let w = data("w", "4|5");
    // Pre-activations around 0 and beyond ±2, where erf bends.
    let h = nn::linear("l", &x, &[5]) * 3.0;
    grad_check(
        "gelu",
        &sum(&pointmul(&nn::gelu(&h), &w)),
        &["random:21".into(), "random:22".into()],
    );
    grad_check(
        "gelu_tanh",
        &sum(&pointmul(&nn::gelu_tanh(&h), &w)),
        &["random:23".into(), "random:24".into()],
    );
}

#[test]
fn an_mlp() {
    let x = data("x", "4|3");
    let ids = data("ids", "4|1");
    let logits = nn::mlp("mlp", &x, &[6, 5], &[3]);
    grad_check(
        "mlp",
        &nn::cross_entropy(&logits, &ids, 3),
        &["random:11".into(), class_ids("mlp", &[4, 1], 3)],
    );
}

#[test]
fn convolutions_and_pooling() {
    let x = data("x", "2|6,5,2");
    let w = data("w", "2|3,2,3");
    for (tag, padding, stride) in [
        ("conv_same", true, 1),
        ("conv_valid", false, 1),
        ("conv_stride", true, 2),
    ] {
        let y = nn::conv2d(
            tag,
            &x,
            nn::Conv2d {
                kernel: 3,
                stride,
                padding,
                in_channels: 2,
                out_channels: 3,
            },
        );
        grad_check(tag, &sum(&pointmul(&y, &y)), &["random:12".into()]);
    }
    let h = nn::conv2d(
        "c",
        &x,
        nn::Conv2d {
            kernel: 3,
            stride: 1,
            padding: true,
            in_channels: 2,
            out_channels: 3,
        },
    );
    grad_check(
        "max_pool",
        &sum(&pointmul(&nn::max_pool2d(&h, 2, 2), &w)),
        &["random:13".into(), "random:14".into()],
    );
    grad_check(
        "avg_pool",
        &sum(&pointmul(&nn::avg_pool2d(&h, 2, 2), &w)),
        &["random:15".into(), "random:16".into()],
    );
    grad_check(
        "global_avg_pool",
        &sum(&pointmul(&nn::global_avg_pool2d(&h), &h)),
        &["random:17".into()],
    );
}

#[test]
fn attention_embedding_and_a_decoder_block() {
    let x = data("x", "2,3|4");
    let w = data("w", "2,3|4");
    let mask = nn::causal_mask(3);
    grad_check(
        "attention",
        &sum(&pointmul(
            &nn::multi_head_attention("a", &x, 4, 2, Some(&mask)),
            &w,
        )),
        &["random:18".into(), "random:19".into()],
    );
    grad_check(
        "block",
        &sum(&pointmul(&nn::decoder_only_block("b", &x, 4, 2, &mask), &w)),
        &["random:20".into(), "random:21".into()],
    );
    let ids = data("ids", "2,3|1");
    let targets = data("targets", "2,3|1");
    let logits = nn::decoder_only("lm", &ids, 3, 3, 4, 2, 1);
    grad_check(
        "decoder_only",
        &nn::cross_entropy(&logits, &targets, 3),
        &[
            class_ids("lm-ids", &[2, 3, 1], 3),
            class_ids("lm-targets", &[2, 3, 1], 3),
        ],
    );
}
