//! Building upstream ops at an insertion point.
//!
//! A [`Builder`] makes ops at one location; an [`At`] says where they go
//! (before a fixed op, or at the end of a block). Values, blocks and ops
//! made here carry the lifetime `'a` of the IR they were inserted into.
//! Loop builders make the loop op first and fill its body in place, so a
//! body's values are tied to the same IR as everything else.

use melior::{
    ir::{
        attribute::{
            BoolAttribute, DenseI32ArrayAttribute, DenseI64ArrayAttribute, FloatAttribute,
            IntegerAttribute,
        },
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        Attribute, Block, BlockRef, Identifier, Location, Operation, OperationRef, Region,
        RegionLike, Type, Value, ValueLike,
    },
    Context,
};
use ocannl_assign::CmpPred;

/// Where new ops go: before `before`, or appended to `block`.
#[derive(Clone, Copy)]
pub struct At<'c, 'a> {
    pub block: BlockRef<'c, 'a>,
    pub before: Option<OperationRef<'c, 'a>>,
}

impl<'c, 'a> At<'c, 'a> {
    /// Before `op` (which must be in a block).
    pub fn before(op: OperationRef<'c, 'a>) -> Result<Self, crate::Error> {
        Self::before_text(op).map_err(crate::Error::internal)
    }

    /// [`before`], the reason as text.
    fn before_text(op: OperationRef<'c, 'a>) -> Result<Self, String> {
        Ok(At {
            block: op.block().ok_or("internal error: an op without a block")?,
            before: Some(op),
        })
    }

    /// At the end of `block`.
    pub fn end(block: BlockRef<'c, 'a>) -> Self {
        At {
            block,
            before: None,
        }
    }
}

/// Loop bounds: lower bound, upper bound, step.
pub type Bounds<'c, 'a> = (Value<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>);

/// A result of building: values, or why not.
pub type Built<'c, 'a> = Result<Vec<Value<'c, 'a>>, String>;

/// Fills a loop body given its insertion point and block arguments, and
/// returns the terminator's operands.
pub type BodyFn<'f, 'c, 'a> = dyn FnMut(At<'c, 'a>, &[Value<'c, 'a>]) -> Built<'c, 'a> + 'f;

/// Fills a loop nest's body given the induction variables.
pub type NestFn<'f, 'c, 'a> = dyn FnMut(At<'c, 'a>, &[Value<'c, 'a>]) -> Result<(), String> + 'f;

/// Fills an `scf.for` body given the induction variable and the carried
/// values, and returns the next carried values.
pub type ForFn<'f, 'c, 'a> =
    dyn FnMut(At<'c, 'a>, Value<'c, 'a>, &[Value<'c, 'a>]) -> Built<'c, 'a> + 'f;

/// Fills a reduction nest's body given the induction variables and the
/// carried values, and returns the next carried values.
pub type ReduceFn<'f, 'c, 'a> =
    dyn FnMut(At<'c, 'a>, &[Value<'c, 'a>], &[Value<'c, 'a>]) -> Built<'c, 'a> + 'f;

/// `arith.cmpi`'s predicates, numbered as MLIR's `CmpIPredicate` (the
/// op's `predicate` attribute is the number as an `i64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpI {
    Eq = 0,
    Ne = 1,
    Slt = 2,
    Sle = 3,
    Sgt = 4,
    Sge = 5,
    Ult = 6,
    Ule = 7,
    Ugt = 8,
    Uge = 9,
}

/// Makes ops at one location.
pub struct Builder<'c> {
    pub ctx: &'c Context,
    pub loc: Location<'c>,
}

impl<'c> Builder<'c> {
    pub fn new(ctx: &'c Context, loc: Location<'c>) -> Self {
        Builder { ctx, loc }
    }

