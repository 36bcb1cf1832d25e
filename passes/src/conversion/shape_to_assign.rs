//! `ocannl-lower-to-assign`: lowers shape-inferred `ocannl_shape` tensor
//! expressions to `ocannl_assign` routines: tensor nodes become buffers
//! (memrefs laid out batch, output, input) and every op becomes the
//! accumulating assignment that computes it, with its projections as an
//! iteration space and affine maps.
//!
//! - function arguments become memref arguments (data fed in);
//! - a node's memory mode is `materialized` for params and returned values,
//!   the mode pinned by the op's `{ocannl.memory = MODE}`, else `undecided`
//!   (for `ocannl-virtualize`);
//! - params become `materialized` nodes initialized by `uniform` or
//!   `normal` (seeded by the param's name; by default in [-0.25, 0.25) as
//!   OCANNL's default init);
//! - constants become nodes set by `fill` or `literal`;
//! - pointwise ops, transposes and slices become plain assignments
//!   (`accum = "assign"`); compose and einsum reset their result to the
//!   neutral element of `accum` and accumulate, unless every result cell is
//!   written exactly once.

use std::collections::HashMap;

use melior::ir::{
    attribute::{ArrayAttribute, AttributeLike, FloatAttribute, IntegerAttribute, StringAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike},
    r#type::IntegerType,
    Attribute, Identifier, OperationRef, RegionLike, Type, Value, ValueLike,
};
use ocannl_mlir::{
    affine, attr,
    cache::TextCache,
    ir::{self, key, Graveyard},
};
use ocannl_ops::{Accum, Dist};
use ocannl_shape::{
    projections::{derive, Projections},
    Shape,
};
use ocannl_shape_dialect::{computation, solver_node, EinsumSpecs, OpKind, TensorTypes};
use rustc_hash::FxHashMap;

use crate::{
    framework::{Locate, Options, PassError, PassResult},
    util::{concrete_shape, update_signature},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-lower-to-assign",
    "OcannlLowerToAssign",
    "Lower shape-inferred ocannl_shape tensor expressions to ocannl_assign routines: tensor nodes as buffers, accumulating assignments with projections",
    [("params-as-arguments", BOOL, "false", "Make the params of each function its trailing arguments (buffers the caller keeps across calls, marked {ocannl.param = NAME}) and add a function @<f>_init that initializes them")],
    r#"lowers shape-inferred tensor expressions to `ocannl_assign` routines: tensor nodes as memref buffers (batch, output, input), params initialized by `uniform` or `normal` (or `fill` for zeros), constants by `fill`/`literal`, every op an accumulating assignment whose projections (iteration space + one affine map per operand) are derived from the solved shapes; with `params-as-arguments=true`, params are trailing arguments the caller keeps (`{ocannl.param = NAME}`) and `@<f>_init` initializes them"#
);

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    let params_as_args = options.flag("params-as-arguments");
    let mut errors = vec![];
    for f in ir::ops_named(module, "func.func") {
        if let Err(e) = lower_function(f, params_as_args) {
            errors.extend(e.diagnostics);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(PassError::all(errors))
    }
}

/// A tensor value: its solved shape and element type.
struct TensorInfo {
    shape: Shape,
    elt: String,
}

/// What a run reads and makes from text, each distinct one once: the
/// context uniques types and attributes, and printing or parsing one costs
/// microseconds while a graph has thousands of ops and a few distinct
/// shapes.
#[derive(Default)]
struct Cache<'c> {
    types: TensorTypes<'c>,
    /// Concrete shapes by their text (`None`: not concrete).
    shapes: FxHashMap<String, Option<Shape>>,
    text: TextCache<'c>,
    specs: EinsumSpecs,
}

impl<'c> Cache<'c> {
    fn concrete(&mut self, text: &str) -> Option<Shape> {
        if let Some(s) = self.shapes.get(text) {
            return s.clone();
        }
        let s = concrete_shape(text);
        self.shapes.insert(text.to_string(), s.clone());
        s
    }

