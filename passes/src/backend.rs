//! Backends by name: what compiles a module at the loops stage (the output
//! of `ocannl-lower-to-loops{target=...}`) into an
//! [`ocannl_runtime::Executable`] whose functions the callers run through
//! `ocannl-runtime`'s interface, whatever the backend.
//!
//! A backend registers itself ([`register_backend`]: `ocannl_cpu::install`
//! registers `cpu`, `ocannl_gpu::register` registers `cuda`), and
//! `ocannl_compiler::register_backends` registers them all: adding a
//! backend is its crate and one line there. The `ocannl` API and the tools
//! find a backend by name ([`backend`]) through `ocannl-compiler`, the one
//! compile path, and name nothing of it. The loop targets of
//! `ocannl-lower-to-loops` are registered beside (`conversion::
//! assign_to_loops::target`); a backend names the one its code is lowered
//! with.

use std::{collections::HashMap, sync::Mutex};

use melior::{
    ir::{operation::OperationLike, Module, OperationRef, Type, TypeLike, ValueLike},
    Context,
};
use ocannl_mlir::{ir, types};
use ocannl_runtime::{ArgInfo, CompileOptions, Elt, Error, Executable, Role, Signature, Slot};

/// A backend: compiles modules at the loops stage for some hardware, and
/// says when it cannot run there.
pub trait Backend: Send + Sync {
    /// The backend's name (`--device NAME`, `Trainer::new_on`).
    fn name(&self) -> &'static str;

    /// The loop target its modules are lowered with
    /// (`ocannl-lower-to-loops{target=NAME}`).
    fn loop_target(&self) -> &'static str;

    /// What takes `ocannl_assign` routines to the loops stage this backend
    /// compiles: by default `ocannl-lower-to-loops` for
    /// [`Backend::loop_target`], then `canonicalize` and `cse`
    /// ([`crate::pipelines::lower_to_loops`]). A backend that cleans up
    /// later (the CPU, after deduplicating its kernels, so that the cleanup
    /// runs on each distinct kernel once) lowers only. `options` are those
    /// the module is compiled with (a CPU's `target-cpu` plans its kernels).
    fn loops_pipeline(&self, options: &CompileOptions) -> crate::Pipeline {
        let _ = options;
        crate::pipelines::lower_to_loops(Some(self.loop_target()))
    }

    /// Why the backend cannot run code here, in one line (a GPU without
    /// its driver); `None` when it can. Compiling works regardless.
    fn unavailable(&self) -> Option<String> {
        None
    }

    /// What it runs on, in one line (`cpu`, `cuda:0 NVIDIA H100`), or why
    /// it cannot run.
    fn device_info(&self) -> Result<String, Error> {
        match self.unavailable() {
            Some(why) => Err(Error::device(why)),
            None => Ok(self.name().to_string()),
        }
    }

    /// The options a caller starts from.
    fn default_options(&self) -> CompileOptions {
        CompileOptions::default()
    }

    /// Compiles a module at the loops stage (lowered for
    /// [`Backend::loop_target`]); the module is lowered further in place.
    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        options: &CompileOptions,
    ) -> Result<Box<dyn Executable>, Error>;

    /// What decides the backend's code besides the module: the options
    /// that change it, its compiler's version, the machine it compiles for
    /// (one line, part of every cache key); `None` when its executables
    /// cannot be cached ([`Executable::serialize`] gives nothing).
    fn cache_tag(&self, options: &CompileOptions) -> Option<String> {
        let _ = options;
        None
    }

    /// A module at the loops stage compiled ahead of time into one
    /// self-contained artifact file's bytes, for each of `targets` (the
    /// backend's names of the machines to run on: GPU architectures; none:
    /// the backend's default), which a runtime without MLIR loads (the
    /// module is lowered further in place).
    fn artifact(
        &self,
        context: &Context,
        module: &mut Module,
        options: &CompileOptions,
        targets: &[String],
    ) -> Result<Vec<u8>, Error> {
        let _ = (context, module, options, targets);
        Err(Error::argument(format!(
            "the {} backend writes no artifacts",
            self.name()
        )))
    }

    /// The executable that [`Executable::serialize`] wrote, for `options`.
    fn load(&self, bytes: &[u8], options: &CompileOptions) -> Result<Box<dyn Executable>, Error> {
        let _ = (bytes, options);
        Err(Error::argument(format!(
            "the {} backend cannot load compiled code",
            self.name()
        )))
    }
}

/// What [`compile_cached`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheUse {
    /// The executable was loaded from the cache.
    Hit,
    /// It was compiled, and stored.
    Miss,
    /// It was compiled: no cache, or the backend cannot cache.
    Uncached,
}

/// What [`compile_cached`] gives.
pub struct Cached {
    pub executable: Box<dyn Executable>,
    /// The caller's bytes stored with it.
    pub extra: Vec<u8>,
    pub cache: CacheUse,
}

