//! Accumulating assignments as loop nests: `lhs =accum= op(rhs...)` over
//! the iteration space, operand indices from the projections' affine maps,
//! padded reads, and the loop order.

use melior::ir::{
    operation::OperationLike, r#type::MemRefType, AffineMap, OperationRef, Type, Value, ValueLike,
};
use ocannl_assign::{Affine, Body};
use ocannl_mlir::{attr, types, At, Builder};
use ocannl_ops::{Accum, NumOp};

use super::{numeric, target::LoopTarget};

/// An accumulating assignment being lowered. Backends read it to emit their
/// kernels (see [`LoopTarget::lower_accumulation`]).
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
    /// The element type, as text and as a type.
    pub elt: String,
    pub eltt: Type<'c>,
}

/// The static sizes and element type of a memref value.
pub fn memref_info(v: Value) -> Result<(Vec<i64>, String), String> {
    let ty = v.r#type();
    MemRefType::try_from(ty).map_err(|_| "operands must be memrefs".to_string())?;
    let dims = types::memref_dims(ty)
        .ok_or("operands must be memrefs")?
        .into_iter()
        .map(|d| d as i64)
        .collect();
    let elt = types::element_type(ty)
        .ok_or("operands must be memrefs")?
        .to_string();
    Ok((dims, elt))
}

/// Stores `value` into every cell of `buf`, in parallel where the target
/// says so.
pub fn fill<'c, 'a>(
    e: &Builder<'c>,
    target: &dyn LoopTarget,
    at: At<'c, 'a>,
    buf: Value<'c, 'a>,
    dims: &[i64],
    value: Value<'c, 'a>,
) -> Result<(), String> {
    let ranges: Vec<(i64, i64)> = dims.iter().map(|&d| (0, d)).collect();
    target.independent_nest(
        e,
        at,
        &ranges,
        target.parallel(&ranges),
        &mut |inner, ivs| {
            let mut ops = vec![value, buf];
            ops.extend_from_slice(ivs);
            e.op0(inner, "memref.store", &ops);
            Ok(())
        },
    )
}

/// Lowers an `accum_unop|binop|ternop` or `accum` op before itself.
pub fn lower<'c, 'a>(
    e: &Builder<'c>,
    target: &dyn LoopTarget,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
) -> Result<(), String> {
    let ocannl_assign_dialect::AccumAttrs {
        accum,
        body,
        initialize_neutral: init,
        space,
        maps,
    } = ocannl_assign_dialect::accum_attrs(op)?;
    let operands: Vec<Value<'c, 'a>> = op.operands().collect();
    let n = maps.len();
    if operands.len() < n || n == 0 {
        return Err(format!(
            "expected at least {n} buffer operand(s), found {}",
            operands.len()
        ));
    }
    let (tensors, symbols) = operands.split_at(n);
    let (lhs_dims, elt) = memref_info(tensors[0])?;
    let eltt = e.ty(&elt)?;
    let exprs = maps
        .iter()
        .map(|m| ocannl_mlir::affine::to_model(*m))
        .collect::<Result<Vec<_>, _>>()?;
    let a = Assignment {
        e,
        exprs,
        eltt,
        elt,
        accum,
        op: body.as_op(),
        body,
        initialize_neutral: init,
        space,
        maps,
        tensors: tensors.to_vec(),
        symbols: symbols.to_vec(),
    };
    if init && !target.initializes(&a) {
        let c = e.float(at, accum.neutral(), a.eltt);
        fill(e, target, at, tensors[0], &lhs_dims, c)?;
    }
    if target.lower_accumulation(&a, at)? {
        return Ok(());
    }
    let full: Vec<(i64, i64)> = a.space.iter().map(|&d| (0, d)).collect();
    a.scalar(target, at, &full)
}

