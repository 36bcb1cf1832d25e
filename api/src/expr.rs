//! Tensor expressions: [`Tensor`], the [`Param`] declarations, data,
//! numbers, the operators and the functions over them.

use std::{
    cell::Cell,
    ops::{Add, Deref, Mul, Neg, Sub},
    rc::Rc,
    sync::atomic::{AtomicUsize, Ordering},
};

use ocannl_assign::virtualize::Memory;
use ocannl_ops::{Accum, BinaryOp, NumOp, TernaryOp, UnaryOp};
use ocannl_shape_dialect::ParamInit;

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

/// A param's declaration: its name and what is given of its dims and
/// initialization.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ParamDecl {
    pub name: String,
    pub input: Option<Vec<u64>>,
    pub output: Option<Vec<u64>>,
    pub init: Option<ParamInit>,
    pub seed: Option<i64>,
    pub generator: Option<ocannl_ops::Generator>,
}

#[derive(Debug)]
pub(crate) enum Node {
    Param(Rc<ParamDecl>),
    Data {
        name: String,
        shape: String,
    },
    /// An `index` argument (a position along a batch axis).
    IndexArg {
        name: String,
    },
    /// The batch slice of a tensor at an index argument.
    BatchSlice(Tensor, Tensor),
    Number(f64),
    /// A named dimension's solution as a number (a scalar).
    Dim(String),
    /// A constant of a given shape: one value in every cell, or the cells
    /// in memory order.
    Constant {
        shape: String,
        cells: Cells,
    },
    Op(NumOp, Vec<Tensor>),
    Compose(Tensor, Tensor),
    Einsum(Einsum, Vec<Tensor>),
    Transpose(Tensor),
    /// The tensor itself, with a constraint on the function's named
    /// dimensions written beside it.
    Constrained(Tensor, Constraint),
}

/// A constraint on named dimensions (OCANNL's `Shape.set_dim`,
/// `Shape.set_equal`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Constraint {
    SetDim(String, u64),
    SetEqual(String, String),
}

/// The cells of a constant.
#[derive(Clone, Debug)]
pub(crate) enum Cells {
    Fill(f64),
    Values(Vec<f64>),
}

/// An einsum's spec, and its accumulation and op when they are not the
/// defaults (a sum; `identity` of one operand, `mul` of two).
#[derive(Clone, Debug)]
pub(crate) struct Einsum {
    pub spec: String,
    pub accum: Option<Accum>,
    pub op: Option<NumOp>,
    /// Labels of the spec that are the function's named dimensions.
    pub capture: Vec<String>,
}

impl Node {
    /// The tensors this node computes from, in order.
    pub(crate) fn operands(&self) -> Vec<&Tensor> {
        match self {
            Node::Param(_)
            | Node::Data { .. }
            | Node::IndexArg { .. }
            | Node::Number(_)
            | Node::Dim(_)
            | Node::Constant { .. } => {
                vec![]
            }
            Node::Op(_, xs) | Node::Einsum(_, xs) => xs.iter().collect(),
            Node::Compose(a, b) | Node::BatchSlice(a, b) => vec![a, b],
            Node::Transpose(x) | Node::Constrained(x, _) => vec![x],
        }
    }

    /// The node's operands, moved out (the node keeps none).
    fn take_operands(&mut self) -> Vec<Tensor> {
        match std::mem::replace(self, Node::Number(0.0)) {
            Node::Op(_, xs) | Node::Einsum(_, xs) => xs,
            Node::Compose(a, b) | Node::BatchSlice(a, b) => vec![a, b],
            Node::Transpose(x) | Node::Constrained(x, _) => vec![x],
            other => {
                *self = other;
                vec![]
            }
        }
    }
}

/// A node and the memory mode pinned on it (shared by every handle).
#[derive(Debug)]
pub(crate) struct Shared {
    pub id: usize,
    pub node: Node,
    pub memory: Cell<Option<Memory>>,
}

