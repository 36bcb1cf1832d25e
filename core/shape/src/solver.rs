//! The row/dim constraint solver.
//!
//! Constraints are equations and inequalities between dims and between rows.
//! `cur >= subr` reads "the operand `subr` broadcasts to `cur`": for dims,
//! `subr` equals `cur` or is 1; for rows, `cur` has at least as many axes,
//! aligned from both outer edges (`beg` from the left, `end` from the right),
//! with pairwise dim inequalities.
//!
//! Solving is unification of equations plus simplification of inequalities
//! into an environment of solved variables and bounds: for a dim variable its
//! least upper bound (a size > 1; two different ones demote the variable to
//! 1), its `At_least_dim` constraint and the variables it is linked to; for a
//! row variable the set of rows bounding it from above and the linked
//! variables. What cannot be decided yet is deferred. Then the shapes are
//! closed in stages: terminal (leaf) variables go to their least upper bounds,
//! then terminal rows get no more axes and terminal dims become 1 (a param's
//! dim is never guessed: that is an error), then all remaining rows get no
//! more axes and all remaining dims their bound or 1. Every stage is followed
//! by solving what it unlocked.
//!
//! Constraints are processed in order but decisions only depend on the set of
//! constraints: bounds are sets, and closing visits variables in the order of
//! the terminals, not of the constraints.

use std::collections::BTreeMap;

use crate::{
    notation::Kind,
    shape::{Dim, DimVar, Fresh, Row, RowVar, Shape},
};

/// What a constraint relates, in words: `text` with `{kind}` replaced by the
/// row kind and `{operand}` by "the operand" or "operand #i". Formatted only
/// when an error is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct What {
    pub text: &'static str,
    pub kind: Option<crate::notation::Kind>,
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
                format!("operand #{}", i + 1)
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

/// An assumption made while closing, for `explain` reports: the op of the
/// terminal it is about and what was assumed. Its `Display` is the message
/// (formatted only when asked for: most runs never show it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumption {
    pub op: usize,
    subject: Subject,
    note: Note,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Subject {
    Param(std::sync::Arc<str>),
    Other(What),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Note {
    RowToLub(Kind, Row),
    NoMoreAxes(Kind),
    OneAxisToSlice(Kind),
    Unused(Kind),
    DimTo(Kind, usize, u64),
    ParamDimToIndexBound(Kind, usize, u64),
}

impl std::fmt::Display for Assumption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match &self.subject {
            Subject::Param(name) => format!("param '{name}'"),
            Subject::Other(what) => what.to_string(),
        };
        match &self.note {
            Note::RowToLub(kind, lub) => {
                write!(
                    f,
                    "closed the {kind} row of {what} to its least upper bound [{lub}]"
                )
            }
            Note::NoMoreAxes(kind) => {
                write!(f, "assumed the {kind} row of {what} has no more axes")
            }
            Note::OneAxisToSlice(kind) => {
                write!(f, "assumed the {kind} row of {what} has one axis, the one batch_slice slices")
            }
            Note::Unused(kind) => {
                write!(f, "{what} has no uses: its {kind} row is [1]")
            }
            Note::DimTo(kind, i, size) => write!(
                f,
                "assumed axis {i} of the {kind} row of {what} has dimension {size}"
            ),
            Note::ParamDimToIndexBound(kind, i, at_least) => write!(
                f,
                "set axis {i} of the {kind} row of {what} to its least index bound {at_least}"
            ),
        }
    }
}

#[derive(Clone, Debug, Default)]
struct DimBounds {
    /// Least upper bound: a size > 1 the variable is either equal to or 1.
    lub: Option<Dim>,
    at_least: u64,
    /// An operand slot's fixed index: the operand's axis below this
    /// variable is read at that index, so it cannot be a broadcast 1: every
    /// dim below it equals it.
    indexes_below: bool,
    /// Variables known to be >= this one.
    cur: VarSet<DimVar>,
    /// Variables known to be <= this one.
    subr: VarSet<DimVar>,
}

#[derive(Clone, Debug)]
enum DimEntry {
    /// The solution, and the op whose constraint decided it.
    Solved(Dim, usize),
    Bounds(DimBounds),
}

#[derive(Clone, Debug, Default)]
struct RowBounds {
    /// Rows known to be >= this variable's row (upper bounds). Bounds of the
    /// variables above this one (`cur`) apply too; they are gathered when
    /// needed rather than copied down.
    ubs: Vec<Row>,
    cur: VarSet<RowVar>,
    subr: VarSet<RowVar>,
    /// The row is known from below: it is bounded below by a closed row,
    /// or by a row known from below (every variable's fixed part already
    /// holds what is below it, so forced from below it has no more axes),
    /// or it stands for axes an einsum operand slot leaves untracked. A
    /// param's row bounded above by such a row is bounded by its empty
    /// least value; a row bounded above by nothing known is undetermined.
    from_below: bool,
}

#[derive(Clone, Debug)]
enum RowEntry {
    Solved(Row),
    Bounds(RowBounds),
}

/// A small set of variables, in insertion order. Most variables are linked
/// to a few others: up to four are stored inline (in the space of a `Vec`),
/// so that linking does not allocate.
#[derive(Clone, Debug)]
struct VarSet<K>(smallvec::SmallVec<[K; 4]>);

impl<K> Default for VarSet<K> {
    fn default() -> Self {
        VarSet(smallvec::SmallVec::new())
    }
}

impl<K: PartialEq + Copy> VarSet<K> {
    fn insert(&mut self, k: K) -> bool {
        if self.0.contains(&k) {
            return false;
        }
        self.0.push(k);
        true
    }

    fn iter(&self) -> std::iter::Copied<std::slice::Iter<'_, K>> {
        self.0.iter().copied()
    }
}

impl<K> IntoIterator for VarSet<K> {
    type Item = K;
    type IntoIter = smallvec::IntoIter<[K; 4]>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A map keyed by dense variable ids (no hashing).
#[derive(Clone, Debug)]
struct VarMap<K, V> {
    slots: Vec<Option<V>>,
    _k: std::marker::PhantomData<K>,
}

impl<K, V> Default for VarMap<K, V> {
    fn default() -> Self {
        VarMap {
            slots: vec![],
            _k: std::marker::PhantomData,
        }
    }
}

trait VarId: Copy {
    fn index(self) -> usize;
}

impl VarId for DimVar {
    fn index(self) -> usize {
        self.0 as usize
    }
}

impl VarId for RowVar {
    fn index(self) -> usize {
        self.0 as usize
    }
}

impl<K: VarId, V> VarMap<K, V> {
    fn get(&self, k: &K) -> Option<&V> {
        self.slots.get(k.index()).and_then(Option::as_ref)
    }

    fn insert(&mut self, k: K, v: V) -> Option<V> {
        let i = k.index();
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        self.slots[i].replace(v)
    }

    fn get_or_insert_with(&mut self, k: K, f: impl FnOnce() -> V) -> &mut V {
        let i = k.index();
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        self.slots[i].get_or_insert_with(f)
    }

    fn remove(&mut self, k: &K) -> Option<V> {
        self.slots.get_mut(k.index()).and_then(Option::take)
    }
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

/// How deep and wide cycle detection between linked variables looks.
const LINK_DEPTH: usize = 4;
const LINK_FANOUT: usize = 4;

/// How many linked variables the search for a row's upper bounds visits.
const GATHER_LIMIT: usize = 32;

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

    /// The terminals whose shapes still have variables, by index.
    fn unsettled(&mut self) -> Vec<usize> {
        let mut out = vec![];
        for i in 0..self.terminals.len() {
            if self.settled[i] {
                continue;
            }
            if self.shape_settled(&self.terminals[i].shape) {
                self.settled[i] = true;
            } else {
                out.push(i);
            }
        }
        out
    }

    /// A fresh dim variable for a fixed index of an operand slot: the
    /// operand's axis it is related to is read at that index, so it equals
    /// the variable (it cannot broadcast).
    pub fn fresh_index_dim(&mut self) -> DimVar {
        let v = self.fresh_dim();
        self.dim_bounds(v).indexes_below = true;
        v
    }

    /// A fresh row variable for the axes an einsum operand slot leaves
    /// untracked (they are reduced): it is known from below, so a param's
    /// row under it needs no axes there.
    pub fn fresh_untracked_row(&mut self) -> RowVar {
        let v = self.fresh_row();
        self.row_bounds(v).from_below = true;
        v
    }

    /// A row of fresh dim variables.
    fn fresh_dims(&mut self, n: usize) -> Vec<Dim> {
        (0..n).map(|_| Dim::Var(self.fresh_dim())).collect()
    }

