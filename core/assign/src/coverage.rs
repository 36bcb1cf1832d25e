//! Whether an assignment writes every cell of its result exactly once: the
//! one definition of the decision that lets an assignment skip the
//! neutral-element initialization of its result (the lowering from
//! `ocannl_shape`, backprop's first contribution to a gradient) and lets a
//! node be inlined (virtualization).
//!
//! A result's index map writes each cell once over an iteration space when
//! it is a bijection onto the buffer: every axis is indexed by a distinct
//! iterator of exactly the axis's size, or is an axis of one cell indexed
//! by 0; and every iterator of more than one value indexes some axis. A
//! diagonal (`i=>ii`: one iterator on two axes), a fixed index on an axis
//! of several cells, a broadcast write or a reduction (an iterator that
//! indexes no axis), and compound indices (padded, strided, symbols) do not.

use std::fmt;

use crate::Affine;

/// Why an index map does not write each cell of a buffer exactly once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotOnce {
    /// The map has `map` expressions for a buffer of rank `rank`.
    Rank { map: usize, rank: usize },
    /// Axis `axis` is written at only some of its cells: a fixed index on
    /// an axis of several cells, or an iterator of another size.
    Partial { axis: usize },
    /// Iterator `iterator` indexes axis `axis` and an earlier one too: only
    /// the diagonal is written.
    Diagonal { axis: usize, iterator: usize },
    /// Axis `axis` is indexed by an expression that is not one iterator or
    /// a constant (`index`: padded or strided indices, symbols).
    Pattern { axis: usize, index: String },
    /// Iterator `iterator` (of `size` values) indexes no axis: each cell
    /// is written `size` times.
    Reduction { iterator: usize, size: u64 },
    /// The iteration space is empty: no cell is written.
    Empty,
}

impl fmt::Display for NotOnce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotOnce::Rank { map, rank } => write!(
                f,
                "an index map of {map} expression(s) for a buffer of rank {rank}"
            ),
            NotOnce::Partial { axis } => write!(f, "it writes only part of axis {axis}"),
            NotOnce::Diagonal { axis, iterator } => write!(
                f,
                "it writes a diagonal: iterator d{iterator} indexes axis {axis} and an earlier axis"
            ),
            NotOnce::Pattern { axis, index } => write!(f, "axis {axis} is written at {index}"),
            NotOnce::Reduction { iterator, size } => write!(
                f,
                "iterator d{iterator} of size {size} indexes no axis of the result: each cell is written {size} times"
            ),
            NotOnce::Empty => write!(f, "its iteration space is empty: no cell is written"),
        }
    }
}

/// `Ok` when `map` (one expression per axis) writes every cell of a buffer
/// of sizes `dims` exactly once over the iteration space `space`; else the
/// first reason it does not, axes checked in order, then iterators.
pub fn check_writes_each_cell_once(
    map: &[Affine],
    space: &[u64],
    dims: &[u64],
) -> Result<(), NotOnce> {
    if map.len() != dims.len() {
        return Err(NotOnce::Rank {
            map: map.len(),
            rank: dims.len(),
        });
    }
    if space.contains(&0) {
        // No point: every cell is written once only if there is none.
        return match dims.contains(&0) {
            true => Ok(()),
            false => Err(NotOnce::Empty),
        };
    }
    let mut seen = vec![false; space.len()];
    for (axis, (e, &d)) in map.iter().zip(dims).enumerate() {
        match e {
            Affine::Dim(p) if *p < space.len() => {
                // An iterator of one value is 0 on every axis it indexes.
                if seen[*p] && space[*p] > 1 {
                    return Err(NotOnce::Diagonal { axis, iterator: *p });
                }
                seen[*p] = true;
                if space[*p] != d {
                    return Err(NotOnce::Partial { axis });
                }
            }
            Affine::Const(0) if d == 1 => {}
            Affine::Const(c) if *c >= 0 && (*c as u64) < d => {
                return Err(NotOnce::Partial { axis })
            }
            other => {
                return Err(NotOnce::Pattern {
                    axis,
                    index: other.to_string(),
                })
            }
        }
    }
    match (0..space.len()).find(|&p| !seen[p] && space[p] > 1) {
        Some(p) => Err(NotOnce::Reduction {
            iterator: p,
            size: space[p],
        }),
        None => Ok(()),
    }
}

