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
    /// A constant of value `x` (`-0.0` and `0.0` are distinct constants:
    /// exact rewrites tell them apart).
    pub fn new(x: f64) -> Constant {
        Constant(x.to_bits())
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
        "erf" = Erf([Id; 1]),
        "not" = Not([Id; 1]),
        "stop_gradient" = StopGradient([Id; 1]),
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

/// The floating-point format a computation runs in: constants fold to
/// values of that format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    F16,
    BF16,
    F32,
    #[default]
    F64,
}

impl Precision {
    /// The format of an MLIR float type name (`f16`, `bf16`, `f32`, `f64`).
    pub fn from_name(name: &str) -> Option<Precision> {
        Some(match name {
            "f16" => Precision::F16,
            "bf16" => Precision::BF16,
            "f32" => Precision::F32,
            "f64" => Precision::F64,
            _ => return None,
        })
    }

    /// `x` rounded to the nearest value of the format (ties to even;
    /// beyond the largest finite value, an infinity).
    pub fn round(self, x: f64) -> f64 {
        // Significand bits (the implicit one included), least normal
        // exponent, largest exponent.
        let (p, emin, emax) = match self {
            Precision::F64 => return x,
            Precision::F32 => return x as f32 as f64,
            Precision::F16 => (11, -14, 15),
            Precision::BF16 => (8, -126, 127),
        };
        if !x.is_finite() || x == 0.0 {
            return x;
        }
        let biased = ((x.to_bits() >> 52) & 0x7ff) as i32;
        let e = biased - 1023;
        let q = e.max(emin) - (p - 1);
        let pow2 = |k: i32| f64::from_bits(((k + 1023) as u64) << 52);
        let r = (x * pow2(-q)).round_ties_even() * pow2(q);
        if r.abs() >= pow2(emax + 1) {
            f64::INFINITY.copysign(x)
        } else {
            r
        }
    }

    /// Whether folding `op` in f64 and rounding once to this format gives
    /// what the op computes in the format: the correctly rounded ops (a
    /// fused multiply-add only in f64; f64 has enough bits for the others
    /// of the narrower formats to round once), not library functions.
    pub fn folds_exactly(self, op: NumOp) -> bool {
        use ocannl_ops::{BinaryOp as B, TernaryOp as T, UnaryOp as U};
        match op {
            NumOp::Unary(u) => matches!(u, U::Identity | U::Neg | U::Sqrt | U::Recip),
            NumOp::Binary(b) => matches!(
                b,
                B::Add | B::Sub | B::Mul | B::Div | B::Max | B::Min | B::Mod
            ),
            NumOp::Ternary(t) => t == T::Fma && self == Precision::F64,
        }
    }
}

/// Constant folding: a class whose value is known holds that constant.
/// Results are rounded to `precision`; with `exact`, only the ops whose
/// folding is exact in that format fold ([`Precision::folds_exactly`]).
/// The default folds every op in f64 (OCANNL's simplifier).
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstFold {
    pub precision: Precision,
    pub exact: bool,
}

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
                let op = num_op(op)?;
                let ConstFold { precision, exact } = egraph.analysis;
                if exact && !precision.folds_exactly(op) {
                    return None;
                }
                let xs = xs?;
                // `max`/`min` of zeros of both signs: IEEE's maximum is +0 and
                // minimum -0, the vocabulary's either.
                if exact
                    && matches!(op, NumOp::Binary(BinaryOp::Max | BinaryOp::Min))
                    && xs.iter().all(|x| *x == 0.0)
                    && xs[0].to_bits() != xs[1].to_bits()
                {
                    return None;
                }
                let v = precision.round(op.eval(&xs)?);
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
