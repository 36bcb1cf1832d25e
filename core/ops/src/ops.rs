//! The numeric ops of tensor expressions and assignments (OCANNL's `unop`,
//! `binop`, ternary ops and accumulations), with their f64 semantics.
//!
//! Each op has one name in the `ocannl_shape` dialect ([`UnaryOp::name`],
//! ...). The `ocannl_assign` dialect uses OCANNL's assignment-level names,
//! which differ only for the comparisons (`lt` is `cmplt` there):
//! [`BinaryOp::assign_name`]. Comparisons and logic ops compute 1.0 for true
//! and 0.0 for false; a nonzero operand is true.

use std::fmt;

macro_rules! op_enum {
    ($(#[$m:meta])* $name:ident, $what:literal { $($(#[$vm:meta])* $v:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $v),* }

        impl $name {
            /// Every op of this kind, in the table's order.
            pub const ALL: &'static [$name] = &[$($name::$v),*];
            /// What this kind of op is called in messages.
            pub const WHAT: &'static str = $what;

            /// The op's name in the `ocannl_shape` dialect.
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s),* }
            }

            /// The op of a name in the `ocannl_shape` dialect.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some($name::$v),)* _ => None }
            }

            /// Every name, comma-separated (for "expected one of" messages).
            pub fn names() -> String {
                Self::ALL.iter().map(|o| o.name()).collect::<Vec<_>>().join(", ")
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

op_enum!(
    /// Unary numeric ops.
    UnaryOp, "unary op" {
        Identity = "identity",
        Relu = "relu",
        /// Clamp to [0, 1].
        Satur01 = "satur01",
        Exp = "exp",
        Log = "log",
        Exp2 = "exp2",
        Log2 = "log2",
        Sin = "sin",
        Cos = "cos",
        Sqrt = "sqrt",
        Recip = "recip",
        RecipSqrt = "recip_sqrt",
        Neg = "neg",
        Tanh = "tanh",
        /// The error function, `2/√π ∫₀ˣ e^(-t²) dt` (GELU's exact form).
        Erf = "erf",
        /// 1 where the operand is 0, else 0.
        Not = "not",
        /// The operand, through which no gradient flows (OCANNL's
        /// `stop_gradient`, JAX's `lax.stop_gradient`, PyTorch's
        /// `detach`).
        StopGradient = "stop_gradient",
    }
);

op_enum!(
    /// Binary numeric ops.
    BinaryOp, "binary op" {
        Add = "add",
        Sub = "sub",
        Mul = "mul",
        Div = "div",
        Pow = "pow",
        /// `x > 0 ? y : 0` (the derivative of relu, gated).
        ReluGate = "relu_gate",
        /// `0 < x < 1 ? y : 0`.
        Satur01Gate = "satur01_gate",
        Max = "max",
        Min = "min",
        /// The remainder with the sign of the dividend (C's `fmod`).
        Mod = "mod",
        Lt = "lt",
        Eq = "eq",
        Ne = "ne",
        And = "and",
        Or = "or",
    }
);

op_enum!(
    /// Ternary numeric ops.
    TernaryOp, "ternary op" {
        /// `c != 0 ? t : e`.
        Where = "where",
        /// `x * y + z` with one rounding.
        Fma = "fma",
    }
);

op_enum!(
    /// The accumulation of an assignment `lhs =accum= value`: `Assign`
    /// overwrites, the others combine the old value with the new one.
    Accum, "accumulation op" {
        Assign = "assign",
        Add = "add",
        Sub = "sub",
        Mul = "mul",
        Div = "div",
        Max = "max",
        Min = "min",
    }
);

/// The larger of two values; NaN if either is NaN (IEEE 754 `maximum`, as
/// the compiled code's `arith.maximumf`: a NaN is never dropped).
fn maximum(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        x.max(y)
    }
}

/// The smaller of two values; NaN if either is NaN (`arith.minimumf`).
fn minimum(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        x.min(y)
    }
}

