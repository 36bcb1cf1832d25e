//! `ocannl-run FILE --entry F`: compiles a module of `ocannl_shape` tensor
//! expressions through the full pipeline (shape inference, assignments,
//! loops, LLVM) with the backend's JIT and runs function `F`, like upstream's
//! `mlir-runner`.
//!
//! Arguments come from `.npy` files (`--arg x.npy`), or are generated
//! (`--arg range`, `--arg random:SEED`, `--arg fill:X`), or are integers for `index`
//! arguments. A tensor `B|I->O` is an array of shape (B..., O..., I...) in
//! row-major order. Results are printed and/or written as `.npy` files
//! (`--out-dir DIR`: `result0.npy`, ...).
//!
//! `--device NAME` runs on another registered backend (found by name in
//! `ocannl_passes`'s registry, and run through `ocannl-runtime`'s
//! interface): `--device cuda` runs on an NVIDIA GPU, the loops lowered for
//! the GPU target, compiled to PTX (`ocannl-loops-to-nvvm`) and run through
//! the CUDA driver (`ocannl-gpu-runtime`). A backend that cannot run here
//! (no GPU or no driver) says so in one line and the tool exits with 1.

use std::{
    path::PathBuf,
    time::{Duration, Instant},
};

use clap::Parser;
use melior::ir::{Module, OperationRef};
use ocannl_assign::optim::Optimizer;
use ocannl_compiler::{CacheUse, Compiler, Job};
use ocannl_passes::{pipelines, Backend, Pipeline};
use ocannl_runtime::{CompileOptions, Elt, Executable, HostTensor, HostValue, Slot};

mod diagnostics;