/// An executable of `backend` and the caller's bytes stored with it
/// (`extra`: what else the caller derived while compiling), taken from the
/// compilation cache of `options.cache` under the key of `key` (what
/// decides the compiled code, besides the backend's [`Backend::cache_tag`]
/// and the project's version, which are added here), else made by
/// `compile` and stored. An entry the backend cannot load is compiled
/// again and replaced.
pub fn compile_cached<E>(
    backend: &dyn Backend,
    options: &CompileOptions,
    key: &[&[u8]],
    compile: impl FnOnce() -> Result<(Box<dyn Executable>, Vec<u8>), E>,
) -> Result<Cached, E> {
    use ocannl_runtime::{
        bundle::Bundle,
        cache::{Cache, Key},
    };
    let Some(tag) = backend.cache_tag(options) else {
        let (executable, extra) = compile()?;
        return Ok(Cached {
            executable,
            extra,
            cache: CacheUse::Uncached,
        });
    };
    let cache = Cache::open(&options.cache, "executables");
    let mut parts: Vec<&[u8]> = vec![
        b"executable 1",
        env!("CARGO_PKG_VERSION").as_bytes(),
        backend.name().as_bytes(),
        tag.as_bytes(),
    ];
    parts.extend_from_slice(key);
    let key = Key::of(&parts);
    let loaded = cache.get(&key).and_then(|bytes| {
        let b = Bundle::from_bytes(&bytes)?;
        let exe = backend.load(b.get("executable")?, options).ok()?;
        Some((exe, b.get("extra")?.to_vec()))
    });
    if let Some((executable, extra)) = loaded {
        return Ok(Cached {
            executable,
            extra,
            cache: CacheUse::Hit,
        });
    }
    let (exe, extra) = compile()?;
    let stored = match exe.serialize() {
        Some(bytes) if cache.enabled() => {
            let mut b = Bundle::default();
            b.push("executable", bytes);
            b.push("extra", extra.clone());
            cache.put(&key, &b.to_bytes());
            CacheUse::Miss
        }
        _ => CacheUse::Uncached,
    };
    Ok(Cached {
        executable: exe,
        extra,
        cache: stored,
    })
}

static BACKENDS: Mutex<Vec<&'static dyn Backend>> = Mutex::new(Vec::new());

/// Makes `backend` known by its name (a later registration of the same name
/// replaces the earlier one).
pub fn register_backend(backend: &'static dyn Backend) {
    let mut r = BACKENDS.lock().unwrap_or_else(|p| p.into_inner());
    r.retain(|b| b.name() != backend.name());
    r.push(backend);
}

/// No backend has the name asked for; its message lists those registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBackend {
    /// The name asked for.
    pub name: String,
    /// The registered backends' names, sorted.
    pub known: Vec<&'static str>,
}

impl std::fmt::Display for UnknownBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = &self.name;
        if self.known.is_empty() {
            write!(f, "unknown backend '{name}' (no backend is registered)")
        } else {
            write!(
                f,
                "unknown backend '{name}' (the registered backends: {})",
                self.known.join(", ")
            )
        }
    }
}

impl std::error::Error for UnknownBackend {}

/// The backend named `name`, or an error listing the registered ones.
pub fn backend(name: &str) -> Result<&'static dyn Backend, UnknownBackend> {
    let r = BACKENDS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(b) = r.iter().find(|b| b.name() == name) {
        return Ok(*b);
    }
    drop(r);
    Err(UnknownBackend {
        name: name.to_string(),
        known: backends(),
    })
}

/// The names of the registered backends, sorted.
pub fn backends() -> Vec<&'static str> {
    let r = BACKENDS.lock().unwrap_or_else(|p| p.into_inner());
    let mut names: Vec<&'static str> = r.iter().map(|b| b.name()).collect();
    names.sort_unstable();
    names
}

/// The slot of an argument or result type at the loops stage: `index`, or
/// a memref of static sizes and f32 or f64 cells that can be a buffer.
pub fn slot(t: Type) -> Result<Slot, ocannl_mlir::Error> {
    use ocannl_mlir::Error;
    if t.is_index() {
        return Ok(Slot::Index);
    }
    let dims =
        types::memref_dims(t).ok_or_else(|| Error::unsupported(format!("unsupported type {t}")))?;
    if types::static_dims(t).is_some_and(|d| d.iter().any(|&x| x < 0)) {
        return Err(Error::unsupported(format!(
            "dynamic sizes are not supported in {t}"
        )));
    }
    let elt = types::element_type(t)
        .ok_or_else(|| Error::unsupported(format!("unsupported type {t}")))?;
    let text = elt.to_string();
    let elt = Elt::parse(&text).ok_or_else(|| {
        Error::unsupported(format!(
            "unsupported element type {text} (f32 and f64 are supported)"
        ))
    })?;
    ocannl_assign::check_buffer(&dims, elt.size())
        .map_err(|e| Error::unsupported(e.to_string()))?;
    Ok(Slot::MemRef { elt, dims })
}

