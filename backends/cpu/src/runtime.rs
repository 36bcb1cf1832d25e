//! Compile a module once with the CPU's JIT, then call its functions many
//! times with owned host buffers.
//!
//! A [`Program`] is made from a module at the loops stage (the output of
//! `ocannl-lower-to-loops`): every public function gets a C interface,
//! its loop nests become kernels (`ocannl-outline-kernels`), the module
//! is lowered with `ocannl-loops-to-llvm`, split into parts compiled on
//! threads at a level chosen per part (or taken from the compilation
//! cache), and linked by the [`crate::jit`] (with LLVM's OpenMP runtime
//! when it has parallel loops). [`Program::call`]
//! passes [`HostValue`]s through the packed C interface (any number of
//! arguments and results) and returns the results as owned host buffers;
//! the buffers the compiled code allocated for them are freed once each,
//! and never the arguments' storage. [`Program`] is the CPU's
//! [`Executable`] and [`Call`] its [`Session`].
//!
//! A call fails with an error instead of running when the function's
//! buffers would take more than [`CompileOptions::memory_limit`] at once,
//! and after running when one of the compiled code's checks failed (a
//! buffer it could not allocate, an index out of range): the loop lowering
//! records the first failure in the module's status global and skips the
//! work that follows; its message comes from the module's table of checks.

use std::{
    collections::{BTreeSet, HashMap, HashSet},
    ffi::c_void,
    marker::PhantomData,
    num::NonZeroUsize,
    path::Path,
    rc::Rc,
    time::{Duration, Instant},
};

/// A tensor argument's cells, as u64 words (aligned for f32 and f64); one
/// buffer may be the argument of several calls ([`Call::share`]).
type Words = Rc<std::cell::RefCell<Vec<u64>>>;

use melior::{
    ir::{attribute::StringAttribute, operation::OperationLike, Attribute, Module, OperationRef},
    Context,
};
use ocannl_mlir::ir;
use ocannl_passes::{
    backend::{peak_bytes, signature},
    conversion::assign_to_loops::checks,
};
use ocannl_runtime::{bundle::Bundle, cache::Cache, ArgInfo, Error, Role};

use crate::jit::{self, Jit};

pub use ocannl_runtime::{
    CompileOptions, Elt, Executable, HostTensor, HostValue, Session, Signature, Slot,
};

/// The options by name [`Program::compile`] knows: `openmp`, the OpenMP
/// runtime library for parallel loops (default: [`openmp_runtime`]);
/// `threads`, how many threads compile the module's parts (default:
/// `OCANNL_COMPILE_THREADS`, else the machine's parallelism); `slp`, LLVM's
/// SLP vectorizer (`on` or `off`; default: [`SLP`]).
pub const OPTION_NAMES: &[&str] = &["openmp", "threads", "slp", "target-cpu", "profile"];

/// Whether LLVM's SLP vectorizer runs by default (the `slp` option): no.
/// On the loop nests of the lowering it made no measurable difference to
/// run times (the contraction kernel is vectorized by construction, and
/// the -O1 pipeline has no SLP pass), and it is the pass known to blow up
/// on large functions (XLA's CPU compiler turns it off too).
pub const SLP: bool = false;

/// The packed interface of a function: one pointer per argument to its
/// value, then (for results) a pointer to where they go.
type PackedFn = unsafe extern "C" fn(*mut *mut c_void);

/// 64-bit words of the C-interface value of a slot: a memref descriptor
/// `{allocated, aligned, offset, sizes[N], strides[N]}` or an index.
fn words(slot: &Slot) -> usize {
    match slot {
        Slot::Index => 1,
        Slot::MemRef { dims, .. } => 3 + 2 * dims.len(),
    }
}

/// LLVM's optimization level: the one asked for; else `OCANNL_OPT_LEVEL`
/// if set; else, for routines doing `work` iterations per call, 0 for
/// small ones (under 2^20 iterations a call takes microseconds, and
/// compiling dominates) and 1 otherwise (on these loop nests -O1 runs as
/// fast as -O3 and compiles in half the time); else 3.
pub fn opt_level(options: &CompileOptions) -> usize {
    if let Some(level) = asked_level(options) {
        return level;
    }
    match options.work {
        Some(work) if work < 1 << 20 => 0,
        Some(_) => 1,
        None => 3,
    }
}

/// The level asked for: [`CompileOptions::opt_level`], else
/// `OCANNL_OPT_LEVEL` if it is a number.
fn asked_level(options: &CompileOptions) -> Option<usize> {
    options.opt_level.map(|l| l as usize).or_else(|| {
        std::env::var("OCANNL_OPT_LEVEL")
            .ok()
            .and_then(|v| v.parse().ok())
    })
}

/// How many threads compile a module's parts: the option `threads`; else
/// `OCANNL_COMPILE_THREADS` if set; else the machine's parallelism.
pub fn threads(options: &CompileOptions) -> Result<NonZeroUsize, Error> {
    let parse = |v: &str, what: &str| {
        v.trim().parse::<NonZeroUsize>().map_err(|_| {
            Error::argument(format!(
                "{what} must be a positive number of threads, not '{v}'"
            ))
        })
    };
    if let Some(v) = options.get("threads") {
        return parse(v, "the option 'threads'");
    }
    if let Ok(v) = std::env::var("OCANNL_COMPILE_THREADS") {
        return parse(&v, "OCANNL_COMPILE_THREADS");
    }
    Ok(std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN))
}

/// Whether LLVM's SLP vectorizer runs: the option `slp` (`on`/`off`,
/// `true`/`false`, `1`/`0`); else `OCANNL_SLP` if set; else [`SLP`].
pub fn slp(options: &CompileOptions) -> Result<bool, Error> {
    if let Some(v) = options.get("slp") {
        return on_off(v, "the option 'slp'");
    }
    if let Ok(v) = std::env::var("OCANNL_SLP") {
        return on_off(&v, "OCANNL_SLP");
    }
    Ok(SLP)
}

/// A switch's value: `on`/`off`, `true`/`false`, `1`/`0`, `yes`/`no`;
/// `what` names it in the error.
fn on_off(v: &str, what: &str) -> Result<bool, Error> {
    match v.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Ok(true),
        "off" | "false" | "0" | "no" => Ok(false),
        _ => Err(Error::argument(format!("{what} is on or off, not '{v}'"))),
    }
}

