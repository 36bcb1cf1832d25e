//! The `ocannl_shape` module of tensor expressions, as text.
//!
//! The writer owns every SSA name (`%argN` for data, `%N` for op results);
//! nothing a user writes becomes one. User strings (names, shapes, einsum
//! specs, the function's name) are written only as MLIR string literals,
//! through [`string_literal`], the one place that escapes. A param's name
//! is its `name` attribute; params' and data's names are also their
//! locations (`loc("NAME")`), so diagnostics name them. Each op keeps its
//! attributes as a list, printed once at the end.

use std::{collections::HashMap, fmt};

use ocannl_ops::NumOp;

use crate::{
    expr::{Cells, Constraint, Node, ParamDecl, Tensor},
    Error, ParamInit,
};

/// Two declarations of one param as one: each part given by either, and
/// the same where both give it.
fn merge(a: &ParamDecl, b: &ParamDecl) -> Result<ParamDecl, Error> {
    fn part<T: Clone + PartialEq + fmt::Debug>(
        name: &str,
        what: &str,
        a: &Option<T>,
        b: &Option<T>,
    ) -> Result<Option<T>, Error> {
        match (a, b) {
            (Some(x), Some(y)) if x != y => Err(Error::Invalid(format!(
                "param '{name}' is declared twice with different {what}: {x:?} and {y:?}"
            ))),
            _ => Ok(a.clone().or_else(|| b.clone())),
        }
    }
    Ok(ParamDecl {
        name: a.name.clone(),
        input: part(&a.name, "input dims", &a.input, &b.input)?,
        output: part(&a.name, "output dims", &a.output, &b.output)?,
        init: part(&a.name, "initializations", &a.init, &b.init)?,
        seed: part(&a.name, "seeds", &a.seed, &b.seed)?,
        generator: part(&a.name, "generators", &a.generator, &b.generator)?,
    })
}

/// `s` as an MLIR string literal: printable ASCII as is, with `"` and `\`
/// escaped, and every other byte (controls, UTF-8 beyond ASCII) as `\XX`;
/// MLIR reads it back as exactly the bytes of `s`.
pub(crate) fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\{b:02X}")),
        }
    }
    out.push('"');
    out
}

