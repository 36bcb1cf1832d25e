//! The tiled contraction kernel (see `ocannl_gpu_plan::tiling`): a block
//! computes a `TILE.m x TILE.n` tile of the result; `a`'s and `b`'s tiles
//! go through shared memory `TILE.k` reduction steps at a time, and each
//! thread keeps `tm x tn` sums in registers (rows `ty + r * TILE.ty`,
//! columns `tx + c * TILE.tx`: consecutive threads read consecutive shared
//! cells and write consecutive result cells). A result initialized to 0
//! and covered by the tiles gets the sums stored; otherwise they are added
//! to it.

use melior::ir::{Attribute, Type, Value};
use ocannl_assign::Affine;
use ocannl_gpu_plan::{tiling::Tile, Launch, Matmul, TILE};
use ocannl_mlir::At;
use ocannl_passes::conversion::assign_to_loops::Assignment;

use crate::kernel::{launch, Ids, Idx};

/// Emits the tiled kernel of `a` planned by `plan`.
pub(crate) fn emit<'c, 'a>(
    a: &Assignment<'_, 'c, 'a>,
    at: At<'c, 'a>,
    plan: &Matmul,
) -> Result<(), String> {
    let t: Tile = TILE;
    let kernel = Tiled {
        a,
        plan,
        t,
        m: a.space[plan.i],
        n: a.space[plan.j],
        depth: a.space[plan.k],
        batch_sizes: plan.batch.iter().map(|&d| a.space[d]).collect(),
        // The kernel initializes the result: each cell is written once.
        fresh: a.initialize_neutral && crate::kernel::owns_result(a),
        contract: a
            .e
            .attr("#arith.fastmath<contract>")
            .map_err(|e| e.to_string())?,
    };
    kernel.emit(at)
}

/// The tiled kernel of one assignment: what its parts share.
struct Tiled<'p, 'e, 'c, 'a> {
    a: &'p Assignment<'e, 'c, 'a>,
    plan: &'p Matmul,
    t: Tile,
    /// The result's rows (`i`) and columns (`j`), and the reduction's steps
    /// (`k`).
    m: i64,
    n: i64,
    depth: i64,
    /// The sizes of the batch iterators (the grid's `z`).
    batch_sizes: Vec<i64>,
    /// Whether the kernel starts the result at the neutral element itself:
    /// the sums are stored rather than added.
    fresh: bool,
    /// The fast-math flags of the products and sums.
    contract: Attribute<'c>,
}

/// The values of one block of threads.
struct Block<'c, 'a> {
    /// The shared tiles of `a` (`[k][i]`) and `b` (`[k][j]`).
    sa: Value<'c, 'a>,
    sb: Value<'c, 'a>,
    /// The thread's ids along x and y, and its number in the block.
    tx: Value<'c, 'a>,
    ty: Value<'c, 'a>,
    tid: Value<'c, 'a>,
    /// The block's first result row and column.
    i0: Value<'c, 'a>,
    j0: Value<'c, 'a>,
    /// The block's batch iterators.
    batch: Vec<Value<'c, 'a>>,
    zero_idx: Value<'c, 'a>,
    /// 0 in the element type.
    zero: Value<'c, 'a>,
}

/// An operand's tile: `a`'s or `b`'s.
#[derive(Clone, Copy)]
enum Side {
    A,
    B,
}

impl<'c, 'a> Tiled<'_, '_, 'c, 'a> {
    fn emit(&self, at: At<'c, 'a>) -> Result<(), String> {
        let e = self.a.e;
        let t = &self.t;
        let batches: i64 = self.batch_sizes.iter().product();
        let l = Launch {
            grid: [
                (self.n as u64).div_ceil(t.n),
                (self.m as u64).div_ceil(t.m),
                batches as u64,
            ],
            block: [t.tx, t.ty, 1],
        };
        // a's tile as [k][i], b's as [k][j].
        let wg = [
            self.shared(t.k as i64, t.m as i64)?,
            self.shared(t.k as i64, t.n as i64)?,
        ];
        launch(e, at, &l, &wg, &mut |inner, ids| {
            let b = self.block(inner, ids)?;
            let sums = self.sums(inner, &b)?;
            self.store(inner, &b, &sums)
        })
    }