/// Whether every kernel call is timed for [`Program::profile`]: the option
/// `profile` (`on`/`off`); else `OCANNL_PROFILE` if set; else off.
pub fn profile(options: &CompileOptions) -> Result<bool, Error> {
    let (v, what) = match (options.get("profile"), std::env::var("OCANNL_PROFILE")) {
        (Some(v), _) => (v.to_string(), "the option 'profile'"),
        (None, Ok(v)) => (v, "OCANNL_PROFILE"),
        (None, Err(_)) => return Ok(false),
    };
    // (An empty value is off.)
    if v.trim().is_empty() {
        return Ok(false);
    }
    on_off(&v, what)
}

/// A row of the profile: a kernel, its kind, its work and bytes per call.
#[derive(Clone, Debug, PartialEq)]
struct ProfileRow {
    name: String,
    kind: String,
    work: u64,
    bytes: u64,
    site: String,
}

impl ProfileRow {
    /// `name kind work bytes site`, as `ocannl-profile-kernels` writes it
    /// (the site is the rest of the line, spaces and all).
    fn parse(text: &str) -> Option<ProfileRow> {
        let mut f = text.splitn(5, ' ');
        let (name, kind, work, bytes) = (f.next()?, f.next()?, f.next()?, f.next()?);
        Some(ProfileRow {
            name: name.into(),
            kind: kind.into(),
            work: work.parse().ok()?,
            bytes: bytes.parse().ok()?,
            site: f.next()?.into(),
        })
    }

    fn encode(&self) -> String {
        format!(
            "{} {} {} {} {}",
            self.name, self.kind, self.work, self.bytes, self.site
        )
    }
}

/// What an outlined kernel computes (its `ocannl.kernel_kind`), which
/// decides its optimization level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelKind {
    /// A sum of products: it runs long, and vectorized loops pay.
    Contraction,
    /// One pass over its cells.
    Elementwise,
}

/// The name of the attribute of an outlined kernel's kind.
pub const KERNEL_KIND: &str = ocannl_passes::transforms::outline_kernels::KIND;

impl KernelKind {
    fn parse(s: &str) -> Option<KernelKind> {
        use ocannl_passes::transforms::outline_kernels::{CONTRACTION, ELEMENTWISE};
        match s {
            CONTRACTION => Some(KernelKind::Contraction),
            ELEMENTWISE => Some(KernelKind::Elementwise),
            _ => None,
        }
    }
}

/// The optimization level of each part of a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Levels {
    /// The level of the public functions and what they share: [`opt_level`].
    pub host: u32,
    /// The level of outlined contraction kernels.
    pub contraction: u32,
    /// The level of outlined element-wise kernels.
    pub elementwise: u32,
}

impl Levels {
    /// The levels for `options` and a module with outlined kernels or not:
    /// one level for everything when one is asked for
    /// ([`CompileOptions::opt_level`] or `OCANNL_OPT_LEVEL`), or when the
    /// module has no kernels (its functions hold all its loops); else the
    /// module's level ([`opt_level`]) capped per kind: at most 2 for
    /// contractions, at most 1 for element-wise kernels, and 0 for the host
    /// code around the kernels (allocations, checks and calls: nothing to
    /// optimize, and -O1 on a deep model's routine of thousands of calls
    /// took longer than all its kernels together, for the same step time). On the
    /// lowering's loop nests -O1 ran as fast as -O2 and -O3 in every
    /// workload measured (the contraction kernel is vectorized by
    /// construction) and compiled a large routine in half the time of -O3;
    /// -O0 ran them 8 to 30 times slower.
    pub fn of(options: &CompileOptions, has_kernels: bool) -> Result<Levels, Error> {
        let level = opt_level(options);
        if level > 3 {
            return Err(Error::argument(format!(
                "the optimization level must be 0 to 3, not {level}"
            )));
        }
        let level = level as u32;
        Ok(if asked_level(options).is_some() || !has_kernels {
            Levels {
                host: level,
                contraction: level,
                elementwise: level,
            }
        } else {
            Levels {
                host: 0,
                contraction: level.min(2),
                elementwise: level.min(1),
            }
        })
    }

    /// The level of a part whose root is `root` (a kernel of a known kind,
    /// or host code).
    pub fn of_part(&self, kind: Option<KernelKind>) -> u32 {
        match kind {
            Some(KernelKind::Contraction) => self.contraction,
            Some(KernelKind::Elementwise) => self.elementwise,
            None => self.host,
        }
    }
}

/// The outlined kernels of a module (the functions with an
/// [`KERNEL_KIND`] attribute), by name, with their kind (`None`: a kind
/// this backend does not know, compiled as host code).
fn kernels(module: &Module) -> Vec<(String, Option<KernelKind>)> {
    ir::ops_named(module.as_operation(), "func.func")
        .into_iter()
        .filter_map(|f| {
            let kind = f
                .attribute(KERNEL_KIND)
                .ok()
                .and_then(ocannl_mlir::attr::string_value)?;
            let name = f
                .attribute("sym_name")
                .ok()
                .and_then(|a| StringAttribute::try_from(a).ok())?
                .value()
                .to_string();
            Some((name, KernelKind::parse(&kind)))
        })
        .collect()
}

/// The kernels only the public functions of `run_once` call (an init
/// routine's, which run once: compiled at -O0, as host code).
fn run_once_kernels(module: &Module, run_once: &BTreeSet<String>) -> HashSet<String> {
    if run_once.is_empty() {
        return HashSet::new();
    }
    let mut callers: HashMap<String, bool> = HashMap::new();
    for (name, f) in functions(module) {
        let once = run_once.contains(&name);
        for call in ir::collect(f, |o| ir::name(o) == "func.call") {
            let Some(callee) = ir::callee(call) else {
                continue;
            };
            let all_once = callers.entry(callee).or_insert(true);
            *all_once &= once;
        }
    }
    callers
        .into_iter()
        .filter_map(|(k, once)| once.then_some(k))
        .collect()
}

/// The public functions of a module.
fn functions<'c, 'm>(module: &'m Module<'c>) -> Vec<(String, OperationRef<'c, 'm>)> {
    ir::ops_named(module.as_operation(), "func.func")
        .into_iter()
        .filter(|f| {
            f.attribute("sym_visibility")
                .ok()
                .and_then(ocannl_mlir::attr::string_value)
                .is_none_or(|v| v != "private")
                && f.region(0)
                    .is_ok_and(|r| melior::ir::RegionLike::first_block(&r).is_some())
        })
        .filter_map(|f| {
            let name = f
                .attribute("sym_name")
                .ok()
                .and_then(|a| StringAttribute::try_from(a).ok())?
                .value()
                .to_string();
            Some((name, f))
        })
        .collect()
}

