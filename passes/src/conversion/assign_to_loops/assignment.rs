//! An accumulating assignment as loops: `lhs =accum= op(rhs...)` read from
//! its op ([`Assignment::read`]), operand indices from the projections'
//! affine maps, padded reads, the loop order, and the scalar loops
//! ([`Assignment::loops`]), whose iterators the caller may bind (a GPU
//! thread's cell).
//!
//! Nothing here asks a target: what a target decides (whether the
//! outermost loop runs in parallel, whether the result starts at the
//! neutral element) comes in as arguments. Backends read an [`Assignment`]
//! to emit their kernels.

use melior::ir::{
    operation::OperationLike, r#type::MemRefType, AffineMap, OperationRef, Type, Value, ValueLike,
};
use ocannl_assign::{Affine, Body, CmpPred, Dynamic};
use ocannl_assign_dialect::numeric;
use ocannl_mlir::{attr, builder::CmpI, types, At, Builder};
use ocannl_ops::{Accum, NumOp};

/// An accumulating assignment being lowered.
pub struct Assignment<'e, 'c, 'a> {
    pub e: &'e Builder<'c>,
    pub accum: Accum,
    /// The numeric op when the assignment computes one op of its operands
    /// in order (what kernels recognize), else `None`.
    pub op: Option<NumOp>,
    /// What each point computes.
    pub body: Body,
    /// Whether the result starts at the accumulation's neutral element.
    pub initialize_neutral: bool,
    /// The iteration space.
    pub space: Vec<i64>,
    /// One map per buffer, the result first.
    pub maps: Vec<AffineMap<'c>>,
    /// The maps' index expressions, in the assignment model.
    pub exprs: Vec<Vec<Affine>>,
    /// The buffers, result first.
    pub tensors: Vec<Value<'c, 'a>>,
    /// The index values bound to the maps' symbols.
    pub symbols: Vec<Value<'c, 'a>>,
    /// The dynamic indices, the maps' symbols after `symbols` (a gather's
    /// reads, a scatter's writes; see `ocannl_assign::Dynamic`).
    pub dynamic: Vec<Dynamic>,
    /// The result's element type, as text and as a type.
    pub elt: String,
    pub eltt: Type<'c>,
    /// Each buffer's element type, the result's first.
    pub stored: Vec<Type<'c>>,
    /// The type values are computed and summed in: the widest of the
    /// buffers' compute types (`Elt::compute`: f32 for 16-bit buffers).
    /// Loads convert to it; the result is rounded to `eltt` once, when
    /// stored.
    pub compute: Type<'c>,
}

/// The static sizes and element type of a memref value.
pub fn memref_info(v: Value) -> Result<(Vec<i64>, String), ocannl_mlir::Error> {
    let ty = v.r#type();
    let not = || ocannl_mlir::Error::unsupported("operands must be memrefs");
    MemRefType::try_from(ty).map_err(|_| not())?;
    let dims = types::memref_dims(ty)
        .ok_or_else(not)?
        .into_iter()
        .map(|d| d as i64)
        .collect();
    let elt = types::element_name(ty).ok_or_else(not)?;
    Ok((dims, elt))
}

/// An iterator of the scalar loops: looped over a half-open range, or
/// bound by the caller to a value.
#[derive(Clone, Copy)]
pub enum Iter<'c, 'a> {
    Range(i64, i64),
    Bound(Value<'c, 'a>),
}

impl<'c, 'a> Iter<'c, 'a> {
    /// Every iterator looped over its range.
    pub fn ranges(ranges: &[(i64, i64)]) -> Vec<Iter<'c, 'a>> {
        ranges.iter().map(|&(lo, hi)| Iter::Range(lo, hi)).collect()
    }
}