    fn ty(&mut self, ctx: &'c melior::Context, text: &str) -> Option<Type<'c>> {
        self.text.ty(ctx, text)
    }

    fn attr(
        &mut self,
        ctx: &'c melior::Context,
        name: &str,
        text: &str,
    ) -> Result<(Identifier<'c>, Attribute<'c>), String> {
        Ok((
            Identifier::new(ctx, name),
            self.text.attr(ctx, text).map_err(|e| e.to_string())?,
        ))
    }
}

/// The buffer type of a tensor, its sizes checked first (each axis at
/// least 1 long, the whole addressable by the compiled code).
fn memref_text(info: &TensorInfo) -> Result<String, String> {
    let dims = info
        .shape
        .to_dims()
        .ok_or("internal error: shape not concrete")?;
    let elt_bytes = ocannl_assign::element_bytes(&info.elt)
        .ok_or_else(|| format!("unsupported element type {}", info.elt))?;
    ocannl_assign::check_buffer(&dims, elt_bytes).map_err(|e| {
        format!(
            "the tensor of shape \"{}\" cannot be a buffer: {e}",
            info.shape
        )
    })?;
    let mut s = String::from("memref<");
    for d in dims {
        s += &format!("{d}x");
    }
    Ok(s + &info.elt + ">")
}

fn lower_function<'c, 'a>(func: OperationRef<'c, 'a>, params_as_args: bool) -> PassResult<'c> {
    let ctx_ref = func.context();
    let ctx = ir::context(&ctx_ref);
    let mut cache = Cache::default();
    let Some(entry) = func.region(0).ok().and_then(|body| body.first_block()) else {
        return check_declaration(func, &mut cache);
    };

    // Constraints on named dimensions (`set_dim`, `set_equal`) were
    // solved by shape inference: they compute nothing.
    let mut solved = Graveyard::new();
    for op in ir::collect(func, ocannl_shape_dialect::is_constraint) {
        solved.bury(op);
    }
    // SAFETY: the constraint ops have no results and nothing else holds
    // them.
    unsafe { solved.erase_all() }.at(func.location())?;

