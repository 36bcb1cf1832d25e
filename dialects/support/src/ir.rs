//! Navigating and changing IR: what melior leaves to the C API.

use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        Attribute, BlockRef, OperationRef, RegionLike, Value, ValueLike,
    },
    Context, ContextRef,
};

/// The context behind a [`ContextRef`], borrowed from it.
pub fn context<'r>(r: &'r ContextRef<'_>) -> &'r Context {
    // SAFETY: a `ContextRef` is a valid context handle, and the reference
    // lives no longer than the handle it is made from.
    unsafe { r.to_ref() }
}

/// The ops named `name` under `root` (pre-order), `root` included.
pub fn ops_named<'c, 'a>(root: OperationRef<'c, 'a>, name: &str) -> Vec<OperationRef<'c, 'a>> {
    collect(root, |op| op.name().as_string_ref().as_str() == Ok(name))
}

/// The `func.func` ops at the top of `module` (not those nested in other
/// ops), by symbol name.
pub fn functions_by_name<'c, 'a>(
    module: OperationRef<'c, 'a>,
) -> std::collections::HashMap<String, OperationRef<'c, 'a>> {
    let mut functions = std::collections::HashMap::new();
    let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else {
        return functions;
    };
    let mut cur = body.first_operation();
    while let Some(op) = cur {
        cur = op.next_in_block();
        if name(&op) != "func.func" {
            continue;
        }
        if let Some(n) = op
            .attribute("sym_name")
            .ok()
            .and_then(crate::attr::string_value)
        {
            functions.insert(n, op);
        }
    }
    functions
}

/// The ops under `root` (pre-order) that satisfy `pred`.
pub fn collect<'c, 'a>(
    root: OperationRef<'c, 'a>,
    mut pred: impl FnMut(&OperationRef<'c, 'a>) -> bool,
) -> Vec<OperationRef<'c, 'a>> {
    let mut raw = vec![];
    root.walk(WalkOrder::PreOrder, |op| {
        raw.push(op.to_raw());
        WalkResult::Advance
    });
    raw.into_iter()
        // SAFETY: ops nested in `root` live as long as `root` does.
        .map(|r| unsafe { OperationRef::from_raw(r) })
        .filter(|op| pred(op))
        .collect()
}

/// The name of an op (empty if it is not UTF-8).
pub fn name<'c>(op: &impl OperationLike<'c, 'c>) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// The ops using `value`, once per use.
pub fn users<'c, 'a>(value: Value<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = vec![];
    // SAFETY: walking a valid value's use list; each owner is a live op of
    // the same IR.
    unsafe {
        let mut u = mlir_sys::mlirValueGetFirstUse(value.to_raw());
        while !mlir_sys::mlirOpOperandIsNull(u) {
            out.push(OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(u)));
            u = mlir_sys::mlirOpOperandGetNextUse(u);
        }
    }
    out
}

/// Replaces every use of `old` by `new`.
pub fn replace_all_uses<'c, 'a>(old: Value<'c, 'a>, new: Value<'c, 'a>) {
    // SAFETY: two valid values of the same context.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) }
}

/// The ancestor of `op` (itself included) whose parent block is `block`.
pub fn ancestor_in<'c, 'a>(
    block: BlockRef<'c, 'a>,
    op: OperationRef<'c, 'a>,
) -> Option<OperationRef<'c, 'a>> {
    let mut cur = Some(op);
    while let Some(o) = cur {
        if o.block().is_some_and(|b| b == block) {
            return Some(o);
        }
        cur = o.parent_operation();
    }
    None
}

/// Sets an attribute of an op.
pub fn set_attribute<'c>(op: OperationRef<'c, '_>, name: &str, attr: Attribute<'c>) {
    // SAFETY: a mutable view of a live op, used for this call only.
    let mut m = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    m.set_attribute(name, attr);
}

/// Ops to erase once a rewrite no longer looks at them: a pass collects the
/// ops it replaces, and erases them when it is done with them.
///
/// Erasing frees an op, and melior's handles (`OperationRef`, `Value`,
/// `BlockRef`) are `Copy`: nothing the graveyard can see tells whether a
/// copy of a handle into a buried op is used later. So
/// [`Graveyard::erase_all`] is `unsafe`, its caller vouching for that
/// (as melior's own `BlockLike::erase_argument` is); what the IR itself can
/// tell (the uses of the buried ops' values, ops nested in buried ops, an op
/// buried twice) it checks.
pub struct Graveyard<'c, 'a> {
    ops: Vec<OperationRef<'c, 'a>>,
}

impl<'c, 'a> Graveyard<'c, 'a> {
    pub fn new() -> Self {
        Graveyard { ops: vec![] }
    }

    pub fn bury(&mut self, op: OperationRef<'c, 'a>) {
        self.ops.push(op);
    }

