//! What every backend's runtime shares, in plain Rust: the one interface
//! between compiled code and its callers (the `ocannl` API, `ocannl-run`).
//!
//! - [`HostTensor`] and [`HostValue`]: the arguments and results of a
//!   compiled function, on the host, a tensor's [`Cells`] in its element
//!   type; [`Slot`] and [`Signature`]: the types of a function's arguments
//!   and results.
//! - [`Executable`]: a compiled module, whose functions are prepared for
//!   calls; [`Session`]: a function with its arguments in the backend's
//!   memory (kept across invocations: params a train step updates in place
//!   stay where they are), invoked any number of times.
//! - [`CompileOptions`]: what a caller asks of a backend's compiler (the
//!   optimization level, a memory limit, and options by name that only some
//!   backends know).
//! - [`bundle`]: named sections of bytes in one buffer (what an executable
//!   or a trainer keeps in the cache), and signatures as one line of text.
//! - [`cache`]: the persistent compilation cache on disk (entries keyed by
//!   a hash of what decides them, checked when read, written atomically).
//! - [`npy`]: `.npy` files read into and written from host tensors (the one
//!   reader and writer of the project).
//! - [`args`]: arguments made from command-line specs (`.npy` files,
//!   `range`, `random:SEED`, `fill:X`, integers) and results printed as
//!   text, shared by the command-line runners.
//! - [`ArgInfo`] and [`Role`]: what each argument of a compiled function is
//!   (data, a param, optimizer state, the learning rate) and its name.
//!
//! Backends implement the traits (`ocannl-cpu`: an LLVM JIT; `ocannl-gpu`
//! and `ocannl-gpu-runtime`: CUDA); `ocannl_passes::backend` finds them by
//! name.
//!
//! Architecture invariant: no MLIR, no CUDA.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt,
    time::Duration,
};

pub mod args;
pub mod bundle;
pub mod cache;
pub mod error;
pub mod npy;
pub mod profile;
pub mod safetensors;

/// An element type the runtimes exchange.
pub use error::{Error, Kind};
pub use ocannl_assign::Elt;
pub use profile::{KernelProfile, Profile};

/// The cells of a host tensor in its element type (row-major): the
/// variant is the element type.
#[derive(Clone, Debug, PartialEq)]
pub enum Cells {
    F16(Vec<half::f16>),
    BF16(Vec<half::bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// A cell type whose values are plain bytes.
///
/// # Safety
/// The type has no padding and every bit pattern of its size is a value.
unsafe trait Plain: Copy + Default {}

// SAFETY: 2 bytes (a `u16` wrapper), no padding; every bit pattern is an
// f16 (NaNs included).
unsafe impl Plain for half::f16 {}
// SAFETY: 2 bytes (a `u16` wrapper), no padding; every bit pattern is a
// bf16 (NaNs included).
unsafe impl Plain for half::bf16 {}
// SAFETY: 4 bytes, no padding; every bit pattern is an f32 (NaNs included).
unsafe impl Plain for f32 {}
// SAFETY: 8 bytes, no padding; every bit pattern is an f64 (NaNs included).
unsafe impl Plain for f64 {}

/// The bytes of `cells`.
fn plain_bytes<T: Plain>(cells: &[T]) -> &[u8] {
    // SAFETY: `T` has no padding (Plain), so its bytes are initialized u8s;
    // u8 needs no alignment, and the slice covers exactly the cells, for
    // as long as they are borrowed.
    unsafe { std::slice::from_raw_parts(cells.as_ptr().cast::<u8>(), std::mem::size_of_val(cells)) }
}

/// The bytes of `cells`, to write.
fn plain_bytes_mut<T: Plain>(cells: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `plain_bytes`; besides, any bytes written make values
    // of `T` (Plain), and the mutable borrow of the cells is the slice's.
    unsafe {
        std::slice::from_raw_parts_mut(
            cells.as_mut_ptr().cast::<u8>(),
            std::mem::size_of_val(cells),
        )
    }
}

/// A vector of `n` default values, or an error instead of aborting when the
/// memory cannot be had.
fn try_vec<T: Plain>(n: u64) -> Result<Vec<T>, Error> {
    let bytes = n.saturating_mul(std::mem::size_of::<T>() as u64);
    let len = usize::try_from(n)
        .map_err(|_| Error::memory(format!("cannot hold {n} cells on this machine")))?;
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::memory(format!("cannot allocate {n} cells ({bytes} bytes)")))?;
    v.resize(len, T::default());
    Ok(v)
}

impl Cells {
    /// The element type.
    pub fn elt(&self) -> Elt {
        match self {
            Cells::F16(_) => Elt::F16,
            Cells::BF16(_) => Elt::BF16,
            Cells::F32(_) => Elt::F32,
            Cells::F64(_) => Elt::F64,
        }
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        match self {
            Cells::F16(v) => v.len(),
            Cells::BF16(v) => v.len(),
            Cells::F32(v) => v.len(),
            Cells::F64(v) => v.len(),
        }
    }