/// Dropping an expression frees the nodes only it holds one by one, not by
/// recursion, so that a long chain (a deep network unrolled) cannot
/// overflow the stack.
impl Drop for Shared {
    fn drop(&mut self) {
        let mut pending = self.node.take_operands();
        while let Some(t) = pending.pop() {
            if let Ok(mut shared) = Rc::try_unwrap(t.0) {
                pending.extend(shared.node.take_operands());
            }
        }
    }
}

/// A tensor expression (cheap to clone: expressions share their parts).
#[derive(Clone, Debug)]
pub struct Tensor(pub(crate) Rc<Shared>);

impl Tensor {
    fn new(node: Node) -> Tensor {
        Tensor(Rc::new(Shared {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            node,
            memory: Cell::new(None),
        }))
    }

    pub(crate) fn id(&self) -> usize {
        self.0.id
    }

    pub(crate) fn node(&self) -> &Node {
        &self.0.node
    }

    /// Pins the memory mode of this tensor's node, which `ocannl-virtualize`
    /// then keeps instead of deciding it: e.g. [`Memory::Local`] keeps a
    /// buffer for it. The node is pinned for every handle of it (clones
    /// included; the last pin counts). Params and results are always
    /// materialized, and data are arguments: a pin on them changes nothing.
    pub fn memory(self, mode: Memory) -> Tensor {
        self.0.memory.set(Some(mode));
        self
    }

    /// This tensor, with the named dimension `name` set to `value` in the
    /// function it is part of: a dimension captured by an einsum
    /// ([`einsum_capturing`]) or named in a shape becomes `value`; a row's
    /// dimensions multiply to `value` (OCANNL's `Shape.set_dim`). Shape
    /// inference solves it with the rest and reports a conflict as a
    /// shape error. The constraint holds wherever the tensor is used.
    pub fn set_dim(&self, name: &str, value: u64) -> Tensor {
        Tensor::new(Node::Constrained(
            self.clone(),
            Constraint::SetDim(name.into(), value),
        ))
    }

    /// This tensor, with the named dimensions `a` and `b` equal: two
    /// dimensions, or two rows (the same axes); a dimension and a row: the
    /// row's dimensions multiply to the dimension (OCANNL's
    /// `Shape.set_equal`).
    pub fn set_equal(&self, a: &str, b: &str) -> Tensor {
        Tensor::new(Node::Constrained(
            self.clone(),
            Constraint::SetEqual(a.into(), b.into()),
        ))
    }
}

impl AsRef<Tensor> for Tensor {
    fn as_ref(&self) -> &Tensor {
        self
    }
}

/// A param as it is declared: a tensor (it derefs to one and converts into
/// one) whose dims and initialization may be given. Params with the same
/// name are the same param: their declarations merge (what one gives and
/// another does not applies), and two that give different dims,
/// initializations or seeds are an error of [`Tensor::module`].
#[derive(Clone, Debug)]
pub struct Param {
    decl: Rc<ParamDecl>,
    tensor: Tensor,
}

impl Param {
    fn new(decl: ParamDecl) -> Param {
        let decl = Rc::new(decl);
        Param {
            tensor: Tensor::new(Node::Param(decl.clone())),
            decl,
        }
    }

    /// A new declaration: this one with `f` applied.
    fn with(&self, f: impl FnOnce(&mut ParamDecl)) -> Param {
        let mut d = (*self.decl).clone();
        f(&mut d);
        Param::new(d)
    }

    /// The param's name (its `name` attribute, and how
    /// [`Trainer::param`](crate::Trainer::param) finds it).
    pub fn name(&self) -> &str {
        &self.decl.name
    }

    /// Sets the output dims (the other dims stay inferred).
    pub fn output(self, dims: &[u64]) -> Param {
        self.with(|d| d.output = Some(dims.to_vec()))
    }

    /// Sets the input dims.
    pub fn input(self, dims: &[u64]) -> Param {
        self.with(|d| d.input = Some(dims.to_vec()))
    }

    /// How the param is initialized (by default [`ParamInit::Uniform`],
    /// OCANNL's: uniform in ±0.25).
    pub fn init(self, how: ParamInit) -> Param {
        self.with(|d| d.init = Some(how))
    }