fn truth(c: bool) -> f64 {
    if c {
        1.0
    } else {
        0.0
    }
}

impl UnaryOp {
    pub fn eval(self, x: f64) -> f64 {
        match self {
            UnaryOp::Identity => x,
            UnaryOp::Relu => maximum(x, 0.0),
            UnaryOp::Satur01 => x.clamp(0.0, 1.0),
            UnaryOp::Exp => x.exp(),
            UnaryOp::Log => x.ln(),
            UnaryOp::Exp2 => x.exp2(),
            UnaryOp::Log2 => x.log2(),
            UnaryOp::Sin => x.sin(),
            UnaryOp::Cos => x.cos(),
            UnaryOp::Sqrt => x.sqrt(),
            UnaryOp::Recip => 1.0 / x,
            UnaryOp::RecipSqrt => 1.0 / x.sqrt(),
            UnaryOp::Neg => -x,
            UnaryOp::Tanh => x.tanh(),
            UnaryOp::Erf => libm::erf(x),
            UnaryOp::Not => truth(x == 0.0),
            UnaryOp::StopGradient => x,
        }
    }
}

impl BinaryOp {
    pub fn eval(self, x: f64, y: f64) -> f64 {
        match self {
            BinaryOp::Add => x + y,
            BinaryOp::Sub => x - y,
            BinaryOp::Mul => x * y,
            BinaryOp::Div => x / y,
            BinaryOp::Pow => x.powf(y),
            BinaryOp::ReluGate => {
                if x > 0.0 {
                    y
                } else {
                    0.0
                }
            }
            BinaryOp::Satur01Gate => {
                if x > 0.0 && x < 1.0 {
                    y
                } else {
                    0.0
                }
            }
            BinaryOp::Max => maximum(x, y),
            BinaryOp::Min => minimum(x, y),
            BinaryOp::Mod => x % y,
            BinaryOp::Lt => truth(x < y),
            BinaryOp::Eq => truth(x == y),
            BinaryOp::Ne => truth(x != y),
            BinaryOp::And => truth(x != 0.0 && y != 0.0),
            BinaryOp::Or => truth(x != 0.0 || y != 0.0),
        }
    }

