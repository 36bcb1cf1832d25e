//! Index expressions: affine expressions of an assignment's iterators and
//! symbols, with their ranges over an iteration space.

use std::fmt;

/// An affine expression of iterators (`d`) and symbols (`s`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Affine {
    Const(i64),
    Dim(usize),
    Sym(usize),
    Add(Box<Affine>, Box<Affine>),
    Mul(Box<Affine>, Box<Affine>),
    Mod(Box<Affine>, Box<Affine>),
    FloorDiv(Box<Affine>, Box<Affine>),
    CeilDiv(Box<Affine>, Box<Affine>),
}

impl Affine {
    /// The value at iterators `dims` and symbols `syms`; `None` when an
    /// iterator or symbol is missing, on overflow and on division by zero.
    pub fn eval(&self, dims: &[i64], syms: &[i64]) -> Option<i64> {
        Some(match self {
            Affine::Const(c) => *c,
            Affine::Dim(i) => *dims.get(*i)?,
            Affine::Sym(i) => *syms.get(*i)?,
            Affine::Add(a, b) => a.eval(dims, syms)?.checked_add(b.eval(dims, syms)?)?,
            Affine::Mul(a, b) => a.eval(dims, syms)?.checked_mul(b.eval(dims, syms)?)?,
            Affine::Mod(a, b) => a
                .eval(dims, syms)?
                .checked_rem_euclid(b.eval(dims, syms)?)?,
            Affine::FloorDiv(a, b) => a
                .eval(dims, syms)?
                .checked_div_euclid(b.eval(dims, syms)?)?,
            Affine::CeilDiv(a, b) => {
                let (x, y) = (a.eval(dims, syms)?, b.eval(dims, syms)?);
                x.checked_neg()?.checked_div_euclid(y)?.checked_neg()?
            }
        })
    }
}

/// MLIR's affine syntax: `d0 * 2 + d1 - 1`, `s0`, `d0 floordiv 2`.
impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Affine::Const(c) => write!(f, "{c}"),
            Affine::Dim(d) => write!(f, "d{d}"),
            Affine::Sym(s) => write!(f, "s{s}"),
            Affine::Add(a, b) => match **b {
                Affine::Const(c) if c < 0 => write!(f, "{a} - {}", c.unsigned_abs()),
                _ => write!(f, "{a} + {b}"),
            },
            Affine::Mul(a, b) => write!(f, "{} * {}", Paren(a), Paren(b)),
            Affine::Mod(a, b) => write!(f, "{} mod {}", Paren(a), Paren(b)),
            Affine::FloorDiv(a, b) => write!(f, "{} floordiv {}", Paren(a), Paren(b)),
            Affine::CeilDiv(a, b) => write!(f, "{} ceildiv {}", Paren(a), Paren(b)),
        }
    }
}

/// An operand of a product or division: parenthesized when it is a sum.
struct Paren<'a>(&'a Affine);

impl fmt::Display for Paren<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Affine::Add(..) => write!(f, "({})", self.0),
            e => write!(f, "{e}"),
        }
    }
}

impl Affine {
    /// `coeff * d`, as simple as it can be written (`d` for 1).
    pub fn scaled(coeff: u64, d: usize) -> Affine {
        if coeff == 1 {
            Affine::Dim(d)
        } else {
            Affine::Mul(
                Box::new(Affine::Dim(d)),
                Box::new(Affine::Const(coeff as i64)),
            )
        }
    }

    /// `a + b`.
    pub fn sum(a: Affine, b: Affine) -> Affine {
        Affine::Add(Box::new(a), Box::new(b))
    }

    /// Whether the expression is one iterator, a constant or a symbol (not
    /// a combination of iterators).
    pub fn is_simple(&self) -> bool {
        matches!(self, Affine::Dim(_) | Affine::Const(_) | Affine::Sym(_))
    }