/// The signatures of the module's public functions, by name (functions
/// whose types the runtime cannot exchange are left out, with the reason).
pub fn signatures(module: &Module) -> HashMap<String, Result<Signature, ocannl_mlir::Error>> {
    functions(module)
        .into_iter()
        .map(|(name, f)| (name, signature(f)))
        .collect()
}

/// The compiled code and what reading its failures needs, shared by a
/// program and its calls.
struct Compiled {
    /// The packed interface of each public function the runtime can call.
    entries: HashMap<String, PackedFn>,
    /// The messages of the compiled code's checks, by number.
    checks: Vec<String>,
    /// The status words the compiled code writes when a check fails.
    status: Option<*mut i64>,
    /// The profile's rows (calls, nanoseconds per kernel), when profiled.
    profile: Option<*mut i64>,
    /// The JIT holding the code the pointers above point into (dropped
    /// last: it is declared last).
    _jit: Jit,
}

/// A compiled module.
pub struct Program {
    compiled: Rc<Compiled>,
    signatures: HashMap<String, Result<Signature, ocannl_mlir::Error>>,
    /// What each argument of each public function is (the argument ABI).
    pub(crate) args: HashMap<String, Vec<ArgInfo>>,
    /// Per function, the most bytes its buffers take at once.
    peaks: HashMap<String, u64>,
    memory_limit: Option<u64>,
    pub(crate) phases: Vec<(&'static str, Duration)>,
    pub(crate) stats: Vec<(&'static str, u64)>,
    /// The object files, kept for [`Program::serialize`].
    objects: Vec<Vec<u8>>,
    /// Whether the code calls the OpenMP runtime.
    parallel: bool,
    /// What the objects were compiled for.
    pub(crate) machine: jit::Machine,
    /// The kernels the profile times (none when not profiled).
    profile_rows: Vec<ProfileRow>,
}

/// The compile options' values, checked before any work.
struct Checked {
    threads: NonZeroUsize,
    slp: bool,
    profile: bool,
    machine: jit::Machine,
}

/// The format of [`Program::serialize`]'s bundles.
const PROGRAM_FORMAT: &str = "ocannl-cpu program 4";

impl Program {
    /// Compiles a module at the loops stage: C interfaces for its public
    /// functions, `ocannl-outline-kernels`, `ocannl-loops-to-llvm`, then
    /// the JIT: the module split into parts (a part per public function
    /// and per outlined kernel), each compiled at its level ([`Levels`]) or
    /// taken from the compilation cache of [`CompileOptions::cache`], on
    /// [`threads`] threads, and linked.
    pub fn compile(
        context: &Context,
        module: &mut Module,
        options: &CompileOptions,
    ) -> Result<Program, Error> {
        options.check_names("cpu", OPTION_NAMES)?;
        // The options' values, checked before any work.
        Levels::of(options, false)?;
        let checked = Checked {
            threads: threads(options)?,
            slp: slp(options)?,
            profile: profile(options)?,
            machine: jit::Machine::of(options)?,
        };
        checked.machine.check_runs_here()?;
        Program::compile_checked(context, module, options, &checked).map_err(Error::compile)
    }

    /// [`Program::compile`] once the options are checked.
    fn compile_checked(
        context: &Context,
        module: &mut Module,
        options: &CompileOptions,
        checked: &Checked,
    ) -> Result<Program, String> {
        let Checked {
            threads,
            slp,
            profile: profiled,
            machine,
        } = checked;
        let (threads, slp) = (*threads, *slp);
        // Peak memory from the routines' allocations, a kernel's own (its
        // packing buffers) counted while it runs; read before the host
        // code's temporaries become bare `malloc`s.
        let peaks: HashMap<String, u64> = functions(module)
            .into_iter()
            .map(|(name, f)| (name, peak_bytes(f)))
            .collect();
        let t = Instant::now();
        ocannl_passes::run_pipeline(context, module, crate::pipeline::outline(*profiled))
            .map_err(|e| format!("outlining kernels: {e}"))?;
        let profile_rows: Vec<ProfileRow> = module
            .as_operation()
            .attribute(crate::profile_kernels::TABLE)
            .ok()
            .and_then(|a| melior::ir::attribute::ArrayAttribute::try_from(a).ok())
            .map(|a| {
                (0..a.len())
                    .filter_map(|i| a.element(i).ok())
                    .filter_map(ocannl_mlir::attr::string_value)
                    .filter_map(|t| ProfileRow::parse(&t))
                    .collect()
            })
            .unwrap_or_default();
        let outline = t.elapsed();
        // Kernels' kinds are discardable attributes: read before lowering.
        let kernels: HashMap<String, Option<KernelKind>> = kernels(module).into_iter().collect();
        let levels = Levels::of(options, !kernels.is_empty()).map_err(|e| e.to_string())?;
        let once = if asked_level(options).is_some() {
            HashSet::new()
        } else {
            run_once_kernels(module, &options.run_once)
        };
        let t = Instant::now();
        let signatures = signatures(module);
        let args: HashMap<String, Vec<ArgInfo>> = functions(module)
            .into_iter()
            .map(|(name, f)| (name, ocannl_passes::backend::arg_info(f)))
            .collect();
        let checks = checks::descriptions(module.as_operation());
        let has_status = checks::has_status(module.as_operation());
        for (_, f) in functions(module) {
            ir::set_attribute(f, "llvm.emit_c_interface", Attribute::unit(context));
        }
        ocannl_passes::run_pipeline(context, module, crate::pipeline::LOOPS_TO_LLVM_NAME)
            .map_err(|e| format!("lowering to LLVM: {e}"))?;
        let mut phases = vec![("outline", outline), ("to-llvm", t.elapsed())];
        // Parallel loops call the OpenMP runtime, which the JIT loads.
        let parallel = !ir::collect(module.as_operation(), |op| {
            op.name()
                .as_string_ref()
                .as_str()
                .is_ok_and(|n| n.starts_with("omp."))
        })
        .is_empty();
        let libs = libraries(options, parallel)?;

        let t = Instant::now();
        let mut roots: Vec<String> = kernels.keys().cloned().collect();
        roots.sort();
        let parts = jit::split(module, &roots, machine).map_err(|e| e.to_string())?;
        phases.push(("translate", t.elapsed()));

        let t = Instant::now();
        let cache = Cache::open(&options.cache, jit::CACHE_NAMESPACE);
        let settings = jit::Settings {
            levels: parts
                .iter()
                .map(|p| {
                    if once.contains(&p.root) {
                        0
                    } else {
                        levels.of_part(kernels.get(&p.root).copied().flatten())
                    }
                })
                .collect(),
            slp,
            threads,
            machine,
            cache: &cache,
        };
        let objects = jit::objects(&parts, &settings)?;
        phases.push(("codegen", t.elapsed()));

        let t = Instant::now();
        let compiled = link(
            &objects.objects,
            &libs,
            &signatures,
            checks,
            has_status,
            profile_rows.len(),
        )?;
        phases.push(("link", t.elapsed()));
        let stats = vec![
            ("parts", parts.len() as u64),
            ("parts-compiled", objects.compiled as u64),
            ("parts-cached", objects.cached as u64),
            ("kernels", kernels.len() as u64),
        ];
        Ok(Program {
            compiled: Rc::new(compiled),
            signatures,
            args,
            peaks,
            memory_limit: options.memory_limit,
            phases,
            stats,
            objects: objects.objects,
            parallel,
            machine: machine.clone(),
            profile_rows,
        })
    }

    /// Every profiled kernel's calls and time so far (`None` when the
    /// program was not compiled to profile); the roof is the caller's
    /// (the `Executable` implementation adds [`crate::roof`]'s).
    pub fn profile(&self) -> Option<ocannl_runtime::Profile> {
        let rows = self.compiled.profile?;
        let kernels = self
            .profile_rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                // SAFETY: the global holds a row of two i64 per kernel of
                // `profile_rows` (the pass made it so); the JIT that
                // defines it lives as long as `compiled`; kernels write it
                // only while a call runs, and a call borrows the program.
                let (calls, ns) = unsafe { (*rows.add(2 * i), *rows.add(2 * i + 1)) };
                ocannl_runtime::KernelProfile {
                    name: r.name.clone(),
                    kind: r.kind.clone(),
                    calls: calls.max(0) as u64,
                    seconds: ns.max(0) as f64 * 1e-9,
                    work: r.work,
                    bytes: r.bytes,
                    site: r.site.clone(),
                }
            })
            .collect();
        Some(ocannl_runtime::Profile {
            kernels,
            roof_gflops: None,
        })
    }

