//! Gradients of random programs (fixed seeds) through the whole pipeline:
//! each program is checked by `ocannl-run --grad-check`, which compares
//! backprop (`ocannl-autodiff`) with central finite differences in f64 and
//! the compiled gradients with the interpreted ones. Every unary, binary
//! and ternary op appears (each program is built around one of them), next
//! to compose, einsums that broadcast and contract, diagonal and
//! fixed-index writes, transposes and batch slices. Like the differential test, it runs the binary and links no
//! MLIR.

use std::{path::Path, process::Command};

use ocannl_ops::{BinaryOp, NumOp, SplitMix64, TernaryOp, UnaryOp};

fn ty(shape: &str) -> String {
    format!("!ocannl_shape.tensor<\"{shape}\", f32>")
}

/// Builds one function's body, one SSA value at a time.
struct Prog {
    lines: Vec<String>,
    n: usize,
    params: usize,
    /// The declared type of each value.
    types: std::collections::HashMap<String, String>,
}

impl Prog {
    fn val(&mut self, rhs: &str) -> String {
        self.n += 1;
        let v = format!("%v{}", self.n);
        self.lines.push(format!("  {v} = {rhs}"));
        self.types.insert(v.clone(), ty("?"));
        v
    }

    fn t(&self, v: &str) -> String {
        self.types.get(v).cloned().unwrap_or_else(|| ty("?"))
    }

    fn param(&mut self, shape: &str) -> String {
        self.params += 1;
        let v = self.val(&format!(
            "\"ocannl_shape.param\"() {{name = \"p{}\"}} : () -> {}",
            self.params,
            ty(shape)
        ));
        self.types.insert(v.clone(), ty(shape));
        v
    }

    fn unary(&mut self, op: &str, x: &str) -> String {
        let tx = self.t(x);
        self.val(&format!(
            "\"ocannl_shape.pointwise_unary\"({x}) {{op = \"{op}\"}} : ({tx}) -> {}",
            ty("?")
        ))
    }

    fn binary(&mut self, op: &str, a: &str, b: &str) -> String {
        let (ta, tb) = (self.t(a), self.t(b));
        self.val(&format!(
            "\"ocannl_shape.pointwise_binary\"({a}, {b}) {{op = \"{op}\"}} : ({ta}, {tb}) -> {}",
            ty("?")
        ))
    }

    fn ternary(&mut self, op: &str, a: &str, b: &str, c: &str) -> String {
        let (ta, tb, tc) = (self.t(a), self.t(b), self.t(c));
        self.val(&format!(
            "\"ocannl_shape.pointwise_ternary\"({a}, {b}, {c}) {{op = \"{op}\"}} : ({ta}, {tb}, {tc}) -> {}",
            ty("?")
        ))
    }

    fn einsum(&mut self, spec: &str, operands: &[&str]) -> String {
        let tys: Vec<String> = operands.iter().map(|o| self.t(o)).collect();
        self.val(&format!(
            "\"ocannl_shape.einsum\"({}) {{spec = \"{spec}\"}} : ({}) -> {}",
            operands.join(", "),
            tys.join(", "),
            ty("?")
        ))
    }

    /// A positive value made from `x` (for logarithms, roots, divisors).
    fn positive(&mut self, x: &str) -> String {
        self.unary("exp", x)
    }

