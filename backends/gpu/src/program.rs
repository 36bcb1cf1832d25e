//! Compiling a module at the loops stage (lowered for the GPU) into the
//! runtime's [`Program`]: the pipeline to PTX, then the PTX of every
//! `gpu.binary`, the constant buffers (`memref.global`) and, per public
//! function, its host code read as steps. The host code the GPU target
//! leaves is allocations, launches, frees and the return; anything else is
//! an error naming the op.

use std::collections::HashMap;

use melior::{
    ir::{
        block::BlockLike, operation::OperationLike, Module, OperationRef, RegionLike, TypeLike,
        Value, ValueLike,
    },
    Context,
};
use ocannl_gpu_plan::schedule::{
    Arg, Buffer, Function, Global, Output, Program, PtxModule, Slot, Step,
};
use ocannl_mlir::{attr, ir};
use ocannl_passes::backend::{arg_info, signature, slot};

/// Options of [`compile`].
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The GPU architecture.
    pub chip: String,
    /// The PTX ISA version times ten.
    pub ptx: u32,
    /// The NVPTX backend's optimization level.
    pub opt_level: u32,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            chip: "sm_90".into(),
            ptx: 80,
            opt_level: 3,
        }
    }
}

/// Compiles a module at the loops stage (`ocannl-lower-to-loops{target=gpu}`)
/// to PTX and reads it into a [`Program`].
pub(crate) fn compile(
    context: &Context,
    module: &mut Module,
    options: &CompileOptions,
) -> Result<Program, String> {
    if options.opt_level > 3 {
        return Err(format!(
            "the optimization level must be 0 to 3, not {}",
            options.opt_level
        ));
    }
    let pipeline = crate::pipeline::loops_to_nvvm(&options.chip, options.ptx, options.opt_level);
    ocannl_passes::run_pipeline(context, module, &pipeline)
        .map_err(|e| format!("lowering to PTX: {e}"))?;
    read(module)
}

fn sym_name(op: &OperationRef) -> Option<String> {
    op.attribute("sym_name").ok().and_then(attr::string_value)
}

/// Reads a compiled module (after `ocannl-loops-to-nvvm`).
pub(crate) fn read(module: &Module) -> Result<Program, String> {
    let root = module.as_operation();
    let mut program = Program::default();
    let mut module_index = HashMap::new();
    for op in ir::ops_named(root, "gpu.binary") {
        let name = sym_name(&op).unwrap_or_default();
        let objects = op
            .attribute("objects")
            .ok()
            .and_then(attr::gpu_objects)
            .ok_or_else(|| format!("gpu.binary @{name} has no objects"))?;
        let [ptx] = &objects[..] else {
            return Err(format!(
                "gpu.binary @{name} has {} objects; one (PTX) is expected",
                objects.len()
            ));
        };
        module_index.insert(name.clone(), program.modules.len());
        program.modules.push(PtxModule {
            name,
            ptx: ptx.clone(),
        });
    }
    let mut global_index = HashMap::new();
    for op in ir::ops_named(root, "memref.global") {
        let name = sym_name(&op).unwrap_or_default();
        let bytes = op
            .attribute("initial_value")
            .ok()
            .and_then(attr::dense_raw_bytes)
            .ok_or_else(|| {
                format!("memref.global @{name}: only dense f32/f64 constants are supported")
            })?;
        global_index.insert(name.clone(), program.globals.len());
        program.globals.push(Global { name, bytes });
    }
    for f in ir::ops_named(root, "func.func") {
        let private = f
            .attribute("sym_visibility")
            .ok()
            .and_then(attr::string_value)
            .is_some_and(|v| v == "private");
        let has_body = f.region(0).is_ok_and(|r| r.first_block().is_some());
        if private || !has_body {
            continue;
        }
        let name = sym_name(&f).unwrap_or_default();
        let function = read_function(&name, f, &module_index, &global_index)
            .map_err(|e| format!("@{name}: {e}"))?;
        function
            .check(program.globals.len(), program.modules.len())
            .map_err(|e| e.to_string())?;
        program.functions.insert(name, function);
    }
    Ok(program)
}

/// What a host value is.
#[derive(Clone, Copy)]
enum Known {
    Buffer(Buffer),
    IndexArg(usize),
    Bits {
        bits: u64,
        bytes: u8,
        int: Option<i64>,
    },
}