    // ----- substitution -------------------------------------------------

    pub fn subst_dim(&self, d: &Dim) -> Dim {
        let mut d = *d;
        while let Dim::Var(v) = d {
            match self.dims.get(&v) {
                Some(DimEntry::Solved(s, _)) => d = *s,
                _ => break,
            }
        }
        d
    }

    /// Replaces solved row variables (not dims) in `r`.
    fn splice_row(&self, r: &Row) -> Row {
        if !self.is_spliceable(r) {
            return r.clone();
        }
        self.splice_solved(r)
    }

    fn is_spliceable(&self, r: &Row) -> bool {
        matches!(
            r.var.and_then(|v| self.rows.get(&v)),
            Some(RowEntry::Solved(_))
        )
    }

    /// As `splice_row`, without a copy when there is nothing to replace.
    fn splice_owned(&self, r: Row) -> Row {
        if self.is_spliceable(&r) {
            self.splice_solved(&r)
        } else {
            r
        }
    }

    fn splice_solved(&self, r: &Row) -> Row {
        if let Some(closed) = self.closed_row(r, |d| *d) {
            return closed;
        }
        let mut beg = r.beg.clone();
        let mut end = r.end.clone();
        let mut var = r.var;
        // A solved variable is replaced by its row: its `beg` joins ours, its
        // `end` goes before ours.
        while let Some(v) = var {
            match self.rows.get(&v) {
                Some(RowEntry::Solved(s)) => {
                    beg.extend(s.beg.iter().cloned());
                    let mut e = s.end.clone();
                    e.extend(end);
                    end = e;
                    var = s.var;
                }
                _ => break,
            }
        }
        if var.is_none() {
            beg.extend(end);
            return Row {
                beg: vec![],
                var: None,
                end: beg,
            };
        }
        Row { beg, var, end }
    }

    /// Path compression: a solved variable's entry becomes its final row,
    /// so that chains of solutions are followed once.
    fn compress_row(&mut self, r: &Row) {
        let Some(v) = r.var else { return };
        let Some(RowEntry::Solved(first)) = self.rows.get(&v) else {
            return;
        };
        let Some(next) = first.var else { return };
        if !matches!(self.rows.get(&next), Some(RowEntry::Solved(_))) {
            return;
        }
        let full = self.splice_row(&Row::open(v));
        self.rows.insert(v, RowEntry::Solved(full));
    }

    fn compress_dim(&mut self, d: &Dim) {
        let Dim::Var(v) = d else { return };
        let Some(DimEntry::Solved(Dim::Var(next), op)) = self.dims.get(v) else {
            return;
        };
        let op = *op;
        if !matches!(self.dims.get(next), Some(DimEntry::Solved(..))) {
            return;
        }
        let full = self.subst_dim(d);
        self.dims.insert(*v, DimEntry::Solved(full, op));
    }

    /// `r` with its solved row variables replaced and each dim mapped by
    /// `dim`, if it resolves to a closed row (the usual case once solved).
    /// It is built in one pass into one vector: a solved variable's row sits
    /// between the `beg` and `end` of the row that has it.
    fn closed_row(&self, r: &Row, dim: impl Fn(&Dim) -> Dim + Copy) -> Option<Row> {
        let (mut n, mut var) = (r.num_fixed(), r.var);
        while let Some(v) = var {
            match self.rows.get(&v) {
                Some(RowEntry::Solved(inner)) => {
                    n += inner.num_fixed();
                    var = inner.var;
                }
                _ => return None,
            }
        }
        fn fill(s: &Solver, r: &Row, out: &mut Vec<Dim>, dim: impl Fn(&Dim) -> Dim + Copy) {
            out.extend(r.beg.iter().map(dim));
            if let Some(RowEntry::Solved(inner)) = r.var.and_then(|v| s.rows.get(&v)) {
                fill(s, inner, out, dim);
            }
            out.extend(r.end.iter().map(dim));
        }
        let mut dims = Vec::with_capacity(n);
        fill(self, r, &mut dims, dim);
        Some(Row::closed(dims))
    }

    /// Replaces solved row and dim variables in `r`.
    pub fn subst_row(&self, r: &Row) -> Row {
        if let Some(closed) = self.closed_row(r, |d| self.subst_dim(d)) {
            return closed;
        }
        let r = self.splice_row(r);
        Row {
            beg: r.beg.iter().map(|d| self.subst_dim(d)).collect(),
            var: r.var,
            end: r.end.iter().map(|d| self.subst_dim(d)).collect(),
        }
    }

    /// Whether a dim resolves to a known size (without building anything).
    fn dim_settled(&self, d: &Dim) -> bool {
        matches!(self.subst_dim(d), Dim::Known { .. })
    }

    /// Whether a row resolves to a concrete row (without building anything).
    fn row_settled(&self, r: &Row) -> bool {
        if !r.dims().all(|d| self.dim_settled(d)) {
            return false;
        }
        let mut var = r.var;
        while let Some(v) = var {
            match self.rows.get(&v) {
                Some(RowEntry::Solved(s)) => {
                    if !s.dims().all(|d| self.dim_settled(d)) {
                        return false;
                    }
                    var = s.var;
                }
                _ => return false,
            }
        }
        true
    }

    /// Whether a row has fixed dims after substitution (without building
    /// it).
    fn row_has_axes(&self, r: &Row) -> bool {
        let mut r = r;
        loop {
            if r.num_fixed() > 0 {
                return true;
            }
            match r.var.and_then(|v| self.rows.get(&v)) {
                Some(RowEntry::Solved(s)) => r = s,
                _ => return false,
            }
        }
    }

    /// Whether a shape resolves to a concrete shape.
    pub fn shape_settled(&self, s: &Shape) -> bool {
        self.row_settled(&s.batch) && self.row_settled(&s.input) && self.row_settled(&s.output)
    }

    pub fn subst_shape(&self, s: &Shape) -> Shape {
        Shape {
            batch: self.subst_row(&s.batch),
            input: self.subst_row(&s.input),
            output: self.subst_row(&s.output),
        }
    }

    fn dim_bounds(&mut self, v: DimVar) -> &mut DimBounds {
        let e = self
            .dims
            .get_or_insert_with(v, || DimEntry::Bounds(DimBounds::default()));
        match e {
            DimEntry::Bounds(b) => b,
            DimEntry::Solved(..) => unreachable!("dim variable {v:?} is solved"),
        }
    }

    fn row_bounds(&mut self, v: RowVar) -> &mut RowBounds {
        let e = self
            .rows
            .get_or_insert_with(v, || RowEntry::Bounds(RowBounds::default()));
        match e {
            RowEntry::Bounds(b) => b,
            RowEntry::Solved(_) => unreachable!("row variable {v:?} is solved"),
        }
    }

    // ----- the main loop ------------------------------------------------

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
                    &o, ShapeErrorKind::Budget,
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

    // ----- dims ---------------------------------------------------------

    /// The variable whose solution `d` resolves to, if any.
    fn solved_var(&self, d: &Dim) -> Option<DimVar> {
        let mut last = None;
        let mut d = *d;
        while let Dim::Var(v) = d {
            match self.dims.get(&v) {
                Some(DimEntry::Solved(s, _)) => {
                    last = Some(v);
                    d = *s;
                }
                _ => return None,
            }
        }
        last
    }

    /// Equal sizes, one labelled: the unlabelled side, if it is a variable's
    /// solution, takes the label.
    fn share_label(&mut self, raw_a: &Dim, a: &Dim, raw_b: &Dim, b: &Dim) -> bool {
        let (Dim::Known { size, label: la }, Dim::Known { label: lb, .. }) = (a, b) else {
            return false;
        };
        let (raw, label) = match (la, lb) {
            (None, Some(l)) => (raw_a, l),
            (Some(l), None) => (raw_b, l),
            _ => return false,
        };
        match self.solved_var(raw) {
            Some(v) => {
                let op = match self.dims.get(&v) {
                    Some(DimEntry::Solved(_, op)) => *op,
                    _ => usize::MAX,
                };
                self.dims.insert(
                    v,
                    DimEntry::Solved(
                        Dim::Known {
                            size: *size,
                            label: Some(*label),
                        },
                        op,
                    ),
                );
                true
            }
            None => false,
        }
    }

