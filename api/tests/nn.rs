//! The layers' values against closed forms computed here in f64: each
//! layer's module is compiled by the CPU backend and run on fixed inputs.
//! Their gradients are checked against central differences by
//! `tools/ocannl-run/tests/layers.rs`.

use melior::ir::Module;
use ocannl::{nn, *};
use ocannl_passes::pipelines;
use ocannl_runtime::{CompileOptions, HostValue};

/// Runs `@f` returning `outputs` on `inputs` (one per data, in order).
fn eval(outputs: &[&Tensor], inputs: &[HostTensor]) -> Vec<HostTensor> {
    ocannl_compiler::register_backends();
    let text = Tensor::module("f", outputs).unwrap();
    let context = ocannl_passes::new_context().unwrap();
    let mut module = Module::parse(&context, &text).expect("the module parses");
    let backend = ocannl_passes::backend("cpu").unwrap();
    let pipeline = pipelines::verify().then(pipelines::to_loops(Some(backend.loop_target())));
    ocannl_passes::run_pipeline(&context, &mut module, &pipeline).expect("lowers");
    let program = backend
        .compile(&context, &mut module, &CompileOptions::default())
        .expect("compiles");
    let args: Vec<HostValue> = inputs.iter().cloned().map(HostValue::Tensor).collect();
    program
        .call("f", &args)
        .expect("runs")
        .into_iter()
        .map(|v| match v {
            HostValue::Tensor(t) => t,
            HostValue::Index(_) => panic!("an index result"),
        })
        .collect()
}

fn tensor(dims: &[u64], data: &[f64]) -> HostTensor {
    HostTensor::from_f64(Elt::F32, dims.to_vec(), data.iter().copied())
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "{got:?} vs {want:?}"
        );
    }
}

/// Logits with a large row (softmax must not overflow), a row of ties and
/// an ordinary one: 3 rows of 4 classes.
const LOGITS: [f64; 12] = [
    1000.0, 999.0, 998.0, 0.0, //
    0.5, 0.5, 0.5, 0.5, //
    -1.0, 2.0, 0.25, -3.5,
];