    /// Whether there are no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `n` zeros of `elt`.
    pub fn zeros(elt: Elt, n: usize) -> Cells {
        match elt {
            Elt::F16 => Cells::F16(vec![half::f16::ZERO; n]),
            Elt::BF16 => Cells::BF16(vec![half::bf16::ZERO; n]),
            Elt::F32 => Cells::F32(vec![0.0; n]),
            Elt::F64 => Cells::F64(vec![0.0; n]),
        }
    }

    /// `n` zeros of `elt`, or an error instead of aborting when the memory
    /// cannot be had.
    pub fn try_zeros(elt: Elt, n: u64) -> Result<Cells, Error> {
        Ok(match elt {
            Elt::F16 => Cells::F16(try_vec(n)?),
            Elt::BF16 => Cells::BF16(try_vec(n)?),
            Elt::F32 => Cells::F32(try_vec(n)?),
            Elt::F64 => Cells::F64(try_vec(n)?),
        })
    }

    /// `values` as cells of `elt`, each rounded to it.
    pub fn from_f64(elt: Elt, values: impl IntoIterator<Item = f64>) -> Cells {
        let values = values.into_iter();
        match elt {
            Elt::F16 => Cells::F16(values.map(f16_of).collect()),
            Elt::BF16 => Cells::BF16(values.map(bf16_of).collect()),
            Elt::F32 => Cells::F32(values.map(|x| x as f32).collect()),
            Elt::F64 => Cells::F64(values.collect()),
        }
    }

    /// Sets cell `k` to `value(k)`, rounded to the element type, for each
    /// cell in order.
    pub fn fill_with(&mut self, mut value: impl FnMut(usize) -> f64) {
        match self {
            Cells::F16(v) => v
                .iter_mut()
                .enumerate()
                .for_each(|(k, c)| *c = f16_of(value(k))),
            Cells::BF16(v) => v
                .iter_mut()
                .enumerate()
                .for_each(|(k, c)| *c = bf16_of(value(k))),
            Cells::F32(v) => v
                .iter_mut()
                .enumerate()
                .for_each(|(k, c)| *c = value(k) as f32),
            Cells::F64(v) => v.iter_mut().enumerate().for_each(|(k, c)| *c = value(k)),
        }
    }

    /// The cells as f64 values (exact for every element type).
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            Cells::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Cells::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Cells::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Cells::F64(v) => v.clone(),
        }
    }

    /// The cells, if f32.
    pub fn as_f32(&self) -> Option<&[f32]> {
        match self {
            Cells::F32(v) => Some(v),
            _ => None,
        }
    }

    /// The cells, if f64.
    pub fn as_f64(&self) -> Option<&[f64]> {
        match self {
            Cells::F64(v) => Some(v),
            _ => None,
        }
    }

    /// The cells' bytes in the machine's byte order (no copy).
    pub fn bytes(&self) -> &[u8] {
        match self {
            Cells::F16(v) => plain_bytes(v),
            Cells::BF16(v) => plain_bytes(v),
            Cells::F32(v) => plain_bytes(v),
            Cells::F64(v) => plain_bytes(v),
        }
    }

    /// The cells' bytes in the machine's byte order, to write in place.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Cells::F16(v) => plain_bytes_mut(v),
            Cells::BF16(v) => plain_bytes_mut(v),
            Cells::F32(v) => plain_bytes_mut(v),
            Cells::F64(v) => plain_bytes_mut(v),
        }
    }

    /// Cells of `elt` from their bytes in the machine's byte order (a
    /// whole number of cells).
    pub fn from_bytes(elt: Elt, bytes: &[u8]) -> Result<Cells, Error> {
        let size = elt.size();
        if !(bytes.len() as u64).is_multiple_of(size) {
            return Err(Error::format(format!(
                "{} bytes are not a whole number of {} cells ({size} bytes each)",
                bytes.len(),
                elt.name()
            )));
        }
        let mut cells = Cells::try_zeros(elt, bytes.len() as u64 / size)?;
        cells.bytes_mut().copy_from_slice(bytes);
        Ok(cells)
    }
}