    /// A mismatch of `dims` at `o`, with the other ops whose constraints
    /// decided their values (for notes).
    fn mismatch<T>(&self, dims: &[&Dim], o: &Origin, message: String) -> Res<T> {
        let mut decided_by = vec![];
        for d in dims {
            if let Some(v) = self.solved_var(d) {
                if let Some(DimEntry::Solved(_, op)) = self.dims.get(&v) {
                    if *op != o.op && *op != usize::MAX && !decided_by.contains(op) {
                        decided_by.push(*op);
                    }
                }
            }
        }
        Err(ShapeError {
            kind: ShapeErrorKind::Mismatch,
            message,
            origin: *o,
            decided_by,
        })
    }

    /// Two known dims that must be the same: equal sizes, and equal labels
    /// where both have one (an unlabelled solution takes the other's label).
    fn known_agree(&mut self, raw_a: &Dim, a: &Dim, raw_b: &Dim, b: &Dim, o: &Origin) -> Res<bool> {
        let (
            Dim::Known {
                size: s1,
                label: l1,
            },
            Dim::Known {
                size: s2,
                label: l2,
            },
        ) = (a, b)
        else {
            unreachable!("known_agree takes known dims")
        };
        if s1 != s2 {
            return self.mismatch(
                &[raw_a, raw_b],
                o,
                format!("dimension mismatch: {a} vs {b}"),
            );
        }
        if let (Some(x), Some(y)) = (l1, l2) {
            if x != y {
                return self.mismatch(&[raw_a, raw_b], o, format!("label mismatch: {a} vs {b}"));
            }
        }
        Ok(self.share_label(raw_a, a, raw_b, b))
    }

    fn dim_eq(&mut self, raw_a: Dim, raw_b: Dim, o: &Origin) -> Res<bool> {
        self.compress_dim(&raw_a);
        self.compress_dim(&raw_b);
        let (a, b) = (self.subst_dim(&raw_a), self.subst_dim(&raw_b));
        match (&a, &b) {
            _ if a == b => Ok(false),
            (Dim::Known { .. }, Dim::Known { .. }) => self.known_agree(&raw_a, &a, &raw_b, &b, o),
            (Dim::Var(v), _) => self.solve_dim(*v, b, o),
            (_, Dim::Var(v)) => self.solve_dim(*v, a, o),
        }
    }

    fn solve_dim(&mut self, v: DimVar, value: Dim, o: &Origin) -> Res<bool> {
        self.epoch += 1;
        let w = self.dim_watch.remove(&v);
        self.wake(w);
        let bounds = match self.dims.insert(v, DimEntry::Solved(value, o.op)) {
            Some(DimEntry::Bounds(b)) => b,
            _ => DimBounds::default(),
        };
        for c in bounds.cur {
            self.push(
                Constraint::DimIneq {
                    cur: Dim::Var(c),
                    subr: value,
                },
                o,
            );
        }
        for s in bounds.subr {
            self.push(
                Constraint::DimIneq {
                    cur: value,
                    subr: Dim::Var(s),
                },
                o,
            );
        }
        if let Some(lub) = bounds.lub {
            self.push(
                Constraint::DimIneq {
                    cur: lub,
                    subr: value,
                },
                o,
            );
        }
        if bounds.at_least > 1 {
            self.push(Constraint::AtLeast(value, bounds.at_least), o);
        }
        Ok(true)
    }

    fn dim_ineq(&mut self, raw_cur: Dim, raw_subr: Dim, o: &Origin) -> Res<bool> {
        self.compress_dim(&raw_cur);
        self.compress_dim(&raw_subr);
        let (cur, subr) = (self.subst_dim(&raw_cur), self.subst_dim(&raw_subr));
        if cur == subr {
            return Ok(false);
        }
        if let Dim::Var(c) = cur {
            if self.dim_bounds(c).indexes_below {
                return self.dim_eq(cur, subr, o);
            }
        }
        match (&cur, &subr) {
            // An unlabelled size-1 operand broadcasts; otherwise the sizes
            // must agree. A labelled 1 is information: it does not broadcast.
            (Dim::Known { .. }, Dim::Known { size: 1, label: None }) => Ok(false),
            (Dim::Known { .. }, Dim::Known { .. }) => {
                self.known_agree(&raw_cur, &cur, &raw_subr, &subr, o)
            }
            (Dim::Var(_), Dim::Known { size: 1, label: None }) => Ok(false),
            (Dim::Var(_), Dim::Known { .. }) => self.dim_eq(cur, subr, o),
            (Dim::Known { size: 1, .. }, Dim::Var(s)) => self.solve_dim(*s, cur, o),
            (Dim::Known { .. }, Dim::Var(s)) => {
                let s = *s;
                if self.dim_bounds(s).at_least > 1 {
                    return self.dim_eq(cur, subr, o);
                }
                let b = self.dim_bounds(s);
                match &b.lub {
                    None => {
                        b.lub = Some(cur);
                        let subr: Vec<DimVar> = b.subr.iter().collect();
                        for v in subr {
                            self.push(
                                Constraint::DimIneq {
                                    cur,
                                    subr: Dim::Var(v),
                                },
                                o,
                            );
                        }
                        Ok(true)
                    }
                    Some(l) if l.known_size() == cur.known_size() => {
                        if let (
                            Dim::Known { label: Some(x), .. },
                            Dim::Known { label: Some(y), .. },
                        ) = (l, &cur)
                        {
                            if x != y {
                                return err(o, ShapeErrorKind::Mismatch, format!("label mismatch: {l} vs {cur}"));
                            }
                        }
                        Ok(false)
                    }
                    // Two different sizes above: only 1 fits under both.
                    Some(_) => self.solve_dim(s, Dim::size(1), o),
                }
            }
            (Dim::Var(c), Dim::Var(s)) => {
                let (c, s) = (*c, *s);
                // A cycle c <= ... <= s <= c makes them all equal.
                if self.dim_reaches(c, s) || self.dim_bounds(s).at_least > 1 {
                    return self.dim_eq(cur, subr, o);
                }
                let cb = self.dim_bounds(c);
                if !cb.subr.insert(s) {
                    return Ok(false);
                }
                let lub = cb.lub;
                self.dim_bounds(s).cur.insert(c);
                if let Some(l) = lub {
                    self.push(
                        Constraint::DimIneq {
                            cur: l,
                            subr: Dim::Var(s),
                        },
                        o,
                    );
                }
                Ok(true)
            }
        }
    }

    /// Whether `to <= ... <= from` by recorded dim links.
    fn dim_reaches(&self, to: DimVar, from: DimVar) -> bool {
        reaches(&self.dims, to, from)
    }

