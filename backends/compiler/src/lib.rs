//! The one compile path: what the `ocannl` API's trainers (the train step,
//! the init and the forward routine) and `ocannl-run` call to turn a module
//! of tensor expressions into an [`Executable`], so that all of them share
//! the compilation cache and its compile time.
//!
//! - [`register_backends`]: every backend of the project, registered once
//!   per process (adding a backend is a crate and a line here).
//! - [`Compiler`]: a context with every dialect and pass, a backend and
//!   its options. [`Compiler::compile`] takes a [`Job`] (a module's text,
//!   the named pipelines to its optimized assignments, the functions that
//!   run) through the stages, the caller's look at the module, pruning
//!   ([`ocannl_passes::keep_only`]), the backend's lowering to loops and
//!   its compiler, or loads the whole executable from the cache: parsing
//!   and every pass are skipped on a hit.
//! - The steps one at a time ([`Compiler::parse`], [`Compiler::lower`],
//!   [`Compiler::compile_module`], [`Compiler::artifact`]) for callers that
//!   need the module itself (the reference interpreter, a gradient check,
//!   an ahead-of-time artifact), uncached.
//!
//! Architecture invariant: outside the backends, only this crate runs
//! pipelines or calls a backend's compiler (`scripts/structure.py` checks
//! the API and the tools).

use std::time::{Duration, Instant};

use melior::{ir::Module, Context};
use ocannl_passes::{
    backend::{compile_cached, peak_bytes},
    Backend, Pipeline,
};
use ocannl_runtime::{bundle::Bundle, CompileOptions, Executable};

pub use ocannl_passes::backend::CacheUse;

/// Registers every backend the project has (`cpu`, `cuda`), once per
/// process; the project's passes and pipelines come with the first.
pub fn register_backends() {
    ocannl_cpu::install();
    ocannl_gpu::register();
}

/// The registered backend named `name` (after [`register_backends`]), or
/// an error listing the registered ones.
pub fn backend(name: &str) -> Result<&'static dyn Backend, Error> {
    register_backends();
    ocannl_passes::backend(name).map_err(Error::UnknownBackend)
}

/// Why a compile failed. The diagnostics of the failing step went to the
/// context's handlers before the error is returned.
#[derive(Debug, PartialEq)]
pub enum Error {
    /// No backend has this name (the message lists those registered).
    UnknownBackend(ocannl_passes::backend::UnknownBackend),
    /// The context could not be made (a dialect that did not load).
    Context(ocannl_mlir::Error),
    /// The module's text does not parse.
    Parse,
    /// A stage failed: its name, and what failed.
    Stage { stage: String, message: String },
    /// A function to keep is not in the module (after the stages).
    NoFunction(String),
    /// Pruning to the functions that run failed.
    Prune(ocannl_mlir::Error),
    /// The backend's compiler (or its artifact writer) failed; its error
    /// has a kind ([`ocannl_runtime::Kind`]: a program it cannot compile,
    /// a device that is not there, an option it does not take).
    Backend(ocannl_runtime::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::UnknownBackend(e) => write!(f, "{e}"),
            Error::Context(e) | Error::Prune(e) => write!(f, "{e}"),
            Error::Backend(e) => write!(f, "{e}"),
            Error::Parse => f.write_str("cannot parse the module"),
            Error::Stage { stage, .. } => write!(f, "{stage} failed"),
            Error::NoFunction(name) => write!(f, "no function @{name} in the module"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Backend(e) => Some(e),
            _ => None,
        }
    }
}

/// What to compile: a module's text, the pipelines that take it to
/// optimized assignments (each a stage, timed and reported by its name),
/// and the public functions that run (the rest is pruned before the
/// lowering to loops).
#[derive(Clone, Debug)]
pub struct Job<'a> {
    /// The name the text is parsed under (a file name: what diagnostics
    /// show).
    pub name: &'a str,
    /// The module's text.
    pub source: &'a str,
    /// The stages up to optimized assignments, in order.
    pub stages: Vec<Pipeline>,
    /// The public functions that run (and what they call).
    pub keep: Vec<String>,
    /// Functions the caller's `inspect` step reads besides those kept (the
    /// Trainer's forward routine): kept through the stages, not compiled.
    /// Every other function is dropped after the first stage that leaves
    /// all of these and of `keep` in the module, so that later stages (the
    /// optimizations) spend no time on code that does not run.
    pub inspected: Vec<String>,
    /// What else decides the caller's use of the result (the version of
    /// what its look at the module derives): part of the cache key.
    pub tag: &'a str,
    /// How many calls the caller will make of the kept functions, where it
    /// knows (`ocannl-run --repeat`); else 1. The work the backend chooses
    /// its optimization level from ([`CompileOptions::work`]) is a call's
    /// times this.
    pub calls: u64,
    /// Whether to report each kept function's code at the loops stage
    /// ([`Output::loop_stats`]; `ocannl-run --stats`).
    pub loop_stats: bool,
}