    /// A shared-memory buffer of `rows x cols` elements.
    fn shared(&self, rows: i64, cols: i64) -> Result<Type<'c>, String> {
        self.a
            .e
            .ty(&format!(
                "memref<{rows}x{cols}x{}, #gpu.address_space<workgroup>>",
                self.a.elt
            ))
            .map_err(|e| e.to_string())
    }

    fn block(&self, at: At<'c, 'a>, ids: &Ids<'c, 'a>) -> Result<Block<'c, 'a>, String> {
        let x = Idx { e: self.a.e, at };
        let (tx, ty) = (ids.thread[0], ids.thread[1]);
        let i0 = x.mul_c(ids.block[1], self.t.m as i64)?;
        let j0 = x.mul_c(ids.block[0], self.t.n as i64)?;
        let batch = x.delinearize(ids.block[2], &self.batch_sizes)?;
        let tid = x.add(x.mul_c(ty, self.t.tx as i64)?, tx);
        Ok(Block {
            sa: ids.workgroup[0],
            sb: ids.workgroup[1],
            tx,
            ty,
            tid,
            i0,
            j0,
            batch,
            zero_idx: x.c(0)?,
            zero: self.a.e.float(at, 0.0, self.a.eltt),
        })
    }

    /// The iterators of a point of block `b`: the batch's, then those
    /// given.
    fn point(&self, b: &Block<'c, 'a>, set: &[(usize, Value<'c, 'a>)]) -> Vec<Value<'c, 'a>> {
        let mut ivs = vec![b.zero_idx; self.a.space.len()];
        for (d, v) in self.plan.batch.iter().zip(&b.batch) {
            ivs[*d] = *v;
        }
        for (d, v) in set {
            ivs[*d] = *v;
        }
        ivs
    }

    /// The thread's `tm x tn` sums, carried through the loop over the
    /// reduction's tiles (each loaded into shared memory, then multiplied).
    fn sums(&self, at: At<'c, 'a>, b: &Block<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, String> {
        let e = self.a.e;
        let bk = self.t.k as i64;
        let steps = e
            .bounds(at, 0, (self.depth as u64).div_ceil(bk as u64) as i64, 1)
            .map_err(|e| e.to_string())?;
        let init = vec![b.zero; (self.t.tm() * self.t.tn()) as usize];
        e.for_loop(at, steps, &init, &mut |body, kt, acc| {
            let x = Idx { e, at: body };
            let k0 = x.mul_c(kt, bk)?;
            self.load_tile(body, b, k0, Side::A)?;
            self.load_tile(body, b, k0, Side::B)?;
            e.op0(body, "gpu.barrier", &[]);
            let ks = e.bounds(body, 0, bk, 1).map_err(|e| e.to_string())?;
            let next = e.for_loop(body, ks, acc, &mut |at3, kq, acc| {
                self.multiply(at3, b, kq, acc)
            })?;
            e.op0(body, "gpu.barrier", &[]);
            Ok(next)
        })
    }

    /// One operand's tile at reduction step `k0`: `rows x TILE.k` cells
    /// loaded by all threads, consecutive threads along the operand's
    /// contiguous axis; cells beyond the operand read as 0.
    fn load_tile(
        &self,
        at: At<'c, 'a>,
        b: &Block<'c, 'a>,
        k0: Value<'c, 'a>,
        side: Side,
    ) -> Result<(), String> {
        let (e, plan, x) = (self.a.e, self.plan, Idx { e: self.a.e, at });
        let (bk, threads) = (self.t.k as i64, self.t.threads() as i64);
        let (operand, outer, rows, base, limit, dest) = match side {
            Side::A => (plan.a, plan.i, self.t.m as i64, b.i0, self.m, b.sa),
            Side::B => (plan.b, plan.j, self.t.n as i64, b.j0, self.n, b.sb),
        };
        let along_rows = self.a.exprs[operand].last() == Some(&Affine::Dim(outer));
        let ragged_rows = limit % rows != 0;
        let ragged_k = self.depth % bk != 0;
        for step in 0..(rows * bk / threads) {
            let cell = x.add_c(b.tid, step * threads)?;
            let (r, kk) = if along_rows {
                (x.rem(cell, x.c(rows)?), x.div(cell, x.c(rows)?))
            } else {
                (x.div(cell, x.c(bk)?), x.rem(cell, x.c(bk)?))
            };
            let (mut gi, mut gk) = (x.add(base, r), x.add(k0, kk));
            // Cells beyond the operand read a clamped cell, then 0.
            let mut inside = None;
            if ragged_rows {
                inside = Some(x.lt_c(gi, limit)?);
                gi = x.min(gi, x.c(limit - 1)?);
            }
            if ragged_k {
                let ok = x.lt_c(gk, self.depth)?;
                inside = Some(match inside {
                    Some(p) => x.and(p, ok)?,
                    None => ok,
                });
                gk = x.min(gk, x.c(self.depth - 1)?);
            }
            let ivs = self.point(b, &[(outer, gi), (plan.k, gk)]);
            let mut v = self.a.load(at, &ivs, operand)?;
            if let Some(ok) = inside {
                v = e.op1(at, "arith.select", &[ok, v, b.zero], self.a.eltt, &[]);
            }
            e.op0(at, "memref.store", &[v, dest, kk, r]);
        }
        Ok(())
    }

    /// Step `kq` of a shared tile: each of the thread's sums plus the
    /// product of its row of `a` and its column of `b`.
    fn multiply(
        &self,
        at: At<'c, 'a>,
        b: &Block<'c, 'a>,
        kq: Value<'c, 'a>,
        acc: &[Value<'c, 'a>],
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let (e, t, elt) = (self.a.e, &self.t, self.a.eltt);
        let x = Idx { e, at };
        let fm = [("fastmath", self.contract)];
        let rows = (0..t.tm() as i64)
            .map(|r| {
                let ii = x.add_c(b.ty, r * t.ty as i64)?;
                Ok(e.op1(at, "memref.load", &[b.sa, kq, ii], elt, &[]))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let cols = (0..t.tn() as i64)
            .map(|c| {
                let jj = x.add_c(b.tx, c * t.tx as i64)?;
                Ok(e.op1(at, "memref.load", &[b.sb, kq, jj], elt, &[]))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let mut out = Vec::with_capacity(acc.len());
        for (r, av) in rows.iter().enumerate() {
            for (c, bv) in cols.iter().enumerate() {
                let p = e.op1(at, "arith.mulf", &[*av, *bv], elt, &fm);
                let s = acc[r * cols.len() + c];
                out.push(e.op1(at, "arith.addf", &[s, p], elt, &fm));
            }
        }
        Ok(out)
    }

    /// Each sum into its result cell (those inside the result): stored, or
    /// added to the cell.
    fn store(
        &self,
        at: At<'c, 'a>,
        b: &Block<'c, 'a>,
        sums: &[Value<'c, 'a>],
    ) -> Result<(), String> {
        let (e, t, a) = (self.a.e, &self.t, self.a);
        let x = Idx { e, at };
        let ragged_mn = self.m % t.m as i64 != 0 || self.n % t.n as i64 != 0;
        let tn = t.tn() as i64;
        for r in 0..t.tm() as i64 {
            for c in 0..tn {
                let gi = x.add(b.i0, x.add_c(b.ty, r * t.ty as i64)?);
                let gj = x.add(b.j0, x.add_c(b.tx, c * t.tx as i64)?);
                let sum = sums[(r * tn + c) as usize];
                let mut store = |at4: At<'c, 'a>| -> Result<(), String> {
                    let ivs = self.point(b, &[(self.plan.i, gi), (self.plan.j, gj)]);
                    let idx = a.indices(at4, &ivs, 0)?;
                    let mut ops = vec![a.tensors[0]];
                    ops.extend(idx.iter().copied());
                    let new = if self.fresh {
                        sum
                    } else {
                        let old = e.op1(at4, "memref.load", &ops, a.eltt, &[]);
                        a.combine(at4, old, sum)?
                    };
                    let mut ops = vec![new, a.tensors[0]];
                    ops.extend(idx);
                    e.op0(at4, "memref.store", &ops);
                    Ok(())
                };
                if ragged_mn {
                    let ok = x.and(x.lt_c(gi, self.m)?, x.lt_c(gj, self.n)?)?;
                    e.if_then(at, ok, &mut store).map_err(|e| e.to_string())?;
                } else {
                    store(at)?;
                }
            }
        }
        Ok(())
    }
}