/// Whether `map` writes every cell of a buffer of sizes `dims` exactly
/// once over `space` (see [`check_writes_each_cell_once`]).
pub fn writes_each_cell_once(map: &[Affine], space: &[u64], dims: &[u64]) -> bool {
    check_writes_each_cell_once(map, space, dims).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Affine::{Const, Dim, Sym};

    #[test]
    fn a_bijection_writes_each_cell_once() {
        assert!(writes_each_cell_once(&[Dim(0), Dim(1)], &[3, 4], &[3, 4]));
        // Permuted iterators (a transpose), axes of one cell at 0, and
        // iterators of one value that index nothing.
        assert!(writes_each_cell_once(&[Dim(1), Dim(0)], &[3, 4], &[4, 3]));
        assert!(writes_each_cell_once(&[Const(0), Dim(0)], &[5], &[1, 5]));
        assert!(writes_each_cell_once(&[Dim(1)], &[1, 5], &[5]));
        assert!(writes_each_cell_once(&[Dim(0), Dim(0)], &[1], &[1, 1]));
        assert!(writes_each_cell_once(&[], &[], &[]));
        // Nothing to write, over no point.
        assert!(writes_each_cell_once(&[Dim(0)], &[0], &[0]));
    }

    #[test]
    fn a_diagonal_is_not_every_cell() {
        // `i=>ii`: the sizes match, but one iterator indexes both axes.
        assert_eq!(
            check_writes_each_cell_once(&[Dim(0), Dim(0)], &[3], &[3, 3]),
            Err(NotOnce::Diagonal {
                axis: 1,
                iterator: 0
            })
        );
        // `ij=>iij`.
        assert!(!writes_each_cell_once(
            &[Dim(0), Dim(0), Dim(1)],
            &[2, 3],
            &[2, 2, 3]
        ));
    }

    #[test]
    fn fixed_indices_sizes_reductions_and_patterns() {
        // A fixed index on an axis of several cells.
        assert_eq!(
            check_writes_each_cell_once(&[Dim(0), Const(2)], &[3], &[3, 4]),
            Err(NotOnce::Partial { axis: 1 })
        );
        assert_eq!(
            check_writes_each_cell_once(&[Const(0)], &[], &[4]),
            Err(NotOnce::Partial { axis: 0 })
        );
        // An iterator smaller than its axis.
        assert_eq!(
            check_writes_each_cell_once(&[Dim(0)], &[2], &[3]),
            Err(NotOnce::Partial { axis: 0 })
        );
        // A reduction, and a broadcast write.
        assert_eq!(
            check_writes_each_cell_once(&[Dim(0)], &[3, 4], &[3]),
            Err(NotOnce::Reduction {
                iterator: 1,
                size: 4
            })
        );
        assert!(!writes_each_cell_once(&[Const(0)], &[7], &[1]));
        // Compound indices and symbols.
        let padded = Affine::sum(Dim(0), Const(-1));
        assert!(matches!(
            check_writes_each_cell_once(&[padded], &[3], &[3]),
            Err(NotOnce::Pattern { axis: 0, .. })
        ));
        assert!(!writes_each_cell_once(&[Sym(0)], &[], &[1]));
        // A cell and no point.
        assert_eq!(
            check_writes_each_cell_once(&[], &[0], &[]),
            Err(NotOnce::Empty)
        );
        assert!(!writes_each_cell_once(&[Dim(3)], &[2], &[2]));
        assert_eq!(
            check_writes_each_cell_once(&[Dim(0)], &[2], &[2, 1]),
            Err(NotOnce::Rank { map: 1, rank: 2 })
        );
    }
}
