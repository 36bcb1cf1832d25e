//! The CPU's JIT, on LLVM's C++ API (`cpp/jit.cpp`): a module in the LLVM
//! dialect is translated to LLVM IR and split into parts ([`split`]), the
//! parts are compiled into object files on threads, each object kept in
//! the compilation cache under a key of everything that decides it
//! ([`objects`]), and the objects are linked in an ORC JIT ([`Jit`]).
//!
//! A part is a root with what only it reaches: a public function (with
//! its C interface and the packed wrappers `_mlir_<name>` MLIR's
//! `ExecutionEngine` adds, that of the C interface only when there is
//! one), or a function the caller names (an outlined
//! kernel); what several roots share is one more part. A part's bitcode
//! depends on its code only (declarations it does not use are removed,
//! its functions and variables come in a canonical order), so one kernel
//! gives the same bytes, and the same cache entry, in any module.

use std::{
    ffi::{c_char, c_int, c_void, CStr, CString},
    num::NonZeroUsize,
    ptr::NonNull,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Mutex, OnceLock,
    },
};

use melior::ir::Module;
use ocannl_runtime::cache::{Cache, Key};

mod ffi;

/// The layout of the cache's entries: an object file for a machine, for
/// the JIT to link (position-independent, small code model). Changed when
/// what [`compile`] makes of the same bitcode changes.
const OBJECT_FORMAT: &[u8] = b"ocannl-cpu object 2 (ELF, PIC, small code model)";

/// The cache's namespace of the CPU's objects.
pub const CACHE_NAMESPACE: &str = "cpu-objects";

/// A message from C++ (null: no error), freed here.
fn take_error(message: *mut c_char) -> Result<(), String> {
    if message.is_null() {
        return Ok(());
    }
    // SAFETY: a non-null result of the C++ functions is a NUL-terminated
    // string they allocated with malloc, given to the caller to free once.
    let text = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: as above; it is not used after this.
    unsafe { ffi::ocannl_jit_free(message as *mut c_void) };
    Err(text)
}

/// LLVM's version (`22.1.8`).
pub fn llvm_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        // SAFETY: returns a pointer to a static NUL-terminated string.
        unsafe { CStr::from_ptr(ffi::ocannl_jit_llvm_version()) }
            .to_string_lossy()
            .into_owned()
    })
}

/// What code is compiled for: an LLVM triple, CPU and features. The host's
/// by default; `OCANNL_TARGET_CPU` or the compile option `target-cpu`
/// name another CPU LLVM knows (`x86-64-v3`, `skylake-avx512`,
/// `neoverse-n1`), for which the kernels are then planned and the parts
/// compiled: an AVX-512 machine runs AVX2 code so.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Machine {
    pub triple: String,
    pub cpu: String,
    /// LLVM's feature string (`+avx2,+fma,...`; the host's also lists
    /// what it lacks, `-avx512f`).
    pub features: String,
    /// Whether this is the host's description.
    pub host: bool,
}

/// The environment variable naming the CPU to compile for.
pub const TARGET_CPU_ENV: &str = "OCANNL_TARGET_CPU";