/// `x` as an f16, rounded as [`Elt::round`] rounds.
fn f16_of(x: f64) -> half::f16 {
    half::f16::from_f32(x as f32)
}

/// `x` as a bf16, rounded as [`Elt::round`] rounds.
fn bf16_of(x: f64) -> half::bf16 {
    half::bf16::from_f32(x as f32)
}

impl From<Vec<half::f16>> for Cells {
    fn from(v: Vec<half::f16>) -> Cells {
        Cells::F16(v)
    }
}

impl From<Vec<half::bf16>> for Cells {
    fn from(v: Vec<half::bf16>) -> Cells {
        Cells::BF16(v)
    }
}

impl From<Vec<f32>> for Cells {
    fn from(v: Vec<f32>) -> Cells {
        Cells::F32(v)
    }
}

impl From<Vec<f64>> for Cells {
    fn from(v: Vec<f64>) -> Cells {
        Cells::F64(v)
    }
}

/// A buffer on the host: its sizes (row-major) and its cells, whose
/// variant is its element type.
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    pub dims: Vec<u64>,
    pub data: Cells,
}

impl HostTensor {
    /// A tensor of `dims` holding `data`.
    pub fn new(dims: Vec<u64>, data: impl Into<Cells>) -> HostTensor {
        HostTensor {
            dims,
            data: data.into(),
        }
    }

    /// An f32 tensor.
    pub fn f32(dims: Vec<u64>, data: Vec<f32>) -> HostTensor {
        HostTensor::new(dims, data)
    }

    /// An f64 tensor.
    pub fn f64(dims: Vec<u64>, data: Vec<f64>) -> HostTensor {
        HostTensor::new(dims, data)
    }

    /// A tensor of `elt` and `dims` of zeros.
    pub fn zeros(elt: Elt, dims: Vec<u64>) -> HostTensor {
        let n = dims.iter().product::<u64>() as usize;
        HostTensor {
            dims,
            data: Cells::zeros(elt, n),
        }
    }

    /// A tensor of `elt` and `dims` of zeros, its sizes checked
    /// (`ocannl_assign::check_buffer`), or an error instead of aborting when
    /// the memory cannot be had.
    pub fn try_zeros(elt: Elt, dims: Vec<u64>) -> Result<HostTensor, Error> {
        let n = ocannl_assign::check_buffer(&dims, elt.size())
            .map_err(|e| Error::memory(e.to_string()))?;
        Ok(HostTensor {
            dims,
            data: Cells::try_zeros(elt, n)?,
        })
    }

    /// A tensor of `elt` and `dims` of `values`, each rounded to `elt`.
    pub fn from_f64(elt: Elt, dims: Vec<u64>, values: impl IntoIterator<Item = f64>) -> HostTensor {
        HostTensor {
            dims,
            data: Cells::from_f64(elt, values),
        }
    }

    /// A tensor of `elt` and `dims` from its cells' bytes in the machine's
    /// byte order, checked ([`HostTensor::check`]).
    pub fn from_bytes(elt: Elt, dims: Vec<u64>, bytes: &[u8]) -> Result<HostTensor, Error> {
        let t = HostTensor {
            dims,
            data: Cells::from_bytes(elt, bytes)?,
        };
        t.check().map_err(|e| e.as_kind(Kind::Format))?;
        Ok(t)
    }

    /// The element type.
    pub fn elt(&self) -> Elt {
        self.data.elt()
    }

    /// The number of cells held.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether no cells are held.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The cells as f64 values (exact for f32 and f64).
    pub fn to_f64(&self) -> Vec<f64> {
        self.data.to_f64()
    }