// The tools' allocator (see tools/ocannl-opt).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "ocannl-run",
    about = "JIT-compile and run a function of an ocannl_shape module",
    // `--arg -1` is an index argument, not a flag.
    allow_negative_numbers = true
)]
struct Cli {
    /// The module (`-` for stdin).
    file: PathBuf,
    /// The function to run.
    #[arg(long, short = 'e')]
    entry: String,
    /// One per argument, in order: a `.npy` file, a `.safetensors` file of
    /// one tensor (or `FILE.safetensors:NAME`), `range`, `random:SEED`,
    /// `fill:X` (every cell X), or an integer (for `index` arguments;
    /// negative ones as `--arg -1` or `--arg=-1`).
    #[arg(long = "arg")]
    args: Vec<String>,
    /// Write the results as `result0.npy`, ... in this directory (created,
    /// with its parents, before the run); a bf16 result as
    /// `result0.safetensors` (numpy has no bfloat16).
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// Do not print the results.
    #[arg(long)]
    quiet: bool,
    /// Run the entry this many times and report the per-run time.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Report the compile time of each pipeline stage and of the backend's
    /// phases, and what the backend counted compiling (`count NAME: N`: the
    /// CPU's parts, those compiled and those taken from the cache).
    #[arg(long)]
    time_phases: bool,
    /// Time every kernel the entry calls and print the slowest ones after
    /// the runs: calls, time, GFLOP/s (a contraction) or GB/s, and the
    /// share of the machine's multiply-add roof (`--backend-option
    /// profile=on`; `OCANNL_PROFILE=1` profiles without printing)
    #[arg(long)]
    profile: bool,
    /// With `--profile`: how many kernels to print
    #[arg(long, default_value_t = 15, requires = "profile")]
    profile_top: usize,
    /// LLVM optimization level of the JIT (0 to 3), for all the code; by
    /// default the backend's choice (the CPU: 3, and for a module with
    /// outlined kernels at most 2 for contractions and 1 for the rest).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: Option<u8>,
    /// The most memory the entry's buffers may take at once, in bytes
    /// (suffixes K, M, G, T: powers of 1024), or `none`; by default the
    /// machine's physical memory. A run that would need more stops before
    /// it starts.
    #[arg(long, value_parser = parse_memory_limit)]
    memory_limit: Option<MemoryLimit>,
    /// Run the assignments with the reference interpreter instead of
    /// compiling them.
    #[arg(long)]
    interpret: bool,
    /// Do not optimize the assignments (no `ocannl-virtualize`): every
    /// tensor node gets a buffer.
    #[arg(long)]
    no_optimize: bool,
    /// Report, on stderr, what the entry's lowered code holds: buffers
    /// (`memref.alloc`), loop nests, and the most bytes its buffers take at
    /// once.
    #[arg(long)]
    stats: bool,
    /// Lower for training: params as arguments, backprop and an optimizer
    /// step (`ocannl-autodiff`, `ocannl-train-step`), so that `--entry
    /// F_train_step` runs a train step of `F` (its arguments: the data, the
    /// params, the optimizer's state, the learning rate; with `--repeat`,
    /// each run continues from the params and state the previous one left).
    #[arg(long)]
    train: bool,
    /// With `--train`: the optimizer, `sgd`, `adam` or `adamw`.
    #[arg(long, requires = "train", default_value = "sgd")]
    optimizer: String,
    /// With `--train`: an option of the optimizer, `KEY=VALUE`
    /// (repeatable), as `ocannl-train-step` takes them: `momentum`,
    /// `nesterov`, `weight-decay`, `beta1`, `beta2`, `eps`, `clip-norm`.
    #[arg(long = "optimizer-option", value_name = "KEY=VALUE", requires = "train", value_parser = parse_backend_option)]
    optimizer_options: Vec<(String, String)>,
    /// With `--out-dir`: also write the buffer arguments as they are after
    /// the runs (a train step's updated params and optimizer state), as
    /// `arg0.npy`, ... (index arguments are skipped).
    #[arg(long, requires = "out_dir")]
    out_args: bool,
    /// Where to run: the name of a registered backend, `cpu` (LLVM's JIT)
    /// or `cuda` (an NVIDIA GPU through the CUDA driver).
    #[arg(long, default_value = DEFAULT_DEVICE)]
    device: String,
    /// A backend's own option, `KEY=VALUE` (repeatable): `chip=sm_80` and
    /// `ptx=80` for `cuda`, `openmp=PATH` for `cpu`; a key the backend does
    /// not know is an error naming the ones it does.
    #[arg(long = "backend-option", value_name = "KEY=VALUE", value_parser = parse_backend_option)]
    backend_options: Vec<(String, String)>,
    /// `--backend-option chip=CHIP`: the GPU architecture the PTX is
    /// generated for (default: the device's own, or sm_90 without a GPU).
    /// With `--emit-artifact`, repeatable: the artifact holds PTX for each.
    #[arg(long)]
    chip: Vec<String>,
    /// `--backend-option ptx=N`: the PTX ISA version times ten (default:
    /// the first version that knows the chip).
    #[arg(long)]
    ptx: Option<u32>,
    /// Compile and print what the backend does to run the entry instead of
    /// running it (`cuda`: the host's allocations, kernel launches with
    /// their grids and arguments, frees and results; no GPU needed).
    #[arg(long)]
    print_schedule: bool,
    /// Compile the entry ahead of time into one artifact file instead of
    /// running it (`cuda`: its PTX for each `--chip` and its host schedule,
    /// which `ocannl-gpu` runs without MLIR; no GPU needed). Written
    /// atomically.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["print_schedule", "interpret", "grad_check"])]
    emit_artifact: Option<PathBuf>,
    /// Compile the entry (through the compilation cache) and stop: nothing
    /// runs and no `--arg` is needed. With `--time-phases`, the compile's
    /// phases are reported.
    #[arg(long, conflicts_with_all = ["interpret", "grad_check", "print_schedule", "emit_artifact"])]
    compile_only: bool,
    /// Print the device `--device` names (or why it cannot run here: exit
    /// 1) and exit.
    #[arg(long)]
    device_info: bool,
    /// Check the gradients of the entry's first result (summed) with
    /// respect to its params: backprop (`ocannl-autodiff`) against central
    /// finite differences, both in f64 with the reference interpreter, and
    /// the compiled backprop against the interpreted one. `--arg` gives the
    /// data arguments; params are initialized by the module.
    #[arg(long)]
    grad_check: bool,
}