impl Job<'_> {
    /// What decides the job's result besides the backend: its tag, text,
    /// stages, the functions kept and inspected, the calls announced and whether loop
    /// stats are kept, as one string of bytes (each part after its length).
    pub fn key(&self) -> Vec<u8> {
        let mut key = vec![];
        let mut part = |p: &[u8]| {
            key.extend((p.len() as u64).to_le_bytes());
            key.extend_from_slice(p);
        };
        part(self.tag.as_bytes());
        part(self.source.as_bytes());
        for stage in &self.stages {
            part(stage.to_string().as_bytes());
        }
        part(self.keep.join(",").as_bytes());
        part(self.inspected.join(",").as_bytes());
        part(self.calls.to_string().as_bytes());
        part(if self.loop_stats { b"stats" } else { b"" });
        key
    }
}

/// A compiled job.
pub struct Output {
    pub executable: Box<dyn Executable>,
    /// What the caller's look at the module derived (stored in the cache
    /// with the executable, returned as it was on a hit).
    pub extra: Vec<u8>,
    /// Whether the executable came from the cache.
    pub cache: CacheUse,
    /// How long each step took, in order: `parse`, each stage by its name,
    /// the lowering to loops (`ocannl-lower-to-loops`), then the backend's
    /// phases; on a cache hit, only the backend's (loading and linking).
    pub phases: Vec<(String, Duration)>,
    /// The time of the project's passes alone (parsing, the stages, the
    /// lowering to loops; zero on a hit).
    pub passes: Duration,
    /// Each kept function's code at the loops stage ([`LoopStats`]), when
    /// the job asked for them.
    pub loop_stats: Vec<(String, LoopStats)>,
    /// The work the backend compiled for ([`CompileOptions::work`]: given
    /// by the caller, else that of the kept functions).
    pub work: Option<u64>,
}

/// The iterations of the assignments of the kept function that runs the
/// most, those run once left out (the work a backend may choose its
/// optimization level from); `None` when no kept function is a routine
/// of assignments.
fn work(
    module: &Module,
    keep: &[String],
    run_once: &std::collections::BTreeSet<String>,
) -> Option<u64> {
    let functions = ocannl_mlir::ir::functions_by_name(module.as_operation());
    keep.iter()
        .filter(|k| !run_once.contains(*k))
        .filter_map(|k| ocannl_assign_dialect::to_routine(*functions.get(k)?).ok())
        .map(|r| {
            r.stmts
                .iter()
                .map(|s| match s {
                    ocannl_assign::Stmt::Accum(ocannl_assign::Assignment { space, .. }) => space
                        .iter()
                        .try_fold(1u64, |a, &d| a.checked_mul(d))
                        .unwrap_or(u64::MAX),
                    _ => 0,
                })
                .fold(0u64, u64::saturating_add)
        })
        .max()
}

/// What a function's code holds at the loops stage: its buffers
/// (`memref.alloc`), its loop nests (loops in no other loop) and the most
/// bytes its buffers take at once; the buffers and nests of the kernels it
/// calls (the CPU's lowering outlines each assignment's loops) count at
/// each call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopStats {
    pub buffers: u64,
    pub nests: u64,
    pub peak_bytes: u64,
}

impl LoopStats {
    fn encode(name: &str, s: &LoopStats) -> String {
        format!("{} {} {} {name}", s.buffers, s.nests, s.peak_bytes)
    }

    fn decode(line: &str) -> Option<(String, LoopStats)> {
        let mut parts = line.splitn(4, ' ');
        let mut num = || parts.next()?.parse::<u64>().ok();
        let (buffers, nests, peak_bytes) = (num()?, num()?, num()?);
        Some((
            parts.next()?.to_string(),
            LoopStats {
                buffers,
                nests,
                peak_bytes,
            },
        ))
    }

    /// The stats of `func` (a function at the loops stage).
    fn of(func: melior::ir::OperationRef) -> LoopStats {
        use melior::ir::operation::OperationLike;
        use ocannl_mlir::ir;
        let is_loop = |n: &str| matches!(n, "scf.for" | "scf.parallel" | "scf.forall");
        let count = |f: melior::ir::OperationRef| {
            let buffers = ir::collect(f, |o| ir::name(o) == "memref.alloc").len() as u64;
            let nests = ir::collect(f, |o| is_loop(&ir::name(o)))
                .into_iter()
                .filter(|o| {
                    let mut p = o.parent_operation();
                    while let Some(q) = p {
                        if is_loop(&ir::name(&q)) {
                            return false;
                        }
                        p = q.parent_operation();
                    }
                    true
                })
                .count() as u64;
            (buffers, nests)
        };
        let kernels: std::collections::HashMap<String, (u64, u64)> = func
            .parent_operation()
            .map(ir::functions_by_name)
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, f)| f.has_attribute(ocannl_passes::transforms::outline_kernels::KIND))
            .map(|(name, f)| (name, count(f)))
            .collect();
        let (mut buffers, mut nests) = count(func);
        for call in ir::ops_named(func, "func.call") {
            if let Some(&(b, n)) = ir::callee(call).and_then(|c| kernels.get(&c)) {
                buffers += b;
                nests += n;
            }
        }
        LoopStats {
            buffers,
            nests,
            peak_bytes: peak_bytes(func),
        }
    }
}