impl Machine {
    /// The host.
    pub fn host() -> &'static Machine {
        static HOST: OnceLock<Machine> = OnceLock::new();
        HOST.get_or_init(|| {
            describe("").unwrap_or_else(|_| Machine {
                triple: "unknown".into(),
                cpu: "unknown".into(),
                features: String::new(),
                host: true,
            })
        })
    }

    /// The CPU LLVM knows as `cpu` (an empty name, or `native`: the host).
    pub fn named(cpu: &str) -> Result<Machine, ocannl_runtime::Error> {
        static NAMED: Mutex<Vec<Machine>> = Mutex::new(Vec::new());
        let cpu = cpu.trim();
        if cpu.is_empty() || cpu == "native" || cpu == "host" {
            return Ok(Machine::host().clone());
        }
        let mut known = NAMED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = known.iter().find(|m| m.cpu == cpu) {
            return Ok(m.clone());
        }
        let m = describe(cpu).map_err(ocannl_runtime::Error::argument)?;
        known.push(m.clone());
        Ok(m)
    }

    /// The machine the compile options ask for: the option `target-cpu`,
    /// else [`TARGET_CPU_ENV`], else the host.
    pub fn of(options: &ocannl_runtime::CompileOptions) -> Result<Machine, ocannl_runtime::Error> {
        match options.get("target-cpu") {
            Some(name) => Machine::named(name),
            None => Machine::named(&std::env::var(TARGET_CPU_ENV).unwrap_or_default()),
        }
    }

    /// `triple;cpu;features`: what an object depends on (cache keys).
    pub fn key(&self) -> String {
        format!("{};{};{}", self.triple, self.cpu, self.features)
    }

    /// Features it has (`+f`).
    pub fn has(&self) -> Vec<&str> {
        self.features
            .split(',')
            .filter_map(|f| f.strip_prefix('+'))
            .collect()
    }

    /// The description the kernels are planned from (the OS's cache
    /// sizes for the host, defaults for another CPU).
    pub fn target(&self) -> ocannl_cpu_plan::target::Target {
        use ocannl_cpu_plan::target::{host_caches, Caches, Target};
        let caches = if self.host {
            host_caches()
        } else {
            Caches::DEFAULT
        };
        Target::from_features(&self.triple, &self.cpu, &self.has(), caches)
    }

    /// Whether code for it runs on this host: the same architecture, and
    /// no feature the host lacks.
    pub fn check_runs_here(&self) -> Result<(), ocannl_runtime::Error> {
        let host = Machine::host();
        if self.host {
            return Ok(());
        }
        let arch = |t: &str| t.split('-').next().unwrap_or_default().to_string();
        if arch(&self.triple) != arch(&host.triple) {
            return Err(ocannl_runtime::Error::argument(format!(
                "the target CPU {} runs {} code; this host runs {} code",
                self.cpu,
                arch(&self.triple),
                arch(&host.triple)
            )));
        }
        let host_has = host.has();
        let missing: Vec<&str> = self
            .has()
            .into_iter()
            .filter(|f| !host_has.contains(f) && is_instruction_set(f))
            .collect();
        if !missing.is_empty() {
            return Err(ocannl_runtime::Error::argument(format!(
                "the target CPU {} has {}, which this host ({}) lacks",
                self.cpu,
                missing.join(", "),
                host.cpu
            )));
        }
        Ok(())
    }
}

/// Whether an LLVM feature is a set of instructions the host must have to
/// run code that uses it (not a tuning, such as `fast-gather` or
/// `prefer-256-bit`, that LLVM lists among a CPU's features).
fn is_instruction_set(feature: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "avx", "sse", "fma", "f16c", "bmi", "popcnt", "lzcnt", "movbe", "amx", "vaes", "vpclmul",
        "gfni", "sha", "aes", "pclmul", "neon", "sve", "fp-armv8", "fullfp16", "bf16", "i8mm",
        "dotprod",
    ];
    PREFIXES.iter().any(|p| feature.starts_with(p))
}