impl<'e, 'c, 'a> Assignment<'e, 'c, 'a> {
    /// The indices of operand `i` at the given iterators.
    pub fn indices(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
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
                e.index(at, expr.constant_value())?
            } else {
                let mut args: Vec<Value<'c, 'a>> = ivs.to_vec();
                args.extend_from_slice(&self.symbols);
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

    /// The padding value: the neutral element of the accumulation.
    pub fn neutral(&self, at: At<'c, 'a>) -> Value<'c, 'a> {
        self.e.float(at, self.accum.neutral(), self.eltt)
    }

    /// `memref.load` of operand `i` at the given iterators. A padded index
    /// (see `Affine::is_padded`) that may leave its axis is clamped into it,
    /// and the value read there replaced by the padding value.
    pub fn load(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        i: usize,
    ) -> Result<Value<'c, 'a>, String> {
        let e = self.e;
        let idx_t = Type::index(e.ctx);
        let mut idx = self.indices(at, ivs, i)?;
        let mut inside: Option<Value<'c, 'a>> = None;
        if i > 0 {
            let space: Vec<u64> = self.space.iter().map(|&d| d as u64).collect();
            let (dims, _) = memref_info(self.tensors[i])?;
            for (r, ex) in self.exprs[i].iter().enumerate() {
                let d = dims[r];
                if !ex.is_padded() || ex.range(&space).is_some_and(|(lo, hi)| lo >= 0 && hi < d) {
                    continue;
                }
                let (zero, last) = (e.index(at, 0)?, e.index(at, d - 1)?);
                let i1 = e.ty("i1")?;
                let ge = e.op1(
                    at,
                    "arith.cmpi",
                    &[idx[r], zero],
                    i1,
                    &[("predicate", e.attr("5 : i64")?)],
                );
                let le = e.op1(
                    at,
                    "arith.cmpi",
                    &[idx[r], last],
                    i1,
                    &[("predicate", e.attr("3 : i64")?)],
                );
                let ok = e.op1(at, "arith.andi", &[ge, le], i1, &[]);
                inside = Some(match inside {
                    Some(prev) => e.op1(at, "arith.andi", &[prev, ok], i1, &[]),
                    None => ok,
                });
                let low = e.op1(at, "arith.minsi", &[idx[r], last], idx_t, &[]);
                idx[r] = e.op1(at, "arith.maxsi", &[low, zero], idx_t, &[]);
            }
        }
        let mut ops = vec![self.tensors[i]];
        ops.extend(idx);
        let v = e.op1(at, "memref.load", &ops, self.eltt, &[]);
        Ok(match inside {
            Some(ok) => {
                let pad = self.neutral(at);
                e.op1(at, "arith.select", &[ok, v, pad], self.eltt, &[])
            }
            None => v,
        })
    }

    /// Whether the result's padded indices are inside its buffer (`None`
    /// when it has none that may leave it).
    fn lhs_inside(
        &self,
        at: At<'c, 'a>,
        idx: &[Value<'c, 'a>],
    ) -> Result<Option<Value<'c, 'a>>, String> {
        let e = self.e;
        let space: Vec<u64> = self.space.iter().map(|&d| d as u64).collect();
        let (dims, _) = memref_info(self.tensors[0])?;
        let mut inside: Option<Value<'c, 'a>> = None;
        for (r, ex) in self.exprs[0].iter().enumerate() {
            let d = dims[r];
            if !ex.is_padded() || ex.range(&space).is_some_and(|(lo, hi)| lo >= 0 && hi < d) {
                continue;
            }
            let (zero, last) = (e.index(at, 0)?, e.index(at, d - 1)?);
            let i1 = e.ty("i1")?;
            let ge = e.op1(
                at,
                "arith.cmpi",
                &[idx[r], zero],
                i1,
                &[("predicate", e.attr("5 : i64")?)],
            );
            let le = e.op1(
                at,
                "arith.cmpi",
                &[idx[r], last],
                i1,
                &[("predicate", e.attr("3 : i64")?)],
            );
            let ok = e.op1(at, "arith.andi", &[ge, le], i1, &[]);
            inside = Some(match inside {
                Some(prev) => e.op1(at, "arith.andi", &[prev, ok], i1, &[]),
                None => ok,
            });
        }
        Ok(inside)
    }

    /// The value `op(rhs...)` at the given iterators.
    pub fn value(&self, at: At<'c, 'a>, ivs: &[Value<'c, 'a>]) -> Result<Value<'c, 'a>, String> {
        let args = (1..self.tensors.len())
            .map(|i| self.load(at, ivs, i))
            .collect::<Result<Vec<_>, _>>()?;
        numeric::body(self.e, at, &self.body, &args, self.eltt)
    }

    /// `old accum v`.
    pub fn combine(
        &self,
        at: At<'c, 'a>,
        old: Value<'c, 'a>,
        v: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, String> {
        // Reassociation lets LLVM vectorize the reductions.
        let f = self.e.attr("#arith.fastmath<reassoc,contract>")?;
        let op = self
            .accum
            .combiner()
            .ok_or("internal error: combining with 'assign'")?;
        let name = numeric::combiner(op)?;
        Ok(self
            .e
            .op1(at, name, &[old, v], self.eltt, &[("fastmath", f)]))
    }

    /// The iterator indexing the last (contiguous) axis of operand `i`.
    fn last_axis_of(&self, i: usize) -> Option<usize> {
        match self.exprs[i].last() {
            Some(Affine::Dim(p)) => Some(*p),
            _ => None,
        }
    }

    /// Whether the result's indices depend on iterator `p`.
    pub fn lhs_uses(&self, p: usize) -> bool {
        self.exprs[0].iter().any(|e| e.mentions(p))
    }

    /// The loop order of the scalar loops: the innermost loop runs along
    /// the contiguous (last) axis of as many operands as possible.
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
        order
    }

    /// The assignment with some iterators bound by the caller (a GPU
    /// thread's cell): `fixed[p]` is the value of iterator `p`, or `None`
    /// for an iterator looped over here, in `scf.for` loops in the scalar
    /// loops' order; the trailing loops the result does not depend on are
    /// reduced in a register. The caller guarantees that different
    /// bindings write different cells. With `fresh`, the result's cell
    /// starts at the neutral element instead of its stored value (the
    /// caller's kernel initializes the result: each cell is bound by
    /// exactly one binding and indexed by the bound iterators only).
    pub fn point(
        &self,
        at: At<'c, 'a>,
        fixed: &[Option<Value<'c, 'a>>],
        fresh: bool,
    ) -> Result<(), String> {
        let e = self.e;
        if fixed.len() != self.space.len() {
            return Err("internal error: a binding per iterator is needed".into());
        }
        let order: Vec<usize> = self
            .loop_order()
            .into_iter()
            .filter(|&p| fixed[p].is_none())
            .collect();
        let reduced_suffix = if self.accum == Accum::Assign {
            0
        } else {
            order
                .iter()
                .rev()
                .take_while(|&&p| !self.lhs_uses(p))
                .count()
        };
        let ranges: Vec<(i64, i64)> = order.iter().map(|&p| (0, self.space[p])).collect();
        let (outer, inner_ranges) = ranges.split_at(ranges.len() - reduced_suffix);
        let lhs = self.tensors[0];
        // Iterators in the original numbering: the bound ones, then loop
        // variables in loop order (loops not entered yet get `filler`,
        // which nothing reads).
        let merge = |ivs: &[Value<'c, 'a>], filler: Value<'c, 'a>| -> Vec<Value<'c, 'a>> {
            let mut out: Vec<Value<'c, 'a>> = fixed.iter().map(|f| f.unwrap_or(filler)).collect();
            for (j, v) in ivs.iter().enumerate() {
                out[order[j]] = *v;
            }
            out
        };
        e.nest(at, outer, &mut |inner, outer_ivs| {
            let filler = e.index(inner, 0)?;
            let ivs: &[Value<'c, 'a>] = &merge(outer_ivs, filler);
            let lhs_idx = self.indices(inner, ivs, 0)?;
            let mut write = |inner: At<'c, 'a>| -> Result<(), String> {
                let mut ops = vec![lhs];
                ops.extend(lhs_idx.iter().copied());
                let result = if reduced_suffix == 0 {
                    let v = self.value(inner, ivs)?;
                    if self.accum == Accum::Assign {
                        v
                    } else {
                        let old = if fresh {
                            self.neutral(inner)
                        } else {
                            e.op1(inner, "memref.load", &ops, self.eltt, &[])
                        };
                        self.combine(inner, old, v)?
                    }
                } else {
                    let old = if fresh {
                        self.neutral(inner)
                    } else {
                        e.op1(inner, "memref.load", &ops, self.eltt, &[])
                    };
                    let mut all_ivs = outer_ivs.to_vec();
                    e.reduce_nest(
                        inner,
                        inner_ranges,
                        &[old],
                        &mut all_ivs,
                        &mut |at2, ivs2, acc| {
                            let v = self.value(at2, &merge(ivs2, filler))?;
                            Ok(vec![self.combine(at2, acc[0], v)?])
                        },
                    )?[0]
                };
                let mut ops = vec![result, lhs];
                ops.extend(lhs_idx.iter().copied());
                e.op0(inner, "memref.store", &ops);
                Ok(())
            };
            match self.lhs_inside(inner, &lhs_idx)? {
                Some(ok) => e.if_then(inner, ok, &mut write),
                None => write(inner),
            }
        })
    }

    /// Scalar loops over the given ranges of the iteration space.
    pub fn scalar(
        &self,
        target: &dyn LoopTarget,
        at: At<'c, 'a>,
        ranges: &[(i64, i64)],
    ) -> Result<(), String> {
        let e = self.e;
        let space_len = self.space.len();
        // The innermost loop runs along the contiguous axis, so that LLVM
        // vectorizes it.
        let order = self.loop_order();
        let loop_ranges: Vec<(i64, i64)> = order.iter().map(|&p| ranges[p]).collect();
        // Iterators in the original numbering from loop variables in loop
        // order; loops not entered yet (reduced ones, for the result's
        // index) get `filler`, which nothing reads.
        let unpermute = |ivs: &[Value<'c, 'a>], filler: Value<'c, 'a>| -> Vec<Value<'c, 'a>> {
            let mut out = vec![filler; space_len];
            for (j, v) in ivs.iter().enumerate() {
                out[order[j]] = *v;
            }
            out
        };
        // The trailing loops the result does not depend on: reduced in a
        // register (scf.for iter_args), loaded and stored once per result
        // cell.
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
        // Distinct iterations of the outermost loop write distinct cells when
        // the result has an axis indexed by its plain iterator.
        let plain_in_lhs = |p: usize| self.exprs[0].contains(&Affine::Dim(p));
        let parallel = !outer.is_empty() && plain_in_lhs(order[0]) && target.parallel(&loop_ranges);
        e.nest_parallel(at, outer, parallel, &mut |inner, outer_ivs| {
            let filler = match outer_ivs.first() {
                Some(v) => *v,
                None => e.index(inner, 0)?,
            };
            let ivs: &[Value<'c, 'a>] = &unpermute(outer_ivs, filler);
            let lhs_idx = self.indices(inner, ivs, 0)?;
            let mut write = |inner: At<'c, 'a>| -> Result<(), String> {
                let mut ops = vec![lhs];
                ops.extend(lhs_idx.iter().copied());
                let result = if reduced_suffix == 0 {
                    let v = self.value(inner, ivs)?;
                    if self.accum == Accum::Assign {
                        v
                    } else {
                        let old = e.op1(inner, "memref.load", &ops, self.eltt, &[]);
                        self.combine(inner, old, v)?
                    }
                } else {
                    let old = e.op1(inner, "memref.load", &ops, self.eltt, &[]);
                    let mut all_ivs = outer_ivs.to_vec();
                    e.reduce_nest(
                        inner,
                        inner_ranges,
                        &[old],
                        &mut all_ivs,
                        &mut |at2, ivs2, acc| {
                            let v = self.value(at2, &unpermute(ivs2, filler))?;
                            Ok(vec![self.combine(at2, acc[0], v)?])
                        },
                    )?[0]
                };
                let mut ops = vec![result, lhs];
                ops.extend(lhs_idx.iter().copied());
                e.op0(inner, "memref.store", &ops);
                Ok(())
            };
            // A padded index of the result (the gradient of a padded read)
            // writes only inside the buffer: outside is the padding.
            match self.lhs_inside(inner, &lhs_idx)? {
                Some(ok) => e.if_then(inner, ok, &mut write),
                None => write(inner),
            }
        })
    }
}