    /// Whether some leaf (iterator, symbol or constant) satisfies `f`.
    pub fn any_leaf(&self, f: &dyn Fn(&Affine) -> bool) -> bool {
        match self {
            Affine::Const(_) | Affine::Dim(_) | Affine::Sym(_) => f(self),
            Affine::Add(a, b)
            | Affine::Mul(a, b)
            | Affine::Mod(a, b)
            | Affine::FloorDiv(a, b)
            | Affine::CeilDiv(a, b) => a.any_leaf(f) || b.any_leaf(f),
        }
    }

    /// The expression with each leaf (iterator, symbol or constant)
    /// replaced by `f` of it.
    pub fn map_leaves(&self, f: &dyn Fn(&Affine) -> Affine) -> Affine {
        let b = |e: &Affine| Box::new(e.map_leaves(f));
        match self {
            Affine::Const(_) | Affine::Dim(_) | Affine::Sym(_) => f(self),
            Affine::Add(x, y) => Affine::Add(b(x), b(y)),
            Affine::Mul(x, y) => Affine::Mul(b(x), b(y)),
            Affine::Mod(x, y) => Affine::Mod(b(x), b(y)),
            Affine::FloorDiv(x, y) => Affine::FloorDiv(b(x), b(y)),
            Affine::CeilDiv(x, y) => Affine::CeilDiv(b(x), b(y)),
        }
    }

    /// Whether the expression depends on iterator `d`.
    pub fn mentions(&self, d: usize) -> bool {
        self.any_leaf(&|e| *e == Affine::Dim(d))
    }

    /// Whether the expression depends on a symbol (a run-time index).
    pub fn has_sym(&self) -> bool {
        self.any_leaf(&|e| matches!(e, Affine::Sym(_)))
    }

    /// Whether an operand's index may leave its axis by design: a compound
    /// expression of iterators (a padded convolution's `o + k - p`). Such a
    /// read outside the buffer yields the padding value, the neutral element
    /// of the assignment's accumulation (0 for sums of products, -inf for
    /// max-pooling). Plain iterators, fixed indices and slice symbols never
    /// leave their axis in a valid program.
    pub fn is_padded(&self) -> bool {
        !matches!(self, Affine::Dim(_) | Affine::Const(_)) && !self.has_sym()
    }

    /// The smallest and largest values over an iteration space, when known
    /// (no symbols; divisions and remainders by positive constants; no
    /// overflow).
    pub fn range(&self, space: &[u64]) -> Option<(i64, i64)> {
        let konst = |e: &Affine| match e {
            Affine::Const(c) => Some(*c),
            _ => None,
        };
        Some(match self {
            Affine::Const(c) => (*c, *c),
            Affine::Dim(d) => (0, i64::try_from(*space.get(*d)?).ok()? - 1),
            Affine::Sym(_) => return None,
            Affine::Add(a, b) => {
                let ((a0, a1), (b0, b1)) = (a.range(space)?, b.range(space)?);
                (a0.checked_add(b0)?, a1.checked_add(b1)?)
            }
            Affine::Mul(a, b) => {
                let (x, c) = match (konst(a), konst(b)) {
                    (_, Some(c)) => (a, c),
                    (Some(c), _) => (b, c),
                    _ => return None,
                };
                let (x0, x1) = x.range(space)?;
                let (y0, y1) = (x0.checked_mul(c)?, x1.checked_mul(c)?);
                (y0.min(y1), y0.max(y1))
            }
            Affine::Mod(a, b) => {
                let c = konst(b).filter(|&c| c > 0)?;
                let (x0, x1) = a.range(space)?;
                if x0 >= 0 && x1 < c {
                    (x0, x1)
                } else {
                    (0, c - 1)
                }
            }
            Affine::FloorDiv(a, b) | Affine::CeilDiv(a, b) => {
                let c = konst(b).filter(|&c| c > 0)?;
                let (x0, x1) = a.range(space)?;
                if matches!(self, Affine::FloorDiv(..)) {
                    (x0.div_euclid(c), x1.div_euclid(c))
                } else {
                    let ceil = |x: i64| x.checked_neg()?.checked_div_euclid(c)?.checked_neg();
                    (ceil(x0)?, ceil(x1)?)
                }
            }
        })
    }
}
