//! Register-blocked contractions: which assignments the CPU computes with
//! its vector kernel, over which iterators, with which tile, how the
//! operands are read and which loop runs in parallel.
//!
//! A contraction `lhs =+ a * b` qualifies when, in its gather form (see
//! [`crate::gather`]: a convolution's input gradient, which scatters, is
//! turned into one that gathers, a strided one into one per phase, each a
//! kernel of its own), the result is indexed by iterators (each on one
//! axis, with coefficient 1, or `S` in a phase) and constants and every
//! index is a sum of iterators times constants ([`Linear`]). Its iterators
//! play four roles:
//!
//! - the columns `j`: the iterator along the result's contiguous cells,
//!   which `b` reads and `a` does not, merged with the next ones out while
//!   their cells stay contiguous in the result and in `b` (a kernel
//!   gradient's `kw, ic`), so that narrow axes still fill vectors;
//! - the rows `i`: one iterator of the result that `a` reads and `b` does
//!   not;
//! - the reduction `k`: every iterator the result does not depend on, loops
//!   inside the tile, in the order in which `a`'s cells are nearest;
//! - every other iterator is a loop around the tiles.
//!
//! The kernel keeps a `rows x (vectors * lanes)` tile of the result in
//! vector registers through the whole reduction, broadcasting one cell of
//! `a` per row and step and reading one row of `b` per step: straight from
//! `b` when its columns are contiguous there, else from panels packed per
//! block of reduction steps. The last rows are a tile of fewer rows, the
//! last columns masked vectors. An operand whose index may leave its axis
//! (a padded convolution) is read from a padded copy ([`Padded`]). Matmuls
//! in every operand layout, batched and multi-axis contractions,
//! convolutions (strides, dilations, padding) and their kernel and input
//! gradients all fit.

use ocannl_assign::Affine;
use ocannl_ops::{Accum, BinaryOp, NumOp};

use crate::{
    gather::{gather_forms, Form},
    linear::{padding, shifted, Linear, Padded},
    target::Target,
    KERNEL_DEPTH, PARALLEL_WORK,
};

/// `b` is packed when it takes more than this many bytes (and its panels
/// serve at least [`PACK_REUSE`] row tiles): read straight, its rows lie
/// far apart.
pub const PACK_BYTES: u64 = 64 << 10;
/// Row tiles that must read each packed panel for packing to pay off.
pub const PACK_REUSE: u64 = 4;
/// A padded copy may hold this many times the operand's cells (plus
/// [`PAD_SLACK`]), and at most [`PAD_MAX_BYTES`].
pub const PAD_GROWTH: u64 = 4;
pub const PAD_SLACK: u64 = 1 << 16;
pub const PAD_MAX_BYTES: u64 = 1 << 30;
/// Contractions of fewer multiply-adds stay in scalar loops: the kernel's
/// code (several tile shapes) would cost more to compile than it saves.
pub const MIN_WORK: u64 = 1 << 12;

/// How the kernel reads an operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    /// The assignment's buffer: 1 or 2.
    pub buffer: usize,
    /// Read from a copy padded with the padding value (0).
    pub padded: Option<Padded>,
    /// The cell read at each point (of the copy when there is one).
    pub at: Linear,
}

/// How `b` is packed: into panels of `vectors * lanes` columns per block of
/// `block` steps of the outermost reduced iterator, `panels` panels at a
/// time (a chunk of columns whose panels stay in the L2 cache while every
/// row tile reads them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pack {
    pub block: u64,
    pub panels: u64,
}

/// The register tile: `rows` rows of `vectors` vectors of `lanes` cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    pub rows: u64,
    pub vectors: u64,
    pub lanes: u64,
}

/// Which loop runs in parallel (its iterations write disjoint cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parallel {
    Sequential,
    /// The loop over `outer[p]`.
    Outer(usize),
    /// The loop over the whole row tiles.
    Rows,
}

/// The plan of a register-blocked contraction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contraction {
    /// The space the kernel runs over: the assignment's, or its gather
    /// form's.
    pub space: Vec<u64>,
    /// The multiply-adds of the assignment the plan computes (see
    /// [`Form::work`]).
    pub work: u64,
    /// The result's cell at each point.
    pub lhs: Linear,
    /// The operand broadcast per row.
    pub a: Operand,
    /// The operand read as vectors along the columns.
    pub b: Operand,
    /// The rows.
    pub i: usize,
    /// The columns, outermost first: together they run over `n`
    /// contiguous cells of the result (coefficient 1 for the flattened
    /// column) and, with coefficient `b_lane_coef`, of `b`.
    pub j: Vec<usize>,
    /// The reduced iterators, outermost loop first.
    pub k: Vec<usize>,
    /// The loops around the tiles, outermost first: the first `outer_b`
    /// are those `b` depends on (a packed `b` is packed inside them).
    pub outer: Vec<usize>,
    pub outer_b: usize,
    pub pack: Option<Pack>,
    pub tile: Tile,
    pub parallel: Parallel,
    /// Whether the points cover every cell of the result (each axis a
    /// plain iterator over all of it, or a constant on an axis of one
    /// cell).
    pub covers_result: bool,
}

impl Contraction {
    /// The columns: cells along the flattened `j`.
    pub fn n(&self) -> u64 {
        self.j.iter().map(|&d| self.space[d]).product()
    }

    /// The rows.
    pub fn m(&self) -> u64 {
        self.space[self.i]
    }