/// The signature of a function at the loops stage.
pub fn signature(func: OperationRef) -> Result<Signature, ocannl_mlir::Error> {
    use ocannl_mlir::Error;
    let ft = ir::function_type(func).ok_or_else(|| Error::invalid("no function type"))?;
    let inputs = (0..ft.input_count())
        .map(|i| slot(ft.input(i).map_err(|e| Error::internal(e.to_string()))?))
        .collect::<Result<_, _>>()?;
    let outputs = (0..ft.result_count())
        .map(|i| slot(ft.result(i).map_err(|e| Error::internal(e.to_string()))?))
        .collect::<Result<_, _>>()?;
    Ok(Signature { inputs, outputs })
}

/// What each argument of a function is, as the passes marked it (the
/// argument ABI, `ocannl_dialect_spec::abi`): a param (`{ocannl.param =
/// NAME}`: its name), an update routine's gradient (`{ocannl.gradient =
/// NAME}`: the param's name), a train step's optimizer state
/// (`{ocannl.<kind> = PARAM}`: `kind:PARAM`, or the kind alone for the
/// routine's own) or learning rate (`learning_rate`), else data (`argN`).
pub fn arg_info(func: OperationRef) -> Vec<ArgInfo> {
    use crate::transforms::train_step::{state_arg, LEARNING_RATE};
    let count = ir::function_type(func).map_or(0, |t| t.input_count());
    (0..count)
        .map(|i| {
            if let Some(name) = ir::arg_string_attr(func, i, ocannl_dialect_spec::abi::PARAM) {
                return ArgInfo {
                    name,
                    role: Role::Param,
                };
            }
            if let Some(name) = ir::arg_string_attr(func, i, ocannl_dialect_spec::abi::GRADIENT) {
                return ArgInfo {
                    name,
                    role: Role::Gradient,
                };
            }
            if let Some((kind, param)) = state_arg(func, i) {
                let kind = kind.name().to_string();
                return ArgInfo {
                    name: if param.is_empty() {
                        kind.clone()
                    } else {
                        format!("{kind}:{param}")
                    },
                    role: Role::State(kind),
                };
            }
            if ir::arg_string_attr(func, i, LEARNING_RATE).is_some() {
                return ArgInfo {
                    name: "learning_rate".into(),
                    role: Role::LearningRate,
                };
            }
            ArgInfo {
                name: format!("arg{i}"),
                role: Role::Data,
            }
        })
        .collect()
}

/// The bytes of a static memref type (`u64::MAX` if it cannot be a
/// buffer).
fn memref_bytes(t: Type) -> u64 {
    let Some(dims) = types::memref_dims(t) else {
        return 0;
    };
    let elt = types::element_name(t).unwrap_or_default();
    let bytes = ocannl_assign::element_bytes(&elt).unwrap_or(8);
    ocannl_assign::check_buffer(&dims, bytes).map_or(u64::MAX, |n| n * bytes)
}

/// The most bytes a function's buffers take at once, following its
/// `memref.alloc`s and `memref.dealloc`s in program order (an allocation in
/// a loop counts once: it is freed in the same iteration). A call of a
/// function of the module adds, while it runs, that function's own peak
/// (a kernel's packing buffers, once the lowering outlined the loops).
pub fn peak_bytes(func: OperationRef) -> u64 {
    let functions = func
        .parent_operation()
        .map(ir::functions_by_name)
        .unwrap_or_default();
    peak_of(func, &functions, &mut HashMap::new(), 0)
}

/// [`peak_bytes`] of `func`, the callees' peaks kept in `known` (a call
/// nested deeper than a few levels, which the project does not make, adds
/// nothing).
fn peak_of(
    func: OperationRef,
    functions: &HashMap<String, OperationRef>,
    known: &mut HashMap<String, u64>,
    depth: usize,
) -> u64 {
    let (mut live, mut peak) = (0u64, 0u64);
    for op in ir::collect(func, |_| true) {
        match ir::name(&op).as_str() {
            "memref.alloc" => {
                if let Ok(r) = op.result(0) {
                    live = live.saturating_add(memref_bytes(r.r#type()));
                    peak = peak.max(live);
                }
            }
            "memref.dealloc" => {
                if let Ok(v) = op.operand(0) {
                    live = live.saturating_sub(memref_bytes(v.r#type()));
                }
            }
            "func.call" if depth < 4 => {
                let Some(callee) = ir::callee(op) else {
                    continue;
                };
                let inner = match known.get(&callee) {
                    Some(&b) => b,
                    None => {
                        let b = functions
                            .get(&callee)
                            .map_or(0, |&f| peak_of(f, functions, known, depth + 1));
                        known.insert(callee, b);
                        b
                    }
                };
                peak = peak.max(live.saturating_add(inner));
            }
            _ => {}
        }
    }
    peak
}