    fn at_least(&mut self, d: Dim, n: u64, o: &Origin) -> Res<bool> {
        match self.subst_dim(&d) {
            Dim::Known { size, .. } => {
                if size < n {
                    return err(
                        o, ShapeErrorKind::IndexOutOfRange,
                        format!("dimension {size} is too small: an index needs at least {n}"),
                    );
                }
                Ok(false)
            }
            Dim::Var(v) => {
                let b = self.dim_bounds(v);
                if b.at_least >= n {
                    return Ok(false);
                }
                b.at_least = n;
                if n > 1 {
                    // It cannot be a broadcast 1: whatever it broadcasts to,
                    // it equals.
                    let (cur, lub) = (b.cur.clone(), b.lub);
                    for c in cur {
                        self.push(Constraint::DimEq(Dim::Var(c), Dim::Var(v)), o);
                    }
                    if let Some(l) = lub {
                        self.push(Constraint::DimEq(l, Dim::Var(v)), o);
                    }
                }
                Ok(true)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn affine(
        &mut self,
        input: Dim,
        stride: u64,
        over: Dim,
        dilation: u64,
        kernel: Option<Dim>,
        padded: bool,
        o: &Origin,
    ) -> Res<bool> {
        let (input, over) = (self.subst_dim(&input), self.subst_dim(&over));
        let kernel = kernel.map(|k| self.subst_dim(&k));
        let k = match &kernel {
            None => Some(1),
            Some(k) => k.known_size(),
        };
        let extent = |out: u64, k: u64| {
            if padded {
                stride.saturating_mul(out)
            } else {
                stride
                    .saturating_mul(out.max(1) - 1)
                    .saturating_add(1)
                    .saturating_add(dilation.saturating_mul(k.max(1) - 1))
            }
        };
        // The output of an input: the most positions the kernel fits in
        // (rounding down), or with padding the input over the stride
        // (rounding up).
        let output = |inp: u64, k: u64| -> Res<u64> {
            if padded {
                return Ok(inp.div_ceil(stride.max(1)));
            }
            let span = dilation.saturating_mul(k.max(1) - 1).saturating_add(1);
            if inp < span {
                return err(o, ShapeErrorKind::Convolution, format!("the input dimension {inp} is smaller than the kernel extent {span}"));
            }
            Ok((inp - span) / stride.max(1) + 1)
        };
        match (input.known_size(), over.known_size(), k) {
            (Some(inp), Some(out), Some(k)) => {
                let want = output(inp, k)?;
                if want != out {
                    return self.mismatch(
                        &[&input, &over],
                        o,
                        format!("dimension mismatch: the input {inp} and the kernel {k} give the output {want}, not {out}"),
                    );
                }
                Ok(false)
            }
            (None, Some(out), Some(k)) => self.dim_eq(input, Dim::size(extent(out, k)), o),
            (Some(inp), None, Some(k)) => {
                let out = output(inp, k)?;
                self.dim_eq(over, Dim::size(out), o)
            }
            (Some(inp), Some(out), None) if !padded => {
                let used = stride.saturating_mul(out.max(1) - 1).saturating_add(1);
                if inp < used || (inp - used) % dilation != 0 {
                    return err(o, ShapeErrorKind::Convolution, format!("no kernel size fits input {inp} and output {out} (stride {stride}, dilation {dilation})"));
                }
                let kd = kernel.expect("kernel is unknown here");
                self.dim_eq(kd, Dim::size((inp - used) / dilation + 1), o)
            }
            _ => self.defer(
                Constraint::Affine {
                    input,
                    stride,
                    over,
                    dilation,
                    kernel,
                    padded,
                },
                o,
            ),
        }
    }

    fn total_elems(&mut self, rows: Vec<Row>, n: u64, o: &Origin) -> Res<bool> {
        let rows: Vec<Row> = rows.iter().map(|r| self.subst_row(r)).collect();
        let mut known = 1u64;
        let mut unknown = vec![];
        for r in &rows {
            for d in r.dims() {
                match d.known_size() {
                    Some(s) => known = known.saturating_mul(s),
                    None => unknown.push(*d),
                }
            }
        }
        let open = rows.iter().any(|r| r.var.is_some());
        if !open && unknown.is_empty() {
            if known != n {
                return err(
                    o, ShapeErrorKind::ElementCount,
                    format!("the literal has {n} elements but the shape has {known}"),
                );
            }
            return Ok(false);
        }
        if known > n || n % known.max(1) != 0 {
            return err(
                o, ShapeErrorKind::ElementCount,
                format!(
                    "the literal has {n} elements, not a multiple of the {known} of the known dims"
                ),
            );
        }
        if !open && unknown.len() == 1 {
            return self.dim_eq(unknown[0], Dim::size(n / known), o);
        }
        self.defer(Constraint::TotalElems { rows, n }, o)
    }

    // ----- rows ---------------------------------------------------------

    fn slice(&mut self, operand: Row, result: Row, sliced: Dim, o: &Origin) -> Res<bool> {
        self.compress_row(&operand);
        let operand = self.splice_owned(operand);
        match (operand.var, operand.beg.first(), operand.end.first()) {
            // The leftmost axis is known.
            (None, _, Some(&first)) | (Some(_), Some(&first), _) => {
                let rest = Row {
                    beg: operand.beg.get(1..).unwrap_or_default().to_vec(),
                    var: operand.var,
                    end: if operand.var.is_none() {
                        operand.end[1..].to_vec()
                    } else {
                        operand.end
                    },
                };
                let changed = self.dim_eq(sliced, first, o)?;
                Ok(self.row_eq(rest, result, o)? || changed)
            }
            (None, _, None) => err(
                o,
                ShapeErrorKind::Mismatch,
                format!("number of axes mismatch: the operand has no batch axis to slice, the result's batch row is [{result}]"),
            ),
            // Whether the leftmost axis is in the variable or the right part
            // depends on the variable: wait. The right part but its first
            // dim ends the result either way: that is known now.
            (Some(v), None, Some(_)) if operand.end.len() > 1 => {
                let w = self.fresh_row();
                let changed = self.row_eq(
                    result,
                    Row {
                        beg: vec![],
                        var: Some(w),
                        end: operand.end[1..].to_vec(),
                    },
                    o,
                )?;
                self.defer(
                    Constraint::Slice {
                        operand: Row {
                            beg: vec![],
                            var: Some(v),
                            end: vec![operand.end[0]],
                        },
                        result: Row::open(w),
                        sliced,
                    },
                    o,
                )?;
                Ok(changed)
            }
            // No fixed part, or one axis on the right: the operand is
            // forced from below first.
            (Some(_), None, _) => self.defer(
                Constraint::Slice {
                    operand,
                    result,
                    sliced,
                },
                o,
            ),
        }
    }

    fn row_eq(&mut self, a: Row, b: Row, o: &Origin) -> Res<bool> {
        self.compress_row(&a);
        self.compress_row(&b);
        let (a, b) = (self.splice_owned(a), self.splice_owned(b));
        if a == b {
            return Ok(false);
        }
        match (a.var, b.var) {
            (None, None) => {
                if a.end.len() != b.end.len() {
                    return err(
                        o, ShapeErrorKind::Mismatch,
                        format!(
                            "number of axes mismatch: [{a}] has {} but [{b}] has {}",
                            a.end.len(),
                            b.end.len()
                        ),
                    );
                }
                for (x, y) in a.end.iter().zip(&b.end) {
                    self.push(Constraint::DimEq(*x, *y), o);
                }
                Ok(true)
            }
            (Some(_), None) => self.row_eq_open_closed(a, b, o),
            (None, Some(_)) => self.row_eq_open_closed(b, a, o),
            (Some(va), Some(vb)) => {
                let kb = a.beg.len().min(b.beg.len());
                let ke = a.end.len().min(b.end.len());
                for i in 0..kb {
                    self.push(Constraint::DimEq(a.beg[i], b.beg[i]), o);
                }
                for i in 0..ke {
                    let (x, y) = (&a.end[a.end.len() - 1 - i], &b.end[b.end.len() - 1 - i]);
                    self.push(Constraint::DimEq(*x, *y), o);
                }
                let (ab, ae) = (a.beg[kb..].to_vec(), a.end[..a.end.len() - ke].to_vec());
                let (bb, be) = (b.beg[kb..].to_vec(), b.end[..b.end.len() - ke].to_vec());
                if va == vb {
                    if ab.is_empty() && ae.is_empty() && bb.is_empty() && be.is_empty() {
                        return Ok(true);
                    }
                    return err(
                        o, ShapeErrorKind::RankCycle,
                        format!("infinite number of axes by self-reference: [{a}] = [{b}]"),
                    );
                }
                // ab ++ va ++ ae = bb ++ vb ++ be, where at most one side of
                // each of (ab, bb) and (ae, be) is non-empty.
                if ab.is_empty() && ae.is_empty() {
                    self.solve_row(
                        va,
                        Row {
                            beg: bb,
                            var: Some(vb),
                            end: be,
                        },
                        o,
                    )
                } else if bb.is_empty() && be.is_empty() {
                    self.solve_row(
                        vb,
                        Row {
                            beg: ab,
                            var: Some(va),
                            end: ae,
                        },
                        o,
                    )
                } else {
                    // Each side has a part the other lacks: `va ++ ae = bb ++ vb`
                    // or `ab ++ va = vb ++ be`. Both variables grow around a
                    // fresh w: `va = bb ++ w ++ be`, `vb = ab ++ w ++ ae` (one
                    // of `ab`, `bb` and one of `ae`, `be` is empty, so both
                    // sides become `ab ++ bb ++ w ++ be ++ ae`).
                    let w = self.fresh_row();
                    self.solve_row(
                        va,
                        Row {
                            beg: bb,
                            var: Some(w),
                            end: be,
                        },
                        o,
                    )?;
                    self.solve_row(
                        vb,
                        Row {
                            beg: ab,
                            var: Some(w),
                            end: ae,
                        },
                        o,
                    )?;
                    Ok(true)
                }
            }
        }
    }

    /// `open = closed`: the open row's fixed dims match the closed row's
    /// edges and its variable takes the middle.
    fn row_eq_open_closed(&mut self, open: Row, closed: Row, o: &Origin) -> Res<bool> {
        let n = closed.end.len();
        if open.num_fixed() > n {
            return err(
                o, ShapeErrorKind::Mismatch,
                format!(
                    "number of axes mismatch: [{open}] has at least {} but [{closed}] has {n}",
                    open.num_fixed()
                ),
            );
        }
        for (i, d) in open.beg.iter().enumerate() {
            self.push(Constraint::DimEq(*d, closed.end[i]), o);
        }
        let off = n - open.end.len();
        for (i, d) in open.end.iter().enumerate() {
            self.push(Constraint::DimEq(*d, closed.end[off + i]), o);
        }
        let middle = closed.end[open.beg.len()..off].to_vec();
        self.solve_row(open.var.expect("open row"), Row::closed(middle), o)
    }

    fn solve_row(&mut self, v: RowVar, value: Row, o: &Origin) -> Res<bool> {
        // Closing a row to no axes closes every row linked below it to no
        // axes too: those still open are solved here, one after the other,
        // rather than through the queue.
        let mut empty_below = vec![];
        let changed = self.solve_row_one(v, value, o, &mut empty_below)?;
        while let Some(s) = empty_below.pop() {
            if self.row_unsolved(s) {
                self.solve_row_one(s, Row::default(), o, &mut empty_below)?;
            } else {
                self.push(Constraint::RowEq(Row::open(s), Row::default()), o);
            }
        }
        Ok(changed)
    }

    /// Solves `v`; the variables linked below it when `value` is the empty
    /// row go to `empty_below`.
    fn solve_row_one(
        &mut self,
        v: RowVar,
        value: Row,
        o: &Origin,
        empty_below: &mut Vec<RowVar>,
    ) -> Res<bool> {
        self.epoch += 1;
        let w = self.row_watch.remove(&v);
        self.wake(w);
        if value.var == Some(v) {
            if value.num_fixed() == 0 {
                return Ok(false);
            }
            return err(o, ShapeErrorKind::RankCycle, "infinite number of axes by self-reference");
        }
        // Every row broadcasts the empty row, and only the empty row
        // broadcasts to it: closing a row to no axes (the common case when
        // closing) settles its links at once.
        let empty = value.var.is_none() && value.end.is_empty();
        let inner = value.var;
        let bounds = match self.rows.insert(v, RowEntry::Solved(value)) {
            Some(RowEntry::Bounds(b)) => b,
            _ => RowBounds::default(),
        };
        if bounds.from_below {
            if let Some(w) = inner {
                self.mark_from_below(w);
            }
        }
        if empty {
            // The rows above hold anyway (and are known from below now);
            // those below must be empty too.
            for c in bounds.cur.iter() {
                self.mark_from_below(c);
            }
            empty_below.extend(bounds.subr);
            return Ok(true);
        }
        if bounds.cur.0.is_empty() && bounds.subr.0.is_empty() && bounds.ubs.is_empty() {
            return Ok(true);
        }
        let value = match self.rows.get(&v) {
            Some(RowEntry::Solved(r)) => r.clone(),
            _ => unreachable!("row variable {v:?} was just solved"),
        };
        for c in bounds.cur {
            self.push(
                Constraint::RowIneq {
                    cur: Row::open(c),
                    subr: value.clone(),
                },
                o,
            );
        }
        for ub in bounds.ubs {
            self.push(
                Constraint::RowIneq {
                    cur: ub,
                    subr: value.clone(),
                },
                o,
            );
        }
        for s in bounds.subr {
            self.push(
                Constraint::RowIneq {
                    cur: value.clone(),
                    subr: Row::open(s),
                },
                o,
            );
        }
        Ok(true)
    }

    fn row_ineq(&mut self, cur: Row, subr: Row, o: &Origin) -> Res<bool> {
        self.compress_row(&cur);
        self.compress_row(&subr);
        let (cur, subr) = (self.splice_owned(cur), self.splice_owned(subr));
        if cur == subr {
            return Ok(false);
        }
        // The pairs of dims certainly aligned: the shared right edge, and
        // the shared left edge when both rows have a left part.
        let ke = cur.end.len().min(subr.end.len());
        let mut changed = false;
        for i in 0..ke {
            let (c, s) = (
                &cur.end[cur.end.len() - 1 - i],
                &subr.end[subr.end.len() - 1 - i],
            );
            changed |= self.dim_ineq(*c, *s, o)?;
        }
        let kb = if cur.var.is_some() && subr.var.is_some() {
            cur.beg.len().min(subr.beg.len())
        } else {
            0
        };
        for i in 0..kb {
            changed |= self.dim_ineq(cur.beg[i], subr.beg[i], o)?;
        }
        match (cur.var, subr.var) {
            (None, None) => {
                if cur.end.len() < subr.end.len() {
                    return err(
                        o, ShapeErrorKind::Mismatch,
                        format!(
                            "number of axes mismatch: the operand has {} axes [{subr}] but the result only {} [{cur}]",
                            subr.end.len(),
                            cur.end.len()
                        ),
                    );
                }
                Ok(changed)
            }
            (Some(cv), None) => {
                // Bounded below by a closed row: known from below.
                self.mark_from_below(cv);
                if subr.end.len() <= cur.end.len() {
                    return Ok(changed);
                }
                let deficit = subr.end.len() as i64 - cur.num_fixed() as i64;
                if deficit > 0 {
                    // cur needs more axes: a template of fresh dims next to
                    // its right part.
                    return self.widen_then_relate(cv, 0, deficit as usize, cur, subr, o);
                }
                // Whether cur's left part or its variable meets the rest of
                // subr depends on the variable: wait.
                self.defer(Constraint::RowIneq { cur, subr }, o)
                    .map(|_| changed)
            }
            (None, Some(sv)) => {
                let n = cur.end.len();
                if subr.num_fixed() > n {
                    return err(
                        o, ShapeErrorKind::Mismatch,
                        format!(
                            "number of axes mismatch: the operand has at least {} axes [{subr}] but the result only {n} [{cur}]",
                            subr.num_fixed()
                        ),
                    );
                }
                for (i, d) in subr.beg.iter().enumerate() {
                    changed |= self.dim_ineq(cur.end[i], *d, o)?;
                }
                let middle = Row::closed(cur.end[subr.beg.len()..n - subr.end.len()].to_vec());
                changed |= self.add_row_ub(sv, middle, o)?;
                Ok(changed)
            }
            (Some(cv), Some(sv)) => {
                if cv == sv {
                    if cur.num_fixed() != subr.num_fixed() {
                        return err(
                            o, ShapeErrorKind::RankCycle,
                            format!(
                                "infinite number of axes by self-reference: [{cur}] >= [{subr}]"
                            ),
                        );
                    }
                    return Ok(changed);
                }
                let extra_end = subr.end.len().saturating_sub(cur.end.len());
                let extra_beg = subr.beg.len().saturating_sub(cur.beg.len());
                if extra_end == 0 && extra_beg == 0 {
                    let rest = Row {
                        beg: cur.beg[subr.beg.len()..].to_vec(),
                        var: Some(cv),
                        end: cur.end[..cur.end.len() - subr.end.len()].to_vec(),
                    };
                    if rest.num_fixed() == 0 {
                        // A cycle cv <= ... <= sv <= cv makes them equal.
                        if self.row_reaches(cv, sv) {
                            return self.row_eq(Row::open(cv), Row::open(sv), o);
                        }
                        // Link the variables.
                        let cb = self.row_bounds(cv);
                        if !cb.subr.insert(sv) {
                            return Ok(changed);
                        }
                        let below = self.row_bounds(sv);
                        below.cur.insert(cv);
                        if below.from_below {
                            self.mark_from_below(cv);
                        }
                        return Ok(true);
                    }
                    changed |= self.add_row_ub(sv, rest, o)?;
                    return Ok(changed);
                }
                let deficit = subr.num_fixed() as i64 - cur.num_fixed() as i64;
                if deficit > 0 {
                    let nd = (deficit as usize).min(extra_end);
                    let nb = (deficit as usize - nd).min(extra_beg);
                    return self.widen_then_relate(cv, nb, nd, cur, subr, o);
                }
                self.defer(Constraint::RowIneq { cur, subr }, o)
                    .map(|_| changed)
            }
        }
    }

    /// Solves `cv` (the variable of `cur`) to a template of `nb` fresh dims,
    /// a fresh row variable and `ne` fresh dims, then relates `cur >= subr`
    /// again. The template covers the deficit of axes, so the second round
    /// relates the dims: no further template, no deeper recursion.
    fn widen_then_relate(
        &mut self,
        cv: RowVar,
        nb: usize,
        ne: usize,
        cur: Row,
        subr: Row,
        o: &Origin,
    ) -> Res<bool> {
        let (beg, end) = (self.fresh_dims(nb), self.fresh_dims(ne));
        let rest = self.fresh_row();
        // `cur` with the template spliced in (built here: `rest` is new).
        let widened = Row {
            beg: cur.beg.iter().chain(&beg).copied().collect(),
            var: Some(rest),
            end: end.iter().chain(&cur.end).copied().collect(),
        };
        self.solve_row(
            cv,
            Row {
                beg,
                var: Some(rest),
                end,
            },
            o,
        )?;
        self.row_ineq(widened, subr, o)?;
        Ok(true)
    }

    /// Records that `v` (or the variable its solution ends in) is known from
    /// below, and so is every row above it. Each variable is marked once.
    fn mark_from_below(&mut self, v: RowVar) {
        if self.is_from_below(v) {
            return;
        }
        let mut stack: smallvec::SmallVec<[RowVar; 8]> = smallvec::smallvec![v];
        while let Some(v) = stack.pop() {
            let Some(v) = self.open_var(&Row::open(v)) else {
                continue;
            };
            let b = self.row_bounds(v);
            if b.from_below {
                continue;
            }
            b.from_below = true;
            stack.extend(b.cur.iter());
            stack.extend(b.ubs.iter().filter_map(|r| r.var));
        }
    }

    /// Whether the unsolved variable `v` is known from below.
    fn is_from_below(&self, v: RowVar) -> bool {
        matches!(self.rows.get(&v), Some(RowEntry::Bounds(b)) if b.from_below)
    }

    /// Whether `to <= ... <= from` by recorded row links.
    fn row_reaches(&self, to: RowVar, from: RowVar) -> bool {
        reaches(&self.rows, to, from)
    }

    /// Whether `v` is not solved (it may have no entry yet).
    fn row_unsolved(&self, v: RowVar) -> bool {
        matches!(self.rows.get(&v), None | Some(RowEntry::Bounds(_)))
    }

    /// Records `ub >= v`.
    fn add_row_ub(&mut self, v: RowVar, ub: Row, o: &Origin) -> Res<bool> {
        if !self.row_unsolved(v) {
            self.push(
                Constraint::RowIneq {
                    cur: ub,
                    subr: Row::open(v),
                },
                o,
            );
            return Ok(true);
        }
        if ub.var.is_none() && ub.end.is_empty() {
            // Nothing fits under an empty row but the empty row.
            return self.solve_row(v, Row::default(), o);
        }
        let b = self.row_bounds(v);
        if b.ubs.contains(&ub) {
            return Ok(false);
        }
        let above = ub.var.filter(|_| b.from_below);
        b.ubs.push(ub);
        if let Some(w) = above {
            self.mark_from_below(w);
        }
        Ok(true)
    }

    /// The upper bounds of `v`: its own and those of the unsolved variables
    /// above it, substituted.
    ///
    /// The search visits at most `GATHER_LIMIT` variables (nearest first):
    /// bounds come from the direct consumers of a tensor in practice, while
    /// rows no op gives axes to (the input rows of most results, say) form
    /// long chains of links that carry nothing.
    fn gather_ubs(&self, v: RowVar) -> Vec<Row> {
        let mut out = vec![];
        // Breadth-first: `queue[next..]` waits. Searches are small: the
        // lists stay inline.
        let mut queue: smallvec::SmallVec<[RowVar; 16]> = smallvec::smallvec![v];
        let mut next = 0;
        let mut seen: smallvec::SmallVec<[RowVar; 16]> = smallvec::SmallVec::new();
        while let Some(&v) = queue.get(next) {
            next += 1;
            if seen.contains(&v) {
                continue;
            }
            if seen.len() >= GATHER_LIMIT {
                break;
            }
            seen.push(v);
            match self.rows.get(&v) {
                Some(RowEntry::Bounds(b)) => {
                    // A row above known from below bounds `v` by its least
                    // value: no more axes than its fixed part.
                    if seen.len() > 1 && b.from_below {
                        out.push(Row::open(v));
                    }
                    out.extend(b.ubs.iter().map(|r| self.subst_row(r)));
                    queue.extend(b.cur.iter());
                }
                Some(RowEntry::Solved(_)) if seen.len() > 1 => {
                    // A solved variable above: its row is a bound.
                    out.push(self.subst_row(&Row::open(v)));
                }
                _ => {}
            }
        }
        out
    }

    /// The greatest row below all upper bounds of `v`, if any bound has
    /// known axes: right-aligned, as many axes as the shortest closed bound
    /// (or the longest fixed part when all are open), each dim the common
    /// size or 1 (a known size wins over a variable).
    fn row_lub(&self, v: RowVar) -> Option<Row> {
        match self.rows.get(&v) {
            None => return None,
            Some(RowEntry::Solved(_)) => return None,
            Some(RowEntry::Bounds(b)) if b.ubs.is_empty() && b.cur.0.is_empty() => return None,
            _ => {}
        }
        let mut ubs = self.gather_ubs(v);
        ubs.retain(|r| {
            r.num_fixed() > 0 || r.var.is_none_or(|w| self.is_from_below(w))
        });
        if ubs.is_empty() {
            return None;
        }
        let len = ubs
            .iter()
            .filter(|r| r.var.is_none())
            .map(|r| r.end.len())
            .min()
            .unwrap_or_else(|| ubs.iter().map(|r| r.end.len()).max().unwrap_or(0));
        let mut dims = Vec::with_capacity(len);
        for i in 0..len {
            // The i-th axis from the right, across bounds that have it.
            let mut d: Option<Dim> = None;
            for r in &ubs {
                if i >= r.end.len() {
                    continue;
                }
                let x = r.end[r.end.len() - 1 - i];
                d = Some(match d {
                    None => x,
                    Some(prev) if prev == x => prev,
                    Some(Dim::Known { size: 1, .. }) => Dim::size(1),
                    Some(_) if x.known_size() == Some(1) => Dim::size(1),
                    Some(prev) if prev.known_size().is_some() && x.known_size().is_none() => prev,
                    Some(prev) if prev.known_size().is_none() && x.known_size().is_some() => x,
                    Some(Dim::Var(p)) => match x {
                        Dim::Var(q) => Dim::Var(p.min(q)),
                        _ => Dim::size(1),
                    },
                    Some(_) => Dim::size(1),
                });
            }
            dims.push(d.unwrap_or(Dim::size(1)));
        }
        dims.reverse();
        Some(Row::closed(dims))
    }

    // ----- closing ------------------------------------------------------

    /// Solves everything and closes the terminals' shapes; afterwards
    /// `close_shape` closes the other shapes.
    ///
    /// Only terminals (leaves) close to their least upper bounds: the other
    /// shapes are forced from below by their operands, and what stays open
    /// in them gets no more axes and dim 1 (or the size an index needs).
    pub fn solve(&mut self) -> Res<()> {
        self.drain()?;

        // Terminal rows and dims go to their least upper bounds.
        self.close_to_lubs()?;
        // The remaining rows of terminals other than params get no more
        // axes, their dims their `At_least` size or 1.
        for ti in self.unsettled() {
            if self.terminals[ti].param.is_some() {
                continue;
            }
            let origin = self.terminals[ti].origin;
            for kind in Kind::ALL {
                if let Some(v) = self.open_var(self.terminals[ti].shape.row(kind)) {
                    // A slice of a leaf needs an axis to slice.
                    let close = if self.sliced_while_open(v) {
                        self.note(ti, Note::OneAxisToSlice(kind));
                        Row::closed(vec![Dim::Var(self.fresh_dim())])
                    } else {
                        self.note(ti, Note::NoMoreAxes(kind));
                        Row::default()
                    };
                    self.solve_row(v, close, &origin)?;
                }
            }
            self.drain()?;
            let s = self.subst_shape(&self.terminals[ti].shape);
            for kind in Kind::ALL {
                for (i, d) in s.row(kind).dims().enumerate() {
                    if let Dim::Var(v) = self.subst_dim(d) {
                        let size = match self.dims.get(&v) {
                            Some(DimEntry::Bounds(b)) => b.at_least.max(1),
                            _ => 1,
                        };
                        self.note(ti, Note::DimTo(kind, i, size));
                        self.solve_dim(v, Dim::size(size), &origin)?;
                        self.drain()?;
                    }
                }
            }
        }
        self.close_to_lubs()?;
        // A param's rows and dims are never guessed. (Closing one param
        // can give another a least upper bound: each takes its own first.)
        for ti in self.unsettled() {
            if self.terminals[ti].param.is_some() {
                self.close_param_rows(ti)?;
            }
        }
        for ti in self.unsettled() {
            if self.terminals[ti].param.is_some() {
                self.close_param_dims(ti)?;
            }
        }
        // The remaining rows in pending constraints (not terminals') are
        // forced from below: no more axes.
        loop {
            self.drain()?;
            let mut vars = BTreeMap::new();
            for (c, o) in self.waiting() {
                for v in self.row_vars_of(c) {
                    vars.entry(v).or_insert_with(|| *o);
                }
            }
            if vars.is_empty() {
                break;
            }
            for (v, o) in vars {
                if self.row_unsolved(v) {
                    self.solve_row(v, Row::default(), &o)?;
                }
            }
        }
        self.drain()?;
        Ok(())
    }

    /// Whether a waiting slice waits for the open row variable `v`, the
    /// operand's batch row.
    fn sliced_while_open(&self, v: RowVar) -> bool {
        let Some(watchers) = self.row_watch.get(&v) else {
            return false;
        };
        watchers.iter().any(|&i| {
            matches!(&self.deferred[i], Some((Constraint::Slice { operand, .. }, _)) if self.open_var(operand) == Some(v))
        })
    }

    /// A param's open rows: a row with a least upper bound gets it; a row
    /// that has axes or is known from below (its uses gave it what it has)
    /// gets no more axes; a param with no uses has the output `[1]`; a row
    /// that nothing determines is an error.
    fn close_param_rows(&mut self, ti: usize) -> Res<()> {
        let origin = self.terminals[ti].origin;
        for kind in Kind::ALL {
            let row = self.terminals[ti].shape.row(kind);
            let Some(v) = self.open_var(row) else {
                continue;
            };
            let has_axes = self.row_has_axes(row);
            let close = if let Some(lub) = self.row_lub(v) {
                self.note(ti, Note::RowToLub(kind, lub.clone()));
                lub
            } else if !self.terminals[ti].used {
                match kind {
                    Kind::Output if !has_axes => {
                        self.note(ti, Note::Unused(kind));
                        Row::closed(vec![Dim::size(1)])
                    }
                    _ => {
                        self.note(ti, Note::NoMoreAxes(kind));
                        Row::default()
                    }
                }
            } else if has_axes || self.is_from_below(v) {
                self.note(ti, Note::NoMoreAxes(kind));
                Row::default()
            } else {
                let name = self.terminals[ti].param.clone().unwrap_or_default();
                return Err(ShapeError {
                    kind: ShapeErrorKind::ForgotHiddenDims { row: kind },
                    message: format!(
                        "You forgot to specify the hidden dimension(s): the {kind} row of param '{name}' is not determined by its uses (shape so far: {})",
                        display_partial(&self.subst_shape(&self.terminals[ti].shape))
                    ),
                    origin,
                    decided_by: vec![],
                });
            };
            self.solve_row(v, close, &origin)?;
            self.drain()?;
        }
        Ok(())
    }

    /// A param's open dims: their least upper bound, or the size a fixed
    /// index needs if more than 1; otherwise an error.
    fn close_param_dims(&mut self, ti: usize) -> Res<()> {
        let origin = self.terminals[ti].origin;
        let name = self.terminals[ti].param.clone().unwrap_or_default();
        let s = self.subst_shape(&self.terminals[ti].shape);
        for kind in Kind::ALL {
            for (i, d) in s.row(kind).dims().enumerate() {
                let Dim::Var(v) = self.subst_dim(d) else {
                    continue;
                };
                let (lub, at_least) = match self.dims.get(&v) {
                    Some(DimEntry::Bounds(b)) => (b.lub, b.at_least),
                    _ => (None, 0),
                };
                if let Some(lub) = lub.filter(|l| l.known_size().unwrap_or(0) >= at_least) {
                    self.solve_dim(v, lub, &origin)?;
                    self.drain()?;
                    continue;
                }
                if at_least <= 1 {
                    return Err(ShapeError {
                        kind: ShapeErrorKind::ForgotHiddenDims { row: kind },
                        message: format!(
                            "You forgot to specify the hidden dimension(s): axis {i} of the {kind} row of param '{name}' is not determined by its uses (shape so far: {})",
                            display_partial(&self.subst_shape(&s))
                        ),
                        origin,
                        decided_by: vec![],
                    });
                }
                self.note(ti, Note::ParamDimToIndexBound(kind, i, at_least));
                self.solve_dim(v, Dim::size(at_least), &origin)?;
                self.drain()?;
            }
        }
        Ok(())
    }

    /// Closes terminal rows and dims to their least upper bounds, until
    /// nothing changes.
    fn close_to_lubs(&mut self) -> Res<()> {
        let mut open = vec![];
        loop {
            let mut changed = false;
            for ti in self.unsettled() {
                let origin = self.terminals[ti].origin;
                for kind in Kind::ALL {
                    let Some(v) = self.open_var(self.terminals[ti].shape.row(kind)) else {
                        continue;
                    };
                    let Some(lub) = self.row_lub(v) else {
                        continue;
                    };
                    self.note(ti, Note::RowToLub(kind, lub.clone()));
                    self.solve_row(v, lub, &origin)?;
                    changed = true;
                }
                changed |= self.drain()?;
                for kind in Kind::ALL {
                    open.clear();
                    self.open_dims(self.terminals[ti].shape.row(kind), &mut open);
                    for &v in &open {
                        let Dim::Var(v) = self.subst_dim(&Dim::Var(v)) else {
                            continue;
                        };
                        let Some(DimEntry::Bounds(b)) = self.dims.get(&v) else {
                            continue;
                        };
                        let Some(lub) = b.lub.filter(|l| l.known_size().unwrap_or(0) >= b.at_least)
                        else {
                            continue;
                        };
                        self.solve_dim(v, lub, &origin)?;
                        self.drain()?;
                        changed = true;
                    }
                }
            }
            if !changed {
                return Ok(());
            }
        }
    }

    /// Closes one shape (a non-terminal, after solving): it is forced from
    /// below, so its remaining row variables get no more axes and its
    /// remaining dims the size an index needs, or 1.
    pub fn close_shape(&mut self, shape: &Shape, origin: &Origin) -> Res<Shape> {
        if !self.shape_settled(shape) {
            let rows = [&shape.batch, &shape.input, &shape.output];
            let mut vars = vec![];
            for _ in 0..3 {
                // Each variable is looked up afresh: closing one may have
                // solved the next.
                for row in rows {
                    if let Some(v) = self.open_var(row) {
                        self.solve_row(v, Row::default(), origin)?;
                        self.drain()?;
                    }
                }
                vars.clear();
                for row in rows {
                    self.open_dims(row, &mut vars);
                }
                for &v in &vars {
                    let Dim::Var(v) = self.subst_dim(&Dim::Var(v)) else {
                        continue;
                    };
                    let size = match self.dims.get(&v) {
                        Some(DimEntry::Bounds(b)) => b.at_least.max(1),
                        _ => 1,
                    };
                    self.solve_dim(v, Dim::size(size), origin)?;
                    self.drain()?;
                }
                if self.shape_settled(shape) {
                    break;
                }
            }
            // Counted, not searched: most entries are taken by now.
            if self.num_waiting > 0 {
                let (c, o) = self.waiting().next().expect("a constraint is waiting");
                return err(o, ShapeErrorKind::Unsolved, format!("cannot solve the constraint {c:?}"));
            }
        }
        Ok(self.subst_shape(shape))
    }

    /// The unsolved row variable `r` ends in after substitution, if any.
    fn open_var(&self, r: &Row) -> Option<RowVar> {
        let mut var = r.var;
        while let Some(v) = var {
            match self.rows.get(&v) {
                Some(RowEntry::Solved(s)) => var = s.var,
                _ => return Some(v),
            }
        }
        None
    }

    /// Appends the unsolved dim variables of `r` after substitution, in
    /// order, without building the substituted row.
    fn open_dims(&self, r: &Row, out: &mut Vec<DimVar>) {
        let unsolved = |d: &Dim| match self.subst_dim(d) {
            Dim::Var(v) => Some(v),
            Dim::Known { .. } => None,
        };
        out.extend(r.beg.iter().filter_map(unsolved));
        if let Some(RowEntry::Solved(s)) = r.var.and_then(|v| self.rows.get(&v)) {
            self.open_dims(s, out);
        }
        out.extend(r.end.iter().filter_map(unsolved));
    }

    fn row_vars_of(&self, c: &Constraint) -> Vec<RowVar> {
        let rows: Vec<&Row> = match c {
            Constraint::RowEq(a, b) => vec![a, b],
            Constraint::RowIneq { cur, subr } => vec![cur, subr],
            Constraint::TotalElems { rows, .. } => rows.iter().collect(),
            // Forced from below: only the operand's row is closed to let
            // the slice proceed.
            Constraint::Slice { operand, .. } => vec![operand],
            _ => vec![],
        };
        rows.into_iter()
            .filter_map(|r| self.splice_row(r).var)
            .collect()
    }

    fn note(&mut self, terminal: usize, note: Note) {
        let t = &self.terminals[terminal];
        let subject = match &t.param {
            Some(name) => Subject::Param(name.clone()),
            None => Subject::Other(t.origin.what),
        };
        self.assumptions.push(Assumption {
            op: t.origin.op,
            subject,
            note,
        });
    }
}

/// The links of a variable's entry: the variables above and below it while
/// it is unsolved (`None` once solved).
trait Linked<K> {
    fn above(&self) -> Option<&VarSet<K>>;
    fn below(&self) -> Option<&VarSet<K>>;
}

impl Linked<DimVar> for DimEntry {
    fn above(&self) -> Option<&VarSet<DimVar>> {
        match self {
            DimEntry::Bounds(b) => Some(&b.cur),
            DimEntry::Solved(..) => None,
        }
    }
    fn below(&self) -> Option<&VarSet<DimVar>> {
        match self {
            DimEntry::Bounds(b) => Some(&b.subr),
            DimEntry::Solved(..) => None,
        }
    }
}

impl Linked<RowVar> for RowEntry {
    fn above(&self) -> Option<&VarSet<RowVar>> {
        match self {
            RowEntry::Bounds(b) => Some(&b.cur),
            RowEntry::Solved(_) => None,
        }
    }
    fn below(&self) -> Option<&VarSet<RowVar>> {
        match self {
            RowEntry::Bounds(b) => Some(&b.subr),
            RowEntry::Solved(_) => None,
        }
    }
}

/// Whether `to <= ... <= from` by the links recorded in `map`.
fn reaches<K: VarId + PartialEq, V: Linked<K>>(map: &VarMap<K, V>, to: K, from: K) -> bool {
    // Nothing reaches an unsolved variable with nothing above it.
    let unlinked = match map.get(&to) {
        None => true,
        Some(e) => e.above().is_some_and(|above| above.0.is_empty()),
    };
    if to != from && unlinked {
        return false;
    }
    bounded_reach(to, from, |v| map.get(&v).and_then(V::below))
}

/// Whether `to` is reachable from `from` by following `below` links, looking
/// a few links deep and wide: a longer cycle of inequalities is resolved by
/// closing anyway, and a bounded search keeps linking cheap.
fn bounded_reach<'a, K: PartialEq + Copy + 'a>(
    to: K,
    from: K,
    below: impl Fn(K) -> Option<&'a VarSet<K>> + Copy,
) -> bool {
    // Depth-first over the same nodes as a breadth-first search of
    // `LINK_DEPTH` levels would visit, without allocating.
    fn go<'a, K: PartialEq + Copy + 'a>(
        to: K,
        v: K,
        depth: usize,
        below: impl Fn(K) -> Option<&'a VarSet<K>> + Copy,
    ) -> bool {
        if v == to {
            return true;
        }
        if depth == 0 {
            return false;
        }
        below(v).is_some_and(|set| {
            set.iter()
                .take(LINK_FANOUT)
                .any(|w| go(to, w, depth - 1, below))
        })
    }
    go(to, from, LINK_DEPTH - 1, below)
}

/// A shape with variables, printed with `?` for unknown dims and `...` for
/// unknown rows.
pub fn display_partial(s: &Shape) -> String {
    let row = |r: &Row| {
        let mut parts: Vec<String> = r.beg.iter().map(dim_partial).collect();
        if r.var.is_some() {
            parts.push("...".into());
        }
        parts.extend(r.end.iter().map(dim_partial));
        parts.join(",")
    };
    let mut out = String::new();
    if s.batch.var.is_some() || s.batch.num_fixed() > 0 {
        out += &format!("{}|", row(&s.batch));
    }
    if s.input.var.is_some() || s.input.num_fixed() > 0 {
        out += &format!("{}->", row(&s.input));
    }
    out + &row(&s.output)
}

fn dim_partial(d: &Dim) -> String {
    match d {
        Dim::Var(_) => "?".into(),
        d => d.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `beg` and `end` fresh dim variables around a fresh row
    /// variable (or closed when `open` is false).
    fn row(s: &mut Solver, beg: usize, open: bool, end: usize) -> Row {
        Row {
            beg: s.fresh_dims(beg),
            var: open.then(|| s.fresh_row()),
            end: s.fresh_dims(end),
        }
    }

    /// Closes the remaining row variables of `rows` to no more axes.
    fn close_rows(s: &mut Solver, rows: &[&Row]) {
        let o = Origin::new(0, "closing");
        while let Some(v) = rows.iter().find_map(|r| s.open_var(r)) {
            s.solve_row(v, Row::default(), &o).unwrap();
            s.propagate().unwrap();
        }
    }

    /// `a = b` for every placement of fixed dims and row variables on both
    /// sides: afterwards both sides are the same row, and, closed, have the
    /// fewest axes that hold both sides' fixed dims (nothing dropped).
    #[test]
    fn row_eq_every_placement() {
        let shapes: Vec<(usize, bool, usize)> = (0..3)
            .flat_map(|b| (0..3).flat_map(move |e| [(b, true, e), (b, false, e)]))
            .filter(|&(b, open, _)| open || b == 0)
            .collect();
        let mut cases = 0;
        for &(ab, ao, ae) in &shapes {
            for &(bb, bo, be) in &shapes {
                let mut s = Solver::new();
                let a = row(&mut s, ab, ao, ae);
                let b = row(&mut s, bb, bo, be);
                let want = match (ao, bo) {
                    (true, true) => Some(ab.max(bb) + ae.max(be)),
                    (true, false) => (ab + ae <= be).then_some(be),
                    (false, true) => (bb + be <= ae).then_some(ae),
                    (false, false) => (ae == be).then_some(ae),
                };
                s.add(Constraint::RowEq(a.clone(), b.clone()), Origin::new(0, "test"));
                let solved = s.propagate();
                let Some(len) = want else {
                    let e = solved.expect_err(&format!("[{a}] = [{b}] has no solution"));
                    assert!(e.message.contains("number of axes mismatch"), "{e}");
                    continue;
                };
                solved.unwrap_or_else(|e| panic!("[{a}] = [{b}]: {e}"));
                let (ra, rb) = (s.subst_row(&a), s.subst_row(&b));
                assert_eq!(ra, rb, "[{a}] = [{b}]");
                close_rows(&mut s, &[&a, &b]);
                let (ra, rb) = (s.subst_row(&a), s.subst_row(&b));
                assert_eq!(ra, rb, "[{a}] = [{b}] closed");
                assert_eq!(ra.var, None);
                assert_eq!(ra.end.len(), len, "[{a}] = [{b}] closed to [{ra}]");
                // Every fixed dim of both sides is in the solution.
                for d in a.dims().chain(b.dims()) {
                    let d = s.subst_dim(d);
                    assert!(ra.end.contains(&d), "[{a}] = [{b}]: {d} dropped from [{ra}]");
                }
                cases += 1;
            }
        }
        assert!(cases > 50, "{cases}");
    }

    /// The least solution with known sizes on both sides, in both orders.
    #[test]
    fn row_eq_both_sides_open() {
        let cases: &[(&[u64], &[u64], &[u64], &[u64], &[u64])] = &[
            // 2,... = ...,3
            (&[2], &[], &[], &[3], &[2, 3]),
            // ...,3 = 2,...
            (&[], &[3], &[2], &[], &[2, 3]),
            // 2,...,4 = ...,3,4
            (&[2], &[4], &[], &[3, 4], &[2, 3, 4]),
            // 2,3,... = 2,...,5
            (&[2, 3], &[], &[2], &[5], &[2, 3, 5]),
            // 1,2,... = ...,3
            (&[1, 2], &[], &[], &[3], &[1, 2, 3]),
        ];
        let known = |v: &[u64]| v.iter().map(|&n| Dim::size(n)).collect::<Vec<_>>();
        for &(ab, ae, bb, be, want) in cases {
            let mut s = Solver::new();
            let a = Row {
                beg: known(ab),
                var: Some(s.fresh_row()),
                end: known(ae),
            };
            let b = Row {
                beg: known(bb),
                var: Some(s.fresh_row()),
                end: known(be),
            };
            s.add(Constraint::RowEq(a.clone(), b.clone()), Origin::new(0, "test"));
            s.propagate().unwrap();
            close_rows(&mut s, &[&a, &b]);
            let got = s.subst_row(&a);
            assert_eq!(got, s.subst_row(&b), "[{a}] = [{b}]");
            assert_eq!(got, Row::closed(known(want)), "[{a}] = [{b}]");
        }
    }
}
