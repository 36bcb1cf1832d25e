//! Run-time checks of the compiled code, and how a caller reads their
//! failures.
//!
//! Some failures can only be seen when the code runs: an allocation that
//! fails, an index argument (a `batch_slice` index) outside its axis. The
//! lowering checks each before the work that depends on it. The first
//! failure is recorded in the module's status global [`STATUS`]
//! (`memref<4xi64>`: what failed, the check's number, the value, the
//! bound), and every assignment after it is skipped: each runs under
//! `scf.if` on the status being clear. Nothing reads a buffer that was not
//! allocated or an index outside its axis. A check is a call of the
//! module's private [`RECORD`] (whether it failed, and the words to
//! record), so that a routine's own code has no branch: upstream
//! `convert-scf-to-cf` splits a block at each `scf.if`, in time that grows
//! with the square of a long routine.
//!
//! The module attribute [`CHECKS_ATTR`] holds one message per check, by
//! number: the location of the op and what is checked. A caller clears the
//! status before a call, reads it after, and reports
//! [`Failure::message`]; the results of a failed call are meaningless.
//! (The CPU runtime does so; a C caller of an ahead-of-time build reads the
//! global `__ocannl_status` the same way.)

use melior::ir::{
    attribute::{
        ArrayAttribute, DenseElementsAttribute, FlatSymbolRefAttribute, IntegerAttribute,
        StringAttribute, TypeAttribute,
    },
    block::{BlockArgument, BlockLike},
    operation::{OperationBuilder, OperationLike},
    r#type::{FunctionType, IntegerType, RankedTensorType},
    Attribute, Block, Identifier, Location, OperationRef, Region, RegionLike, Type, Value,
    ValueLike,
};
use ocannl_mlir::{attr, builder::CmpI, ir, At, Builder};

use super::assignment::memref_info;
use crate::util::{bool_from_call, bool_to_call, CALL_BOOL};

/// The status global's symbol.
pub const STATUS: &str = "__ocannl_status";
/// The status words: [`Code`], the check's number, the value, the bound.
pub const STATUS_WORDS: usize = 4;
/// The module's private function recording a failure: its arguments are
/// whether the check failed (`i8`, 0 or 1) and the four status words (`i64`); it
/// writes them when the check failed and no check failed before.
pub const RECORD: &str = "__ocannl_record_failure";
/// The module's private function checking an allocation: its arguments
/// are the buffer's address (`index`), the check's number and the bytes
/// asked for (`i64`); it records an [`Code::Alloc`] failure when the
/// address is null. One call per allocation keeps a routine with
/// thousands of buffers short.
pub use crate::util::CHECK_ALLOCATION;
/// The module attribute listing the checks' messages.
pub const CHECKS_ATTR: &str = "ocannl.runtime_checks";

/// What failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// A buffer could not be allocated.
    Alloc = 1,
    /// An index was outside its axis.
    Index = 2,
}

/// A failure read from the status words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub code: i64,
    pub check: i64,
    pub value: i64,
    pub bound: i64,
}

impl Failure {
    /// The failure the status words record, if any.
    pub fn from_status(words: &[i64]) -> Option<Failure> {
        match words {
            [0, ..] => None,
            [code, check, value, bound, ..] => Some(Failure {
                code: *code,
                check: *check,
                value: *value,
                bound: *bound,
            }),
            _ => None,
        }
    }

    /// The message of the failure, from the module's checks.
    pub fn message(&self, checks: &[String]) -> String {
        let what = usize::try_from(self.check)
            .ok()
            .and_then(|k| checks.get(k))
            .map_or("a run-time check", String::as_str);
        match self.code {
            c if c == Code::Alloc as i64 => format!(
                "{what}: the allocation of {} bytes failed (out of memory)",
                self.value
            ),
            c if c == Code::Index as i64 => format!(
                "{what} is {}, outside the axis of {} cell(s) (valid indices: 0 to {})",
                self.value,
                self.bound,
                self.bound - 1
            ),
            c => format!("{what} failed (code {c})"),
        }
    }
}