/// LLVM's description of the CPU `cpu` (empty: the host).
fn describe(cpu: &str) -> Result<Machine, String> {
    let name = CString::new(cpu).map_err(|_| format!("a NUL byte in the CPU name {cpu:?}"))?;
    let mut out: *mut c_char = std::ptr::null_mut();
    // SAFETY: `name` is NUL-terminated and alive for the call; `out` is an
    // out-pointer.
    take_error(unsafe { ffi::ocannl_jit_describe(name.as_ptr(), &mut out) })?;
    if out.is_null() {
        return Err("internal error: no description".into());
    }
    // SAFETY: a NUL-terminated string allocated by the C++ side.
    let text = unsafe { CStr::from_ptr(out) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: freed once, not used after.
    unsafe { ffi::ocannl_jit_free(out as *mut c_void) };
    let mut fields = text.splitn(3, ';');
    let (Some(triple), Some(cpu_name), Some(features)) =
        (fields.next(), fields.next(), fields.next())
    else {
        return Err(format!("internal error: a malformed description {text:?}"));
    };
    Ok(Machine {
        triple: triple.into(),
        cpu: cpu_name.into(),
        features: vector_width(triple, features),
        host: cpu.is_empty(),
    })
}

/// LLVM's `features` with the loop vectorizer's width set to the target
/// description's vector width (`ocannl_cpu_plan::target::Target`): on an
/// x86 CPU with AVX-512, 64 bytes, as the contraction kernel's vectors,
/// where LLVM's tuning of most AVX-512 CPUs (`prefer-256-bit`) widens loops
/// to 32 bytes only. Measured on an Emerald Rapids core, an element-wise
/// kernel of `exp` ran 25% faster so.
fn vector_width(triple: &str, features: &str) -> String {
    let avx512 = features.split(',').any(|f| f == "+avx512f");
    if triple.starts_with("x86_64") && avx512 {
        let kept: Vec<&str> = features
            .split(',')
            .filter(|f| !f.is_empty() && f.trim_start_matches(['+', '-']) != "prefer-256-bit")
            .collect();
        format!("{},-prefer-256-bit", kept.join(","))
    } else {
        features.to_string()
    }
}

/// The machine as the C ABI takes it.
struct MachineText {
    triple: CString,
    cpu: CString,
    features: CString,
}

impl MachineText {
    fn of(m: &Machine) -> Result<MachineText, String> {
        let c = |s: &str| {
            CString::new(s).map_err(|_| "a NUL byte in the machine's description".to_string())
        };
        Ok(MachineText {
            triple: c(&m.triple)?,
            cpu: c(&m.cpu)?,
            features: c(&m.features)?,
        })
    }
}

/// One part of a split module.
#[derive(Clone, Debug)]
pub struct Part {
    /// Its root: a public function's or a named function's name; empty for
    /// the part of what several roots share.
    pub root: String,
    /// Its LLVM bitcode.
    pub bitcode: Vec<u8>,
}

/// Translates a module in the LLVM dialect to LLVM IR, adds the packed
/// wrappers `_mlir_<name>` of its external functions and splits it into
/// parts: one per public function and per function of `roots`, in the
/// module's order, and the shared part last if there is one.
pub fn split(
    module: &Module,
    roots: &[String],
    machine: &Machine,
) -> Result<Vec<Part>, ocannl_runtime::Error> {
    split_text(module, roots, machine).map_err(ocannl_runtime::Error::compile)
}

fn split_text(module: &Module, roots: &[String], machine: &Machine) -> Result<Vec<Part>, String> {
    let m = MachineText::of(machine)?;
    let names: Vec<CString> = roots
        .iter()
        .map(|r| CString::new(r.as_str()).map_err(|_| format!("a NUL byte in the name {r:?}")))
        .collect::<Result<_, _>>()?;
    let pointers: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let mut parts: *mut ffi::Parts = std::ptr::null_mut();
    // SAFETY: the module's operation is alive for the call (borrowed), the
    // names are NUL-terminated strings alive for the call, and `parts` is
    // an out-pointer.
    take_error(unsafe {
        ffi::ocannl_jit_split(
            module.as_operation().to_raw(),
            pointers.as_ptr(),
            pointers.len(),
            m.triple.as_ptr(),
            m.cpu.as_ptr(),
            m.features.as_ptr(),
            &mut parts,
        )
    })?;
    let Some(parts) = NonNull::new(parts) else {
        return Err("internal error: the module was split into nothing".into());
    };
    // SAFETY: `parts` is the live result of the split above.
    let n = unsafe { ffi::ocannl_jit_parts_count(parts.as_ptr()) };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (mut root, mut root_len) = (std::ptr::null(), 0usize);
        let (mut bitcode, mut bitcode_len) = (std::ptr::null(), 0usize);
        // SAFETY: `i` is below the count; the out-pointers are locals.
        unsafe {
            ffi::ocannl_jit_parts_get(
                parts.as_ptr(),
                i,
                &mut root,
                &mut root_len,
                &mut bitcode,
                &mut bitcode_len,
            )
        };
        // SAFETY: the C++ side gives pointers to `root_len` and
        // `bitcode_len` bytes it owns until the parts are destroyed below.
        let (root, bitcode) = unsafe {
            (
                std::slice::from_raw_parts(root as *const u8, root_len),
                std::slice::from_raw_parts(bitcode, bitcode_len),
            )
        };
        out.push(Part {
            root: String::from_utf8_lossy(root).into_owned(),
            bitcode: bitcode.to_vec(),
        });
    }
    // SAFETY: destroyed once; nothing borrowed from it is kept.
    unsafe { ffi::ocannl_jit_parts_destroy(parts.as_ptr()) };
    Ok(out)
}

