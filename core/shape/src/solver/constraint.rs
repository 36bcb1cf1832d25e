//! The constraints, where they come from, and the shape errors.

use crate::{
    notation::Kind,
    shape::{Dim, Row, Shape},
};

/// What a constraint relates, in words: `text` with `{kind}` replaced by the
/// row kind and `{operand}` by "the operand" or "operand #i". Formatted only
/// when an error is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct What {
    pub text: &'static str,
    pub kind: Option<Kind>,
    /// The operand (0-based) and the number of operands.
    pub operand: Option<(u32, u32)>,
    /// A number for `{n}` (a fixed index).
    pub n: u64,
}

impl What {
    pub const fn text(text: &'static str) -> What {
        What {
            text,
            kind: None,
            operand: None,
            n: 0,
        }
    }
}

impl std::fmt::Display for What {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = self.text.to_string();
        if let Some(k) = self.kind {
            s = s.replace("{kind}", k.name());
        }
        if let Some((i, n)) = self.operand {
            let name = if n == 1 {
                "the operand".to_string()
            } else {
                format!("operand #{i}")
            };
            s = s.replace("{operand}", &name);
        }
        f.write_str(&s.replace("{n}", &self.n.to_string()))
    }
}

impl From<&'static str> for What {
    fn from(text: &'static str) -> What {
        What::text(text)
    }
}

/// Where a constraint comes from: the op (an index chosen by the caller) and
/// what the constraint relates. A small plain value: every constraint
/// carries one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    pub op: usize,
    pub what: What,
}

impl Origin {
    pub fn new(op: usize, what: impl Into<What>) -> Origin {
        Origin {
            op,
            what: what.into(),
        }
    }
}

/// A constraint. `Ineq`s read `cur >= subr`.
#[derive(Clone, Debug)]
pub enum Constraint {
    DimEq(Dim, Dim),
    DimIneq {
        cur: Dim,
        subr: Dim,
    },
    RowEq(Row, Row),
    RowIneq {
        cur: Row,
        subr: Row,
    },
    /// The dim is at least `n` (a fixed index `n - 1` reads it).
    AtLeast(Dim, u64),
    /// `input` is the extent of `stride*over + dilation*kernel` (+ `offset`):
    /// with padding `input = stride*over`, without
    /// `input = stride*(over-1) + 1 + dilation*(kernel-1)`.
    Affine {
        input: Dim,
        stride: u64,
        over: Dim,
        dilation: u64,
        kernel: Option<Dim>,
        padded: bool,
    },
    /// The product of all dims of the rows is `n`: a literal's element
    /// count (`literal`), or a row's total elements set by name
    /// (`set_dim`).
    TotalElems {
        rows: Vec<Row>,
        n: u64,
        literal: bool,
    },
    /// The product of all dims of the rows equals `dim` (`set_equal` of a
    /// row and a dim). Waits until one side is known.
    TotalElemsOfDim {
        rows: Vec<Row>,
        dim: Dim,
    },
    /// `operand = [sliced] ++ result`: the sliced axis is the operand's
    /// leftmost. It waits until the operand's leftmost axis is known (the
    /// row is closed or has a left part), so that the operand's own
    /// leftmost axis is sliced rather than a new one put before it.
    Slice {
        operand: Row,
        result: Row,
        sliced: Dim,
    },
}

/// What kind of shape error it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeErrorKind {
    /// Dims, labels or numbers of axes that must agree do not.
    Mismatch,
    /// An axis too small for a fixed index into it.
    IndexOutOfRange,
    /// A row would need infinitely many axes (it refers to itself).
    RankCycle,
    /// A param's row or dim that nothing determines ("You forgot to
    /// specify the hidden dimension(s)"), in the given row.
    ForgotHiddenDims { row: Kind },
    /// Convolution sizes that do not fit.
    Convolution,
    /// A literal's element count that the shape cannot have.
    ElementCount,
    /// The constraint budget ran out.
    Budget,
    /// A constraint still unsolved after closing.
    Unsolved,
}

/// A shape error: what went wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    pub kind: ShapeErrorKind,
    pub message: String,
    pub origin: Origin,
    /// Other ops whose constraints decided the conflicting values.
    pub decided_by: Vec<usize>,
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.origin.what)
    }
}

/// A leaf tensor: its shape is closed to its least upper bounds first.
#[derive(Clone, Debug)]
pub struct Terminal {
    pub shape: Shape,
    /// `Some(name)` for a param: its dims are never guessed.
    pub param: Option<std::sync::Arc<str>>,
    /// Whether any op uses it (a param with no uses has the output `[1]`).
    pub used: bool,
    pub origin: Origin,
}
