//! The solver's environment: the entry of every variable (solved, or its
//! bounds and links), the tables keyed by variable, and the bounded search
//! along links.

use crate::shape::{Dim, DimVar, Row, RowVar};

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
