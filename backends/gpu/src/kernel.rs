//! Kernels as `gpu.launch` ops: the launch itself, index arithmetic, and
//! the one-thread-per-cell kernels (loops over independent cells, and
//! assignments with one thread per result cell).

use melior::ir::{
    block::BlockLike,
    operation::{OperationBuilder, OperationLike},
    Block, Identifier, Region, RegionLike, Type, Value,
};
use ocannl_assign::Affine;
use ocannl_gpu_plan::{launch, Launch};
use ocannl_mlir::{builder::CmpI, At, Builder};
use ocannl_passes::conversion::assign_to_loops::{
    assignment::{memref_info, Iter},
    target::NestBody,
    Assignment,
};

/// The ids a kernel's body reads.
pub struct Ids<'c, 'a> {
    /// Block ids along x, y, z.
    pub block: [Value<'c, 'a>; 3],
    /// Thread ids within the block along x, y, z.
    pub thread: [Value<'c, 'a>; 3],
    /// The workgroup (shared memory) buffers, in the order asked.
    pub workgroup: Vec<Value<'c, 'a>>,
}

/// A `gpu.launch` of `l` at `at`, with shared buffers of the `workgroup`
/// types; `body` fills the kernel.
pub(crate) fn launch<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    l: &Launch,
    workgroup: &[Type<'c>],
    body: &mut dyn FnMut(At<'c, 'a>, &Ids<'c, 'a>) -> Result<(), String>,
) -> Result<(), String> {
    let operands = l
        .grid
        .iter()
        .chain(&l.block)
        .map(|&v| e.index(at, v as i64))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let mut attrs = vec![(
        Identifier::new(e.ctx, "operandSegmentSizes"),
        e.i32_array_attr(&[0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]),
    )];
    if !workgroup.is_empty() {
        attrs.push((
            Identifier::new(e.ctx, "workgroup_attributions"),
            e.i64_attr(workgroup.len() as i64),
        ));
    }
    let op = OperationBuilder::new("gpu.launch", e.loc)
        .add_operands(&operands)
        .add_attributes(&attrs)
        .add_regions([Region::new()])
        .build()
        .map_err(|er| er.to_string())?;
    let op = e.place(at, op);
    let index = Type::index(e.ctx);
    let mut args: Vec<(Type<'c>, _)> = vec![(index, e.loc); 12];
    args.extend(workgroup.iter().map(|t| (*t, e.loc)));
    let region = op.region(0).map_err(|er| er.to_string())?;
    let block = region.append_block(Block::new(&args));
    let arg = |k: usize| -> Result<Value<'c, 'a>, String> {
        block
            .argument(k)
            .map(Value::from)
            .map_err(|er| er.to_string())
    };
    let ids = Ids {
        block: [arg(0)?, arg(1)?, arg(2)?],
        thread: [arg(3)?, arg(4)?, arg(5)?],
        workgroup: (0..workgroup.len())
            .map(|k| arg(12 + k))
            .collect::<Result<_, _>>()?,
    };
    body(At::end(block), &ids)?;
    block.append_operation(
        OperationBuilder::new("gpu.terminator", e.loc)
            .build()
            .map_err(|er| er.to_string())?,
    );
    Ok(())
}

/// Index arithmetic at one insertion point.
pub struct Idx<'e, 'c, 'a> {
    pub e: &'e Builder<'c>,
    pub at: At<'c, 'a>,
}

impl<'c, 'a> Idx<'_, 'c, 'a> {
    pub fn c(&self, v: i64) -> Result<Value<'c, 'a>, String> {
        self.e.index(self.at, v).map_err(|e| e.to_string())
    }
    fn bin(&self, name: &str, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.e
            .op1(self.at, name, &[x, y], Type::index(self.e.ctx), &[])
    }
    pub fn add(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.bin("arith.addi", x, y)
    }
    pub fn mul(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.bin("arith.muli", x, y)
    }
    pub fn div(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.bin("arith.divui", x, y)
    }
    pub fn rem(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.bin("arith.remui", x, y)
    }
    pub fn min(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Value<'c, 'a> {
        self.bin("arith.minui", x, y)
    }
    /// `x + k` for a constant `k`.
    pub(crate) fn add_c(&self, x: Value<'c, 'a>, k: i64) -> Result<Value<'c, 'a>, String> {
        Ok(if k == 0 { x } else { self.add(x, self.c(k)?) })
    }
    /// `x * k` for a constant `k`.
    pub(crate) fn mul_c(&self, x: Value<'c, 'a>, k: i64) -> Result<Value<'c, 'a>, String> {
        Ok(if k == 1 { x } else { self.mul(x, self.c(k)?) })
    }
    /// `x < k` (unsigned) for a constant `k`.
    pub(crate) fn lt_c(&self, x: Value<'c, 'a>, k: i64) -> Result<Value<'c, 'a>, String> {
        let k = self.c(k)?;
        Ok(self.e.cmpi(self.at, CmpI::Ult, x, k))
    }
    pub(crate) fn and(&self, x: Value<'c, 'a>, y: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        Ok(self.e.op1(
            self.at,
            "arith.andi",
            &[x, y],
            self.e.ty("i1").map_err(|e| e.to_string())?,
            &[],
        ))
    }

    /// The row-major coordinates of linear index `lin` in `sizes`
    /// (`lin` below their product).
    pub(crate) fn delinearize(
        &self,
        lin: Value<'c, 'a>,
        sizes: &[i64],
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let mut out = vec![lin; sizes.len()];
        let mut rest = lin;
        for d in (0..sizes.len()).rev() {
            if d == 0 {
                out[0] = rest;
            } else if sizes[d] == 1 {
                out[d] = self.c(0)?;
            } else {
                let s = self.c(sizes[d])?;
                out[d] = self.rem(rest, s);
                rest = self.div(rest, s);
            }
        }
        Ok(out)
    }
}

