//! `ocannl-run FILE --entry F`: compiles a module of `ocannl_shape` tensor
//! expressions through the full pipeline (shape inference, assignments,
//! loops, LLVM) with MLIR's JIT and runs function `F`, like upstream's
//! `mlir-runner`.
//!
//! Arguments come from `.npy` files (`--arg x.npy`), or are generated
//! (`--arg range`, `--arg random:SEED`), or are integers for `index`
//! arguments. A tensor `B|I->O` is an array of shape (B..., O..., I...) in
//! row-major order. Results are printed and/or written as `.npy` files
//! (`--out-dir DIR`: `result0.npy`, ...).

use std::{
    ffi::c_void,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use clap::Parser;
use melior::{
    ir::{
        attribute::{StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
        r#type::FunctionType,
        Attribute, Module, OperationRef, Type,
    },
    pass::PassManager,
    ExecutionEngine,
};

// The tools' allocator (see tools/ocannl-opt).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "ocannl-run",
    about = "JIT-compile and run a function of an ocannl_shape module"
)]
struct Cli {
    /// The module (`-` for stdin).
    file: PathBuf,
    /// The function to run.
    #[arg(long, short = 'e')]
    entry: String,
    /// One per argument, in order: a `.npy` file, `range`, `random:SEED`, or
    /// an integer (for `index` arguments).
    #[arg(long = "arg")]
    args: Vec<String>,
    /// Write the results as `result0.npy`, ... in this directory.
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// Do not print the results.
    #[arg(long)]
    quiet: bool,
    /// Run the entry this many times and report the per-run time.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Report the compile time of each pipeline stage.
    #[arg(long)]
    time_phases: bool,
    /// LLVM optimization level of the JIT.
    #[arg(long, default_value_t = 3)]
    opt_level: usize,
    /// Run the assignments with the reference interpreter instead of
    /// compiling them.
    #[arg(long)]
    interpret: bool,
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    if let Err(e) = run(&cli) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

/// A memref argument or result: its element type, sizes and data.
#[derive(Clone, Debug)]
struct Array {
    f64: bool,
    dims: Vec<u64>,
    data: Vec<f64>,
}

/// The type of an argument or result of the lowered entry.
#[derive(Clone, Debug)]
enum Slot {
    Index,
    MemRef { f64: bool, dims: Vec<u64> },
}

fn slot_of(t: Type) -> Result<Slot, String> {
    let text = t.to_string();
    if text == "index" {
        return Ok(Slot::Index);
    }
    let inner = text
        .strip_prefix("memref<")
        .and_then(|s| s.strip_suffix('>'))
        .ok_or_else(|| format!("unsupported type {text}"))?;
    let mut parts: Vec<&str> = inner.split('x').collect();
    let elt = parts.pop().unwrap_or("");
    let f64 = match elt {
        "f32" => false,
        "f64" => true,
        other => {
            return Err(format!(
                "unsupported element type {other} (f32 and f64 are supported)"
            ))
        }
    };
    let dims = parts
        .iter()
        .map(|d| {
            d.parse::<u64>()
                .map_err(|_| format!("dynamic sizes are not supported in {text}"))
        })
        .collect::<Result<_, _>>()?;
    Ok(Slot::MemRef { f64, dims })
}

fn run(cli: &Cli) -> Result<(), String> {
    let mut phases: Vec<(&str, Duration)> = vec![];
    let t = Instant::now();
    let context = ocannl_passes::new_context()?;
    melior::utility::register_all_llvm_translations(&context);
    // Diagnostics as `FILE:LINE:COL: error: message`.
    // `loc("f.mlir":3:5)` as `f.mlir:3:5`.
    let place = |l: melior::ir::Location| {
        let l = l.to_string();
        l.strip_prefix("loc(")
            .and_then(|l| l.strip_suffix(')'))
            .unwrap_or(&l)
            .replace('"', "")
    };
    context.attach_diagnostic_handler(move |d| {
        eprintln!(
            "{}: {}: {d}",
            place(d.location()),
            format!("{:?}", d.severity()).to_lowercase()
        );
        for i in 0..d.note_count() {
            if let Ok(n) = d.note(i) {
                eprintln!("{}: note: {n}", place(n.location()));
            }
        }
        true
    });
    let path = if cli.file.as_os_str() == "-" {
        let mut src = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut src)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        let tmp = std::env::temp_dir().join(format!("ocannl-run-{}.mlir", std::process::id()));
        std::fs::write(&tmp, src).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        tmp
    } else {
        cli.file.clone()
    };
    let name = path.to_string_lossy().into_owned();
    let raw = unsafe {
        mlir_sys::mlirModuleCreateParseFromFile(
            context.to_raw(),
            melior::StringRef::new(&name).to_raw(),
        )
    };
    if raw.ptr.is_null() {
        return Err(format!("{name}: cannot parse the module"));
    }
    let mut module = unsafe { Module::from_raw(raw) };
    phases.push(("parse", t.elapsed()));