fn read_function(
    name: &str,
    f: OperationRef,
    modules: &HashMap<String, usize>,
    globals: &HashMap<String, usize>,
) -> Result<Function, String> {
    let signature = signature(f)?;
    let region = f.region(0).map_err(|e| e.to_string())?;
    let block = region.first_block().ok_or("no body")?;
    if block.next_in_region().is_some() {
        return Err("host code with several blocks is not supported".into());
    }
    let mut known: HashMap<usize, Known> = HashMap::new();
    for (i, s) in signature.inputs.iter().enumerate() {
        let v: Value = block.argument(i).map_err(|e| e.to_string())?.into();
        known.insert(
            ir::key(v),
            match s {
                Slot::Index => Known::IndexArg(i),
                Slot::MemRef { .. } => Known::Buffer(Buffer::Arg(i)),
            },
        );
    }
    let lookup = |known: &HashMap<usize, Known>, v: Value| -> Result<Known, String> {
        known
            .get(&ir::key(v))
            .copied()
            .ok_or_else(|| "a value the host does not know is used".to_string())
    };
    let int_of = |known: &HashMap<usize, Known>, v: Value| -> Result<u32, String> {
        match lookup(known, v)? {
            Known::Bits { int: Some(x), .. } if (0..=u32::MAX as i64).contains(&x) => Ok(x as u32),
            _ => Err("launch sizes must be constants".into()),
        }
    };
    let mut steps = vec![];
    let mut results = None;
    let mut locals = 0usize;
    let mut op = block.first_operation();
    while let Some(o) = op {
        let opname = ir::name(&o);
        let result = |k: usize| -> Result<Value, String> {
            o.result(k).map(Value::from).map_err(|e| e.to_string())
        };
        match opname.as_str() {
            "arith.constant" => {
                let v = result(0)?;
                let t = v.r#type();
                let a = o.attribute("value").map_err(|_| "a constant without a value")?;
                let k = if t.is_index() || t.is_integer() {
                    let x = attr::int_value(a).ok_or("an integer constant without an integer")?;
                    Known::Bits { bits: x as u64, bytes: 8, int: Some(x) }
                } else if t.is_f32() {
                    let x = attr::number_value(a).ok_or("a float constant without a number")?;
                    Known::Bits { bits: (x as f32).to_bits() as u64, bytes: 4, int: None }
                } else if t.is_f64() {
                    let x = attr::number_value(a).ok_or("a float constant without a number")?;
                    Known::Bits { bits: x.to_bits(), bytes: 8, int: None }
                } else {
                    return Err(format!("a host constant of type {t} is not supported"));
                };
                known.insert(ir::key(v), k);
            }
            "memref.alloc" => {
                let v = result(0)?;
                let bytes = slot(v.r#type())?.bytes();
                steps.push(Step::Alloc { id: locals, bytes });
                known.insert(ir::key(v), Known::Buffer(Buffer::Local(locals)));
                locals += 1;
            }
            "memref.dealloc" => {
                let v = o.operand(0).map_err(|e| e.to_string())?;
                match lookup(&known, v)? {
                    Known::Buffer(Buffer::Local(id)) => steps.push(Step::Free { id }),
                    _ => return Err("only the function's own buffers can be freed".into()),
                }
            }
            "memref.get_global" => {
                let v = result(0)?;
                let g = o.attribute("name").map_err(|_| "get_global without a name")?.to_string();
                let g = g.trim_start_matches('@');
                let i = *globals.get(g).ok_or_else(|| format!("no constant @{g}"))?;
                known.insert(ir::key(v), Known::Buffer(Buffer::Global(i)));
            }
            "gpu.launch_func" => {
                let kernel = o.attribute("kernel").map_err(|_| "launch_func without a kernel")?.to_string();
                // `@module::@kernel`
                let (m, k) = kernel
                    .split_once("::")
                    .ok_or_else(|| format!("unexpected kernel reference {kernel}"))?;
                let (m, k) = (m.trim_start_matches('@'), k.trim_start_matches('@'));
                let module = *modules.get(m).ok_or_else(|| format!("no gpu.binary @{m}"))?;
                let segments: Vec<usize> = o
                    .attribute("operandSegmentSizes")
                    .map_err(|_| "launch_func without operand segments")?
                    .to_string()
                    .trim_start_matches("array<i32:")
                    .trim_end_matches('>')
                    .split(',')
                    .map(|s| s.trim().parse::<usize>().map_err(|_| "bad operand segments".to_string()))
                    .collect::<Result<_, _>>()?;
                // async deps, grid x y z, block x y z, cluster x y z,
                // dynamic shared memory, kernel operands, async object.
                if segments.len() < 12 || segments[0] != 0 || segments[7..10].iter().any(|&s| s != 0) {
                    return Err("asynchronous or clustered launches are not supported".into());
                }
                let operands: Vec<Value> = o.operands().collect();
                let mut sizes = [0u32; 6];
                for (j, s) in sizes.iter_mut().enumerate() {
                    *s = int_of(&known, operands[j])?;
                }
                let mut at = 6;
                let shared_bytes = if segments[10] == 1 {
                    at += 1;
                    int_of(&known, operands[6])?
                } else {
                    0
                };
                let args = operands[at..at + segments[11]]
                    .iter()
                    .map(|v| {
                        Ok(match lookup(&known, *v)? {
                            Known::Buffer(b) => Arg::Buffer(b),
                            Known::IndexArg(i) => Arg::IndexArg(i),
                            Known::Bits { bits, bytes, .. } => Arg::Bits { bits, bytes },
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                steps.push(Step::Launch {
                    module,
                    kernel: k.to_string(),
                    grid: [sizes[0], sizes[1], sizes[2]],
                    block: [sizes[3], sizes[4], sizes[5]],
                    shared_bytes,
                    args,
                });
            }
            "func.return" => {
                let mut rs = vec![];
                for v in o.operands() {
                    rs.push(match lookup(&known, v)? {
                        Known::Buffer(b) => Output::Buffer(b),
                        Known::IndexArg(i) => Output::IndexArg(i),
                        Known::Bits { int: Some(x), .. } => Output::Index(x),
                        Known::Bits { .. } => return Err("a float constant cannot be returned".into()),
                    });
                }
                results = Some(rs);
            }
            other => {
                return Err(format!(
                    "'{other}' on the host is not supported (the GPU runtime runs allocations, kernel launches and frees)"
                ))
            }
        }
        op = o.next_in_block();
    }
    Ok(Function {
        name: name.to_string(),
        signature,
        args: arg_info(f),
        steps,
        results: results.ok_or("no return")?,
    })
}
