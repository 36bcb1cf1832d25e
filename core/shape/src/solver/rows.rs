//! Rows: equations, inequalities (broadcasting to more axes), the slice
//! equation, row variables' upper bounds and least upper bounds, and the
//! rows known from below.

use super::{
    env::{reaches, RowBounds},
    *,
};

/// The most axes a row may have. Constraints that relate a row to itself
/// with more axes (`v >= w >= v,n` through other variables) would grow it
/// forever; the bound stops them with an error after a few steps.
pub const MAX_AXES: usize = 1024;

fn check_axes(a: &Row, b: &Row, o: &Origin) -> Res<()> {
    if a.num_fixed().max(b.num_fixed()) > MAX_AXES {
        return err(
            o,
            ShapeErrorKind::RankCycle,
            format!(
                "a row would need more than {MAX_AXES} axes: the shapes ask for an infinite number of axes (a row variable bounded by itself with more axes, through other tensors)"
            ),
        );
    }
    Ok(())
}

/// How an open row is related to a closed one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Rel {
    /// `open = closed`.
    Eq,
    /// `closed >= open`: the closed row is the result, the open one the
    /// operand.
    Ineq,
}

/// How many linked variables the search for a row's upper bounds visits.
const GATHER_LIMIT: usize = 32;

impl Solver {
    pub(super) fn slice(
        &mut self,
        operand: Row,
        result: Row,
        sliced: Dim,
        o: &Origin,
    ) -> Res<bool> {
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

    pub(super) fn row_eq(&mut self, a: Row, b: Row, o: &Origin) -> Res<bool> {
        self.compress_row(&a);
        self.compress_row(&b);
        let (a, b) = (self.splice_owned(a), self.splice_owned(b));
        if a == b {
            return Ok(false);
        }
        check_axes(&a, &b, o)?;
        match (a.var, b.var) {
            (None, None) => {
                if a.end.len() != b.end.len() {
                    return err(
                        o,
                        ShapeErrorKind::Mismatch,
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
            (Some(_), None) => self.align_open_closed(a, b, Rel::Eq, o),
            (None, Some(_)) => self.align_open_closed(b, a, Rel::Eq, o),
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
                        o,
                        ShapeErrorKind::RankCycle,
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

    /// Lines up an open row against a closed row: the open row's fixed dims
    /// against the closed row's edges (right part from the right, left part
    /// from the left), and its variable against the middle. For `Rel::Eq`
    /// the dims are equal and the variable is the middle; for `Rel::Ineq`
    /// the closed row is the result (`closed >= open`): its dims bound the
    /// open row's and the middle bounds the variable.
    pub(super) fn align_open_closed(
        &mut self,
        open: Row,
        closed: Row,
        rel: Rel,
        o: &Origin,
    ) -> Res<bool> {
        let n = closed.end.len();
        if open.num_fixed() > n {
            let message = match rel {
                Rel::Eq => format!(
                    "number of axes mismatch: [{open}] has at least {} but [{closed}] has {n}",
                    open.num_fixed()
                ),
                Rel::Ineq => format!(
                    "number of axes mismatch: the operand has at least {} axes [{open}] but the result only {n} [{closed}]",
                    open.num_fixed()
                ),
            };
            return err(o, ShapeErrorKind::Mismatch, message);
        }
        let off = n - open.end.len();
        // An operand's left part is lined up with the result's left part,
        // which assumes its variable takes the axes in between; once the
        // variable is known (closing may give it fewer), the whole
        // inequality is checked again.
        let recheck =
            (rel == Rel::Ineq && !open.beg.is_empty() && off > open.beg.len()).then(|| {
                Constraint::RowIneq {
                    cur: closed.clone(),
                    subr: open.clone(),
                }
            });
        let pairs = open
            .end
            .iter()
            .enumerate()
            .rev()
            .map(|(i, d)| (*d, closed.end[off + i]))
            .chain(
                open.beg
                    .iter()
                    .enumerate()
                    .map(|(i, d)| (*d, closed.end[i])),
            );
        let mut changed = false;
        for (d, c) in pairs.collect::<smallvec::SmallVec<[(Dim, Dim); 8]>>() {
            changed |= match rel {
                Rel::Eq => self.dim_eq(d, c, o)?,
                Rel::Ineq => self.dim_ineq(c, d, o)?,
            };
        }
        let middle = Row::closed(closed.end[open.beg.len()..off].to_vec());
        let Some(v) = open.var else {
            unreachable!("align_open_closed takes an open row")
        };
        changed |= match rel {
            Rel::Eq => self.solve_row(v, middle, o)?,
            Rel::Ineq => self.add_row_ub(v, middle, o)?,
        };
        if let Some(c) = recheck {
            if self.row_unsolved(v) {
                self.defer(c, o)?;
            } else {
                self.push(c, o);
            }
        }
        Ok(changed)
    }

    pub(super) fn solve_row(&mut self, v: RowVar, value: Row, o: &Origin) -> Res<bool> {
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
    pub(super) fn solve_row_one(
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
            return err(
                o,
                ShapeErrorKind::RankCycle,
                "infinite number of axes by self-reference",
            );
        }
        // Every row broadcasts the empty row, and only the empty row
        // broadcasts to it: closing a row to no axes (the common case when
        // closing) settles its links at once.
        if let Some(w) = value.var {
            // `w` has the axes around it in `value`, and those around `v`.
            let around = self.axes_around.get(&v).copied().unwrap_or(0) + value.num_fixed();
            if around > MAX_AXES {
                return err(
                    o,
                    ShapeErrorKind::RankCycle,
                    format!(
                        "a row would need more than {MAX_AXES} axes: the shapes ask for an infinite number of axes (a row variable bounded by itself with more axes, through other tensors)"
                    ),
                );
            }
            let e = self.axes_around.get_or_insert_with(w, || 0);
            *e = (*e).max(around);
        }
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

    pub(super) fn row_ineq(&mut self, cur: Row, subr: Row, o: &Origin) -> Res<bool> {
        self.compress_row(&cur);
        self.compress_row(&subr);
        let (cur, subr) = (self.splice_owned(cur), self.splice_owned(subr));
        if cur == subr {
            return Ok(false);
        }
        check_axes(&cur, &subr, o)?;
        if cur.var.is_none() && subr.var.is_some() {
            return self.align_open_closed(subr, cur, Rel::Ineq, o);
        }
        // Broadcasting aligns rows from the right, as the lowering reads
        // them: the pairs of dims certainly aligned are the shared right
        // edge. (Left parts are not paired: with more axes in the middle of
        // `cur` than in `subr`'s, they would not face each other.)
        let ke = cur.end.len().min(subr.end.len());
        let mut changed = false;
        for i in 0..ke {
            let (c, s) = (
                &cur.end[cur.end.len() - 1 - i],
                &subr.end[subr.end.len() - 1 - i],
            );
            changed |= self.dim_ineq(*c, *s, o)?;
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
            (None, Some(_)) => {
                unreachable!("an open operand under a closed result is lined up above")
            }
            (Some(cv), Some(sv)) => {
                if cv == sv {
                    if cur.num_fixed() != subr.num_fixed() {
                        return err(
                            o,
                            ShapeErrorKind::RankCycle,
                            format!(
                                "infinite number of axes by self-reference: [{cur}] >= [{subr}]"
                            ),
                        );
                    }
                    if cur.beg.len() == subr.beg.len() {
                        // The same variable at the same place: the left
                        // parts face each other too.
                        for (c, s) in cur.beg.iter().zip(&subr.beg) {
                            changed |= self.dim_ineq(*c, *s, o)?;
                        }
                        return Ok(changed);
                    }
                    // The same variable at shifted places (`1,..v..` over
                    // `..v..,2`): what faces what depends on the variable.
                    return self
                        .defer(Constraint::RowIneq { cur, subr }, o)
                        .map(|_| changed);
                }
                if subr.beg.is_empty() && subr.end.len() <= cur.end.len() {
                    // `sv` faces the rest of `cur`.
                    let rest = Row {
                        beg: cur.beg.clone(),
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
                    // cur needs more axes: whatever they face, they can be
                    // the rightmost of its variable.
                    return self.widen_then_relate(cv, 0, deficit as usize, cur, subr, o);
                }
                // Where subr's other fixed dims meet cur depends on the
                // variables: wait.
                self.defer(Constraint::RowIneq { cur, subr }, o)
                    .map(|_| changed)
            }
        }
    }

    /// Solves `cv` (the variable of `cur`) to a template of `nb` fresh dims,
    /// a fresh row variable and `ne` fresh dims, then relates `cur >= subr`
    /// again. The template covers the deficit of axes, so the second round
    /// relates the dims: no further template, no deeper recursion.
    pub(super) fn widen_then_relate(
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
    pub(super) fn mark_from_below(&mut self, v: RowVar) {
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
    pub(super) fn is_from_below(&self, v: RowVar) -> bool {
        matches!(self.rows.get(&v), Some(RowEntry::Bounds(b)) if b.from_below)
    }

    /// Whether `to <= ... <= from` by recorded row links.
    pub(super) fn row_reaches(&self, to: RowVar, from: RowVar) -> bool {
        reaches(&self.rows, to, from)
    }

    /// Whether `v` is not solved (it may have no entry yet).
    pub(super) fn row_unsolved(&self, v: RowVar) -> bool {
        matches!(self.rows.get(&v), None | Some(RowEntry::Bounds(_)))
    }

    /// Records `ub >= v`.
    pub(super) fn add_row_ub(&mut self, v: RowVar, ub: Row, o: &Origin) -> Res<bool> {
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
    pub(super) fn gather_ubs(&self, v: RowVar) -> Vec<Row> {
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
    pub(super) fn row_lub(&self, v: RowVar) -> Option<Row> {
        match self.rows.get(&v) {
            None => return None,
            Some(RowEntry::Solved(_)) => return None,
            Some(RowEntry::Bounds(b)) if b.ubs.is_empty() && b.cur.0.is_empty() => return None,
            _ => {}
        }
        let mut ubs = self.gather_ubs(v);
        ubs.retain(|r| r.num_fixed() > 0 || r.var.is_none_or(|w| self.is_from_below(w)));
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
}