    /// The program as bytes [`Program::load`] reads back (in another
    /// process: what the compilation cache keeps): its object files, its
    /// functions' signatures and peak memory, the messages of its checks.
    pub fn serialize(&self) -> Vec<u8> {
        let mut b = Bundle::default();
        b.push("format", PROGRAM_FORMAT);
        b.push(
            "host",
            format!("{} {}", self.machine.key(), jit::llvm_version()),
        );
        b.push("parallel", if self.parallel { "1" } else { "0" });
        b.push(
            "status",
            if self.compiled.status.is_some() {
                "1"
            } else {
                "0"
            },
        );
        let mut names: Vec<&String> = self.signatures.keys().collect();
        names.sort();
        for name in names {
            let sig = match &self.signatures[name] {
                Ok(s) => s.encode(),
                Err(e) => format!("!{e}"),
            };
            let peak = self.peaks.get(name).copied().unwrap_or(0);
            b.push("function", format!("{name}\n{peak}\n{sig}"));
        }
        let mut functions: Vec<(&String, &Vec<ArgInfo>)> = self.args.iter().collect();
        functions.sort_by_key(|(f, _)| *f);
        for (f, args) in functions {
            for a in args {
                b.push("arg", format!("{f}\0{}\0{}", a.role.encode(), a.name));
            }
        }
        for c in &self.compiled.checks {
            b.push("check", c.as_str());
        }
        for r in &self.profile_rows {
            b.push("profile", r.encode());
        }
        for o in &self.objects {
            b.push("object", o.clone());
        }
        b.to_bytes()
    }

    /// The program [`Program::serialize`] wrote, linked again (for this
    /// process, with `options`' memory limit and OpenMP runtime).
    pub fn load(bytes: &[u8], options: &CompileOptions) -> Result<Program, Error> {
        options.check_names("cpu", OPTION_NAMES)?;
        let t = Instant::now();
        let damaged = || Error::format("a damaged or foreign compiled CPU program");
        let b = Bundle::from_bytes(bytes).ok_or_else(damaged)?;
        let machine = jit::Machine::of(options)?;
        machine.check_runs_here()?;
        let host = format!("{} {}", machine.key(), jit::llvm_version());
        if b.text("format") != Some(PROGRAM_FORMAT) || b.text("host") != Some(host.as_str()) {
            return Err(damaged());
        }
        let flag = |name: &str| match b.text(name) {
            Some("1") => Ok(true),
            Some("0") => Ok(false),
            _ => Err(damaged()),
        };
        let (parallel, has_status) = (flag("parallel")?, flag("status")?);
        let mut signatures = HashMap::new();
        let mut args: HashMap<String, Vec<ArgInfo>> = HashMap::new();
        let mut peaks = HashMap::new();
        let mut checks = vec![];
        let mut profile_rows = vec![];
        let mut objects = vec![];
        for (name, bytes) in &b.sections {
            let text = || std::str::from_utf8(bytes).map_err(|_| damaged());
            match name.as_str() {
                "function" => {
                    let mut lines = text()?.splitn(3, '\n');
                    let (Some(f), Some(peak), Some(sig)) =
                        (lines.next(), lines.next(), lines.next())
                    else {
                        return Err(damaged());
                    };
                    let sig = match sig.strip_prefix('!') {
                        Some(e) => Err(ocannl_mlir::Error::unsupported(e)),
                        None => Ok(Signature::decode(sig).ok_or_else(damaged)?),
                    };
                    peaks.insert(f.to_string(), peak.parse().map_err(|_| damaged())?);
                    signatures.insert(f.to_string(), sig);
                }
                "arg" => {
                    let mut parts = text()?.splitn(3, '\0');
                    let (Some(f), Some(role), Some(name)) =
                        (parts.next(), parts.next(), parts.next())
                    else {
                        return Err(damaged());
                    };
                    let role = Role::decode(role).ok_or_else(damaged)?;
                    args.entry(f.to_string()).or_default().push(ArgInfo {
                        name: name.to_string(),
                        role,
                    });
                }
                "check" => checks.push(text()?.to_string()),
                "profile" => profile_rows.push(ProfileRow::parse(text()?).ok_or_else(damaged)?),
                "object" => objects.push(bytes.clone()),
                _ => {}
            }
        }
        let libs = libraries(options, parallel).map_err(Error::device)?;
        let mut phases = vec![("load", t.elapsed())];
        let t = Instant::now();
        let compiled = link(
            &objects,
            &libs,
            &signatures,
            checks,
            has_status,
            profile_rows.len(),
        )
        .map_err(Error::compile)?;
        phases.push(("link", t.elapsed()));
        let stats = vec![
            ("parts", objects.len() as u64),
            ("parts-compiled", 0),
            ("parts-cached", objects.len() as u64),
        ];
        Ok(Program {
            compiled: Rc::new(compiled),
            signatures,
            args,
            peaks,
            memory_limit: options.memory_limit,
            phases,
            stats,
            objects,
            parallel,
            machine,
            profile_rows,
        })
    }