    /// `b`'s stride along the flattened columns (1 unless packed).
    pub fn b_lane_coef(&self) -> i64 {
        self.b.at.coef[*self.j.last().expect("a column iterator")]
    }

    /// Reduction steps per point of the other loops.
    pub fn k_steps(&self) -> u64 {
        self.k.iter().map(|&d| self.space[d]).product()
    }

    /// Reduction steps of the iterators inside the outermost one.
    pub fn k_inner(&self) -> u64 {
        self.k[1..].iter().map(|&d| self.space[d]).product()
    }

    /// The steps of a packed block (the last block may have fewer).
    pub fn block_steps(&self) -> u64 {
        self.pack
            .map_or(self.k_steps(), |p| p.block * self.k_inner())
    }

    /// Cells of a column tile.
    pub fn tile_columns(&self) -> u64 {
        self.tile.vectors * self.tile.lanes
    }

    /// Whether the kernel can start every cell of the result at 0 itself
    /// (for an assignment that starts at the neutral element): each cell
    /// is in exactly one tile, which runs the whole reduction at once.
    pub fn starts_result(&self) -> bool {
        self.covers_result && self.pack.is_none_or(|p| p.block >= self.space[self.k[0]])
    }

    /// Whole row tiles and the rows of the last, smaller one (0: none).
    pub fn row_tiles(&self) -> (u64, u64) {
        (self.m() / self.tile.rows, self.m() % self.tile.rows)
    }

    /// Whole column tiles and the last one's vectors and the cells of its
    /// last vector (`None`: none).
    pub fn column_tiles(&self) -> (u64, Option<(u64, u64)>) {
        let (n, w, l) = (self.n(), self.tile_columns(), self.tile.lanes);
        let rest = n % w;
        (
            n / w,
            (rest > 0).then(|| (rest.div_ceil(l), rest - (rest.div_ceil(l) - 1) * l)),
        )
    }

    /// Column tiles including the last, partial one.
    pub fn column_panels(&self) -> u64 {
        self.n().div_ceil(self.tile_columns())
    }

    /// The chunks of packed panels the columns are computed in (1: all at
    /// once).
    pub fn column_chunks(&self) -> u64 {
        self.pack
            .map_or(1, |p| self.column_panels().div_ceil(p.panels.max(1)))
    }
}

/// Bytes of an element type's stored cells; `None` where the kernel does
/// not apply. 16-bit cells are computed in f32 (`Elt::compute`).
pub fn element(elt: &str) -> Option<u64> {
    match elt {
        "f16" | "bf16" => Some(2),
        "f32" => Some(4),
        "f64" => Some(8),
        _ => None,
    }
}

/// The contraction plans of the assignment `lhs =accum= op(a, b)` over
/// `space` with index lists `maps` (the result's first) into buffers of
/// `dims` and elements `elt`, for `target`, if the kernel applies: one
/// kernel, or one per phase of a strided input gradient (see
/// [`crate::gather`]), which together compute it.
pub fn plan_contraction(
    accum: Accum,
    op: NumOp,
    space: &[u64],
    maps: &[Vec<Affine>],
    dims: &[Vec<u64>],
    elt: &str,
    target: &Target,
) -> Option<Vec<Contraction>> {
    if accum != Accum::Add
        || op != NumOp::Binary(BinaryOp::Mul)
        || maps.len() != 3
        || dims.len() != 3
    {
        return None;
    }
    // Tiles and panels hold values as computed: f32 for 16-bit cells.
    let stored = element(elt)?;
    let bytes = stored.max(4);
    if space
        .iter()
        .try_fold(1u64, |w, &d| w.checked_mul(d))
        .is_some_and(|w| w < MIN_WORK)
    {
        return None;
    }
    gather_forms(space, maps, dims)?
        .into_iter()
        .map(|f| plan_form(f, dims, (stored, bytes), target))
        .collect()
}

