//! Differential testing: random programs run through the whole compiler
//! (JIT) and through the reference interpreter of the assignments; the
//! results must agree within floating-point tolerance. The programs come
//! from fixed seeds: small chains of pointwise ops, compose, reductions and
//! transposes; large ones whose loops run in parallel; contractions in
//! every layout; convolutions; and programs that use every op and option
//! (`every_op`: every unary, binary and ternary op, every accumulation of
//! compose and einsum reductions, einsum features, batch_slice of computed
//! values, constants, literals and params). `OCANNL_DIFFERENTIAL_SEEDS=N`
//! runs N programs of each kind instead of the default (a longer fuzzing
//! run); a failure names the program, kept when
//! `OCANNL_KEEP_DIFFERENTIAL` is set.
//!
//! The GPU tests run the same programs on an NVIDIA GPU (`--device cuda`)
//! against the CPU's JIT. They need a GPU, so they are ignored by default
//! (reported as ignored, never as passed); `scripts/gpu-check.sh` runs them
//! with `--ignored`, where a missing GPU fails them.

use ocannl_runtime::Elt;
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

/// A result's dims and cells (f64 results rounded to f32, compared as
/// the f32 ones).
/// A result file's sizes, cells and element type.
fn read(path: &Path) -> (Vec<u64>, Vec<f32>, Elt) {
    let t = ocannl_runtime::args::read_tensor(&path.to_string_lossy())
        .unwrap_or_else(|e| panic!("{e}"));
    let cells = t.to_f64().into_iter().map(|x| x as f32).collect();
    let elt = t.elt();
    (t.dims, cells, elt)
}

/// The result file `resultK` in `dir` (`.npy`, or `.safetensors` for bf16).
fn result_file(dir: &Path, k: usize) -> Option<std::path::PathBuf> {
    ["npy", "safetensors"]
        .iter()
        .map(|ext| dir.join(format!("result{k}.{ext}")))
        .find(|p| p.exists())
}

/// How many cells of two 16-bit results of `elt` are equal, and the first
/// cell (with its distance) whose values are more than 2 units in the last
/// place apart. Compiled code and the interpreter round at the same
/// stores, from f32 and from f64: a value within f32's error of a rounding
/// boundary may round to the neighbour, nothing more.
fn ulps_apart(a: &[f32], b: &[f32], elt: Elt) -> (usize, Option<(usize, i64)>) {
    // Ordered integers: adjacent values of the type differ by 1.
    let key = |x: f32| {
        let bits = match elt {
            Elt::F16 => half::f16::from_f32(x).to_bits(),
            _ => half::bf16::from_f32(x).to_bits(),
        };
        let mag = i64::from(bits & 0x7fff);
        if bits & 0x8000 != 0 {
            -mag
        } else {
            mag
        }
    };
    let mut exact = 0;
    let mut far = None;
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        if x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) {
            exact += 1;
        } else if far.is_none() && (key(x) - key(y)).abs() > 2 {
            far = Some((i, (key(x) - key(y)).abs()));
        }
    }
    (exact, far)
}

/// Whether two results of `elt` agree: equal, both NaN, or within a few
/// units in the last place of `elt` (values rounded at different stores,
/// in f32 on one side and f64 on the other, may differ by one unit at each
/// store a program has; f32 to 1e-4).
fn close(a: f32, b: f32, elt: Elt) -> bool {
    let (rel, abs) = match elt {
        Elt::BF16 => (1.0 / 32.0, 1.0 / 64.0),
        Elt::F16 => (1.0 / 256.0, 1.0 / 512.0),
        Elt::F32 | Elt::F64 => (1e-4, 1e-5),
    };
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= rel * a.abs().max(b.abs()) + abs
}

