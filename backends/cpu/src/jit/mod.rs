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

/// The layout of the cache's entries: an object file for the host, for
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

/// The host CPU's name and LLVM's features of it (`name;+f1,-f2,...`),
/// what the objects are compiled for.
pub fn host() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        // SAFETY: no arguments; the result is null or a malloc'd string.
        let p = unsafe { ffi::ocannl_jit_host() };
        if p.is_null() {
            return "unknown".into();
        }
        // SAFETY: a NUL-terminated string allocated by the C++ side.
        let text = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        // SAFETY: freed once, not used after.
        unsafe { ffi::ocannl_jit_free(p as *mut c_void) };
        text
    })
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
pub fn split(module: &Module, roots: &[String]) -> Result<Vec<Part>, ocannl_runtime::Error> {
    split_text(module, roots).map_err(ocannl_runtime::Error::compile)
}

fn split_text(module: &Module, roots: &[String]) -> Result<Vec<Part>, String> {
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

/// Compiles one part's bitcode into an object file for the host at
/// optimization level `level` (0 to 3; the IR pipeline `default<O{level}>`
/// and code generation at that level), with LLVM's SLP vectorizer if
/// `slp`. Any number of threads may compile at once.
pub fn compile(bitcode: &[u8], level: u32, slp: bool) -> Result<Vec<u8>, ocannl_runtime::Error> {
    compile_text(bitcode, level, slp).map_err(ocannl_runtime::Error::compile)
}

fn compile_text(bitcode: &[u8], level: u32, slp: bool) -> Result<Vec<u8>, String> {
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
/// what else decides the object (the host CPU, LLVM's and the crate's
/// versions, the object's format).
pub fn key(bitcode: &[u8], level: u32, slp: bool) -> Key {
    Key::of(&[
        OBJECT_FORMAT,
        bitcode,
        &level.to_le_bytes(),
        &[u8::from(slp)],
        host().as_bytes(),
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
        .map(|(p, &level)| key(&p.bitcode, level, settings.slp))
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
        let object = compile_text(&parts[i].bitcode, settings.levels[i], settings.slp);
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
