//! The row/dim constraint solver.
//!
//! Constraints are equations and inequalities between dims and between rows.
//! `cur >= subr` reads "the operand `subr` broadcasts to `cur`": for dims,
//! `subr` equals `cur` or is an unlabelled 1; for rows, `cur` has at least as
//! many axes, aligned from the right (as the lowering reads broadcast
//! operands), with pairwise dim inequalities. Row equations align both outer
//! edges (`beg` from the left, `end` from the right).
//!
//! Solving is unification of equations plus simplification of inequalities
//! into an environment of solved variables and bounds: for a dim variable its
//! least upper bound (a size > 1; two different ones demote the variable to
//! 1), its `At_least_dim` constraint and the variables it is linked to; for a
//! row variable the set of rows bounding it from above, the linked variables,
//! and whether it is known from below. What cannot be decided yet is
//! deferred. Then the shapes are closed in stages: terminal (leaf) variables
//! go to their least upper bounds, then the other terminals' rows get no more
//! axes and their dims become 1; a param's rows and dims are never guessed
//! (what its uses leave undetermined is an error); every other shape is
//! forced from below: its remaining rows get no more axes and its dims 1.
//! Every stage is followed by solving what it unlocked.
//!
//! Constraints are processed in order but decisions only depend on the set of
//! constraints: bounds are sets, and closing visits variables in the order of
//! the terminals, not of the constraints.
//!
//! This module holds the constraints and the main loop (a queue, and the
//! constraints waiting on variables); `state` the environment and
//! substitution; `dims` and `rows` the solving of each kind of constraint;
//! `closing` the stages; `explain` the assumptions and partial shapes shown
//! to the user.

mod closing;
mod dims;
mod explain;
mod rows;
mod state;
#[cfg(test)]
mod tests;

use crate::{
    notation::Kind,
    shape::{Dim, DimVar, Fresh, Row, RowVar, Shape},
};

