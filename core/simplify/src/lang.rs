//! The language of scalar computations: the op vocabulary's ops (by their
//! `ocannl_shape` names), constants, and operands `x0`, `x1`, ... (the
//! elements an assignment reads).

use std::{fmt, str::FromStr};

use egg::{define_language, Analysis, DidMerge, EGraph, FromOp, Id, Language, Symbol};
use ocannl_ops::{BinaryOp, NumOp, TernaryOp, UnaryOp};

/// An f64 constant, compared and hashed by its bits.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Constant(u64);

impl Constant {
    pub fn new(x: f64) -> Constant {
        // One zero: -0.0 and 0.0 are the same constant for the rules.
        Constant(if x == 0.0 { 0.0f64 } else { x }.to_bits())
    }

    pub fn value(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl fmt::Display for Constant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value())
    }
}

impl FromStr for Constant {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        s.parse::<f64>().map(Constant::new).map_err(|_| ())
    }
}

define_language! {
    /// A scalar computation.
    pub enum Scalar {
        Num(Constant),
        "identity" = Identity([Id; 1]),
        "relu" = Relu([Id; 1]),
        "satur01" = Satur01([Id; 1]),
        "exp" = Exp([Id; 1]),
        "log" = Log([Id; 1]),
        "exp2" = Exp2([Id; 1]),
        "log2" = Log2([Id; 1]),
        "sin" = Sin([Id; 1]),
        "cos" = Cos([Id; 1]),
        "sqrt" = Sqrt([Id; 1]),
        "recip" = Recip([Id; 1]),
        "recip_sqrt" = RecipSqrt([Id; 1]),
        "neg" = Neg([Id; 1]),
        "tanh" = Tanh([Id; 1]),
        "not" = Not([Id; 1]),
        "add" = Add([Id; 2]),
        "sub" = Sub([Id; 2]),
        "mul" = Mul([Id; 2]),
        "div" = Div([Id; 2]),
        "pow" = Pow([Id; 2]),
        "relu_gate" = ReluGate([Id; 2]),
        "satur01_gate" = Satur01Gate([Id; 2]),
        "max" = Max([Id; 2]),
        "min" = Min([Id; 2]),
        "mod" = Mod([Id; 2]),
        "lt" = Lt([Id; 2]),
        "eq" = Eq([Id; 2]),
        "ne" = Ne([Id; 2]),
        "and" = And([Id; 2]),
        "or" = Or([Id; 2]),
        "where" = Where([Id; 3]),
        "fma" = Fma([Id; 3]),
        Arg(Symbol),
    }
}

/// The vocabulary's op of a node (`None` for constants and operands).
pub fn num_op(node: &Scalar) -> Option<NumOp> {
    let name = node.to_string();
    let arity = node.children().len();
    match node {
        Scalar::Num(_) | Scalar::Arg(_) => None,
        _ => NumOp::parse(arity, &name),
    }
}

/// Every op of the vocabulary has a node of the same name (the language
/// cannot drift from `core/ops`).
pub fn covers_vocabulary() -> bool {
    let ids1 = [Id::from(0usize)];
    let ids2 = [Id::from(0usize); 2];
    let ids3 = [Id::from(0usize); 3];
    let unary = UnaryOp::ALL.iter().all(|o| {
        Scalar::from_op(o.name(), ids1.to_vec()).is_ok_and(|n| num_op(&n) == Some(NumOp::Unary(*o)))
    });
    let binary = BinaryOp::ALL.iter().all(|o| {
        Scalar::from_op(o.name(), ids2.to_vec())
            .is_ok_and(|n| num_op(&n) == Some(NumOp::Binary(*o)))
    });
    let ternary = TernaryOp::ALL.iter().all(|o| {
        Scalar::from_op(o.name(), ids3.to_vec())
            .is_ok_and(|n| num_op(&n) == Some(NumOp::Ternary(*o)))
    });
    unary && binary && ternary
}

/// Constant folding: a class whose value is known holds that constant.
#[derive(Default)]
pub struct ConstFold;

impl Analysis<Scalar> for ConstFold {
    type Data = Option<Constant>;

    fn make(egraph: &mut EGraph<Scalar, Self>, enode: &Scalar) -> Self::Data {
        match enode {
            Scalar::Num(c) => Some(*c),
            Scalar::Arg(_) => None,
            op => {
                let xs: Option<Vec<f64>> = op
                    .children()
                    .iter()
                    .map(|&id| egraph[id].data.map(Constant::value))
                    .collect();
                let v = num_op(op)?.eval(&xs?)?;
                // Folding keeps only finite results: an infinity or a NaN
                // from constants is left as written.
                v.is_finite().then(|| Constant::new(v))
            }
        }
    }

    fn merge(&mut self, a: &mut Self::Data, b: Self::Data) -> DidMerge {
        // Two foldings of one class may differ in rounding (constants
        // reassociated): the class keeps the first.
        egg::merge_option(a, b, |_, _| DidMerge(false, false))
    }

    fn modify(egraph: &mut EGraph<Scalar, Self>, id: Id) {
        if let Some(c) = egraph[id].data {
            let k = egraph.add(Scalar::Num(c));
            egraph.union(id, k);
        }
    }
}