/// What a caller attaches to a compiler's context when it is made.
type OnContext = Box<dyn Fn(&Context)>;

/// A context with every dialect and pass, a backend and the options of its
/// compiler. The context is made when first needed: a job loaded whole from
/// the cache needs none (making one, every dialect loaded, is about half of
/// a warm start). It outlives the executables compiled in it (a caller
/// keeps the compiler as long as them).
pub struct Compiler {
    backend: &'static dyn Backend,
    options: CompileOptions,
    /// What a caller attaches to the context when it is made (its
    /// diagnostic handler).
    on_context: Vec<OnContext>,
    context: std::cell::OnceCell<Context>,
}

impl Compiler {
    /// A compiler for `backend` with `options` (the backend's
    /// [`Backend::default_options`] are where a caller starts).
    pub fn new(backend: &'static dyn Backend, options: CompileOptions) -> Compiler {
        register_backends();
        Compiler {
            backend,
            options,
            on_context: vec![],
            context: std::cell::OnceCell::new(),
        }
    }

    /// Calls `attach` on the context when it is made (at once if it is
    /// already): a diagnostic handler.
    pub fn on_context(&mut self, attach: impl Fn(&Context) + 'static) {
        if let Some(c) = self.context.get() {
            attach(c);
        }
        self.on_context.push(Box::new(attach));
    }

    /// The context, made on first use.
    pub fn context(&self) -> Result<&Context, Error> {
        if let Some(c) = self.context.get() {
            return Ok(c);
        }
        let context = ocannl_passes::new_context().map_err(Error::Context)?;
        melior::utility::register_all_llvm_translations(&context);
        for attach in &self.on_context {
            attach(&context);
        }
        Ok(self.context.get_or_init(|| context))
    }