/// The checks' messages recorded in a module.
pub fn descriptions(module: OperationRef) -> Vec<String> {
    module
        .attribute(CHECKS_ATTR)
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok())
        .map(|a| {
            (0..a.len())
                .filter_map(|i| a.element(i).ok().and_then(attr::string_value))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a module has the status global.
pub fn has_status(module: OperationRef) -> bool {
    find_status(module).is_some()
}

fn find_status<'c, 'a>(module: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    find_symbol(module, "memref.global", STATUS)
}

/// The op `kind` named `symbol` at the top of `module`.
fn find_symbol<'c, 'a>(
    module: OperationRef<'c, 'a>,
    kind: &str,
    symbol: &str,
) -> Option<OperationRef<'c, 'a>> {
    let body = module.region(0).ok()?.first_block()?;
    let mut op = body.first_operation();
    while let Some(o) = op {
        if ir::name(&o) == kind
            && o.attribute("sym_name")
                .ok()
                .and_then(attr::string_value)
                .is_some_and(|n| n == symbol)
        {
            return Some(o);
        }
        op = o.next_in_block();
    }
    None
}

/// The status words all 0 (`dense<0> : tensor<4xi64>`).
fn clear_status<'c>(e: &Builder<'c>) -> Result<Attribute<'c>, String> {
    let i64t: Type = IntegerType::new(e.ctx, 64).into();
    let words = RankedTensorType::new(&[STATUS_WORDS as u64], i64t, None);
    let zero = IntegerAttribute::new(i64t, 0).into();
    DenseElementsAttribute::new(words.into(), &[zero])
        .map(Into::into)
        .map_err(|er| er.to_string())
}

/// Argument `i` of `block`.
fn argument<'c, 'a>(
    block: melior::ir::BlockRef<'c, 'a>,
    i: usize,
) -> Result<Value<'c, 'a>, String> {
    block
        .argument(i)
        .map(Into::into)
        .map_err(|er| er.to_string())
}

/// A call of the module's function `callee`, without results.
fn call<'c, 'a>(e: &Builder<'c>, at: At<'c, 'a>, callee: &str, args: &[Value<'c, 'a>]) {
    e.place(
        at,
        melior::dialect::func::call(
            e.ctx,
            FlatSymbolRefAttribute::new(e.ctx, callee),
            args,
            &[],
            e.loc,
        ),
    );
}

/// `loc("f.mlir":3:5)` as `f.mlir:3:5`.
pub fn place(l: Location) -> String {
    let l = l.to_string();
    l.strip_prefix("loc(")
        .and_then(|l| l.strip_suffix(')'))
        .unwrap_or(&l)
        .replace('"', "")
}

/// The checks of a module being lowered.
pub struct Checks<'c, 'a> {
    module: OperationRef<'c, 'a>,
    messages: Vec<String>,
    made_global: bool,
    made_record: bool,
    made_check_allocation: bool,
}

impl<'c, 'a> Checks<'c, 'a> {
    pub fn new(module: OperationRef<'c, 'a>) -> Self {
        Checks {
            messages: descriptions(module),
            made_global: find_status(module).is_some(),
            made_record: find_symbol(module, "func.func", RECORD).is_some(),
            made_check_allocation: find_symbol(module, "func.func", CHECK_ALLOCATION).is_some(),
            module,
        }
    }

    /// Records the messages in the module.
    pub fn finish(self, ctx: &'c melior::Context) {
        if self.messages.is_empty() {
            return;
        }
        let items: Vec<Attribute> = self
            .messages
            .iter()
            .map(|m| StringAttribute::new(ctx, m).into())
            .collect();
        ir::set_attribute(
            self.module,
            CHECKS_ATTR,
            ArrayAttribute::new(ctx, &items).into(),
        );
    }

    /// The module's body.
    fn body(&self) -> Result<melior::ir::BlockRef<'c, 'a>, String> {
        self.module
            .region(0)
            .map_err(|er| er.to_string())?
            .first_block()
            .ok_or_else(|| "empty module".to_string())
    }