/// The plan of one form of a contraction (see [`plan_contraction`]).
fn plan_form(
    form: Form,
    dims: &[Vec<u64>],
    (stored, bytes): (u64, u64),
    target: &Target,
) -> Option<Contraction> {
    let Form { space, maps, work } = form;
    let n = space.len();
    // The result: constants, and iterators (each once) with coefficient 1,
    // or, in a strided phase, 2 or more.
    // Every point's cell inside the result.
    let mut lhs_dims: Vec<usize> = vec![];
    for (e, &cells) in maps[0].iter().zip(&dims[0]) {
        let lin = Linear::of_expr(e, n)?;
        let used: Vec<usize> = (0..n).filter(|&d| lin.uses(d)).collect();
        let last = |d: usize| {
            let steps = i64::try_from(space[d]).ok()?.checked_sub(1)?;
            lin.coef[d].checked_mul(steps)?.checked_add(lin.offset)
        };
        match used[..] {
            [] => {}
            [d] if lin.coef[d] >= 1
                && lin.offset >= 0
                && last(d).is_some_and(|x| x < cells as i64)
                && !lhs_dims.contains(&d) =>
            {
                lhs_dims.push(d)
            }
            _ => return None,
        }
    }
    let lhs = Linear::row_major(&maps[0], &dims[0], n)?;
    let covers_result = maps[0].iter().zip(&dims[0]).all(|(e, &d)| match e {
        Affine::Dim(x) => space[*x] == d,
        _ => d == 1,
    });
    let operand = |x: usize| -> Option<Operand> {
        let padded = padding(&maps[x], &dims[x], &space)?;
        let at = match &padded {
            Some(p) => {
                let cells: u64 = dims[x].iter().product();
                if p.cells() > cells.saturating_mul(PAD_GROWTH).saturating_add(PAD_SLACK)
                    || p.cells().saturating_mul(bytes) > PAD_MAX_BYTES
                {
                    return None;
                }
                Linear::row_major(&shifted(&maps[x], p), &p.dims, n)?
            }
            None => Linear::row_major(&maps[x], &dims[x], n)?,
        };
        Some(Operand {
            buffer: x,
            padded,
            at,
        })
    };
    let (x1, x2) = (operand(1)?, operand(2)?);
    // The columns: the result's contiguous iterator, read by one operand.
    let j0 = (0..n)
        .filter(|&d| lhs.coef[d] == 1)
        .max_by_key(|&d| (space[d], std::cmp::Reverse(d)))?;
    let (a, b) = match (x1.at.uses(j0), x2.at.uses(j0)) {
        (false, true) => (x1, x2),
        (true, false) => (x2, x1),
        _ => return None,
    };
    let mut j = vec![j0];
    let mut cols = space[j0];
    if b.at.coef[j0] == 1 {
        while let Some(d) = (0..n).find(|&d| {
            !j.contains(&d)
                && space[d] > 1
                && i64::try_from(cols).is_ok_and(|c| lhs.coef[d] == c && b.at.coef[d] == c)
                && !a.at.uses(d)
        }) {
            j.insert(0, d);
            cols *= space[d];
        }
    }
    if cols < 2 {
        return None;
    }
    // The reduction: what the result does not depend on, in the order in
    // which a's (then b's) cells are nearest innermost.
    let mut k: Vec<usize> = (0..n).filter(|&d| !lhs.uses(d)).collect();
    if k.is_empty() {
        return None;
    }
    k.sort_by_key(|&d| {
        (
            std::cmp::Reverse(a.at.coef[d].unsigned_abs()),
            std::cmp::Reverse(b.at.coef[d].unsigned_abs()),
            d,
        )
    });
    // The rows: a result iterator that a reads and b does not; the one
    // whose cells of a are nearest, among those of several cells.
    let i = (0..n)
        .filter(|&d| lhs.uses(d) && !j.contains(&d) && a.at.uses(d) && !b.at.uses(d))
        .max_by_key(|&d| {
            (
                space[d] >= 4,
                std::cmp::Reverse(a.at.coef[d].unsigned_abs()),
                space[d],
                std::cmp::Reverse(d),
            )
        })?;
    // The other loops: b's first, then in the result's order.
    let mut outer: Vec<usize> = (0..n)
        .filter(|&d| lhs.uses(d) && d != i && !j.contains(&d))
        .collect();
    outer.sort_by_key(|&d| (!b.at.uses(d), std::cmp::Reverse(lhs.coef[d]), d));
    let tile = choose_tile(space[i], cols, target, bytes);
    let k_steps: u64 = k.iter().map(|&d| space[d]).product();
    let m_tiles = space[i].div_ceil(tile.rows);
    let others_b: u64 = outer
        .iter()
        .filter(|&&d| !b.at.uses(d))
        .map(|&d| space[d])
        .product();
    let b_bytes = k_steps.saturating_mul(cols).saturating_mul(bytes);
    // 16-bit cells are packed (as f32) whenever b's panels are read
    // more than once: converted once, not once per row tile.
    let reused = m_tiles.saturating_mul(others_b) >= PACK_REUSE;
    let pack = (b.at.coef[*j.last()?] != 1
        || (b_bytes > PACK_BYTES && reused)
        || (stored < bytes && reused))
        .then(|| {
            let inner: u64 = k[1..].iter().map(|&d| space[d]).product();
            let panel_row = tile.vectors * tile.lanes * bytes;
            let depth = pack_depth(target, panel_row);
            let block = (depth / inner.max(1)).clamp(1, space[k[0]]);
            Pack {
                block,
                panels: chunk_panels(target, block * inner.max(1) * panel_row),
            }
        });
    let outer_b = if pack.is_some() {
        outer.iter().filter(|&&d| b.at.uses(d)).count()
    } else {
        0
    };
    let mut plan = Contraction {
        space,
        work,
        lhs,
        a,
        b,
        i,
        j,
        k,
        outer,
        outer_b,
        pack,
        tile,
        parallel: Parallel::Sequential,
        covers_result,
    };
    plan.parallel = choose_parallel(&plan);
    Some(plan)
}

/// The tile for `m` rows and `n` columns of elements of `bytes` bytes on
/// `target`: half vectors for at most half a vector of columns; else as
/// many vectors as the columns fill, at most the target's row width (64
/// bytes, and at least two vectors: 2 on AVX-512 and AVX2, 4 on NEON);
/// rows as many as the registers hold (see [`max_rows`]), fewer when that
/// costs less in all (see [`tile_rows`]).
pub fn choose_tile(m: u64, n: u64, target: &Target, bytes: u64) -> Tile {
    let lanes = target.lanes(bytes);
    let widest = (64 / target.vector_bytes).clamp(2, 4);
    let (vectors, lanes) = if n <= lanes / 2 && lanes >= 2 {
        (1, lanes / 2)
    } else {
        (n.div_ceil(lanes).clamp(1, widest), lanes)
    };
    Tile {
        rows: tile_rows(m, max_rows(target, vectors)),
        vectors,
        lanes,
    }
}