    /// Inserts a built op.
    pub fn place<'a>(&self, at: At<'c, 'a>, op: Operation<'c>) -> OperationRef<'c, 'a> {
        match at.before {
            Some(b) => at.block.insert_operation_before(b, op),
            None => at.block.append_operation(op),
        }
    }

    /// A type from its text.
    pub fn ty(&self, text: &str) -> Result<Type<'c>, crate::Error> {
        self.ty_text(text).map_err(crate::Error::parse)
    }

    /// [`ty`](Self::ty), the reason as text.
    fn ty_text(&self, text: &str) -> Result<Type<'c>, String> {
        Type::parse(self.ctx, text)
            .ok_or_else(|| format!("internal error: cannot parse type {text}"))
    }

    /// An attribute from its text.
    pub fn attr(&self, text: &str) -> Result<Attribute<'c>, crate::Error> {
        self.attr_text(text).map_err(crate::Error::parse)
    }

    /// [`attr`](Self::attr), the reason as text.
    fn attr_text(&self, text: &str) -> Result<Attribute<'c>, String> {
        Attribute::parse(self.ctx, text)
            .ok_or_else(|| format!("internal error: cannot parse attribute {text}"))
    }

    /// An `i64` integer attribute.
    pub fn i64_attr(&self, v: i64) -> Attribute<'c> {
        IntegerAttribute::new(IntegerType::new(self.ctx, 64).into(), v).into()
    }

    /// An `array<i32: ...>` attribute (`operandSegmentSizes`).
    pub fn i32_array_attr(&self, values: &[i32]) -> Attribute<'c> {
        DenseI32ArrayAttribute::new(self.ctx, values).into()
    }

    /// An `array<i64: ...>` attribute.
    pub fn i64_array_attr(&self, values: &[i64]) -> Attribute<'c> {
        DenseI64ArrayAttribute::new(self.ctx, values).into()
    }

    /// A `true` or `false` attribute.
    pub fn bool_attr(&self, v: bool) -> Attribute<'c> {
        BoolAttribute::new(self.ctx, v).into()
    }

    fn attrs(&self, attrs: &[(&str, Attribute<'c>)]) -> Vec<(Identifier<'c>, Attribute<'c>)> {
        attrs
            .iter()
            .map(|(n, a)| (Identifier::new(self.ctx, n), *a))
            .collect()
    }

    /// An op with operands, attributes and results, inserted at `at`.
    pub fn op<'a>(
        &self,
        at: At<'c, 'a>,
        name: &str,
        operands: &[Value<'c, 'a>],
        results: &[Type<'c>],
        attrs: &[(&str, Attribute<'c>)],
    ) -> OperationRef<'c, 'a> {
        let op = OperationBuilder::new(name, self.loc)
            .add_operands(operands)
            .add_attributes(&self.attrs(attrs))
            .add_results(results)
            .build()
            .expect("an op with explicit result types always builds");
        self.place(at, op)
    }

    /// An op with one result.
    pub fn op1<'a>(
        &self,
        at: At<'c, 'a>,
        name: &str,
        operands: &[Value<'c, 'a>],
        result: Type<'c>,
        attrs: &[(&str, Attribute<'c>)],
    ) -> Value<'c, 'a> {
        self.op(at, name, operands, &[result], attrs)
            .result(0)
            .expect("an op built with one result")
            .into()
    }

    /// An op without results or attributes.
    pub fn op0<'a>(&self, at: At<'c, 'a>, name: &str, operands: &[Value<'c, 'a>]) {
        self.op(at, name, operands, &[], &[]);
    }

    /// `arith.constant` of an integer of type `ty` (an integer type or
    /// `index`).
    pub fn int<'a>(&self, at: At<'c, 'a>, v: i64, ty: Type<'c>) -> Value<'c, 'a> {
        let a = IntegerAttribute::new(ty, v);
        self.op1(at, "arith.constant", &[], ty, &[("value", a.into())])
    }

    /// `arith.constant` of an `i64`.
    pub fn i64<'a>(&self, at: At<'c, 'a>, v: i64) -> Value<'c, 'a> {
        self.int(at, v, IntegerType::new(self.ctx, 64).into())
    }

    /// `arith.constant` of a float of type `ty` (infinities included).
    pub fn float<'a>(&self, at: At<'c, 'a>, v: f64, ty: Type<'c>) -> Value<'c, 'a> {
        let a = FloatAttribute::new(self.ctx, ty, v);
        self.op1(at, "arith.constant", &[], ty, &[("value", a.into())])
    }

    /// `arith.constant` of an index.
    pub fn index<'a>(&self, at: At<'c, 'a>, v: i64) -> Result<Value<'c, 'a>, crate::Error> {
        self.index_text(at, v).map_err(crate::Error::internal)
    }

    /// [`index`](Self::index), the reason as text.
    fn index_text<'a>(&self, at: At<'c, 'a>, v: i64) -> Result<Value<'c, 'a>, String> {
        Ok(self.int(at, v, Type::index(self.ctx)))
    }

    /// `arith.cmpi` of two integers or indices: an `i1`.
    pub fn cmpi<'a>(
        &self,
        at: At<'c, 'a>,
        pred: CmpI,
        a: Value<'c, 'a>,
        b: Value<'c, 'a>,
    ) -> Value<'c, 'a> {
        let i1 = IntegerType::new(self.ctx, 1).into();
        let p = self.i64_attr(pred as i64);
        self.op1(at, "arith.cmpi", &[a, b], i1, &[("predicate", p)])
    }

    /// `arith.cmpf` of two floats: an `i1`.
    pub fn cmpf<'a>(
        &self,
        at: At<'c, 'a>,
        pred: CmpPred,
        a: Value<'c, 'a>,
        b: Value<'c, 'a>,
    ) -> Value<'c, 'a> {
        let i1 = IntegerType::new(self.ctx, 1).into();
        let p = self.i64_attr(i64::from(pred.0));
        self.op1(at, "arith.cmpf", &[a, b], i1, &[("predicate", p)])
    }

    /// A loop op `name` with one single-block region: the block takes an
    /// index induction variable and values of `carried` types; `body` fills
    /// it and returns the operands of its `terminator`. Returns the op's
    /// results (`carried` types).
    #[allow(clippy::too_many_arguments)]
    pub fn loop_op<'a>(
        &self,
        at: At<'c, 'a>,
        name: &str,
        operands: &[Value<'c, 'a>],
        attrs: &[(&str, Attribute<'c>)],
        carried: &[Type<'c>],
        terminator: &str,
        body: &mut BodyFn<'_, 'c, 'a>,
    ) -> Built<'c, 'a> {
        let mut args = vec![Type::index(self.ctx)];
        args.extend_from_slice(carried);
        let op = self
            .region_op_text(at, name, operands, attrs, carried, &args, terminator, body)
            .map_err(|e| e.to_string())?;
        Ok(op.results().map(Value::from).collect())
    }

    /// An op `name` with one single-block region whose block takes
    /// arguments of types `block_args`; `body` fills the block and returns
    /// the operands of its `terminator`.
    #[allow(clippy::too_many_arguments)]
    pub fn region_op<'a>(
        &self,
        at: At<'c, 'a>,
        name: &str,
        operands: &[Value<'c, 'a>],
        attrs: &[(&str, Attribute<'c>)],
        results: &[Type<'c>],
        block_args: &[Type<'c>],
        terminator: &str,
        body: &mut BodyFn<'_, 'c, 'a>,
    ) -> Result<OperationRef<'c, 'a>, crate::Error> {
        self.region_op_text(
            at, name, operands, attrs, results, block_args, terminator, body,
        )
        .map_err(crate::Error::internal)
    }

    /// [`region_op`](Self::region_op), the reason as text.
    #[allow(clippy::too_many_arguments)]
    fn region_op_text<'a>(
        &self,
        at: At<'c, 'a>,
        name: &str,
        operands: &[Value<'c, 'a>],
        attrs: &[(&str, Attribute<'c>)],
        results: &[Type<'c>],
        block_args: &[Type<'c>],
        terminator: &str,
        body: &mut BodyFn<'_, 'c, 'a>,
    ) -> Result<OperationRef<'c, 'a>, String> {
        let op = OperationBuilder::new(name, self.loc)
            .add_operands(operands)
            .add_attributes(&self.attrs(attrs))
            .add_regions([Region::new()])
            .add_results(results)
            .build()
            .map_err(|e| e.to_string())?;
        let op = self.place(at, op);
        let args: Vec<(Type<'c>, Location<'c>)> =
            block_args.iter().map(|t| (*t, self.loc)).collect();
        let region = op.region(0).map_err(|e| e.to_string())?;
        let block = region.append_block(Block::new(&args));
        let block_args: Vec<Value<'c, 'a>> = (0..args.len())
            .map(|k| {
                block
                    .argument(k)
                    .map(Value::from)
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<_, _>>()?;
        let next = body(At::end(block), &block_args)?;
        block.append_operation(
            OperationBuilder::new(terminator, self.loc)
                .add_operands(&next)
                .build()
                .map_err(|e| e.to_string())?,
        );
        Ok(op)
    }

    /// One `scf.for` carrying `inits` (`iter_args`): `body` gets the
    /// insertion point inside, the induction variable and the carried
    /// values, and returns the next ones. Returns the final values.
    pub fn for_loop<'a>(
        &self,
        at: At<'c, 'a>,
        (lb, ub, step): Bounds<'c, 'a>,
        inits: &[Value<'c, 'a>],
        body: &mut ForFn<'_, 'c, 'a>,
    ) -> Built<'c, 'a> {
        let types: Vec<Type> = inits.iter().map(|v| v.r#type()).collect();
        let mut operands = vec![lb, ub, step];
        operands.extend_from_slice(inits);
        self.loop_op(
            at,
            "scf.for",
            &operands,
            &[],
            &types,
            "scf.yield",
            &mut |inner, args| body(inner, args[0], &args[1..]),
        )
    }

    /// One `scf.parallel` (iterations that may run concurrently).
    pub fn parallel_loop<'a>(
        &self,
        at: At<'c, 'a>,
        (lb, ub, step): Bounds<'c, 'a>,
        body: &mut dyn FnMut(At<'c, 'a>, Value<'c, 'a>) -> Result<(), String>,
    ) -> Result<(), crate::Error> {
        self.parallel_loop_text(at, (lb, ub, step), body)
            .map_err(crate::Error::internal)
    }

    /// [`parallel_loop`](Self::parallel_loop), the reason as text.
    fn parallel_loop_text<'a>(
        &self,
        at: At<'c, 'a>,
        (lb, ub, step): Bounds<'c, 'a>,
        body: &mut dyn FnMut(At<'c, 'a>, Value<'c, 'a>) -> Result<(), String>,
    ) -> Result<(), String> {
        let segments = [("operandSegmentSizes", self.i32_array_attr(&[1, 1, 1, 0]))];
        self.loop_op(
            at,
            "scf.parallel",
            &[lb, ub, step],
            &segments,
            &[],
            "scf.reduce",
            &mut |inner, args| body(inner, args[0]).map(|()| vec![]),
        )
        .map(|_| ())
    }

    /// A loop that is parallel when `parallel` holds.
    pub fn maybe_parallel<'a>(
        &self,
        at: At<'c, 'a>,
        parallel: bool,
        b: Bounds<'c, 'a>,
        body: &mut dyn FnMut(At<'c, 'a>, Value<'c, 'a>) -> Result<(), String>,
    ) -> Result<(), crate::Error> {
        self.maybe_parallel_text(at, parallel, b, body)
            .map_err(crate::Error::internal)
    }

    /// [`maybe_parallel`](Self::maybe_parallel), the reason as text.
    fn maybe_parallel_text<'a>(
        &self,
        at: At<'c, 'a>,
        parallel: bool,
        b: Bounds<'c, 'a>,
        body: &mut dyn FnMut(At<'c, 'a>, Value<'c, 'a>) -> Result<(), String>,
    ) -> Result<(), String> {
        if parallel {
            self.parallel_loop_text(at, b, body)
                .map_err(|e| e.to_string())
        } else {
            self.for_loop(at, b, &[], &mut |inner, iv, _| {
                body(inner, iv).map(|()| vec![])
            })
            .map(|_| ())
        }
    }

    /// Constant loop bounds `lo..hi` by `step`.
    pub fn bounds<'a>(
        &self,
        at: At<'c, 'a>,
        lo: i64,
        hi: i64,
        step: i64,
    ) -> Result<Bounds<'c, 'a>, crate::Error> {
        self.bounds_text(at, lo, hi, step)
            .map_err(crate::Error::internal)
    }

    /// [`bounds`](Self::bounds), the reason as text.
    fn bounds_text<'a>(
        &self,
        at: At<'c, 'a>,
        lo: i64,
        hi: i64,
        step: i64,
    ) -> Result<Bounds<'c, 'a>, String> {
        Ok((
            self.index_text(at, lo).map_err(|e| e.to_string())?,
            self.index_text(at, hi).map_err(|e| e.to_string())?,
            self.index_text(at, step).map_err(|e| e.to_string())?,
        ))
    }

    /// `scf.for` nests over the half-open `ranges`; `body` gets the
    /// insertion point inside and the induction variables.
    pub fn nest<'a>(
        &self,
        at: At<'c, 'a>,
        ranges: &[(i64, i64)],
        body: &mut NestFn<'_, 'c, 'a>,
    ) -> Result<(), crate::Error> {
        self.nest_text(at, ranges, body)
            .map_err(crate::Error::internal)
    }

    /// [`nest`](Self::nest), the reason as text.
    fn nest_text<'a>(
        &self,
        at: At<'c, 'a>,
        ranges: &[(i64, i64)],
        body: &mut NestFn<'_, 'c, 'a>,
    ) -> Result<(), String> {
        self.reduce_nest(at, ranges, &[], &mut vec![], &mut |inner, ivs, _| {
            body(inner, ivs).map(|()| vec![])
        })
        .map(|_| ())
    }

    /// `scf.for` nests over `ranges` carrying values (`iter_args`): `body`
    /// gets the induction variables (after those already in `ivs`) and the
    /// current values and returns the next; the final values are returned.
    pub fn reduce_nest<'a>(
        &self,
        at: At<'c, 'a>,
        ranges: &[(i64, i64)],
        carried: &[Value<'c, 'a>],
        ivs: &mut Vec<Value<'c, 'a>>,
        body: &mut ReduceFn<'_, 'c, 'a>,
    ) -> Built<'c, 'a> {
        let Some((&(lo, hi), rest)) = ranges.split_first() else {
            return body(at, ivs, carried);
        };
        let b = self.bounds_text(at, lo, hi, 1).map_err(|e| e.to_string())?;
        self.for_loop(at, b, carried, &mut |inner, iv, carried| {
            ivs.push(iv);
            let next = self.reduce_nest(inner, rest, carried, ivs, body);
            ivs.pop();
            next
        })
    }

    /// Like [`Builder::nest`], with the outermost loop parallel when
    /// `parallel` holds (its iterations must touch disjoint cells).
    pub fn nest_parallel<'a>(
        &self,
        at: At<'c, 'a>,
        ranges: &[(i64, i64)],
        parallel: bool,
        body: &mut NestFn<'_, 'c, 'a>,
    ) -> Result<(), crate::Error> {
        self.nest_parallel_text(at, ranges, parallel, body)
            .map_err(crate::Error::internal)
    }

    /// [`nest_parallel`](Self::nest_parallel), the reason as text.
    fn nest_parallel_text<'a>(
        &self,
        at: At<'c, 'a>,
        ranges: &[(i64, i64)],
        parallel: bool,
        body: &mut NestFn<'_, 'c, 'a>,
    ) -> Result<(), String> {
        let Some((&(lo, hi), rest)) = ranges.split_first().filter(|_| parallel) else {
            return self.nest_text(at, ranges, body);
        };
        let b = self.bounds_text(at, lo, hi, 1)?;
        self.parallel_loop_text(at, b, &mut |inner, iv| {
            self.nest_text(inner, rest, &mut |at2, ivs| {
                let mut all = vec![iv];
                all.extend_from_slice(ivs);
                body(at2, &all)
            })
        })
    }

    /// `scf.if` without results or else branch: `body` fills the then
    /// branch (its insertion point is before the branch's `scf.yield`).
    pub fn if_then<'a>(
        &self,
        at: At<'c, 'a>,
        cond: Value<'c, 'a>,
        body: &mut dyn FnMut(At<'c, 'a>) -> Result<(), String>,
    ) -> Result<(), crate::Error> {
        self.if_then_text(at, cond, body)
            .map_err(crate::Error::internal)
    }

    /// [`if_then`](Self::if_then), the reason as text.
    fn if_then_text<'a>(
        &self,
        at: At<'c, 'a>,
        cond: Value<'c, 'a>,
        body: &mut dyn FnMut(At<'c, 'a>) -> Result<(), String>,
    ) -> Result<(), String> {
        let op = OperationBuilder::new("scf.if", self.loc)
            .add_operands(&[cond])
            .add_regions([Region::new(), Region::new()])
            .build()
            .map_err(|e| e.to_string())?;
        let op = self.place(at, op);
        let region = op.region(0).map_err(|e| e.to_string())?;
        let block = region.append_block(Block::new(&[]));
        let yield_op = block.append_operation(
            OperationBuilder::new("scf.yield", self.loc)
                .build()
                .map_err(|e| e.to_string())?,
        );
        body(At::before(yield_op).map_err(|e| e.to_string())?)
    }

    /// A `memref.alloc` of a static shape, aligned to `alignment` bytes if
    /// given.
    pub fn alloc<'a>(
        &self,
        at: At<'c, 'a>,
        ty: Type<'c>,
        alignment: Option<i64>,
    ) -> Result<Value<'c, 'a>, crate::Error> {
        self.alloc_text(at, ty, alignment)
            .map_err(crate::Error::internal)
    }

    /// [`alloc`](Self::alloc), the reason as text.
    fn alloc_text<'a>(
        &self,
        at: At<'c, 'a>,
        ty: Type<'c>,
        alignment: Option<i64>,
    ) -> Result<Value<'c, 'a>, String> {
        let mut attrs = vec![("operandSegmentSizes", self.i32_array_attr(&[0, 0]))];
        if let Some(a) = alignment {
            attrs.push(("alignment", self.i64_attr(a)));
        }
        Ok(self.op1(at, "memref.alloc", &[], ty, &attrs))
    }
}