    // Collect the ops to lower, checking that every tensor type is concrete.
    let ops = ir::collect(func, |op| OpKind::of(op).is_some());
    for op in &ops {
        for r in op
            .results()
            .map(|r| r.r#type())
            .chain(op.operands().map(|v| v.r#type()))
        {
            if let Some(tt) = cache.types.read(r) {
                if cache.concrete(&tt.shape).is_none() {
                    return Err(PassError::at(
                        op.location(),
                        format!("ocannl-lower-to-assign needs inferred shapes, but \"{}\" is not concrete; run ocannl-infer-shapes first", tt.shape),
                    ));
                }
            }
        }
    }
    for i in 0..entry.argument_count() {
        let arg = entry.argument(i).expect("argument index in range");
        if let Some(tt) = cache.types.read(arg.r#type()) {
            if cache.concrete(&tt.shape).is_none() {
                return Err(PassError::at(
                    func.location(),
                    format!("ocannl-lower-to-assign needs inferred shapes, but argument #{i} has \"{}\"; run ocannl-infer-shapes first", tt.shape),
                ));
            }
        }
    }
    let has_tensor_args = (0..entry.argument_count()).any(|i| {
        entry
            .argument(i)
            .is_ok_and(|a| cache.types.read(a.r#type()).is_some())
    });
    if ops.is_empty() && !has_tensor_args {
        return Ok(());
    }

    // Function arguments become memrefs in place.
    let mut infos: HashMap<usize, TensorInfo> = HashMap::new();
    for i in 0..entry.argument_count() {
        let arg = entry.argument(i).expect("argument index in range");
        if let Some(tt) = cache.types.read(arg.r#type()) {
            let info = TensorInfo {
                shape: cache.concrete(&tt.shape).expect("checked"),
                elt: tt.elt.clone(),
            };
            let text = memref_text(&info)
                .map_err(|m| PassError::at(arg.location(), format!("argument #{i}: {m}")))?;
            let ty = cache.ty(ctx, &text).ok_or_else(|| {
                PassError::at(
                    func.location(),
                    format!("internal error: argument #{i}: cannot make the buffer type {text}"),
                )
            })?;
            arg.set_type(ty);
            infos.insert(key(arg.into()), info);
        }
    }
    let mut counter: HashMap<&'static str, usize> = HashMap::new();
    let returned = returned_values(func);
    let mut replaced = Graveyard::new();
    let mut params = vec![];
    for op in ops {
        if let Some(node) =
            lower_op(ctx, &op, &mut infos, &mut counter, &returned, &mut cache).at(op.location())?
        {
            params.push(node);
        }
        replaced.bury(op);
    }
    // The old ops have no uses left.
    // SAFETY: the old ops were moved into the graveyard; nothing else holds
    // them.
    unsafe { replaced.erase_all() }.at(func.location())?;
    if params_as_args && !params.is_empty() {
        params_to_arguments(ctx, func, &params).at(func.location())?;
    }
    update_signature(func);
    check_no_tensors_left(func, &mut cache)
}

/// A function declaration has no body to lower: its signature must not
/// have tensor types.
fn check_declaration<'c: 'x, 'x>(
    func: OperationRef<'c, '_>,
    cache: &mut Cache<'x>,
) -> PassResult<'c> {
    let Some(ft) = ir::function_type(func) else {
        return Ok(());
    };
    let types = (0..ft.input_count())
        .filter_map(|i| ft.input(i).ok())
        .chain((0..ft.result_count()).filter_map(|i| ft.result(i).ok()));
    for t in types {
        if cache.types.read(t).is_some() {
            return Err(PassError::at(
                func.location(),
                format!("ocannl-lower-to-assign cannot lower a function declaration with the tensor type {t}; declare it with buffer (memref) types"),
            ));
        }
    }
    Ok(())
}

/// Turns the param nodes of a function into its trailing arguments, marked
/// `{ocannl.param = NAME}`, and moves their initializations into a new
/// function `@<f>_init` taking the same buffers, placed after `func`.
fn params_to_arguments<'c, 'a>(
    ctx: &'c melior::Context,
    func: OperationRef<'c, 'a>,
    params: &[OperationRef<'c, 'a>],
) -> Result<(), String> {
    use melior::ir::{
        attribute::TypeAttribute, operation::OperationLike as _, r#type::FunctionType, Block,
        Region,
    };
    let body = func.region(0).map_err(|e| e.to_string())?;
    let entry = body.first_block().ok_or("a function without a body")?;
    let loc = func.location();
    let name = func
        .attribute("sym_name")
        .ok()
        .and_then(attr::string_value)
        .ok_or("a function without a name")?;
    let first_param = entry.argument_count();
    let mut arg_attrs: Vec<Option<(&str, String)>> = (0..first_param)
        .map(|i| {
            ir::arg_string_attr(func, i, ocannl_dialect_spec::abi::PARAM)
                .map(|v| (ocannl_dialect_spec::abi::PARAM, v))
        })
        .collect();
    let types: Vec<Type> = params
        .iter()
        .map(|n| n.result(0).map(|r| r.r#type()).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let init_block = Block::new(&types.iter().map(|t| (*t, loc)).collect::<Vec<_>>());
    let mut gone = Graveyard::new();
    for (k, node) in params.iter().enumerate() {
        let value: Value = node.result(0).map_err(|e| e.to_string())?.into();
        let pname = node
            .attribute("name")
            .ok()
            .and_then(attr::string_value)
            .unwrap_or_default();
        // The initialization of the param (made right after its node).
        let init = node
            .next_in_block()
            .filter(|o| {
                matches!(
                    o.name().as_string_ref().as_str(),
                    Ok("ocannl_assign.uniform" | "ocannl_assign.normal" | "ocannl_assign.fill")
                )
            })
            .ok_or_else(|| format!("internal error: param '{pname}' has no initialization"))?;
        let moved = init_block.append_operation(ir::clone(init));
        let arg = entry.add_argument(types[k], node.location());
        ir::replace_all_uses(value, arg);
        gone.bury(init);
        gone.bury(*node);
        arg_attrs.push(Some((ocannl_dialect_spec::abi::PARAM, pname)));
        let init_arg: Value = init_block.argument(k).map_err(|e| e.to_string())?.into();
        ir::set_operand(moved, 0, init_arg);
    }
    // SAFETY: `params` (the nodes) and the initializations are not used
    // after.
    unsafe { gone.erase_all() }?;
    init_block.append_operation(
        OperationBuilder::new("func.return", loc)
            .build()
            .map_err(|e| e.to_string())?,
    );
    let attrs: Vec<Option<(&str, &str)>> = arg_attrs
        .iter()
        .map(|a| a.as_ref().map(|(n, v)| (*n, v.as_str())))
        .collect();
    ir::set_arg_string_attrs(ctx, func, &attrs);
    let region = Region::new();
    region.append_block(init_block);
    let init_fn = OperationBuilder::new("func.func", loc)
        .add_attributes(&[
            str_attr(ctx, "sym_name", &format!("{name}_init")),
            (
                Identifier::new(ctx, "function_type"),
                TypeAttribute::new(FunctionType::new(ctx, &types, &[]).into()).into(),
            ),
        ])
        .add_regions([region])
        .build()
        .map_err(|e| e.to_string())?;
    func.block()
        .ok_or("a function outside a module")?
        .insert_operation_after(func, init_fn);
    Ok(())
}

/// Every tensor value became a buffer: a tensor left over is used by an op
/// the lowering does not know (a call, another dialect's op).
fn check_no_tensors_left<'c: 'x, 'x>(
    func: OperationRef<'c, '_>,
    cache: &mut Cache<'x>,
) -> PassResult<'c> {
    let mut errors = vec![];
    // A return of a tensor returns what such an op made: the op is reported.
    for op in ir::collect(func, |op| ir::name(op) != "func.return")
        .into_iter()
        .skip(1)
    {
        let tensor = op
            .operands()
            .map(|v| v.r#type())
            .chain(op.results().map(|r| r.r#type()))
            .find(|t| cache.types.read(*t).is_some());
        if let Some(t) = tensor {
            let name = op.name();
            let name = name.as_string_ref().as_str().unwrap_or("?").to_string();
            errors.push(crate::diag::Diagnostic::error(
                op.location(),
                format!("ocannl-lower-to-assign cannot lower '{name}' on the tensor type {t}: tensors are made by ocannl_shape ops and function arguments, and used by ocannl_shape ops and func.return"),
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(PassError::all(errors))
    }
}

/// Values returned by the function: their nodes are materialized.
fn returned_values(func: OperationRef) -> Vec<usize> {
    ir::ops_named(func, "func.return")
        .iter()
        .flat_map(|op| op.operands().map(key).collect::<Vec<_>>())
        .collect()
}

fn str_attr<'c>(
    ctx: &'c melior::Context,
    name: &str,
    value: &str,
) -> (Identifier<'c>, Attribute<'c>) {
    (
        Identifier::new(ctx, name),
        StringAttribute::new(ctx, value).into(),
    )
}

/// Lowers one `ocannl_shape` op before itself: its node, then the node's
/// initialization (a param, a constant) or the assignment computing it.
/// Returns a param's node.
fn lower_op<'c, 'a>(
    ctx: &'c melior::Context,
    op: &OperationRef<'c, 'a>,
    infos: &mut HashMap<usize, TensorInfo>,
    counter: &mut HashMap<&'static str, usize>,
    returned: &[usize],
    cache: &mut Cache<'c>,
) -> Result<Option<OperationRef<'c, 'a>>, String> {
    let kind = OpKind::of(op).expect("collected ops are ocannl_shape ops");
    let block = op.block().ok_or("internal error: op without a block")?;
    let loc = op.location();
    let result = op.result(0).map_err(|e| e.to_string())?;
    let tt = cache
        .types
        .read(result.r#type())
        .ok_or("internal error: result is not a tensor")?;
    let info = TensorInfo {
        shape: cache
            .concrete(&tt.shape)
            .ok_or("internal error: shape not concrete")?,
        elt: tt.elt.clone(),
    };
    let memref = cache
        .ty(ctx, &memref_text(&info)?)
        .ok_or("internal error: memref type")?;

    let tensor_operands: Vec<melior::ir::Value> = op
        .operands()
        .filter(|v| infos.contains_key(&key(*v)))
        .collect();
    let index_operands: Vec<melior::ir::Value> = op
        .operands()
        .filter(|v| !infos.contains_key(&key(*v)))
        .collect();
    if tensor_operands.len() < kind.tensor_operands() {
        return Err(format!(
            "expected {} tensor operand(s), found {}",
            kind.tensor_operands(),
            tensor_operands.len()
        ));
    }

    let name = node_name(op, kind, counter)?;
    let memory = memory_mode(op, kind, returned.contains(&key(result.into())))?;
    let node = OperationBuilder::new("ocannl_assign.node", loc)
        .add_attributes(&[
            str_attr(ctx, "name", &name),
            str_attr(ctx, "kind", "value"),
            str_attr(ctx, "memory", &memory),
            str_attr(ctx, "shape", &info.shape.to_string()),
        ])
        .add_results(&[memref])
        .build()
        .map_err(|e| e.to_string())?;
    let node = block.insert_operation_before(*op, node);
    let dest = node.result(0).map_err(|e| e.to_string())?;

    let insert = |b: OperationBuilder| -> Result<(), String> {
        let new = b.build().map_err(|e| e.to_string())?;
        block.insert_operation_before(*op, new);
        Ok(())
    };
    match kind {
        OpKind::Param => insert(init_param(ctx, op, &name, &info, dest.into(), cache)?)?,
        OpKind::Constant => insert(init_constant(ctx, op, &info, dest.into(), cache)?)?,
        OpKind::Dim => {
            if op.attribute("value").is_err() {
                return Err(
                    "the named dimension has no 'value'; run ocannl-infer-shapes first".into(),
                );
            }
            insert(init_constant(ctx, op, &info, dest.into(), cache)?)?
        }
        _ => {
            let operand_shapes: Vec<&Shape> = tensor_operands
                .iter()
                .map(|v| &infos[&key(*v)].shape)
                .collect();
            let ops_idx: Vec<usize> = (0..operand_shapes.len()).collect();
            let node_kind =
                solver_node(op, kind, ops_idx, &mut cache.specs).map_err(|e| e.to_string())?;
            let (op_name, accum) = computation(op, kind, &node_kind).map_err(|e| e.to_string())?;
            let proj =
                derive(&node_kind, &info.shape, &operand_shapes).map_err(|e| e.to_string())?;
            let (accum, init) = accumulation(&proj, &info.shape, accum);
            let op_kind = match tensor_operands.len() {
                1 => "ocannl_assign.accum_unop",
                2 => "ocannl_assign.accum_binop",
                _ => "ocannl_assign.accum_ternop",
            };
            // The projections' index expressions as MLIR affine maps.
            let maps: Vec<Attribute> = std::iter::once(&proj.lhs)
                .chain(proj.rhs.iter())
                .map(|exprs| {
                    attr::affine_map_attr(affine::map_from_model(
                        ctx,
                        proj.space.len(),
                        proj.num_symbols,
                        exprs,
                    ))
                })
                .collect();
            let space: Vec<String> = proj.space.iter().map(|d| d.to_string()).collect();
            let space = if space.is_empty() {
                "array<i64>".to_string()
            } else {
                format!("array<i64: {}>", space.join(", "))
            };
            let mut operands: Vec<Value> = vec![dest.into()];
            for v in &tensor_operands {
                operands.push(*v);
            }
            operands.extend(index_operands.iter().copied().take(proj.num_symbols));
            let mut attrs = vec![
                str_attr(ctx, "accum", accum.name()),
                str_attr(ctx, "op", op_name.assign_name()),
                cache.attr(ctx, "space", &space)?,
                (
                    Identifier::new(ctx, "indexing_maps"),
                    ArrayAttribute::new(ctx, &maps).into(),
                ),
            ];
            if init {
                attrs.push(cache.attr(ctx, "initialize_neutral", "true")?);
            }
            insert(
                OperationBuilder::new(op_kind, loc)
                    .add_operands(&operands)
                    .add_attributes(&attrs),
            )?;
        }
    }
    ir::replace_all_uses(result.into(), dest.into());
    infos.insert(key(dest.into()), info);
    Ok((kind == OpKind::Param).then_some(node))
}

/// The name of the node of `op`: a param's own, else its kind numbered in
/// the function (`einsum_2`).
fn node_name(
    op: &OperationRef,
    kind: OpKind,
    counter: &mut HashMap<&'static str, usize>,
) -> Result<String, String> {
    let base = match kind {
        OpKind::Param => {
            return Ok(ocannl_shape_dialect::string_attr(op, "name")
                .map_err(|e| e.to_string())?
                .unwrap_or_default())
        }
        OpKind::Constant => "constant",
        OpKind::Dim => "dim",
        OpKind::PointwiseUnary | OpKind::PointwiseBinary | OpKind::PointwiseTernary => "pointwise",
        OpKind::Compose => "compose",
        OpKind::Einsum => "einsum",
        OpKind::Transpose => "transpose",
        OpKind::BatchSlice => "slice",
    };
    let n = counter.entry(base).or_insert(0);
    *n += 1;
    Ok(format!("{base}_{n}"))
}

/// The memory mode of the node of `op`: `materialized` for params and
/// returned values, the mode the user pins with `{ocannl.memory = MODE}` on
/// the op (kept by `ocannl-virtualize`), else `undecided`.
fn memory_mode(op: &OperationRef, kind: OpKind, returned: bool) -> Result<String, String> {
    let pinned = match op.attribute("ocannl.memory") {
        Err(_) => None,
        Ok(a) => {
            let m = attr::string_value(a).unwrap_or_default();
            if !ocannl_assign_dialect::MEMORY_MODES.contains(&m.as_str()) || m == "undecided" {
                return Err(format!(
                    "attribute 'ocannl.memory' must be one of virtual, local, on_device, materialized, but got {a}"
                ));
            }
            Some(m)
        }
    };
    Ok(if kind == OpKind::Param || returned {
        "materialized".to_string()
    } else {
        pinned.unwrap_or_else(|| "undecided".to_string())
    })
}

/// The initialization of a param's node `dest`: `uniform` within the
/// bounds of its `init` or `normal` (seeded by its name unless given), or
/// `fill` with 0.
fn init_param<'c>(
    ctx: &'c melior::Context,
    op: &OperationRef<'c, '_>,
    name: &str,
    info: &TensorInfo,
    dest: Value<'c, '_>,
    cache: &mut Cache<'c>,
) -> Result<OperationBuilder<'c>, String> {
    let ocannl_shape_dialect::ParamInitAttrs {
        init,
        seed,
        generator,
    } = ocannl_shape_dialect::param_init(op).map_err(|e| e.to_string())?;
    // A seed per param (from its name unless given).
    let seed = seed.unwrap_or_else(|| {
        (name.bytes().fold(0xcbf29ce484222325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100000001b3)
        }) >> 1) as i64
    });
    let cells = |row: &ocannl_shape::shape::Row| -> u64 {
        row.dims().filter_map(|d| d.known_size()).product()
    };
    let fans = (cells(&info.shape.input), cells(&info.shape.output));
    let elt = cache
        .ty(ctx, &info.elt)
        .ok_or("internal error: element type")?;
    // A uniform's bounds and a fill's value are of the element type; a
    // normal's mean and deviation f64 (a 16-bit attribute would round the
    // deviation).
    let f64t = melior::ir::r#type::Type::float64(ctx);
    let float = |name: &str, v: f64, ty| {
        (
            Identifier::new(ctx, name),
            FloatAttribute::new(ctx, ty, v).into(),
        )
    };
    let loc = op.location();
    let seed = (
        Identifier::new(ctx, "seed"),
        IntegerAttribute::new(IntegerType::new(ctx, 64).into(), seed).into(),
    );
    // The generator, when not the default.
    let generator: Vec<(Identifier, melior::ir::Attribute)> =
        if generator == ocannl_ops::Generator::default() {
            vec![]
        } else {
            vec![(
                Identifier::new(ctx, "generator"),
                StringAttribute::new(ctx, generator.name()).into(),
            )]
        };
    Ok(match init.dist(fans.0, fans.1) {
        Some(Dist::Uniform { low, high }) => OperationBuilder::new("ocannl_assign.uniform", loc)
            .add_operands(&[dest])
            .add_attributes(&[seed, float("low", low, elt), float("high", high, elt)])
            .add_attributes(&generator),
        Some(Dist::Normal { mean, std }) => OperationBuilder::new("ocannl_assign.normal", loc)
            .add_operands(&[dest])
            .add_attributes(&[seed, float("mean", mean, f64t), float("std", std, f64t)])
            .add_attributes(&generator),
        None => OperationBuilder::new("ocannl_assign.fill", loc)
            .add_operands(&[dest])
            .add_attributes(&[float("value", init.fill_value().unwrap_or(0.0), elt)]),
    })
}

/// The initialization of a constant's node `dest`: `literal` for a dense
/// literal (its cells in memory order), `fill` for a number.
fn init_constant<'c>(
    ctx: &'c melior::Context,
    op: &OperationRef<'c, '_>,
    info: &TensorInfo,
    dest: Value<'c, '_>,
    cache: &mut Cache<'c>,
) -> Result<OperationBuilder<'c>, String> {
    let v = op
        .attribute("value")
        .map_err(|_| "attribute 'value' is required")?;
    let loc = op.location();
    if v.is_dense_elements() {
        // The literal's own shape does not matter; its element type must be
        // the node's.
        let lit_elt = ocannl_mlir::attr::element_type(v)
            .ok_or("internal error: a dense literal without an element type")?;
        if lit_elt.to_string() != info.elt {
            return Err(format!(
                "the literal's element type {lit_elt} differs from the tensor's {}",
                info.elt
            ));
        }
        return Ok(OperationBuilder::new("ocannl_assign.literal", loc)
            .add_operands(&[dest])
            .add_attributes(&[(Identifier::new(ctx, "value"), v)]));
    }
    let value = ocannl_mlir::attr::number_value(v)
        .ok_or_else(|| format!("attribute 'value' must be a number, found {v}"))?;
    let elt = cache
        .ty(ctx, &info.elt)
        .ok_or("internal error: element type")?;
    let attr = FloatAttribute::new(ctx, elt, value);
    Ok(OperationBuilder::new("ocannl_assign.fill", loc)
        .add_operands(&[dest])
        .add_attributes(&[(Identifier::new(ctx, "value"), attr.into())]))
}

/// Plain assignment when every result cell is written exactly once
/// (`ocannl_assign::writes_each_cell_once`); otherwise the result is reset
/// to the neutral element of `accum` and accumulated onto, so that cells
/// the assignment does not write (off a diagonal, beside a fixed index) are
/// defined too.
fn accumulation(proj: &Projections, result: &Shape, accum: Accum) -> (Accum, bool) {
    let dims = result.to_dims().unwrap_or_default();
    if ocannl_assign::writes_each_cell_once(&proj.lhs, &proj.space, &dims) {
        (Accum::Assign, false)
    } else {
        (accum, true)
    }
}
