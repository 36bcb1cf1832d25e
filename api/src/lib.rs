//! Tensor expressions in Rust, in the spirit of OCANNL's `%op` syntax.
//!
//! ```ignore
//! use ocannl::*;
//! let x = data("x", "10|2");
//! let h = relu(param("b1").output(&[16]) + param("w1") * &x);
//! let y = param("b2").output(&[1]) + param("w2") * &h;
//! ```
//!
//! - [`param`] declares a param inline, with optional dims (`.output`,
//!   `.input`); every other dim is inferred from its uses. Params with the
//!   same name are the same param.
//! - [`data`] is an input fed at each call, with its shape
//!   (`"batch|input->output"`).
//! - `+`, `-`, `*` (compose: OCANNL's `*`), unary `-`, and numbers on either
//!   side; [`pointmul`] (OCANNL's `*.`), [`pointdiv`], [`relu`] and the
//!   other pointwise ops ([`unary`], [`binary`], [`ternary`] for any op of
//!   the vocabulary), [`einsum`], [`transpose`], [`sum`].
//! - [`Tensor::module`] prints the `ocannl_shape` module an expression
//!   builds; [`train::Trainer`] compiles a loss and a forward function into
//!   routines for training and inference.
//!
//! Shape errors are the pass's own messages ([`Error`]).

pub mod train;

use std::{
    collections::HashMap,
    fmt,
    ops::{Add, Mul, Neg, Sub},
    rc::Rc,
    sync::atomic::{AtomicUsize, Ordering},
};

use ocannl_ops::{BinaryOp, NumOp, TernaryOp, UnaryOp};

pub use ocannl_runtime::{npy, Elt, HostTensor};
pub use train::{Device, Sgd, Trainer};

/// An op's line with the discardable attribute `ocannl.memory = MODE`.
fn pin_line(line: &str, mode: &str) -> String {
    let attr = format!("ocannl.memory = \"{mode}\"");
    let start = line.find("\"ocannl_shape.").unwrap_or(0);
    let close = line[start..].find(')').map(|i| start + i);
    match close {
        Some(i) if line[i + 1..].starts_with(" {") => {
            format!("{}{attr}, {}", &line[..i + 3], &line[i + 3..])
        }
        Some(i) => format!("{} {{{attr}}}{}", &line[..i + 1], &line[i + 1..]),
        None => line.to_string(),
    }
}

/// An error from building, compiling or running: the diagnostics, each as
/// `LINE:COL: error: message` against the printed module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub messages: Vec<String>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.messages.join("\n"))
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(m: String) -> Self {
        Error { messages: vec![m] }
    }
}

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

#[derive(Debug)]
enum Node {
    Param {
        name: String,
        input: Option<Vec<u64>>,
        output: Option<Vec<u64>>,
        /// `uniform` (±0.25, the default), `glorot`, `he` or `zeros`.
        init: Option<String>,
        seed: Option<i64>,
    },
    Data {
        name: String,
        shape: String,
    },
    Number(f64),
    Op(NumOp, Vec<Tensor>),
    Compose(Tensor, Tensor),
    Einsum(String, Vec<Tensor>),
    Transpose(Tensor),
}

/// A tensor expression (cheap to clone: expressions share their parts).
#[derive(Clone, Debug)]
pub struct Tensor {
    id: usize,
    node: Rc<Node>,
    /// The memory mode pinned by [`Tensor::memory`].
    memory: Option<Rc<str>>,
}

impl Tensor {
    fn new(node: Node) -> Tensor {
        Tensor {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            node: Rc::new(node),
            memory: None,
        }
    }

    /// Pins the memory mode of this tensor's node (`"virtual"`, `"local"`,
    /// `"on_device"` or `"materialized"`), which `ocannl-virtualize` then
    /// keeps instead of deciding it: e.g. `"local"` keeps a buffer for it.
    /// Checked when the module is compiled; params and results are always
    /// materialized.
    pub fn memory(mut self, mode: &str) -> Tensor {
        self.memory = Some(mode.into());
        self
    }

    /// Sets the output dims of a param (its other dims stay inferred).
    pub fn output(self, dims: &[u64]) -> Tensor {
        self.with_dims(None, Some(dims))
    }

    /// Sets the input dims of a param.
    pub fn input(self, dims: &[u64]) -> Tensor {
        self.with_dims(Some(dims), None)
    }

    /// How a param is initialized: `"uniform"` (±0.25, OCANNL's default),
    /// `"glorot"` (±sqrt(6 / (fan_in + fan_out))), `"he"` (±sqrt(6 /
    /// fan_in)) or `"zeros"`; checked when the module is compiled.
    pub fn init(self, how: &str) -> Tensor {
        self.with(|_, _, init, _| *init = Some(how.to_string()))
    }