    let stages: [(&str, String); 4] = [
        (
            "ocannl-infer-shapes",
            "builtin.module(ocannl-verify,ocannl-infer-shapes)".into(),
        ),
        (
            "ocannl-lower-to-assign",
            "builtin.module(ocannl-lower-to-assign)".into(),
        ),
        (
            "ocannl-lower-to-loops",
            "builtin.module(ocannl-lower-to-loops,func.func(canonicalize,cse))".into(),
        ),
        (
            "to-llvm",
            format!("builtin.module({})", ocannl_passes::LOOPS_TO_LLVM),
        ),
    ];
    let mut signature = None;
    for (stage, pipeline) in &stages {
        if cli.interpret && *stage == "ocannl-lower-to-loops" {
            return interpret(cli, &module, &phases);
        }
        if *stage == "to-llvm" {
            signature = Some(entry_signature(&module, &cli.entry)?);
            mark_c_interface(&module, &cli.entry)?;
        }
        let t = Instant::now();
        let pm = PassManager::new(&context);
        melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), pipeline)
            .map_err(|e| format!("internal error: bad pipeline {pipeline}: {e}"))?;
        pm.run(&mut module)
            .map_err(|_| format!("{name}: {stage} failed"))?;
        phases.push((stage, t.elapsed()));
    }
    let (inputs, outputs) = signature.expect("signature read before lowering to LLVM");

    let t = Instant::now();
    // Parallel loops call the OpenMP runtime, which the JIT loads.
    let mut parallel = false;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        parallel |= op
            .name()
            .as_string_ref()
            .as_str()
            .is_ok_and(|n| n.starts_with("omp."));
        WalkResult::Advance
    });
    let omp = openmp_runtime();
    let mut libs: Vec<&str> = vec![];
    if parallel {
        if !Path::new(omp.trim_end_matches('\0')).exists() {
            return Err(format!(
                "{name}: the program has parallel loops, but the OpenMP runtime {} is missing \
                 (install libomp-22-dev, or set OCANNL_OPENMP_LIB)",
                omp.trim_end_matches('\0')
            ));
        }
        libs.push(&omp);
    }
    let engine = ExecutionEngine::new(&module, cli.opt_level, &libs, false, false);
    let f = engine.lookup(&format!("_mlir_ciface_{}", cli.entry));
    if f.is_null() {
        return Err(format!(
            "{name}: no function @{} after compilation",
            cli.entry
        ));
    }
    phases.push(("jit", t.elapsed()));

    let (arrays, scalars) = make_args(cli, &inputs)?;

    // Descriptors: {allocated, aligned, offset, sizes..., strides...}.
    let mut storage: Vec<Vec<u8>> = arrays
        .iter()
        .map(|a| a.as_ref().map(to_bytes).unwrap_or_default())
        .collect();
    let mut descriptors: Vec<Vec<i64>> = vec![];
    for (a, bytes) in arrays.iter().zip(storage.iter_mut()) {
        match a {
            Some(a) => {
                let ptr = bytes.as_mut_ptr() as i64;
                let mut d = vec![ptr, ptr, 0];
                d.extend(a.dims.iter().map(|&x| x as i64));
                d.extend(
                    ocannl_assign::row_major_strides(&a.dims)
                        .into_iter()
                        .map(|s| s as i64),
                );
                descriptors.push(d);
            }
            None => descriptors.push(vec![]),
        }
    }
    let result_words: usize = outputs
        .iter()
        .map(|s| match s {
            Slot::MemRef { dims, .. } => 3 + 2 * dims.len(),
            Slot::Index => 1,
        })
        .sum();
    let mut result = vec![0i64; result_words.max(1)];

    let mut times = vec![];
    for run in 0..cli.repeat.max(1) {
        if run > 0 && !outputs.is_empty() {
            // Results are fresh buffers: free the previous run's.
            free_results(&result, &outputs);
        }
        let mut call_args: Vec<usize> = vec![];
        if !outputs.is_empty() {
            call_args.push(result.as_mut_ptr() as usize);
        }
        for (d, s) in descriptors.iter_mut().zip(&scalars) {
            if d.is_empty() {
                call_args.push(*s as usize);
            } else {
                call_args.push(d.as_mut_ptr() as usize);
            }
        }
        let t = Instant::now();
        unsafe { call(f as *const c_void, &call_args)? };
        times.push(t.elapsed());
    }

    // Results.
    let mut off = 0;
    for (k, slot) in outputs.iter().enumerate() {
        match slot {
            Slot::Index => {
                if !cli.quiet {
                    println!("result{k}: index {}", result[off]);
                }
                off += 1;
            }
            Slot::MemRef { f64, dims } => {
                let words = &result[off..off + 3 + 2 * dims.len()];
                off += 3 + 2 * dims.len();
                emit_result(cli, k, &read_result(words, *f64, dims))?;
            }
        }
    }
    if cli.repeat > 1 {
        let mut sorted = times.clone();
        sorted.sort();
        let median = sorted[sorted.len() / 2];
        println!(
            "runs: {}, median {:.4} ms, min {:.4} ms",
            sorted.len(),
            ms(median),
            ms(sorted[0])
        );
    }
    if cli.time_phases {
        for (stage, d) in &phases {
            println!("phase {stage}: {:.3} ms", ms(*d));
        }
    }
    Ok(())
}