/// Compiles one part's bitcode into an object file for `machine` at
/// optimization level `level` (0 to 3; the IR pipeline `default<O{level}>`
/// and code generation at that level), with LLVM's SLP vectorizer if
/// `slp`. Any number of threads may compile at once.
pub fn compile(
    bitcode: &[u8],
    level: u32,
    slp: bool,
    machine: &Machine,
) -> Result<Vec<u8>, ocannl_runtime::Error> {
    compile_text(bitcode, level, slp, machine).map_err(ocannl_runtime::Error::compile)
}

fn compile_text(
    bitcode: &[u8],
    level: u32,
    slp: bool,
    machine: &Machine,
) -> Result<Vec<u8>, String> {
    let m = MachineText::of(machine)?;
    let mut object: *mut u8 = std::ptr::null_mut();
    let mut len = 0usize;
    // SAFETY: the bitcode is `bitcode.len()` readable bytes for the call;
    // the out-pointers are locals.
    take_error(unsafe {
        ffi::ocannl_jit_compile(
            bitcode.as_ptr(),
            bitcode.len(),
            level,
            c_int::from(slp),
            m.triple.as_ptr(),
            m.cpu.as_ptr(),
            m.features.as_ptr(),
            &mut object,
            &mut len,
        )
    })?;
    if object.is_null() {
        return Err("internal error: no object file".into());
    }
    // SAFETY: on success the C++ side gives `len` bytes it malloc'd.
    let bytes = unsafe { std::slice::from_raw_parts(object, len) }.to_vec();
    // SAFETY: freed once, not used after (copied above).
    unsafe { ffi::ocannl_jit_free(object as *mut c_void) };
    Ok(bytes)
}

/// The cache key of a part's object: its bitcode, how it is compiled, and
/// what else decides the object (the machine, LLVM's and the crate's
/// versions, the object's format).
pub fn key(bitcode: &[u8], level: u32, slp: bool, machine: &Machine) -> Key {
    Key::of(&[
        OBJECT_FORMAT,
        bitcode,
        &level.to_le_bytes(),
        &[u8::from(slp)],
        machine.key().as_bytes(),
        llvm_version().as_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
    ])
}

/// How to compile the parts of a module.
pub struct Settings<'a> {
    /// The optimization level of each part.
    pub levels: Vec<u32>,
    /// LLVM's SLP vectorizer on.
    pub slp: bool,
    /// At most this many threads compile at once.
    pub threads: NonZeroUsize,
    /// Where objects are looked up and stored.
    pub cache: &'a Cache,
    /// What they are compiled for.
    pub machine: &'a Machine,
}

/// The objects of a module's parts, and where they came from.
pub struct Objects {
    /// One object file per part, in the parts' order.
    pub objects: Vec<Vec<u8>>,
    /// Parts compiled here.
    pub compiled: usize,
    /// Parts whose object came from the cache.
    pub cached: usize,
}

/// The object file of each part: from the cache, or compiled (on up to
/// `settings.threads` threads, the largest parts first) and stored.
pub(crate) fn objects(parts: &[Part], settings: &Settings) -> Result<Objects, String> {
    let keys: Vec<Key> = parts
        .iter()
        .zip(&settings.levels)
        .map(|(p, &level)| key(&p.bitcode, level, settings.slp, settings.machine))
        .collect();
    let mut objects: Vec<Option<Vec<u8>>> = keys
        .iter()
        .map(|k| {
            if settings.cache.enabled() {
                settings.cache.get(k)
            } else {
                None
            }
        })
        .collect();
    let cached = objects.iter().filter(|o| o.is_some()).count();
    let mut missing: Vec<usize> = (0..parts.len()).filter(|&i| objects[i].is_none()).collect();
    // The largest first, so that a long one does not start last.
    missing.sort_by_key(|&i| std::cmp::Reverse(parts[i].bitcode.len()));
    let results = compile_all(parts, &missing, settings);
    for (&i, result) in missing.iter().zip(results) {
        let object = result.map_err(|e| match parts[i].root.as_str() {
            "" => format!("compiling the functions the module's parts share: {e}"),
            root => format!("compiling @{root}: {e}"),
        })?;
        settings.cache.put(&keys[i], &object);
        objects[i] = Some(object);
    }
    Ok(Objects {
        objects: objects.into_iter().map(Option::unwrap_or_default).collect(),
        compiled: missing.len(),
        cached,
    })
}

/// An object file, or why a part did not compile.
type Compiled = Result<Vec<u8>, String>;