/// The most rows of `vectors` accumulators that fit the target's vector
/// registers with the row's loads of `b` (`vectors`) and the broadcast of
/// `a` and one spare (2): 12 rows of 2 vectors or 16 of 1 on AVX-512
/// (32 registers), 6 of 2 or 13 of 1 on AVX2 (16 registers), 6 of 4 on
/// NEON (32 registers); never more than 16 (12 with several vectors),
/// beyond which the tile's loads and stores no longer matter.
pub fn max_rows(target: &Target, vectors: u64) -> u64 {
    let cap = if vectors == 1 { 16 } else { 12 };
    (target.vector_registers.saturating_sub(vectors + 2) / vectors.max(1)).clamp(1, cap)
}

/// Reduction steps per packed block of `b`: the panel of one block
/// (`panel_row_bytes` per step) within the L1 data cache, a power of two
/// from 64 to [`KERNEL_DEPTH`].
pub fn pack_depth(target: &Target, panel_row_bytes: u64) -> u64 {
    let fit = target.caches.l1d / panel_row_bytes.max(1);
    let pow2 = if fit == 0 {
        1
    } else {
        1u64 << (63 - fit.leading_zeros())
    };
    pow2.clamp(64, KERNEL_DEPTH)
}

/// Packed panels (of `panel_bytes` each) computed at a time: as many as
/// fill half of the L2 cache, the other half left to the rows of `a` and
/// the result's tiles. Every row tile reads each panel of the chunk, so
/// the chunk is read from L2, not from memory or L3 (BLIS's `nc`).
pub fn chunk_panels(target: &Target, panel_bytes: u64) -> u64 {
    (target.caches.l2 / 2 / panel_bytes.max(1)).max(1)
}

/// The rows of a tile for `m` rows, at most `max`: all of them when they
/// fit; two even tiles when two are needed; else, among the top quarter of
/// `max` (enough independent sums to hide the multiply-add's latency, and
/// few enough loads and loop steps per multiply-add for the front end),
/// the most that divide `m`, so that no smaller last tile (a second copy
/// of the tile's code) is needed; else the fewest tiles, the last one as
/// full as possible. Below the top quarter a tile issues measurably fewer
/// multiply-adds per cycle: 4 rows of 2 AVX2 vectors ran a 1024³ matmul
/// 10-20% slower than 6 rows and a last tile of 4.
pub fn tile_rows(m: u64, max: u64) -> u64 {
    let max = max.max(1);
    if m <= max {
        return m.max(1);
    }
    if m <= 2 * max {
        return m.div_ceil(2);
    }
    let lo = (max - max / 4).max(1);
    (lo..=max)
        .rev()
        .find(|&r| m.is_multiple_of(r))
        .unwrap_or_else(|| {
            (lo..=max)
                .min_by_key(|&r| (m.div_ceil(r), r - m % r))
                .unwrap_or(max)
        })
}

