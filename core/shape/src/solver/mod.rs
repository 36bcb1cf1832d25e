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
//! This module holds the solver and its main loop (a queue, and the
//! constraints waiting on variables); `constraint` the constraints, their
//! origins and the errors; `env` the environment's entries and tables and
//! `state` the solver's substitution and search over them; `dims` and
//! `rows` the solving of each kind of constraint; `closing` the stages;
//! `assumption` the assumptions and partial shapes shown to the user, and
//! `explain` how the solver records them. The data modules (`constraint`,
//! `env`, `assumption`) import nothing of the solver, so no two modules
//! import each other.

mod assumption;
mod closing;
mod constraint;
mod dims;
mod env;
mod explain;
mod rows;
mod state;
#[cfg(test)]
mod tests;

use crate::{
    notation::Kind,
    shape::{Dim, DimVar, Fresh, Row, RowVar, Shape},
};

use assumption::Note;
pub use assumption::{display_partial, Assumption};
pub use constraint::{Constraint, Origin, ShapeError, ShapeErrorKind, Terminal, What};
use env::{DimEntry, RowEntry, VarMap};

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
            Constraint::TotalElems { rows, n, literal } => self.total_elems(rows, n, literal, &o),
            Constraint::TotalElemsOfDim { rows, dim } => self.total_elems_of_dim(rows, dim, &o),
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
            Constraint::TotalElemsOfDim { rows, dim: d } => {
                dim(d, &mut dims);
                rows.iter().collect()
            }
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
            if matches!(
                c,
                Constraint::TotalElems { .. } | Constraint::TotalElemsOfDim { .. }
            ) {
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
