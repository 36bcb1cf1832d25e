//! The solver's environment: the entry of every variable (solved, or its
//! bounds and links), the tables keyed by variable, substitution of solved
//! variables, and the bounded search along links.

use super::*;

/// How deep and wide cycle detection between linked variables looks.
pub(super) const LINK_DEPTH: usize = 4;

pub(super) const LINK_FANOUT: usize = 4;

#[derive(Clone, Debug, Default)]
pub(super) struct DimBounds {
    /// Least upper bound: a size > 1 the variable is either equal to or 1.
    pub(super) lub: Option<Dim>,
    pub(super) at_least: u64,
    /// An operand slot's fixed index: the operand's axis below this
    /// variable is read at that index, so it cannot be a broadcast 1: every
    /// dim below it equals it.
    pub(super) indexes_below: bool,
    /// Variables known to be >= this one.
    pub(super) cur: VarSet<DimVar>,
    /// Variables known to be <= this one.
    pub(super) subr: VarSet<DimVar>,
}

#[derive(Clone, Debug)]
pub(super) enum DimEntry {
    /// The solution, and the op whose constraint decided it.
    Solved(Dim, usize),
    Bounds(DimBounds),
}

#[derive(Clone, Debug, Default)]
pub(super) struct RowBounds {
    /// Rows known to be >= this variable's row (upper bounds). Bounds of the
    /// variables above this one (`cur`) apply too; they are gathered when
    /// needed rather than copied down.
    pub(super) ubs: Vec<Row>,
    pub(super) cur: VarSet<RowVar>,
    pub(super) subr: VarSet<RowVar>,
    /// The row is known from below: it is bounded below by a closed row,
    /// or by a row known from below (every variable's fixed part already
    /// holds what is below it, so forced from below it has no more axes),
    /// or it stands for axes an einsum operand slot leaves untracked. A
    /// param's row bounded above by such a row is bounded by its empty
    /// least value; a row bounded above by nothing known is undetermined.
    pub(super) from_below: bool,
}

#[derive(Clone, Debug)]
pub(super) enum RowEntry {
    Solved(Row),
    Bounds(RowBounds),
}

/// A small set of variables, in insertion order. Most variables are linked
/// to a few others: up to four are stored inline (in the space of a `Vec`),
/// so that linking does not allocate.
#[derive(Clone, Debug)]
pub(super) struct VarSet<K>(pub(super) smallvec::SmallVec<[K; 4]>);

impl<K> Default for VarSet<K> {
    fn default() -> Self {
        VarSet(smallvec::SmallVec::new())
    }
}

impl<K: PartialEq + Copy> VarSet<K> {
    pub(super) fn insert(&mut self, k: K) -> bool {
        if self.0.contains(&k) {
            return false;
        }
        self.0.push(k);
        true
    }

    pub(super) fn iter(&self) -> std::iter::Copied<std::slice::Iter<'_, K>> {
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
pub(super) struct VarMap<K, V> {
    pub(super) slots: Vec<Option<V>>,
    pub(super) _k: std::marker::PhantomData<K>,
}

impl<K, V> Default for VarMap<K, V> {
    fn default() -> Self {
        VarMap {
            slots: vec![],
            _k: std::marker::PhantomData,
        }
    }
}

pub(super) trait VarId: Copy {
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
    pub(super) fn get(&self, k: &K) -> Option<&V> {
        self.slots.get(k.index()).and_then(Option::as_ref)
    }

    pub(super) fn insert(&mut self, k: K, v: V) -> Option<V> {
        let i = k.index();
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        self.slots[i].replace(v)
    }

    pub(super) fn get_or_insert_with(&mut self, k: K, f: impl FnOnce() -> V) -> &mut V {
        let i = k.index();
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        self.slots[i].get_or_insert_with(f)
    }

    pub(super) fn remove(&mut self, k: &K) -> Option<V> {
        self.slots.get_mut(k.index()).and_then(Option::take)
    }
}

/// The links of a variable's entry: the variables above and below it while
/// it is unsolved (`None` once solved).
pub(super) trait Linked<K> {
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
pub(super) fn reaches<K: VarId + PartialEq, V: Linked<K>>(
    map: &VarMap<K, V>,
    to: K,
    from: K,
) -> bool {
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
pub(super) fn bounded_reach<'a, K: PartialEq + Copy + 'a>(
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