/// The backend `--device` names by default.
const DEFAULT_DEVICE: &str = "cpu";

/// `--backend-option KEY=VALUE` (and `--optimizer-option`).
fn parse_backend_option(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected KEY=VALUE, found {s:?}")),
    }
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
type Array = HostTensor;

/// The stages up to optimized assignments, each timed: shape inference,
/// the lowering to assignments (for training with `--train`), each
/// optimization.
fn stages(cli: &Cli) -> Result<Vec<Pipeline>, String> {
    let mut s = vec![
        pipelines::infer_shapes(),
        if cli.train {
            pipelines::train(None, Some(&cli.optimizer()?))
        } else {
            pipelines::lower_to_assign(false)
        },
    ];
    s.extend(cli.optimize().split());
    Ok(s)
}

/// `--memory-limit`: bytes, or no limit.
#[derive(Clone, Copy, Debug)]
enum MemoryLimit {
    Bytes(u64),
    None,
}

fn parse_memory_limit(s: &str) -> Result<MemoryLimit, String> {
    if s == "none" {
        return Ok(MemoryLimit::None);
    }
    let (digits, scale) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("unknown suffix '{c}' (K, M, G or T)")),
            };
            (&s[..i], 1u64 << shift)
        }
        _ => (s, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .map(MemoryLimit::Bytes)
        .ok_or_else(|| {
            format!("expected a number of bytes (with K, M, G or T) or `none`, found {s:?}")
        })
}

impl Cli {
    /// `--optimizer` with its `--optimizer-option`s.
    fn optimizer(&self) -> Result<Optimizer, String> {
        use ocannl_passes::transforms::train_step::{parse_optimizer, DEF};
        // `--optimizer` names the optimizer; the pass's other options but
        // `split` are its options.
        let names: Vec<&str> = DEF
            .options()
            .iter()
            .map(|o| o.name)
            .filter(|n| !matches!(*n, "optimizer" | "split"))
            .collect();
        for (k, _) in &self.optimizer_options {
            if !names.contains(&k.as_str()) {
                return Err(format!(
                    "--optimizer-option: unknown option '{k}' (expected one of {})",
                    names.join(", ")
                ));
            }
        }
        let mut given = vec![("optimizer", self.optimizer.as_str())];
        given.extend(
            self.optimizer_options
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        );
        parse_optimizer(&given).map_err(|e| format!("--optimizer: {e}"))
    }

    /// The optimizations of the assignments, as a pipeline.
    fn optimize(&self) -> Pipeline {
        if self.no_optimize {
            Pipeline::new()
        } else {
            pipelines::optimize()
        }
    }

    /// The memory limit in bytes (`None`: unlimited).
    fn memory_limit(&self) -> Option<u64> {
        match self.memory_limit {
            Some(MemoryLimit::Bytes(b)) => Some(b),
            Some(MemoryLimit::None) => None,
            None => ocannl_runtime::physical_memory(),
        }
    }

    /// What the backend's compiler is asked for.
    fn compile_options(&self, backend: &dyn Backend) -> CompileOptions {
        let mut options = CompileOptions {
            opt_level: self.opt_level.map(u32::from),
            memory_limit: self.memory_limit(),
            ..backend.default_options()
        };
        if self.profile {
            options.set("profile", "on");
        }
        for (k, v) in &self.backend_options {
            options.set(k, v);
        }
        if let [chip] = &self.chip[..] {
            options.set("chip", chip);
        }
        if let Some(ptx) = self.ptx {
            options.set("ptx", &ptx.to_string());
        }
        options
    }
}

/// A compile step's error, after its diagnostics were printed: prefixed
/// with the input's name.
fn failed(name: &str) -> impl Fn(ocannl_compiler::Error) -> String + '_ {
    move |e| format!("{name}: {e}")
}

