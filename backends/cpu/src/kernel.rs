//! The register-blocked contraction kernel, emitted as
//! `ocannl_cpu_plan::tiling` plans it.
//!
//! Every buffer is addressed flat (`memref.collapse_shape`), each cell
//! through the plan's linear index. An operand that the plan reads padded
//! is first copied into a buffer holding the padding value around it. Then,
//! inside the loops around the tiles (and, when `b` is packed, inside the
//! loops `b` depends on and a loop over blocks of reduction steps, after
//! packing the block's panels), every tile of the result is loaded into
//! vector registers, carried through the reduction loops (one broadcast
//! cell of `a` per row, one row of `b` per step, `vector.fma`), and
//! stored. The last rows are a tile of fewer rows, the last columns masked
//! vectors (`vector.maskedload`/`maskedstore`), so no cell is left to
//! scalar loops. The loop the plan names runs in parallel.

use std::{cell::RefCell, collections::HashMap};

use melior::ir::{Type, Value, ValueLike};
use ocannl_assign_dialect::numeric;
use ocannl_cpu_plan::{
    linear::{Linear, Padded},
    tiling::{Contraction, Operand, Parallel},
    PARALLEL_CELLS,
};
use ocannl_mlir::{At, Builder};
use ocannl_passes::conversion::assign_to_loops::{assignment::memref_info, Assignment};

/// The iterators bound so far: `(iterator, value)`.
type Bound<'c, 'a> = Vec<(usize, Value<'c, 'a>)>;

/// Index arithmetic, its constants made once before the kernel's code
/// (before its first op, the constant 0, so they dominate all of it).
struct Ix<'e, 'c, 'a> {
    e: &'e Builder<'c>,
    idx: Type<'c>,
    top: At<'c, 'a>,
    consts: RefCell<HashMap<i64, Value<'c, 'a>>>,
}

impl<'e, 'c, 'a> Ix<'e, 'c, 'a> {
    fn new(e: &'e Builder<'c>, at: At<'c, 'a>) -> Result<Self, String> {
        let idx = Type::index(e.ctx);
        let first = e.op(
            at,
            "arith.constant",
            &[],
            &[idx],
            &[("value", e.attr("0 : index").map_err(|e| e.to_string())?)],
        );
        let zero: Value<'c, 'a> = first.result(0).map_err(|er| er.to_string())?.into();
        Ok(Ix {
            e,
            idx: Type::index(e.ctx),
            top: At::before(first).map_err(|e| e.to_string())?,
            consts: RefCell::new(HashMap::from([(0, zero)])),
        })
    }

    /// The index constant `v`.
    fn c(&self, v: i64) -> Result<Value<'c, 'a>, String> {
        if let Some(&c) = self.consts.borrow().get(&v) {
            return Ok(c);
        }
        let c = self.e.index(self.top, v).map_err(|e| e.to_string())?;
        self.consts.borrow_mut().insert(v, c);
        Ok(c)
    }

    fn add(&self, at: At<'c, 'a>, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.e.op1(at, "arith.addi", &[x, y], self.idx, &[])
    }

    /// `x + c`.
    fn add_c(&self, at: At<'c, 'a>, x: Value<'c, 'a>, c: i64) -> Result<Value<'c, 'a>, String> {
        if c == 0 {
            return Ok(x);
        }
        let c = self.c(c)?;
        Ok(self.add(at, x, c))
    }

    /// `x * c`.
    fn mul_c(&self, at: At<'c, 'a>, x: Value<'c, 'a>, c: i64) -> Result<Value<'c, 'a>, String> {
        if c == 0 {
            return self.c(0);
        }
        if c == 1 {
            return Ok(x);
        }
        let c = self.c(c)?;
        Ok(self.e.op1(at, "arith.muli", &[x, c], self.idx, &[]))
    }

    /// `base + Σ coef[d] * v` over the bound iterators `ivs`.
    fn part(
        &self,
        at: At<'c, 'a>,
        base: Value<'c, 'a>,
        coef: &[i64],
        ivs: &[(usize, Value<'c, 'a>)],
    ) -> Result<Value<'c, 'a>, String> {
        let mut acc = base;
        for &(d, v) in ivs {
            if coef[d] != 0 {
                let t = self.mul_c(at, v, coef[d])?;
                acc = self.add(at, acc, t);
            }
        }
        Ok(acc)
    }
}

/// A buffer as one flat row-major memref.
fn flat<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    v: Value<'c, 'a>,
    elt: &str,
) -> Result<Value<'c, 'a>, String> {
    let (dims, _) = memref_info(v)?;
    if dims.len() == 1 {
        return Ok(v);
    }
    let cells: i64 = dims.iter().product();
    let all = (0..dims.len())
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Ok(e.op1(
        at,
        "memref.collapse_shape",
        &[v],
        e.ty(&format!("memref<{cells}x{elt}>"))
            .map_err(|e| e.to_string())?,
        &[(
            "reassociation",
            e.attr(&format!("[[{all}]]")).map_err(|e| e.to_string())?,
        )],
    ))
}

/// A flat buffer of `cells` cells of `elt`, aligned for vectors (to be
/// freed by the caller).
fn alloc_flat<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    cells: i64,
    elt: &str,
) -> Result<Value<'c, 'a>, String> {
    e.alloc(
        at,
        e.ty(&format!("memref<{cells}x{elt}>"))
            .map_err(|e| e.to_string())?,
        Some(64),
    )
    .map_err(|e| e.to_string())
}