    /// The seed of the initialization (by default one derived from the
    /// name).
    pub fn seed(self, seed: i64) -> Param {
        self.with(|d| d.seed = Some(seed))
    }

    /// The counter-based generator of the initialization (by default
    /// SplitMix64; `Generator::Threefry`: Threefry-4x32-20).
    pub fn generator(self, generator: ocannl_ops::Generator) -> Param {
        self.with(|d| d.generator = Some(generator))
    }
}

impl Deref for Param {
    type Target = Tensor;
    fn deref(&self) -> &Tensor {
        &self.tensor
    }
}

impl AsRef<Tensor> for Param {
    fn as_ref(&self) -> &Tensor {
        &self.tensor
    }
}

impl From<Param> for Tensor {
    fn from(p: Param) -> Tensor {
        p.tensor
    }
}

impl From<&Param> for Tensor {
    fn from(p: &Param) -> Tensor {
        p.tensor.clone()
    }
}

impl From<&Tensor> for Tensor {
    fn from(t: &Tensor) -> Tensor {
        t.clone()
    }
}

/// A number, as [`number`].
impl From<f64> for Tensor {
    fn from(x: f64) -> Tensor {
        number(x)
    }
}

/// A param, trained and initialized by the module; its name (any string but
/// the empty one, which the verifier rejects) is how it is found again.
pub fn param(name: &str) -> Param {
    Param::new(ParamDecl {
        name: name.into(),
        input: None,
        output: None,
        init: None,
        seed: None,
        generator: None,
    })
}

/// Data fed at each call, with its shape (`"10|2"`: a batch of 10 rows of
/// 2; `"2"`: one row). Data are the function's arguments in order of
/// creation: two data are two arguments, whatever their names (any string,
/// the empty one included; the name is the argument's location, which
/// diagnostics show).
pub fn data(name: &str, shape: &str) -> Tensor {
    Tensor::new(Node::Data {
        name: name.into(),
        shape: shape.into(),
    })
}

/// An index fed at each call: an `index` argument of the function, in
/// order of creation with the data. It selects a position along a batch
/// axis ([`Tensor::batch_slice`]): e.g. a whole dataset kept as one data
/// input of shape `"batches,batch|features"`, and the index of the batch a
/// step trains on.
#[derive(Clone, Debug)]
pub struct Index(pub(crate) Tensor);

/// An index argument (its name is its location, which diagnostics show).
pub fn index(name: &str) -> Index {
    Index(Tensor::new(Node::IndexArg { name: name.into() }))
}