    /// The op's name in the `ocannl_assign` dialect: OCANNL's assignment
    /// names `cmplt`, `cmpeq`, `cmpne` for the comparisons, else [`name`].
    ///
    /// [`name`]: BinaryOp::name
    pub fn assign_name(self) -> &'static str {
        match self {
            BinaryOp::Lt => "cmplt",
            BinaryOp::Eq => "cmpeq",
            BinaryOp::Ne => "cmpne",
            other => other.name(),
        }
    }

    /// The op of a name in the `ocannl_assign` dialect.
    pub fn parse_assign(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|o| o.assign_name() == s)
    }

    /// Every assignment-level name, comma-separated.
    pub fn assign_names() -> String {
        Self::ALL
            .iter()
            .map(|o| o.assign_name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl TernaryOp {
    pub fn eval(self, x: f64, y: f64, z: f64) -> f64 {
        match self {
            TernaryOp::Where => {
                if x != 0.0 {
                    y
                } else {
                    z
                }
            }
            TernaryOp::Fma => x.mul_add(y, z),
        }
    }
}

impl Accum {
    /// The accumulations that combine (every one but `assign`), as the
    /// `accum` attribute of tensor-level reductions accepts them.
    pub const REDUCING: &'static [Accum] = &[
        Accum::Add,
        Accum::Sub,
        Accum::Mul,
        Accum::Div,
        Accum::Max,
        Accum::Min,
    ];

    /// The accumulation of a tensor-level reduction (`assign` excluded).
    pub fn parse_reducing(s: &str) -> Option<Self> {
        Self::parse(s).filter(|a| *a != Accum::Assign)
    }

    /// Every name of [`Accum::REDUCING`], comma-separated.
    pub fn reducing_names() -> String {
        Self::REDUCING
            .iter()
            .map(|o| o.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The neutral element: the value a result starts from when it is
    /// initialized for accumulation, and the padding value of reads outside
    /// a buffer (0 for sums, 1 for products, -inf for max, +inf for min).
    pub fn neutral(self) -> f64 {
        match self {
            Accum::Mul | Accum::Div => 1.0,
            Accum::Max => f64::NEG_INFINITY,
            Accum::Min => f64::INFINITY,
            Accum::Assign | Accum::Add | Accum::Sub => 0.0,
        }
    }

    /// The binary op combining the old value with the new one (`None` for
    /// `assign`).
    pub fn combiner(self) -> Option<BinaryOp> {
        Some(match self {
            Accum::Assign => return None,
            Accum::Add => BinaryOp::Add,
            Accum::Sub => BinaryOp::Sub,
            Accum::Mul => BinaryOp::Mul,
            Accum::Div => BinaryOp::Div,
            Accum::Max => BinaryOp::Max,
            Accum::Min => BinaryOp::Min,
        })
    }

    pub fn apply(self, old: f64, v: f64) -> f64 {
        match self.combiner() {
            None => v,
            Some(b) => b.eval(old, v),
        }
    }
}

/// A numeric op of any arity: what an assignment computes from its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumOp {
    Unary(UnaryOp),
    Binary(BinaryOp),
    Ternary(TernaryOp),
}

impl From<UnaryOp> for NumOp {
    fn from(op: UnaryOp) -> NumOp {
        NumOp::Unary(op)
    }
}

impl From<BinaryOp> for NumOp {
    fn from(op: BinaryOp) -> NumOp {
        NumOp::Binary(op)
    }
}

impl From<TernaryOp> for NumOp {
    fn from(op: TernaryOp) -> NumOp {
        NumOp::Ternary(op)
    }
}

impl NumOp {
    pub fn arity(self) -> usize {
        match self {
            NumOp::Unary(_) => 1,
            NumOp::Binary(_) => 2,
            NumOp::Ternary(_) => 3,
        }
    }

    /// The op's name in the `ocannl_shape` dialect.
    pub fn name(self) -> &'static str {
        match self {
            NumOp::Unary(o) => o.name(),
            NumOp::Binary(o) => o.name(),
            NumOp::Ternary(o) => o.name(),
        }
    }

    /// The op's name in the `ocannl_assign` dialect.
    pub fn assign_name(self) -> &'static str {
        match self {
            NumOp::Binary(o) => o.assign_name(),
            other => other.name(),
        }
    }

    /// The op of `arity` operands named `s` in the `ocannl_shape` dialect.
    pub fn parse(arity: usize, s: &str) -> Option<Self> {
        match arity {
            1 => UnaryOp::parse(s).map(NumOp::Unary),
            2 => BinaryOp::parse(s).map(NumOp::Binary),
            3 => TernaryOp::parse(s).map(NumOp::Ternary),
            _ => None,
        }
    }

    /// The op of `arity` operands named `s` in the `ocannl_assign` dialect.
    pub fn parse_assign(arity: usize, s: &str) -> Option<Self> {
        match arity {
            2 => BinaryOp::parse_assign(s).map(NumOp::Binary),
            _ => Self::parse(arity, s),
        }
    }

    /// What an op of `arity` operands is called, and its assignment-level
    /// names (for "expected one of" messages).
    pub fn assign_names(arity: usize) -> (&'static str, String) {
        match arity {
            1 => (UnaryOp::WHAT, UnaryOp::names()),
            2 => (BinaryOp::WHAT, BinaryOp::assign_names()),
            _ => (TernaryOp::WHAT, TernaryOp::names()),
        }
    }

    /// The op applied to `args` (`None` when their number is not the arity).
    pub fn eval(self, args: &[f64]) -> Option<f64> {
        Some(match (self, args) {
            (NumOp::Unary(o), [x]) => o.eval(*x),
            (NumOp::Binary(o), [x, y]) => o.eval(*x, *y),
            (NumOp::Ternary(o), [x, y, z]) => o.eval(*x, *y, *z),
            _ => return None,
        })
    }
}