/// Fills `n` cells of a flat buffer with `value`.
fn fill_flat<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    buf: Value<'c, 'a>,
    n: i64,
    value: Value<'c, 'a>,
) -> Result<(), String> {
    let b = e.bounds(at, 0, n, 1).map_err(|e| e.to_string())?;
    e.for_loop(at, b, &[], &mut |inner, c, _| {
        e.op0(inner, "memref.store", &[value, buf, c]);
        Ok(vec![])
    })?;
    Ok(())
}

/// The flat buffer `a` reads operand `op` from: the operand itself, or a
/// copy padded with `pad` (allocated here; returned to be freed).
fn source<'c, 'a>(
    a: &Assignment<'_, 'c, 'a>,
    ix: &Ix<'_, 'c, 'a>,
    at: At<'c, 'a>,
    op: &Operand,
    pad: Value<'c, 'a>,
) -> Result<(Value<'c, 'a>, Option<Value<'c, 'a>>), String> {
    let e = a.e;
    let src = a.tensors[op.buffer];
    let Some(Padded { low, dims: pdims }) = &op.padded else {
        return Ok((flat(e, at, src, &a.elt)?, None));
    };
    let cells: u64 = pdims.iter().product();
    let cells = i64::try_from(cells).map_err(|_| "a padded copy too large".to_string())?;
    let buf = alloc_flat(e, at, cells, &a.elt)?;
    fill_flat(e, at, buf, cells, pad)?;
    let (dims, _) = memref_info(src)?;
    let ranges: Vec<(i64, i64)> = dims.iter().map(|&d| (0, d)).collect();
    // Strides of the copy.
    let mut strides = vec![1i64; pdims.len()];
    for r in (0..pdims.len().saturating_sub(1)).rev() {
        strides[r] = strides[r + 1] * pdims[r + 1] as i64;
    }
    let offset: i64 = low.iter().zip(&strides).map(|(&l, &s)| l as i64 * s).sum();
    e.nest(at, &ranges, &mut |inner, ivs| {
        let mut ops = vec![src];
        ops.extend_from_slice(ivs);
        let v = e.op1(inner, "memref.load", &ops, a.eltt, &[]);
        let bound: Bound = ivs.iter().copied().enumerate().collect();
        let base = ix.c(offset)?;
        let dst = ix.part(inner, base, &strides, &bound)?;
        e.op0(inner, "memref.store", &[v, buf, dst]);
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    Ok((buf, Some(buf)))
}

/// An f32 (compute type) copy of the flat 16-bit buffer `src`
/// (allocated here; to be freed).
fn widen_copy<'c, 'a>(
    a: &Assignment<'_, 'c, 'a>,
    at: At<'c, 'a>,
    src: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let e = a.e;
    let (dims, _) = memref_info(src)?;
    let cells: i64 = dims.iter().product();
    let compute = ocannl_mlir::types::scalar_name(a.compute);
    let buf = alloc_flat(e, at, cells, &compute)?;
    copy_cells(a, at, src, buf, a.compute)?;
    Ok(buf)
}

/// Copies every cell of the flat buffer `src` into `dst` (of as many
/// cells), converted to `to` (`dst`'s cell type): in vectors of 16 cells,
/// the last ones one by one.
fn copy_cells<'c, 'a>(
    a: &Assignment<'_, 'c, 'a>,
    at: At<'c, 'a>,
    src: Value<'c, 'a>,
    dst: Value<'c, 'a>,
    to: Type<'c>,
) -> Result<(), String> {
    const LANES: i64 = 16;
    let e = a.e;
    let (dims, from) = memref_info(src)?;
    let cells: i64 = dims.iter().product();
    let to_name = ocannl_mlir::types::scalar_name(to);
    let from_t = e.ty(&from).map_err(|e| e.to_string())?;
    let (vf, vt) = (
        e.ty(&format!("vector<{LANES}x{from}>"))
            .map_err(|e| e.to_string())?,
        e.ty(&format!("vector<{LANES}x{to_name}>"))
            .map_err(|e| e.to_string())?,
    );
    let whole = cells / LANES * LANES;
    for (lo, hi, step, (load, store), (from, to)) in [
        (0, whole, LANES, ("vector.load", "vector.store"), (vf, vt)),
        (
            whole,
            cells,
            1,
            ("memref.load", "memref.store"),
            (from_t, to),
        ),
    ] {
        if lo == hi {
            continue;
        }
        let b = e.bounds(at, lo, hi, step).map_err(|e| e.to_string())?;
        e.for_loop(at, b, &[], &mut |inner, c, _| {
            let v = e.op1(inner, load, &[src, c], from, &[]);
            let v = numeric::convert(e, inner, v, to);
            e.op0(inner, store, &[v, dst, c]);
            Ok(vec![])
        })?;
    }
    Ok(())
}

/// The lanes of a 1-D vector value (1 for a scalar).
fn lanes_of(v: Value) -> u64 {
    ocannl_mlir::types::vector_dims(v.r#type())
        .and_then(|d| d.first().copied())
        .unwrap_or(1)
}

/// The values the tiles share.
struct Kernel<'p, 'e, 'c, 'a> {
    p: &'p Contraction,
    e: &'e Builder<'c>,
    ix: Ix<'e, 'c, 'a>,
    /// Masks and zero vectors, made once at the start (by lanes and lanes
    /// on).
    masks: RefCell<HashMap<(u64, u64), Value<'c, 'a>>>,
    zero_vectors: RefCell<HashMap<u64, Value<'c, 'a>>>,
    /// Vector types by lanes (and whether of `i1`).
    types: RefCell<HashMap<(u64, bool), Type<'c>>>,
    /// The type values are computed in (vectors, tiles, packed panels),
    /// as text and as a type: f32 for 16-bit cells.
    elt: &'p str,
    eltt: Type<'c>,
    /// The type of the result's and the operands' cells (`eltt`, or a
    /// 16-bit type converted when loaded and rounded when stored).
    stored: Type<'c>,
    lhs: Value<'c, 'a>,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    /// The packed panels, when `b` is packed.
    packed: Option<Value<'c, 'a>>,
    /// The tiles start at 0, not at the result's cells.
    fresh: bool,
}

/// The body of the reduction loops: gets the bound reduction iterators
/// and the carried values, returns the next ones.
type StepFn<'f, 'c, 'a> = dyn FnMut(At<'c, 'a>, &Bound<'c, 'a>, &[Value<'c, 'a>]) -> Result<Vec<Value<'c, 'a>>, String>
    + 'f;

/// A block of reduction steps of `k[0]`: its first step and how many.
type Block<'c, 'a> = Option<(Value<'c, 'a>, Value<'c, 'a>)>;
/// The column tiles `lo..hi` of a chunk, when the columns are computed in
/// chunks (`None`: all of them).
type Chunk<'c, 'a> = Option<(Value<'c, 'a>, Value<'c, 'a>)>;

impl<'c, 'a> Kernel<'_, '_, 'c, 'a> {
    /// `vector<lanes x elt>` (`mask`: of `i1`), parsed once.
    fn vector_type(&self, lanes: u64, mask: bool) -> Result<Type<'c>, String> {
        if let Some(&t) = self.types.borrow().get(&(lanes, mask)) {
            return Ok(t);
        }
        let elt = if mask { "i1" } else { self.elt };
        let t = self
            .e
            .ty(&format!("vector<{lanes}x{elt}>"))
            .map_err(|e| e.to_string())?;
        self.types.borrow_mut().insert((lanes, mask), t);
        Ok(t)
    }

    fn vt(&self, lanes: u64) -> Result<Type<'c>, String> {
        self.vector_type(lanes, false)
    }

    /// The mask of the first `on` of `lanes` lanes, `on` a value (clamped
    /// to `0..=lanes`).
    fn dynamic_mask(
        &self,
        at: At<'c, 'a>,
        lanes: u64,
        on: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, String> {
        let ix = &self.ix;
        let lo = ix.c(0)?;
        let hi = ix.c(lanes as i64)?;
        let on = self.e.op1(at, "arith.maxsi", &[on, lo], ix.idx, &[]);
        let on = self.e.op1(at, "arith.minsi", &[on, hi], ix.idx, &[]);
        let t = self.vector_type(lanes, true)?;
        Ok(self.e.op1(at, "vector.create_mask", &[on], t, &[]))
    }

    fn mask(&self, lanes: u64, on: u64) -> Result<Value<'c, 'a>, String> {
        if let Some(&m) = self.masks.borrow().get(&(lanes, on)) {
            return Ok(m);
        }
        let t = self.vector_type(lanes, true)?;
        let m = self.e.op1(
            self.ix.top,
            "vector.constant_mask",
            &[],
            t,
            &[("mask_dim_sizes", self.e.i64_array_attr(&[on as i64]))],
        );
        self.masks.borrow_mut().insert((lanes, on), m);
        Ok(m)
    }

    fn zeros(&self, lanes: u64) -> Result<Value<'c, 'a>, String> {
        if let Some(&z) = self.zero_vectors.borrow().get(&lanes) {
            return Ok(z);
        }
        let t = self.vt(lanes)?;
        let attr = self
            .e
            .attr(&format!(
                "dense<0.000000e+00> : vector<{lanes}x{}>",
                self.elt
            ))
            .map_err(|e| e.to_string())?;
        let z = self
            .e
            .op1(self.ix.top, "arith.constant", &[], t, &[("value", attr)]);
        self.zero_vectors.borrow_mut().insert(lanes, z);
        Ok(z)
    }

    /// `vector<lanes x stored>`: a vector of 16-bit cells as loaded.
    fn stored_vt(&self, lanes: u64) -> Result<Type<'c>, String> {
        let name = ocannl_mlir::types::scalar_name(self.stored);
        self.e
            .ty(&format!("vector<{lanes}x{name}>"))
            .map_err(|e| e.to_string())
    }

    /// Whether `buf` holds cells of another type than values are
    /// computed in (16-bit cells; not the packed panels).
    fn converts(&self, buf: Value<'c, 'a>) -> bool {
        self.stored != self.eltt
            && ocannl_mlir::types::element_type(buf.r#type()) == Some(self.stored)
    }

    /// A vector of `buf` at `i`, only the lanes of `mask` when given (the
    /// others 0), in the compute type.
    fn load(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        i: Value<'c, 'a>,
        lanes: u64,
        mask: Option<Value<'c, 'a>>,
    ) -> Result<Value<'c, 'a>, String> {
        let t = self.vt(lanes)?;
        if self.converts(buf) {
            return match mask {
                None => {
                    let st = self.stored_vt(lanes)?;
                    let v = self.e.op1(at, "vector.load", &[buf, i], st, &[]);
                    Ok(numeric::convert(self.e, at, v, t))
                }
                Some(m) => self.masked_cells(at, buf, i, lanes, m),
            };
        }
        Ok(match mask {
            None => self.e.op1(at, "vector.load", &[buf, i], t, &[]),
            Some(m) => {
                let z = self.zeros(lanes)?;
                self.e.op1(at, "vector.maskedload", &[buf, i, m, z], t, &[])
            }
        })
    }

    /// Stores `v` (in the compute type) into `buf` at `i`, rounded to its
    /// cells' type.
    fn store(
        &self,
        at: At<'c, 'a>,
        v: Value<'c, 'a>,
        buf: Value<'c, 'a>,
        i: Value<'c, 'a>,
        mask: Option<Value<'c, 'a>>,
    ) -> Result<(), String> {
        if !self.converts(buf) {
            match mask {
                None => self.e.op0(at, "vector.store", &[v, buf, i]),
                Some(m) => self.e.op0(at, "vector.maskedstore", &[buf, i, m, v]),
            }
            return Ok(());
        }
        match mask {
            None => {
                let st = self.stored_vt(lanes_of(v))?;
                let v = numeric::convert(self.e, at, v, st);
                self.e.op0(at, "vector.store", &[v, buf, i]);
                Ok(())
            }
            // 16-bit lanes one by one: LLVM legalizes a masked store (or a
            // lane) of 16-bit floats through f32 and calls a conversion
            // function (`__truncsfbf2`) on CPUs without 16-bit masked moves.
            Some(m) => self.store_lanes(at, v, buf, i, m),
        }
    }

    /// Lane `l` of the mask `m`.
    fn lane_on(&self, at: At<'c, 'a>, m: Value<'c, 'a>, l: u64) -> Result<Value<'c, 'a>, String> {
        let i1 = self.e.ty("i1").map_err(|e| e.to_string())?;
        Ok(self.e.op1(
            at,
            "vector.extract",
            &[m],
            i1,
            &[("static_position", self.e.i64_array_attr(&[l as i64]))],
        ))
    }

    /// The lanes of `mask` of 16-bit `buf` from `i`, the others 0, in the
    /// compute type, read cell by cell (the masked-off lanes read cell 0,
    /// which every buffer has, and are replaced by 0): see [`Self::store`].
    fn masked_cells(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        i: Value<'c, 'a>,
        lanes: u64,
        mask: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, String> {
        let (e, ix) = (self.e, &self.ix);
        let t = self.vt(lanes)?;
        let zero = e.float(at, 0.0, self.eltt);
        let first = ix.c(0)?;
        let mut v = self.zeros(lanes)?;
        for l in 0..lanes {
            let on = self.lane_on(at, mask, l)?;
            let cell = ix.add_c(at, i, l as i64)?;
            let safe = e.op1(at, "arith.select", &[on, cell, first], ix.idx, &[]);
            let x = self.load_cell(at, buf, safe);
            let x = e.op1(at, "arith.select", &[on, x, zero], self.eltt, &[]);
            v = e.op1(
                at,
                "vector.insert",
                &[x, v],
                t,
                &[("static_position", e.i64_array_attr(&[l as i64]))],
            );
        }
        Ok(v)
    }

    /// Stores the lanes of `mask` of `v` (in the compute type) into 16-bit
    /// `buf` from `i`, cell by cell, each rounded to the cell type.
    fn store_lanes(
        &self,
        at: At<'c, 'a>,
        v: Value<'c, 'a>,
        buf: Value<'c, 'a>,
        i: Value<'c, 'a>,
        mask: Value<'c, 'a>,
    ) -> Result<(), String> {
        let (e, ix) = (self.e, &self.ix);
        for l in 0..lanes_of(v) {
            let on = self.lane_on(at, mask, l)?;
            let cell = ix.add_c(at, i, l as i64)?;
            let x = e.op1(
                at,
                "vector.extract",
                &[v],
                self.eltt,
                &[("static_position", e.i64_array_attr(&[l as i64]))],
            );
            let x = numeric::convert(e, at, x, self.stored);
            e.if_then(at, on, &mut |inner| {
                e.op0(inner, "memref.store", &[x, buf, cell]);
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The cell of `buf` at `i`, in the compute type.
    fn load_cell(&self, at: At<'c, 'a>, buf: Value<'c, 'a>, i: Value<'c, 'a>) -> Value<'c, 'a> {
        if self.converts(buf) {
            let v = self.e.op1(at, "memref.load", &[buf, i], self.stored, &[]);
            numeric::convert(self.e, at, v, self.eltt)
        } else {
            self.e.op1(at, "memref.load", &[buf, i], self.eltt, &[])
        }
    }

    /// The reduction loops (the first over the block when there is one),
    /// carrying `carried`: `body` gets the bound reduction iterators.
    fn reduce(
        &self,
        at: At<'c, 'a>,
        block: Block<'c, 'a>,
        carried: &[Value<'c, 'a>],
        body: &mut StepFn<'_, 'c, 'a>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let mut bound = vec![];
        self.reduce_from(at, 0, block, carried, &mut bound, body)
    }

    fn reduce_from(
        &self,
        at: At<'c, 'a>,
        level: usize,
        block: Block<'c, 'a>,
        carried: &[Value<'c, 'a>],
        bound: &mut Bound<'c, 'a>,
        body: &mut StepFn<'_, 'c, 'a>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let p = self.p;
        let Some(&d) = p.k.get(level) else {
            return body(at, bound, carried);
        };
        let (lo, hi) = match block.filter(|_| level == 0) {
            Some((k0, steps)) => (k0, self.ix.add(at, k0, steps)),
            None => (self.ix.c(0)?, self.ix.c(p.space[d] as i64)?),
        };
        let one = self.ix.c(1)?;
        self.e
            .for_loop(at, (lo, hi, one), carried, &mut |inner, iv, acc| {
                bound.push((d, iv));
                let next = self.reduce_from(inner, level + 1, block, acc, bound, body);
                bound.pop();
                next
            })
    }

    /// The position of the reduction step `k` in a packed block starting
    /// at `k0`: `(k[0] - k0) * inner + ...`, row-major over `k`.
    fn step_in_block(
        &self,
        at: At<'c, 'a>,
        k: &Bound<'c, 'a>,
        k0: Option<Value<'c, 'a>>,
    ) -> Result<Value<'c, 'a>, String> {
        let p = self.p;
        let mut coef = vec![0i64; p.space.len()];
        let mut stride = 1i64;
        for &d in p.k.iter().rev() {
            coef[d] = stride;
            stride *= p.space[d] as i64;
        }
        let zero = self.ix.c(0)?;
        let mut pos = self.ix.part(at, zero, &coef, k)?;
        if let Some(k0) = k0 {
            let shift = self.ix.mul_c(at, k0, coef[p.k[0]])?;
            pos = self
                .e
                .op1(at, "arith.subi", &[pos, shift], self.ix.idx, &[]);
        }
        Ok(pos)
    }

    /// Packs `b`'s columns into panels for the block of steps `block`:
    /// panel `q` holds, for each step `s` of the block, the cells of
    /// columns `q * w .. q * w + w` at `q * steps * w + s * w` (`steps` the
    /// most steps of a block); cells beyond the columns are 0. The whole
    /// panels (those of `chunk` only, when given) are packed in parallel
    /// when large.
    fn pack(
        &self,
        at: At<'c, 'a>,
        outer: &Bound<'c, 'a>,
        block: Block<'c, 'a>,
        chunk: Chunk<'c, 'a>,
    ) -> Result<(), String> {
        let (p, e, ix) = (self.p, self.e, &self.ix);
        let w = p.tile_columns();
        let b_base = self.b_base(at, outer)?;
        let whole = p.n() / w;
        let (bounds, panels) = match chunk {
            Some((lo, hi)) => {
                let wh = ix.c(whole as i64)?;
                let hi = e.op1(at, "arith.minsi", &[hi, wh], ix.idx, &[]);
                let per = p.pack.map_or(whole, |k| k.panels.min(whole));
                ((lo, hi, ix.c(1)?), per)
            }
            None => (
                e.bounds(at, 0, whole as i64, 1)
                    .map_err(|e| e.to_string())?,
                whole,
            ),
        };
        if panels > 0 {
            let par = panels > 1 && (panels * w * p.block_steps()) as i64 >= PARALLEL_CELLS;
            e.maybe_parallel(at, par, bounds, &mut |at1, q| {
                self.panel(at1, b_base, block, q, w)
            })
            .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Packs the last, partial panel, if there is one.
    fn pack_tail(
        &self,
        at: At<'c, 'a>,
        outer: &Bound<'c, 'a>,
        block: Block<'c, 'a>,
    ) -> Result<(), String> {
        let (p, w) = (self.p, self.p.tile_columns());
        if p.n() % w == 0 {
            return Ok(());
        }
        let b_base = self.b_base(at, outer)?;
        let q = self.ix.c((p.n() / w) as i64)?;
        self.panel(at, b_base, block, q, p.n() % w)
    }

    /// `b`'s cell at the loops `outer` and every other iterator 0.
    fn b_base(&self, at: At<'c, 'a>, outer: &Bound<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let (p, ix) = (self.p, &self.ix);
        let zero = ix.c(0)?;
        let b_base = ix.add_c(at, zero, p.b.at.offset)?;
        ix.part(at, b_base, &p.b.at.coef, outer)
    }

    /// Packs panel `q` (its first `columns` columns).
    fn panel(
        &self,
        at: At<'c, 'a>,
        b_base: Value<'c, 'a>,
        block: Block<'c, 'a>,
        q: Value<'c, 'a>,
        columns: u64,
    ) -> Result<(), String> {
        let (p, e, ix) = (self.p, self.e, &self.ix);
        let packed = self.packed.ok_or("internal error: no packed panels")?;
        let w = p.tile_columns() as i64;
        let lanes = p.tile.lanes;
        let coef = p.b_lane_coef();
        let j0 = ix.mul_c(at, q, w)?;
        let dst0 = ix.mul_c(at, q, p.block_steps() as i64 * w)?;
        let src0 = ix.mul_c(at, j0, coef)?;
        let src0 = ix.add(at, b_base, src0);
        let k0 = block.map(|b| b.0);
        if coef == 1 {
            // Contiguous columns: vectors, the last ones masked.
            self.reduce(at, block, &[], &mut |at1, k, _| {
                let src = ix.part(at1, src0, &p.b.at.coef, k)?;
                let s = self.step_in_block(at1, k, k0)?;
                let dst = ix.mul_c(at1, s, w)?;
                let dst = ix.add(at1, dst0, dst);
                for v in 0..p.tile.vectors {
                    let off = v * lanes;
                    let di = ix.add_c(at1, dst, off as i64)?;
                    let val = if off >= columns {
                        self.zeros(lanes)?
                    } else {
                        let on = (columns - off < lanes).then_some(columns - off);
                        let si = ix.add_c(at1, src, off as i64)?;
                        let mask = on.map(|on| self.mask(lanes, on)).transpose()?;
                        self.load(at1, self.b, si, lanes, mask)?
                    };
                    self.store(at1, val, packed, di, None)?;
                }
                Ok(vec![])
            })?;
            return Ok(());
        }
        // Strided columns: one cell at a time, the columns outside.
        let cb = e
            .bounds(at, 0, columns as i64, 1)
            .map_err(|e| e.to_string())?;
        e.for_loop(at, cb, &[], &mut |at1, lane, _| {
            let src1 = ix.mul_c(at1, lane, coef)?;
            let src1 = ix.add(at1, src0, src1);
            let dst1 = ix.add(at1, dst0, lane);
            self.reduce(at1, block, &[], &mut |at2, k, _| {
                let src = ix.part(at2, src1, &p.b.at.coef, k)?;
                let s = self.step_in_block(at2, k, k0)?;
                let dst = ix.mul_c(at2, s, w)?;
                let dst = ix.add(at2, dst1, dst);
                let v = self.load_cell(at2, self.b, src);
                e.op0(at2, "memref.store", &[v, packed, dst]);
                Ok(vec![])
            })?;
            Ok(vec![])
        })?;
        // The columns beyond the result read 0.
        if columns < w as u64 {
            let zb = e
                .bounds(at, columns as i64, w, 1)
                .map_err(|e| e.to_string())?;
            let zero = e.float(at, 0.0, self.eltt);
            e.for_loop(at, zb, &[], &mut |at1, lane, _| {
                let dst1 = ix.add(at1, dst0, lane);
                self.reduce(at1, block, &[], &mut |at2, k, _| {
                    let s = self.step_in_block(at2, k, k0)?;
                    let dst = ix.mul_c(at2, s, w)?;
                    let dst = ix.add(at2, dst1, dst);
                    e.op0(at2, "memref.store", &[zero, packed, dst]);
                    Ok(vec![])
                })?;
                Ok(vec![])
            })?;
        }
        Ok(())
    }

    /// One tile: `rows` rows from `i0`, `vectors` vectors from column `j0`,
    /// each vector's lanes those of its mask in `masks` when given.
    #[allow(clippy::too_many_arguments)]
    fn tile(
        &self,
        at: At<'c, 'a>,
        outer: &Bound<'c, 'a>,
        block: Block<'c, 'a>,
        i0: Value<'c, 'a>,
        j0: Value<'c, 'a>,
        rows: u64,
        vectors: u64,
        masks: &[Option<Value<'c, 'a>>],
    ) -> Result<(), String> {
        let (p, e, ix) = (self.p, self.e, &self.ix);
        let lanes = p.tile.lanes;
        let vt = self.vt(lanes)?;
        let on = |v: u64| masks[v as usize];
        let zero = ix.c(0)?;
        let lin_base = |at: At<'c, 'a>, l: &Linear| -> Result<Value<'c, 'a>, String> {
            let b = ix.add_c(at, zero, l.offset)?;
            let b = ix.part(at, b, &l.coef, outer)?;
            let ic = ix.mul_c(at, i0, l.coef[p.i])?;
            Ok(ix.add(at, b, ic))
        };
        let lhs_base = lin_base(at, &p.lhs)?;
        let lhs_base = ix.add(at, lhs_base, j0);
        let a_base = lin_base(at, &p.a.at)?;
        let b_base = match self.packed {
            Some(_) => ix.mul_c(at, j0, p.block_steps() as i64)?,
            None => {
                let b = lin_base(at, &p.b.at)?;
                let jc = ix.mul_c(at, j0, p.b_lane_coef())?;
                ix.add(at, b, jc)
            }
        };
        let (ci, w) = (p.lhs.coef[p.i], p.tile_columns() as i64);
        let mut cells = vec![];
        for r in 0..rows as i64 {
            for v in 0..vectors {
                let i = ix.add_c(at, lhs_base, r * ci + (v * lanes) as i64)?;
                cells.push((i, on(v)));
            }
        }
        let start = cells
            .iter()
            .map(|&(i, m)| {
                if self.fresh {
                    self.zeros(lanes)
                } else {
                    self.load(at, self.lhs, i, lanes, m)
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ai = p.a.at.coef[p.i];
        let done = self.reduce(at, block, &start, &mut |at1, k, acc| {
            let bk = match self.packed {
                Some(_) => {
                    let s = self.step_in_block(at1, k, block.map(|b| b.0))?;
                    let s = ix.mul_c(at1, s, w)?;
                    ix.add(at1, b_base, s)
                }
                None => ix.part(at1, b_base, &p.b.at.coef, k)?,
            };
            let bv = (0..vectors)
                .map(|v| {
                    let i = ix.add_c(at1, bk, (v * lanes) as i64)?;
                    match self.packed {
                        Some(packed) => self.load(at1, packed, i, lanes, None),
                        None => self.load(at1, self.b, i, lanes, on(v)),
                    }
                })
                .collect::<Result<Vec<_>, String>>()?;
            let ak = ix.part(at1, a_base, &p.a.at.coef, k)?;
            let mut next = Vec::with_capacity(acc.len());
            for r in 0..rows as i64 {
                let i = ix.add_c(at1, ak, r * ai)?;
                let av = self.load_cell(at1, self.a, i);
                let av = e.op1(at1, "vector.broadcast", &[av], vt, &[]);
                for (v, &bvv) in bv.iter().enumerate() {
                    let c = acc[r as usize * vectors as usize + v];
                    next.push(e.op1(at1, "vector.fma", &[av, bvv, c], vt, &[]));
                }
            }
            Ok(next)
        })?;
        for (value, (i, m)) in done.into_iter().zip(cells) {
            self.store(at, value, self.lhs, i, m)?;
        }
        Ok(())
    }

    /// The column tiles of the rows from `i0` (those of `chunk` when
    /// given): whole tiles in a loop, then the last one with its last
    /// vector masked; when there are both (or a chunk), one loop over all
    /// of them with masks computed from each tile's first column (one copy
    /// of the tile's code instead of two).
    #[allow(clippy::too_many_arguments)]
    fn columns(
        &self,
        at: At<'c, 'a>,
        outer: &Bound<'c, 'a>,
        block: Block<'c, 'a>,
        chunk: Chunk<'c, 'a>,
        i0: Value<'c, 'a>,
        rows: u64,
    ) -> Result<(), String> {
        let (p, e, ix) = (self.p, self.e, &self.ix);
        let (w, lanes, vectors) = (p.tile_columns() as i64, p.tile.lanes, p.tile.vectors);
        let (whole, tail) = p.column_tiles();
        let unmasked = vec![None; vectors as usize];
        let all = match chunk {
            Some((lo, hi)) => (lo, hi, ix.c(1)?),
            None => e
                .bounds(at, 0, p.column_panels() as i64, 1)
                .map_err(|e| e.to_string())?,
        };
        match tail {
            None => {
                e.for_loop(at, all, &[], &mut |at1, jt, _| {
                    let j0 = ix.mul_c(at1, jt, w)?;
                    self.tile(at1, outer, block, i0, j0, rows, vectors, &unmasked)?;
                    Ok(vec![])
                })?;
            }
            Some((tv, last)) if whole == 0 && chunk.is_none() => {
                let j0 = ix.c(0)?;
                let mut masks = vec![None; tv as usize];
                if last < lanes {
                    masks[tv as usize - 1] = Some(self.mask(lanes, last)?);
                }
                self.tile(at, outer, block, i0, j0, rows, tv, &masks)?;
            }
            Some(_) => {
                let n = ix.c(p.n() as i64)?;
                e.for_loop(at, all, &[], &mut |at1, jt, _| {
                    let j0 = ix.mul_c(at1, jt, w)?;
                    let left = e.op1(at1, "arith.subi", &[n, j0], ix.idx, &[]);
                    let masks = (0..vectors)
                        .map(|v| {
                            let on = ix.add_c(at1, left, -((v * lanes) as i64))?;
                            self.dynamic_mask(at1, lanes, on).map(Some)
                        })
                        .collect::<Result<Vec<_>, String>>()?;
                    self.tile(at1, outer, block, i0, j0, rows, vectors, &masks)?;
                    Ok(vec![])
                })?;
            }
        }
        Ok(())
    }

    /// The row tiles, the whole ones in parallel when the plan says so.
    fn rows(
        &self,
        at: At<'c, 'a>,
        outer: &Bound<'c, 'a>,
        block: Block<'c, 'a>,
        chunk: Chunk<'c, 'a>,
    ) -> Result<(), String> {
        let (p, e, ix) = (self.p, self.e, &self.ix);
        let mr = p.tile.rows;
        let (whole, rest) = p.row_tiles();
        if whole > 0 {
            let ib = e
                .bounds(at, 0, whole as i64, 1)
                .map_err(|e| e.to_string())?;
            e.maybe_parallel(at, p.parallel == Parallel::Rows, ib, &mut |at1, it| {
                let i0 = ix.mul_c(at1, it, mr as i64)?;
                self.columns(at1, outer, block, chunk, i0, mr)
            })
            .map_err(|e| e.to_string())?;
        }
        if rest > 0 {
            let i0 = ix.c((whole * mr) as i64)?;
            self.columns(at, outer, block, chunk, i0, rest)?;
        }
        Ok(())
    }

    /// The loops `outer[from..]` around the tiles (the one the plan names
    /// in parallel), then the tiles.
    fn around(
        &self,
        at: At<'c, 'a>,
        from: usize,
        outer: &mut Bound<'c, 'a>,
        block: Block<'c, 'a>,
        chunk: Chunk<'c, 'a>,
    ) -> Result<(), String> {
        let p = self.p;
        let Some(&d) = p.outer.get(from) else {
            return self.rows(at, outer, block, chunk);
        };
        let b = self
            .e
            .bounds(at, 0, p.space[d] as i64, 1)
            .map_err(|e| e.to_string())?;
        let par = p.parallel == Parallel::Outer(from);
        self.e
            .maybe_parallel(at, par, b, &mut |inner, iv| {
                outer.push((d, iv));
                let r = self.around(inner, from + 1, outer, block, chunk);
                outer.pop();
                r
            })
            .map_err(|e| e.to_string())
    }

    /// The loops `b` depends on, then (packing `b` per block) the rest.
    fn packed_around(
        &self,
        at: At<'c, 'a>,
        from: usize,
        outer: &mut Bound<'c, 'a>,
    ) -> Result<(), String> {
        let (p, e, ix) = (self.p, self.e, &self.ix);
        if from < p.outer_b {
            let d = p.outer[from];
            let b = e
                .bounds(at, 0, p.space[d] as i64, 1)
                .map_err(|e| e.to_string())?;
            return e
                .for_loop(at, b, &[], &mut |inner, iv, _| {
                    outer.push((d, iv));
                    let r = self.packed_around(inner, from + 1, outer);
                    outer.pop();
                    r.map(|()| vec![])
                })
                .map(|_| ());
        }
        let Some(pack) = p.pack else {
            return self.around(at, from, outer, None, None);
        };
        let k0 = p.k[0];
        let size = p.space[k0] as i64;
        let kb = e
            .bounds(at, 0, size, pack.block as i64)
            .map_err(|e| e.to_string())?;
        e.for_loop(at, kb, &[], &mut |inner, start, _| {
            let sz = ix.c(size)?;
            let left = e.op1(inner, "arith.subi", &[sz, start], ix.idx, &[]);
            let bl = ix.c(pack.block as i64)?;
            let steps = e.op1(inner, "arith.minsi", &[bl, left], ix.idx, &[]);
            let block = Some((start, steps));
            let chunks = p.column_chunks();
            self.pack_tail(inner, outer, block)?;
            if chunks == 1 {
                self.pack(inner, outer, block, None)?;
                return self
                    .around(inner, from, outer, block, None)
                    .map(|()| vec![]);
            }
            // Chunk by chunk: its panels packed, then every row tile over
            // them (the last, partial panel is packed above, once).
            let per = pack.panels as i64;
            let all = ix.c(p.column_panels() as i64)?;
            let cb = e
                .bounds(inner, 0, chunks as i64, 1)
                .map_err(|e| e.to_string())?;
            e.for_loop(inner, cb, &[], &mut |at1, c, _| {
                let lo = ix.mul_c(at1, c, per)?;
                let hi = ix.add_c(at1, lo, per)?;
                let hi = e.op1(at1, "arith.minsi", &[hi, all], ix.idx, &[]);
                let chunk = Some((lo, hi));
                self.pack(at1, outer, block, chunk)?;
                self.around(at1, from, outer, block, chunk)?;
                Ok(vec![])
            })?;
            Ok(vec![])
        })
        .map(|_| ())
    }
}

/// Emits the contraction `a` at `at` as the plan `p` says; with `fresh`,
/// the tiles start at 0 instead of the result's cells (the plan must start
/// the result: `Contraction::starts_result`).
pub(crate) fn emit<'c, 'a>(
    a: &Assignment<'_, 'c, 'a>,
    at: At<'c, 'a>,
    p: &Contraction,
    fresh: bool,
) -> Result<(), String> {
    let e = a.e;
    let ix = Ix::new(e, at)?;
    let pad = a.neutral(at);
    let result = flat(e, at, a.tensors[0], &a.elt)?;
    // A result stored narrower than values are computed (16-bit cells)
    // whose reduction runs in several blocks is summed in an f32 copy,
    // rounded into the result once at the end: each block's partial sums
    // would otherwise be rounded when stored.
    let blocks = p.pack.is_some_and(|pk| pk.block < p.space[p.k[0]]);
    let scratch = if a.compute != a.eltt && blocks {
        Some(widen_copy(a, at, result)?)
    } else {
        None
    };
    let lhs = scratch.unwrap_or(result);
    let (av, a_copy) = source(a, &ix, at, &p.a, pad)?;
    let (bv, b_copy) = source(a, &ix, at, &p.b, pad)?;
    // Values are computed (and packed) in the compute type: f32 for
    // 16-bit cells.
    let compute = ocannl_mlir::types::scalar_name(a.compute);
    let packed = match p.pack {
        Some(_) => {
            let cells = (p.column_panels() * p.block_steps() * p.tile_columns()) as i64;
            Some(alloc_flat(e, at, cells, &compute)?)
        }
        None => None,
    };
    let k = Kernel {
        p,
        e,
        ix,
        masks: RefCell::new(HashMap::new()),
        zero_vectors: RefCell::new(HashMap::new()),
        types: RefCell::new(HashMap::new()),
        elt: &compute,
        eltt: a.compute,
        stored: a.eltt,
        lhs,
        a: av,
        b: bv,
        packed,
        fresh,
    };
    k.packed_around(at, 0, &mut vec![])?;
    mark_madds(at, a, p)?;
    if let Some(s) = scratch {
        copy_cells(a, at, s, result, a.eltt)?;
    }
    for buf in [packed, a_copy, b_copy, scratch].into_iter().flatten() {
        e.op0(at, "memref.dealloc", &[buf]);
    }
    Ok(())
}

/// Marks the loop nest of a kernel that packs `b` (one loop, the last op
/// before `at`: over the first loop `b` depends on, or over the blocks)
/// with the multiply-adds of the assignment it computes (`NEST_MADDS`,
/// `Contraction::work`: all of them, or one phase's), which its loops'
/// trip counts do not give: the steps of a block and the chunks' bounds
/// are dynamic. Without packing every bound is a constant and the
/// outliner counts the trips itself.
fn mark_madds<'c, 'a>(
    at: At<'c, 'a>,
    a: &Assignment<'_, 'c, 'a>,
    p: &Contraction,
) -> Result<(), String> {
    use ocannl_passes::transforms::outline_kernels::NEST_MADDS;
    if p.pack.is_none() {
        return Ok(());
    }
    let nest = ocannl_passes::util::op_before(at);
    let Some(nest) = nest.filter(|o| ocannl_mlir::ir::name(o) == "scf.for") else {
        return Err("internal error: the packed contraction kernel is not one loop".into());
    };
    let madds = i64::try_from(p.work).unwrap_or(i64::MAX);
    let attr =
        a.e.attr(&format!("{madds} : i64"))
            .map_err(|e| e.to_string())?;
    ocannl_mlir::ir::set_attribute(nest, NEST_MADDS, attr);
    Ok(())
}