    /// The seed of a param's initialization (by default one derived from
    /// its name).
    pub fn seed(self, seed: i64) -> Tensor {
        self.with(|_, _, _, s| *s = Some(seed))
    }

    fn with_dims(self, i: Option<&[u64]>, o: Option<&[u64]>) -> Tensor {
        self.with(|input, output, _, _| {
            if let Some(i) = i {
                *input = Some(i.to_vec());
            }
            if let Some(o) = o {
                *output = Some(o.to_vec());
            }
        })
    }

    /// A copy of a param with some of its declaration changed.
    #[allow(clippy::type_complexity)]
    fn with(
        self,
        f: impl FnOnce(
            &mut Option<Vec<u64>>,
            &mut Option<Vec<u64>>,
            &mut Option<String>,
            &mut Option<i64>,
        ),
    ) -> Tensor {
        match &*self.node {
            Node::Param {
                name,
                input,
                output,
                init,
                seed,
            } => {
                let (mut input, mut output, mut init, mut seed) =
                    (input.clone(), output.clone(), init.clone(), *seed);
                f(&mut input, &mut output, &mut init, &mut seed);
                Tensor::new(Node::Param {
                    name: name.clone(),
                    input,
                    output,
                    init,
                    seed,
                })
            }
            _ => panic!("dims, initializations and seeds are given to params only"),
        }
    }

    /// The `ocannl_shape` module of one function `@name` returning these
    /// tensors (data are its arguments, in order of creation).
    pub fn module(name: &str, results: &[&Tensor]) -> String {
        let mut w = Writer::default();
        let outs: Vec<String> = results.iter().map(|t| w.value(t)).collect();
        w.function(name, &outs)
    }
}

/// A param: trained, initialized by the module (`uniform` in ±0.25).
pub fn param(name: &str) -> Tensor {
    Tensor::new(Node::Param {
        name: name.into(),
        input: None,
        output: None,
        init: None,
        seed: None,
    })
}

/// Data fed at each call, with its shape (`"10|2"`: a batch of 10 rows of
/// 2; `"2"`: one row).
pub fn data(name: &str, shape: &str) -> Tensor {
    Tensor::new(Node::Data {
        name: name.into(),
        shape: shape.into(),
    })
}

/// A number, broadcast to whatever shape it meets.
pub fn number(x: f64) -> Tensor {
    Tensor::new(Node::Number(x))
}

/// Any unary op of the vocabulary.
pub fn unary(op: UnaryOp, x: &Tensor) -> Tensor {
    Tensor::new(Node::Op(NumOp::Unary(op), vec![x.clone()]))
}

/// Any binary op, pointwise with broadcasting.
pub fn binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Tensor {
    Tensor::new(Node::Op(NumOp::Binary(op), vec![a.clone(), b.clone()]))
}

/// Any ternary op, pointwise with broadcasting.
pub fn ternary(op: TernaryOp, a: &Tensor, b: &Tensor, c: &Tensor) -> Tensor {
    Tensor::new(Node::Op(
        NumOp::Ternary(op),
        vec![a.clone(), b.clone(), c.clone()],
    ))
}

pub fn relu(x: &Tensor) -> Tensor {
    unary(UnaryOp::Relu, x)
}

pub fn tanh(x: &Tensor) -> Tensor {
    unary(UnaryOp::Tanh, x)
}

pub fn exp(x: &Tensor) -> Tensor {
    unary(UnaryOp::Exp, x)
}

pub fn log(x: &Tensor) -> Tensor {
    unary(UnaryOp::Log, x)
}

pub fn sqrt(x: &Tensor) -> Tensor {
    unary(UnaryOp::Sqrt, x)
}

/// Pointwise product (OCANNL's `*.`).
pub fn pointmul(a: &Tensor, b: &Tensor) -> Tensor {
    binary(BinaryOp::Mul, a, b)
}

/// Pointwise quotient (OCANNL's `/.`).
pub fn pointdiv(a: &Tensor, b: &Tensor) -> Tensor {
    binary(BinaryOp::Div, a, b)
}

/// A generalized einsum (`"...|i; i->j => ...|j"`) of one or two tensors.
pub fn einsum(spec: &str, operands: &[&Tensor]) -> Tensor {
    Tensor::new(Node::Einsum(
        spec.into(),
        operands.iter().map(|t| (*t).clone()).collect(),
    ))
}

/// Swaps the input and output rows.
pub fn transpose(x: &Tensor) -> Tensor {
    Tensor::new(Node::Transpose(x.clone()))
}