fn run(cli: &Cli) -> Result<(), String> {
    let backend = ocannl_compiler::backend(&cli.device).map_err(|e| e.to_string())?;
    if cli.device_info {
        println!("{}", backend.device_info().map_err(|e| e.to_string())?);
        return Ok(());
    }
    if cli.interpret && cli.device != DEFAULT_DEVICE {
        return Err(format!(
            "--interpret runs the reference interpreter: drop --device {}",
            cli.device
        ));
    }
    if cli.chip.len() > 1 && cli.emit_artifact.is_none() {
        return Err("several --chip are for --emit-artifact (an artifact for several GPUs)".into());
    }
    // A backend that cannot run here: nothing else is worth doing.
    if !cli.print_schedule && cli.emit_artifact.is_none() {
        if let Some(why) = backend.unavailable() {
            return Err(why);
        }
    }
    // The output directory exists before anything runs.
    if let Some(dir) = &cli.out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("--out-dir: cannot create {}: {e}", dir.display()))?;
    }
    let start = Instant::now();
    let mut compiler = Compiler::new(backend, cli.compile_options(backend));
    // The input is read into memory (from stdin with `-`) and parsed under
    // its name; diagnostics show the line they point at.
    let (name, source) = if cli.file.as_os_str() == "-" {
        let mut src = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut src)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        ("<stdin>".to_string(), src)
    } else {
        let name = cli.file.to_string_lossy().into_owned();
        let src =
            std::fs::read_to_string(&cli.file).map_err(|e| format!("cannot read {name}: {e}"))?;
        (name, src)
    };
    {
        let (name, source) = (name.clone(), source.clone());
        compiler.on_context(move |c| diagnostics::attach(c, &name, source.clone()));
    }
    if cli.grad_check || cli.interpret || cli.emit_artifact.is_some() {
        // These need the module itself: its steps one at a time, uncached.
        let t = Instant::now();
        let mut module = compiler.parse(&name, &source).map_err(failed(&name))?;
        let mut phases: Vec<(String, Duration)> = vec![("parse".into(), t.elapsed())];
        if cli.grad_check {
            return grad_check(cli, &compiler, &mut module, &name);
        }
        for stage in stages(cli)? {
            let t = Instant::now();
            compiler.lower(&mut module, &stage).map_err(failed(&name))?;
            phases.push((stage.name().to_string(), t.elapsed()));
        }
        find_entry(&module, &cli.entry)?;
        if cli.interpret {
            return interpret(cli, &module, &phases);
        }
        if let Some(path) = &cli.emit_artifact {
            let bytes = compiler
                .artifact(&mut module, &[&cli.entry], &cli.chip)
                .map_err(failed(&name))?;
            return ocannl_runtime::write_atomically(path, |w| w.write_all(&bytes))
                .map_err(|e| e.to_string());
        }
    }
    // The one compile path, through the compilation cache: only the entry
    // (and what it calls) is compiled.
    let job = Job {
        name: &name,
        source: &source,
        stages: stages(cli)?,
        keep: vec![cli.entry.clone()],
        inspected: vec![],
        tag: "ocannl-run 1",
        calls: cli.repeat.max(1) as u64,
        loop_stats: cli.stats,
    };
    let compiled = compiler
        .compile(&job, |_, _| Ok::<_, ocannl_compiler::Error>(vec![]))
        .map_err(failed(&name))?;
    if cli.stats {
        if let Some((_, s)) = compiled.loop_stats.iter().find(|(f, _)| *f == cli.entry) {
            eprintln!(
                "stats: {} buffers, {} loop nests, {} peak buffer bytes",
                s.buffers, s.nests, s.peak_bytes
            );
        }
    }
    let program = compiled.executable;
    let compile_time = start.elapsed();
    let report = |program: &dyn Executable| {
        if cli.time_phases {
            println!("cache: {}", cache_word(compiled.cache));
            println!("compile: {:.3} ms", ms(compile_time));
            for (stage, d) in &compiled.phases {
                println!("phase {stage}: {:.3} ms", ms(*d));
            }
            for (what, n) in program.stats() {
                println!("count {what}: {n}");
            }
        }
    };
    if cli.compile_only {
        report(&*program);
        return Ok(());
    }
    if cli.print_schedule {
        print!(
            "{}",
            program
                .describe(&cli.entry)
                .map_err(|e| format!("--print-schedule: {e}"))?
        );
        return Ok(());
    }
    let sig = program
        .signature(&cli.entry)
        .map_err(|e| e.to_string())?
        .clone();
    let args = make_args(cli, &sig.inputs)?;

    // Only the compiled code is timed: the arguments are put in the
    // backend's memory once, and the last run's results are read after.
    let mut session = program
        .prepare(&cli.entry, &args)
        .map_err(|e| e.to_string())?;
    let mut times = vec![];
    for _ in 0..cli.repeat.max(1) {
        let t = Instant::now();
        session.run().map_err(|e| e.to_string())?;
        times.push(t.elapsed());
    }
    let results = session.results().map_err(|e| e.to_string())?;
    if cli.out_args {
        for (k, slot) in sig.inputs.iter().enumerate() {
            if let (Slot::MemRef { .. }, HostValue::Tensor(t)) =
                (slot, session.get(k).map_err(|e| e.to_string())?)
            {
                write_arg(cli, k, &t)?;
            }
        }
    }
    for (k, r) in results.iter().enumerate() {
        match r {
            HostValue::Index(v) => {
                if !cli.quiet {
                    println!("result{k}: index {v}");
                }
            }
            HostValue::Tensor(t) => emit_result(cli, k, t)?,
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
    if cli.profile {
        match program.profile() {
            Some(p) => print!("{}", p.report(cli.profile_top)),
            None => eprintln!(
                "warning: the {} backend did not profile the entry",
                cli.device
            ),
        }
    }
    report(&*program);
    Ok(())
}

/// `hit`, `miss` or `uncached`.
fn cache_word(c: CacheUse) -> &'static str {
    match c {
        CacheUse::Hit => "hit",
        CacheUse::Miss => "miss",
        CacheUse::Uncached => "uncached",
    }
}