    fn status_type(e: &Builder<'c>) -> Result<Type<'c>, String> {
        e.ty(&format!("memref<{STATUS_WORDS}xi64>"))
            .map_err(|e| e.to_string())
    }

    /// The status global as a value at `at` (the global is made once).
    fn status(&mut self, e: &Builder<'c>, at: At<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let ty = Self::status_type(e)?;
        if !self.made_global {
            let ctx = e.ctx;
            let global = OperationBuilder::new("memref.global", e.loc)
                .add_attributes(&[
                    (
                        Identifier::new(ctx, "sym_name"),
                        StringAttribute::new(ctx, STATUS).into(),
                    ),
                    (Identifier::new(ctx, "type"), TypeAttribute::new(ty).into()),
                    (Identifier::new(ctx, "initial_value"), clear_status(e)?),
                ])
                .build()
                .map_err(|er| er.to_string())?;
            let body = self.body()?;
            body.insert_operation(0, global);
            self.made_global = true;
        }
        Ok(e.op1(
            at,
            "memref.get_global",
            &[],
            ty,
            &[(
                "name",
                e.attr(&format!("@{STATUS}")).map_err(|e| e.to_string())?,
            )],
        ))
    }

    /// Whether no check has failed so far (an `i1`).
    fn clear(&mut self, e: &Builder<'c>, at: At<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let g = self.status(e, at)?;
        let zero = e.index(at, 0).map_err(|e| e.to_string())?;
        let code = e.op1(
            at,
            "memref.load",
            &[g, zero],
            e.ty("i64").map_err(|e| e.to_string())?,
            &[],
        );
        let none = e.i64(at, 0);
        Ok(e.cmpi(at, CmpI::Eq, code, none))
    }

    /// Runs `body` only while no check has failed.
    pub fn guard(
        &mut self,
        e: &Builder<'c>,
        at: At<'c, 'a>,
        body: &mut dyn FnMut(At<'c, 'a>) -> Result<(), String>,
    ) -> Result<(), String> {
        let ok = self.clear(e, at)?;
        e.if_then(at, ok, body).map_err(|e| e.to_string())
    }

    /// Records a failure of check `message` when `failed` holds and no
    /// check failed before.
    #[allow(clippy::too_many_arguments)]
    fn fail_if(
        &mut self,
        e: &Builder<'c>,
        at: At<'c, 'a>,
        failed: Value<'c, 'a>,
        code: Code,
        message: String,
        value: Value<'c, 'a>,
        bound: i64,
    ) -> Result<(), String> {
        let id = self.messages.len();
        self.messages.push(message);
        let i64t = e.ty("i64").map_err(|e| e.to_string())?;
        let value = if value.r#type() == i64t {
            value
        } else {
            e.op1(at, "arith.index_cast", &[value], i64t, &[])
        };
        let words = [
            e.i64(at, code as i64),
            e.i64(at, id as i64),
            value,
            e.i64(at, bound),
        ];
        // A call rather than an `scf.if` here, so that a routine with
        // thousands of checks stays one block of straight-line code, short
        // and cheap to lower and to compile.
        self.record_call(e, at, failed, &words)
    }

    /// A call of [`RECORD`] (made once) with `failed` (an `i1`) and the
    /// status words.
    fn record_call(
        &mut self,
        e: &Builder<'c>,
        at: At<'c, 'a>,
        failed: Value<'c, 'a>,
        words: &[Value<'c, 'a>],
    ) -> Result<(), String> {
        self.record_fn(e)?;
        let failed = bool_to_call(e, at, failed)?;
        let mut operands = vec![failed];
        operands.extend_from_slice(words);
        call(e, at, RECORD, &operands);
        Ok(())
    }

