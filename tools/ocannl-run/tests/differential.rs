//! Differential testing: random programs of pointwise ops, compose, einsum
//! reductions and transposes run through the whole compiler (JIT) and through
//! the reference interpreter of the assignments; the results must agree
//! within floating-point tolerance. The programs come from a fixed seed.

use std::{path::Path, process::Command};

/// The project's one generator, with a helper to pick from a list.
struct Rng(ocannl_ops::SplitMix64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.below(n)
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

#[derive(Clone)]
struct T {
    name: String,
    batch: Vec<u64>,
    input: Vec<u64>,
    output: Vec<u64>,
}

fn row(r: &[u64]) -> String {
    r.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn ty(t: &T) -> String {
    let mut s = String::new();
    if !t.batch.is_empty() {
        s += &format!("{}|", row(&t.batch));
    }
    if !t.input.is_empty() {
        s += &format!("{}->", row(&t.input));
    }
    s += &row(&t.output);
    format!("!ocannl_shape.tensor<\"{s}\", f32>")
}

fn dims(r: &mut Rng, max_len: u64, max_size: u64) -> Vec<u64> {
    (0..r.below(max_len + 1))
        .map(|_| 1 + r.below(max_size))
        .collect()
}

/// A random program: its text and the number of arguments. `big` programs
/// have one long axis per row instead of up to two short ones, so that loops
/// are large enough to run in parallel.
fn program(seed: u64, big: bool) -> (String, usize) {
    let (len, size) = if big { (1, 160) } else { (2, 4) };
    let mut r = Rng(ocannl_ops::SplitMix64::new(seed));
    let mut args: Vec<T> = vec![];
    let mut body = String::new();
    let mut vals: Vec<T> = vec![];
    let mut n = 0;
    let fresh = |args: &mut Vec<T>, batch: Vec<u64>, input: Vec<u64>, output: Vec<u64>| {
        let t = T {
            name: format!("%arg{}", args.len()),
            batch,
            input,
            output,
        };
        args.push(t.clone());
        t
    };
    let mut output = dims(&mut r, len, size);
    if output.is_empty() {
        output.push(1 + r.below(size));
    }
    let (batch, input) = (dims(&mut r, len, size), dims(&mut r, 1, size));
    let first = fresh(&mut args, batch, input, output);
    vals.push(first);
    for _ in 0..3 + r.below(4) {
        // Mostly build on the latest value, so that most ops reach the result.
        let t = if r.below(3) > 0 {
            vals.last().expect("a value").clone()
        } else {
            r.pick(&vals).clone()
        };
        n += 1;
        let name = format!("%v{n}");
        let (line, out) = match r.below(6) {
            0 => {
                let op = *r.pick(&["relu", "neg", "tanh", "sin", "exp"]);
                let out = T {
                    name: name.clone(),
                    ..t.clone()
                };
                (format!("{name} = \"ocannl_shape.pointwise_unary\"({}) {{op = \"{op}\"}} : ({}) -> {}", t.name, ty(&t), ty(&out)), out)
            }
            1 => {
                // A broadcast operand: some axes of size 1, or fewer axes.
                let mut out_b = t.output.clone();
                for d in out_b.iter_mut() {
                    if r.below(3) == 0 {
                        *d = 1;
                    }
                }
                let batch = if r.below(2) == 0 {
                    vec![]
                } else {
                    t.batch.clone()
                };
                let u = fresh(&mut args, batch, t.input.clone(), out_b);
                let op = *r.pick(&["add", "mul", "max", "sub", "min"]);
                let out = T {
                    name: name.clone(),
                    ..t.clone()
                };
                (
                    format!("{name} = \"ocannl_shape.pointwise_binary\"({}, {}) {{op = \"{op}\"}} : ({}, {}) -> {}", t.name, u.name, ty(&t), ty(&u), ty(&out)),
                    out,
                )
            }
            2 => {
                let k = 1 + r.below(4);
                let w = fresh(&mut args, vec![], t.output.clone(), vec![k]);
                let out = T {
                    name: name.clone(),
                    batch: t.batch.clone(),
                    input: t.input.clone(),
                    output: vec![k],
                };
                (
                    format!(
                        "{name} = \"ocannl_shape.compose\"({}, {}) : ({}, {}) -> {}",
                        w.name,
                        t.name,
                        ty(&w),
                        ty(&t),
                        ty(&out)
                    ),
                    out,
                )
            }
            3 => {
                let accum = *r.pick(&["add", "max", "min"]);
                let out = T {
                    name: name.clone(),
                    batch: vec![],
                    input: vec![],
                    output: vec![1],
                };
                (format!("{name} = \"ocannl_shape.einsum\"({}) {{spec = \"...|...->... => 0\", accum = \"{accum}\"}} : ({}) -> {}", t.name, ty(&t), ty(&out)), out)
            }
            4 => {
                let out = T {
                    name: name.clone(),
                    batch: t.batch.clone(),
                    input: t.output.clone(),
                    output: t.input.clone(),
                };
                if out.output.is_empty() {
                    n -= 1;
                    continue;
                }
                (
                    format!(
                        "{name} = \"ocannl_shape.transpose\"({}) : ({}) -> {}",
                        t.name,
                        ty(&t),
                        ty(&out)
                    ),
                    out,
                )
            }
            _ => {
                // Reduce the batch axes into the result.
                let out = T {
                    name: name.clone(),
                    batch: vec![],
                    ..t.clone()
                };
                (format!("{name} = \"ocannl_shape.einsum\"({}) {{spec = \"...|...->... => ...->...\"}} : ({}) -> {}", t.name, ty(&t), ty(&out)), out)
            }
        };
        body += &format!("  {line}\n");
        vals.push(out);
    }
    let last = vals.last().expect("a value");
    let params: Vec<String> = args
        .iter()
        .map(|a| format!("{}: {}", a.name, ty(a)))
        .collect();
    let text = format!(
        "func.func @f({}) -> {} {{\n{body}  return {} : {}\n}}\n",
        params.join(", "),
        ty(last),
        last.name,
        ty(last)
    );
    (text, args.len())
}

fn read(path: &Path) -> (Vec<u64>, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let npy = npyz::NpyFile::new(&bytes[..]).expect("npy");
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec::<f32>().expect("f32 data"))
}

fn close(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-4 * a.abs().max(b.abs()) + 1e-5
}

/// A random contraction `lhs =+ x * y` in einsum notation: random axis
/// orders, operand order and sizes that cross the loop lowering's tile
/// boundaries (register tiles and reduction blocks), with an optional
/// batch axis. Returns the text and the number of arguments.
fn contraction(seed: u64) -> (String, usize) {
    let mut r = Rng(ocannl_ops::SplitMix64::new(seed));
    let batched = r.below(3) == 0;
    let (b, i, j, k) = (
        1 + r.below(3),
        1 + r.below(70),
        1 + r.below(100),
        1 + r.below(300),
    );
    let size = |c: char| match c {
        'b' => b,
        'i' => i,
        'j' => j,
        _ => k,
    };
    let mut axes = |pair: [char; 2]| {
        let mut v: Vec<char> = if r.below(2) == 0 {
            pair.to_vec()
        } else {
            vec![pair[1], pair[0]]
        };
        if batched {
            v.insert(0, 'b');
        }
        v
    };
    let (x, y, out) = (axes(['i', 'k']), axes(['k', 'j']), axes(['i', 'j']));
    let (x, y) = if r.below(2) == 0 { (x, y) } else { (y, x) };
    let shape = |v: &[char]| {
        v.iter()
            .map(|&c| size(c).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let name = |v: &[char]| v.iter().collect::<String>();
    let t = |v: &[char]| format!("!ocannl_shape.tensor<\"{}\", f32>", shape(v));
    let text = format!(
        "func.func @f(%x: {tx}, %y: {ty}) -> {to} {{\n  %z = \"ocannl_shape.einsum\"(%x, %y) {{spec = \"{sx};{sy}=>{so}\"}} : ({tx}, {ty}) -> {to}\n  return %z : {to}\n}}\n",
        tx = t(&x),
        ty = t(&y),
        to = t(&out),
        sx = name(&x),
        sy = name(&y),
        so = name(&out)
    );
    (text, 2)
}

/// A random 1-D convolution `y[o] =accum= x[stride*o + dilation*k - pad] op
/// w[k]`, valid (`<+`) or padded (`=+`), over a leading batch of channels.
fn convolution(seed: u64) -> (String, usize) {
    let mut r = Rng(ocannl_ops::SplitMix64::new(seed));
    let (stride, dilation, kernel) = (1 + r.below(3), 1 + r.below(2), 1 + r.below(5));
    let padded = r.below(2) == 0;
    let out = 1 + r.below(40);
    let input = if padded {
        stride * out
    } else {
        stride * (out - 1) + 1 + dilation * (kernel - 1)
    };
    let channels = 1 + r.below(3);
    let (accum, op) = *r.pick(&[("add", "mul"), ("max", "add")]);
    let spec = format!(
        "...|{stride}*o{}+{dilation}*k; k => ...|o",
        if padded { "=" } else { "<" }
    );
    let tx = format!("!ocannl_shape.tensor<\"{channels}|{input}\", f32>");
    let tw = format!("!ocannl_shape.tensor<\"{kernel}\", f32>");
    let ty = format!("!ocannl_shape.tensor<\"{channels}|{out}\", f32>");
    let text = format!(
        "func.func @f(%x: {tx}, %w: {tw}) -> {ty} {{\n  %y = \"ocannl_shape.einsum\"(%x, %w) {{spec = \"{spec}\", accum = \"{accum}\", op = \"{op}\"}} : ({tx}, {tw}) -> {ty}\n  return %y : {ty}\n}}\n"
    );
    (text, 2)
}

/// Runs program `text` through the JIT and the interpreter with the same
/// generated arguments and checks that the results agree.
fn check(dir: &Path, tag: &str, seed: u64, text: &str, nargs: usize) {
    let run = env!("CARGO_BIN_EXE_ocannl-run");
    let file = dir.join(format!("{tag}{seed}.mlir"));
    std::fs::write(&file, text).expect("write program");
    let mut outs = vec![];
    for mode in ["jit", "interp"] {
        let out = dir.join(format!("{tag}{seed}-{mode}"));
        let mut cmd = Command::new(run);
        cmd.arg(&file)
            .args(["--entry", "f", "--quiet", "--out-dir"])
            .arg(&out);
        for i in 0..nargs {
            cmd.arg("--arg")
                .arg(format!("random:{}", seed * 100 + i as u64));
        }
        if mode == "interp" {
            cmd.arg("--interpret");
        }
        let o = cmd.output().expect("run ocannl-run");
        assert!(
            o.status.success(),
            "{mode} failed on\n{text}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        outs.push(read(&out.join("result0.npy")));
    }
    let ((s1, d1), (s2, d2)) = (&outs[0], &outs[1]);
    assert_eq!(s1, s2, "shapes differ on\n{text}");
    for (i, (a, b)) in d1.iter().zip(d2).enumerate() {
        assert!(
            close(*a, *b),
            "cell {i}: jit {a} vs interpreter {b} on\n{text}"
        );
    }
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("ocannl-differential-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn clean(dir: &Path) {
    if std::env::var_os("OCANNL_KEEP_DIFFERENTIAL").is_none() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn jit_agrees_with_the_interpreter() {
    let dir = temp_dir("programs");
    for seed in 0..40u64 {
        let (text, nargs) = program(1000 + seed, false);
        check(&dir, "p", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn large_programs_agree_with_the_interpreter() {
    let dir = temp_dir("large");
    for seed in 0..20u64 {
        let (text, nargs) = program(3000 + seed, true);
        check(&dir, "l", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn contractions_agree_with_the_interpreter() {
    let dir = temp_dir("contractions");
    for seed in 0..32u64 {
        let (text, nargs) = contraction(5000 + seed);
        check(&dir, "c", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn convolutions_agree_with_the_interpreter() {
    let dir = temp_dir("convolutions");
    for seed in 0..24u64 {
        let (text, nargs) = convolution(7000 + seed);
        check(&dir, "v", seed, &text, nargs);
    }
    clean(&dir);
}