/// One thread per cell of `ranges` (independent iterations): a 1-D grid
/// over the cells in row-major order (so consecutive threads touch
/// consecutive cells of the last axis), threads beyond the last cell doing
/// nothing.
pub(crate) fn cells<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    ranges: &[(i64, i64)],
    body: &mut NestBody<'_, 'c, 'a>,
) -> Result<(), String> {
    let sizes: Vec<i64> = ranges.iter().map(|(lo, hi)| hi - lo).collect();
    if sizes.iter().any(|&s| s <= 0) {
        return Ok(());
    }
    let total: i64 = sizes.iter().product();
    let l = launch::per_cell(total as u64)
        .ok_or_else(|| format!("{total} cells are too many for one kernel launch"))?;
    let exact = launch::exact(&l, total as u64);
    launch(e, at, &l, &[], &mut |inner, ids| {
        let x = Idx { e, at: inner };
        let lin = x.add(x.mul_c(ids.block[0], l.block[0] as i64)?, ids.thread[0]);
        let mut cell = |at2: At<'c, 'a>| -> Result<(), String> {
            let x = Idx { e, at: at2 };
            let coords = x.delinearize(lin, &sizes)?;
            let ivs = coords
                .into_iter()
                .zip(ranges)
                .map(|(v, (lo, _))| x.add_c(v, *lo))
                .collect::<Result<Vec<_>, _>>()?;
            body(at2, &ivs)
        };
        if exact {
            cell(inner)
        } else {
            let inside = x.lt_c(lin, total)?;
            e.if_then(inner, inside, &mut cell)
                .map_err(|e| e.to_string())
        }
    })
}

/// The iterators a thread per result cell binds: those indexing an axis of
/// the result as they are, in the result's axis order (so consecutive
/// threads write consecutive cells). Distinct bindings write distinct
/// cells.
pub fn result_iterators(a: &Assignment) -> Vec<usize> {
    let mut par = vec![];
    for ex in &a.exprs[0] {
        if let Affine::Dim(p) = ex {
            if !par.contains(p) {
                par.push(*p);
            }
        }
    }
    par
}

/// Whether every cell of the result is indexed by exactly one binding of
/// [`result_iterators`], through those iterators only: the result's axes
/// are distinct plain iterators over the whole axis (or index 0 of an axis
/// of one cell). A kernel whose thread
/// owns its cells so can start them at the neutral element itself.
pub fn owns_result(a: &Assignment) -> bool {
    let Ok((dims, _)) = memref_info(a.tensors[0]) else {
        return false;
    };
    let mut seen = vec![];
    a.exprs[0].len() == dims.len()
        && a.exprs[0].iter().zip(&dims).all(|(ex, &d)| match ex {
            Affine::Dim(p) if !seen.contains(p) && a.space[*p] == d => {
                seen.push(*p);
                true
            }
            // The only cell of the axis.
            Affine::Const(0) => d == 1,
            _ => false,
        })
}

/// An assignment with one thread per result cell: the thread binds the
/// result's iterators and loops over the others in the scalar loops'
/// order, sequentially (reductions carried in a register, from the neutral
/// element when the kernel initializes the result).
pub(crate) fn per_result_cell<'c, 'a>(
    a: &Assignment<'_, 'c, 'a>,
    at: At<'c, 'a>,
) -> Result<(), String> {
    let par = result_iterators(a);
    let fresh = a.initialize_neutral && owns_result(a);
    let ranges: Vec<(i64, i64)> = par.iter().map(|&p| (0, a.space[p])).collect();
    cells(a.e, at, &ranges, &mut |inner, ivs| {
        let mut iters: Vec<Iter<'c, 'a>> = a.space.iter().map(|&d| Iter::Range(0, d)).collect();
        for (p, v) in par.iter().zip(ivs) {
            iters[*p] = Iter::Bound(*v);
        }
        a.loops(inner, &iters, false, fresh).map_err(String::from)
    })
}