fn softmax_rows(x: &[f64], c: usize) -> Vec<f64> {
    x.chunks(c)
        .flat_map(|r| {
            let m = r.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = r.iter().map(|v| (v - m).exp()).sum();
            r.iter().map(move |v| (v - m).exp() / s).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn softmax_and_log_softmax_are_the_closed_forms() {
    let x = data("x", "3|4");
    let out = eval(
        &[&nn::softmax(&x), &nn::log_softmax(&x)],
        &[tensor(&[3, 4], &LOGITS)],
    );
    let want = softmax_rows(&LOGITS, 4);
    assert_eq!(out[0].dims, [3, 4]);
    close(&out[0].to_f64(), &want, 1e-6);
    let logs: Vec<f64> = want.iter().map(|p| p.ln()).collect();
    close(&out[1].to_f64(), &logs, 1e-5);
}

#[test]
fn max_sum_and_mean_over_the_last_axis() {
    let x = data("x", "3|4");
    let out = eval(
        &[
            &nn::max_last(&x),
            &nn::sum_last(&x),
            &nn::mean_last(&x),
            &nn::mean(&x),
        ],
        &[tensor(&[3, 4], &LOGITS)],
    );
    let rows: Vec<&[f64]> = LOGITS.chunks(4).collect();
    assert_eq!(out[0].dims, [3, 1]);
    close(
        &out[0].to_f64(),
        &rows
            .iter()
            .map(|r| r.iter().cloned().fold(f64::MIN, f64::max))
            .collect::<Vec<_>>(),
        0.0,
    );
    let sums: Vec<f64> = rows.iter().map(|r| r.iter().sum()).collect();
    close(&out[1].to_f64(), &sums, 1e-6);
    close(
        &out[2].to_f64(),
        &sums.iter().map(|s| s / 4.0).collect::<Vec<_>>(),
        1e-6,
    );
    close(&out[3].to_f64(), &[LOGITS.iter().sum::<f64>() / 12.0], 1e-6);
}

#[test]
fn cross_entropy_is_the_mean_negative_log_likelihood() {
    let x = data("x", "3|4");
    let ids = data("ids", "3|1");
    let mask = data("mask", "3|1");
    let labels = [0.0, 3.0, 1.0];
    let out = eval(
        &[
            &nn::cross_entropy(&x, &ids, 4),
            &nn::masked_cross_entropy(&x, &ids, 4, &mask),
            &one_hot(&ids, 4),
        ],
        &[
            tensor(&[3, 4], &LOGITS),
            tensor(&[3, 1], &labels),
            tensor(&[3, 1], &[1.0, 0.0, 1.0]),
        ],
    );
    let p = softmax_rows(&LOGITS, 4);
    let nll: Vec<f64> = labels
        .iter()
        .enumerate()
        .map(|(r, &l)| -p[r * 4 + l as usize].ln())
        .collect();
    close(&out[0].to_f64(), &[nll.iter().sum::<f64>() / 3.0], 1e-5);
    close(&out[1].to_f64(), &[(nll[0] + nll[2]) / 2.0], 1e-5);
    close(
        &out[2].to_f64(),
        &[1., 0., 0., 0., 0., 0., 0., 1., 0., 1., 0., 0.],
        0.0,
    );
}

#[test]
fn layer_norm_normalizes_each_row() {
    let x = data("x", "3|4");
    let y = nn::layer_norm("ln", &x, 1e-5);
    let loss = sum(&y);
    // The params start at zero: the layer is the plain normalization.
    let trainer = Trainer::new(&loss, &y, Sgd::default()).unwrap();
    let got = trainer.forward(&[tensor(&[3, 4], &LOGITS)]).unwrap();
    let want: Vec<f64> = LOGITS
        .chunks(4)
        .flat_map(|r| {
            let m = r.iter().sum::<f64>() / 4.0;
            let v = r.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 4.0;
            r.iter()
                .map(move |x| (x - m) / (v + 1e-5).sqrt())
                .collect::<Vec<_>>()
        })
        .collect();
    close(&got.to_f64(), &want, 1e-4);
    let mut names = trainer.param_names().to_vec();
    names.sort();
    assert_eq!(names, ["ln.bias", "ln.gain"]);
}

#[test]
fn an_mlp_classifier_trains_with_cross_entropy() {
    // Two separable classes of points: the loss falls and every point is
    // classified right.
    let x = data("x", "8|2");
    let ids = data("ids", "8|1");
    let logits = nn::mlp("mlp", &x, &[8], &[2]);
    let loss = nn::cross_entropy(&logits, &ids, 2);
    let mut trainer = Trainer::new(&loss, &logits, Sgd::default()).unwrap();
    let points = [
        -1.0, -0.5, -0.8, -1.2, -1.5, -0.2, -0.3, -0.9, //
        1.0, 0.5, 0.8, 1.2, 1.5, 0.2, 0.3, 0.9,
    ];
    let labels = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
    let batch = [tensor(&[8, 2], &points), tensor(&[8, 1], &labels)];
    let first = trainer.step(&batch, 0.5).unwrap();
    let mut last = first;
    for _ in 0..200 {
        last = trainer.step(&batch, 0.5).unwrap();
    }
    assert!(first > 0.3 && last < 0.05, "{first} -> {last}");
    let out = trainer.forward(&[tensor(&[8, 2], &points)]).unwrap();
    for (r, &l) in labels.iter().enumerate() {
        let row = &out.to_f64()[r * 2..r * 2 + 2];
        assert_eq!((row[1] > row[0]) as u8 as f64, l, "{:?}", out.to_f64());
    }
}

/// `x` of `h x w x c` cells in memory order, from a formula.
fn image(h: u64, w: u64, c: u64) -> Vec<f64> {
    (0..h * w * c)
        .map(|k| ((k * 37 % 23) as f64 - 11.0) / 7.0)
        .collect()
}

#[test]
fn pooling_is_the_windows_max_and_mean() {
    let x = data("x", "1|4,6,2");
    let out = eval(
        &[
            &nn::max_pool2d(&x, 2, 2),
            &nn::avg_pool2d(&x, 2, 2),
            &nn::global_avg_pool2d(&x),
        ],
        &[tensor(&[1, 4, 6, 2], &image(4, 6, 2))],
    );
    let v = image(4, 6, 2);
    let at = |i: u64, j: u64, c: u64| v[((i * 6 + j) * 2 + c) as usize];
    let (mut max, mut avg) = (vec![], vec![]);
    for oi in 0..2 {
        for oj in 0..3 {
            for c in 0..2 {
                let win: Vec<f64> = (0..2)
                    .flat_map(|a| (0..2).map(move |b| (a, b)))
                    .map(|(a, b)| at(2 * oi + a, 2 * oj + b, c))
                    .collect();
                max.push(win.iter().cloned().fold(f64::MIN, f64::max));
                avg.push(win.iter().sum::<f64>() / 4.0);
            }
        }
    }
    assert_eq!(out[0].dims, [1, 2, 3, 2]);
    close(&out[0].to_f64(), &max, 1e-7);
    close(&out[1].to_f64(), &avg, 1e-6);
    let global: Vec<f64> = (0..2)
        .map(|c| (0..24).map(|p| v[(p * 2 + c) as usize]).sum::<f64>() / 24.0)
        .collect();
    assert_eq!(out[2].dims, [1, 1, 1, 2]);
    close(&out[2].to_f64(), &global, 1e-6);
}

/// A trainer of `layer` over one `h x w` image of `ic` channels, as a
/// stride-1 convolution of `k x k` windows to `oc` channels, padded or not;
/// the output's height, width and the window's offset before each output
/// cell.
fn conv_case(
    layer: fn(&str, &Tensor, nn::Conv2d) -> Tensor,
    name: &str,
    (h, w, ic, oc, k): (u64, u64, u64, u64, u64),
    padding: bool,
) -> (Trainer, (u64, u64, i64)) {
    let x = data("x", &format!("1|{h},{w},{ic}"));
    let geometry = nn::Conv2d {
        kernel: k,
        stride: 1,
        padding,
        in_channels: ic,
        out_channels: oc,
    };
    let y = layer(name, &x, geometry);
    let trainer = Trainer::new(&sum(&y), &y, Sgd::default()).unwrap();
    // Padding "=": input = stride * output, the window starting
    // (k - 1) / 2 before the output cell.
    let out = if padding {
        (h, w, (k as i64 - 1) / 2)
    } else {
        (h - k + 1, w - k + 1, 0)
    };
    (trainer, out)
}

#[test]
fn a_padded_and_a_valid_convolution_are_the_direct_sums() {
    // The kernel is a param: its values come from the init routine of a
    // trainer, then the forward routine computes the convolution.
    for padding in [true, false] {
        let (h, w, ic, oc, k) = (5u64, 6u64, 2u64, 3u64, 3u64);
        let (trainer, (oh, ow, off)) = conv_case(nn::conv2d, "c", (h, w, ic, oc, k), padding);
        let kernel = trainer.param("c.kernel").unwrap();
        assert_eq!(kernel.dims, [oc, k, k, ic]);
        let kernel = kernel.to_f64();
        let got = trainer
            .forward(&[tensor(&[1, h, w, ic], &image(h, w, ic))])
            .unwrap();
        let v = image(h, w, ic);
        assert_eq!(got.dims, [1, oh, ow, oc]);
        let mut want = vec![];
        for i in 0..oh as i64 {
            for j in 0..ow as i64 {
                for o in 0..oc {
                    let mut s = 0.0;
                    for a in 0..k as i64 {
                        for b in 0..k as i64 {
                            let (ii, jj) = (i + a - off, j + b - off);
                            if ii < 0 || jj < 0 || ii >= h as i64 || jj >= w as i64 {
                                continue;
                            }
                            for c in 0..ic as i64 {
                                let xv = v[((ii * w as i64 + jj) * ic as i64 + c) as usize];
                                let kv = kernel[(((o as i64 * k as i64 + a) * k as i64 + b)
                                    * ic as i64
                                    + c) as usize];
                                s += xv * kv;
                            }
                        }
                    }
                    want.push(s);
                }
            }
        }
        close(&got.to_f64(), &want, 1e-5);
    }
}

#[test]
fn lenet_classifies_channels_last_images() {
    let x = data("x", "2|28,28,1");
    let ids = data("ids", "2|1");
    let logits = nn::lenet("lenet", &x, 1, 10);
    let loss = nn::cross_entropy(&logits, &ids, 10);
    let mut trainer = Trainer::new(&loss, &logits, Sgd::default()).unwrap();
    let mut names = trainer.param_names().to_vec();
    names.sort();
    assert_eq!(names.len(), 10, "{names:?}");
    assert_eq!(trainer.param("lenet.fc1.w").unwrap().dims, [120, 5, 5, 16]);
    let images = tensor(&[2, 28, 28, 1], &image(28, 28, 2));
    let labels = tensor(&[2, 1], &[3.0, 7.0]);
    let first = trainer
        .step(&[images.clone(), labels.clone()], 0.05)
        .unwrap();
    let mut last = first;
    for _ in 0..30 {
        last = trainer
            .step(&[images.clone(), labels.clone()], 0.05)
            .unwrap();
    }
    assert!(last < first * 0.5, "{first} -> {last}");
    assert_eq!(trainer.forward(&[images]).unwrap().dims, [2, 10]);
}

#[test]
fn attention_is_causal_and_a_tiny_language_model_trains() {
    let (vocab, len, dim, heads) = (5u64, 4u64, 8u64, 2u64);
    let ids = data("ids", &format!("3,{len}|1"));
    let targets = data("targets", &format!("3,{len}|1"));
    let logits = nn::decoder_only("lm", &ids, vocab, len, dim, heads, 1);
    let loss = nn::cross_entropy(&logits, &targets, vocab);
    let mut trainer = Trainer::new(&loss, &logits, Sgd::default()).unwrap();
    // Next-token prediction of fixed sequences.
    let seqs = [
        [0.0, 1.0, 2.0, 3.0],
        [4.0, 3.0, 2.0, 1.0],
        [1.0, 1.0, 2.0, 2.0],
    ];
    let next = [
        [1.0, 2.0, 3.0, 4.0],
        [3.0, 2.0, 1.0, 0.0],
        [1.0, 2.0, 2.0, 3.0],
    ];
    let input = tensor(&[3, len, 1], &seqs.concat());
    let target = tensor(&[3, len, 1], &next.concat());
    let out = trainer.forward(std::slice::from_ref(&input)).unwrap();
    assert_eq!(out.dims, [3, len, vocab]);
    // Causality: changing the last token changes no earlier position.
    let mut changed = seqs;
    changed[0][3] = 0.0;
    let out2 = trainer
        .forward(&[tensor(&[3, len, 1], &changed.concat())])
        .unwrap();
    let row = (len * vocab) as usize;
    close(
        &out2.to_f64()[..3 * vocab as usize],
        &out.to_f64()[..3 * vocab as usize],
        1e-6,
    );
    assert!(out2.to_f64()[3 * vocab as usize..row]
        .iter()
        .zip(&out.to_f64()[3 * vocab as usize..row])
        .any(|(a, b)| (a - b).abs() > 1e-6));
    let first = trainer.step(&[input.clone(), target.clone()], 0.1).unwrap();
    let mut last = first;
    for _ in 0..150 {
        last = trainer.step(&[input.clone(), target.clone()], 0.1).unwrap();
    }
    assert!(first > 1.0 && last < 0.3 * first, "{first} -> {last}");
}

#[test]
fn dropout_scales_what_it_keeps() {
    let x = data("x", "3|4");
    let keep = data("keep", "3|4");
    let mask = ocannl::data::batches::dropout_mask(&[3, 4], 0.5, 3, 0).unwrap();
    let out = eval(
        &[&nn::dropout(&x, &keep, 0.5)],
        &[tensor(&[3, 4], &LOGITS), mask.clone()],
    );
    let want: Vec<f64> = LOGITS
        .iter()
        .zip(&mask.to_f64())
        .map(|(x, k)| x * k * 2.0)
        .collect();
    close(&out[0].to_f64(), &want, 1e-6);
}

/// GELU, exact and tanh-approximated, against the closed forms in f64
/// (`libm`'s `erf`): PyTorch's `gelu` and `gelu(approximate="tanh")`.
#[test]
fn gelu_is_x_times_the_normal_cdf() {
    let xs = [-4.0, -1.0, -0.25, 0.0, 0.5, 1.0, 3.0, 10.0];
    let x = data("x", "8");
    let out = eval(&[&nn::gelu(&x), &nn::gelu_tanh(&x)], &[tensor(&[8], &xs)]);
    let exact: Vec<f64> = xs
        .iter()
        .map(|&v| 0.5 * v * (1.0 + libm::erf(v / std::f64::consts::SQRT_2)))
        .collect();
    let approx: Vec<f64> = xs
        .iter()
        .map(|&v| {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            0.5 * v * (1.0 + (k * (v + 0.044715 * v * v * v)).tanh())
        })
        .collect();
    // Published values: gelu(1) = 0.8413447460685429, gelu(-1) =
    // -0.15865525393145707.
    assert!((exact[5] - 0.841_344_746_068_542_9).abs() < 1e-15);
    assert!((exact[1] + 0.158_655_253_931_457_07).abs() < 1e-15);
    close(&out[0].to_f64(), &exact, 1e-6);
    close(&out[1].to_f64(), &approx, 1e-6);
    // The two differ by at most about 5e-4 on these points.
    assert!(exact.iter().zip(&approx).all(|(a, b)| (a - b).abs() < 1e-3));
}

#[test]
fn normal_params_are_drawn_from_the_counter_based_generator() {
    // A 64 x 96 param initialized normal(0, 0.02) in compiled code: each
    // cell is Box-Muller of the generator at the counters 2k and 2k + 1
    // (the interpreter's `normal01`), up to f32 rounding, and the sample's
    // moments are a normal's.
    let w = param("w")
        .input(&[96])
        .output(&[64])
        .init(ParamInit::normal(0.02))
        .seed(11);
    let x = data("x", "96");
    let out = eval(&[&(&w * &x)], &[tensor(&[96], &[1.0; 96])])[0].to_f64();
    // Row sums of w; the same sums from the closed form.
    let want: Vec<f64> = (0..64u64)
        .map(|r| {
            (0..96u64)
                .map(|c| 0.02 * ocannl_ops::normal01(11, r * 96 + c))
                .sum()
        })
        .collect();
    close(&out, &want, 1e-5);
    let cells: Vec<f64> = (0..64 * 96)
        .map(|k| 0.02 * ocannl_ops::normal01(11, k))
        .collect();
    let n = cells.len() as f64;
    let mean = cells.iter().sum::<f64>() / n;
    let std = (cells.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n).sqrt();
    assert!(mean.abs() < 0.001, "mean {mean}");
    assert!((std - 0.02).abs() < 0.0008, "std {std}");
}

#[test]
fn a_negative_standard_deviation_is_refused_where_it_is_written() {
    let w = param("w").output(&[2]).init(ParamInit::normal(-1.0));
    let e = Tensor::module("f", &[&(&w * &data("x", "2"))]).unwrap_err();
    assert!(e.to_string().contains("param 'w'"), "{e}");
    assert!(e.to_string().contains("at least 0"), "{e}");
}

#[test]
fn vectorized_exp_erf_and_tanh_are_within_5_ulp() {
    // The CPU computes f32 `exp`, `erf` and `tanh` by polynomials
    // (`ocannl-approximate-math`): over a sweep of the f32 range, each value
    // is within 5 ulp of the exact one (in f64), and the special values are
    // exact.
    let mut xs: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    let mut rng = ocannl_ops::SplitMix64::new(3);
    for k in 0..4000 {
        let u = rng.next_f64();
        xs.push(match k % 4 {
            0 => 20.0 * u - 10.0,
            1 => 176.0 * u - 88.0,
            2 => (u - 0.5) * 1e-3,
            _ => (if k % 8 == 3 { -1.0 } else { 1.0 }) * 10f64.powf(-37.0 + 40.0 * u),
        });
    }
    // Rounded to f32, as the inputs are.
    let xs: Vec<f64> = xs.iter().map(|&x| x as f32 as f64).collect();
    let n = xs.len() as u64;
    let x = data("x", &n.to_string());
    let out = eval(&[&exp(&x), &erf(&x), &tanh(&x)], &[tensor(&[n], &xs)]);
    let exact: [fn(f64) -> f64; 3] = [f64::exp, libm::erf, f64::tanh];
    for (k, (f, name)) in exact.iter().zip(["exp", "erf", "tanh"]).enumerate() {
        let got = out[k].to_f64();
        for (&x, &g) in xs.iter().zip(&got) {
            let want = f(x);
            if want.is_nan() || want.is_infinite() || want == 0.0 {
                // (The sign of a zero result is not kept.)
                assert!(
                    g == want || (g.is_nan() && want.is_nan()),
                    "{name}({x}) = {g}, not {want}"
                );
                continue;
            }
            // Subnormal results may be 0; beyond f32's range, inf.
            if want.abs() < f32::MIN_POSITIVE as f64 || want.abs() > f32::MAX as f64 * 0.999 {
                continue;
            }
            let w = want as f32;
            let ulp = (f32::from_bits(w.abs().to_bits() + 1) - w.abs()) as f64;
            assert!(
                (g - want).abs() <= 5.0 * ulp,
                "{name}({x}) = {g}, exact {want}: {} ulp apart",
                (g - want).abs() / ulp
            );
        }
    }
}

#[test]
fn threefry_params_are_the_generators_words() {
    // Compiled Threefry-4x32-20 initializations: cell k of a uniform param
    // is `threefry01(seed, k)` scaled to ±0.25 (OCANNL's default range),
    // and a normal one Box-Muller of Threefry's values at 2k and 2k + 1.
    let x = data("x", "96");
    let ones = tensor(&[96], &[1.0; 96]);
    let row_sums = |f: &dyn Fn(u64) -> f64| -> Vec<f64> {
        (0..64u64)
            .map(|r| (0..96u64).map(|c| f(r * 96 + c)).sum())
            .collect()
    };
    let uniform = param("u")
        .input(&[96])
        .output(&[64])
        .seed(11)
        .generator(Generator::Threefry);
    let normal = param("n")
        .input(&[96])
        .output(&[64])
        .init(ParamInit::normal(0.5))
        .seed(12)
        .generator(Generator::Threefry);
    let out = eval(&[&(&uniform * &x), &(&normal * &x)], &[ones]);
    let rng = ocannl_ops::rng::threefry01;
    close(
        &out[0].to_f64(),
        &row_sums(&|k| -0.25 + 0.5 * rng(11, k)),
        1e-5,
    );
    let n = |k| 0.5 * ocannl_ops::rng::normal_of(Generator::Threefry, 12, k);
    close(&out[1].to_f64(), &row_sums(&n), 1e-4);
    // Not SplitMix64's values.
    assert!((rng(11, 0) - ocannl_ops::uniform01(11, 0)).abs() > 1e-9);
}

#[test]
fn a_depthwise_separable_convolution_is_its_two_direct_sums() {
    for padding in [true, false] {
        let (h, w, ic, oc, k) = (5u64, 6u64, 3u64, 4u64, 3u64);
        let (trainer, (oh, ow, off)) = conv_case(
            nn::depthwise_separable_conv2d,
            "d",
            (h, w, ic, oc, k),
            padding,
        );
        let dw = trainer.param("d.depthwise").unwrap();
        assert_eq!(dw.dims, [ic, k, k]);
        let pw = trainer.param("d.pointwise").unwrap();
        assert_eq!(pw.dims, [oc, ic]);
        let (dw, pw) = (dw.to_f64(), pw.to_f64());
        let v = image(h, w, ic);
        let got = trainer.forward(&[tensor(&[1, h, w, ic], &v)]).unwrap();
        assert_eq!(got.dims, [1, oh, ow, oc]);
        let mut want = vec![];
        for i in 0..oh as i64 {
            for j in 0..ow as i64 {
                // Each channel by its own filter, then mixed across.
                let mut d = vec![0.0; ic as usize];
                for (c, dc) in d.iter_mut().enumerate() {
                    for a in 0..k as i64 {
                        for b in 0..k as i64 {
                            let (ii, jj) = (i + a - off, j + b - off);
                            if ii < 0 || jj < 0 || ii >= h as i64 || jj >= w as i64 {
                                continue;
                            }
                            let xv = v[((ii * w as i64 + jj) * ic as i64) as usize + c];
                            *dc += xv * dw[c * (k * k) as usize + (a * k as i64 + b) as usize];
                        }
                    }
                }
                for o in 0..oc as usize {
                    want.push(
                        (0..ic as usize)
                            .map(|c| pw[o * ic as usize + c] * d[c])
                            .sum(),
                    );
                }
            }
        }
        close(&got.to_f64(), &want, 1e-5);
    }
}

#[test]
fn a_residual_block_keeps_the_size_and_adds_its_input() {
    let (h, w, c) = (4u64, 5u64, 3u64);
    let x = data("x", &format!("2|{h},{w},{c}"));
    let y = nn::residual_block("r", &x, 3, c);
    let mut trainer = Trainer::new(&sum(&y), &y, Sgd::default()).unwrap();
    let v: Vec<f64> = image(h, w, c)
        .into_iter()
        .chain(image(h, w, c).into_iter().map(|z| -z))
        .collect();
    let input = tensor(&[2, h, w, c], &v);
    let got = trainer.forward(std::slice::from_ref(&input)).unwrap();
    assert_eq!(got.dims, [2, h, w, c]);
    let relu: Vec<f64> = v.iter().map(|z| z.max(0.0)).collect();
    assert_ne!(got.to_f64(), relu, "the convolutions add to the input");
    // With the second convolution's kernel at zero the block is relu(x).
    trainer
        .set_param(
            "r.1.kernel",
            &tensor(&[c, 3, 3, c], &vec![0.0; (9 * c * c) as usize]),
        )
        .unwrap();
    let got = trainer.forward(&[input]).unwrap();
    close(&got.to_f64(), &relu, 1e-6);
}