    /// How long compiling took: outlining kernels (`outline`), lowering to
    /// LLVM (`to-llvm`), translating
    /// to LLVM IR and splitting (`translate`), compiling the parts
    /// (`codegen`, wall time), loading and linking them (`link`).
    pub fn phases(&self) -> &[(&'static str, Duration)] {
        &self.phases
    }

    /// What compiling counted: `parts`, `parts-compiled`, `parts-cached`
    /// (their objects taken from the compilation cache) and `kernels`
    /// (outlined kernels, each a part).
    pub fn stats(&self) -> &[(&'static str, u64)] {
        &self.stats
    }

    /// The signature of a public function.
    pub fn signature(&self, entry: &str) -> Result<&Signature, Error> {
        match self.signatures.get(entry) {
            Some(Ok(s)) => Ok(s),
            Some(Err(e)) => Err(Error::argument(format!("@{entry}: {e}"))),
            None => Err(Error::argument(format!(
                "no function @{entry} in the module"
            ))),
        }
    }

    /// Calls a function. Arguments must match its signature (element
    /// types and sizes of tensors; indices for index arguments).
    pub fn call(&self, entry: &str, args: &[HostValue]) -> Result<Vec<HostValue>, Error> {
        Ok(self.prepare(entry, args)?.invoke()?.read())
    }

    /// Prepares calls of a function with fixed arguments: they are checked
    /// and laid out for the compiled code once, and [`Call::invoke`] runs it
    /// any number of times.
    pub fn prepare(&self, entry: &str, args: &[HostValue]) -> Result<Call, Error> {
        self.signature(entry)?.check_args(entry, args)?;
        self.prepare_with(entry, Some(args))
    }

    /// Prepares calls of `entry` on arguments of zeros, without host
    /// tensors: the buffers are allocated zeroed (pages the OS gives as
    /// zeros are not written before the code writes them).
    pub fn prepare_zeroed(&self, entry: &str) -> Result<Call, Error> {
        self.prepare_with(entry, None)
    }

    /// [`Program::prepare`] on `args` (checked against the signature by
    /// the caller), or on zeros without them.
    fn prepare_with(&self, entry: &str, args: Option<&[HostValue]>) -> Result<Call, Error> {
        let sig = self.signature(entry)?.clone();
        let peak = self.peaks.get(entry).copied().unwrap_or(0);
        if let Some(limit) = self.memory_limit.filter(|&l| peak > l) {
            return Err(Error::memory(format!(
                "@{entry} needs {peak} bytes for its buffers at once, more than the memory limit of {limit} bytes (by default the machine's physical memory; ocannl-run sets it with --memory-limit)"
            )));
        }
        // The arguments' storage and C-interface values.
        let n = sig.inputs.len();
        let mut storage: Vec<Words> = Vec::with_capacity(n);
        let mut values: Vec<Vec<i64>> = Vec::with_capacity(n);
        for (i, slot) in sig.inputs.iter().enumerate() {
            let value = args.and_then(|a| a.get(i));
            match slot {
                Slot::Index => {
                    let v = match value {
                        Some(HostValue::Index(v)) => *v,
                        _ => 0,
                    };
                    storage.push(Words::default());
                    values.push(vec![v]);
                }
                Slot::MemRef { elt, dims } => {
                    let cells = ocannl_assign::check_buffer(dims, elt.size())
                        .map_err(|e| Error::memory(format!("argument #{i}: {e}")))?;
                    // u64 words keep the storage aligned for f32 and f64.
                    let len = (cells * elt.size()).div_ceil(8) as usize;
                    let mut words = zeroed_words(len).ok_or_else(|| {
                        Error::memory(format!(
                            "argument #{i}: cannot allocate {} bytes for its cells",
                            len * 8
                        ))
                    })?;
                    if let Some(HostValue::Tensor(t)) = value {
                        write_cells(&mut words, t);
                    }
                    let ptr = words.as_mut_ptr() as i64;
                    let mut d = vec![ptr, ptr, 0];
                    d.extend(dims.iter().map(|&x| x as i64));
                    d.extend(
                        ocannl_assign::row_major_strides(dims)
                            .into_iter()
                            .map(|s| s as i64),
                    );
                    storage.push(Rc::new(std::cell::RefCell::new(words)));
                    values.push(d);
                }
            }
        }
        let packed =
            *self.compiled.entries.get(entry).ok_or_else(|| {
                Error::internal(format!("no function @{entry} after compilation"))
            })?;
        Ok(Call {
            program: self.compiled.clone(),
            packed,
            entry: entry.to_string(),
            sig,
            storage,
            values,
            last: None,
        })
    }
}

/// `len` zero words, allocated zeroed (memory the OS gives as zeros is
/// not written), or `None` when the memory cannot be had.
fn zeroed_words(len: usize) -> Option<Vec<u64>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u64>(len).ok()?;
    // SAFETY: the layout has a non-zero size (len > 0 words).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut u64;
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout
    // of `len` u64s, and all of its `len` words are initialized (zero).
    Some(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// The shared libraries the JIT loads for a program: LLVM's OpenMP runtime
/// when it has parallel loops (the option `openmp`, else
/// [`openmp_runtime`]).
fn libraries(options: &CompileOptions, parallel: bool) -> Result<Vec<String>, String> {
    if !parallel {
        return Ok(vec![]);
    }
    let omp = options
        .get("openmp")
        .map_or_else(openmp_runtime, str::to_string);
    if !Path::new(&omp).exists() {
        return Err(format!(
            "the program has parallel loops, but the OpenMP runtime {omp} is missing \
             (install libomp-22-dev, or set OCANNL_OPENMP_LIB)"
        ));
    }
    Ok(vec![omp])
}

/// Links object files in a new JIT with `libs`, and looks up every
/// function's packed interface (so that linking happens here and not in
/// the first call) and the status global.
fn link(
    objects: &[Vec<u8>],
    libs: &[String],
    signatures: &HashMap<String, Result<Signature, ocannl_mlir::Error>>,
    checks: Vec<String>,
    has_status: bool,
    profile_rows: usize,
) -> Result<Compiled, String> {
    keep_freed_memory();
    let libs: Vec<&str> = libs.iter().map(String::as_str).collect();
    let mut jit = Jit::new(&libs)?;
    for object in objects {
        jit.add_object(object)?;
    }
    let mut entries = HashMap::new();
    for (name, sig) in signatures {
        let address = jit
            .lookup(&format!("_mlir__mlir_ciface_{name}"))
            .map_err(|e| format!("no function @{name} after compilation: {e}"))?;
        if sig.is_ok() {
            // SAFETY: the JIT's definition of the packed wrapper of the
            // function's C interface (`void(void **)`), kept alive with the
            // JIT in `Compiled`.
            let f = unsafe { std::mem::transmute::<*mut c_void, PackedFn>(address.as_ptr()) };
            entries.insert(name.clone(), f);
        }
    }
    let status = if has_status {
        let p = jit.lookup(checks::STATUS).map_err(|e| {
            format!(
                "internal error: the compiled module has no symbol {}: {e}",
                checks::STATUS
            )
        })?;
        Some(p.as_ptr() as *mut i64)
    } else {
        None
    };
    let profile = if profile_rows > 0 {
        let p = jit
            .lookup(crate::profile_kernels::GLOBAL)
            .map_err(|e| format!("internal error: no profile in the compiled module: {e}"))?;
        Some(p.as_ptr() as *mut i64)
    } else {
        None
    };
    Ok(Compiled {
        entries,
        checks,
        status,
        profile,
        _jit: jit,
    })
}

/// What decides a compiled program besides its module (for the cache of
/// whole executables): the optimization level asked for, the work hint,
/// the SLP vectorizer, the machine compiled for and LLVM's version; `None`
/// (not cached) when the options are invalid, so that compiling reports
/// them.
pub fn cache_tag(options: &CompileOptions) -> Option<String> {
    options.check_names("cpu", OPTION_NAMES).ok()?;
    threads(options).ok()?;
    let slp = slp(options).ok()?;
    let profiled = profile(options).ok()?;
    let machine = jit::Machine::of(options).ok()?;
    Some(format!(
        "{PROGRAM_FORMAT}; opt {:?}; work {:?}; once {:?}; slp {slp}; profile {profiled}; machine {}; llvm {}",
        asked_level(options),
        options.work,
        options.run_once,
        machine.key(),
        jit::llvm_version()
    ))
}

/// A function with its arguments laid out for the compiled code (it keeps
/// the compiled program alive).
pub struct Call {
    program: Rc<Compiled>,
    /// The function's packed interface, in the program's JIT.
    packed: PackedFn,
    entry: String,
    sig: Signature,
    /// The tensors' cells (kept alive and in place across invocations;
    /// shared with another call's argument after [`Call::share`]).
    storage: Vec<Words>,
    /// Per argument: a memref descriptor or an index.
    values: Vec<Vec<i64>>,
    /// The results of the last [`Session::run`].
    last: Option<Results>,
}

impl Call {
    /// The function's arguments and results.
    pub fn signature(&self) -> &Signature {
        &self.sig
    }

    /// Replaces argument `i` (a tensor of the same element type and shape,
    /// or an index) before the next invocation.
    pub fn set(&mut self, i: usize, value: &HostValue) -> Result<(), Error> {
        self.sig.check_arg(&self.entry, i, value)?;
        // A result kept from the last run may be this argument's storage.
        self.last = None;
        match value {
            HostValue::Index(v) => self.values[i][0] = *v,
            HostValue::Tensor(t) => write_cells(&mut self.storage[i].borrow_mut(), t),
        }
        Ok(())
    }

    /// Makes tensor argument `i` the buffer of argument `j` of `other` (of
    /// the same element type and sizes): no copy; each call sees what the
    /// other writes there.
    pub fn share(&mut self, i: usize, other: &Call, j: usize) -> Result<(), Error> {
        match (self.sig.inputs.get(i), other.sig.inputs.get(j)) {
            (Some(a @ Slot::MemRef { .. }), Some(b)) if a == b => {}
            (a, b) => {
                let show = |s: Option<&Slot>| s.map_or("nothing".to_string(), |s| s.to_string());
                return Err(Error::argument(format!(
                    "argument #{i} of @{} ({}) cannot be argument #{j} of @{} ({})",
                    self.entry,
                    show(a),
                    other.entry,
                    show(b)
                )));
            }
        }
        // A result kept from the last run may be this argument's storage.
        self.last = None;
        self.storage[i] = other.storage[j].clone();
        let ptr = self.storage[i].borrow_mut().as_mut_ptr() as i64;
        self.values[i][0] = ptr;
        self.values[i][1] = ptr;
        Ok(())
    }

    /// The current value of argument `i` (the compiled code may have
    /// updated it in place: params, optimizer state).
    pub fn get(&self, i: usize) -> Result<HostValue, Error> {
        match self.sig.inputs.get(i) {
            Some(Slot::Index) => Ok(HostValue::Index(self.values[i][0])),
            // SAFETY: the descriptor describes the argument's own storage.
            Some(Slot::MemRef { elt, dims }) => Ok(HostValue::Tensor(unsafe {
                read_tensor(&self.values[i], *elt, dims)
            })),
            None => Err(Error::argument(format!(
                "@{} has no argument #{i}",
                self.entry
            ))),
        }
    }

    /// Runs the function once. The arguments' buffers are passed as they
    /// are: a function that writes into an argument changes it for the next
    /// invocation too.
    pub fn invoke(&mut self) -> Result<Outputs<'_>, Error> {
        self.last = None;
        Ok(Outputs {
            results: self.run_once()?,
            _call: PhantomData,
        })
    }

    /// Runs the function once; copies each carried result into its
    /// argument's buffer in place (no host copy: see
    /// [`Session::invoke_carrying`]), and reads the other results.
    pub fn invoke_carrying(&mut self, carry: &[(usize, usize)]) -> Result<Vec<HostValue>, Error> {
        ocannl_runtime::check_carry(&self.sig, carry)?;
        self.last = None;
        let results = self.run_once()?;
        let mut out = vec![];
        let mut off = 0;
        for (k, slot) in results.slots.iter().enumerate() {
            let w = &results.words[off..off + words(slot)];
            off += w.len();
            let carried = carry.iter().find(|(r, _)| *r == k).map(|&(_, a)| a);
            match (slot, carried) {
                (Slot::MemRef { elt, dims }, Some(a)) => {
                    // SAFETY: the descriptor of a live buffer of `elt` and
                    // `dims` written by the compiled code (owned by
                    // `results` until it drops, or an argument's storage).
                    let t = unsafe { read_dense(w, *elt, dims) };
                    let mut dst = self.storage[a].borrow_mut();
                    match t {
                        Some((src, bytes)) => {
                            // SAFETY: `src` holds `bytes` bytes (above);
                            // the argument's storage, of the same slot,
                            // has room for them; `copy` allows the two to
                            // be one buffer (an argument returned as is).
                            unsafe { std::ptr::copy(src, dst.as_mut_ptr() as *mut u8, bytes) }
                        }
                        None => {
                            // SAFETY: as above.
                            let t = unsafe { read_tensor(w, *elt, dims) };
                            write_cells(&mut dst, &t);
                        }
                    }
                }
                (Slot::Index, Some(a)) => self.values[a][0] = w[0],
                (Slot::Index, None) => out.push(HostValue::Index(w[0])),
                (Slot::MemRef { elt, dims }, None) => {
                    // SAFETY: as above.
                    out.push(HostValue::Tensor(unsafe { read_tensor(w, *elt, dims) }))
                }
            }
        }
        Ok(out)
    }

    /// Runs the function once; the results are in the compiled code's
    /// buffers (or an argument's storage).
    fn run_once(&mut self) -> Result<Results, Error> {
        let sig = &self.sig;
        let result_words: usize = sig.outputs.iter().map(words).sum();
        let mut result = vec![0i64; result_words.max(1)];
        // The packed C interface: one pointer per argument to its value. The
        // C interface returns one index by value, which the packed wrapper
        // stores through a pointer after the arguments; other results (a
        // memref, several results) come back through a pointer passed
        // first.
        let by_value = matches!(sig.outputs.as_slice(), [Slot::Index]);
        let mut result_ptr = result.as_mut_ptr() as *mut c_void;
        let mut desc_ptrs: Vec<*mut c_void> = self
            .values
            .iter_mut()
            .map(|v| v.as_mut_ptr() as *mut c_void)
            .collect();
        let mut args: Vec<*mut ()> = Vec::with_capacity(desc_ptrs.len() + 1);
        if !sig.outputs.is_empty() && !by_value {
            args.push(&mut result_ptr as *mut *mut c_void as *mut ());
        }
        for (p, s) in desc_ptrs.iter_mut().zip(&sig.inputs) {
            match s {
                // The value itself is the index.
                Slot::Index => args.push(*p as *mut ()),
                // The value is the pointer to the descriptor.
                Slot::MemRef { .. } => args.push(p as *mut *mut c_void as *mut ()),
            }
        }
        if by_value {
            args.push(result_ptr as *mut ());
        }
        if let Some(status) = self.program.status {
            // SAFETY: the module's status global: `checks::STATUS_WORDS`
            // i64 words, written only by the compiled code during a call.
            unsafe { std::ptr::write_bytes(status, 0, checks::STATUS_WORDS) };
        }
        // SAFETY: the packed interface of the entry's C interface, alive
        // with `self.program`; the packed arguments point to live values of
        // the types the signature gives, and the result area has room for
        // every result.
        unsafe { (self.packed)(args.as_mut_ptr() as *mut *mut c_void) };
        // What the compiled code allocated for the results: each allocation
        // once, and never an argument's storage.
        let arg_storage: Vec<i64> = self
            .storage
            .iter()
            .map(|s| s.borrow().as_ptr() as i64)
            .collect();
        let mut owned: Vec<i64> = vec![];
        let mut off = 0;
        for slot in &sig.outputs {
            if let Slot::MemRef { .. } = slot {
                let allocated = result[off];
                if allocated != 0
                    && !arg_storage.contains(&allocated)
                    && !owned.contains(&allocated)
                {
                    owned.push(allocated);
                }
            }
            off += words(slot);
        }
        let outputs = Results {
            slots: sig.outputs.clone(),
            words: result,
            owned,
        };
        if let Some(status) = self.program.status {
            // SAFETY: as above; the call has returned.
            let words: Vec<i64> = (0..checks::STATUS_WORDS)
                .map(|k| unsafe { *status.add(k) })
                .collect();
            if let Some(failure) = checks::Failure::from_status(&words) {
                // The results are dropped (freed) with the error.
                drop(outputs);
                let message = failure.message(&self.program.checks);
                return Err(if failure.code == checks::Code::Alloc as i64 {
                    Error::memory(message)
                } else {
                    Error::check(message)
                });
            }
        }
        Ok(outputs)
    }
}

/// The results of one invocation, in the compiled code's buffers (freed
/// when this is dropped).
///
/// A result may be an argument's storage (a function that returns one of
/// its arguments), which the [`Call`] owns: the outputs borrow the call, so
/// they cannot outlive it, nor see an argument replaced under them. Reading
/// the results of a call that is gone does not compile:
///
/// ```compile_fail,E0597
/// # use ocannl_cpu::runtime::{HostValue, Program};
/// # fn f(program: &Program, args: &[HostValue]) -> Result<Vec<HostValue>, ocannl_runtime::Error> {
/// let outputs = {
///     let mut call = program.prepare("f", args)?;
///     call.invoke()?
/// };
/// Ok(outputs.read())
/// # }
/// ```
///
/// Read them while the call is alive:
///
/// ```no_run
/// # use ocannl_cpu::runtime::{HostValue, Program};
/// # fn f(program: &Program, args: &[HostValue]) -> Result<Vec<HostValue>, ocannl_runtime::Error> {
/// let mut call = program.prepare("f", args)?;
/// let outputs = call.invoke()?;
/// Ok(outputs.read())
/// # }
/// ```
pub struct Outputs<'c> {
    results: Results,
    /// The call whose argument storage a result may be.
    _call: PhantomData<&'c Call>,
}

impl Outputs<'_> {
    /// The results as owned host values.
    pub fn read(&self) -> Vec<HostValue> {
        self.results.read()
    }
}