use explain::Note;
pub use explain::{display_partial, Assumption};
use state::{DimEntry, RowEntry, VarMap};

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
    /// The product of all dims of the rows is `n`.
    TotalElems {
        rows: Vec<Row>,
        n: u64,
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

/// The solver's state: variables, environment, pending constraints.
#[derive(Default)]
pub struct Solver {
    next_dim: u32,
    next_row: u32,
    dims: VarMap<DimVar, DimEntry>,
    rows: VarMap<RowVar, RowEntry>,
    queue: Vec<(Constraint, Origin)>,
    /// Constraints waiting for a variable to be solved; taken (set to
    /// `None`) when woken.
    deferred: Vec<Option<(Constraint, Origin)>>,
    /// How many entries of `deferred` are still waiting.
    num_waiting: usize,
    dim_watch: VarMap<DimVar, Vec<usize>>,
    row_watch: VarMap<RowVar, Vec<usize>>,
    terminals: Vec<Terminal>,
    /// Terminals known to be concrete already (they stay so).
    settled: Vec<bool>,
    /// The assumptions made while closing.
    pub assumptions: Vec<Assumption>,
    steps: u64,
    /// Counts changes of the environment.
    epoch: u64,
    /// For a row variable that is the tail of a solved variable's row: how
    /// many axes that row has besides it (the longest chain of solutions
    /// leading to it). Bounded by `rows::MAX_AXES`.
    axes_around: VarMap<RowVar, usize>,
}

impl Fresh for Solver {
    fn fresh_dim(&mut self) -> DimVar {
        self.next_dim += 1;
        DimVar(self.next_dim)
    }

    fn fresh_row(&mut self) -> RowVar {
        self.next_row += 1;
        RowVar(self.next_row)
    }
}

type Res<T> = Result<T, ShapeError>;

fn err<T>(origin: &Origin, kind: ShapeErrorKind, message: impl Into<String>) -> Res<T> {
    Err(ShapeError {
        kind,
        message: message.into(),
        origin: *origin,
        decided_by: vec![],
    })
}

/// Bound on the work done, so that no input can loop forever.
const MAX_STEPS: u64 = 50_000_000;

impl Solver {
    pub fn new() -> Solver {
        Solver::default()
    }

    /// Reserves room for the variables of about `ops` ops (a hint: it saves
    /// regrowing the tables on large graphs; untouched room costs nothing).
    pub fn reserve(&mut self, ops: usize) {
        // Generated transformer-like graphs make about 6 row and 4 dim
        // variables per op.
        self.rows.slots.reserve(8 * ops);
        self.dims.slots.reserve(6 * ops);
        self.terminals.reserve(ops / 2);
    }

    /// Adds a constraint.
    pub fn add(&mut self, c: Constraint, origin: Origin) {
        self.queue.push((c, origin));
    }

    /// Solves what the constraints added so far allow, deferring the rest
    /// (no closing). Solving as the constraints come keeps the queue short;
    /// the solution does not depend on when this is called.
    pub fn propagate(&mut self) -> Res<()> {
        self.drain().map(|_| ())
    }

    /// Declares a leaf tensor.
    pub fn add_terminal(&mut self, t: Terminal) {
        self.terminals.push(t);
        self.settled.push(false);
    }

    /// Solves the queue; what cannot progress is deferred. Returns whether
    /// anything changed.
    fn drain(&mut self) -> Res<bool> {
        let start = self.epoch;
        self.drain_queue()?;
        Ok(self.epoch != start)
    }

    fn drain_queue(&mut self) -> Res<bool> {
        let mut changed = false;
        while let Some((c, o)) = self.queue.pop() {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return err(
                    &o,
                    ShapeErrorKind::Budget,
                    "shape inference did not terminate (constraint budget exhausted)",
                );
            }
            changed |= self.step(c, o)?;
        }
        Ok(changed)
    }

    /// Processes one constraint. Returns whether the environment changed.
    fn step(&mut self, c: Constraint, o: Origin) -> Res<bool> {
        let changed = self.step_inner(c, o)?;
        if changed {
            self.epoch += 1;
        }
        Ok(changed)
    }

    fn step_inner(&mut self, c: Constraint, o: Origin) -> Res<bool> {
        match c {
            Constraint::DimEq(a, b) => self.dim_eq(a, b, &o),
            Constraint::DimIneq { cur, subr } => self.dim_ineq(cur, subr, &o),
            Constraint::RowEq(a, b) => self.row_eq(a, b, &o),
            Constraint::RowIneq { cur, subr } => self.row_ineq(cur, subr, &o),
            Constraint::AtLeast(d, n) => self.at_least(d, n, &o),
            Constraint::Affine {
                input,
                stride,
                over,
                dilation,
                kernel,
                padded,
            } => self.affine(input, stride, over, dilation, kernel, padded, &o),
            Constraint::TotalElems { rows, n } => self.total_elems(rows, n, &o),
            Constraint::Slice {
                operand,
                result,
                sliced,
            } => self.slice(operand, result, sliced, &o),
        }
    }

    fn push(&mut self, c: Constraint, o: &Origin) {
        self.queue.push((c, *o));
    }

    /// Parks a constraint until one of its variables is solved.
    fn defer(&mut self, c: Constraint, o: &Origin) -> Res<bool> {
        let idx = self.deferred.len();
        let (dims, rows) = self.vars_of(&c);
        for v in dims {
            self.dim_watch.get_or_insert_with(v, Vec::new).push(idx);
        }
        for v in rows {
            self.row_watch.get_or_insert_with(v, Vec::new).push(idx);
        }
        self.deferred.push(Some((c, *o)));
        self.num_waiting += 1;
        Ok(false)
    }

    fn wake(&mut self, watchers: Option<Vec<usize>>) {
        for i in watchers.unwrap_or_default() {
            if let Some(c) = self.deferred[i].take() {
                self.num_waiting -= 1;
                self.queue.push(c);
            }
        }
    }

    /// The unsolved variables a constraint mentions.
    fn vars_of(&self, c: &Constraint) -> (Vec<DimVar>, Vec<RowVar>) {
        let mut dims = vec![];
        let mut rows = vec![];
        let dim = |d: &Dim, dims: &mut Vec<DimVar>| {
            if let Dim::Var(v) = self.subst_dim(d) {
                dims.push(v);
            }
        };
        let row_list: Vec<&Row> = match c {
            Constraint::RowEq(a, b) => vec![a, b],
            Constraint::RowIneq { cur, subr } => vec![cur, subr],
            Constraint::TotalElems { rows, .. } => rows.iter().collect(),
            Constraint::Slice {
                operand, result, ..
            } => vec![operand, result],
            Constraint::Affine {
                input,
                over,
                kernel,
                ..
            } => {
                dim(input, &mut dims);
                dim(over, &mut dims);
                if let Some(k) = kernel {
                    dim(k, &mut dims);
                }
                vec![]
            }
            Constraint::DimEq(a, b) | Constraint::DimIneq { cur: a, subr: b } => {
                dim(a, &mut dims);
                dim(b, &mut dims);
                vec![]
            }
            Constraint::AtLeast(d, _) => {
                dim(d, &mut dims);
                vec![]
            }
        };
        for r in row_list {
            let r = self.splice_row(r);
            if let Some(v) = r.var {
                rows.push(v);
            }
            if matches!(c, Constraint::TotalElems { .. }) {
                for d in r.dims() {
                    dim(d, &mut dims);
                }
            }
        }
        (dims, rows)
    }

    /// The deferred constraints still waiting.
    fn waiting(&self) -> impl Iterator<Item = &(Constraint, Origin)> {
        self.deferred.iter().flatten()
    }
}