    /// The cells, if f32.
    pub fn as_f32(&self) -> Option<&[f32]> {
        self.data.as_f32()
    }

    /// The cells, if f64.
    pub fn as_f64(&self) -> Option<&[f64]> {
        self.data.as_f64()
    }

    /// The cells' bytes in the machine's byte order (no copy).
    pub fn bytes(&self) -> &[u8] {
        self.data.bytes()
    }

    /// The number of cells, checked: sizes that make a buffer
    /// (`ocannl_assign::check_buffer`) and one value per cell.
    pub fn check(&self) -> Result<u64, Error> {
        let cells = ocannl_assign::check_buffer(&self.dims, self.elt().size())
            .map_err(|e| Error::argument(e.to_string()))?;
        if self.len() as u64 != cells {
            return Err(Error::argument(format!(
                "{} values for a tensor of shape {:?} ({cells} cells)",
                self.len(),
                self.dims
            )));
        }
        Ok(cells)
    }
}

/// An argument or result.
#[derive(Clone, Debug, PartialEq)]
pub enum HostValue {
    Tensor(HostTensor),
    Index(i64),
}

impl fmt::Display for HostValue {
    /// `the index 3`, `a f32 tensor of shape [2, 3]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostValue::Index(i) => write!(f, "the index {i}"),
            HostValue::Tensor(t) => {
                write!(f, "a {} tensor of shape {:?}", t.elt().name(), t.dims)?;
                let cells = t.dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
                if cells != Some(t.len() as u64) {
                    write!(f, " with {} values", t.len())?;
                }
                Ok(())
            }
        }
    }
}

/// The type of an argument or result of a compiled function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    Index,
    MemRef { elt: Elt, dims: Vec<u64> },
}

impl Slot {
    /// Bytes of a buffer of this type (0 for an index).
    pub fn bytes(&self) -> u64 {
        match self {
            Slot::Index => 0,
            Slot::MemRef { elt, dims } => elt.size() * dims.iter().product::<u64>(),
        }
    }

    /// A value of this type: the index 0, or a tensor of zeros.
    pub fn zeros(&self) -> HostValue {
        match self {
            Slot::Index => HostValue::Index(0),
            Slot::MemRef { elt, dims } => HostValue::Tensor(HostTensor::zeros(*elt, dims.clone())),
        }
    }

    /// Whether `v` can be passed in this slot: an index, or a tensor of the
    /// same element type and shape whose values fill it.
    pub fn admits(&self, v: &HostValue) -> bool {
        match (self, v) {
            (Slot::Index, HostValue::Index(_)) => true,
            (Slot::MemRef { elt, dims }, HostValue::Tensor(t)) => {
                t.elt() == *elt && t.dims == *dims && t.check().is_ok()
            }
            _ => false,
        }
    }
}

impl fmt::Display for Slot {
    /// `an index`, `a f32 tensor of shape [2, 3]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::Index => write!(f, "an index"),
            Slot::MemRef { elt, dims } => write!(f, "a {} tensor of shape {dims:?}", elt.name()),
        }
    }
}

/// The arguments and results of a function.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Signature {
    pub inputs: Vec<Slot>,
    pub outputs: Vec<Slot>,
}

impl Signature {
    /// Checks the arguments of a call of `entry`: their number, and each
    /// against its slot.
    pub fn check_args(&self, entry: &str, args: &[HostValue]) -> Result<(), Error> {
        if args.len() != self.inputs.len() {
            return Err(Error::argument(format!(
                "@{entry} takes {} argument(s) but {} were given",
                self.inputs.len(),
                args.len()
            )));
        }
        for (i, a) in args.iter().enumerate() {
            self.check_arg(entry, i, a)?;
        }
        Ok(())
    }

    /// Checks argument `i` of a call of `entry`.
    pub fn check_arg(&self, entry: &str, i: usize, value: &HostValue) -> Result<(), Error> {
        match self.inputs.get(i) {
            Some(slot) if slot.admits(value) => Ok(()),
            Some(slot) => Err(Error::argument(format!(
                "argument #{i}: {value} where @{entry} takes {slot}"
            ))),
            None => Err(Error::argument(format!("@{entry} has no argument #{i}"))),
        }
    }
}

