//! The register-blocked contraction kernel (for the plans of
//! `ocannl_cpu_plan::tiling`).
//!
//! Over rows `0..mt` and columns `0..nt` (whole tiles): for each block of
//! `kc` reduction steps, `b` is packed into panels of `nr` contiguous
//! columns, then each `mr x nr` tile of the result is loaded into vector
//! registers (8x2 `vector<16xf32>` for f32), accumulates one broadcast cell
//! of `a` times one panel row per step with `vector.fma`, and is stored.
//! Every other iterator is a loop around it. Packing and tile rows run in
//! parallel when large enough.

use melior::ir::{Type, Value};
use ocannl_cpu_plan::{tiling::Contraction, Tile, PARALLEL_CELLS};
use ocannl_mlir::At;
use ocannl_passes::conversion::assign_to_loops::{Assignment, LoopTarget};

pub fn emit<'c, 'a>(
    a: &Assignment<'_, 'c, 'a>,
    _target: &dyn LoopTarget,
    at: At<'c, 'a>,
    plan: &Contraction,
    t: &Tile,
    mt: i64,
    nt: i64,
) -> Result<(), String> {
    let e = a.e;
    let idx = Type::index(e.ctx);
    let kdim = a.space[plan.k];
    let kc = t.kc.min(kdim);
    let vt = e.ty(&format!("vector<{}x{}>", t.lanes, a.elt))?;
    let panels = e.ty(&format!("memref<{}x{}x{}x{}>", nt / t.nr, kc, t.nr, a.elt))?;
    let packed = e.alloc(at, panels, Some(64))?;
    let others: Vec<usize> = (0..a.space.len())
        .filter(|&d| d != plan.i && d != plan.j && d != plan.k)
        .collect();
    let other_ranges: Vec<(i64, i64)> = others.iter().map(|&d| (0, a.space[d])).collect();
    let muli = |at: At<'c, 'a>, x: Value<'c, 'a>, c: i64| -> Result<Value<'c, 'a>, String> {
        let c = e.index(at, c)?;
        Ok(e.op1(at, "arith.muli", &[x, c], idx, &[]))
    };
    let addi = |at: At<'c, 'a>, x: Value<'c, 'a>, y: Value<'c, 'a>| {
        e.op1(at, "arith.addi", &[x, y], idx, &[])
    };
    e.nest(at, &other_ranges, &mut |at1, outer_ivs| {
        let zero = e.index(at1, 0)?;
        let mut ivs = vec![zero; a.space.len()];
        for (d, v) in others.iter().zip(outer_ivs) {
            ivs[*d] = *v;
        }
        let kb = e.bounds(at1, 0, kdim, kc)?;
        e.for_loop(at1, kb, &[], &mut |at2, k0, _| {
            // The steps of this block: min(kc, kdim - k0).
            let kdim_v = e.index(at2, kdim)?;
            let left = e.op1(at2, "arith.subi", &[kdim_v, k0], idx, &[]);
            let kc_v = e.index(at2, kc)?;
            let steps = e.op1(at2, "arith.minsi", &[kc_v, left], idx, &[]);
            let (zero, one) = (e.index(at2, 0)?, e.index(at2, 1)?);
            // Pack b: panels[jt, kk, jj] = b[.., k0 + kk, .., jt * nr + jj, ..].
            let jb = e.bounds(at2, 0, nt / t.nr, 1)?;
            let par = nt / t.nr > 1 && nt * kc >= PARALLEL_CELLS;
            e.maybe_parallel(at2, par, jb, &mut |at3, jt| {
                let j0 = muli(at3, jt, t.nr)?;
                let mut ivs = ivs.clone();
                e.for_loop(at3, (zero, steps, one), &[], &mut |at4, kk, _| {
                    ivs[plan.k] = addi(at4, k0, kk);
                    let jjb = e.bounds(at4, 0, t.nr, 1)?;
                    e.for_loop(at4, jjb, &[], &mut |at5, jj, _| {
                        ivs[plan.j] = addi(at5, j0, jj);
                        let v = a.load(at5, &ivs, plan.b)?;
                        e.op0(at5, "memref.store", &[v, packed, jt, kk, jj]);
                        Ok(vec![])
                    })
                })?;
                Ok(())
            })?;
            // The tiles.
            let ib = e.bounds(at2, 0, mt / t.mr, 1)?;
            let par = mt / t.mr > 1 && mt * nt * kc >= PARALLEL_CELLS * 16;
            e.maybe_parallel(at2, par, ib, &mut |at3, it| {
                let i0 = muli(at3, it, t.mr)?;
                let rows = (0..t.mr)
                    .map(|r| Ok(addi(at3, i0, e.index(at3, r)?)))
                    .collect::<Result<Vec<_>, String>>()?;
                let jb = e.bounds(at3, 0, nt / t.nr, 1)?;
                e.for_loop(at3, jb, &[], &mut |at4, jt, _| {
                    let j0 = muli(at4, jt, t.nr)?;
                    let cols = (0..t.nr / t.lanes)
                        .map(|v| Ok(addi(at4, j0, e.index(at4, v * t.lanes)?)))
                        .collect::<Result<Vec<_>, String>>()?;
                    let lanes_at = (0..t.nr / t.lanes)
                        .map(|v| e.index(at4, v * t.lanes))
                        .collect::<Result<Vec<_>, String>>()?;
                    // The result tile's vectors, row-major.
                    let mut cells = vec![];
                    for &row in &rows {
                        for &col in &cols {
                            let mut ivs = ivs.clone();
                            ivs[plan.i] = row;
                            ivs[plan.j] = col;
                            let mut ops = vec![a.tensors[0]];
                            ops.extend(a.indices(at4, &ivs, 0)?);
                            cells.push(ops);
                        }
                    }
                    let start = cells
                        .iter()
                        .map(|ops| e.op1(at4, "vector.load", ops, vt, &[]))
                        .collect::<Vec<_>>();
                    let done =
                        e.for_loop(at4, (zero, steps, one), &start, &mut |at5, kk, acc| {
                            let mut ivs = ivs.clone();
                            ivs[plan.k] = addi(at5, k0, kk);
                            let b: Vec<Value<'c, 'a>> = lanes_at
                                .iter()
                                .map(|&l| e.op1(at5, "vector.load", &[packed, jt, kk, l], vt, &[]))
                                .collect();
                            let mut next = Vec::with_capacity(acc.len());
                            for (r, &row) in rows.iter().enumerate() {
                                ivs[plan.i] = row;
                                let av = a.load(at5, &ivs, plan.a)?;
                                let av = e.op1(at5, "vector.broadcast", &[av], vt, &[]);
                                for (v, &bv) in b.iter().enumerate() {
                                    next.push(e.op1(
                                        at5,
                                        "vector.fma",
                                        &[av, bv, acc[r * b.len() + v]],
                                        vt,
                                        &[],
                                    ));
                                }
                            }
                            Ok(next)
                        })?;
                    for (value, ops) in done.into_iter().zip(cells) {
                        let mut ops2 = vec![value];
                        ops2.extend(ops);
                        e.op0(at4, "vector.store", &ops2);
                    }
                    Ok(vec![])
                })?;
                Ok(())
            })?;
            Ok(vec![])
        })?;
        Ok(())
    })?;
    e.op0(at, "memref.dealloc", &[packed]);
    Ok(())
}
