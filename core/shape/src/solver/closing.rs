//! Closing, in the stages of seed 000: terminals to their least upper
//! bounds, the other terminals to no more axes and dim 1, params only to
//! what their uses determine, then every other shape from below.

use std::collections::BTreeMap;

use super::*;

impl Solver {
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
        // A row whose total elements are set (`set_dim` on a row) and
        // nothing else decides gets one axis of them, a param's too.
        while self.close_total_elems_rows()? {
            self.drain()?;
        }
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
        // forced from below: no more axes; but a row whose total elements
        // are set and only its variable is unknown gets one axis of the
        // elements left (OCANNL's stage 3).
        loop {
            self.drain()?;
            if self.close_total_elems_rows()? {
                continue;
            }
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

    /// Closes the one open row variable of a waiting total-elements
    /// constraint whose dims are all known to one axis of the elements
    /// they leave, and the rows known from below that a dim must equal the
    /// elements of to no more axes. Returns whether it closed any.
    fn close_total_elems_rows(&mut self) -> Res<bool> {
        let mut close = vec![];
        let mut finish = vec![];
        for (c, o) in self.waiting() {
            // A row that a dim must equal the elements of, known from
            // below with all its dims known, gets no more axes: then the
            // dim is their product.
            if let Constraint::TotalElemsOfDim { rows, .. } = c {
                let rows: Vec<Row> = rows.iter().map(|r| self.subst_row(r)).collect();
                let known = rows
                    .iter()
                    .flat_map(|r| r.dims())
                    .all(|d| d.known_size().is_some());
                if known
                    && rows
                        .iter()
                        .all(|r| r.var.is_none_or(|v| self.is_from_below(v)))
                {
                    finish.extend(rows.iter().filter_map(|r| r.var).map(|v| (v, *o)));
                }
                continue;
            }
            let Constraint::TotalElems { rows, n, .. } = c else {
                continue;
            };
            let rows: Vec<Row> = rows.iter().map(|r| self.subst_row(r)).collect();
            let open: Vec<RowVar> = rows.iter().filter_map(|r| r.var).collect();
            let known: Option<u64> = rows
                .iter()
                .flat_map(|r| r.dims())
                .map(|d| d.known_size())
                .try_fold(1u64, |p, s| s.map(|s| p.saturating_mul(s)));
            if let ([v], Some(k)) = (&open[..], known) {
                if k > 0 && n % k == 0 && *n / k > 1 {
                    close.push((*v, n / k, *o));
                }
            }
        }
        let mut any = false;
        for (v, o) in finish {
            if self.row_unsolved(v) {
                self.solve_row(v, Row::default(), &o)?;
                any = true;
            }
        }
        for (v, size, o) in close {
            if self.row_unsolved(v) {
                self.solve_row(v, Row::closed(vec![Dim::size(size)]), &o)?;
                any = true;
            }
        }
        Ok(any)
    }

    /// Whether a waiting slice waits for the open row variable `v`, the
    /// operand's batch row.
    pub(super) fn sliced_while_open(&self, v: RowVar) -> bool {
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
    pub(super) fn close_param_rows(&mut self, ti: usize) -> Res<()> {
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
                        "You forgot to specify the hidden dimension(s): the {kind} row of param '{name}' is not determined by its uses (shape so far: {}); write its axes in the type of the param",
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
    pub(super) fn close_param_dims(&mut self, ti: usize) -> Res<()> {
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
                            "You forgot to specify the hidden dimension(s): axis {i} of the {kind} row of param '{name}' is not determined by its uses (shape so far: {}); write its size in the type of the param",
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
    pub(super) fn close_to_lubs(&mut self) -> Res<()> {
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
                return err(
                    o,
                    ShapeErrorKind::Unsolved,
                    format!("cannot solve the constraint {c:?}"),
                );
            }
        }
        Ok(self.subst_shape(shape))
    }

    pub(super) fn row_vars_of(&self, c: &Constraint) -> Vec<RowVar> {
        let rows: Vec<&Row> = match c {
            Constraint::RowEq(a, b) => vec![a, b],
            Constraint::RowIneq { cur, subr } => vec![cur, subr],
            Constraint::TotalElems { rows, .. } | Constraint::TotalElemsOfDim { rows, .. } => {
                rows.iter().collect()
            }
            // Forced from below: only the operand's row is closed to let
            // the slice proceed.
            Constraint::Slice { operand, .. } => vec![operand],
            _ => vec![],
        };
        rows.into_iter()
            .filter_map(|r| self.splice_row(r).var)
            .collect()
    }
}