/// A random contraction `lhs =+ x * y` in einsum notation: random axis
/// orders, operand order and sizes that cross the loop lowering's tile
/// boundaries (register tiles and reduction blocks), with an optional
/// batch axis. Returns the text and the number of arguments.
fn contraction(seed: u64) -> (String, usize) {
    let mut r = Rng(ocannl_ops::SplitMix64::new(seed));
    let batched = r.below(3) == 0;
    // One in four is wide and deep: packed (where its columns are
    // strided in their operand), its panels (256 steps of 8 to 32
    // columns) fill more than half of L2, so the kernel computes its
    // columns chunk by chunk, whatever the CPU.
    let wide = r.below(4) == 0;
    let (b, i, j, k) = if wide {
        (1, 1 + r.below(4), 1030 + r.below(80), 256 + r.below(24))
    } else {
        (
            1 + r.below(3),
            1 + r.below(70),
            1 + r.below(100),
            1 + r.below(300),
        )
    };
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
/// w[k]`, valid (`<+`) or padded (`=+`), over a leading batch of channels;
/// one in four over an input of width 1 that broadcasts (every read at
/// index 0), and outputs of 1 (a padded one of stride 1 reads an input of
/// width 1 as its own axis, the padding around it).
fn convolution(seed: u64) -> (String, usize) {
    let mut r = Rng(ocannl_ops::SplitMix64::new(seed));
    let (stride, dilation, kernel) = (1 + r.below(3), 1 + r.below(2), 1 + r.below(5));
    let padded = r.below(2) == 0;
    let out = if r.below(4) == 0 { 1 } else { 1 + r.below(40) };
    let input = if r.below(4) == 0 {
        1
    } else if padded {
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

/// A random contraction over several axes of each role, in einsum
/// notation: rows (in `x` and the result), columns (in `y` and the
/// result), reductions (in `x` and `y`) and an optional batch (in all
/// three), each tensor's axes in a random order, f32 or f64: the kernel's
/// merged columns (contiguous runs of column axes in the result and in
/// `y`), reductions over several axes in every nesting, and small, odd and
/// one-cell sizes around its tiles. Returns the text and the number of
/// arguments.
fn multi_contraction(seed: u64) -> (String, usize) {
    let mut r = Rng(ocannl_ops::SplitMix64::new(seed));
    let mut axes: Vec<(char, u64, &str)> = vec![];
    let size = |r: &mut Rng| {
        if r.below(4) == 0 {
            1 + r.below(40)
        } else {
            1 + r.below(7)
        }
    };
    for (names, role, most) in [
        ("im", "i", 2),
        ("jnp", "j", 3),
        ("klq", "k", 3),
        ("b", "b", 1),
    ] {
        let count = if role == "b" {
            r.below(2)
        } else {
            1 + r.below(most)
        };
        for c in names.chars().take(count as usize) {
            let s = size(&mut r);
            axes.push((c, s, role));
        }
    }
    let pick = |roles: &[&str], r: &mut Rng| {
        let mut v: Vec<(char, u64)> = axes
            .iter()
            .filter(|a| roles.contains(&a.2))
            .map(|a| (a.0, a.1))
            .collect();
        // A random order (Fisher-Yates).
        for q in (1..v.len()).rev() {
            let o = r.below(q as u64 + 1) as usize;
            v.swap(q, o);
        }
        v
    };
    let x = pick(&["i", "k", "b"], &mut r);
    let y = pick(&["j", "k", "b"], &mut r);
    let out = pick(&["i", "j", "b"], &mut r);
    let elt = *r.pick(&["f32", "f32", "f64"]);
    let shape = |v: &[(char, u64)]| {
        v.iter()
            .map(|a| a.1.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let name = |v: &[(char, u64)]| v.iter().map(|a| a.0).collect::<String>();
    let t = |v: &[(char, u64)]| format!("!ocannl_shape.tensor<\"{}\", {elt}>", shape(v));
    let (x, y) = if r.below(2) == 0 { (x, y) } else { (y, x) };
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

/// A random 2-D convolution of channels-last images, `nn::conv2d`'s spec
/// `...|s*oh+d*kh, s*ow+d*kw, ic; kh, kw, ic -> oc => ...|oh, ow, oc`
/// with stride `s` of 1 to 3 and dilation `d` of 1 or 2, valid (`<+`) or padded
/// (`=+`), output widths and channels around the kernel's row tiles and
/// vector widths. With `grad`, the image and the kernel are params and the
/// program is the loss `sum(conv(x, w) * g)`, whose `@f_grad` (`--train`)
/// computes the convolution and its gradients with respect to both.
/// Returns the text and the number of arguments (of `@f`, or of
/// `@f_grad`).
fn conv2d(seed: u64, grad: bool) -> (String, usize) {
    let mut r = Rng(ocannl_ops::SplitMix64::new(seed));
    let (stride, dilation) = (1 + r.below(3), 1 + r.below(2));
    // Kernels of at least 2: a kernel axis of 1 written as a size
    // broadcasts, leaving the convolution's kernel unknown to inference.
    let (kh, kw) = (2 + r.below(3), 2 + r.below(3));
    let padded = r.below(2) == 0;
    let (b, oh, ow) = (1 + r.below(2), 1 + r.below(6), 1 + r.below(20));
    let (ic, oc) = (1 + r.below(4), 1 + r.below(40));
    let input = |out: u64, k: u64| {
        if padded {
            stride * out
        } else {
            stride * (out - 1) + 1 + dilation * (k - 1)
        }
    };
    // One in four images has a width of 1, which broadcasts (every read
    // at column 0) unless the convolution's equation gives 1.
    let (h, w) = (
        input(oh, kh),
        if r.below(4) == 0 { 1 } else { input(ow, kw) },
    );
    let pad = if padded { "=" } else { "<" };
    let rows = format!(
        "{stride}*oh{pad}+{dilation}*kh, {stride}*ow{pad}+{dilation}*kw, ic; kh, kw, ic -> oc"
    );
    let tw = format!("!ocannl_shape.tensor<\"{kh},{kw},{ic}->{oc}\", f32>");
    let q = "!ocannl_shape.tensor<\"?\", f32>";
    if !grad {
        let tx = format!("!ocannl_shape.tensor<\"{b}|{h},{w},{ic}\", f32>");
        let ty = format!("!ocannl_shape.tensor<\"{b}|{oh},{ow},{oc}\", f32>");
        let text = format!(
            "func.func @f(%x: {tx}, %w: {tw}) -> {ty} {{\n  %y = \"ocannl_shape.einsum\"(%x, %w) {{spec = \"...|{rows} => ...|oh, ow, oc\"}} : ({tx}, {tw}) -> {ty}\n  return %y : {ty}\n}}\n"
        );
        return (text, 2);
    }
    let tx = format!("!ocannl_shape.tensor<\"{b},{h},{w},{ic}\", f32>");
    let tg = format!("!ocannl_shape.tensor<\"{b},{oh},{ow},{oc}\", f32>");
    let text = format!(
        "func.func @f(%g: {tg}) -> {q} {{
  %x = \"ocannl_shape.param\"() {{name = \"x\"}} : () -> {tx}
  %w = \"ocannl_shape.param\"() {{name = \"w\"}} : () -> {tw}
  %y = \"ocannl_shape.einsum\"(%x, %w) {{spec = \"n, {rows} => n, oh, ow, oc\"}} : ({tx}, {tw}) -> {tg}
  %p = \"ocannl_shape.pointwise_binary\"(%y, %g) {{op = \"mul\"}} : ({tg}, {tg}) -> {q}
  %l = \"ocannl_shape.einsum\"(%p) {{spec = \"... => 0\"}} : ({q}) -> {q}
  return %l : {q}
}}
"
    );
    (text, 3)
}

/// Values nested as a dense literal of sizes `dims` (`[[a], [b]]`).
fn nested(dims: &[u64], values: &[String]) -> String {
    match dims {
        [] => values[0].clone(),
        [n, rest @ ..] => {
            let step = values.len() / *n as usize;
            let parts: Vec<String> = values
                .chunks(step.max(1))
                .map(|c| nested(rest, c))
                .collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// A program with a one-hot operand: ids (some out of range, negative or
/// fractional: they select nothing) compared with the classes `0..V`,
/// either way round, over one or two batch axes, read by an embedding (a
/// gather; with `grad` its table is a param, whose gradient is a
/// scatter-add), a pick of one cell per row (a cross-entropy's; with
/// `grad`, of rows computed from the params), and one in two also by a sum
/// that is not a product with it (left as it is).
fn one_hot(seed: u64, grad: bool) -> (String, usize) {
    let mut r = Rng(ocannl_ops::SplitMix64::new(seed));
    let batch: Vec<u64> = if r.below(2) == 0 {
        vec![1 + r.below(4), 1 + r.below(5)]
    } else {
        vec![1 + r.below(40)]
    };
    let (v, d) = (1 + r.below(70), 1 + r.below(40));
    let rows: u64 = batch.iter().product();
    let ids: Vec<String> = (0..rows)
        .map(|_| match r.below(12) {
            0 => format!("{}.0", v + r.below(3)),
            1 => "-1.0".into(),
            2 => format!("{}.5", r.below(v)),
            _ => format!("{}.0", r.below(v)),
        })
        .collect();
    let classes: Vec<String> = (0..v).map(|k| format!("{k}.0")).collect();
    let b = row(&batch);
    let mut ids_dims = batch.clone();
    ids_dims.push(1);
    let dense = |dims: &[u64]| {
        dims.iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("x")
    };
    let q = "!ocannl_shape.tensor<\"?\", f32>";
    let tids = format!("!ocannl_shape.tensor<\"{b}|1\", f32>");
    let tclasses = format!("!ocannl_shape.tensor<\"{v}\", f32>");
    let tt = format!("!ocannl_shape.tensor<\"{d}->{v}\", f32>");
    let ty = format!("!ocannl_shape.tensor<\"{b}|{v}\", f32>");
    let (first, second, tf, ts) = if r.below(2) == 0 {
        ("%ids", "%classes", &tids, &tclasses)
    } else {
        ("%classes", "%ids", &tclasses, &tids)
    };
    let unrewritten = r.below(2) == 0;
    // With `grad`, the picked rows are computed (of an unknown type).
    let yt = if grad { q.to_string() } else { ty.clone() };
    let mut body = format!(
        "  %ids = \"ocannl_shape.constant\"() {{value = dense<{}> : tensor<{}xf32>}} : () -> {tids}
  %classes = \"ocannl_shape.constant\"() {{value = dense<{}> : tensor<{v}xf32>}} : () -> {tclasses}
  %h = \"ocannl_shape.pointwise_binary\"({first}, {second}) {{op = \"eq\"}} : ({tf}, {ts}) -> {q}
  %e = \"ocannl_shape.einsum\"(%h, %t) {{spec = \"...|v; d->v => ...|d\"}} : ({q}, {tt}) -> {q}
  %p = \"ocannl_shape.einsum\"(%h, %y) {{spec = \"...|v; ...|v => ...|\"}} : ({q}, {yt}) -> {q}
",
        nested(&ids_dims, &ids),
        dense(&ids_dims),
        nested(&[v], &classes),
    );
    if unrewritten {
        body.push_str(&format!(
            "  %s = \"ocannl_shape.pointwise_binary\"(%h, %y) {{op = \"add\"}} : ({q}, {yt}) -> {q}\n"
        ));
    } else {
        body.push_str(&format!(
            "  %s = \"ocannl_shape.pointwise_unary\"(%p) {{op = \"identity\"}} : ({q}) -> {q}\n"
        ));
    }
    if !grad {
        let text = format!(
            "func.func @f(%t: {tt}, %y: {ty}) -> ({q}, {q}, {q}) {{\n{body}  return %e, %p, %s : {q}, {q}, {q}\n}}\n"
        );
        return (text, 2);
    }
    // The picked rows computed from the params (logits): the pick's
    // gradient reaches them.
    let tg = format!("!ocannl_shape.tensor<\"{b}|{d}\", f32>");
    let tw = format!("!ocannl_shape.tensor<\"{v}->{v}\", f32>");
    let text = format!(
        "func.func @f(%g: {tg}) -> {q} {{
  %t = \"ocannl_shape.param\"() {{name = \"t\"}} : () -> {tt}
  %w = \"ocannl_shape.param\"() {{name = \"w\"}} : () -> {tw}
  %e0 = \"ocannl_shape.einsum\"(%g, %t) {{spec = \"...|d; d->v => ...|v\"}} : ({tg}, {tt}) -> {q}
  %y = \"ocannl_shape.einsum\"(%e0, %w) {{spec = \"...|v; v->u => ...|u\"}} : ({q}, {tw}) -> {q}
{body}  %eg = \"ocannl_shape.pointwise_binary\"(%e, %g) {{op = \"mul\"}} : ({q}, {tg}) -> {q}
  %l1 = \"ocannl_shape.einsum\"(%eg) {{spec = \"... => 0\"}} : ({q}) -> {q}
  %l2 = \"ocannl_shape.einsum\"(%s) {{spec = \"... => 0\"}} : ({q}) -> {q}
  %l = \"ocannl_shape.pointwise_binary\"(%l1, %l2) {{op = \"add\"}} : ({q}, {q}) -> {q}
  return %l : {q}
}}
"
    );
    // The data and the params, as `@f_grad` takes them.
    (text, 3)
}

/// A CPU of narrower vectors than most hosts that this host runs, for
/// the JIT's other kernel plans (`jit-narrow`): on x86-64, AVX2 (16
/// registers of 8 f32) when the host has it, else SSE4.2 (`x86-64-v2`: 4
/// f32); elsewhere LLVM's generic CPU.
fn narrow_cpu() -> &'static str {
    let flags = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if !cfg!(target_arch = "x86_64") {
        "generic"
    } else if flags.split_whitespace().any(|f| f == "avx2") {
        "x86-64-v3"
    } else {
        "x86-64-v2"
    }
}

/// As [`check`], and the JIT with the kernels planned and compiled for
/// [`narrow_cpu`] against the interpreter: the generators of contractions
/// reach the other tile shapes.
fn check_targets(dir: &Path, tag: &str, seed: u64, text: &str, nargs: usize) {
    check(dir, tag, seed, text, nargs);
    check_modes(dir, tag, seed, text, nargs, ["jit-narrow", "plain"]);
}

/// Runs program `text` through the JIT and the interpreter, optimized
/// (virtualized), and through the interpreter without optimizations, with
/// the same generated arguments, and checks that the results agree.
fn check(dir: &Path, tag: &str, seed: u64, text: &str, nargs: usize) {
    check_modes(dir, tag, seed, text, nargs, ["jit", "plain"]);
    check_modes(dir, tag, seed, text, nargs, ["interp", "plain"]);
}

/// Runs program `text` in two modes (`jit`, `interp`, `plain`: the
/// interpreter without optimizations, `cuda`, `jit-narrow`) with the same generated
/// arguments and checks that the results agree.
fn check_modes(dir: &Path, tag: &str, seed: u64, text: &str, nargs: usize, modes: [&str; 2]) {
    let args: Vec<String> = (0..nargs)
        .map(|i| format!("random:{}", seed * 100 + i as u64))
        .collect();
    check_args_modes(dir, tag, seed, text, &args, modes);
}

/// As [`check`], with the arguments given (`random:SEED`, indices); every
/// result is compared.
fn check_args(dir: &Path, tag: &str, seed: u64, text: &str, args: &[String]) {
    check_args_modes(dir, tag, seed, text, args, ["jit", "plain"]);
    check_args_modes(dir, tag, seed, text, args, ["interp", "plain"]);
}

/// As [`check_modes`], with the arguments given; every result is compared.
fn check_args_modes(
    dir: &Path,
    tag: &str,
    seed: u64,
    text: &str,
    args: &[String],
    modes: [&str; 2],
) {
    compare(dir, tag, seed, text, args, modes, &["--entry", "f"]);
}

/// As [`check`], for the train step's gradient routine: `@f_grad` of
/// `--train`.
fn check_grad(dir: &Path, tag: &str, seed: u64, text: &str, nargs: usize) {
    let args: Vec<String> = (0..nargs)
        .map(|i| format!("random:{}", seed * 100 + i as u64))
        .collect();
    let flags = ["--train", "--entry", "f_grad"];
    compare(dir, tag, seed, text, &args, ["jit", "plain"], &flags);
    compare(dir, tag, seed, text, &args, ["jit-narrow", "plain"], &flags);
    compare(dir, tag, seed, text, &args, ["interp", "plain"], &flags);
}

/// Runs program `text` in two modes with `flags` (the entry, ...) and the
/// arguments given, and checks that every result agrees.
fn compare(
    dir: &Path,
    tag: &str,
    seed: u64,
    text: &str,
    args: &[String],
    modes: [&str; 2],
    flags: &[&str],
) {
    let run = env!("CARGO_BIN_EXE_ocannl-run");
    let file = dir.join(format!("{tag}{seed}.mlir"));
    std::fs::write(&file, text).expect("write program");
    let mut outs = vec![];
    for mode in modes {
        let out = dir.join(format!("{tag}{seed}-{mode}"));
        let mut cmd = Command::new(run);
        cmd.arg(&file)
            .args(flags)
            .args(["--quiet", "--out-dir"])
            .arg(&out);
        for a in args {
            cmd.arg(format!("--arg={a}"));
        }
        match mode {
            "interp" => {
                cmd.arg("--interpret");
            }
            "plain" => {
                cmd.args(["--interpret", "--no-optimize"]);
            }
            "cuda" => {
                cmd.args(["--device", "cuda"]);
            }
            "jit-narrow" => {
                cmd.args(["--backend-option", &format!("target-cpu={}", narrow_cpu())]);
            }
            _ => {}
        }
        let o = cmd.output().expect("run ocannl-run");
        assert!(
            o.status.success(),
            "{mode} failed on {}\n{text}\n{}",
            file.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        let results: Vec<_> = (0..)
            .map_while(|k| result_file(&out, k))
            .map(|p| read(&p))
            .collect();
        assert!(!results.is_empty(), "{mode}: no result for\n{text}");
        outs.push(results);
    }
    assert_eq!(
        outs[0].len(),
        outs[1].len(),
        "result counts differ on\n{text}"
    );
    for (k, ((s1, d1, e1), (s2, d2, e2))) in outs[0].iter().zip(&outs[1]).enumerate() {
        assert_eq!(s1, s2, "result {k}: shapes differ on\n{text}");
        assert_eq!(e1, e2, "result {k}: element types differ on\n{text}");
        if !modes.contains(&"plain") && matches!(e1, Elt::F16 | Elt::BF16) {
            let (exact, far) = ulps_apart(d1, d2, *e1);
            assert!(
                far.is_none() && exact * 10 >= d1.len() * 9,
                "result {k}: {exact} of {} cells equal in {}, {far:?} more than 2 units apart ({} vs {}) on {}\n{text}",
                d1.len(),
                e1.name(),
                modes[0],
                modes[1],
                file.display()
            );
        }
        for (i, (a, b)) in d1.iter().zip(d2).enumerate() {
            assert!(
                close(*a, *b, *e1),
                "result {k}, cell {i}: {} {a} vs {} {b} on {}\n{text}",
                modes[0],
                modes[1],
                file.display()
            );
        }
    }
}

/// How many programs of each kind to run: `OCANNL_DIFFERENTIAL_SEEDS`, or
/// the default.
fn seeds(default: u64) -> u64 {
    std::env::var("OCANNL_DIFFERENTIAL_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
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
    for seed in 0..seeds(40) {
        let (text, nargs) = program(1000 + seed, false);
        check(&dir, "p", seed, &text, nargs);
    }
    clean(&dir);
}

/// The random programs with every tensor in f16 or bf16 (one in two):
/// stored in 16 bits, computed in f32 by the JIT and rounded at each
/// store; the interpreter computes in f64 and rounds each statement's
/// result the same way, so that the two agree on nearly every cell
/// exactly ([`ulps_apart`]).
#[test]
fn low_precision_programs_agree_with_the_interpreter() {
    let dir = temp_dir("low-precision");
    for seed in 0..seeds(24) {
        let (text, nargs) = program(1000 + seed, false);
        let elt = if seed % 2 == 0 { "bf16" } else { "f16" };
        let text = in_elt(&text, elt);
        check(&dir, "h", seed, &text, nargs);
        // Compiled and interpreted alike (both optimized: the same
        // stores), cell for cell but for rare neighbours.
        check_modes(&dir, "h", seed, &text, nargs, ["jit", "interp"]);
    }
    // Every op, literal, param initialization and einsum form, and
    // convolutions' gradients, in both 16-bit types.
    let mut menu = Menu { next: [0; 7] };
    for seed in 0..seeds(24) {
        let (text, args) = every_op(9000 + seed, &mut menu);
        let text = in_elt(&text, if seed % 2 == 0 { "f16" } else { "bf16" });
        // Fused code keeps an inlined node's value in f32 where the
        // unoptimized interpreter rounds it to 16 bits; an op that jumps
        // (`mod`, a comparison, a gate) can turn that last bit into any
        // difference, so such a program is compared only between the
        // optimized modes, which compute the same values.
        if !jumps(&text) {
            check_args(&dir, "he", seed, &text, &args);
        }
        check_args_modes(&dir, "he", seed, &text, &args, ["jit", "interp"]);
    }
    // Contractions in the CPU's kernel: 16-bit operands packed as f32,
    // tiles summed in f32 and rounded when stored.
    for seed in 0..seeds(12) {
        let (text, nargs) = contraction(5000 + seed);
        let text = in_elt(&text, if seed % 2 == 0 { "bf16" } else { "f16" });
        check_targets(&dir, "hc", seed, &text, nargs);
        check_modes(&dir, "hc", seed, &text, nargs, ["jit", "interp"]);
    }
    for seed in 0..seeds(8) {
        let (text, nargs) = conv2d(13000 + seed, true);
        let text = in_elt(&text, if seed % 2 == 0 { "bf16" } else { "f16" });
        check_grad(&dir, "hg", seed, &text, nargs);
    }
    clean(&dir);
}

/// Whether a program applies an op whose value jumps at some input (a
/// remainder, a comparison, a gate, a logical op).
fn jumps(text: &str) -> bool {
    [
        "mod",
        "lt",
        "eq",
        "ne",
        "relu_gate",
        "satur01_gate",
        "and",
        "or",
        "not",
        "where",
    ]
    .iter()
    .any(|op| text.contains(&format!("op = \"{op}\"")))
}

/// A generated program with every f32 (tensor types, literals) as `elt`.
fn in_elt(text: &str, elt: &str) -> String {
    text.replace(", f32>", &format!(", {elt}>"))
        .replace(" : f32", &format!(" : {elt}"))
        .replace("xf32>", &format!("x{elt}>"))
}

#[test]
fn large_programs_agree_with_the_interpreter() {
    let dir = temp_dir("large");
    for seed in 0..seeds(20) {
        let (text, nargs) = program(3000 + seed, true);
        check(&dir, "l", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn contractions_agree_with_the_interpreter() {
    let dir = temp_dir("contractions");
    for seed in 0..seeds(32) {
        let (text, nargs) = contraction(5000 + seed);
        check_targets(&dir, "c", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn convolutions_agree_with_the_interpreter() {
    let dir = temp_dir("convolutions");
    for seed in 0..seeds(24) {
        let (text, nargs) = convolution(7000 + seed);
        check_targets(&dir, "v", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn multi_axis_contractions_agree_with_the_interpreter() {
    let dir = temp_dir("multi-contractions");
    for seed in 0..seeds(32) {
        let (text, nargs) = multi_contraction(9000 + seed);
        check_targets(&dir, "m", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn conv2d_agrees_with_the_interpreter() {
    let dir = temp_dir("conv2d");
    for seed in 0..seeds(24) {
        let (text, nargs) = conv2d(11000 + seed, false);
        check_targets(&dir, "c2", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn conv2d_gradients_agree_with_the_interpreter() {
    let dir = temp_dir("conv2d-grad");
    for seed in 0..seeds(24) {
        let (text, nargs) = conv2d(13000 + seed, true);
        check_grad(&dir, "g2", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn one_hot_gathers_agree_with_the_interpreter() {
    let dir = temp_dir("one-hot");
    for seed in 0..seeds(24) {
        let (text, nargs) = one_hot(15000 + seed, false);
        check(&dir, "o", seed, &text, nargs);
    }
    clean(&dir);
}

#[test]
fn one_hot_gradients_agree_with_the_interpreter() {
    let dir = temp_dir("one-hot-grad");
    for seed in 0..seeds(24) {
        let (text, nargs) = one_hot(17000 + seed, true);
        check_grad(&dir, "og", seed, &text, nargs);
    }
    clean(&dir);
}

/// What `ocannl-run --device cuda --device-info` says: `Ok(name)` with a
/// GPU, `Err(reason)` without.
fn gpu() -> Result<String, String> {
    let o = Command::new(env!("CARGO_BIN_EXE_ocannl-run"))
        .args(["-", "--entry", "none", "--device", "cuda", "--device-info"])
        .output()
        .expect("run ocannl-run");
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// Without a GPU, `--device cuda` fails with one line and exit code 1
/// before doing anything else; with one, it runs the program and agrees
/// with the CPU.
#[test]
fn cuda_without_a_gpu_is_one_line() {
    let dir = temp_dir("no-gpu");
    let (text, nargs) = program(1000, false);
    match gpu() {
        Err(_) => {
            let file = dir.join("p.mlir");
            std::fs::write(&file, &text).expect("write program");
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_ocannl-run"));
            cmd.arg(&file).args(["--entry", "f", "--device", "cuda"]);
            for i in 0..nargs {
                cmd.arg("--arg").arg(format!("random:{i}"));
            }
            let o = cmd.output().expect("run ocannl-run");
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(
                err.starts_with("no CUDA") || err.starts_with("the CUDA driver"),
                "{err}"
            );
            assert!(o.stdout.is_empty());
        }
        Ok(_) => check_modes(&dir, "g", 0, &text, nargs, ["jit", "cuda"]),
    }
    clean(&dir);
}

/// Fails (with the reason) when there is no GPU: the GPU tests are run on
/// purpose only.
fn need_gpu() {
    if let Err(why) = gpu() {
        panic!("this test needs an NVIDIA GPU: {why}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU (scripts/gpu-check.sh runs it)"]
fn gpu_agrees_with_the_cpu() {
    need_gpu();
    let dir = temp_dir("gpu-programs");
    for seed in 0..40u64 {
        let (text, nargs) = program(1000 + seed, false);
        check_modes(&dir, "p", seed, &text, nargs, ["jit", "cuda"]);
    }
    for seed in 0..20u64 {
        let (text, nargs) = program(3000 + seed, true);
        check_modes(&dir, "l", seed, &text, nargs, ["jit", "cuda"]);
    }
    clean(&dir);
}

#[test]
#[ignore = "needs an NVIDIA GPU (scripts/gpu-check.sh runs it)"]
fn gpu_contractions_agree_with_the_cpu() {
    need_gpu();
    let dir = temp_dir("gpu-contractions");
    for seed in 0..32u64 {
        let (text, nargs) = contraction(5000 + seed);
        check_modes(&dir, "c", seed, &text, nargs, ["jit", "cuda"]);
    }
    clean(&dir);
}

#[test]
#[ignore = "needs an NVIDIA GPU (scripts/gpu-check.sh runs it)"]
fn gpu_convolutions_agree_with_the_cpu() {
    need_gpu();
    let dir = temp_dir("gpu-convolutions");
    for seed in 0..24u64 {
        let (text, nargs) = convolution(7000 + seed);
        check_modes(&dir, "v", seed, &text, nargs, ["jit", "cuda"]);
    }
    clean(&dir);
}

/// A layer's train step (the loss `sum relu(w x + b)`), five steps in a
/// row, each from the params the previous one updated in place on the
/// device, with SGD and with AdamW and clipping (the optimizer's state kept
/// on the device too): the losses of the last step agree.
#[test]
#[ignore = "needs an NVIDIA GPU (scripts/gpu-check.sh runs it)"]
fn gpu_train_steps_agree_with_the_cpu() {
    need_gpu();
    let dir = temp_dir("gpu-train");
    let model = dir.join("layer.mlir");
    std::fs::write(&model, TRAIN_MODEL).expect("write the model");
    // A small learning rate, so that the loss stays away from 0.
    let lr = dir.join("lr.npy");
    ocannl_runtime::npy::write(&lr, &ocannl_runtime::HostTensor::f32(vec![], vec![1e-3]))
        .expect("lr.npy");
    // The optimizer, its options, and its state arguments (after the data
    // and the params w, b).
    for (optimizer, options, state) in [("sgd", &[][..], 0), ("adamw", &["clip-norm=1"][..], 5)] {
        let mut losses = vec![];
        for device in ["cpu", "cuda"] {
            let out = dir.join(format!("{optimizer}-{device}"));
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_ocannl-run"));
            cmd.arg(&model)
                .args([
                    "--entry",
                    "loss_train_step",
                    "--train",
                    "--optimizer",
                    optimizer,
                    "--repeat",
                    "5",
                    "--quiet",
                    "--device",
                    device,
                    "--out-dir",
                ])
                .arg(&out);
            for o in options {
                cmd.args(["--optimizer-option", o]);
            }
            // The data, the params (w, b) and the state, generated; the
            // learning rate.
            for i in 0..3 + state {
                cmd.arg("--arg").arg(format!("random:{}", 40 + i));
            }
            cmd.arg("--arg").arg(&lr);
            let o = cmd.output().expect("run ocannl-run");
            assert!(
                o.status.success(),
                "{optimizer}, {device}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            losses.push(read(&out.join("result0.npy")).1);
        }
        assert_eq!(losses[0].len(), 1);
        assert!(
            losses[0][0] > 1.0,
            "{optimizer}: the loss vanished: {}",
            losses[0][0]
        );
        assert!(
            close(losses[0][0], losses[1][0], Elt::F32),
            "{optimizer}: loss after 5 steps: cpu {} vs cuda {}",
            losses[0][0],
            losses[1][0]
        );
    }
    clean(&dir);
}

/// One layer with a relu, its outputs summed: large enough for the tiled
/// kernel (in the forward product and in w's gradient).
const TRAIN_MODEL: &str = r#"func.func @loss(%x: !ocannl_shape.tensor<"64|40", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->48", f32>
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"48", f32>
  %h0 = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->48", f32>, !ocannl_shape.tensor<"64|40", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h1 = "ocannl_shape.pointwise_binary"(%b, %h0) {op = "add"} : (!ocannl_shape.tensor<"48", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%h1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "...|... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}
"#;

/// Every op and option, by name, for [`every_op`]: the generator cycles
/// through each list so that a few programs cover them all.
struct Menu {
    next: [usize; 7],
}

/// Every param initialization (the `init` and `std` attributes).
const INITS: &[&str] = &[
    "init = \"uniform\"",
    "init = \"glorot\"",
    "init = \"he\"",
    "init = \"normal\", std = 0.5 : f64",
    "init = \"zeros\"",
    "init = \"he\", generator = \"threefry\"",
    "init = \"normal\", std = 2.0 : f64, generator = \"threefry\"",
    "init = \"constant\", value = -1.5 : f64",
];

const UNARY: &[&str] = &[
    "identity",
    "relu",
    "satur01",
    "exp",
    "log",
    "exp2",
    "log2",
    "sin",
    "cos",
    "sqrt",
    "recip",
    "recip_sqrt",
    "neg",
    "tanh",
    "erf",
    "not",
    "stop_gradient",
];
const BINARY: &[&str] = &[
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "relu_gate",
    "satur01_gate",
    "max",
    "min",
    "mod",
    "lt",
    "eq",
    "ne",
    "and",
    "or",
];
const TERNARY: &[&str] = &["where", "fma"];
const REDUCING: &[&str] = &["add", "sub", "mul", "div", "max", "min"];
/// Einsums of fresh arguments: (spec, operand types, result type), from
/// the einsum features (rows with and without variables, a variable in the
/// middle, fixed indices in the result and in operands, diagonals, axes
/// swapped between rows, contractions of two operands, a placeholder), and
/// every form of write: diagonal and repeated-index writes, fixed indices
/// on axes of several cells, broadcast writes (the cells an assignment
/// does not write are defined too).
const EINSUMS: &[(&str, &[&str], &str)] = &[
    ("i=>i0", &["4"], "4,1"),
    ("i=>ii", &["3"], "3,3"),
    ("ij=>iij", &["2,3"], "2,2,3"),
    ("i=>i2", &["4"], "4,3"),
    ("i1j=>j0i", &["2,3,4"], "4,2,2"),
    ("i=>ij", &["3"], "3,4"),
    ("i2=>i", &["4,3"], "4"),
    ("ii=>i", &["3,3"], "3"),
    ("a, ..r.., b => b, ..r.., a", &["2,3,4,5"], "5,3,4,2"),
    ("b|i->o => o|b->i", &["2|3->4"], "4|2->3"),
    ("ij;jk=>ik", &["3,5", "5,2"], "3,2"),
    ("...|i->j; j->k => ...|i->k", &["2|3->4", "4->5"], "2|3->5"),
    ("...|...->i => ...|...->i", &["2|3->4,5"], "2|3->5"),
    ("_,i => i", &["3,4"], "4"),
    ("...|...->... => ...->...", &["3|2->4"], "2->4"),
];

/// Labels of [`EINSUMS`]' specs that a program captures, with their
/// solutions (a dim's size, a row's total elements): the first einsum of a
/// program whose spec is here captures its label, pins it by `set_dim`
/// and scales its strand by the label as a number (`ocannl_shape.dim`).
const CAPTURES: &[(&str, &str, u64)] = &[
    ("i=>ij", "j", 4),
    ("ij;jk=>ik", "j", 5),
    ("a, ..r.., b => b, ..r.., a", "r", 12),
    ("...|i->j; j->k => ...|i->k", "j", 4),
    ("i2=>i", "i", 4),
];

impl Menu {
    fn take<'a>(&mut self, k: usize, xs: &'a [&'a str]) -> &'a str {
        let x = xs[self.next[k] % xs.len()];
        self.next[k] += 1;
        x
    }
}

/// A program that applies ops of every kind: strands, each from fresh
/// arguments (or an einsum of them) through a few steps, each returned.
/// Returns the text and the arguments (random data, slice indices).
fn every_op(seed: u64, menu: &mut Menu) -> (String, Vec<String>) {
    let mut r = Rng(ocannl_ops::SplitMix64::new(seed));
    let mut params: Vec<String> = vec![];
    let mut args: Vec<String> = vec![];
    let mut body = String::new();
    let mut results: Vec<T> = vec![];
    let mut n = 0;
    let mut captured = false;
    let tensor = |s: &str| format!("!ocannl_shape.tensor<\"{s}\", f32>");
    // A fresh argument of a given type (`?`: inferred from its use).
    let fresh_arg = |params: &mut Vec<String>, args: &mut Vec<String>, ty: String| {
        let name = format!("%a{}", params.len());
        params.push(format!("{name}: {ty}"));
        args.push(format!("random:{}", seed * 100 + args.len() as u64));
        name
    };
    for _ in 0..2 + r.below(2) {
        // The strand's start: a fresh argument, or an einsum of fresh ones.
        let mut cur = if r.below(2) == 0 {
            let (spec, ops, result) = EINSUMS[menu.next[5] % EINSUMS.len()];
            menu.next[5] += 1;
            let names: Vec<String> = ops
                .iter()
                .map(|o| fresh_arg(&mut params, &mut args, tensor(o)))
                .collect();
            n += 1;
            let t = parse_t(&format!("%v{n}"), result);
            let capture = match CAPTURES.iter().find(|c| c.0 == spec) {
                Some(&(_, label, value)) if !captured => {
                    captured = true;
                    Some((label, value))
                }
                _ => None,
            };
            body += &format!(
                "  {} = \"ocannl_shape.einsum\"({}) {{spec = \"{spec}\"{}}} : ({}) -> {}\n",
                t.name,
                names.join(", "),
                capture.map_or(String::new(), |(l, _)| format!(", capture = [\"{l}\"]")),
                ops.iter().map(|o| tensor(o)).collect::<Vec<_>>().join(", "),
                ty(&t)
            );
            match capture {
                Some((label, value)) => {
                    // The strand times the label as a number.
                    n += 1;
                    let scaled = T {
                        name: format!("%v{n}"),
                        ..t.clone()
                    };
                    body += &format!(
                        "  %dim{n} = \"ocannl_shape.dim\"() {{ref = \"{label}\"}} : () -> {}\n",
                        tensor("")
                    );
                    body += &format!(
                        "  \"ocannl_shape.set_dim\"() {{ref = \"{label}\", value = {value} : i64}} : () -> ()\n"
                    );
                    body += &format!(
                        "  {} = \"ocannl_shape.pointwise_binary\"({}, %dim{n}) {{op = \"mul\"}} : ({}, {}) -> {}\n",
                        scaled.name,
                        t.name,
                        ty(&t),
                        tensor(""),
                        ty(&scaled)
                    );
                    scaled
                }
                None => t,
            }
        } else {
            let mut output = dims(&mut r, 2, 4);
            if output.is_empty() {
                output.push(1 + r.below(4));
            }
            let t = T {
                name: String::new(),
                batch: dims(&mut r, 2, 3),
                input: dims(&mut r, 1, 3),
                output,
            };
            let name = fresh_arg(&mut params, &mut args, ty(&t));
            T { name, ..t }
        };
        for _ in 0..1 + r.below(4) {
            n += 1;
            let name = format!("%v{n}");
            // A broadcast operand of the current value: some axes 1, or
            // no batch axes.
            let broadcast = |r: &mut Rng, cur: &T| {
                let mut b = cur.clone();
                for d in b.output.iter_mut().chain(b.input.iter_mut()) {
                    if r.below(3) == 0 {
                        *d = 1;
                    }
                }
                if r.below(2) == 0 {
                    b.batch.clear();
                }
                b
            };
            let same = T {
                name: name.clone(),
                ..cur.clone()
            };
            let (line, out) = match r.below(12) {
                0 | 1 => {
                    let op = menu.take(0, UNARY);
                    (format!("{name} = \"ocannl_shape.pointwise_unary\"({}) {{op = \"{op}\"}} : ({}) -> {}", cur.name, ty(&cur), ty(&same)), same)
                }
                2..=4 => {
                    let op = menu.take(1, BINARY);
                    let b = broadcast(&mut r, &cur);
                    let u = fresh_arg(&mut params, &mut args, ty(&b));
                    let (x, y) = if r.below(2) == 0 {
                        (cur.name.clone(), u)
                    } else {
                        (u, cur.name.clone())
                    };
                    let (tx, tyy) = if x == cur.name {
                        (ty(&cur), ty(&b))
                    } else {
                        (ty(&b), ty(&cur))
                    };
                    (format!("{name} = \"ocannl_shape.pointwise_binary\"({x}, {y}) {{op = \"{op}\"}} : ({tx}, {tyy}) -> {}", ty(&same)), same)
                }
                5 => {
                    let op = menu.take(2, TERNARY);
                    let (b1, b2) = (broadcast(&mut r, &cur), broadcast(&mut r, &cur));
                    let (u1, u2) = (
                        fresh_arg(&mut params, &mut args, ty(&b1)),
                        fresh_arg(&mut params, &mut args, ty(&b2)),
                    );
                    (format!("{name} = \"ocannl_shape.pointwise_ternary\"({u1}, {}, {u2}) {{op = \"{op}\"}} : ({}, {}, {}) -> {}", cur.name, ty(&b1), ty(&cur), ty(&b2), ty(&same)), same)
                }
                6 => {
                    // compose(w, cur) with an op and an accumulation.
                    let accum = menu.take(3, REDUCING);
                    let op = *r.pick(&["mul", "add", "max", "min", "sub"]);
                    let k = 1 + r.below(3);
                    let w = T {
                        name: String::new(),
                        batch: vec![],
                        input: cur.output.clone(),
                        output: vec![k],
                    };
                    let wn = fresh_arg(&mut params, &mut args, ty(&w));
                    let out = T {
                        name: name.clone(),
                        batch: cur.batch.clone(),
                        input: cur.input.clone(),
                        output: vec![k],
                    };
                    (format!("{name} = \"ocannl_shape.compose\"({wn}, {}) {{op = \"{op}\", accum = \"{accum}\"}} : ({}, {}) -> {}", cur.name, ty(&w), ty(&cur), ty(&out)), out)
                }
                7 => {
                    let accum = menu.take(4, REDUCING);
                    let out = T {
                        name: name.clone(),
                        batch: vec![],
                        input: vec![],
                        output: vec![1],
                    };
                    (format!("{name} = \"ocannl_shape.einsum\"({}) {{spec = \"...|...->... => 0\", accum = \"{accum}\"}} : ({}) -> {}", cur.name, ty(&cur), ty(&out)), out)
                }
                8 if !cur.input.is_empty() => {
                    let out = T {
                        name: name.clone(),
                        batch: cur.batch.clone(),
                        input: cur.output.clone(),
                        output: cur.input.clone(),
                    };
                    (
                        format!(
                            "{name} = \"ocannl_shape.transpose\"({}) : ({}) -> {}",
                            cur.name,
                            ty(&cur),
                            ty(&out)
                        ),
                        out,
                    )
                }
                9 if !cur.batch.is_empty() => {
                    // A slice of the computed value at a valid index.
                    params.push(format!("%i{n}: index"));
                    args.push(r.below(cur.batch[0]).to_string());
                    let out = T {
                        name: name.clone(),
                        batch: cur.batch[1..].to_vec(),
                        ..cur.clone()
                    };
                    (
                        format!(
                            "{name} = \"ocannl_shape.batch_slice\"({}, %i{n}) : ({}, index) -> {}",
                            cur.name,
                            ty(&cur),
                            ty(&out)
                        ),
                        out,
                    )
                }
                10 => {
                    // A constant: a fill, or a literal along the last axis.
                    let last = *cur.output.last().expect("an output axis");
                    let (value, cty) = if r.below(2) == 0 {
                        ("0.75 : f32".to_string(), tensor("1"))
                    } else {
                        let cells: Vec<String> = (0..last).map(|i| format!("{}.5", i)).collect();
                        (
                            format!("dense<[{}]> : tensor<{last}xf32>", cells.join(", ")),
                            tensor(&last.to_string()),
                        )
                    };
                    let op = *r.pick(&["add", "mul"]);
                    body += &format!(
                        "  %c{n} = \"ocannl_shape.constant\"() {{value = {value}}} : () -> {cty}\n"
                    );
                    (format!("{name} = \"ocannl_shape.pointwise_binary\"({}, %c{n}) {{op = \"{op}\"}} : ({}, {cty}) -> {}", cur.name, ty(&cur), ty(&same)), same)
                }
                _ => {
                    // A param: a bias of the value's output axes.
                    let p = T {
                        name: String::new(),
                        batch: vec![],
                        input: vec![],
                        output: cur.output.clone(),
                    };
                    let init = INITS[menu.next[6] % INITS.len()];
                    menu.next[6] += 1;
                    body += &format!(
                        "  %p{n} = \"ocannl_shape.param\"() {{name = \"p{n}\", {init}}} : () -> {}\n",
                        ty(&p)
                    );
                    (format!("{name} = \"ocannl_shape.pointwise_binary\"(%p{n}, {}) {{op = \"add\"}} : ({}, {}) -> {}", cur.name, ty(&p), ty(&cur), ty(&same)), same)
                }
            };
            body += &format!("  {line}\n");
            cur = out;
        }
        results.push(cur);
    }
    let text = format!(
        "func.func @f({}) -> ({}) {{\n{body}  return {} : {}\n}}\n",
        params.join(", "),
        results.iter().map(ty).collect::<Vec<_>>().join(", "),
        results
            .iter()
            .map(|t| t.name.clone())
            .collect::<Vec<_>>()
            .join(", "),
        results.iter().map(ty).collect::<Vec<_>>().join(", ")
    );
    (text, args)
}

/// A value named `name` of the shape written `B|I->O`.
fn parse_t(name: &str, s: &str) -> T {
    let row = |x: &str| -> Vec<u64> {
        x.split(',')
            .filter(|d| !d.is_empty())
            .map(|d| d.trim().parse().expect("a size"))
            .collect()
    };
    let (batch, rest) = match s.split_once('|') {
        Some((b, r)) => (row(b), r),
        None => (vec![], s),
    };
    let (input, output) = match rest.split_once("->") {
        Some((i, o)) => (row(i), row(o)),
        None => (vec![], row(rest)),
    };
    T {
        name: name.to_string(),
        batch,
        input,
        output,
    }
}

#[test]
fn every_op_agrees_with_the_interpreter() {
    let dir = temp_dir("every-op");
    let mut menu = Menu { next: [0; 7] };
    let mut texts = String::new();
    for seed in 0..seeds(24) {
        let (text, args) = every_op(9000 + seed, &mut menu);
        check_args(&dir, "e", seed, &text, &args);
        texts += &text;
    }
    // Every op, accumulation and einsum form ran.
    // The menus are the whole vocabulary: a new op is generated.
    let names = |all: &[&'static str]| all.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let vocabulary: Vec<String> = (ocannl_ops::UnaryOp::ALL.iter().map(|o| o.name()))
        .chain(ocannl_ops::BinaryOp::ALL.iter().map(|o| o.name()))
        .chain(ocannl_ops::TernaryOp::ALL.iter().map(|o| o.name()))
        .map(String::from)
        .collect();
    let menus = [names(UNARY), names(BINARY), names(TERNARY)].concat();
    for op in &vocabulary {
        assert!(menus.contains(op), "the generator does not draw {op}");
    }
    for op in UNARY.iter().chain(BINARY).chain(TERNARY) {
        assert!(
            texts.contains(&format!("op = \"{op}\"")),
            "no program used {op}"
        );
    }
    for form in [
        "capture = [",
        "\"ocannl_shape.dim\"",
        "\"ocannl_shape.set_dim\"",
    ] {
        assert!(texts.contains(form), "no program used {form}");
    }
    for a in REDUCING {
        assert!(
            texts.contains(&format!("accum = \"{a}\"}} : (!")),
            "no reduction with accum {a}"
        );
    }
    for (spec, _, _) in EINSUMS {
        assert!(
            texts.contains(&format!("spec = \"{spec}\"")),
            "no einsum {spec}"
        );
    }
    for init in INITS {
        assert!(texts.contains(init), "no param with {init}");
    }
    for what in [
        "batch_slice",
        "compose",
        "transpose",
        "constant",
        "param",
        "dense<",
    ] {
        assert!(texts.contains(what), "no program used {what}");
    }
    clean(&dir);
}

/// The Python of the IREE environment: `OCANNL_IREE_PYTHON`, else
/// `target/iree-venv`'s (`scripts/install-iree.sh`), when it has IREE's
/// runtime.
fn iree_python() -> Result<std::path::PathBuf, String> {
    let py = match std::env::var_os("OCANNL_IREE_PYTHON") {
        Some(p) => std::path::PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/iree-venv/bin/python3"),
    };
    let ok = Command::new(&py)
        .args(["-c", "import iree.runtime, iree.compiler"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Ok(py)
    } else {
        Err(format!(
            "no IREE at {} (scripts/install-iree.sh installs it, or set OCANNL_IREE_PYTHON)",
            py.display()
        ))
    }
}

/// Runs program `text` through linalg and IREE against ocannl-run's JIT
/// (`scripts/iree-run.py`, within 1e-5 relative), with `flags` (the entry,
/// `--train`...) and the arguments given.
fn check_iree(
    py: &Path,
    dir: &Path,
    tag: &str,
    seed: u64,
    text: &str,
    args: &[String],
    flags: &[&str],
) {
    let file = dir.join(format!("{tag}{seed}.mlir"));
    std::fs::write(&file, text).expect("write program");
    let tools = Path::new(env!("CARGO_BIN_EXE_ocannl-run"))
        .parent()
        .expect("the tools' directory");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/iree-run.py");
    let mut cmd = Command::new(py);
    cmd.arg(script)
        .arg(&file)
        .args(flags)
        .arg("--tool-dir")
        .arg(tools)
        .arg("--keep")
        .arg(dir.join(format!("{tag}{seed}-iree")));
    for a in args {
        cmd.arg(format!("--arg={a}"));
    }
    let o = cmd.output().expect("run iree-run.py");
    assert!(
        o.status.success(),
        "IREE disagrees on {}\n{text}\n{}{}",
        file.display(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The differential generators' programs lowered to linalg, compiled by
/// IREE for the CPU and run by its runtime, against ocannl-run's JIT:
/// small and large programs, contractions, convolutions, programs using
/// every op, and the gradient routines of 2-D convolutions.
#[test]
#[ignore = "needs IREE (scripts/install-iree.sh; scripts/iree-check.sh runs it)"]
fn iree_agrees_with_the_jit() {
    let py = iree_python().unwrap_or_else(|why| panic!("this test needs IREE: {why}"));
    let dir = temp_dir("iree");
    let n = seeds(6);
    let random = |seed: u64, nargs: usize| -> Vec<String> {
        (0..nargs)
            .map(|i| format!("random:{}", seed * 100 + i as u64))
            .collect()
    };
    let f = ["--entry", "f"];
    for seed in 0..n {
        let (text, nargs) = program(1000 + seed, false);
        check_iree(&py, &dir, "p", seed, &text, &random(seed, nargs), &f);
        let (text, nargs) = program(3000 + seed, true);
        check_iree(&py, &dir, "l", seed, &text, &random(seed, nargs), &f);
        let (text, nargs) = contraction(5000 + seed);
        check_iree(&py, &dir, "c", seed, &text, &random(seed, nargs), &f);
        let (text, nargs) = convolution(7000 + seed);
        check_iree(&py, &dir, "v", seed, &text, &random(seed, nargs), &f);
        let (text, nargs) = multi_contraction(9000 + seed);
        check_iree(&py, &dir, "m", seed, &text, &random(seed, nargs), &f);
        let (text, nargs) = conv2d(11000 + seed, false);
        check_iree(&py, &dir, "c2", seed, &text, &random(seed, nargs), &f);
    }
    let mut menu = Menu { next: [0; 7] };
    for seed in 0..n * 2 {
        let (text, args) = every_op(9000 + seed, &mut menu);
        check_iree(&py, &dir, "e", seed, &text, &args, &f);
    }
    clean(&dir);
}
