//! What every backend's runtime shares, in plain Rust: the one interface
//! between compiled code and its callers (the `ocannl` API, `ocannl-run`).
//!
//! - [`HostTensor`] and [`HostValue`]: the arguments and results of a
//!   compiled function, on the host; [`Slot`] and [`Signature`]: the types of
//!   a function's arguments and results.
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
pub mod npy;
pub mod safetensors;

/// An element type the runtimes exchange.
pub use ocannl_assign::Elt;

/// A buffer on the host: its element type, sizes (row-major) and values
/// (held as f64 whatever the element type; f32 values are exact in f64).
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    pub elt: Elt,
    pub dims: Vec<u64>,
    pub data: Vec<f64>,
}

impl HostTensor {
    /// The number of cells, checked: sizes that make a buffer
    /// (`ocannl_assign::check_buffer`) and one value per cell.
    pub fn check(&self) -> Result<u64, String> {
        let cells =
            ocannl_assign::check_buffer(&self.dims, self.elt.size()).map_err(|e| e.to_string())?;
        if self.data.len() as u64 != cells {
            return Err(format!(
                "{} values for a tensor of shape {:?} ({cells} cells)",
                self.data.len(),
                self.dims
            ));
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
                write!(f, "a {} tensor of shape {:?}", t.elt.name(), t.dims)?;
                let cells = t.dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
                if cells != Some(t.data.len() as u64) {
                    write!(f, " with {} values", t.data.len())?;
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
            Slot::MemRef { elt, dims } => HostValue::Tensor(HostTensor {
                elt: *elt,
                dims: dims.clone(),
                data: vec![0.0; dims.iter().product::<u64>() as usize],
            }),
        }
    }

    /// Whether `v` can be passed in this slot: an index, or a tensor of the
    /// same element type and shape whose values fill it.
    pub fn admits(&self, v: &HostValue) -> bool {
        match (self, v) {
            (Slot::Index, HostValue::Index(_)) => true,
            (Slot::MemRef { elt, dims }, HostValue::Tensor(t)) => {
                t.elt == *elt && t.dims == *dims && t.check().is_ok()
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
    pub fn check_args(&self, entry: &str, args: &[HostValue]) -> Result<(), String> {
        if args.len() != self.inputs.len() {
            return Err(format!(
                "@{entry} takes {} argument(s) but {} were given",
                self.inputs.len(),
                args.len()
            ));
        }
        for (i, a) in args.iter().enumerate() {
            self.check_arg(entry, i, a)?;
        }
        Ok(())
    }

    /// Checks argument `i` of a call of `entry`.
    pub fn check_arg(&self, entry: &str, i: usize, value: &HostValue) -> Result<(), String> {
        match self.inputs.get(i) {
            Some(slot) if slot.admits(value) => Ok(()),
            Some(slot) => Err(format!(
                "argument #{i}: {value} where @{entry} takes {slot}"
            )),
            None => Err(format!("@{entry} has no argument #{i}")),
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
}

impl Role {
    /// The role as a word: `data`, `param`, `learning_rate`, or the state's
    /// kind after `state:` (`state:adam_m`).
    pub fn encode(&self) -> String {
        match self {
            Role::Data => "data".into(),
            Role::Param => "param".into(),
            Role::LearningRate => "learning_rate".into(),
            Role::State(kind) => format!("state:{kind}"),
        }
    }

    /// The role [`Role::encode`] wrote.
    pub fn decode(word: &str) -> Option<Role> {
        Some(match word {
            "data" => Role::Data,
            "param" => Role::Param,
            "learning_rate" => Role::LearningRate,
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
    pub fn check_names(&self, backend: &str, known: &[&str]) -> Result<(), String> {
        match self.named.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) if known.is_empty() => Err(format!(
                "the {backend} backend has no option '{k}' (it has none)"
            )),
            Some(k) => Err(format!(
                "the {backend} backend has no option '{k}' (its options: {})",
                known.join(", ")
            )),
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
    fn signature(&self, entry: &str) -> Result<&Signature, String>;

    /// Prepares calls of `entry` with `args` (checked against its
    /// signature): they are put in the backend's memory once, and the
    /// session runs the function any number of times on them.
    fn prepare(&self, entry: &str, args: &[HostValue]) -> Result<Box<dyn Session>, String>;

    /// Calls `entry` once.
    fn call(&self, entry: &str, args: &[HostValue]) -> Result<Vec<HostValue>, String> {
        self.prepare(entry, args)?.invoke()
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

    /// What the backend does to run `entry`, as text (the GPU's host
    /// schedule), where it has such a description.
    fn describe(&self, entry: &str) -> Result<String, String> {
        let _ = entry;
        Err("this backend has no description of what it runs".into())
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
    fn set(&mut self, i: usize, value: &HostValue) -> Result<(), String>;

    /// The current value of argument `i`.
    fn get(&self, i: usize) -> Result<HostValue, String>;

    /// Runs the function once and returns its results.
    fn invoke(&mut self) -> Result<Vec<HostValue>, String>;

    /// Runs the function once and keeps its results in the backend's
    /// memory, without reading them, until [`Session::results`] reads them
    /// or the next run drops them (a run timed alone).
    fn run(&mut self) -> Result<(), String>;

    /// The results of the last [`Session::run`].
    fn results(&self) -> Result<Vec<HostValue>, String>;
}

/// Writes a file through `write` atomically: into a temporary file in the
/// same directory, renamed over `path` once complete, so that a failure
/// leaves no partial file and keeps what `path` held (the one way the
/// runtime's file formats are written).
pub fn write_atomically(
    path: &std::path::Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), String> {
    use std::io::Write;
    let err = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
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
        HostValue::Tensor(HostTensor {
            elt,
            dims,
            data: vec![0.0; n],
        })
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
            sig.check_arg("f", 0, &t(Elt::F64, vec![2, 2], 4)),
            Err(
                "argument #0: a f64 tensor of shape [2, 2] where @f takes a f32 tensor of shape [2, 2]"
                    .into()
            )
        );
        assert_eq!(
            sig.check_arg("f", 0, &t(Elt::F32, vec![2, 2], 3)),
            Err("argument #0: a f32 tensor of shape [2, 2] with 3 values where @f takes a f32 tensor of shape [2, 2]".into())
        );
        assert_eq!(
            sig.check_arg("f", 1, &t(Elt::F32, vec![2, 2], 4)),
            Err("argument #1: a f32 tensor of shape [2, 2] where @f takes an index".into())
        );
        assert_eq!(
            sig.check_arg("f", 0, &HostValue::Index(3)),
            Err("argument #0: the index 3 where @f takes a f32 tensor of shape [2, 2]".into())
        );
        assert_eq!(
            sig.check_arg("f", 2, &HostValue::Index(3)),
            Err("@f has no argument #2".into())
        );
        assert_eq!(
            sig.check_args("f", &[HostValue::Index(3)]),
            Err("@f takes 2 argument(s) but 1 were given".into())
        );
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
            Err("the cpu backend has no option 'chip' (its options: openmp)".into())
        );
        assert_eq!(
            o.check_names("x", &[]),
            Err("the x backend has no option 'chip' (it has none)".into())
        );
    }
}