/// The sum of every cell (a tensor of one cell).
pub fn sum(x: &Tensor) -> Tensor {
    einsum("...|...->... => 0", &[x])
}

macro_rules! binop {
    ($tr:ident, $method:ident, $build:expr) => {
        impl $tr<&Tensor> for &Tensor {
            type Output = Tensor;
            fn $method(self, rhs: &Tensor) -> Tensor {
                $build(self, rhs)
            }
        }
        impl $tr<Tensor> for Tensor {
            type Output = Tensor;
            fn $method(self, rhs: Tensor) -> Tensor {
                $build(&self, &rhs)
            }
        }
        impl $tr<&Tensor> for Tensor {
            type Output = Tensor;
            fn $method(self, rhs: &Tensor) -> Tensor {
                $build(&self, rhs)
            }
        }
        impl $tr<Tensor> for &Tensor {
            type Output = Tensor;
            fn $method(self, rhs: Tensor) -> Tensor {
                $build(self, &rhs)
            }
        }
        impl $tr<f64> for &Tensor {
            type Output = Tensor;
            fn $method(self, rhs: f64) -> Tensor {
                $build(self, &number(rhs))
            }
        }
        impl $tr<f64> for Tensor {
            type Output = Tensor;
            fn $method(self, rhs: f64) -> Tensor {
                $build(&self, &number(rhs))
            }
        }
        impl $tr<&Tensor> for f64 {
            type Output = Tensor;
            fn $method(self, rhs: &Tensor) -> Tensor {
                $build(&number(self), rhs)
            }
        }
        impl $tr<Tensor> for f64 {
            type Output = Tensor;
            fn $method(self, rhs: Tensor) -> Tensor {
                $build(&number(self), &rhs)
            }
        }
    };
}

binop!(Add, add, |a: &Tensor, b: &Tensor| binary(
    BinaryOp::Add,
    a,
    b
));
binop!(Sub, sub, |a: &Tensor, b: &Tensor| binary(
    BinaryOp::Sub,
    a,
    b
));
// `*` is compose, as in OCANNL; with a number it scales pointwise.
binop!(
    Mul,
    mul,
    |a: &Tensor, b: &Tensor| match (&*a.node, &*b.node) {
        (Node::Number(_), _) | (_, Node::Number(_)) => pointmul(a, b),
        _ => Tensor::new(Node::Compose(a.clone(), b.clone())),
    }
);

impl Neg for &Tensor {
    type Output = Tensor;
    fn neg(self) -> Tensor {
        unary(UnaryOp::Neg, self)
    }
}

impl Neg for Tensor {
    type Output = Tensor;
    fn neg(self) -> Tensor {
        unary(UnaryOp::Neg, &self)
    }
}

/// Writes one function: each node once, data as arguments.
#[derive(Default)]
struct Writer {
    names: HashMap<usize, String>,
    types: HashMap<usize, String>,
    lines: Vec<String>,
    /// Data arguments: (creation id, SSA name, type).
    args: Vec<(usize, String, String)>,
    /// Params by name: the SSA value of the first declaration.
    params: HashMap<String, (String, String)>,
    next: usize,
}

fn ty(shape: &str) -> String {
    format!("!ocannl_shape.tensor<\"{shape}\", f32>")
}