    /// Applies `op` to `v`, with params as the other operands.
    fn apply(&mut self, r: &mut SplitMix64, op: NumOp, v: &str, h: u64) -> String {
        let small = |r: &mut SplitMix64| {
            if r.below(2) == 0 {
                h.to_string()
            } else {
                "1".into()
            }
        };
        match op {
            NumOp::Unary(u) => match u {
                UnaryOp::Log
                | UnaryOp::Log2
                | UnaryOp::Sqrt
                | UnaryOp::RecipSqrt
                | UnaryOp::Recip => {
                    let p = self.positive(v);
                    self.unary(u.name(), &p)
                }
                _ => self.unary(u.name(), v),
            },
            NumOp::Binary(b) => {
                let shape = small(r);
                let p = self.param(&shape);
                match b {
                    BinaryOp::Div => {
                        let d = self.positive(&p);
                        self.binary("div", v, &d)
                    }
                    BinaryOp::Pow => {
                        let base = self.positive(v);
                        self.binary("pow", &base, &p)
                    }
                    BinaryOp::Mod => {
                        // The divisor has no gradient: a constant.
                        let c = self.val(&format!(
                            "\"ocannl_shape.constant\"() {{value = 1.5 : f32}} : () -> {}",
                            ty("?")
                        ));
                        self.binary("mod", v, &c)
                    }
                    _ if r.below(2) == 0 => self.binary(b.name(), v, &p),
                    _ => self.binary(b.name(), &p, v),
                }
            }
            NumOp::Ternary(t) => {
                let p = self.param(&h.to_string());
                let q = self.param(&small(r));
                match t {
                    TernaryOp::Fma => self.ternary("fma", v, &p, &q),
                    TernaryOp::Where => {
                        let c = self.binary("lt", v, &p);
                        self.ternary("where", &c, v, &q)
                    }
                }
            }
        }
    }
}

/// A random program built around `op`: `x : B|I` data, `h = w * x`, a few
/// random steps (including `op`), optionally a batch slice, and the loss as
/// the sum of everything.
fn program(seed: u64, op: NumOp) -> (String, Option<u64>, usize) {
    let mut r = SplitMix64::new(seed);
    let (b, i, mut h) = (1 + r.below(3), 1 + r.below(3), 1 + r.below(3));
    let slice = r.below(3) == 0;
    let mut p = Prog {
        lines: vec![],
        n: 0,
        params: 0,
        types: Default::default(),
    };
    let w = p.param(&format!("{i}->{h}"));
    let mut v = p.val(&format!(
        "\"ocannl_shape.compose\"({w}, %x) : ({}, {}) -> {}",
        p.t(&w),
        ty(&format!("{b}|{i}")),
        ty("?")
    ));
    let steps = 2 + r.below(3);
    let at = r.below(steps);
    for k in 0..steps {
        if k == at {
            v = p.apply(&mut r, op, &v, h);
            continue;
        }
        v = match r.below(7) {
            5 => {
                // A diagonal write (cells off the diagonal are 0), read
                // back by a contraction with a vector.
                let d = p.einsum("...|i => ...|ii", &[&v]);
                let q = p.param(&h.to_string());
                p.einsum("...|ij; j => ...|i", &[&d, &q])
            }
            6 => {
                // A fixed-index write into one column of two, read back
                // the same way.
                let d = p.einsum("...|i => ...|i,1", &[&v]);
                let q = p.param("2");
                p.einsum("...|i,j; j => ...|i", &[&d, &q])
            }
            0 => {
                // Broadcast product with a vector: an einsum.
                let q = p.param(&h.to_string());
                p.einsum("...|i; i => ...|i", &[&v, &q])
            }
            1 => {
                // A contraction written as an einsum.
                let j = 1 + r.below(3);
                let q = p.param(&format!("{h}->{j}"));
                h = j;
                p.einsum("...|i; i->j => ...|j", &[&v, &q])
            }
            2 => {
                let t = p.val(&format!(
                    "\"ocannl_shape.transpose\"({v}) : ({}) -> {}",
                    ty("?"),
                    ty("?")
                ));
                p.val(&format!(
                    "\"ocannl_shape.transpose\"({t}) : ({}) -> {}",
                    ty("?"),
                    ty("?")
                ))
            }
            3 => {
                let ops = ["tanh", "sin", "neg", "relu"];
                p.unary(ops[r.below(4) as usize], &v)
            }
            _ => {
                let ops = ["add", "mul", "sub", "max"];
                let q = p.param(&h.to_string());
                p.binary(ops[r.below(4) as usize], &v, &q)
            }
        };
    }
    if slice {
        v = p.val(&format!(
            "\"ocannl_shape.batch_slice\"({v}, %i) : ({}, index) -> {}",
            ty("?"),
            ty("?")
        ));
    }
    let loss = p.einsum("...|...->... => 0", &[&v]);
    let args = if slice {
        format!("%x: {}, %i: index", ty(&format!("{b}|{i}")))
    } else {
        format!("%x: {}", ty(&format!("{b}|{i}")))
    };
    let text = format!(
        "func.func @f({args}) -> {} {{\n{}\n  return {loss} : {}\n}}\n",
        ty("?"),
        p.lines.join("\n"),
        ty("?")
    );
    (text, slice.then_some(b - 1), p.params)
}

