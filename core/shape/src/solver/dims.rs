//! Dims: equations, inequalities (broadcasting of a dim 1), least upper
//! bounds, `At_least` sizes, convolution sizes and element counts.

use super::{
    env::{reaches, DimBounds},
    *,
};

impl Solver {
    /// The variable whose solution `d` resolves to, if any.
    pub(super) fn solved_var(&self, d: &Dim) -> Option<DimVar> {
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
    pub(super) fn share_label(&mut self, raw_a: &Dim, a: &Dim, raw_b: &Dim, b: &Dim) -> bool {
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
    pub(super) fn mismatch<T>(&self, dims: &[&Dim], o: &Origin, message: String) -> Res<T> {
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
    pub(super) fn known_agree(
        &mut self,
        raw_a: &Dim,
        a: &Dim,
        raw_b: &Dim,
        b: &Dim,
        o: &Origin,
    ) -> Res<bool> {
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

    pub(super) fn dim_eq(&mut self, raw_a: Dim, raw_b: Dim, o: &Origin) -> Res<bool> {
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

    pub(super) fn solve_dim(&mut self, v: DimVar, value: Dim, o: &Origin) -> Res<bool> {
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

    pub(super) fn dim_ineq(&mut self, raw_cur: Dim, raw_subr: Dim, o: &Origin) -> Res<bool> {
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
            (
                Dim::Known { .. },
                Dim::Known {
                    size: 1,
                    label: None,
                },
            ) => Ok(false),
            (Dim::Known { .. }, Dim::Known { .. }) => {
                self.known_agree(&raw_cur, &cur, &raw_subr, &subr, o)
            }
            (
                Dim::Var(_),
                Dim::Known {
                    size: 1,
                    label: None,
                },
            ) => Ok(false),
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
                                return err(
                                    o,
                                    ShapeErrorKind::Mismatch,
                                    format!("label mismatch: {l} vs {cur}"),
                                );
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
    pub(super) fn dim_reaches(&self, to: DimVar, from: DimVar) -> bool {
        reaches(&self.dims, to, from)
    }

    pub(super) fn at_least(&mut self, d: Dim, n: u64, o: &Origin) -> Res<bool> {
        match self.subst_dim(&d) {
            Dim::Known { size, .. } => {
                if size < n {
                    return err(
                        o,
                        ShapeErrorKind::IndexOutOfRange,
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
    pub(super) fn affine(
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
        // A pure stride (`2*i`, `2*i+1`: no kernel) spans `stride*output`
        // cells, as in OCANNL (its offset does not size the axis).
        let pure = kernel.is_none() && !padded;
        let extent = |out: u64, k: u64| {
            if padded || pure {
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
            if pure {
                if inp % stride.max(1) != 0 {
                    return err(
                        o,
                        ShapeErrorKind::Convolution,
                        format!("the input dimension {inp} is not a multiple of the stride {stride} (a strided axis spans stride x output cells)"),
                    );
                }
                return Ok(inp / stride.max(1));
            }
            let span = dilation.saturating_mul(k.max(1) - 1).saturating_add(1);
            if inp < span {
                return err(
                    o,
                    ShapeErrorKind::Convolution,
                    format!("the input dimension {inp} is smaller than the kernel extent {span}"),
                );
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

    pub(super) fn total_elems(
        &mut self,
        rows: Vec<Row>,
        n: u64,
        literal: bool,
        o: &Origin,
    ) -> Res<bool> {
        let rows: Vec<Row> = rows.iter().map(|r| self.subst_row(r)).collect();
        let (known, unknown) = self.known_product(&rows);
        let open = rows.iter().any(|r| r.var.is_some());
        let whose = if literal {
            format!("the literal has {n} elements")
        } else {
            format!("the row must have {n} elements in all")
        };
        if !open && unknown.is_empty() {
            if known != n {
                return err(
                    o,
                    ShapeErrorKind::ElementCount,
                    format!("{whose} but the shape has {known}"),
                );
            }
            return Ok(false);
        }
        if known > n || n % known.max(1) != 0 {
            return err(
                o,
                ShapeErrorKind::ElementCount,
                format!("{whose}, not a multiple of the {known} of the known dims"),
            );
        }
        if !open && unknown.len() == 1 {
            return self.dim_eq(unknown[0], Dim::size(n / known), o);
        }
        self.defer(Constraint::TotalElems { rows, n, literal }, o)
    }

    /// The product of the known dims of `rows`, and their unknown dims.
    fn known_product(&self, rows: &[Row]) -> (u64, Vec<Dim>) {
        let mut known = 1u64;
        let mut unknown = vec![];
        for r in rows {
            for d in r.dims() {
                match d.known_size() {
                    Some(s) => known = known.saturating_mul(s),
                    None => unknown.push(*d),
                }
            }
        }
        (known, unknown)
    }

    /// The rows' dims multiply to `dim`: a total-elements constraint once
    /// `dim` is known; `dim` is the product once the rows are.
    pub(super) fn total_elems_of_dim(&mut self, rows: Vec<Row>, dim: Dim, o: &Origin) -> Res<bool> {
        let dim = self.subst_dim(&dim);
        if let Some(n) = dim.known_size() {
            return self.total_elems(rows, n, false, o);
        }
        let rows: Vec<Row> = rows.iter().map(|r| self.subst_row(r)).collect();
        let (known, unknown) = self.known_product(&rows);
        if rows.iter().all(|r| r.var.is_none()) && unknown.is_empty() {
            return self.dim_eq(dim, Dim::size(known), o);
        }
        self.defer(Constraint::TotalElemsOfDim { rows, dim }, o)
    }
}