    /// Erases the buried ops, the last buried first (users are buried
    /// after what they use), each with everything inside it: an op inside
    /// another buried op goes with it, and an op buried twice is erased
    /// once. Refuses, erasing nothing, when a value defined by a buried op
    /// (or by an op inside one) is still used by an op that is not erased
    /// before it or with it.
    ///
    /// # Safety
    ///
    /// - No handle to a buried op or to anything inside it (its results,
    ///   regions, blocks, block arguments, the ops inside and their values)
    ///   is used after the call: their memory is freed.
    /// - Every buried op is live: neither it nor an op holding it was
    ///   erased before the call.
    /// - The block arguments of a buried op's regions are used only inside
    ///   it (as in any verified IR).
    pub unsafe fn erase_all(self) -> Result<(), String> {
        // The first burial of each op, by position.
        let mut pos: rustc_hash::FxHashMap<usize, usize> = Default::default();
        let mut buried: Vec<OperationRef<'c, 'a>> = vec![];
        for op in self.ops {
            if let std::collections::hash_map::Entry::Vacant(slot) = pos.entry(ptr(op)) {
                slot.insert(buried.len());
                buried.push(op);
            }
        }
        // When an op goes: with its outermost buried ancestor (itself
        // included), erased at that one's position from the end; `None`
        // for an op that stays.
        let goes = |op: OperationRef| -> Option<usize> {
            let mut when = None;
            let mut cur = Some(op);
            while let Some(o) = cur {
                if let Some(&p) = pos.get(&ptr(o)) {
                    when = Some(p);
                }
                cur = o.parent_operation();
            }
            when
        };
        let mut erased = vec![];
        for &op in &buried {
            let when = goes(op).expect("a buried op goes");
            if when != pos[&ptr(op)] {
                continue; // Inside another buried op.
            }
            erased.push(op);
            // Every value defined in the op must be used only by ops that
            // go before it (buried after it) or with it.
            for inner in collect(op, |_| true) {
                for r in inner.results() {
                    let v: Value = r.into();
                    if users(v)
                        .into_iter()
                        .any(|u| goes(u).is_none_or(|w| w < when))
                    {
                        return Err(format!(
                            "internal error: erasing '{}' whose result is still used",
                            name(&inner)
                        ));
                    }
                }
            }
        }
        for op in erased.into_iter().rev() {
            // SAFETY: the op is live and in no other erased op (the
            // caller's contract, and checked above); every use of a value
            // it defines is in an op erased before it or inside it (checked
            // above; a region drops its ops' references before erasing
            // them), so no use is left dangling; no handle into it is used
            // after the call (the caller's contract).
            unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
        }
        Ok(())
    }
}

/// An op's identity.
fn ptr(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

impl Default for Graveyard<'_, '_> {
    fn default() -> Self {
        Self::new()
    }
}

/// A value as a hashable key (values are compared by identity).
pub fn key(v: Value) -> usize {
    v.to_raw().ptr as usize
}

/// The function a call (`func.call`) names.
pub fn callee(call: OperationRef) -> Option<String> {
    call.attribute("callee")
        .ok()
        .and_then(|a| melior::ir::attribute::FlatSymbolRefAttribute::try_from(a).ok())
        .map(|a| a.value().to_string())
}

/// An op's identity, as a map key.
pub fn key_op(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// Parses a whole file into a module, with the file's locations (`None` if
/// it does not parse; the diagnostics went to the context's handlers).
pub fn parse_file<'c>(context: &'c Context, path: &str) -> Option<melior::ir::Module<'c>> {
    // SAFETY: a valid context and string; a null module is turned into
    // `None`.
    unsafe {
        melior::ir::Module::from_option_raw(mlir_sys::mlirModuleCreateParseFromFile(
            context.to_raw(),
            melior::StringRef::new(path).to_raw(),
        ))
    }
}

/// A copy of an op (with its regions), not inserted anywhere.
pub fn clone<'c>(op: OperationRef<'c, '_>) -> melior::ir::Operation<'c> {
    // SAFETY: cloning a live op gives a new owned op of the same context.
    unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) }
}

/// Sets operand `index` of an op.
pub fn set_operand<'c, 'a>(op: OperationRef<'c, 'a>, index: usize, value: Value<'c, 'a>) {
    // SAFETY: a mutable view of a live op, used for this call only.
    let mut m = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    m.set_operand(index, value);
}

/// The string attribute `name` of argument `index` of a `func.func`
/// (from its `arg_attrs`).
pub fn arg_string_attr(func: OperationRef, index: usize, name: &str) -> Option<String> {
    let attrs = func.attribute("arg_attrs").ok()?;
    let attrs = melior::ir::attribute::ArrayAttribute::try_from(attrs).ok()?;
    let dict = attrs.element(index).ok()?;
    let dict = melior::ir::attribute::DictionaryAttribute::try_from(dict).ok()?;
    crate::attr::string_value(dict.element_by_name(name)?)
}

/// The integer entries of the dictionary attribute `name` of `op`
/// (`{k = 7 : i64}`), in order; none when it is absent. Entries that are
/// not non-negative integers are skipped.
pub fn int_dictionary(op: OperationRef, name: &str) -> Vec<(String, u64)> {
    let Ok(a) = op.attribute(name) else {
        return vec![];
    };
    let Ok(dict) = melior::ir::attribute::DictionaryAttribute::try_from(a) else {
        return vec![];
    };
    (0..dict.len())
        .filter_map(|i| {
            let (key, value) = dict.element(i).ok()?;
            let value = crate::attr::int_value(value)?;
            let key = key.as_string_ref().as_str().ok()?.to_string();
            Some((key, u64::try_from(value).ok()?))
        })
        .collect()
}