fn row(dims: &[u64]) -> String {
    dims.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

impl Writer {
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%t{}", self.next)
    }

    fn typed(&self, t: &Tensor) -> (String, String) {
        (self.names[&t.id].clone(), self.types[&t.id].clone())
    }

    fn value(&mut self, t: &Tensor) -> String {
        if let Some(n) = self.names.get(&t.id) {
            return n.clone();
        }
        let unknown = ty("?");
        let (name, typ) = match &*t.node {
            Node::Data { name, shape } => {
                let n = format!("%{}", sanitize(name));
                self.args.push((t.id, n.clone(), ty(shape)));
                (n, ty(shape))
            }
            Node::Param {
                name,
                input,
                output,
                init,
                seed,
            } => {
                if let Some((n, typ)) = self.params.get(name) {
                    (n.clone(), typ.clone())
                } else {
                    let fresh = self.fresh();
                    let shape = match (input, output) {
                        (None, None) => "?".to_string(),
                        (Some(i), None) => format!("{}->...", row(i)),
                        (None, Some(o)) => format!("...->{}", row(o)),
                        (Some(i), Some(o)) => format!("{}->{}", row(i), row(o)),
                    };
                    let typ = ty(&shape);
                    let mut attrs = format!("name = \"{name}\"");
                    if let Some(init) = init {
                        attrs += &format!(", init = \"{init}\"");
                    }
                    if let Some(seed) = seed {
                        attrs += &format!(", seed = {seed} : i64");
                    }
                    self.lines.push(format!(
                        "  {fresh} = \"ocannl_shape.param\"() {{{attrs}}} : () -> {typ}"
                    ));
                    self.params
                        .insert(name.clone(), (fresh.clone(), typ.clone()));
                    (fresh, typ)
                }
            }
            Node::Number(x) => {
                let fresh = self.fresh();
                self.lines.push(format!(
                    "  {fresh} = \"ocannl_shape.constant\"() {{value = {x:.17e} : f32}} : () -> {unknown}"
                ));
                (fresh, unknown)
            }
            Node::Op(op, xs) => {
                let ops: Vec<(String, String)> = xs
                    .iter()
                    .map(|x| {
                        self.value(x);
                        self.typed(x)
                    })
                    .collect();
                let fresh = self.fresh();
                let kind = match op {
                    NumOp::Unary(_) => "pointwise_unary",
                    NumOp::Binary(_) => "pointwise_binary",
                    NumOp::Ternary(_) => "pointwise_ternary",
                };
                self.lines.push(format!(
                    "  {fresh} = \"ocannl_shape.{kind}\"({}) {{op = \"{}\"}} : ({}) -> {unknown}",
                    ops.iter()
                        .map(|o| o.0.clone())
                        .collect::<Vec<_>>()
                        .join(", "),
                    op.name(),
                    ops.iter()
                        .map(|o| o.1.clone())
                        .collect::<Vec<_>>()
                        .join(", "),
                ));
                (fresh, unknown)
            }
            Node::Compose(a, b) => {
                self.value(a);
                self.value(b);
                let ((an, at), (bn, bt)) = (self.typed(a), self.typed(b));
                let fresh = self.fresh();
                self.lines.push(format!(
                    "  {fresh} = \"ocannl_shape.compose\"({an}, {bn}) : ({at}, {bt}) -> {unknown}"
                ));
                (fresh, unknown)
            }
            Node::Einsum(spec, xs) => {
                let ops: Vec<(String, String)> = xs
                    .iter()
                    .map(|x| {
                        self.value(x);
                        self.typed(x)
                    })
                    .collect();
                let fresh = self.fresh();
                self.lines.push(format!(
                    "  {fresh} = \"ocannl_shape.einsum\"({}) {{spec = \"{spec}\"}} : ({}) -> {unknown}",
                    ops.iter().map(|o| o.0.clone()).collect::<Vec<_>>().join(", "),
                    ops.iter().map(|o| o.1.clone()).collect::<Vec<_>>().join(", "),
                ));
                (fresh, unknown)
            }
            Node::Transpose(x) => {
                self.value(x);
                let (xn, xt) = self.typed(x);
                let fresh = self.fresh();
                self.lines.push(format!(
                    "  {fresh} = \"ocannl_shape.transpose\"({xn}) : ({xt}) -> {unknown}"
                ));
                (fresh, unknown)
            }
        };
        if let (Some(mode), Some(last)) = (&t.memory, self.lines.last_mut()) {
            if last.trim_start().starts_with(&name) {
                *last = pin_line(last, mode);
            }
        }
        self.names.insert(t.id, name.clone());
        self.types.insert(t.id, typ);
        name
    }

    fn function(mut self, name: &str, results: &[String]) -> String {
        self.args.sort_by_key(|a| a.0);
        let args: Vec<String> = self
            .args
            .iter()
            .map(|(_, n, t)| format!("{n}: {t}"))
            .collect();
        let rtypes: Vec<String> = results
            .iter()
            .map(|r| {
                self.names
                    .iter()
                    .find(|(_, n)| *n == r)
                    .map(|(id, _)| self.types[id].clone())
                    .unwrap_or_else(|| ty("?"))
            })
            .collect();
        format!(
            "func.func @{name}({}) -> ({}) {{\n{}\n  return {} : {}\n}}\n",
            args.join(", "),
            rtypes.join(", "),
            self.lines.join("\n"),
            results.join(", "),
            rtypes.join(", ")
        )
    }
}

/// A name usable as an SSA value name.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_memory_modes_reach_the_module() {
        let x = data("x", "4|3");
        let w = param("w").output(&[2]);
        let h = (w * x).memory("local");
        let y = relu(&h).memory("materialized");
        let text = Tensor::module("f", &[&y]);
        let compose = text
            .lines()
            .find(|l| l.contains("ocannl_shape.compose"))
            .unwrap();
        assert!(
            compose.contains(r#") {ocannl.memory = "local"} : ("#),
            "{text}"
        );
        assert!(
            text.contains(r#"{ocannl.memory = "materialized", op = "relu"}"#),
            "{text}"
        );
    }
}