impl Session for Call {
    fn signature(&self) -> &Signature {
        &self.sig
    }

    fn set(&mut self, i: usize, value: &HostValue) -> Result<(), Error> {
        Call::set(self, i, value)
    }

    fn get(&self, i: usize) -> Result<HostValue, Error> {
        Call::get(self, i)
    }

    fn invoke(&mut self) -> Result<Vec<HostValue>, Error> {
        Ok(Call::invoke(self)?.read())
    }

    fn invoke_carrying(&mut self, carry: &[(usize, usize)]) -> Result<Vec<HostValue>, Error> {
        Call::invoke_carrying(self, carry)
    }

    fn share(&mut self, i: usize, other: &dyn Session, j: usize) -> Result<(), Error> {
        match other.as_any().and_then(|o| o.downcast_ref::<Call>()) {
            Some(o) => Call::share(self, i, o, j),
            None => Err(Error::argument(
                "a CPU session shares arguments only with another CPU session",
            )),
        }
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn run(&mut self) -> Result<(), Error> {
        self.last = None;
        self.last = Some(self.run_once()?);
        Ok(())
    }

    fn results(&self) -> Result<Vec<HostValue>, Error> {
        self.last.as_ref().map(Results::read).ok_or_else(|| {
            Error::argument(format!(
                "@{}: no results (it has not run since its arguments were set)",
                self.entry
            ))
        })
    }
}

/// The results of one invocation: their C-interface values, and the
/// buffers the compiled code allocated for them (freed when this is
/// dropped). A result may be an argument's storage, so it is read only
/// while the call is alive: [`Outputs`] borrows the call, and a call keeps
/// the results of its last [`Session::run`] itself.
struct Results {
    slots: Vec<Slot>,
    words: Vec<i64>,
    owned: Vec<i64>,
}

impl Results {
    fn read(&self) -> Vec<HostValue> {
        let mut out = Vec::with_capacity(self.slots.len());
        let mut off = 0;
        for slot in &self.slots {
            let words = &self.words[off..off + words(slot)];
            off += words.len();
            out.push(match slot {
                Slot::Index => HostValue::Index(words[0]),
                Slot::MemRef { elt, dims } => {
                    // SAFETY: a descriptor of a live buffer of that type and
                    // sizes, written by the compiled code.
                    HostValue::Tensor(unsafe { read_tensor(words, *elt, dims) })
                }
            });
        }
        out
    }
}

impl Drop for Results {
    fn drop(&mut self) {
        for &p in &self.owned {
            // SAFETY: allocated by the compiled code with malloc, returned
            // to the caller, freed once.
            unsafe { free(p as *mut c_void) };
        }
    }
}

/// Copies a tensor's cells into the start of `words` (at least as many
/// bytes).
fn write_cells(words: &mut [u64], t: &HostTensor) {
    let cells = t.bytes();
    // SAFETY: the owned u64 words seen as their bytes (any bytes are valid
    // u8s and u64s, and the slice borrows `words` mutably for its lifetime).
    let bytes: &mut [u8] =
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, words.len() * 8) };
    bytes[..cells.len()].copy_from_slice(cells);
}