/// What an argument of a compiled function is, as the passes marked it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Data the caller gives (or an index).
    Data,
    /// A param (`{ocannl.param = NAME}`), kept across a train step's calls.
    Param,
    /// A train step's optimizer state of this kind (`momentum`, `adam_m`,
    /// `adam_v`, `step`), kept across calls.
    State(String),
    /// A train step's learning rate.
    LearningRate,
    /// An update routine's gradient of a param (`{ocannl.gradient = NAME}`).
    Gradient,
}

impl Role {
    /// The role as a word: `data`, `param`, `learning_rate`, or the state's
    /// kind after `state:` (`state:adam_m`).
    pub fn encode(&self) -> String {
        match self {
            Role::Data => "data".into(),
            Role::Param => "param".into(),
            Role::LearningRate => "learning_rate".into(),
            Role::Gradient => "gradient".into(),
            Role::State(kind) => format!("state:{kind}"),
        }
    }

    /// The role [`Role::encode`] wrote.
    pub fn decode(word: &str) -> Option<Role> {
        Some(match word {
            "data" => Role::Data,
            "param" => Role::Param,
            "learning_rate" => Role::LearningRate,
            "gradient" => Role::Gradient,
            _ => Role::State(
                word.strip_prefix("state:")
                    .filter(|k| !k.is_empty())?
                    .into(),
            ),
        })
    }
}

/// An argument's name and role: a param's name; a state's kind and its
/// param's name (`adam_m:w1`, or the kind alone for the routine's own
/// state); `learning_rate`; `argN` for data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgInfo {
    pub name: String,
    pub role: Role,
}

/// What a caller asks of a backend's compiler. Backends take what applies
/// to them; an option by name ([`CompileOptions::named`]) a backend does not
/// know is an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// The code generator's optimization level, 0 to 3 (`None`: the
    /// backend chooses, from [`CompileOptions::work`] where it helps).
    pub opt_level: Option<u32>,
    /// The iterations of the assignments of the routine that will run the
    /// most (the train step), if known: a backend whose compile time grows
    /// with the optimization level may choose a lower one for small work.
    pub work: Option<u64>,
    /// The most bytes a function's buffers may take at once (`None`: no
    /// limit); a call that needs more is refused before it runs, by the
    /// backends that know its buffers. Default: the machine's physical
    /// memory.
    pub memory_limit: Option<u64>,
    /// Backend-specific options by name (the GPU's `chip` and `ptx`, the
    /// CPU's `openmp`).
    pub named: BTreeMap<String, String>,
    /// Where compiled code is cached across processes (by default the
    /// user's cache directory; see [`cache`]).
    pub cache: cache::CacheDir,
    /// Public functions that run once per program (an init routine): a
    /// backend may compile the code only they use for compile time rather
    /// than speed (the CPU: its kernels at -O0).
    pub run_once: BTreeSet<String>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            opt_level: None,
            work: None,
            memory_limit: physical_memory(),
            named: BTreeMap::new(),
            cache: cache::CacheDir::Default,
            run_once: BTreeSet::new(),
        }
    }
}

impl CompileOptions {
    /// The option `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.named.get(key).map(String::as_str)
    }

    /// Sets the option `key`.
    pub fn set(&mut self, key: &str, value: &str) {
        self.named.insert(key.to_string(), value.to_string());
    }

    /// Checks that every option by name is one of `known` (the options of
    /// `backend`).
    pub fn check_names(&self, backend: &str, known: &[&str]) -> Result<(), Error> {
        match self.named.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) if known.is_empty() => Err(Error::argument(format!(
                "the {backend} backend has no option '{k}' (it has none)"
            ))),
            Some(k) => Err(Error::argument(format!(
                "the {backend} backend has no option '{k}' (its options: {})",
                known.join(", ")
            ))),
        }
    }
}

/// The machine's physical memory in bytes (Linux: `MemTotal` of
/// `/proc/meminfo`), if known.
pub fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// A compiled module: its public functions, ready to be prepared for calls.
pub trait Executable {
    /// The signature of a public function.
    fn signature(&self, entry: &str) -> Result<&Signature, Error>;

    /// Prepares calls of `entry` with `args` (checked against its
    /// signature): they are put in the backend's memory once, and the
    /// session runs the function any number of times on them.
    fn prepare(&self, entry: &str, args: &[HostValue]) -> Result<Box<dyn Session>, Error>;