impl Tensor {
    /// The slice of this tensor at position `i` of its first batch axis:
    /// that axis removed (OCANNL's `@|`). An index outside the axis is an
    /// error when the function runs, naming the index and the axis.
    pub fn batch_slice(&self, i: &Index) -> Tensor {
        Tensor::new(Node::BatchSlice(self.clone(), i.0.clone()))
    }
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

/// `x` itself, through which no gradient flows: backprop treats it as a
/// constant (OCANNL's `stop_gradient`, JAX's `lax.stop_gradient`,
/// PyTorch's `detach`).
pub fn stop_gradient(x: &Tensor) -> Tensor {
    unary(UnaryOp::StopGradient, x)
}

/// The error function, cell by cell.
pub fn erf(x: &Tensor) -> Tensor {
    unary(UnaryOp::Erf, x)
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

/// A generalized einsum (`"...|i; i->j => ...|j"`) of one or two tensors:
/// the product of two operands (a single operand's cells as they are),
/// summed over the axes the result does not name.
pub fn einsum(spec: &str, operands: &[&Tensor]) -> Tensor {
    einsum_node(spec, None, None, operands)
}

/// The named dimension `name` (captured by an einsum, or named in a
/// shape) as a number: a dimension's size, a row's total elements, once
/// shape inference has solved it (OCANNL's `dim`, `embed_dim`). A scalar:
/// `sum / dim("d")` is a mean over the captured row `..d..`.
pub fn dim(name: &str) -> Tensor {
    Tensor::new(Node::Dim(name.into()))
}

/// [`einsum`], with labels of its spec captured (OCANNL's `capture_dims`):
/// `i` a dimension label, `r` a row variable `..r..` (`batch`, `input`,
/// `output` for `...` in that row). A captured name is the function's
/// named dimension (several einsums capturing one name share it):
/// [`Tensor::set_dim`] and [`Tensor::set_equal`] constrain it, and
/// [`Tensor::named_dims`] reads its solution.
pub fn einsum_capturing(spec: &str, capture: &[&str], operands: &[&Tensor]) -> Tensor {
    let t = einsum_node(spec, None, None, operands);
    let Node::Einsum(e, xs) = &t.0.node else {
        unreachable!("an einsum node")
    };
    Tensor::new(Node::Einsum(
        Einsum {
            capture: capture.iter().map(|c| c.to_string()).collect(),
            ..e.clone()
        },
        xs.clone(),
    ))
}

/// An einsum with its accumulation and op given: `accum` combines the
/// values of one result cell (`Accum::Max` for a max-reduction, OCANNL's
/// `@^^`), `op` computes each value from the operands' cells (a unary op
/// of one operand, a binary op of two; the verifier checks the arity).
pub fn einsum_with(spec: &str, accum: Accum, op: impl Into<NumOp>, operands: &[&Tensor]) -> Tensor {
    einsum_node(spec, Some(accum), Some(op.into()), operands)
}

fn einsum_node(
    spec: &str,
    accum: Option<Accum>,
    op: Option<NumOp>,
    operands: &[&Tensor],
) -> Tensor {
    Tensor::new(Node::Einsum(
        Einsum {
            spec: spec.into(),
            accum,
            op,
            capture: vec![],
        },
        operands.iter().map(|t| (*t).clone()).collect(),
    ))
}

/// A constant of shape `shape` with `value` in every cell.
pub fn full(shape: &str, value: f64) -> Tensor {
    Tensor::new(Node::Constant {
        shape: shape.into(),
        cells: Cells::Fill(value),
    })
}

/// A constant of shape `shape` whose cells, in memory order (batch, output,
/// input; row-major), are `values`; the verifier checks that their number
/// is the shape's.
pub fn constant(shape: &str, values: &[f64]) -> Tensor {
    Tensor::new(Node::Constant {
        shape: shape.into(),
        cells: Cells::Values(values.to_vec()),
    })
}

/// A constant of the concrete shape `shape` (`"2|3->4"`) whose cells hold
/// their own positions, `0, 1, ..., n-1` in memory order (OCANNL's
/// `range_of_shape`). Fails on a shape that does not parse or is not
/// concrete (a variable, `...`).
pub fn range_of_shape(shape: &str) -> Result<Tensor, crate::Error> {
    use ocannl_shape::{notation::AxisSpec, parse_slot, Context, Kind};
    let slot = parse_slot(shape, Context::Shape)
        .map_err(|e| crate::Error::Invalid(format!("range_of_shape: {e}")))?;
    let mut cells = 1u64;
    for kind in Kind::ALL {
        let row = slot.row(kind);
        if row.var.is_some() {
            return Err(crate::Error::Invalid(format!(
                "range_of_shape: the shape \"{shape}\" has a row variable; give every axis its size"
            )));
        }
        for a in row.axes() {
            let AxisSpec::Size { size, .. } = a else {
                return Err(crate::Error::Invalid(format!(
                    "range_of_shape: the shape \"{shape}\" has an axis of unknown size; give every axis its size"
                )));
            };
            cells = cells
                .checked_mul(*size)
                .filter(|&c| c <= 1 << 32)
                .ok_or_else(|| {
                    crate::Error::Invalid(format!("range_of_shape: \"{shape}\" has too many cells"))
                })?;
        }
    }
    let values: Vec<f64> = (0..cells).map(|i| i as f64).collect();
    Ok(constant(shape, &values))
}

/// `0, 1, ..., n-1` along one output axis (shape `"n"`): compared with
/// class ids it makes one-hot rows ([`one_hot`]).
pub fn iota(n: u64) -> Tensor {
    let values: Vec<f64> = (0..n).map(|i| i as f64).collect();
    constant(&n.to_string(), &values)
}

/// `1` where `a < b`, else `0`, pointwise with broadcasting.
pub fn lt(a: &Tensor, b: &Tensor) -> Tensor {
    binary(BinaryOp::Lt, a, b)
}

/// `1` where `a == b`, else `0`.
pub fn eq(a: &Tensor, b: &Tensor) -> Tensor {
    binary(BinaryOp::Eq, a, b)
}

/// `1` where `a != b`, else `0`.
pub fn ne(a: &Tensor, b: &Tensor) -> Tensor {
    binary(BinaryOp::Ne, a, b)
}

/// `a` where `cond` is not 0, else `b` (OCANNL's `where`).
pub fn where_(cond: &Tensor, a: &Tensor, b: &Tensor) -> Tensor {
    ternary(TernaryOp::Where, cond, a, b)
}

/// The larger of `a` and `b` (NaN if either is), pointwise.
pub fn maximum(a: &Tensor, b: &Tensor) -> Tensor {
    binary(BinaryOp::Max, a, b)
}

/// The smaller of `a` and `b` (NaN if either is), pointwise.
pub fn minimum(a: &Tensor, b: &Tensor) -> Tensor {
    binary(BinaryOp::Min, a, b)
}

/// One-hot rows of class ids: `ids` (one id per row, in a last output
/// axis of size 1, e.g. shape `"B|1"`) compared with `0..classes`, giving
/// `"B|classes"` of 0 and 1.
pub fn one_hot(ids: &Tensor, classes: u64) -> Tensor {
    eq(ids, &iota(classes))
}

/// Swaps the input and output rows.
pub fn transpose(x: &Tensor) -> Tensor {
    Tensor::new(Node::Transpose(x.clone()))
}

/// The sum of every cell (a tensor of one cell).
pub fn sum(x: &Tensor) -> Tensor {
    einsum("...|...->... => 0", &[x])
}

fn add(a: &Tensor, b: &Tensor) -> Tensor {
    binary(BinaryOp::Add, a, b)
}

fn sub(a: &Tensor, b: &Tensor) -> Tensor {
    binary(BinaryOp::Sub, a, b)
}

/// `*` is compose, as in OCANNL; with a number (or a named dimension) it
/// scales pointwise.
fn mul(a: &Tensor, b: &Tensor) -> Tensor {
    match (a.node(), b.node()) {
        (Node::Number(_) | Node::Dim(_), _) | (_, Node::Number(_) | Node::Dim(_)) => pointmul(a, b),
        _ => Tensor::new(Node::Compose(a.clone(), b.clone())),
    }
}

/// An operator between tensors, params (owned or borrowed) and numbers, on
/// either side.
macro_rules! binop {
    ($tr:ident, $method:ident, $build:ident) => {
        binop!(@lhs $tr, $method, $build, Tensor, &Tensor, Param, &Param);
        binop!(@number $tr, $method, $build, Tensor, &Tensor, Param, &Param);
    };
    (@lhs $tr:ident, $method:ident, $build:ident, $($lhs:ty),*) => {$(
        impl<R: Into<Tensor>> $tr<R> for $lhs {
            type Output = Tensor;
            fn $method(self, rhs: R) -> Tensor {
                $build(&Tensor::from(self), &rhs.into())
            }
        }
    )*};
    (@number $tr:ident, $method:ident, $build:ident, $($rhs:ty),*) => {$(
        impl $tr<$rhs> for f64 {
            type Output = Tensor;
            fn $method(self, rhs: $rhs) -> Tensor {
                $build(&number(self), &Tensor::from(rhs))
            }
        }
    )*};
}

binop!(Add, add, add);
binop!(Sub, sub, sub);
binop!(Mul, mul, mul);

macro_rules! neg {
    ($($t:ty),*) => {$(
        impl Neg for $t {
            type Output = Tensor;
            fn neg(self) -> Tensor {
                unary(UnaryOp::Neg, &Tensor::from(self))
            }
        }
    )*};
}

neg!(Tensor, &Tensor, Param, &Param);