/// Prints a result and writes it to the output directory.
fn emit_result(cli: &Cli, k: usize, arr: &Array) -> Result<(), String> {
    if !cli.quiet {
        println!(
            "result{k}: shape {:?} dtype {}",
            arr.dims,
            if arr.f64 { "f64" } else { "f32" }
        );
        println!("{}", format_array(arr));
    }
    if let Some(dir) = &cli.out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        write_npy(&dir.join(format!("result{k}.npy")), arr)?;
    }
    Ok(())
}

/// The arguments from the command line: arrays for memrefs, integers for
/// indices (0 in the other list).
fn make_args(cli: &Cli, inputs: &[Slot]) -> Result<(Vec<Option<Array>>, Vec<i64>), String> {
    if cli.args.len() != inputs.len() {
        return Err(format!(
            "@{} takes {} argument(s) but {} --arg were given",
            cli.entry,
            inputs.len(),
            cli.args.len()
        ));
    }
    let mut arrays: Vec<Option<Array>> = vec![];
    let mut scalars: Vec<i64> = vec![];
    for (i, (spec, slot)) in cli.args.iter().zip(inputs).enumerate() {
        match slot {
            Slot::Index => {
                let v = spec.parse::<i64>().map_err(|_| {
                    format!("argument #{i} is an index: expected an integer, found {spec:?}")
                })?;
                scalars.push(v);
                arrays.push(None);
            }
            Slot::MemRef { f64, dims } => {
                scalars.push(0);
                arrays.push(Some(make_arg(i, spec, *f64, dims)?));
            }
        }
    }
    Ok((arrays, scalars))
}

