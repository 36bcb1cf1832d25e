//! The scalar computation of an accumulating assignment: what one point of
//! the iteration space computes from the elements it reads.
//!
//! A one-op assignment (`accum_binop {op = "mul"}`) computes one numeric op
//! of its operands; an assignment with a region body (`ocannl_assign.accum`)
//! computes a straight-line program of `arith`/`math` ops. Both are a
//! [`Body`]: instructions in order, each reading operands (`Arg(k)`, the
//! element of the `k`-th buffer read) or earlier instructions. The numeric
//! ops of the vocabulary are instructions; so are the `arith` primitives
//! that some of them expand to in MLIR (comparisons, selections, boolean
//! `and`/`or`), so that a body read back from MLIR is a body again. Values
//! are `f64`; booleans are 1.0 and 0.0.
//!
//! Inlining (virtualization) substitutes a producer's body for an operand of
//! a consumer's body ([`Body::substitute`]).

use std::fmt;

use ocannl_ops::{BinaryOp, NumOp, UnaryOp};

/// `arith.cmpf`'s predicates, by their MLIR code (`CmpFPredicate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CmpPred(pub u8);

impl CmpPred {
    pub const OEQ: CmpPred = CmpPred(1);
    pub const OGT: CmpPred = CmpPred(2);
    pub const OGE: CmpPred = CmpPred(3);
    pub const OLT: CmpPred = CmpPred(4);
    pub const UNE: CmpPred = CmpPred(13);
    /// Unordered: either operand is NaN.
    pub const UNO: CmpPred = CmpPred(14);

    const NAMES: [&'static str; 16] = [
        "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
        "ule", "une", "uno", "true",
    ];

    /// The predicate of a code (`None` beyond 15).
    pub fn from_code(code: i64) -> Option<CmpPred> {
        (0..16).contains(&code).then_some(CmpPred(code as u8))
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self.0 as usize & 15]
    }

    /// The comparison of two floats: ordered predicates are false when an
    /// operand is NaN, unordered ones true.
    pub fn eval(self, x: f64, y: f64) -> bool {
        let nan = x.is_nan() || y.is_nan();
        let (lt, eq, gt) = (x < y, x == y, x > y);
        match self.0 {
            0 => false,
            1 => eq,
            2 => gt,
            3 => gt || eq,
            4 => lt,
            5 => lt || eq,
            6 => lt || gt,
            7 => !nan,
            8 => nan || eq,
            9 => nan || gt,
            10 => nan || gt || eq,
            11 => nan || lt,
            12 => nan || lt || eq,
            13 => nan || !eq,
            14 => nan,
            _ => true,
        }
    }
}

/// One instruction of a body. Operand numbers refer to earlier
/// instructions.
#[derive(Clone, Debug, PartialEq)]
pub enum Instr {
    /// The element read from the `k`-th buffer operand (`rhs[k]`).
    Arg(usize),
    Const(f64),
    /// A numeric op of the vocabulary.
    Op(NumOp, Vec<usize>),
    /// `arith.cmpf`: a boolean.
    Cmp(CmpPred, usize, usize),
    /// `arith.select`: `c ? a : b`, `c` a boolean.
    Select(usize, usize, usize),
    /// `arith.andi` / `arith.ori` of booleans.
    And(usize, usize),
    Or(usize, usize),
}

impl Instr {
    /// The instructions it reads.
    pub fn operands(&self) -> Vec<usize> {
        match self {
            Instr::Arg(_) | Instr::Const(_) => vec![],
            Instr::Op(_, a) => a.clone(),
            Instr::Cmp(_, a, b) | Instr::And(a, b) | Instr::Or(a, b) => vec![*a, *b],
            Instr::Select(c, a, b) => vec![*c, *a, *b],
        }
    }

    /// The same instruction reading `f(i)` instead of each operand `i`.
    pub fn map_operands(&self, f: impl Fn(usize) -> usize) -> Instr {
        match self {
            Instr::Arg(_) | Instr::Const(_) => self.clone(),
            Instr::Op(o, a) => Instr::Op(*o, a.iter().map(|&i| f(i)).collect()),
            Instr::Cmp(p, a, b) => Instr::Cmp(*p, f(*a), f(*b)),
            Instr::And(a, b) => Instr::And(f(*a), f(*b)),
            Instr::Or(a, b) => Instr::Or(f(*a), f(*b)),
            Instr::Select(c, a, b) => Instr::Select(f(*c), f(*a), f(*b)),
        }
    }