impl fmt::Display for NumOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &o in UnaryOp::ALL {
            assert_eq!(UnaryOp::parse(o.name()), Some(o));
        }
        for &o in BinaryOp::ALL {
            assert_eq!(BinaryOp::parse(o.name()), Some(o));
            assert_eq!(BinaryOp::parse_assign(o.assign_name()), Some(o));
        }
        for &o in TernaryOp::ALL {
            assert_eq!(TernaryOp::parse(o.name()), Some(o));
        }
        for &o in Accum::ALL {
            assert_eq!(Accum::parse(o.name()), Some(o));
        }
        assert_eq!(BinaryOp::parse_assign("lt"), None);
        assert_eq!(BinaryOp::parse("cmplt"), None);
        assert_eq!(Accum::parse_reducing("assign"), None);
        assert_eq!(NumOp::parse(2, "relu"), None);
    }

    #[test]
    fn semantics() {
        let cases: &[(&str, usize, &[f64], f64)] = &[
            ("relu", 1, &[-2.0], 0.0),
            ("satur01", 1, &[1.5], 1.0),
            ("not", 1, &[0.0], 1.0),
            ("not", 1, &[2.0], 0.0),
            ("recip_sqrt", 1, &[4.0], 0.5),
            ("relu_gate", 2, &[1.0, 3.0], 3.0),
            ("relu_gate", 2, &[-1.0, 3.0], 0.0),
            ("satur01_gate", 2, &[0.5, 3.0], 3.0),
            ("satur01_gate", 2, &[1.0, 3.0], 0.0),
            ("mod", 2, &[-7.0, 3.0], -1.0),
            ("lt", 2, &[1.0, 2.0], 1.0),
            ("eq", 2, &[1.0, 2.0], 0.0),
            ("ne", 2, &[1.0, 2.0], 1.0),
            ("and", 2, &[1.0, 0.0], 0.0),
            ("or", 2, &[1.0, 0.0], 1.0),
            ("where", 3, &[0.0, 1.0, 2.0], 2.0),
            ("fma", 3, &[2.0, 3.0, 4.0], 10.0),
        ];
        for (name, arity, args, want) in cases {
            let op = NumOp::parse(*arity, name).unwrap();
            assert_eq!(op.eval(args), Some(*want), "{name}");
        }
        assert_eq!(NumOp::Binary(BinaryOp::Add).eval(&[1.0]), None);
        // A NaN is never dropped by max, min or relu (as `arith.maximumf`).
        for (name, arity, args) in [
            ("max", 2, &[f64::NAN, 1.0][..]),
            ("max", 2, &[1.0, f64::NAN][..]),
            ("min", 2, &[f64::NAN, 1.0][..]),
            ("relu", 1, &[f64::NAN][..]),
            ("satur01", 1, &[f64::NAN][..]),
        ] {
            let op = NumOp::parse(arity, name).unwrap();
            assert!(op.eval(args).unwrap().is_nan(), "{name}{args:?}");
        }
        assert!(Accum::Max.apply(1.0, f64::NAN).is_nan());
    }

    #[test]
    fn accumulations() {
        let from_neutral = [
            (Accum::Add, 5.0),
            (Accum::Sub, -5.0),
            (Accum::Mul, 5.0),
            (Accum::Div, 0.2),
            (Accum::Max, 5.0),
            (Accum::Min, 5.0),
        ];
        for (a, want) in from_neutral {
            assert_eq!(a.apply(a.neutral(), 5.0), want, "{a}");
        }
        assert_eq!(Accum::Max.apply(Accum::Max.neutral(), -5.0), -5.0);
        assert_eq!(Accum::Min.apply(Accum::Min.neutral(), 5.0), 5.0);
        assert_eq!(Accum::Assign.apply(3.0, 4.0), 4.0);
        assert_eq!(Accum::Add.apply(3.0, 4.0), 7.0);
    }
}