    /// Prepares calls of `entry` on arguments of zeros (indices 0): a
    /// backend that can allocates them zeroed, without making host
    /// tensors of zeros to copy in (a trainer's optimizer state, a
    /// routine's params before they are set).
    fn prepare_zeroed(&self, entry: &str) -> Result<Box<dyn Session>, Error> {
        let zeros: Vec<HostValue> = self
            .signature(entry)?
            .inputs
            .iter()
            .map(Slot::zeros)
            .collect();
        self.prepare(entry, &zeros)
    }

    /// Calls `entry` once.
    fn call(&self, entry: &str, args: &[HostValue]) -> Result<Vec<HostValue>, Error> {
        self.prepare(entry, args)?.invoke()
    }

    /// What each argument of `entry` is (a param, optimizer state, the
    /// learning rate, a gradient, data), as the passes marked it: the
    /// roles an executable carries, so that a caller lays out a routine's
    /// arguments without the module. By default none is known.
    fn arg_info(&self, entry: &str) -> Result<&[ArgInfo], Error> {
        Err(Error::argument(format!(
            "no argument roles for @{entry} in this executable"
        )))
    }

    /// How long compiling took, by phase (backend-specific names).
    fn phases(&self) -> &[(&'static str, Duration)] {
        &[]
    }

    /// What compiling counted, by name (backend-specific: the CPU's parts,
    /// those compiled and those taken from the compilation cache).
    fn stats(&self) -> Vec<(&'static str, u64)> {
        vec![]
    }

    /// The per-kernel profile of every call so far, when the executable
    /// was compiled to profile (the CPU: the compile option `profile`, or
    /// `OCANNL_PROFILE=1`); `None` otherwise.
    fn profile(&self) -> Option<Profile> {
        None
    }

    /// What the backend does to run `entry`, as text (the GPU's host
    /// schedule), where it has such a description.
    fn describe(&self, entry: &str) -> Result<String, Error> {
        let _ = entry;
        Err(Error::argument(
            "this backend has no description of what it runs",
        ))
    }
    /// The executable as bytes its backend's `load` turns back into it (in
    /// another process: what the compilation cache keeps), where the
    /// backend can.
    fn serialize(&self) -> Option<Vec<u8>> {
        None
    }
}

/// A function with its arguments in the backend's memory, kept across
/// invocations: a function that updates an argument in place (a train
/// step's params) sees the new value at the next invocation.
pub trait Session {
    /// The function's arguments and results.
    fn signature(&self) -> &Signature;

    /// Replaces argument `i` (a value its slot admits) before the next
    /// invocation. The results kept from the last [`Session::run`] are
    /// dropped.
    fn set(&mut self, i: usize, value: &HostValue) -> Result<(), Error>;

    /// The current value of argument `i`.
    fn get(&self, i: usize) -> Result<HostValue, Error>;

    /// Runs the function once and returns its results.
    fn invoke(&mut self) -> Result<Vec<HostValue>, Error>;

    /// Runs the function once; then, for each `(result, argument)` of
    /// `carry` (a result of the argument's slot), the argument holds what
    /// the result holds, for the next invocation: state a routine carries
    /// from call to call (a decoder's key/value caches). Returns the other
    /// results, in order. A backend keeps the carried values in its memory;
    /// by default they go through the host.
    fn invoke_carrying(&mut self, carry: &[(usize, usize)]) -> Result<Vec<HostValue>, Error> {
        check_carry(self.signature(), carry)?;
        let mut out = vec![];
        let mut carried = vec![];
        for (k, r) in self.invoke()?.into_iter().enumerate() {
            match carry.iter().find(|(res, _)| *res == k) {
                Some(&(_, arg)) => carried.push((arg, r)),
                None => out.push(r),
            }
        }
        for (arg, r) in carried {
            self.set(arg, &r)?;
        }
        Ok(out)
    }

    /// Runs the function once and keeps its results in the backend's
    /// memory, without reading them, until [`Session::results`] reads them
    /// or the next run drops them (a run timed alone).
    fn run(&mut self) -> Result<(), Error>;

    /// The results of the last [`Session::run`].
    fn results(&self) -> Result<Vec<HostValue>, Error>;