impl<'e, 'c, 'a> Assignment<'e, 'c, 'a> {
    /// The assignment of an `accum_unop|binop|ternop` or `accum` op.
    pub(crate) fn read(e: &'e Builder<'c>, op: &OperationRef<'c, 'a>) -> Result<Self, String> {
        let ocannl_assign_dialect::AccumAttrs {
            accum,
            body,
            initialize_neutral,
            space,
            maps,
            dynamic,
        } = ocannl_assign_dialect::accum_attrs(op).map_err(|e| e.to_string())?;
        let operands: Vec<Value<'c, 'a>> = op.operands().collect();
        let n = maps.len();
        if operands.len() < n || n == 0 {
            return Err(format!(
                "expected at least {n} buffer operand(s), found {}",
                operands.len()
            ));
        }
        let (tensors, symbols) = operands.split_at(n);
        let (_, elt) = memref_info(tensors[0])?;
        let eltt = e.ty(&elt).map_err(|e| e.to_string())?;
        let stored = tensors
            .iter()
            .map(|&t| {
                let (_, name) = memref_info(t)?;
                e.ty(&name).map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, String>>()?;
        let compute = stored.iter().fold(numeric::compute_type(e, eltt), |c, &t| {
            numeric::wider(c, numeric::compute_type(e, t))
        });
        let exprs = maps
            .iter()
            .map(|m| ocannl_mlir::affine::to_model(*m))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        Ok(Assignment {
            e,
            exprs,
            eltt,
            stored,
            compute,
            elt,
            accum,
            // No kernel takes a dynamic index: scalar loops.
            op: body.as_op().filter(|_| dynamic.is_empty()),
            body,
            dynamic,
            initialize_neutral,
            space,
            maps,
            tensors: tensors.to_vec(),
            symbols: symbols.to_vec(),
        })
    }

    /// The indices of operand `i` at the given iterators.
    pub fn indices(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        i: usize,
    ) -> Result<Vec<Value<'c, 'a>>, ocannl_mlir::Error> {
        self.indices_text(at, ivs, i)
            .map_err(ocannl_mlir::Error::unsupported)
    }

    /// [`Assignment::indices`], the failure as the diagnostic's text (for
    /// this crate's lowerings, which report at the op).
    pub(crate) fn indices_text(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        i: usize,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        self.indices_with(at, ivs, &self.symbols, i)
    }

    /// [`Assignment::indices_text`] with the maps' symbols bound to `syms`
    /// (the index operands, then the dynamic indices at the point).
    fn indices_with(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        syms: &[Value<'c, 'a>],
        i: usize,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let e = self.e;
        let map = self.maps[i];
        let mut out = vec![];
        for r in 0..map.result_count() {
            let sub = map.sub_map(&[r]);
            let expr = sub.result(0).map_err(|er| er.to_string())?;
            let v = if expr.is_dim() {
                ivs[expr.dim_position()]
            } else if expr.is_constant() {
                e.index(at, expr.constant_value())
                    .map_err(|e| e.to_string())?
            } else {
                let mut args: Vec<Value<'c, 'a>> = ivs.to_vec();
                args.extend_from_slice(syms);
                e.op1(
                    at,
                    "affine.apply",
                    &args,
                    Type::index(e.ctx),
                    &[("map", attr::affine_map_attr(sub))],
                )
            };
            out.push(v);
        }
        Ok(out)
    }

    /// Whether every buffer holds the result's element type.
    pub fn one_elt(&self) -> bool {
        self.stored.iter().all(|&t| t == self.eltt)
    }

    /// Whether every buffer holds the result's element type and values are
    /// computed in it (f32 or f64 throughout).
    pub fn computes_as_stored(&self) -> bool {
        self.compute == self.eltt && self.one_elt()
    }

    /// The neutral element of the accumulation in the result's element
    /// type (what a fill stores; a kernel's padding value).
    pub fn neutral(&self, at: At<'c, 'a>) -> Value<'c, 'a> {
        self.e.float(at, self.accum.neutral(), self.eltt)
    }

    /// The neutral element in the compute type (the scalar loops' padding
    /// value and fresh start).
    fn neutral_computed(&self, at: At<'c, 'a>) -> Value<'c, 'a> {
        self.e.float(at, self.accum.neutral(), self.compute)
    }

    /// Whether the indices `idx` of operand `i` are inside its buffer,
    /// checked for the padded ones (see `Affine::is_padded`) that may leave
    /// their axes (`None` when none may). With `clamp`, each such index is
    /// also clamped into its axis, so that reading there is safe.
    fn inside(
        &self,
        at: At<'c, 'a>,
        i: usize,
        idx: &mut [Value<'c, 'a>],
        clamp: bool,
    ) -> Result<Option<Value<'c, 'a>>, String> {
        let e = self.e;
        let idx_t = Type::index(e.ctx);
        let space: Vec<u64> = self.space.iter().map(|&d| d as u64).collect();
        let (dims, _) = memref_info(self.tensors[i])?;
        let mut inside: Option<Value<'c, 'a>> = None;
        for (r, ex) in self.exprs[i].iter().enumerate() {
            let d = dims[r];
            if !ex.is_padded() || ex.range(&space).is_some_and(|(lo, hi)| lo >= 0 && hi < d) {
                continue;
            }
            let (zero, last) = (
                e.index(at, 0).map_err(|e| e.to_string())?,
                e.index(at, d - 1).map_err(|e| e.to_string())?,
            );
            let i1 = e.ty("i1").map_err(|e| e.to_string())?;
            let ge = e.cmpi(at, CmpI::Sge, idx[r], zero);
            let le = e.cmpi(at, CmpI::Sle, idx[r], last);
            let ok = e.op1(at, "arith.andi", &[ge, le], i1, &[]);
            inside = Some(match inside {
                Some(prev) => e.op1(at, "arith.andi", &[prev, ok], i1, &[]),
                None => ok,
            });
            if clamp {
                let low = e.op1(at, "arith.minsi", &[idx[r], last], idx_t, &[]);
                idx[r] = e.op1(at, "arith.maxsi", &[low, zero], idx_t, &[]);
            }
        }
        Ok(inside)
    }

    /// `memref.load` of operand `i` at the given iterators. A padded index
    /// of an operand (see `Affine::is_padded`) that may leave its axis is
    /// clamped into it, and the value read there replaced by the padding
    /// value.
    pub fn load(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        i: usize,
    ) -> Result<Value<'c, 'a>, ocannl_mlir::Error> {
        self.load_text(at, ivs, i)
            .map_err(ocannl_mlir::Error::unsupported)
    }

    /// [`Assignment::load`], the failure as the diagnostic's text (for
    /// this crate's lowerings, which report at the op).
    pub(crate) fn load_text(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        i: usize,
    ) -> Result<Value<'c, 'a>, String> {
        self.load_with(at, ivs, &self.symbols, i)
    }

    /// [`Assignment::load_text`] with the maps' symbols bound to `syms`.
    fn load_with(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        syms: &[Value<'c, 'a>],
        i: usize,
    ) -> Result<Value<'c, 'a>, String> {
        let e = self.e;
        let mut idx = self.indices_with(at, ivs, syms, i)?;
        let inside = if i > 0 {
            self.inside(at, i, &mut idx, true)?
        } else {
            None
        };
        let mut ops = vec![self.tensors[i]];
        ops.extend(idx);
        let v = e.op1(at, "memref.load", &ops, self.stored[i], &[]);
        let v = numeric::convert(e, at, v, self.compute);
        Ok(match inside {
            Some(ok) => {
                let pad = self.neutral_computed(at);
                e.op1(at, "arith.select", &[ok, v, pad], self.compute, &[])
            }
            None => v,
        })
    }

    /// The value `op(rhs...)` at the given iterators: the neutral element
    /// at a point that a dynamic index skips.
    pub(crate) fn value(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
    ) -> Result<Value<'c, 'a>, String> {
        let (syms, ok) = self.point_symbols(at, ivs)?;
        let v = self.value_with(at, ivs, &syms)?;
        Ok(match ok {
            Some(ok) => {
                let pad = self.neutral_computed(at);
                self.e
                    .op1(at, "arith.select", &[ok, v, pad], self.compute, &[])
            }
            None => v,
        })
    }

    /// The value `op(rhs...)` at the given iterators, the maps' symbols
    /// bound to `syms`.
    fn value_with(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        syms: &[Value<'c, 'a>],
    ) -> Result<Value<'c, 'a>, String> {
        // An operand the body does not read (a dynamic index's source,
        // read by `point_symbols`) is not loaded again.
        let args = (1..self.tensors.len())
            .map(|i| match self.body.reads(i - 1) {
                true => self.load_with(at, ivs, syms, i),
                false => Ok(self.neutral_computed(at)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        numeric::body(self.e, at, &self.body, &args, self.compute).map_err(|e| e.to_string())
    }

    /// The maps' symbols at a point: the index operands, then each dynamic
    /// index, read from its operand; and whether every dynamic index is
    /// valid there (an integer in `0..bound`; `None` without dynamic
    /// indices). An invalid one is bound to 0, so that every address stays
    /// inside its buffer.
    fn point_symbols(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
    ) -> Result<(Vec<Value<'c, 'a>>, Option<Value<'c, 'a>>), String> {
        let e = self.e;
        let mut syms = self.symbols.clone();
        let mut valid: Option<Value<'c, 'a>> = None;
        let i1 = e.ty("i1").map_err(|e| e.to_string())?;
        let i64t = e.ty("i64").map_err(|e| e.to_string())?;
        for d in &self.dynamic {
            let x = self.load_text(at, ivs, d.source + 1)?;
            let t = self.compute;
            let (zero, bound) = (e.float(at, 0.0, t), e.float(at, d.bound as f64, t));
            // In range first (a NaN is not), so that the conversion to an
            // integer is defined; then a whole number: it converts back.
            let ge = e.cmpf(at, CmpPred::OGE, x, zero);
            let lt = e.cmpf(at, CmpPred::OLT, x, bound);
            let in_range = e.op1(at, "arith.andi", &[ge, lt], i1, &[]);
            let safe = e.op1(at, "arith.select", &[in_range, x, zero], t, &[]);
            let n = e.op1(at, "arith.fptosi", &[safe], i64t, &[]);
            let back = e.op1(at, "arith.sitofp", &[n], t, &[]);
            let whole = e.cmpf(at, CmpPred::OEQ, back, x);
            let ok = e.op1(at, "arith.andi", &[in_range, whole], i1, &[]);
            let idx = e.op1(at, "arith.index_cast", &[n], Type::index(e.ctx), &[]);
            // The bound as an integer too (a float bound may be rounded up).
            let last = e.index(at, d.bound as i64).map_err(|e| e.to_string())?;
            let below = e.cmpi(at, CmpI::Slt, idx, last);
            let ok = e.op1(at, "arith.andi", &[ok, below], i1, &[]);
            let zero_idx = e.index(at, 0).map_err(|e| e.to_string())?;
            let index = Type::index(e.ctx);
            syms.push(e.op1(at, "arith.select", &[ok, idx, zero_idx], index, &[]));
            valid = Some(match valid {
                Some(prev) => e.op1(at, "arith.andi", &[prev, ok], i1, &[]),
                None => ok,
            });
        }
        Ok((syms, valid))
    }

    /// `old accum v`.
    pub fn combine(
        &self,
        at: At<'c, 'a>,
        old: Value<'c, 'a>,
        v: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, ocannl_mlir::Error> {
        self.combine_text(at, old, v)
            .map_err(ocannl_mlir::Error::unsupported)
    }

    /// [`Assignment::combine`], the failure as the diagnostic's text (for
    /// this crate's lowerings, which report at the op).
    pub(crate) fn combine_text(
        &self,
        at: At<'c, 'a>,
        old: Value<'c, 'a>,
        v: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, String> {
        // Reassociation lets LLVM vectorize the reductions.
        let f = self
            .e
            .attr("#arith.fastmath<reassoc,contract>")
            .map_err(|e| e.to_string())?;
        let op = self
            .accum
            .combiner()
            .ok_or("internal error: combining with 'assign'")?;
        let name = numeric::combiner(op).map_err(|e| e.to_string())?;
        Ok(self
            .e
            .op1(at, name, &[old, v], self.compute, &[("fastmath", f)]))
    }

    /// The iterator indexing the last (contiguous) axis of operand `i`.
    fn last_axis_of(&self, i: usize) -> Option<usize> {
        match self.exprs[i].last() {
            Some(Affine::Dim(p)) => Some(*p),
            _ => None,
        }
    }

    /// Whether the result's indices depend on iterator `p`, directly or
    /// through a dynamic index read at it.
    pub fn lhs_uses(&self, p: usize) -> bool {
        let n = self.symbols.len();
        let through = |l: &Affine| match l {
            Affine::Dim(d) => *d == p,
            Affine::Sym(k) if *k >= n => self.exprs[self.dynamic[k - n].source + 1]
                .iter()
                .any(|x| x.mentions(p)),
            _ => false,
        };
        self.exprs[0].iter().any(|e| e.any_leaf(&through))
    }

    /// The loop order of the scalar loops: the innermost loop runs along
    /// the contiguous (last) axis of as many operands as possible (so that
    /// LLVM vectorizes it). When the result is stored narrower than it is
    /// computed (f16, bf16), the reduced iterators come last: each cell's
    /// sum is accumulated in the compute type and rounded once, whatever
    /// the loop order would otherwise have been.
    fn loop_order(&self) -> Vec<usize> {
        let space_len = self.space.len();
        let mut score = vec![0usize; space_len];
        for i in 0..self.tensors.len() {
            if let Some(p) = self.last_axis_of(i) {
                score[p] += 1;
            }
        }
        let mut order: Vec<usize> = (0..space_len).collect();
        if let Some(best) = (0..space_len).rev().max_by_key(|&p| (score[p], p)) {
            order.retain(|&p| p != best);
            order.push(best);
        }
        if self.compute != self.eltt && self.accum != Accum::Assign {
            let (kept, reduced): (Vec<usize>, Vec<usize>) =
                order.into_iter().partition(|&p| self.lhs_uses(p));
            order = kept.into_iter().chain(reduced).collect();
        }
        order
    }

    /// The iterators looped over (of `iters`, one per iterator of the
    /// space), in loop order, with their ranges.
    fn looped(&self, iters: &[Iter<'c, 'a>]) -> (Vec<usize>, Vec<(i64, i64)>) {
        self.loop_order()
            .into_iter()
            .filter_map(|p| match iters[p] {
                Iter::Range(lo, hi) => Some((p, (lo, hi))),
                Iter::Bound(_) => None,
            })
            .unzip()
    }

    /// The ranges of the scalar loops of [`Assignment::loops`] over
    /// `iters`, outermost first: what a target's parallel policy is asked
    /// about.
    pub fn loop_ranges(&self, iters: &[Iter<'c, 'a>]) -> Vec<(i64, i64)> {
        self.looped(iters).1
    }

    /// The scalar loops of the assignment: `iters[p]` is the range iterator
    /// `p` loops over, or the value the caller binds it to (a GPU thread's
    /// cell; the caller guarantees that different bindings write different
    /// cells). The loops run in [`Assignment::loop_ranges`]' order; the
    /// trailing loops the result does not depend on are reduced in a
    /// register (`scf.for` `iter_args`), the result cell loaded and stored
    /// once around them.
    ///
    /// With `parallel` (the target's choice for these loops), the outermost
    /// loop is an `scf.parallel` when its distinct iterations write distinct
    /// cells (the result has an axis indexed by its plain iterator). With
    /// `fresh`, the result's cell starts at the neutral element instead of
    /// its stored value (the caller's kernel initializes the result: each
    /// cell is bound by exactly one binding and indexed by the bound
    /// iterators only).
    pub fn loops(
        &self,
        at: At<'c, 'a>,
        iters: &[Iter<'c, 'a>],
        parallel: bool,
        fresh: bool,
    ) -> Result<(), ocannl_mlir::Error> {
        self.loops_text(at, iters, parallel, fresh)
            .map_err(ocannl_mlir::Error::unsupported)
    }

    /// [`Assignment::loops`], the failure as the diagnostic's text (for
    /// this crate's lowerings, which report at the op).
    pub(crate) fn loops_text(
        &self,
        at: At<'c, 'a>,
        iters: &[Iter<'c, 'a>],
        parallel: bool,
        fresh: bool,
    ) -> Result<(), String> {
        let e = self.e;
        if iters.len() != self.space.len() {
            return Err("internal error: an iterator binding per iterator is needed".into());
        }
        let (order, loop_ranges) = self.looped(iters);
        // The trailing loops the result does not depend on.
        let reduced_suffix = if self.accum == Accum::Assign {
            0
        } else {
            order
                .iter()
                .rev()
                .take_while(|&&p| !self.lhs_uses(p))
                .count()
        };
        let (outer, inner_ranges) = loop_ranges.split_at(loop_ranges.len() - reduced_suffix);
        let lhs = self.tensors[0];
        // Iterators in the original numbering: the bound ones, then loop
        // variables in loop order (loops not entered yet, reduced ones for
        // the result's index, get `filler`, which nothing reads).
        let merge = |ivs: &[Value<'c, 'a>], filler: Value<'c, 'a>| -> Vec<Value<'c, 'a>> {
            let mut out: Vec<Value<'c, 'a>> = iters
                .iter()
                .map(|it| match it {
                    Iter::Bound(v) => *v,
                    Iter::Range(..) => filler,
                })
                .collect();
            for (j, v) in ivs.iter().enumerate() {
                out[order[j]] = *v;
            }
            out
        };
        let plain_in_lhs = |p: usize| self.exprs[0].contains(&Affine::Dim(p));
        let parallel = parallel && !outer.is_empty() && plain_in_lhs(order[0]);
        e.nest_parallel(at, outer, parallel, &mut |inner, outer_ivs| {
            let filler = match outer_ivs.first() {
                Some(v) => *v,
                None => e.index(inner, 0).map_err(|e| e.to_string())?,
            };
            let ivs: &[Value<'c, 'a>] = &merge(outer_ivs, filler);
            // The dynamic indices at this point, where the result's cell
            // or the value computed without a reduction depends on them (a
            // reduction's value reads them at each of its points).
            let n = self.symbols.len();
            let dynamic_lhs = self.exprs[0]
                .iter()
                .any(|x| x.any_leaf(&|l| matches!(l, Affine::Sym(k) if *k >= n)));
            let (syms, valid) = if reduced_suffix == 0 || dynamic_lhs {
                self.point_symbols(inner, ivs)?
            } else {
                (self.symbols.clone(), None)
            };
            let lhs_idx = self.indices_with(inner, ivs, &syms, 0)?;
            // A point that a dynamic index skips writes nothing, except
            // the neutral element into a fresh cell it alone owns.
            let skip_invalid = dynamic_lhs || !fresh;
            let mut write = |inner: At<'c, 'a>| -> Result<(), String> {
                let mut ops = vec![lhs];
                ops.extend(lhs_idx.iter().copied());
                let start = |at: At<'c, 'a>| {
                    if fresh {
                        self.neutral_computed(at)
                    } else {
                        let old = e.op1(at, "memref.load", &ops, self.eltt, &[]);
                        numeric::convert(e, at, old, self.compute)
                    }
                };
                let result = if reduced_suffix == 0 {
                    let mut v = self.value_with(inner, ivs, &syms)?;
                    if let (Some(ok), false) = (valid, skip_invalid) {
                        let pad = self.neutral_computed(inner);
                        v = e.op1(inner, "arith.select", &[ok, v, pad], self.compute, &[]);
                    }
                    if self.accum == Accum::Assign {
                        v
                    } else {
                        let old = start(inner);
                        self.combine_text(inner, old, v)?
                    }
                } else {
                    let old = start(inner);
                    let mut all_ivs = outer_ivs.to_vec();
                    e.reduce_nest(
                        inner,
                        inner_ranges,
                        &[old],
                        &mut all_ivs,
                        &mut |at2, ivs2, acc| {
                            let v = self.value(at2, &merge(ivs2, filler))?;
                            Ok(vec![self.combine_text(at2, acc[0], v)?])
                        },
                    )?[0]
                };
                let mut ops = vec![numeric::convert(e, inner, result, self.eltt), lhs];
                ops.extend(lhs_idx.iter().copied());
                e.op0(inner, "memref.store", &ops);
                Ok(())
            };
            // A padded index of the result (the gradient of a padded read)
            // writes only inside the buffer: outside is the padding.
            let i1 = e.ty("i1").map_err(|e| e.to_string())?;
            let valid = valid.filter(|_| skip_invalid);
            let guard = match (self.inside(inner, 0, &mut lhs_idx.clone(), false)?, valid) {
                (Some(a), Some(b)) => Some(e.op1(inner, "arith.andi", &[a, b], i1, &[])),
                (a, b) => a.or(b),
            };
            match guard {
                Some(ok) => e.if_then(inner, ok, &mut write).map_err(|e| e.to_string()),
                None => write(inner),
            }
        })
        .map_err(|e| e.to_string())
    }
}