/// Compiles the parts `which` on up to `settings.threads` threads; the
/// results in the order of `which`.
fn compile_all(parts: &[Part], which: &[usize], settings: &Settings) -> Vec<Compiled> {
    let results: Vec<Mutex<Option<Compiled>>> = which.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        let Some(&i) = which.get(k) else { break };
        let object = compile_text(
            &parts[i].bitcode,
            settings.levels[i],
            settings.slp,
            settings.machine,
        );
        *results[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(object);
    };
    let threads = settings.threads.get().min(which.len());
    if threads <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            let spawned = (0..threads)
                .filter(|_| {
                    // LLVM recurses deeply on large functions: the stack of
                    // a main thread, not the 2 MiB of a spawned one.
                    std::thread::Builder::new()
                        .name("ocannl-codegen".into())
                        .stack_size(64 << 20)
                        .spawn_scoped(s, work)
                        .is_ok()
                })
                .count();
            if spawned == 0 {
                work();
            }
        });
    }
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| Err("internal error: a part was not compiled".into()))
        })
        .collect()
}

/// An ORC JIT linking object files against the process's symbols and some
/// shared libraries. Code it links stays alive as long as it does.
pub struct Jit {
    raw: NonNull<ffi::Jit>,
}

impl Jit {
    /// A JIT for the host; `libs` (paths) are loaded for good and searched
    /// for symbols the objects need, after the process's own.
    pub(crate) fn new(libs: &[&str]) -> Result<Jit, String> {
        let names: Vec<CString> = libs
            .iter()
            .map(|l| CString::new(*l).map_err(|_| format!("a NUL byte in the path {l:?}")))
            .collect::<Result<_, _>>()?;
        let pointers: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let mut raw: *mut ffi::Jit = std::ptr::null_mut();
        // SAFETY: NUL-terminated paths alive for the call; `raw` is an
        // out-pointer.
        take_error(unsafe { ffi::ocannl_jit_create(pointers.as_ptr(), pointers.len(), &mut raw) })?;
        let raw = NonNull::new(raw).ok_or("internal error: no JIT")?;
        Ok(Jit { raw })
    }

    /// Adds an object file (copied); it is linked when a symbol it defines
    /// is first looked up.
    pub(crate) fn add_object(&mut self, object: &[u8]) -> Result<(), String> {
        // SAFETY: the JIT is alive and used by one thread at a time (`&mut
        // self`); the bytes are readable for the call, which copies them.
        take_error(unsafe {
            ffi::ocannl_jit_add_object(self.raw.as_ptr(), object.as_ptr(), object.len())
        })
    }

    /// The address of a symbol of the objects (linking what it needs).
    pub(crate) fn lookup(&mut self, name: &str) -> Result<NonNull<c_void>, String> {
        let c = CString::new(name).map_err(|_| format!("a NUL byte in the name {name:?}"))?;
        let mut address = 0u64;
        // SAFETY: the JIT is alive and used by one thread at a time; the
        // name is a NUL-terminated string alive for the call.
        take_error(unsafe { ffi::ocannl_jit_lookup(self.raw.as_ptr(), c.as_ptr(), &mut address) })?;
        NonNull::new(address as usize as *mut c_void)
            .ok_or_else(|| format!("the symbol {name} is at address 0"))
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: created by `ocannl_jit_create`, destroyed once; addresses
        // looked up in it are not used after (their owners hold the JIT).
        unsafe { ffi::ocannl_jit_destroy(self.raw.as_ptr()) };
    }
}

#[cfg(test)]
mod tests {
    use crate::jit::vector_width;

    #[test]
    fn loops_are_vectorized_at_the_targets_width() {
        assert_eq!(
            vector_width("x86_64-unknown-linux-gnu", "+avx2,+avx512f,+prefer-256-bit"),
            "+avx2,+avx512f,-prefer-256-bit"
        );
        assert_eq!(
            vector_width("x86_64-unknown-linux-gnu", "+avx2,+avx512f,-amx-tile"),
            "+avx2,+avx512f,-amx-tile,-prefer-256-bit"
        );
        // Without AVX-512 (or with it turned off) LLVM's choice stands.
        for f in ["+avx2,+fma", "+avx2,-avx512f,+prefer-256-bit"] {
            assert_eq!(vector_width("x86_64-unknown-linux-gnu", f), f);
        }
        assert_eq!(vector_width("aarch64-unknown-linux-gnu", "+neon"), "+neon");
    }
}