    /// Makes argument `i` the very buffer of argument `j` of `other` (a
    /// session of the same backend; the same element type and sizes): no
    /// copy, and from then on each session sees what the other writes
    /// there (a forward routine reading a train step's params in place).
    /// Backends that cannot share a buffer say so (an [`Kind::Argument`]
    /// error); the caller then copies.
    fn share(&mut self, i: usize, other: &dyn Session, j: usize) -> Result<(), Error> {
        let _ = (i, other, j);
        Err(Error::argument(
            "this backend's sessions cannot share an argument",
        ))
    }

    /// The session as [`std::any::Any`], for a backend to recognize its
    /// own sessions ([`Session::share`]); `None` by default.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// Checks the pairs `(result, argument)` of [`Session::invoke_carrying`]:
/// each result and argument exists, a result goes to an argument of its
/// slot, and no argument or result is named twice.
pub fn check_carry(sig: &Signature, carry: &[(usize, usize)]) -> Result<(), Error> {
    for (k, &(r, a)) in carry.iter().enumerate() {
        let (Some(rs), Some(as_)) = (sig.outputs.get(r), sig.inputs.get(a)) else {
            return Err(Error::argument(format!(
                "carried pair {k} names result {r} and argument {a}; the function has {} result(s) and {} argument(s)",
                sig.outputs.len(),
                sig.inputs.len()
            )));
        };
        if rs != as_ {
            return Err(Error::argument(format!(
                "result {r} ({rs}) cannot be carried into argument {a} ({as_})"
            )));
        }
        if carry[..k].iter().any(|&(r2, a2)| r2 == r || a2 == a) {
            return Err(Error::argument(format!(
                "carried pair {k} ({r}, {a}) names a result or an argument twice"
            )));
        }
    }
    Ok(())
}

/// Writes a file through `write` atomically: into a temporary file in the
/// same directory, renamed over `path` once complete, so that a failure
/// leaves no partial file and keeps what `path` held (the one way the
/// runtime's file formats are written).
pub fn write_atomically(
    path: &std::path::Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    use std::io::Write;
    let err = |e: std::io::Error| Error::io(format!("cannot write {}: {e}", path.display()), e);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".ocannl-").suffix(".tmp");
    // The file gets the permissions a new file gets (the umask applies),
    // not the temporary file's private ones.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut file = builder.tempfile_in(dir).map_err(err)?;
    {
        let mut w = std::io::BufWriter::new(file.as_file_mut());
        write(&mut w).map_err(err)?;
        w.flush().map_err(err)?;
    }
    // Dropped on an error above: the temporary file is removed.
    file.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(elt: Elt, dims: Vec<u64>, n: usize) -> HostValue {
        HostValue::Tensor(HostTensor::new(dims, Cells::zeros(elt, n)))
    }

    #[test]
    fn arguments_are_checked_against_slots() {
        let sig = Signature {
            inputs: vec![
                Slot::MemRef {
                    elt: Elt::F32,
                    dims: vec![2, 2],
                },
                Slot::Index,
            ],
            outputs: vec![],
        };
        assert!(sig
            .check_args("f", &[t(Elt::F32, vec![2, 2], 4), HostValue::Index(3)])
            .is_ok());
        assert_eq!(
            sig.check_arg("f", 0, &t(Elt::F64, vec![2, 2], 4)).map_err(|e| e.to_string()),
            Err(
                "argument #0: a f64 tensor of shape [2, 2] where @f takes a f32 tensor of shape [2, 2]"
                    .into()
            )
        );
        assert_eq!(
            sig.check_arg("f", 0, &t(Elt::F32, vec![2, 2], 3)).map_err(|e| e.to_string()),
            Err("argument #0: a f32 tensor of shape [2, 2] with 3 values where @f takes a f32 tensor of shape [2, 2]".into())
        );
        assert_eq!(
            sig.check_arg("f", 1, &t(Elt::F32, vec![2, 2], 4))
                .map_err(|e| e.to_string()),
            Err("argument #1: a f32 tensor of shape [2, 2] where @f takes an index".into())
        );
        assert_eq!(
            sig.check_arg("f", 0, &HostValue::Index(3))
                .map_err(|e| e.to_string()),
            Err("argument #0: the index 3 where @f takes a f32 tensor of shape [2, 2]".into())
        );
        assert_eq!(
            sig.check_arg("f", 2, &HostValue::Index(3))
                .map_err(|e| e.to_string()),
            Err("@f has no argument #2".into())
        );
        assert_eq!(
            sig.check_args("f", &[HostValue::Index(3)])
                .map_err(|e| e.to_string()),
            Err("@f takes 2 argument(s) but 1 were given".into())
        );
    }