/// The string an MLIR string literal at the start of `text` holds (the
/// inverse of [`string_literal`], and of MLIR's printer: `\\`, `\"`,
/// `\n`, `\t` and `\XX` in hex), and the text after it; `None` when
/// `text` does not start with a well-formed literal.
pub(crate) fn read_string_literal(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let bytes = body.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some((String::from_utf8(out).ok()?, &body[i + 1..])),
            b'\\' => {
                let (b, len) = match bytes.get(i + 1)? {
                    b'\\' => (b'\\', 2),
                    b'"' => (b'"', 2),
                    b'n' => (b'\n', 2),
                    b't' => (b'\t', 2),
                    _ => {
                        let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                        (u8::from_str_radix(hex, 16).ok()?, 3)
                    }
                };
                out.push(b);
                i += len;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// `!ocannl_shape.tensor<"SHAPE", f32>`.
fn tensor_type(shape: &str) -> String {
    format!("!ocannl_shape.tensor<{}, f32>", string_literal(shape))
}

/// An attribute value.
enum Attr {
    Str(String),
    /// A float written as `f32`.
    F32(f64),
    /// A float written as `f64` (finite).
    F64(f64),
    /// f32 cells in memory order: a dense literal of one axis.
    Dense(Vec<f64>),
    I64(i64),
    /// An array of strings.
    Strs(Vec<String>),
}

/// An f32 literal: decimal for what f32 holds; infinities and NaN (which
/// have no decimal literal) as the f32's bits.
fn f32_literal(x: f64) -> String {
    if (x as f32).is_finite() {
        format!("{x:.17e}")
    } else {
        format!("0x{:08X}", (x as f32).to_bits())
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attr::Str(s) => f.write_str(&string_literal(s)),
            Attr::F32(x) => write!(f, "{} : f32", f32_literal(*x)),
            Attr::F64(x) => write!(f, "{x:.17e} : f64"),
            Attr::Dense(v) => write!(
                f,
                "dense<[{}]> : tensor<{}xf32>",
                v.iter()
                    .map(|&x| f32_literal(x))
                    .collect::<Vec<_>>()
                    .join(", "),
                v.len()
            ),
            Attr::I64(i) => write!(f, "{i} : i64"),
            Attr::Strs(v) => write!(
                f,
                "[{}]",
                v.iter()
                    .map(|s| string_literal(s))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// A value of the function: an argument (its index in [`Writer::args`],
/// in the order the writer met them) or an op's result.
#[derive(Clone, Copy)]
enum Value {
    Arg(usize),
    Op(usize),
}

/// A data argument.
struct Arg {
    /// The data's creation order: arguments are sorted by it.
    id: usize,
    name: String,
    /// A tensor's shape; `None` for an index.
    shape: Option<String>,
}

struct Op {
    name: &'static str,
    operands: Vec<Value>,
    attrs: Vec<(&'static str, Attr)>,
    /// The result's shape.
    shape: String,
    /// A name for diagnostics (`loc("NAME")`).
    loc: Option<String>,
}

impl Op {
    fn new(name: &'static str, operands: Vec<Value>) -> Op {
        Op {
            name,
            operands,
            attrs: vec![],
            shape: "?".into(),
            loc: None,
        }
    }

    fn attr(mut self, name: &'static str, value: Attr) -> Op {
        self.set(name, value);
        self
    }

    /// Sets an attribute (replacing one of the same name).
    fn set(&mut self, name: &'static str, value: Attr) {
        match self.attrs.iter_mut().find(|(n, _)| *n == name) {
            Some(a) => a.1 = value,
            None => self.attrs.push((name, value)),
        }
    }
}

/// Writes one function: each node once, data as arguments.
#[derive(Default)]
struct Writer {
    args: Vec<Arg>,
    ops: Vec<Op>,
    /// Tensors written, by id.
    values: HashMap<usize, Value>,
    /// Params by name: their op, and their declarations merged.
    params: HashMap<String, (Value, ParamDecl)>,
    /// Constraints on named dimensions (`set_dim`, `set_equal`), each once,
    /// written after the ops.
    constraints: Vec<Constraint>,
}

fn row(dims: &[u64]) -> String {
    dims.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

impl Writer {
    fn op(&mut self, op: Op) -> Value {
        self.ops.push(op);
        Value::Op(self.ops.len() - 1)
    }

    /// The MLIR type of a value: a tensor of its shape, or `index`.
    fn type_of(&self, v: Value) -> String {
        match v {
            Value::Arg(k) => self.args[k]
                .shape
                .as_deref()
                .map_or_else(|| "index".to_string(), tensor_type),
            Value::Op(i) => tensor_type(&self.ops[i].shape),
        }
    }

    /// Writes `root` and what it computes from, each node once, operands
    /// first. The walk keeps its own stack: a long chain cannot overflow
    /// the thread's.
    fn value(&mut self, root: &Tensor) -> Result<Value, Error> {
        let mut stack: Vec<(Tensor, bool)> = vec![(root.clone(), false)];
        while let Some((t, operands_written)) = stack.pop() {
            if self.values.contains_key(&t.id()) {
                continue;
            }
            if operands_written {
                let v = self.node(&t)?;
                self.values.insert(t.id(), v);
                continue;
            }
            stack.push((t.clone(), true));
            for x in t.node().operands().into_iter().rev() {
                if !self.values.contains_key(&x.id()) {
                    stack.push((x.clone(), false));
                }
            }
        }
        Ok(self.values[&root.id()])
    }

    /// The values of written tensors.
    fn written(&self, ts: &[&Tensor]) -> Vec<Value> {
        ts.iter().map(|t| self.values[&t.id()]).collect()
    }

    /// Writes one node whose operands are written.
    fn node(&mut self, t: &Tensor) -> Result<Value, Error> {
        let operands = self.written(&t.node().operands());
        let v = match t.node() {
            Node::Data { name, shape } => {
                self.args.push(Arg {
                    id: t.id(),
                    name: name.clone(),
                    shape: Some(shape.clone()),
                });
                Value::Arg(self.args.len() - 1)
            }
            Node::IndexArg { name } => {
                self.args.push(Arg {
                    id: t.id(),
                    name: name.clone(),
                    shape: None,
                });
                Value::Arg(self.args.len() - 1)
            }
            Node::BatchSlice(..) => self.op(Op::new("ocannl_shape.batch_slice", operands)),
            Node::Param(d) => {
                // Declarations of one name are merged: what one gives and
                // another does not applies; what two give must agree.
                let (v, decl) = match self.params.get(&d.name) {
                    Some((v, first)) => (Some(*v), merge(first, d)?),
                    None => (None, (**d).clone()),
                };
                let v = v.unwrap_or_else(|| self.op(Op::new("ocannl_shape.param", vec![])));
                let Value::Op(i) = v else {
                    unreachable!("a param is an op")
                };
                let op = &mut self.ops[i];
                op.set("name", Attr::Str(decl.name.clone()));
                if let Some(init) = decl.init {
                    op.set("init", Attr::Str(init.name().into()));
                    if let ParamInit::Constant { value } = init {
                        if !value.is_finite() {
                            return Err(Error::Invalid(format!(
                                "param '{}': a constant initialization must be a finite number, not {value}",
                                decl.name
                            )));
                        }
                        op.set("value", Attr::F64(value));
                    }
                    if let ParamInit::Normal { std } = init {
                        if !(std.is_finite() && std >= 0.0) {
                            return Err(Error::Invalid(format!(
                                "param '{}': the standard deviation of a normal initialization must be a number at least 0, not {std}",
                                decl.name
                            )));
                        }
                        op.set("std", Attr::F64(std));
                    }
                }
                if let Some(seed) = decl.seed {
                    op.set("seed", Attr::I64(seed));
                }
                if let Some(g) = decl.generator {
                    op.set("generator", Attr::Str(g.name().into()));
                }
                op.shape = match (&decl.input, &decl.output) {
                    (None, None) => "?".to_string(),
                    (Some(i), None) => format!("{}->...", row(i)),
                    (None, Some(o)) => format!("...->{}", row(o)),
                    (Some(i), Some(o)) => format!("{}->{}", row(i), row(o)),
                };
                op.loc = Some(decl.name.clone());
                self.params.insert(decl.name.clone(), (v, decl));
                v
            }
            Node::Number(x) => {
                // A scalar (0-d), which broadcasts where it is used, as a
                // number does in PyTorch and numpy: of unknown shape it
                // would close to what it broadcasts to, and a layer norm's
                // `var + eps` would be computed for every cell of a row.
                let mut op = Op::new("ocannl_shape.constant", vec![]).attr("value", Attr::F32(*x));
                op.shape = String::new();
                self.op(op)
            }
            Node::Op(num, _) => {
                let kind = match num {
                    NumOp::Unary(_) => "ocannl_shape.pointwise_unary",
                    NumOp::Binary(_) => "ocannl_shape.pointwise_binary",
                    NumOp::Ternary(_) => "ocannl_shape.pointwise_ternary",
                };
                let op = Op::new(kind, operands).attr("op", Attr::Str(num.name().into()));
                self.op(op)
            }
            Node::Compose(..) => self.op(Op::new("ocannl_shape.compose", operands)),
            Node::Einsum(e, _) => {
                let mut op = Op::new("ocannl_shape.einsum", operands)
                    .attr("spec", Attr::Str(e.spec.clone()));
                if let Some(num) = e.op {
                    op.set("op", Attr::Str(num.name().into()));
                }
                if let Some(accum) = e.accum {
                    op.set("accum", Attr::Str(accum.name().into()));
                }
                if !e.capture.is_empty() {
                    op.set("capture", Attr::Strs(e.capture.clone()));
                }
                self.op(op)
            }
            Node::Constrained(_, c) => {
                if let Constraint::SetDim(name, value) = c {
                    if *value == 0 || i64::try_from(*value).is_err() {
                        return Err(Error::Invalid(format!(
                            "set_dim('{name}', {value}): a dimension must be at least 1 and at most {}",
                            i64::MAX
                        )));
                    }
                }
                if !self.constraints.contains(c) {
                    self.constraints.push(c.clone());
                }
                operands[0]
            }
            Node::Dim(name) => {
                let mut op =
                    Op::new("ocannl_shape.dim", vec![]).attr("ref", Attr::Str(name.clone()));
                op.shape = String::new();
                self.op(op)
            }
            Node::Constant { shape, cells } => {
                let value = match cells {
                    Cells::Fill(x) => Attr::F32(*x),
                    Cells::Values(v) => Attr::Dense(v.clone()),
                };
                let mut op = Op::new("ocannl_shape.constant", vec![]).attr("value", value);
                op.shape = shape.clone();
                self.op(op)
            }
            Node::Transpose(_) => self.op(Op::new("ocannl_shape.transpose", operands)),
        };
        if let (Some(mode), Value::Op(i)) = (t.0.memory.get(), v) {
            self.ops[i].set("ocannl.memory", Attr::Str(mode.name().into()));
        }
        Ok(v)
    }

    /// The function `@name` returning `results`.
    fn function(self, name: &str, results: &[Value]) -> String {
        // Arguments in creation order.
        let mut order: Vec<usize> = (0..self.args.len()).collect();
        order.sort_by_key(|&k| self.args[k].id);
        let mut position = vec![0; self.args.len()];
        for (p, &k) in order.iter().enumerate() {
            position[k] = p;
        }
        let ssa = |v: Value| match v {
            Value::Arg(k) => format!("%arg{}", position[k]),
            Value::Op(i) => format!("%{i}"),
        };
        let list = |vs: &mut dyn Iterator<Item = String>| vs.collect::<Vec<_>>().join(", ");
        let loc = |name: &str| {
            if name.is_empty() {
                String::new()
            } else {
                format!(" loc({})", string_literal(name))
            }
        };
        let args = list(&mut order.iter().map(|&k| {
            let a = &self.args[k];
            format!(
                "%arg{}: {}{}",
                position[k],
                self.type_of(Value::Arg(k)),
                loc(&a.name)
            )
        }));
        let result_types = list(&mut results.iter().map(|&v| self.type_of(v)));
        let mut out = format!(
            "func.func @{}({args}) -> ({result_types}) {{\n",
            string_literal(name)
        );
        for (i, op) in self.ops.iter().enumerate() {
            let attrs = if op.attrs.is_empty() {
                String::new()
            } else {
                format!(
                    " {{{}}}",
                    list(&mut op.attrs.iter().map(|(n, a)| format!("{n} = {a}")))
                )
            };
            out += &format!(
                "  %{i} = \"{}\"({}){attrs} : ({}) -> {}{}\n",
                op.name,
                list(&mut op.operands.iter().map(|&v| ssa(v))),
                list(&mut op.operands.iter().map(|&v| self.type_of(v))),
                tensor_type(&op.shape),
                op.loc.as_deref().map(loc).unwrap_or_default(),
            );
        }
        for c in &self.constraints {
            let attrs = match c {
                Constraint::SetDim(name, value) => (
                    "set_dim",
                    format!(
                        "ref = {}, value = {}",
                        string_literal(name),
                        Attr::I64(*value as i64)
                    ),
                ),
                Constraint::SetEqual(a, b) => (
                    "set_equal",
                    format!("lhs = {}, rhs = {}", string_literal(a), string_literal(b)),
                ),
            };
            out += &format!(
                "  \"ocannl_shape.{}\"() {{{}}} : () -> ()\n",
                attrs.0, attrs.1
            );
        }
        if results.is_empty() {
            out += "  return\n}\n";
        } else {
            out += &format!(
                "  return {} : {result_types}\n}}\n",
                list(&mut results.iter().map(|&v| ssa(v)))
            );
        }
        out
    }
}

impl Tensor {
    /// The `ocannl_shape` module of one function `@name` returning these
    /// tensors (data are its arguments, in order of creation). Fails when
    /// one param name is declared twice differently.
    pub fn module(name: &str, results: &[&Tensor]) -> Result<String, Error> {
        let mut w = Writer::default();
        let results: Vec<Value> = results
            .iter()
            .map(|t| w.value(t))
            .collect::<Result<_, _>>()?;
        Ok(w.function(name, &results))
    }
}