/// The start and the byte count of a memref's cells when they are dense
/// and row-major (what the routines allocate), else `None`.
///
/// # Safety
/// `words` must be a memref descriptor of a live buffer of `elt` with sizes
/// `dims`.
unsafe fn read_dense(words: &[i64], elt: Elt, dims: &[u64]) -> Option<(*const u8, usize)> {
    let rank = dims.len();
    let strides = &words[3 + rank..3 + 2 * rank];
    let mut dense = 1i64;
    for (&d, &s) in dims.iter().zip(strides).rev() {
        if d > 1 && s != dense {
            return None;
        }
        dense = dense.saturating_mul(d as i64);
    }
    let size = elt.size() as isize;
    let n: u64 = dims.iter().product();
    // SAFETY: the offset stays inside the buffer (the caller's contract).
    let start = unsafe { (words[1] as *const u8).offset(words[2] as isize * size) };
    Some((start, n as usize * size as usize))
}

/// # Safety
/// `words` must be a memref descriptor of a live buffer of `elt` with sizes
/// `dims`.
unsafe fn read_tensor(words: &[i64], elt: Elt, dims: &[u64]) -> HostTensor {
    let aligned = words[1] as *const u8;
    let offset = words[2];
    let rank = dims.len();
    let strides: Vec<i64> = words[3 + rank..3 + 2 * rank].to_vec();
    let n: u64 = dims.iter().product();
    let size = elt.size() as usize;
    let mut t = HostTensor::zeros(elt, dims.to_vec());
    // Row-major and dense (what the routines allocate): one slice.
    let mut dense = 1i64;
    let mut contiguous = true;
    for (&d, &s) in dims.iter().zip(&strides).rev() {
        contiguous &= d <= 1 || s == dense;
        dense = dense.saturating_mul(d as i64);
    }
    let out = t.data.bytes_mut();
    if contiguous && n > 0 {
        // SAFETY: a dense row-major buffer of `n` cells of `elt` from
        // `offset` (the caller's contract).
        let cells = unsafe {
            std::slice::from_raw_parts(aligned.offset(offset as isize * size as isize), out.len())
        };
        out.copy_from_slice(cells);
        return t;
    }
    let mut idx = vec![0u64; rank];
    for cell in out.chunks_exact_mut(size) {
        let lin: i64 = idx
            .iter()
            .zip(&strides)
            .map(|(&i, &s)| i as i64 * s)
            .sum::<i64>()
            + offset;
        // SAFETY: the bytes of a cell of the buffer the descriptor
        // describes (the caller's contract).
        let src = unsafe {
            std::slice::from_raw_parts(aligned.offset(lin as isize * size as isize), size)
        };
        cell.copy_from_slice(src);
        for k in (0..rank).rev() {
            idx[k] += 1;
            if idx[k] < dims[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    t
}

unsafe extern "C" {
    fn free(p: *mut c_void);
    fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
}

/// Keeps the memory the compiled code frees for its next allocations: by
/// default glibc maps every buffer over 128 KiB afresh and returns freed
/// memory to the system, so a routine called many times (a train step)
/// pays page faults for all its intermediate buffers at every call.
fn keep_freed_memory() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
        const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
        // SAFETY: mallopt only changes glibc's allocation policy.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 32 << 20);
            mallopt(M_TRIM_THRESHOLD, 1 << 30);
        }
    });
}

/// The OpenMP runtime library for parallel loops: `OCANNL_OPENMP_LIB`, or
/// LLVM's `libomp.so` beside the MLIR the tool was built with.
pub fn openmp_runtime() -> String {
    std::env::var("OCANNL_OPENMP_LIB").unwrap_or_else(|_| {
        let prefix = option_env!("MLIR_SYS_220_PREFIX").unwrap_or("/usr/lib/llvm-22");
        format!("{prefix}/lib/libomp.so")
    })
}