    #[test]
    fn cells_are_held_in_their_type() {
        let t = HostTensor::f32(vec![2, 2], vec![0.5, -2.0, 3.25, 1e-3]);
        assert_eq!(t.elt(), Elt::F32);
        assert_eq!((t.len(), t.bytes().len()), (4, 16));
        assert_eq!(t.as_f32(), Some(&[0.5, -2.0, 3.25, 1e-3][..]));
        assert_eq!(t.as_f64(), None);
        assert_eq!(t.to_f64()[3], f64::from(1e-3f32));
        assert_eq!(
            HostTensor::from_bytes(Elt::F32, vec![2, 2], t.bytes()),
            Ok(t.clone())
        );
        assert_eq!(HostTensor::from_f64(Elt::F32, vec![2, 2], t.to_f64()), t);
        let d = HostTensor::from_f64(Elt::F64, vec![3], [0.1, -1e-300, 2.5]);
        assert_eq!(d.as_f64(), Some(&[0.1, -1e-300, 2.5][..]));
        assert_eq!(d.bytes().len(), 24);
        assert_eq!(
            HostTensor::from_bytes(Elt::F64, vec![3], d.bytes()),
            Ok(d.clone())
        );
        // Rounded to the element type where asked.
        assert_eq!(
            HostTensor::from_f64(Elt::F32, vec![], [0.1]).as_f32(),
            Some(&[0.1f32][..])
        );
        assert_eq!(
            HostTensor::zeros(Elt::F64, vec![2, 3]).to_f64(),
            vec![0.0; 6]
        );
        let mut r = Cells::zeros(Elt::F32, 3);
        r.fill_with(|k| k as f64 + 0.5);
        assert_eq!(r, Cells::F32(vec![0.5, 1.5, 2.5]));
        assert!(Cells::from_bytes(Elt::F32, &[0; 6])
            .unwrap_err()
            .to_string()
            .contains("not a whole number"));
        assert!(HostTensor::from_bytes(Elt::F32, vec![2], &[0; 4])
            .unwrap_err()
            .to_string()
            .contains("1 values for a tensor of shape [2]"));
        assert!(Cells::try_zeros(Elt::F64, u64::MAX / 2)
            .unwrap_err()
            .to_string()
            .contains("cannot"));
    }

    #[test]
    fn slots() {
        let s = Slot::MemRef {
            elt: Elt::F64,
            dims: vec![3, 5],
        };
        assert_eq!(s.bytes(), 120);
        assert_eq!(Slot::Index.bytes(), 0);
        assert!(s.admits(&s.zeros()));
        assert_eq!(Slot::Index.zeros(), HostValue::Index(0));
    }

    #[test]
    fn roles_round_trip() {
        for r in [
            Role::Data,
            Role::Param,
            Role::LearningRate,
            Role::Gradient,
            Role::State("adam_m".into()),
        ] {
            assert_eq!(Role::decode(&r.encode()), Some(r));
        }
        assert_eq!(Role::decode("state:"), None);
        assert_eq!(Role::decode("weights"), None);
    }

    #[test]
    fn named_options_are_checked() {
        let mut o = CompileOptions::default();
        assert_eq!(o.check_names("cpu", &[]), Ok(()));
        o.set("chip", "sm_80");
        assert_eq!(o.get("chip"), Some("sm_80"));
        assert_eq!(o.check_names("cuda", &["chip", "ptx"]), Ok(()));
        assert_eq!(
            o.check_names("cpu", &["openmp"]),
            Err(Error::argument(
                "the cpu backend has no option 'chip' (its options: openmp)"
            ))
        );
        assert_eq!(
            o.check_names("x", &[]),
            Err(Error::argument(
                "the x backend has no option 'chip' (it has none)"
            ))
        );
    }
}