#[test]
fn random_programs_have_exact_gradients() {
    let bin = env!("CARGO_BIN_EXE_ocannl-run");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gradients");
    std::fs::create_dir_all(&dir).unwrap();
    let ops: Vec<NumOp> = UnaryOp::ALL
        .iter()
        .map(|&o| NumOp::Unary(o))
        .chain(BinaryOp::ALL.iter().map(|&o| NumOp::Binary(o)))
        .chain(TernaryOp::ALL.iter().map(|&o| NumOp::Ternary(o)))
        .collect();
    let mut checked = 0;
    let mut texts = String::new();
    for (k, &op) in ops.iter().enumerate() {
        for rep in 0..2u64 {
            let seed = 1000 + 10 * k as u64 + rep;
            let (text, slice, _) = program(seed, op);
            texts += &text;
            let file = dir.join(format!("g{seed}.mlir"));
            std::fs::write(&file, &text).unwrap();
            let mut cmd = Command::new(bin);
            cmd.arg(&file)
                .args(["--entry", "f", "--grad-check", "--opt-level", "0"])
                .arg(format!("--arg=random:{seed}"));
            if let Some(index) = slice {
                cmd.arg(format!("--arg={index}"));
            }
            let out = cmd.output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            if op == NumOp::Unary(UnaryOp::StopGradient) {
                // Its gradient is 0 by definition, not the finite
                // differences of the identity: the compiled backprop must
                // still agree with the interpreted one.
                let line = stdout
                    .lines()
                    .find(|l| l.starts_with("compiled vs interpreted backprop"));
                assert!(
                    line.is_some_and(|l| !l.contains("FAILED")),
                    "{op} (seed {seed}):\n{text}\n{stdout}"
                );
                checked += 1;
                continue;
            }
            assert!(
                out.status.success() && stdout.contains("backprop vs finite differences"),
                "{op} (seed {seed}):\n{text}\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 2 * ops.len());
    for spec in ["...|i => ...|ii", "...|i => ...|i,1"] {
        assert!(
            texts.contains(&format!("spec = \"{spec}\"")),
            "no program wrote {spec}"
        );
    }
}

fn read(path: &Path) -> Vec<f32> {
    let t = ocannl_runtime::npy::read(path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.elt(), ocannl_runtime::Elt::F32, "{}", path.display());
    t.to_f64().into_iter().map(|x| x as f32).collect()
}

/// Writes a 0-d f32 `.npy` file.
fn scalar_npy(path: &Path, x: f32) {
    ocannl_runtime::npy::write(path, &ocannl_runtime::HostTensor::f32(vec![], vec![x]))
        .expect("write npy");
}

/// The optimizers the train steps are checked with, one per program in
/// turn: `--optimizer`, its `--optimizer-option`s, and the number of state
/// arguments per param and of the step routine's own.
const OPTIMIZERS: [(&str, &[&str], usize, usize); 5] = [
    ("sgd", &[], 0, 0),
    ("adam", &[], 2, 1),
    ("adamw", &["clip-norm=0.5"], 2, 1),
    (
        "sgd",
        &[
            "momentum=0.9",
            "nesterov=true",
            "weight-decay=0.01",
            "clip-norm=0.5",
        ],
        1,
        0,
    ),
    (
        "adam",
        &[
            "beta1=0.8",
            "beta2=0.99",
            "eps=1e-6",
            "weight-decay=0.1",
            "clip-norm=2",
        ],
        2,
        1,
    ),
];

/// Train steps of the same random programs (params updated in place by an
/// optimizer, SGD, Adam or AdamW, with and without clipping, in turn; three
/// steps in a row) compute the same losses, params and optimizer state
/// compiled with the optimizations (virtualization of forward and backprop
/// nodes) and interpreted without them, and interpreted with them.
#[test]
fn optimized_train_steps_agree_with_plain_ones() {
    let bin = env!("CARGO_BIN_EXE_ocannl-run");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("train-steps");
    std::fs::create_dir_all(&dir).unwrap();
    let lr = dir.join("lr.npy");
    scalar_npy(&lr, 0.01);
    let ops: Vec<NumOp> = UnaryOp::ALL
        .iter()
        .map(|&o| NumOp::Unary(o))
        .chain(BinaryOp::ALL.iter().map(|&o| NumOp::Binary(o)))
        .chain(TernaryOp::ALL.iter().map(|&o| NumOp::Ternary(o)))
        .collect();
    let mut moved = vec![0usize; OPTIMIZERS.len()];
    for (k, &op) in ops.iter().enumerate() {
        let seed = 5000 + k as u64;
        let (text, slice, params) = program(seed, op);
        let (optimizer, options, per_param, global) = OPTIMIZERS[k % OPTIMIZERS.len()];
        let what = format!("{op} (seed {seed}, {optimizer} {options:?})");
        let file = dir.join(format!("t{seed}.mlir"));
        std::fs::write(&file, &text).unwrap();
        // The data, the index, the params, the state (generated: moments
        // in [0, 1), as the second moment must be), the learning rate.
        let mut args = vec![format!("random:{seed}")];
        if let Some(index) = slice {
            args.push(index.to_string());
        }
        let first_param = args.len();
        for p in 0..params + per_param * params + global {
            args.push(format!("random:{}", seed * 10 + p as u64));
        }
        args.push(lr.display().to_string());
        let mut outputs = vec![];
        for (mode, flags) in [
            ("jit", &[][..]),
            ("plain", &["--interpret", "--no-optimize"][..]),
            ("interp", &["--interpret"][..]),
        ] {
            let out = dir.join(format!("t{seed}-{mode}"));
            let mut cmd = Command::new(bin);
            cmd.arg(&file)
                .args([
                    "--entry",
                    "f_train_step",
                    "--train",
                    "--optimizer",
                    optimizer,
                    "--repeat",
                    "3",
                    "--quiet",
                    "--out-args",
                ])
                .args(options.iter().flat_map(|o| ["--optimizer-option", o]))
                .args(flags)
                .arg("--out-dir")
                .arg(&out);
            for a in &args {
                cmd.arg(format!("--arg={a}"));
            }
            let o = cmd.output().unwrap();
            assert!(
                o.status.success(),
                "{mode}, {what}:\n{text}\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
            // The loss, then every buffer argument after the steps.
            let mut values = vec![("loss".to_string(), read(&out.join("result0.npy")))];
            for i in (0..args.len()).filter(|&i| slice.is_none() || i != 1) {
                values.push((format!("arg{i}"), read(&out.join(format!("arg{i}.npy")))));
            }
            outputs.push((mode, values));
        }
        let (_, base) = &outputs[1];
        for (mode, values) in &outputs {
            for ((name, v), (_, b)) in values.iter().zip(base) {
                assert_eq!(v.len(), b.len());
                for (a, b) in v.iter().zip(b) {
                    let close = (a.is_nan() && b.is_nan())
                        || a == b
                        || (a - b).abs() <= 1e-3 * a.abs().max(b.abs()) + 1e-4;
                    assert!(close, "{what}: {name} {a} ({mode}) vs {b} (plain)\n{text}");
                }
            }
        }
        // The params moved from their generated values.
        let value = |name: String| &base.iter().find(|(n, _)| *n == name).unwrap().1;
        let changed = (0..params).any(|p| {
            let mut rng = SplitMix64::new(seed * 10 + p as u64);
            let after = value(format!("arg{}", first_param + p));
            after.iter().any(|&x| x != rng.next_f64() as f32)
        });
        if changed {
            moved[k % OPTIMIZERS.len()] += 1;
        }
    }
    // Every optimizer updated the params of some program.
    assert!(moved.iter().all(|&m| m > 0), "{moved:?}");
}
