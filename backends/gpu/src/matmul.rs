//! The tiled contraction kernel (see `ocannl_gpu_plan::tiling`): a block
//! computes a `TILE.m x TILE.n` tile of the result; `a`'s and `b`'s tiles
//! go through shared memory `TILE.k` reduction steps at a time, and each
//! thread keeps `tm x tn` sums in registers (rows `ty + r * TILE.ty`,
//! columns `tx + c * TILE.tx`: consecutive threads read consecutive shared
//! cells and write consecutive result cells). A result initialized to 0
//! and covered by the tiles gets the sums stored; otherwise they are added
//! to it.

use melior::ir::Value;
use ocannl_assign::Affine;
use ocannl_gpu_plan::{tiling::Tile, Launch, Matmul, TILE};
use ocannl_mlir::At;
use ocannl_passes::conversion::assign_to_loops::Assignment;

use crate::kernel::{launch, Idx};

/// Emits the tiled kernel of `a` planned by `plan`.
pub fn emit<'c, 'a>(
    a: &Assignment<'_, 'c, 'a>,
    at: At<'c, 'a>,
    plan: &Matmul,
) -> Result<(), String> {
    let e = a.e;
    let t: Tile = TILE;
    let (m, n, depth) = (a.space[plan.i], a.space[plan.j], a.space[plan.k]);
    let (tm, tn, threads) = (t.tm() as i64, t.tn() as i64, t.threads() as i64);
    let (bm, bn, bk) = (t.m as i64, t.n as i64, t.k as i64);
    let batch_sizes: Vec<i64> = plan.batch.iter().map(|&d| a.space[d]).collect();
    let batches: i64 = batch_sizes.iter().product();
    let l = Launch {
        grid: [
            (n as u64).div_ceil(bn as u64),
            (m as u64).div_ceil(bm as u64),
            batches as u64,
        ],
        block: [t.tx, t.ty, 1],
    };
    let shared = |rows: i64, cols: i64| {
        e.ty(&format!(
            "memref<{rows}x{cols}x{}, #gpu.address_space<workgroup>>",
            a.elt
        ))
    };
    // a's tile as [k][i], b's as [k][j].
    let wg = [shared(bk, bm)?, shared(bk, bn)?];
    let ragged_k = depth % bk != 0;
    let ragged_mn = m % bm != 0 || n % bn != 0;
    let elt = a.eltt;
    // The kernel initializes the result: each cell is written once.
    let fresh = a.initialize_neutral && crate::kernel::owns_result(a);
    let contract = e.attr("#arith.fastmath<contract>")?;
    launch(e, at, &l, &wg, &mut |inner, ids| {
        let x = Idx { e, at: inner };
        let (sa, sb) = (ids.workgroup[0], ids.workgroup[1]);
        let (tx, ty) = (ids.thread[0], ids.thread[1]);
        let i0 = x.mul_c(ids.block[1], bm)?;
        let j0 = x.mul_c(ids.block[0], bn)?;
        let bivs = x.delinearize(ids.block[2], &batch_sizes)?;
        let tid = x.add(x.mul_c(ty, t.tx as i64)?, tx);
        let zero_idx = x.c(0)?;
        let zero = e.float(inner, 0.0, elt);
        // The iterators of a point: the batch's, then those given.
        let point = |set: &[(usize, Value<'c, 'a>)]| -> Vec<Value<'c, 'a>> {
            let mut ivs = vec![zero_idx; a.space.len()];
            for (d, v) in plan.batch.iter().zip(&bivs) {
                ivs[*d] = *v;
            }
            for (d, v) in set {
                ivs[*d] = *v;
            }
            ivs
        };
        let steps = e.bounds(inner, 0, (depth as u64).div_ceil(bk as u64) as i64, 1)?;
        let init = vec![zero; (tm * tn) as usize];
        let sums = e.for_loop(inner, steps, &init, &mut |body, kt, acc| {
            let x = Idx { e, at: body };
            let k0 = x.mul_c(kt, bk)?;
            // Each operand's tile: `rows x bk` cells loaded by all threads,
            // consecutive threads along the operand's contiguous axis.
            let load_tile = |operand: usize,
                             outer: usize,
                             rows: i64,
                             base: Value<'c, 'a>,
                             limit: i64,
                             dest: Value<'c, 'a>|
             -> Result<(), String> {
                let along_rows = a.exprs[operand].last() == Some(&Affine::Dim(outer));
                let ragged_rows = limit % rows != 0;
                for step in 0..(rows * bk / threads) {
                    let cell = x.add_c(tid, step * threads)?;
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
                        let ok = x.lt_c(gk, depth)?;
                        inside = Some(match inside {
                            Some(p) => x.and(p, ok)?,
                            None => ok,
                        });
                        gk = x.min(gk, x.c(depth - 1)?);
                    }
                    let ivs = point(&[(outer, gi), (plan.k, gk)]);
                    let mut v = a.load(body, &ivs, operand)?;
                    if let Some(ok) = inside {
                        v = e.op1(body, "arith.select", &[ok, v, zero], elt, &[]);
                    }
                    e.op0(body, "memref.store", &[v, dest, kk, r]);
                }
                Ok(())
            };
            load_tile(plan.a, plan.i, bm, i0, m, sa)?;
            load_tile(plan.b, plan.j, bn, j0, n, sb)?;
            e.op0(body, "gpu.barrier", &[]);
            let ks = e.bounds(body, 0, bk, 1)?;
            let next = e.for_loop(body, ks, acc, &mut |at3, kq, acc| {
                let x = Idx { e, at: at3 };
                let rows = (0..tm)
                    .map(|r| {
                        let ii = x.add_c(ty, r * t.ty as i64)?;
                        Ok(e.op1(at3, "memref.load", &[sa, kq, ii], elt, &[]))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                let cols = (0..tn)
                    .map(|c| {
                        let jj = x.add_c(tx, c * t.tx as i64)?;
                        Ok(e.op1(at3, "memref.load", &[sb, kq, jj], elt, &[]))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                let mut out = Vec::with_capacity(acc.len());
                for (r, av) in rows.iter().enumerate() {
                    for (c, bv) in cols.iter().enumerate() {
                        let p = e.op1(
                            at3,
                            "arith.mulf",
                            &[*av, *bv],
                            elt,
                            &[("fastmath", contract)],
                        );
                        let s = acc[r * tn as usize + c];
                        out.push(e.op1(at3, "arith.addf", &[s, p], elt, &[("fastmath", contract)]));
                    }
                }
                Ok(out)
            })?;
            e.op0(body, "gpu.barrier", &[]);
            Ok(next)
        })?;
        // Each sum into its result cell.
        for r in 0..tm {
            for c in 0..tn {
                let gi = x.add(i0, x.add_c(ty, r * t.ty as i64)?);
                let gj = x.add(j0, x.add_c(tx, c * t.tx as i64)?);
                let sum = sums[(r * tn + c) as usize];
                let mut store = |at4: At<'c, 'a>| -> Result<(), String> {
                    let ivs = point(&[(plan.i, gi), (plan.j, gj)]);
                    let idx = a.indices(at4, &ivs, 0)?;
                    let mut ops = vec![a.tensors[0]];
                    ops.extend(idx.iter().copied());
                    let new = if fresh {
                        sum
                    } else {
                        let old = e.op1(at4, "memref.load", &ops, elt, &[]);
                        a.combine(at4, old, sum)?
                    };
                    let mut ops = vec![new, a.tensors[0]];
                    ops.extend(idx);
                    e.op0(at4, "memref.store", &ops);
                    Ok(())
                };
                if ragged_mn {
                    let ok = x.and(x.lt_c(gi, m)?, x.lt_c(gj, n)?)?;
                    e.if_then(inner, ok, &mut store)?;
                } else {
                    store(inner)?;
                }
            }
        }
        Ok(())
    })
}