    /// A private function of the module (internal in LLVM, so that a
    /// backend compiling each public function apart keeps it with the
    /// routines calling it) of `inputs`, without results; returns its
    /// entry block.
    fn private_fn(
        &mut self,
        e: &Builder<'c>,
        name: &str,
        inputs: &[Type<'c>],
    ) -> Result<melior::ir::BlockRef<'c, 'a>, String> {
        let ctx = e.ctx;
        let region = Region::new();
        let args: Vec<_> = inputs.iter().map(|&t| (t, e.loc)).collect();
        region.append_block(Block::new(&args));
        let s = |v: &str| -> Attribute<'c> { StringAttribute::new(ctx, v).into() };
        let func = melior::dialect::func::func(
            ctx,
            StringAttribute::new(ctx, name),
            TypeAttribute::new(FunctionType::new(ctx, inputs, &[]).into()),
            region,
            &[
                (Identifier::new(ctx, "sym_visibility"), s("private")),
                (
                    Identifier::new(ctx, "llvm.linkage"),
                    e.attr("#llvm.linkage<internal>")
                        .map_err(|e| e.to_string())?,
                ),
            ],
            e.loc,
        );
        let body = self.body()?;
        let func = body.append_operation(func);
        func.region(0)
            .ok()
            .and_then(|r| r.first_block())
            .ok_or_else(|| "internal error: a function without a body".to_string())
    }

    /// Makes [`CHECK_ALLOCATION`] (once).
    fn check_allocation_fn(&mut self, e: &Builder<'c>) -> Result<(), String> {
        if self.made_check_allocation {
            return Ok(());
        }
        let (idx, i64t) = (Type::index(e.ctx), e.ty("i64").map_err(|e| e.to_string())?);
        let block = self.private_fn(e, CHECK_ALLOCATION, &[idx, i64t, i64t])?;
        self.made_check_allocation = true;
        let at = At::end(block);
        let arg = |i: usize| argument(block, i);
        let zero = e.index(at, 0).map_err(|e| e.to_string())?;
        let null = e.cmpi(at, CmpI::Eq, arg(0)?, zero);
        let words = [
            e.i64(at, Code::Alloc as i64),
            arg(1)?,
            arg(2)?,
            e.i64(at, 0),
        ];
        self.record_call(e, at, null, &words)?;
        e.place(at, melior::dialect::func::r#return(&[], e.loc));
        Ok(())
    }

    /// Makes [`RECORD`] (once): `(failed, code, check, value, bound)`, the
    /// words stored when `failed` holds and the status is clear.
    fn record_fn(&mut self, e: &Builder<'c>) -> Result<(), String> {
        if self.made_record {
            return Ok(());
        }
        let (i1, i64t) = (
            e.ty("i1").map_err(|e| e.to_string())?,
            e.ty("i64").map_err(|e| e.to_string())?,
        );
        let inputs = [
            e.ty(CALL_BOOL).map_err(|e| e.to_string())?,
            i64t,
            i64t,
            i64t,
            i64t,
        ];
        let block = self.private_fn(e, RECORD, &inputs)?;
        self.made_record = true;
        let at = At::end(block);
        let arg = |i: usize| argument(block, i);
        let failed = bool_from_call(e, at, arg(0)?)?;
        let first = self.clear(e, at)?;
        let record = e.op1(at, "arith.andi", &[failed, first], i1, &[]);
        e.if_then(at, record, &mut |inner| {
            let g = self.status(e, inner)?;
            for k in 0..STATUS_WORDS {
                let index = e.index(inner, k as i64).map_err(|e| e.to_string())?;
                e.op0(inner, "memref.store", &[arg(k + 1)?, g, index]);
            }
            Ok(())
        })
        .map_err(|e| e.to_string())?;
        e.place(at, melior::dialect::func::r#return(&[], e.loc));
        Ok(())
    }

    /// Checks that the allocation of node `op`'s buffer `buf` succeeded.
    pub fn allocation(
        &mut self,
        e: &Builder<'c>,
        at: At<'c, 'a>,
        op: &OperationRef<'c, 'a>,
        buf: Value<'c, 'a>,
    ) -> Result<(), String> {
        let (dims, elt) = memref_info(buf)?;
        let bytes =
            ocannl_assign::element_bytes(&elt).unwrap_or(8) as i64 * dims.iter().product::<i64>();
        let name = ocannl_shape_dialect::string_attr(op, "name")
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        let idx = Type::index(e.ctx);
        let ptr = e.op1(
            at,
            "memref.extract_aligned_pointer_as_index",
            &[buf],
            idx,
            &[],
        );
        let message = format!(
            "{}: error: cannot allocate the buffer of node '{name}'",
            place(op.location())
        );
        let id = self.messages.len();
        self.messages.push(message);
        self.check_allocation_fn(e)?;
        let args = [ptr, e.i64(at, id as i64), e.i64(at, bytes)];
        call(e, at, CHECK_ALLOCATION, &args);
        Ok(())
    }

    /// Checks that the indices of an assignment that depend on index
    /// operands (a slice's) stay inside their axes: each such index at the
    /// first and the last point of the iteration space (exact for a plain
    /// index operand and for indices that grow with the iterators).
    pub fn indices(
        &mut self,
        e: &Builder<'c>,
        at: At<'c, 'a>,
        op: &OperationRef<'c, 'a>,
    ) -> Result<(), String> {
        let attrs = ocannl_assign_dialect::accum_attrs(op).map_err(|e| e.to_string())?;
        let operands: Vec<Value<'c, 'a>> = op.operands().collect();
        let n = attrs.maps.len();
        if n == 0 || operands.len() <= n {
            return Ok(()); // No index operands.
        }
        let symbols = &operands[n..];
        let exprs = attrs
            .maps
            .iter()
            .map(|m| ocannl_mlir::affine::to_model(*m))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let idx = Type::index(e.ctx);
        let i1 = e.ty("i1").map_err(|e| e.to_string())?;
        let corners: Vec<Vec<i64>> = vec![
            vec![0; attrs.space.len()],
            attrs.space.iter().map(|&d| d - 1).collect(),
        ];
        for (i, map) in attrs.maps.iter().enumerate() {
            let (dims, _) = memref_info(operands[i])?;
            for (r, ex) in exprs[i].iter().enumerate() {
                // Dynamic indices (the maps' last symbols) are inside their
                // axes by the verifier's check of their bounds.
                let dynamic = |l: &ocannl_assign::Affine| matches!(l, ocannl_assign::Affine::Sym(k) if *k >= symbols.len());
                if !ex.has_sym() || ex.any_leaf(&dynamic) {
                    continue;
                }
                let what = match ex {
                    ocannl_assign::Affine::Sym(k) => {
                        format!("the slice index ({})", describe_index(symbols[*k]))
                    }
                    _ => format!(
                        "the index of axis {r} of operand #{i}, which depends on index operands,"
                    ),
                };
                let message = format!("{}: error: {what}", place(op.location()));
                let dim_free = (0..attrs.space.len()).all(|d| !ex.mentions(d));
                let points = if dim_free {
                    &corners[..1]
                } else {
                    &corners[..]
                };
                let mut failed: Option<Value<'c, 'a>> = None;
                let mut shown: Option<Value<'c, 'a>> = None;
                for point in points {
                    let mut args = point
                        .iter()
                        .map(|&p| e.index(at, p))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| e.to_string())?;
                    args.extend_from_slice(symbols);
                    let sub = map.sub_map(&[r]);
                    let v = e.op1(
                        at,
                        "affine.apply",
                        &args,
                        idx,
                        &[("map", attr::affine_map_attr(sub))],
                    );
                    let (zero, size) = (
                        e.index(at, 0).map_err(|e| e.to_string())?,
                        e.index(at, dims[r]).map_err(|e| e.to_string())?,
                    );
                    let below = e.cmpi(at, CmpI::Slt, v, zero);
                    let above = e.cmpi(at, CmpI::Sge, v, size);
                    let out = e.op1(at, "arith.ori", &[below, above], i1, &[]);
                    // The value reported: the first one outside.
                    shown = Some(match (shown, failed) {
                        (Some(s), Some(f)) => e.op1(at, "arith.select", &[f, s, v], idx, &[]),
                        _ => v,
                    });
                    failed = Some(match failed {
                        Some(f) => e.op1(at, "arith.ori", &[f, out], i1, &[]),
                        None => out,
                    });
                }
                if let (Some(failed), Some(shown)) = (failed, shown) {
                    self.fail_if(e, at, failed, Code::Index, message, shown, dims[r])?;
                }
            }
        }
        Ok(())
    }
}

/// An index operand, for messages: a function argument by its number.
pub fn describe_index(v: Value) -> String {
    if let Ok(arg) = BlockArgument::try_from(v) {
        let func = arg.owner().parent_operation();
        if let Some(f) = func.filter(|f| ir::name(f) == "func.func") {
            let name = f
                .attribute("sym_name")
                .ok()
                .and_then(attr::string_value)
                .unwrap_or_default();
            return format!("argument #{} of @{name}", arg.argument_number());
        }
    }
    "an index operand".to_string()
}