/// The loop that runs in parallel: none up to [`PARALLEL_WORK`]
/// multiply-adds; else, among the loops each of whose parallel regions
/// (one per iteration of the loops around it: the outer loops, and the
/// blocks and chunks of a packed `b`) still does more than
/// [`PARALLEL_WORK`], the outermost loop around the tiles (after the
/// packing) of at least four iterations, or the row tiles if they are
/// that many, else whichever has the most iterations. (Attention scores,
/// 128 heads of 23 x 23 x 16, split per head's 3 row tiles, paid 128
/// thread wake-ups a call: 8x slower than on one core.)
fn choose_parallel(p: &Contraction) -> Parallel {
    let work = p
        .space
        .iter()
        .try_fold(1u64, |w, &d| w.checked_mul(d))
        .unwrap_or(u64::MAX);
    if work <= PARALLEL_WORK {
        return Parallel::Sequential;
    }
    let blocks = p.pack.map_or(1, |k| {
        p.space[p.k[0]]
            .div_ceil(k.block.max(1))
            .saturating_mul(p.column_chunks())
    });
    // Regions of the loop inside `q` outer loops (and the packing when
    // past the loops b depends on).
    let regions = |q: usize| -> u64 {
        let around = p.outer[..q]
            .iter()
            .fold(1u64, |r, &d| r.saturating_mul(p.space[d]));
        if q >= p.outer_b {
            around.saturating_mul(blocks)
        } else {
            around
        }
    };
    let mut candidates: Vec<(Parallel, u64)> = (p.outer_b..p.outer.len())
        .filter(|&q| work / regions(q).max(1) > PARALLEL_WORK)
        .map(|q| (Parallel::Outer(q), p.space[p.outer[q]]))
        .collect();
    if work / regions(p.outer.len()).max(1) > PARALLEL_WORK {
        candidates.push((Parallel::Rows, p.row_tiles().0));
    }
    candidates.retain(|&(_, c)| c >= 2);
    candidates
        .iter()
        .find(|&&(_, c)| c >= 4)
        .or_else(|| candidates.iter().max_by_key(|&&(_, c)| c))
        .map_or(Parallel::Sequential, |&(w, _)| w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Caches;

    const MUL: NumOp = NumOp::Binary(BinaryOp::Mul);
    use Affine::{Const, Dim};

    fn add(a: Affine, b: Affine) -> Affine {
        Affine::sum(a, b)
    }

    fn plan(space: &[u64], maps: &[Vec<Affine>], dims: &[Vec<u64>]) -> Option<Contraction> {
        plan_on(&Target::avx512(), space, maps, dims)
    }

    /// The one kernel of a contraction on `target`.
    fn plan_on(
        target: &Target,
        space: &[u64],
        maps: &[Vec<Affine>],
        dims: &[Vec<u64>],
    ) -> Option<Contraction> {
        let mut plans = plan_contraction(Accum::Add, MUL, space, maps, dims, "f32", target)?;
        assert_eq!(plans.len(), 1, "one kernel");
        plans.pop()
    }

    /// (j, i, k, a's buffer) of a plan.
    fn roles(c: &Contraction) -> (Vec<usize>, usize, Vec<usize>, usize) {
        (c.j.clone(), c.i, c.k.clone(), c.a.buffer)
    }

    fn matmul(m: u64, n: u64, k: u64) -> (Vec<u64>, Vec<Vec<Affine>>, Vec<Vec<u64>>) {
        (
            vec![m, n, k],
            vec![
                vec![Dim(0), Dim(1)],
                vec![Dim(0), Dim(2)],
                vec![Dim(2), Dim(1)],
            ],
            vec![vec![m, n], vec![m, k], vec![k, n]],
        )
    }

    #[test]
    fn matmuls_in_every_layout() {
        // C[i,j] += A[i,k] * B[k,j]: b read straight (small).
        let (s, maps, dims) = matmul(64, 64, 64);
        let c = plan(&s, &maps, &dims).unwrap();
        assert_eq!(roles(&c), (vec![1], 0, vec![2], 1));
        assert_eq!(c.pack, None);
        assert_eq!(c.b_lane_coef(), 1);
        assert!(c.starts_result());
        // A result axis at a fixed index of two: not every cell.
        let c = plan(
            &s,
            &[
                vec![Const(0), Dim(0), Dim(1)],
                maps[1].clone(),
                maps[2].clone(),
            ],
            &[vec![2, 64, 64], dims[1].clone(), dims[2].clone()],
        )
        .unwrap();
        assert!(!c.covers_result && !c.starts_result());
        // Operands swapped.
        let swapped = vec![maps[0].clone(), maps[2].clone(), maps[1].clone()];
        let c = plan(
            &s,
            &swapped,
            &[dims[0].clone(), dims[2].clone(), dims[1].clone()],
        )
        .unwrap();
        assert_eq!(roles(&c), (vec![1], 0, vec![2], 2));
        // C = X W^T: b strided along j, so packed.
        let maps_t = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2)],
            vec![Dim(1), Dim(2)],
        ];
        let c = plan(&s, &maps_t, &[vec![64, 64], vec![64, 64], vec![64, 64]]).unwrap();
        assert_eq!(roles(&c), (vec![1], 0, vec![2], 1));
        assert_eq!(c.b_lane_coef(), 64);
        assert_eq!(c.pack.map(|p| p.block), Some(64));
        assert_eq!(c.column_chunks(), 1);
        // Large: packed in blocks of KERNEL_DEPTH steps, so the result is
        // loaded and stored once per block and starts filled.
        let (s, maps, dims) = matmul(1000, 1000, 1000);
        let c = plan(&s, &maps, &dims).unwrap();
        assert_eq!(c.pack.map(|p| p.block), Some(KERNEL_DEPTH));
        assert!(c.covers_result && !c.starts_result());
        // Its columns in chunks whose panels fill half of L2 (1 MiB): 256
        // steps of 32 cells make 32 KiB panels, 16 at a time.
        assert_eq!(c.pack.map(|p| p.panels), Some(16));
        assert_eq!(c.column_chunks(), 2);
        let big = Target {
            caches: Caches {
                l2: 2 << 20,
                ..Caches::DEFAULT
            },
            ..Target::avx512()
        };
        let (s, maps, dims) = matmul(2048, 2048, 2048);
        let c = plan_on(&big, &s, &maps, &dims).unwrap();
        assert_eq!(c.column_chunks(), 2);
        let (s, maps, dims) = matmul(2048, 1024, 2048);
        let c = plan_on(&big, &s, &maps, &dims).unwrap();
        assert_eq!(c.column_chunks(), 1);
        assert_eq!(c.parallel, Parallel::Rows);
        // Batched: the batch is an outer loop b depends on.
        let c = plan(
            &[8, 64, 64, 64],
            &[
                vec![Dim(0), Dim(1), Dim(2)],
                vec![Dim(0), Dim(1), Dim(3)],
                vec![Dim(0), Dim(3), Dim(2)],
            ],
            &[vec![8, 64, 64], vec![8, 64, 64], vec![8, 64, 64]],
        )
        .unwrap();
        assert_eq!(roles(&c), (vec![2], 1, vec![3], 1));
        assert_eq!(c.outer, vec![0]);
    }

    #[test]
    fn parallel_regions_worth_their_threads() {
        // Attention scores, y[b, s, h, t] += q[b, s, h, e] * k[b, t, h, e]:
        // 1.1 million multiply-adds, but b is packed per (b, h), so any
        // split inside pays 128 thread wake-ups for 8.5 thousand each.
        let c = plan(
            &[32, 23, 4, 23, 16],
            &[
                vec![Dim(0), Dim(1), Dim(2), Dim(3)],
                vec![Dim(0), Dim(1), Dim(2), Dim(4)],
                vec![Dim(0), Dim(3), Dim(2), Dim(4)],
            ],
            &[
                vec![32, 23, 4, 23],
                vec![32, 23, 4, 16],
                vec![32, 23, 4, 16],
            ],
        )
        .unwrap();
        assert_eq!(c.outer, vec![0, 2]);
        assert_eq!(c.outer_b, 2);
        assert_eq!(c.parallel, Parallel::Sequential);
        // A 1024³ matmul: 4 blocks of 268 million each, row tiles split.
        let (s, maps, dims) = matmul(1024, 1024, 1024);
        assert_eq!(plan(&s, &maps, &dims).unwrap().parallel, Parallel::Rows);
    }

    #[test]
    fn tails_and_tiles() {
        // 84 = 7 tiles of 12 rows; 84 columns = 2 tiles of 32 and one of a
        // vector and 4 lanes.
        let (s, maps, dims) = matmul(84, 84, 84);
        let c = plan(&s, &maps, &dims).unwrap();
        assert_eq!(
            c.tile,
            Tile {
                rows: 12,
                vectors: 2,
                lanes: 16
            }
        );
        assert_eq!(c.row_tiles(), (7, 0));
        assert_eq!(c.column_tiles(), (2, Some((2, 4))));
        assert_eq!(c.column_panels(), 3);
        // Narrow results use half vectors.
        let (s, maps, dims) = matmul(5, 6, 300);
        let c = plan(&s, &maps, &dims).unwrap();
        assert_eq!(
            c.tile,
            Tile {
                rows: 5,
                vectors: 1,
                lanes: 8
            }
        );
        assert_eq!(c.column_tiles(), (0, Some((1, 6))));
        assert_eq!(c.parallel, Parallel::Sequential);
        // Tiny ones stay in scalar loops.
        let (s, maps, dims) = matmul(5, 6, 3);
        assert!(plan(&s, &maps, &dims).is_none());
        // One column: the rows are contiguous in the result (its other axis
        // has one cell), so they are the columns, and j the rows.
        let (s, maps, dims) = matmul(50, 1, 300);
        let c = plan(&s, &maps, &dims).unwrap();
        assert_eq!(roles(&c), (vec![0], 1, vec![2], 2));
        // A result of one cell: nothing to vectorize.
        assert!(plan(
            &[1, 8192],
            &[vec![Const(0)], vec![Dim(1)], vec![Dim(1)]],
            &[vec![1], vec![8192], vec![8192]]
        )
        .is_none());
        for (m, max, want) in [
            (100, 12, 10),
            (84, 12, 12),
            (1024, 12, 12),
            (1024, 6, 6),
            (1000, 6, 5),
            (2040, 6, 6),
            (28, 16, 14),
            (24, 12, 12),
            (3, 12, 3),
            (13, 12, 7),
            (257, 12, 12),
            (20, 12, 10),
        ] {
            assert_eq!(tile_rows(m, max), want, "{m} rows, at most {max}");
        }
    }

    /// Registers a tile needs: its accumulators, a row of `b` and the
    /// broadcast of `a`.
    fn registers(t: &Tile) -> u64 {
        t.rows * t.vectors + t.vectors + 1
    }

    #[test]
    fn tiles_fit_the_registers_of_every_target() {
        for target in [Target::avx512(), Target::avx2(), Target::neon()] {
            for bytes in [4, 8] {
                for m in [1, 3, 6, 7, 12, 13, 64, 100, 257, 1024] {
                    for n in [2, 3, 4, 7, 8, 9, 16, 17, 32, 33, 64, 1000] {
                        let t = choose_tile(m, n, &target, bytes);
                        assert!(
                            registers(&t) <= target.vector_registers,
                            "{}: a {}x{} tile of {m}x{n} needs {} registers",
                            target.cpu,
                            t.rows,
                            t.vectors,
                            registers(&t)
                        );
                        assert_eq!(
                            t.lanes * bytes,
                            target.vector_bytes >> u64::from(t.lanes < target.lanes(bytes))
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn tiles_per_target() {
        // (m, n, element bytes) and the tile's (rows, vectors, lanes).
        type Case = ((u64, u64, u64), (u64, u64, u64));
        let cases: [(Target, &[Case]); 3] = [
            // AVX-512, as tuned there: 12 rows of 2 vectors of 16 f32, 16
            // rows of 1, half vectors for narrow results.
            (
                Target::avx512(),
                &[
                    ((1024, 1024, 4), (12, 2, 16)),
                    ((84, 1000, 4), (12, 2, 16)),
                    ((64, 16, 4), (16, 1, 16)),
                    ((64, 6, 4), (16, 1, 8)),
                    ((120, 1000, 8), (12, 2, 8)),
                ],
            ),
            // AVX2: BLIS's 6x16 for f32 (6 rows of 2 vectors of 8).
            (
                Target::avx2(),
                &[
                    ((1024, 1024, 4), (6, 2, 8)),
                    ((96, 1024, 4), (6, 2, 8)),
                    ((26, 8, 4), (13, 1, 8)),
                ],
            ),
            // NEON: 6 rows of 4 vectors of 4 f32; 12 rows of 2.
            (
                Target::neon(),
                &[((96, 1024, 4), (6, 4, 4)), ((96, 8, 4), (12, 2, 4))],
            ),
        ];
        for (target, tiles) in &cases {
            for &((m, n, bytes), (rows, vectors, lanes)) in tiles.iter() {
                assert_eq!(
                    choose_tile(m, n, target, bytes),
                    Tile {
                        rows,
                        vectors,
                        lanes
                    },
                    "{} {m}x{n}, {bytes}-byte cells",
                    target.cpu
                );
            }
        }
    }

    #[test]
    fn pack_depth_from_the_l1_cache() {
        // 2 vectors of 16 f32 per step: 128 bytes; 256 steps in 48 KiB.
        let mut t = Target::avx512();
        t.caches.l1d = 48 << 10;
        assert_eq!(pack_depth(&t, 128), 256);
        t.caches.l1d = 16 << 10;
        assert_eq!(pack_depth(&t, 128), 128);
        t.caches.l1d = 1 << 10;
        assert_eq!(pack_depth(&t, 128), 64);
    }

    #[test]
    fn multi_axis_reductions() {
        // y[b, o] += w[o, h, w, c] * x[b, h, w, c] (a dense layer after a
        // convolution): the three reduced iterators run inside the tile,
        // x's nearest innermost; w is strided along o, so packed.
        let c = plan(
            &[64, 120, 5, 5, 16],
            &[
                vec![Dim(0), Dim(1)],
                vec![Dim(1), Dim(2), Dim(3), Dim(4)],
                vec![Dim(0), Dim(2), Dim(3), Dim(4)],
            ],
            &[vec![64, 120], vec![120, 5, 5, 16], vec![64, 5, 5, 16]],
        )
        .unwrap();
        assert_eq!(roles(&c), (vec![1], 0, vec![2, 3, 4], 2));
        assert!(c.pack.is_some());
        // Its gradient w.r.t. x: the columns h, w, c merge (400 contiguous
        // cells in the result and in w).
        let c = plan(
            &[64, 120, 5, 5, 16],
            &[
                vec![Dim(0), Dim(2), Dim(3), Dim(4)],
                vec![Dim(0), Dim(1)],
                vec![Dim(1), Dim(2), Dim(3), Dim(4)],
            ],
            &[vec![64, 5, 5, 16], vec![64, 120], vec![120, 5, 5, 16]],
        )
        .unwrap();
        assert_eq!(roles(&c), (vec![2, 3, 4], 0, vec![1], 1));
        assert_eq!(c.n(), 400);
    }

    /// LeNet's second convolution, `y[b, oh, ow, oc] += x[b, oh + kh, ow +
    /// kw, ic] * w[oc, kh, kw, ic]` over (b, oh, ow, oc, ic, kh, kw), and
    /// its two gradients.
    #[test]
    fn convolutions() {
        let space = [64, 10, 10, 16, 6, 5, 5];
        let y = vec![Dim(0), Dim(1), Dim(2), Dim(3)];
        let x = vec![Dim(0), add(Dim(1), Dim(5)), add(Dim(2), Dim(6)), Dim(4)];
        let w = vec![Dim(3), Dim(5), Dim(6), Dim(4)];
        let (yd, xd, wd) = (vec![64, 10, 10, 16], vec![64, 14, 14, 6], vec![16, 5, 5, 6]);
        // Forward: columns oc (w packed: strided), rows ow, reduction kh,
        // kw, ic; b and oh around, b in parallel.
        let c = plan(
            &space,
            &[y.clone(), x.clone(), w.clone()],
            &[yd.clone(), xd.clone(), wd.clone()],
        )
        .unwrap();
        assert_eq!(roles(&c), (vec![3], 2, vec![5, 6, 4], 1));
        assert_eq!(c.outer, vec![0, 1]);
        assert!(c.pack.is_some() && c.a.padded.is_none());
        assert_eq!(
            c.tile,
            Tile {
                rows: 10,
                vectors: 1,
                lanes: 16
            }
        );
        assert_eq!(c.parallel, Parallel::Outer(0));
        // The kernel's gradient: columns kw and ic merged (contiguous in
        // the result and in x), rows oc, reduction b, oh, ow; x straight.
        let c = plan(
            &space,
            &[w.clone(), y.clone(), x.clone()],
            &[wd.clone(), yd.clone(), xd.clone()],
        )
        .unwrap();
        assert_eq!(roles(&c), (vec![6, 4], 3, vec![0, 1, 2], 1));
        assert_eq!(c.outer, vec![5]);
        assert_eq!(c.pack, None);
        // The input's gradient, in gather form: oh and ow run over x's
        // rows and columns, y is read padded.
        let c = plan(&space, &[x, y.clone(), w.clone()], &[xd, yd, wd.clone()]).unwrap();
        assert_eq!(c.space, vec![64, 14, 14, 16, 6, 5, 5]);
        assert_eq!(c.j, vec![4]);
        assert_eq!(c.a.buffer, 1);
        assert_eq!(
            c.a.padded,
            Some(Padded {
                low: vec![0, 4, 4, 0],
                dims: vec![64, 18, 18, 16]
            })
        );
        assert_eq!(c.tile.lanes, 8);
        // Strided by 2 and padded by 2 ("SAME", 14 x 14 into 7 x 7): the
        // input's gradient in four phases, each a kernel over the cells of
        // one residue (2*q + c) with its share of the taps (3 or 2 per
        // axis), rows ow, columns ic; every point of the original space
        // that lands inside x once.
        let space = [64, 7, 7, 16, 6, 5, 5];
        let strided = |o: usize, k: usize| {
            let two = Affine::Mul(Box::new(Dim(o)), Box::new(Const(2)));
            add(add(two, Dim(k)), Const(-2))
        };
        let x = vec![Dim(0), strided(1, 5), strided(2, 6), Dim(4)];
        let (yd, xd) = (vec![64, 7, 7, 16], vec![64, 14, 14, 6]);
        let plans = plan_contraction(
            Accum::Add,
            MUL,
            &space,
            &[x, y, w],
            &[xd, yd, wd],
            "f32",
            &Target::avx512(),
        )
        .unwrap();
        let taps: Vec<_> = plans.iter().map(|c| (c.space[5], c.space[6])).collect();
        assert_eq!(taps, vec![(3, 3), (3, 2), (2, 3), (2, 2)]);
        for c in &plans {
            assert_eq!((c.space[1], c.space[2]), (7, 7));
            assert_eq!((c.lhs.coef[1], c.lhs.coef[2]), (2 * 14 * 6, 2 * 6));
            assert_eq!((c.j.clone(), c.a.buffer), (vec![4], 1));
            assert!(!c.covers_result && !c.starts_result());
        }
        let inside = 64 * 16 * 6 * (7 * 5 - 3) * (7 * 5 - 3);
        assert_eq!(plans.iter().map(|c| c.work).sum::<u64>(), inside);
        // A padded forward convolution with one input channel (its index a
        // constant) reads x padded.
        let c = plan(
            &[64, 28, 28, 6, 5, 5],
            &[
                vec![Dim(0), Dim(1), Dim(2), Dim(3)],
                vec![
                    Dim(0),
                    add(add(Dim(1), Dim(4)), Const(-2)),
                    add(add(Dim(2), Dim(5)), Const(-2)),
                    Const(0),
                ],
                vec![Dim(3), Dim(4), Dim(5), Const(0)],
            ],
            &[vec![64, 28, 28, 6], vec![64, 28, 28, 1], vec![6, 5, 5, 1]],
        )
        .unwrap();
        assert_eq!(
            c.a.padded.as_ref().map(|p| p.dims.clone()),
            Some(vec![64, 32, 32, 1])
        );
        assert_eq!(c.k, vec![4, 5]);
    }

    #[test]
    fn refusals() {
        let (s, maps, dims) = matmul(64, 64, 64);
        // Only sums of products.
        assert!(
            plan_contraction(Accum::Max, MUL, &s, &maps, &dims, "f32", &Target::avx512()).is_none()
        );
        let add_op = NumOp::Binary(BinaryOp::Add);
        assert!(plan_contraction(
            Accum::Add,
            add_op,
            &s,
            &maps,
            &dims,
            "f32",
            &Target::avx512()
        )
        .is_none());
        assert!(
            plan_contraction(Accum::Add, MUL, &s, &maps, &dims, "i32", &Target::avx512()).is_none()
        );
        // 16-bit cells: computed in f32 (16 lanes of 4 bytes on AVX-512),
        // b packed as f32 even where f32 cells would be read straight.
        for elt in ["f16", "bf16"] {
            let p = plan_contraction(Accum::Add, MUL, &s, &maps, &dims, elt, &Target::avx512())
                .unwrap()
                .remove(0);
            assert_eq!(p.tile.lanes, 16);
            assert!(p.pack.is_some(), "{elt}");
        }
        // ... in blocks as f32 cells are (the kernel sums them in an f32
        // copy of the result, rounded once at the end).
        let (ls, lmaps, ldims) = matmul(100, 64, 1000);
        for (elt, block) in [("bf16", KERNEL_DEPTH), ("f32", KERNEL_DEPTH)] {
            let target = Target::avx512();
            let p = plan_contraction(Accum::Add, MUL, &ls, &lmaps, &ldims, elt, &target)
                .unwrap()
                .remove(0);
            assert_eq!(p.pack.map(|p| p.block), Some(block), "{elt}");
        }
        let f32_plan = plan(&s, &maps, &dims).unwrap();
        assert!(f32_plan.pack.is_none());
        // No reduction: an outer product.
        assert!(plan(
            &[64, 64],
            &[vec![Dim(0), Dim(1)], vec![Dim(0)], vec![Dim(1)]],
            &[vec![64, 64], vec![64], vec![64]]
        )
        .is_none());
        // j in both operands.
        assert!(plan(
            &[64, 64],
            &[vec![Dim(1)], vec![Dim(0), Dim(1)], vec![Dim(0), Dim(1)]],
            &[vec![64], vec![64, 64], vec![64, 64]]
        )
        .is_none());
        // A diagonal result.
        assert!(plan(
            &s,
            &[vec![Dim(1), Dim(1)], maps[1].clone(), maps[2].clone()],
            &dims
        )
        .is_none());
        // Slice symbols.
        assert!(plan(
            &s,
            &[
                maps[0].clone(),
                vec![Dim(0), Dim(2)],
                vec![Affine::Sym(0), Dim(1)]
            ],
            &[vec![64, 64], vec![64, 64], vec![64, 64]]
        )
        .is_none());
        // No row iterator (a matrix-vector product).
        assert!(plan(
            &[64, 64],
            &[vec![Dim(1)], vec![Dim(0)], vec![Dim(0), Dim(1)]],
            &[vec![64], vec![64], vec![64, 64]]
        )
        .is_none());
    }
}