/// Sets the `arg_attrs` of a `func.func`: per argument, its string
/// attributes (`None`: no attribute).
pub fn set_arg_string_attrs<'c>(
    context: &'c Context,
    func: OperationRef<'c, '_>,
    attrs: &[Option<(&str, &str)>],
) {
    use melior::ir::{
        attribute::{ArrayAttribute, DictionaryAttribute, StringAttribute},
        Identifier,
    };
    let dicts: Vec<Attribute> = attrs
        .iter()
        .map(|a| {
            let elts: Vec<(Identifier, Attribute)> = a
                .iter()
                .map(|(n, v)| {
                    (
                        Identifier::new(context, n),
                        StringAttribute::new(context, v).into(),
                    )
                })
                .collect();
            DictionaryAttribute::new(context, &elts).into()
        })
        .collect();
    set_attribute(
        func,
        "arg_attrs",
        ArrayAttribute::new(context, &dicts).into(),
    );
}

/// Removes an attribute of an op (nothing if it has none of that name).
pub fn remove_attribute(op: OperationRef, name: &str) {
    // SAFETY: a mutable view of a live op, used for this call only.
    let mut m = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    let _ = m.remove_attribute(name);
}

/// The type of a `func.func` (its `function_type` attribute).
pub fn function_type<'c>(
    func: OperationRef<'c, '_>,
) -> Option<melior::ir::r#type::FunctionType<'c>> {
    let attr = func.attribute("function_type").ok()?;
    let ty = melior::ir::attribute::TypeAttribute::try_from(attr)
        .ok()?
        .value();
    melior::ir::r#type::FunctionType::try_from(ty).ok()
}

/// Moves `op`, with its regions, to just before `before`, which may be in
/// another block, region or function (the values `op` uses are not
/// changed: see [`remap_operands`]).
pub fn move_before<'c, 'a>(op: OperationRef<'c, 'a>, before: OperationRef<'c, 'a>) {
    // SAFETY: a mutable view of a live op, used for this call only; MLIR
    // unlinks it from its block and links it before `before`, which is in a
    // block (melior's `OperationRef`s always are, or are owned).
    let mut m = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    m.move_before(before);
}

/// Replaces, in `root` and every op inside it, each operand `v` for which
/// `f(v)` gives a value by that value.
pub fn remap_operands<'c, 'a>(
    root: OperationRef<'c, 'a>,
    mut f: impl FnMut(Value<'c, 'a>) -> Option<Value<'c, 'a>>,
) {
    for op in collect(root, |_| true) {
        for i in 0..op.operand_count() {
            let Ok(v) = op.operand(i) else { continue };
            if let Some(new) = f(v) {
                set_operand(op, i, new);
            }
        }
    }
}

/// The op defining `v` (`None` for a block argument).
pub fn defining_op<'c, 'a>(v: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // Asked first: melior's conversion prints the whole IR into its error
    // when the value is of the other kind.
    if !v.is_operation_result() {
        return None;
    }
    melior::ir::operation::OperationResult::try_from(v)
        .ok()
        .map(|r| r.owner())
}

/// The block whose argument `v` is (`None` for an op's result).
pub fn argument_owner<'c, 'a>(v: Value<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    if !v.is_block_argument() {
        return None;
    }
    // SAFETY: `v` is a live block argument; its owner block lives as long
    // as the IR that holds `v`.
    unsafe { BlockRef::from_option_raw(mlir_sys::mlirBlockArgumentGetOwner(v.to_raw())) }
}

/// Whether `v` is defined inside `root` (a result of `root` itself or of
/// an op nested in it, or an argument of a block of its regions).
pub fn defined_inside(root: OperationRef, v: Value) -> bool {
    // (Asked first, as in `defining_op`.)
    let arg = v
        .is_block_argument()
        .then(|| melior::ir::block::BlockArgument::try_from(v).ok())
        .flatten();
    let mut cur = match defining_op(v) {
        Some(op) => Some(op),
        None => arg.as_ref().and_then(|a| a.owner().parent_operation()),
    };
    while let Some(o) = cur {
        if o == root {
            return true;
        }
        cur = o.parent_operation();
    }
    false
}

/// The text of an op printed on its own: values numbered from the op
/// (`%arg0`, `%0`, ... as if it were the whole input, which for an op
/// isolated from above, such as a `func.func`, does not depend on where
/// it is), without locations.
pub fn print_alone(op: OperationRef) -> Result<String, crate::Error> {
    print_alone_text(op).map_err(crate::Error::internal)
}

/// [`print_alone`], the reason as text.
fn print_alone_text(op: OperationRef) -> Result<String, String> {
    op.to_string_with_flags(melior::ir::operation::OperationPrintingFlags::new().use_local_scope())
        .map_err(|e| format!("internal error: cannot print '{}': {e}", name(&op)))
}