    /// Whether the instruction's value is a boolean.
    pub fn is_bool(&self) -> bool {
        matches!(self, Instr::Cmp(..) | Instr::And(..) | Instr::Or(..))
    }
}

/// A straight-line scalar program: its value is instruction `result`'s.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub instrs: Vec<Instr>,
    pub result: usize,
}

impl From<NumOp> for Body {
    /// The body of a one-op assignment: `op(x0, ..., xn-1)`.
    fn from(op: NumOp) -> Body {
        let n = op.arity();
        let mut instrs: Vec<Instr> = (0..n).map(Instr::Arg).collect();
        instrs.push(Instr::Op(op, (0..n).collect()));
        Body { instrs, result: n }
    }
}

impl Body {
    /// A constant.
    pub fn constant(c: f64) -> Body {
        Body {
            instrs: vec![Instr::Const(c)],
            result: 0,
        }
    }

    /// The numeric op when the body is one op applied to the operands in
    /// order (the form of `accum_unop|binop|ternop`).
    pub fn as_op(&self) -> Option<NumOp> {
        let Instr::Op(op, args) = self.instrs.get(self.result)? else {
            return None;
        };
        let n = op.arity();
        let in_order = args
            .iter()
            .enumerate()
            .all(|(k, &a)| self.instrs.get(a) == Some(&Instr::Arg(k)));
        (in_order && self.operand_count() == n).then_some(*op)
    }

    /// Whether its value depends on the `k`-th buffer operand.
    pub fn reads(&self, k: usize) -> bool {
        self.instrs
            .iter()
            .zip(self.live())
            .any(|(i, live)| live && *i == Instr::Arg(k))
    }