/// Runs the entry's assignments with the reference interpreter.
fn interpret(cli: &Cli, module: &Module, phases: &[(&str, Duration)]) -> Result<(), String> {
    let (inputs, outputs) = entry_signature(module, &cli.entry)?;
    let routine = ocannl_assign_dialect::to_routine(find_entry(module, &cli.entry)?)?;
    let (arrays, scalars) = make_args(cli, &inputs)?;
    let values: Vec<ocannl_assign::Value> = arrays
        .into_iter()
        .zip(scalars)
        .map(|(a, s)| match a {
            Some(a) => ocannl_assign::Value::Buffer {
                dims: a.dims,
                data: a.data,
            },
            None => ocannl_assign::Value::Index(s),
        })
        .collect();
    let mut results = vec![];
    let mut times = vec![];
    for _ in 0..cli.repeat.max(1) {
        let t = Instant::now();
        results = ocannl_assign::run(&routine, &values).map_err(|e| format!("interpreter: {e}"))?;
        times.push(t.elapsed());
    }
    for (k, (r, slot)) in results.into_iter().zip(&outputs).enumerate() {
        let f64 = matches!(slot, Slot::MemRef { f64: true, .. });
        if let ocannl_assign::Value::Buffer { dims, data } = r {
            // The interpreter computes in f64; an f32 result is rounded.
            let data = if f64 {
                data
            } else {
                data.into_iter().map(|x| x as f32 as f64).collect()
            };
            emit_result(cli, k, &Array { f64, dims, data })?;
        }
    }
    if cli.repeat > 1 {
        times.sort();
        println!(
            "runs: {}, median {:.4} ms, min {:.4} ms",
            times.len(),
            ms(times[times.len() / 2]),
            ms(times[0])
        );
    }
    if cli.time_phases {
        for (stage, d) in phases {
            println!("phase {stage}: {:.3} ms", ms(*d));
        }
    }
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn find_entry<'c, 'm>(module: &'m Module<'c>, entry: &str) -> Result<OperationRef<'c, 'm>, String> {
    let body = module.body();
    let mut op = body.first_operation();
    while let Some(o) = op {
        if o.name().as_string_ref().as_str() == Ok("func.func") {
            if let Ok(a) = o.attribute("sym_name") {
                if let Ok(s) = StringAttribute::try_from(a) {
                    if s.value() == entry {
                        return Ok(o);
                    }
                }
            }
        }
        op = o.next_in_block();
    }
    Err(format!("no function @{entry} in the module"))
}

/// The argument and result slots of the entry after lowering to loops.
fn entry_signature(module: &Module, entry: &str) -> Result<(Vec<Slot>, Vec<Slot>), String> {
    let f = find_entry(module, entry)?;
    let ft = f
        .attribute("function_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())
        .map(|t| t.value())
        .ok_or("no function type")?;
    let ft = FunctionType::try_from(ft).map_err(|_| "no function type")?;
    let ins = (0..ft.input_count())
        .map(|i| slot_of(ft.input(i).map_err(|e| e.to_string())?))
        .collect::<Result<_, _>>()?;
    let outs = (0..ft.result_count())
        .map(|i| slot_of(ft.result(i).map_err(|e| e.to_string())?))
        .collect::<Result<_, _>>()?;
    Ok((ins, outs))
}

fn mark_c_interface(module: &Module, entry: &str) -> Result<(), String> {
    let f = find_entry(module, entry)?;
    let ctx = module.context();
    let mut f = unsafe { melior::ir::operation::OperationRefMut::from_raw(f.to_raw()) };
    f.set_attribute(
        "llvm.emit_c_interface",
        Attribute::unit(unsafe { ctx.to_ref() }),
    );
    Ok(())
}

fn make_arg(i: usize, spec: &str, f64: bool, dims: &[u64]) -> Result<Array, String> {
    let n: u64 = dims.iter().product();
    if spec == "range" {
        return Ok(Array {
            f64,
            dims: dims.to_vec(),
            data: (0..n).map(|x| x as f64).collect(),
        });
    }
    if let Some(seed) = spec.strip_prefix("random:") {
        let seed: u64 = seed.parse().map_err(|_| {
            format!("argument #{i}: expected random:SEED with an integer seed, found {spec:?}")
        })?;
        let mut state = seed;
        let data = (0..n)
            .map(|_| {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                (z >> 40) as f64 / 16_777_216.0
            })
            .collect();
        return Ok(Array {
            f64,
            dims: dims.to_vec(),
            data,
        });
    }
    let arr = read_npy(spec).map_err(|e| format!("argument #{i}: {e}"))?;
    if arr.dims != dims {
        return Err(format!(
            "argument #{i}: {spec} has shape {:?} but the argument's tensor needs {:?} (batch, output, input)",
            arr.dims, dims
        ));
    }
    if arr.f64 != f64 {
        return Err(format!(
            "argument #{i}: {spec} holds {} but the argument's tensor is {}",
            if arr.f64 { "float64" } else { "float32" },
            if f64 { "f64" } else { "f32" }
        ));
    }
    Ok(arr)
}

fn read_npy(path: &str) -> Result<Array, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let npy =
        npyz::NpyFile::new(&bytes[..]).map_err(|e| format!("{path} is not a .npy file: {e}"))?;
    let dims = npy.shape().to_vec();
    if npy.order() != npyz::Order::C {
        return Err(format!(
            "{path} is in Fortran order; only C order is supported"
        ));
    }
    let descr = npy.dtype().descr();
    let (f64, data) = match descr.trim_matches('\'') {
        "<f4" => (
            false,
            npy.into_vec::<f32>()
                .map_err(|e| format!("{path}: {e}"))?
                .into_iter()
                .map(f64::from)
                .collect(),
        ),
        "<f8" => (
            true,
            npy.into_vec::<f64>().map_err(|e| format!("{path}: {e}"))?,
        ),
        other => {
            return Err(format!(
                "{path} has dtype {other}; float32 (<f4) and float64 (<f8) are supported"
            ))
        }
    };
    Ok(Array { f64, dims, data })
}

fn write_npy(path: &std::path::Path, a: &Array) -> Result<(), String> {
    use npyz::WriterBuilder;
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let w = std::io::BufWriter::new(file);
    let err = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    if a.f64 {
        let mut out = npyz::WriteOptions::<f64>::new()
            .default_dtype()
            .shape(&a.dims)
            .writer(w)
            .begin_nd()
            .map_err(err)?;
        out.extend(a.data.iter().copied()).map_err(err)?;
        out.finish().map_err(err)
    } else {
        let mut out = npyz::WriteOptions::<f32>::new()
            .default_dtype()
            .shape(&a.dims)
            .writer(w)
            .begin_nd()
            .map_err(err)?;
        out.extend(a.data.iter().map(|&x| x as f32)).map_err(err)?;
        out.finish().map_err(err)
    }
}

fn to_bytes(a: &Array) -> Vec<u8> {
    if a.f64 {
        a.data.iter().flat_map(|x| x.to_ne_bytes()).collect()
    } else {
        a.data
            .iter()
            .flat_map(|&x| (x as f32).to_ne_bytes())
            .collect()
    }
}

fn read_result(words: &[i64], f64: bool, dims: &[u64]) -> Array {
    let aligned = words[1] as *const u8;
    let offset = words[2] as usize;
    let rank = dims.len();
    let strides: Vec<i64> = words[3 + rank..3 + 2 * rank].to_vec();
    let n: u64 = dims.iter().product();
    let mut data = Vec::with_capacity(n as usize);
    let mut idx = vec![0u64; rank];
    for _ in 0..n {
        let lin: i64 = idx
            .iter()
            .zip(&strides)
            .map(|(&i, &s)| i as i64 * s)
            .sum::<i64>()
            + offset as i64;
        let v = unsafe {
            if f64 {
                *(aligned as *const f64).offset(lin as isize)
            } else {
                *(aligned as *const f32).offset(lin as isize) as f64
            }
        };
        data.push(v);
        for k in (0..rank).rev() {
            idx[k] += 1;
            if idx[k] < dims[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    Array {
        f64,
        dims: dims.to_vec(),
        data,
    }
}

fn free_results(words: &[i64], outputs: &[Slot]) {
    let mut off = 0;
    for s in outputs {
        if let Slot::MemRef { dims, .. } = s {
            unsafe { free(words[off] as *mut c_void) };
            off += 3 + 2 * dims.len();
        } else {
            off += 1;
        }
    }
}

unsafe extern "C" {
    fn free(p: *mut c_void);
}

/// Calls a C-interface function with word-sized arguments.
unsafe fn call(f: *const c_void, a: &[usize]) -> Result<(), String> {
    macro_rules! call_n {
        ($($i:tt),*) => {{
            let g: extern "C" fn($(call_n!(@t $i)),*) = unsafe { std::mem::transmute(f) };
            g($(a[$i]),*)
        }};
        (@t $i:tt) => { usize };
    }
    match a.len() {
        0 => call_n!(),
        1 => call_n!(0),
        2 => call_n!(0, 1),
        3 => call_n!(0, 1, 2),
        4 => call_n!(0, 1, 2, 3),
        5 => call_n!(0, 1, 2, 3, 4),
        6 => call_n!(0, 1, 2, 3, 4, 5),
        7 => call_n!(0, 1, 2, 3, 4, 5, 6),
        8 => call_n!(0, 1, 2, 3, 4, 5, 6, 7),
        n => {
            return Err(format!(
                "entries with {n} arguments and results are not supported (at most 8)"
            ))
        }
    }
    Ok(())
}

/// Prints an array as nested lists, numpy style.
fn format_array(a: &Array) -> String {
    fn rec(out: &mut String, data: &[f64], dims: &[u64], depth: usize) {
        if dims.is_empty() {
            out.push_str(&fmt_num(data[0]));
            return;
        }
        let step: usize = dims[1..].iter().product::<u64>() as usize;
        out.push('[');
        for i in 0..dims[0] as usize {
            if i > 0 {
                out.push_str(if dims.len() > 1 { ",\n" } else { ", " });
                if dims.len() > 1 {
                    out.push_str(&" ".repeat(depth + 1));
                }
            }
            rec(out, &data[i * step..(i + 1) * step], &dims[1..], depth + 1);
        }
        out.push(']');
    }
    if a.data.len() > 10_000 {
        return format!("({} values)", a.data.len());
    }
    let mut s = String::new();
    rec(&mut s, &a.data, &a.dims, 0);
    s
}

fn fmt_num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x:.6}")
    }
}

/// The OpenMP runtime library for parallel loops: `OCANNL_OPENMP_LIB`, or
/// LLVM's `libomp.so` beside the MLIR the tool was built with. NUL-terminated,
/// as the execution engine reads it as a C string.
fn openmp_runtime() -> String {
    let path = std::env::var("OCANNL_OPENMP_LIB").unwrap_or_else(|_| {
        let prefix = option_env!("MLIR_SYS_220_PREFIX").unwrap_or("/usr/lib/llvm-22");
        format!("{prefix}/lib/libomp.so")
    });
    format!("{path}\0")
}