    pub fn backend(&self) -> &'static dyn Backend {
        self.backend
    }

    pub fn options(&self) -> &CompileOptions {
        &self.options
    }

    pub fn options_mut(&mut self) -> &mut CompileOptions {
        &mut self.options
    }

    /// Compiles `job`, or loads it from the compilation cache: parses the
    /// text, runs the stages, gives the module to `inspect` (which derives
    /// what the caller keeps with the executable, returned as
    /// [`Output::extra`], and may set the options the backend compiles
    /// with from what it sees, such as [`CompileOptions::work`]: these
    /// follow from the key), checks that the functions to keep exist,
    /// prunes the rest, lowers to the backend's loops and compiles. The
    /// key is the text, the stages, the functions kept, the backend's
    /// lowering, `job.tag` and the backend's [`Backend::cache_tag`] of the
    /// compiler's options.
    pub fn compile<E: From<Error>>(
        &self,
        job: &Job,
        inspect: impl FnOnce(&mut Module, &mut CompileOptions) -> Result<Vec<u8>, E>,
    ) -> Result<Output, E> {
        let loops = self.backend.loops_pipeline(&self.options);
        let job_key = job.key();
        let loops_text = loops.to_string();
        // The compiler's sources (build.rs): a rebuilt compiler never loads
        // what another made of the same module.
        let key: [&[u8]; 4] = [
            b"job 1",
            env!("OCANNL_BUILD_ID").as_bytes(),
            &job_key,
            loops_text.as_bytes(),
        ];
        let mut phases: Vec<(String, Duration)> = vec![];
        let mut passes = Duration::ZERO;
        let cached = compile_cached(self.backend, &self.options, &key, || {
            let start = Instant::now();
            let mut timed = |what: &str, t: Instant| phases.push((what.to_string(), t.elapsed()));
            let t = Instant::now();
            let mut module = self.parse(job.name, job.source)?;
            timed("parse", t);
            let early: Vec<&str> = job
                .keep
                .iter()
                .chain(&job.inspected)
                .map(String::as_str)
                .collect();
            let mut pruned = false;
            for stage in &job.stages {
                let t = Instant::now();
                self.lower(&mut module, stage)?;
                timed(stage.name(), t);
                if !pruned {
                    let functions = ocannl_mlir::ir::functions_by_name(module.as_operation());
                    if early.iter().all(|f| functions.contains_key(*f)) {
                        let t = Instant::now();
                        ocannl_passes::keep_only(&mut module, &early).map_err(Error::Prune)?;
                        timed("prune", t);
                        pruned = true;
                    }
                }
            }
            let mut options = self.options.clone();
            let extra = inspect(&mut module, &mut options)?;
            if options.work.is_none() {
                options.work = work(&module, &job.keep, &options.run_once)
                    .map(|w| w.saturating_mul(job.calls.max(1)));
            }
            let t = Instant::now();
            let keep: Vec<&str> = job.keep.iter().map(String::as_str).collect();
            let functions = ocannl_mlir::ir::functions_by_name(module.as_operation());
            if let Some(missing) = keep.iter().find(|k| !functions.contains_key(**k)) {
                return Err(Error::NoFunction(missing.to_string()).into());
            }
            ocannl_passes::keep_only(&mut module, &keep).map_err(Error::Prune)?;
            // Each pass timed apart (the first with the pruning; a nested
            // clean-up with the pass before it).
            let mut stages: Vec<ocannl_passes::Pipeline> = vec![];
            for stage in loops.clone().split() {
                let nested = matches!(
                    stage.stages().first(),
                    Some(ocannl_passes::Stage::Nested { .. })
                );
                match stages.last_mut() {
                    Some(last) if nested => *last = last.clone().then(stage),
                    _ => stages.push(stage),
                }
            }
            let mut t = t;
            for stage in stages {
                self.lower(&mut module, &stage)?;
                timed(stage.name(), t);
                t = Instant::now();
            }
            let mut bundle = Bundle::default();
            bundle.push("extra", extra);
            if let Some(w) = options.work {
                bundle.push("work", w.to_string());
            }
            if job.loop_stats {
                let functions = ocannl_mlir::ir::functions_by_name(module.as_operation());
                for name in &keep {
                    if let Some(&f) = functions.get(*name) {
                        bundle.push("loop_stats", LoopStats::encode(name, &LoopStats::of(f)));
                    }
                }
            }
            passes = start.elapsed();
            let executable = self
                .backend
                .compile(self.context()?, &mut module, &options)
                .map_err(Error::Backend)?;
            Ok::<_, E>((executable, bundle.to_bytes()))
        })?;
        let bundle = Bundle::from_bytes(&cached.extra).ok_or_else(|| {
            Error::Backend(ocannl_runtime::Error::internal(
                "internal error: a damaged cache entry",
            ))
        })?;
        let loop_stats = bundle
            .sections
            .iter()
            .filter(|(n, _)| n == "loop_stats")
            .filter_map(|(_, v)| LoopStats::decode(std::str::from_utf8(v).ok()?))
            .collect();
        let extra = bundle.get("extra").unwrap_or_default().to_vec();
        let work = bundle.text("work").and_then(|w| w.parse().ok());
        phases.extend(
            cached
                .executable
                .phases()
                .iter()
                .map(|(n, d)| (n.to_string(), *d)),
        );
        Ok(Output {
            executable: cached.executable,
            extra,
            cache: cached.cache,
            phases,
            passes,
            loop_stats,
            work,
        })
    }

    /// Parses `source` as a module whose locations name `name`.
    pub fn parse(&self, name: &str, source: &str) -> Result<Module<'_>, Error> {
        ocannl_passes::parse_module(self.context()?, source, name).ok_or(Error::Parse)
    }

    /// Runs `pipeline` on `module` (a stage named by its first pass).
    pub fn lower(&self, module: &mut Module, pipeline: &Pipeline) -> Result<(), Error> {
        ocannl_passes::run_pipeline(self.context()?, module, pipeline).map_err(|e| Error::Stage {
            stage: pipeline.name().to_string(),
            message: e.to_string(),
        })
    }

    /// Keeps the functions `keep` of a module of assignments, lowers it to
    /// the backend's loops and compiles it, uncached.
    pub fn compile_module(
        &self,
        module: &mut Module,
        keep: &[&str],
    ) -> Result<Box<dyn Executable>, Error> {
        ocannl_passes::keep_only(module, keep).map_err(Error::Prune)?;
        self.lower(module, &self.backend.loops_pipeline(&self.options))?;
        self.backend
            .compile(self.context()?, module, &self.options)
            .map_err(Error::Backend)
    }

    /// Keeps the functions `keep` of a module of assignments, lowers it to
    /// the backend's loops and compiles it ahead of time into an artifact
    /// for `targets` ([`Backend::artifact`]).
    pub fn artifact(
        &self,
        module: &mut Module,
        keep: &[&str],
        targets: &[String],
    ) -> Result<Vec<u8>, Error> {
        ocannl_passes::keep_only(module, keep).map_err(Error::Prune)?;
        self.lower(module, &self.backend.loops_pipeline(&self.options))?;
        self.backend
            .artifact(self.context()?, module, &self.options, targets)
            .map_err(Error::Backend)
    }
}