    /// The number of buffer operands it reads (one more than the largest
    /// `Arg`).
    pub fn operand_count(&self) -> usize {
        self.instrs
            .iter()
            .filter_map(|i| match i {
                Instr::Arg(k) => Some(k + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The number of instructions that compute (neither operands nor
    /// constants), counting only those the result depends on.
    pub fn cost(&self) -> usize {
        self.live()
            .iter()
            .zip(&self.instrs)
            .filter(|(l, i)| **l && !matches!(i, Instr::Arg(_) | Instr::Const(_)))
            .count()
    }

    /// What computing the result costs, in units of a cheap arithmetic op
    /// (an add, a multiply, a comparison, a select: 1), counting only the
    /// instructions the result depends on: a division, a square root or a
    /// reciprocal counts [`DIVISION_COST`], a transcendental function or a
    /// power [`TRANSCENDENTAL_COST`] (vectorized polynomials of about as
    /// many ops), as XLA's fusion counts its "expensive" ops.
    pub fn weighted_cost(&self) -> u64 {
        self.live()
            .iter()
            .zip(&self.instrs)
            .filter(|(l, _)| **l)
            .map(|(_, i)| match i {
                Instr::Arg(_) | Instr::Const(_) => 0,
                Instr::Op(op, _) => op_cost(*op),
                Instr::Cmp(..) | Instr::Select(..) | Instr::And(..) | Instr::Or(..) => 1,
            })
            .sum()
    }

    /// Which instructions the result depends on.
    fn live(&self) -> Vec<bool> {
        let mut live = vec![false; self.instrs.len()];
        if self.result < live.len() {
            live[self.result] = true;
        }
        for i in (0..self.instrs.len()).rev() {
            if live[i] {
                for o in self.instrs[i].operands() {
                    if o < live.len() {
                        live[o] = true;
                    }
                }
            }
        }
        live
    }

    /// Whether the body is a constant (reads nothing and computes nothing
    /// but constants) or a copy of one operand.
    pub fn is_trivial(&self) -> bool {
        matches!(
            self.instrs.get(self.result),
            Some(Instr::Const(_) | Instr::Arg(_))
        ) || self.as_op() == Some(NumOp::Unary(UnaryOp::Identity))
    }

    /// Checks that operands refer to earlier instructions, that booleans
    /// and numbers are not mixed up, and that the result is a number.
    pub fn check(&self) -> Result<(), crate::Invalid> {
        self.check_text().map_err(crate::Invalid)
    }

    /// The same, the reason as text.
    fn check_text(&self) -> Result<(), String> {
        let num = |i: usize, at: usize| -> Result<(), String> {
            match self.instrs.get(i) {
                Some(x) if i < at && !x.is_bool() => Ok(()),
                Some(_) if i < at => Err(format!("instruction {at} reads boolean {i} as a number")),
                _ => Err(format!(
                    "instruction {at} reads {i}, which is not before it"
                )),
            }
        };
        let boolean = |i: usize, at: usize| -> Result<(), String> {
            match self.instrs.get(i) {
                Some(x) if i < at && x.is_bool() => Ok(()),
                _ => Err(format!(
                    "instruction {at} reads {i}, which is not an earlier boolean"
                )),
            }
        };
        for (at, ins) in self.instrs.iter().enumerate() {
            match ins {
                Instr::Arg(_) | Instr::Const(_) => {}
                Instr::Op(op, a) => {
                    if a.len() != op.arity() {
                        return Err(format!(
                            "instruction {at}: the {} op '{op}' applied to {} operand(s)",
                            op.arity(),
                            a.len()
                        ));
                    }
                    for &x in a {
                        num(x, at)?;
                    }
                }
                Instr::Cmp(_, a, b) => {
                    num(*a, at)?;
                    num(*b, at)?;
                }
                Instr::And(a, b) | Instr::Or(a, b) => {
                    boolean(*a, at)?;
                    boolean(*b, at)?;
                }
                Instr::Select(c, a, b) => {
                    boolean(*c, at)?;
                    num(*a, at)?;
                    num(*b, at)?;
                }
            }
        }
        num(self.result, self.instrs.len())
    }

    /// The value for operand elements `args`, with `scratch` reused across
    /// calls (`None` when an operand is missing).
    pub fn eval_with(&self, args: &[f64], scratch: &mut Vec<f64>) -> Option<f64> {
        scratch.clear();
        let truth = |b: bool| if b { 1.0 } else { 0.0 };
        for ins in &self.instrs {
            let v = match ins {
                Instr::Arg(k) => *args.get(*k)?,
                Instr::Const(c) => *c,
                Instr::Op(op, a) => {
                    let xs: [f64; 3] = std::array::from_fn(|j| {
                        a.get(j)
                            .and_then(|&i| scratch.get(i))
                            .copied()
                            .unwrap_or(0.0)
                    });
                    op.eval(&xs[..a.len()])?
                }
                Instr::Cmp(p, a, b) => truth(p.eval(*scratch.get(*a)?, *scratch.get(*b)?)),
                Instr::Select(c, a, b) => {
                    if *scratch.get(*c)? != 0.0 {
                        *scratch.get(*a)?
                    } else {
                        *scratch.get(*b)?
                    }
                }
                Instr::And(a, b) => truth(*scratch.get(*a)? != 0.0 && *scratch.get(*b)? != 0.0),
                Instr::Or(a, b) => truth(*scratch.get(*a)? != 0.0 || *scratch.get(*b)? != 0.0),
            };
            scratch.push(v);
        }
        scratch.get(self.result).copied()
    }

    pub fn eval(&self, args: &[f64]) -> Option<f64> {
        self.eval_with(args, &mut Vec::new())
    }

    /// The body with operand `k` replaced by the value of `inner` (whose
    /// operand `j` becomes operand `first + j`), in the caller's new operand
    /// order: operand `i` other than `k` becomes `renumber(i)`.
    pub fn substitute(
        &self,
        k: usize,
        inner: &Body,
        renumber: impl Fn(usize) -> usize,
        first: usize,
    ) -> Body {
        let mut out: Vec<Instr> = vec![];
        // Where each instruction of `self` went.
        let mut at: Vec<usize> = Vec::with_capacity(self.instrs.len());
        let mut inner_result: Option<usize> = None;
        for ins in &self.instrs {
            let new = match ins {
                Instr::Arg(i) if *i == k => {
                    let r = match inner_result {
                        Some(r) => r,
                        None => {
                            let base = out.len();
                            for x in &inner.instrs {
                                out.push(match x {
                                    Instr::Arg(j) => Instr::Arg(first + j),
                                    other => other.map_operands(|o| o + base),
                                });
                            }
                            let r = base + inner.result;
                            inner_result = Some(r);
                            r
                        }
                    };
                    at.push(r);
                    continue;
                }
                Instr::Arg(i) => Instr::Arg(renumber(*i)),
                other => other.map_operands(|o| at[o]),
            };
            at.push(out.len());
            out.push(new);
        }
        Body {
            result: at[self.result],
            instrs: out,
        }
    }

    /// The same computation without identity ops, repeated operand reads
    /// and instructions the result does not depend on.
    pub fn cleaned(&self) -> Body {
        let live = self.live();
        let mut out: Vec<Instr> = vec![];
        let mut at: Vec<usize> = Vec::with_capacity(self.instrs.len());
        let mut args: Vec<(usize, usize)> = vec![];
        for (i, ins) in self.instrs.iter().enumerate() {
            if !live[i] {
                at.push(usize::MAX);
                continue;
            }
            let new = match ins {
                Instr::Op(NumOp::Unary(UnaryOp::Identity), a) => {
                    at.push(at[a[0]]);
                    continue;
                }
                Instr::Arg(k) => {
                    if let Some(&(_, j)) = args.iter().find(|(kk, _)| kk == k) {
                        at.push(j);
                        continue;
                    }
                    args.push((*k, out.len()));
                    Instr::Arg(*k)
                }
                other => other.map_operands(|o| at[o]),
            };
            at.push(out.len());
            out.push(new);
        }
        Body {
            result: at[self.result],
            instrs: out,
        }
    }

    /// `old accum v` as a body reading `v` from this one: the value a cell
    /// holds after one accumulation into `old`.
    pub fn accumulated_onto(&self, old: f64, combiner: BinaryOp) -> Body {
        let mut instrs = self.instrs.clone();
        instrs.push(Instr::Const(old));
        let c = instrs.len() - 1;
        instrs.push(Instr::Op(NumOp::Binary(combiner), vec![c, self.result]));
        Body {
            result: instrs.len() - 1,
            instrs,
        }
    }
}

impl fmt::Display for Body {
    /// `x0 = arg 0; x1 = mul(x0, x0); -> x1`, for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, ins) in self.instrs.iter().enumerate() {
            let a = |v: &[usize]| {
                v.iter()
                    .map(|x| format!("%{x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            match ins {
                Instr::Arg(k) => write!(f, "%{i} = arg {k}; ")?,
                Instr::Const(c) => write!(f, "%{i} = {c}; ")?,
                Instr::Op(o, v) => write!(f, "%{i} = {o}({}); ", a(v))?,
                Instr::Cmp(p, x, y) => write!(f, "%{i} = cmpf {}({}); ", p.name(), a(&[*x, *y]))?,
                Instr::Select(c, x, y) => write!(f, "%{i} = select({}); ", a(&[*c, *x, *y]))?,
                Instr::And(x, y) => write!(f, "%{i} = and({}); ", a(&[*x, *y]))?,
                Instr::Or(x, y) => write!(f, "%{i} = or({}); ", a(&[*x, *y]))?,
            }
        }
        write!(f, "-> %{}", self.result)
    }
}

/// The cost of a division, square root or reciprocal in
/// [`Body::weighted_cost`].
pub const DIVISION_COST: u64 = 4;
/// The cost of a transcendental function or a power in
/// [`Body::weighted_cost`].
pub const TRANSCENDENTAL_COST: u64 = 16;

fn op_cost(op: NumOp) -> u64 {
    use ocannl_ops::{BinaryOp as B, TernaryOp as T, UnaryOp as U};
    match op {
        NumOp::Unary(U::Identity | U::Relu | U::Satur01 | U::Neg | U::Not | U::StopGradient) => 1,
        NumOp::Unary(U::Sqrt | U::Recip | U::RecipSqrt) => DIVISION_COST,
        NumOp::Unary(U::Exp | U::Log | U::Exp2 | U::Log2 | U::Sin | U::Cos | U::Tanh | U::Erf) => {
            TRANSCENDENTAL_COST
        }
        NumOp::Binary(B::Div | B::Mod) => DIVISION_COST,
        NumOp::Binary(B::Pow) => TRANSCENDENTAL_COST,
        NumOp::Binary(
            B::Add
            | B::Sub
            | B::Mul
            | B::ReluGate
            | B::Satur01Gate
            | B::Max
            | B::Min
            | B::Lt
            | B::Eq
            | B::Ne
            | B::And
            | B::Or,
        ) => 1,
        NumOp::Ternary(T::Where | T::Fma) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ocannl_ops::TernaryOp;

    fn op(a: usize, name: &str) -> NumOp {
        NumOp::parse(a, name).unwrap()
    }

    #[test]
    fn one_op_bodies_round_trip() {
        for o in [op(1, "relu"), op(2, "sub"), NumOp::Ternary(TernaryOp::Fma)] {
            let b = Body::from(o);
            assert_eq!(b.as_op(), Some(o));
            assert_eq!(b.operand_count(), o.arity());
            b.check().unwrap();
        }
        assert_eq!(Body::constant(2.0).as_op(), None);
    }

    #[test]
    fn substitution_inlines_a_producer() {
        // consumer: x0 - x1; producer of operand 1: relu(y0) * y1.
        let consumer = Body::from(op(2, "sub"));
        let producer = Body {
            instrs: vec![
                Instr::Arg(0),
                Instr::Op(op(1, "relu"), vec![0]),
                Instr::Arg(1),
                Instr::Op(op(2, "mul"), vec![1, 2]),
            ],
            result: 3,
        };
        // New operands: consumer's x0 stays 0, producer's go to 1 and 2.
        let b = consumer.substitute(1, &producer, |i| i, 1);
        b.check().unwrap();
        assert_eq!(b.operand_count(), 3);
        for (x0, y0, y1) in [(1.0, -2.0, 3.0), (5.0, 2.0, 3.0)] {
            let want = x0 - f64::max(y0, 0.0) * y1;
            assert_eq!(b.eval(&[x0, y0, y1]), Some(want));
        }
        // A body reading the substituted operand twice computes it once.
        let square = Body {
            instrs: vec![
                Instr::Arg(0),
                Instr::Arg(0),
                Instr::Op(op(2, "mul"), vec![0, 1]),
            ],
            result: 2,
        };
        let s = square.substitute(0, &producer, |i| i, 0);
        assert_eq!(s.cost(), 3);
        assert_eq!(s.eval(&[3.0, 2.0]), Some(36.0));
    }

    #[test]
    fn primitives_evaluate_as_arith_does() {
        // relu_gate(x, g) as MLIR writes it: select(cmpf ogt x 0, g, 0).
        let b = Body {
            instrs: vec![
                Instr::Arg(0),
                Instr::Const(0.0),
                Instr::Cmp(CmpPred::OGT, 0, 1),
                Instr::Arg(1),
                Instr::Select(2, 3, 1),
            ],
            result: 4,
        };
        b.check().unwrap();
        assert_eq!(b.eval(&[2.0, 7.0]), Some(7.0));
        assert_eq!(b.eval(&[-2.0, 7.0]), Some(0.0));
        assert!(CmpPred::UNE.eval(f64::NAN, 1.0));
        assert!(!CmpPred::OEQ.eval(f64::NAN, f64::NAN));
        let bad = Body {
            instrs: vec![Instr::Arg(0), Instr::Select(0, 0, 0)],
            result: 1,
        };
        assert!(bad.check().is_err());
    }

    #[test]
    fn cleaning_drops_identities_and_dead_code() {
        // tanh(identity(x0)) with a dead exp: the one-op form again.
        let b = Body {
            instrs: vec![
                Instr::Arg(0),
                Instr::Op(op(1, "exp"), vec![0]),
                Instr::Op(op(1, "identity"), vec![0]),
                Instr::Op(op(1, "tanh"), vec![2]),
            ],
            result: 3,
        };
        assert_eq!(b.cleaned().as_op(), Some(op(1, "tanh")));
        // Two reads of one operand become one.
        let sq = Body {
            instrs: vec![
                Instr::Arg(0),
                Instr::Arg(0),
                Instr::Op(op(2, "mul"), vec![0, 1]),
            ],
            result: 2,
        };
        let c = sq.cleaned();
        assert_eq!(c.instrs.len(), 2);
        assert_eq!(c.eval(&[3.0]), Some(9.0));
    }

    #[test]
    fn accumulation_onto_an_initial_value() {
        let b = Body::from(op(1, "identity")).accumulated_onto(0.0, BinaryOp::Sub);
        assert_eq!(b.eval(&[3.0]), Some(-3.0));
    }
}
