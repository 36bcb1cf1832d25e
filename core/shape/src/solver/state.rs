//! The solver's environment at work: substitution of solved variables and
//! what the solver asks of its entries (`env` holds the entries).

use super::*;
use env::{DimBounds, RowBounds};

impl Solver {
    /// The terminals whose shapes still have variables, by index.
    pub(super) fn unsettled(&mut self) -> Vec<usize> {
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
    pub(super) fn fresh_dims(&mut self, n: usize) -> Vec<Dim> {
        (0..n).map(|_| Dim::Var(self.fresh_dim())).collect()
    }

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
    pub(super) fn splice_row(&self, r: &Row) -> Row {
        if !self.is_spliceable(r) {
            return r.clone();
        }
        self.splice_solved(r)
    }

    pub(super) fn is_spliceable(&self, r: &Row) -> bool {
        matches!(
            r.var.and_then(|v| self.rows.get(&v)),
            Some(RowEntry::Solved(_))
        )
    }

    /// As `splice_row`, without a copy when there is nothing to replace.
    pub(super) fn splice_owned(&self, r: Row) -> Row {
        if self.is_spliceable(&r) {
            self.splice_solved(&r)
        } else {
            r
        }
    }

    pub(super) fn splice_solved(&self, r: &Row) -> Row {
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
    pub(super) fn compress_row(&mut self, r: &Row) {
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

    pub(super) fn compress_dim(&mut self, d: &Dim) {
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
    pub(super) fn closed_row(&self, r: &Row, dim: impl Fn(&Dim) -> Dim + Copy) -> Option<Row> {
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
    pub(super) fn dim_settled(&self, d: &Dim) -> bool {
        matches!(self.subst_dim(d), Dim::Known { .. })
    }

    /// Whether a row resolves to a concrete row (without building anything).
    pub(super) fn row_settled(&self, r: &Row) -> bool {
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
    pub(super) fn row_has_axes(&self, r: &Row) -> bool {
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

    pub(super) fn dim_bounds(&mut self, v: DimVar) -> &mut DimBounds {
        let e = self
            .dims
            .get_or_insert_with(v, || DimEntry::Bounds(DimBounds::default()));
        match e {
            DimEntry::Bounds(b) => b,
            DimEntry::Solved(..) => unreachable!("dim variable {v:?} is solved"),
        }
    }

    pub(super) fn row_bounds(&mut self, v: RowVar) -> &mut RowBounds {
        let e = self
            .rows
            .get_or_insert_with(v, || RowEntry::Bounds(RowBounds::default()));
        match e {
            RowEntry::Bounds(b) => b,
            RowEntry::Solved(_) => unreachable!("row variable {v:?} is solved"),
        }
    }

    /// The unsolved row variable `r` ends in after substitution, if any.
    pub(super) fn open_var(&self, r: &Row) -> Option<RowVar> {
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
    pub(super) fn open_dims(&self, r: &Row, out: &mut Vec<DimVar>) {
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
}