/// `--out-args`: writes argument `k` as it is after the runs.
fn write_arg(cli: &Cli, k: usize, arr: &Array) -> Result<(), String> {
    match &cli.out_dir {
        Some(dir) => ocannl_runtime::args::write_tensor(dir, &format!("arg{k}"), arr)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        None => Ok(()),
    }
}

/// Prints a result and writes it to the output directory.
fn emit_result(cli: &Cli, k: usize, arr: &Array) -> Result<(), String> {
    if !cli.quiet {
        println!("result{k}: shape {:?} dtype {}", arr.dims, arr.elt().name());
        println!("{}", ocannl_runtime::args::format_tensor(arr));
    }
    if let Some(dir) = &cli.out_dir {
        ocannl_runtime::args::write_tensor(dir, &format!("result{k}"), arr)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The arguments from the command line.
fn make_args(cli: &Cli, inputs: &[Slot]) -> Result<Vec<HostValue>, String> {
    make_args_of(&cli.entry, &cli.args, inputs, cli.memory_limit())
}

/// The arguments of `entry` from `--arg` specs (generated tensors no larger
/// than `limit` bytes).
fn make_args_of(
    entry: &str,
    specs: &[String],
    inputs: &[Slot],
    limit: Option<u64>,
) -> Result<Vec<HostValue>, String> {
    ocannl_runtime::args::from_specs(entry, specs, inputs, limit, None).map_err(|e| e.to_string())
}

/// Runs the entry's assignments with the reference interpreter.
fn interpret(cli: &Cli, module: &Module, phases: &[(String, Duration)]) -> Result<(), String> {
    let func = find_entry(module, &cli.entry)?;
    let sig = ocannl_passes::backend::signature(func)?;
    let routine = ocannl_assign_dialect::to_routine(func).map_err(|e| e.to_string())?;
    let args = make_args(cli, &sig.inputs)?;
    let mut values: Vec<ocannl_assign::Value> = args
        .into_iter()
        .map(|a| match a {
            HostValue::Tensor(t) => ocannl_assign::Value::Buffer {
                data: t.to_f64(),
                dims: t.dims,
            },
            HostValue::Index(s) => ocannl_assign::Value::Index(s),
        })
        .collect();
    let mut results = vec![];
    let mut times = vec![];
    for _ in 0..cli.repeat.max(1) {
        let t = Instant::now();
        // Buffers updated in place (a train step's params) carry over to
        // the next run, as in the compiled code.
        results = ocannl_assign::run_mut(&routine, &mut values)
            .map_err(|e| format!("interpreter: {e}"))?;
        times.push(t.elapsed());
    }
    // The interpreter computes in f64; an f32 buffer is rounded.
    let array = |slot: &Slot, v: ocannl_assign::Value| match (slot, v) {
        (Slot::MemRef { elt, .. }, ocannl_assign::Value::Buffer { dims, data }) => {
            Some(Array::from_f64(*elt, dims, data))
        }
        _ => None,
    };
    if cli.out_args {
        for (k, (v, slot)) in values.into_iter().zip(&sig.inputs).enumerate() {
            if let Some(a) = array(slot, v) {
                write_arg(cli, k, &a)?;
            }
        }
    }
    for (k, (r, slot)) in results.into_iter().zip(&sig.outputs).enumerate() {
        if let Some(a) = array(slot, r) {
            emit_result(cli, k, &a)?;
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
    ocannl_mlir::ir::functions_by_name(module.as_operation())
        .remove(entry)
        .ok_or_else(|| format!("no function @{entry} in the module"))
}

/// `--grad-check`: see the option's help.
fn grad_check(
    cli: &Cli,
    compiler: &Compiler,
    module: &mut Module,
    name: &str,
) -> Result<(), String> {
    let stages = [
        (
            "ocannl-infer-shapes",
            pipelines::verify().then(pipelines::infer_shapes()),
        ),
        ("ocannl-lower-to-assign", pipelines::lower_to_assign(true)),
        ("ocannl-autodiff", pipelines::autodiff(None)),
    ];
    for (stage, pipeline) in stages {
        compiler
            .lower(module, &pipeline)
            .map_err(|_| format!("{name}: {stage} failed"))?;
    }
    let entry = &cli.entry;
    let forward_fn = find_entry(module, entry)?;
    let grad_fn = find_entry(module, &format!("{entry}_grad")).map_err(|_| {
        format!("{name}: @{entry} has no params: there is nothing to differentiate")
    })?;
    // In f64 throughout: no buffer rounded to its element type, so that
    // the finite differences see the function, not its rounding.
    let in_f64 = |mut r: ocannl_assign::Routine| {
        r.elts.clear();
        r
    };
    let forward = in_f64(ocannl_assign_dialect::to_routine(forward_fn).map_err(|e| e.to_string())?);
    let backward = in_f64(ocannl_assign_dialect::to_routine(grad_fn).map_err(|e| e.to_string())?);
    let init = ocannl_assign_dialect::to_routine(find_entry(module, &format!("{entry}_init"))?)
        .map_err(|e| e.to_string())?;
    let sig = ocannl_passes::backend::signature(forward_fn)?;
    let n_params = init.args.len();
    let n_data = sig.inputs.len() - n_params;
    // The data from the command line, the params from the module's init.
    let data = make_args_of(entry, &cli.args, &sig.inputs[..n_data], cli.memory_limit())?;
    let mut params: Vec<ocannl_assign::Value> = init
        .args
        .iter()
        .map(|a| match a {
            ocannl_assign::Arg::Buffer { dims } => ocannl_assign::Value::Buffer {
                dims: dims.clone(),
                data: vec![0.0; dims.iter().product::<u64>() as usize],
            },
            ocannl_assign::Arg::Index => ocannl_assign::Value::Index(0),
        })
        .collect();
    ocannl_assign::run_mut(&init, &mut params).map_err(|e| format!("interpreter: {e}"))?;
    let to_value = |h: &HostValue| match h {
        HostValue::Tensor(t) => ocannl_assign::Value::Buffer {
            dims: t.dims.clone(),
            data: t.to_f64(),
        },
        HostValue::Index(i) => ocannl_assign::Value::Index(*i),
    };
    let mut args: Vec<ocannl_assign::Value> = data.iter().map(to_value).collect();
    args.extend(params.iter().cloned());
    let cells = |v: &ocannl_assign::Value| match v {
        ocannl_assign::Value::Buffer { data, .. } => data.clone(),
        ocannl_assign::Value::Index(_) => vec![],
    };
    let loss_of = |a: &[ocannl_assign::Value]| -> Result<f64, String> {
        let out = ocannl_assign::run(&forward, a).map_err(|e| format!("interpreter: {e}"))?;
        Ok(cells(&out[0]).iter().sum())
    };
    let analytic = ocannl_assign::run(&backward, &args).map_err(|e| format!("interpreter: {e}"))?;
    let loss = cells(&analytic[0]).iter().sum::<f64>();
    // Central differences, in f64.
    let h = 1e-5;
    let (mut worst, mut worst_at) = (0.0f64, String::new());
    let mut total = 0;
    for k in 0..n_params {
        let g = cells(&analytic[1 + k]);
        for j in 0..g.len() {
            let at = |delta: f64| -> Result<f64, String> {
                let mut a = args.clone();
                if let ocannl_assign::Value::Buffer { data, .. } = &mut a[n_data + k] {
                    data[j] += delta;
                }
                loss_of(&a)
            };
            let fd = (at(h)? - at(-h)?) / (2.0 * h);
            let err = (g[j] - fd).abs() / 1f64.max(fd.abs()).max(g[j].abs());
            if err > worst {
                worst = err;
                worst_at = format!("param #{k}[{j}]: backprop {} vs {fd}", g[j]);
            }
            total += 1;
        }
    }
    println!("grad-check @{entry}: loss {loss:.6}, {n_params} params, {total} cells");
    let fd_ok = worst <= 1e-4;
    println!(
        "backprop vs finite differences: max relative error {worst:.3e}{}",
        if fd_ok { "" } else { "  FAILED" }
    );
    // The compiled (and optimized) backprop against the interpreted one.
    for stage in cli.optimize().split() {
        compiler.lower(module, &stage).map_err(failed(name))?;
    }
    let grad = format!("{entry}_grad");
    let program = compiler
        .compile_module(module, &[&grad])
        .map_err(failed(name))?;
    let gsig = program.signature(&grad).map_err(|e| e.to_string())?.clone();
    let host: Vec<HostValue> = args
        .iter()
        .zip(&gsig.inputs)
        .map(|(v, slot)| match (v, slot) {
            (ocannl_assign::Value::Buffer { dims, data }, Slot::MemRef { elt, .. }) => {
                HostValue::Tensor(HostTensor::from_f64(
                    *elt,
                    dims.clone(),
                    data.iter().copied(),
                ))
            }
            (ocannl_assign::Value::Index(i), _) => HostValue::Index(*i),
            (_, Slot::Index) => HostValue::Index(0),
        })
        .collect();
    let compiled = program.call(&grad, &host).map_err(|e| e.to_string())?;
    let f32_elts = gsig
        .outputs
        .iter()
        .any(|s| matches!(s, Slot::MemRef { elt: Elt::F32, .. }));
    let mut jit_worst = 0.0f64;
    for (c, a) in compiled.iter().zip(&analytic) {
        if let HostValue::Tensor(t) = c {
            for (x, y) in t.to_f64().iter().zip(cells(a)) {
                jit_worst = jit_worst.max((x - y).abs() / 1f64.max(y.abs()));
            }
        }
    }
    let jit_tol = if f32_elts { 1e-4 } else { 1e-10 };
    let jit_ok = jit_worst <= jit_tol;
    println!(
        "compiled vs interpreted backprop: max relative error {jit_worst:.3e}{}",
        if jit_ok { "" } else { "  FAILED" }
    );
    if !fd_ok {
        return Err(format!("grad-check failed: {worst_at}"));
    }
    if !jit_ok {
        return Err(
            "grad-check failed: the compiled backprop differs from the interpreted one".into(),
        );
    }
    Ok(())
}
