//! Runs a compiled GPU [`Program`] with the CUDA driver, through `cudarc`
//! loaded at run time (building needs no CUDA; running needs an NVIDIA GPU
//! and its driver, and says so in one line when there is none).
//!
//! [`Device::open`] checks for the driver library before anything that
//! could panic, then makes a context on a device. [`Device::load`] loads
//! the program's PTX (the driver compiles it for the device) and uploads
//! its constant buffers once. [`Loaded::prepare`] uploads a function's
//! arguments into device buffers that stay on the device across
//! invocations ([`Call::set`] and [`Call::get`] replace and read them, as
//! the CPU runtime's calls do): a train step updates its params and
//! optimizer state in place without copies. [`Call::invoke`] carries out
//! the function's steps in order on one stream (allocations, kernel
//! launches, frees); the results stay on the device until read.
//!
//! [`Device::load_artifact`] loads an artifact file's program (the PTX of
//! the newest chip the device can run, a clear error when there is none).
//!
//! [`Compiled`] is the GPU's [`ocannl_runtime::Executable`] (a program, and
//! the device it is loaded on when there is one: without a GPU it still
//! describes its schedule) and [`Call`] its [`ocannl_runtime::Session`];
//! arguments and results are the host values of `ocannl-runtime`.
//!
//! Architecture invariant: no MLIR; nothing here depends on MLIR's GPU
//! runtime library (`mgpu*`).

use std::{collections::HashMap, sync::Arc, time::Duration};

use cudarc::{
    driver::{
        CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
    },
    nvrtc::Ptx,
};
use ocannl_gpu_plan::{
    artifact::Artifact,
    schedule::{self, Arg, Buffer, Function, Output, Program, Step},
};
use ocannl_runtime::{
    Cells, Elt, Error, Executable, HostTensor, HostValue, Session, Signature, Slot,
};

/// The one-line reason there is no GPU to run on, if there is none (the
/// CUDA driver library is missing, or it finds no device).
pub fn unavailable() -> Option<String> {
    // SAFETY: only tries to load the driver library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Some(
            "no CUDA driver: libcuda.so was not found (running on the GPU needs an NVIDIA GPU and its driver)"
                .into(),
        );
    }
    match CudaContext::device_count() {
        Ok(0) => Some("no CUDA device: the CUDA driver found no GPU".into()),
        Ok(_) => None,
        Err(e) => Some(format!("the CUDA driver cannot be used: {e}")),
    }
}

/// The number of GPUs, or why the driver cannot say.
pub fn device_count() -> Result<usize, Error> {
    if let Some(why) = unavailable() {
        return Err(Error::device(why));
    }
    CudaContext::device_count()
        .map(|n| n.max(0) as usize)
        .map_err(|e| Error::device(format!("the CUDA driver cannot be used: {e}")))
}

/// The CUDA version the driver supports (major, minor), if there is a
/// driver.
pub fn driver_version() -> Option<(i32, i32)> {
    // SAFETY: only tries to load the driver library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return None;
    }
    let mut v: std::ffi::c_int = 0;
    // SAFETY: the driver library is present; the call writes one int
    // through a valid pointer and needs no initialization.
    let status = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) };
    (status == cudarc::driver::sys::CUresult::CUDA_SUCCESS).then_some((v / 1000, v % 1000 / 10))
}

/// A GPU with a context and the stream every launch goes to.
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

fn driver(what: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::device(format!("{what}: {e}"))
}

impl Device {
    /// Opens device `ordinal`, or says in one line why it cannot.
    pub fn open(ordinal: usize) -> Result<Device, Error> {
        if let Some(why) = unavailable() {
            return Err(Error::device(why));
        }
        let count = CudaContext::device_count().map_err(driver("cannot count the CUDA devices"))?;
        if ordinal >= count.max(0) as usize {
            return Err(Error::device(format!(
                "no CUDA device #{ordinal} (the driver found {count})"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(driver("cannot open the CUDA device"))?;
        let stream = ctx.default_stream();
        Ok(Device { ctx, stream })
    }

    /// The device's name.
    pub fn name(&self) -> String {
        self.ctx
            .name()
            .unwrap_or_else(|e| format!("(unnamed: {e})"))
    }

    /// The device's architecture as PTX names it (`sm_90`), if the driver
    /// says.
    pub fn chip(&self) -> Option<String> {
        let (major, minor) = self.compute_capability().ok()?;
        Some(format!("sm_{major}{minor}"))
    }

    /// The device's compute capability (major, minor).
    pub fn compute_capability(&self) -> Result<(u32, u32), Error> {
        let (major, minor) = self
            .ctx
            .compute_capability()
            .map_err(driver("cannot read the device's compute capability"))?;
        Ok((major.max(0) as u32, minor.max(0) as u32))
    }

    /// The device in one line: its name, architecture, memory and the
    /// driver's CUDA version (`NVIDIA H100 80GB HBM3, sm_90, 79.1 GiB,
    /// driver CUDA 12.8`).
    pub fn info(&self) -> String {
        let chip = self.chip().unwrap_or_else(|| "sm_?".into());
        let memory = self
            .ctx
            .total_mem()
            .map(|b| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64))
            .unwrap_or_else(|e| format!("memory unknown: {e}"));
        let version = match driver_version() {
            Some((major, minor)) => format!("driver CUDA {major}.{minor}"),
            None => "driver version unknown".into(),
        };
        format!("{}, {chip}, {memory}, {version}", self.name())
    }

    /// Loads an artifact's program: the PTX of the newest chip the device
    /// can run ([`Artifact::choose_chip`]). Returns the loaded program and
    /// the chip chosen.
    pub fn load_artifact(&self, artifact: &Artifact) -> Result<(Arc<Loaded>, String), Error> {
        let (major, minor) = self.compute_capability()?;
        let k = artifact.choose_chip(major, minor)?;
        let code = &artifact.chips[k];
        let loaded = self.load(&artifact.program(k)).map_err(|e| {
            let isa = format!("{}.{}", code.ptx_isa / 10, code.ptx_isa % 10);
            let driver = driver_version()
                .map(|(a, b)| format!("{a}.{b}"))
                .unwrap_or_else(|| "?".into());
            Error::new(e.kind(), format!(
                "{e} (the PTX is for {} with PTX ISA {isa}; this driver supports CUDA {driver}: an older driver may not know that ISA, see --ptx of ocannl-run)",
                code.chip
            ))
        })?;
        Ok((loaded, code.chip.clone()))
    }

    /// Loads a program: its PTX (compiled by the driver for this device),
    /// its kernels, and its constant buffers.
    pub fn load(&self, program: &Program) -> Result<Arc<Loaded>, Error> {
        for f in program.functions.values() {
            f.check(program.globals.len(), program.modules.len())?;
        }
        let modules = program
            .modules
            .iter()
            .map(|m| {
                self.ctx
                    .load_module(Ptx::from_src(m.ptx.clone()))
                    .map_err(driver(&format!(
                        "the CUDA driver cannot load the PTX of {}",
                        m.name
                    )))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut kernels = HashMap::new();
        for f in program.functions.values() {
            for s in &f.steps {
                if let Step::Launch { module, kernel, .. } = s {
                    let key = (*module, kernel.clone());
                    if kernels.contains_key(&key) {
                        continue;
                    }
                    let k = modules[*module].load_function(kernel).map_err(|e| {
                        Error::device(format!(
                            "no kernel {kernel} in {}: {e}",
                            program.modules[*module].name
                        ))
                    })?;
                    kernels.insert(key, k);
                }
            }
        }
        let globals = program
            .globals
            .iter()
            .map(|g| {
                self.stream
                    .clone_htod(&g.bytes)
                    .map_err(driver(&format!("cannot upload the constant {}", g.name)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Arc::new(Loaded {
            stream: self.stream.clone(),
            _modules: modules,
            kernels,
            globals,
            functions: program.functions.clone(),
        }))
    }
}

/// A program loaded on a device.
pub struct Loaded {
    stream: Arc<CudaStream>,
    _modules: Vec<Arc<CudaModule>>,
    kernels: HashMap<(usize, String), CudaFunction>,
    globals: Vec<CudaSlice<u8>>,
    functions: HashMap<String, Function>,
}

/// An argument kept on the device.
enum Held {
    Buffer(CudaSlice<u8>),
    Index(i64),
}

/// A tensor of `elt` and `dims` from a buffer's bytes. The device's cells
/// are little-endian, as are the hosts CUDA runs on: tensors go to and from
/// the device as their bytes ([`HostTensor::bytes`]).
fn host_tensor(elt: Elt, dims: &[u64], bytes: &[u8]) -> Result<HostTensor, Error> {
    Ok(HostTensor {
        dims: dims.to_vec(),
        data: Cells::from_bytes(elt, bytes)?,
    })
}

impl Loaded {
    /// A function of the program.
    pub fn function(&self, entry: &str) -> Result<&Function, Error> {
        self.functions
            .get(entry)
            .ok_or_else(|| Error::argument(format!("no function @{entry} in the module")))
    }

    /// Uploads a function's arguments; [`Call::invoke`] runs it any number
    /// of times on them.
    pub fn prepare(self: &Arc<Self>, entry: &str, args: &[HostValue]) -> Result<Call, Error> {
        let f = self.function(entry)?.clone();
        f.signature.check_args(entry, args)?;
        let mut held = Vec::with_capacity(args.len());
        for (i, v) in args.iter().enumerate() {
            held.push(match v {
                HostValue::Index(x) => Held::Index(*x),
                HostValue::Tensor(t) => Held::Buffer(
                    self.stream
                        .clone_htod(t.bytes())
                        .map_err(driver(&format!("cannot upload argument #{i}")))?,
                ),
            });
        }
        Ok(Call {
            loaded: self.clone(),
            f,
            held,
            last: None,
        })
    }
}

/// A function with its arguments on the device (it keeps the loaded
/// program alive).
pub struct Call {
    loaded: Arc<Loaded>,
    f: Function,
    held: Vec<Held>,
    /// The results of the last [`Session::run`], on the device.
    last: Option<Vec<Result_>>,
}

impl Call {
    /// The function's arguments and results.
    pub fn function(&self) -> &Function {
        &self.f
    }

    /// Replaces argument `i` before the next invocation.
    pub fn set(&mut self, i: usize, value: &HostValue) -> Result<(), Error> {
        self.f.signature.check_arg(&self.f.name, i, value)?;
        self.last = None;
        match (&mut self.held[i], value) {
            (Held::Index(x), HostValue::Index(v)) => *x = *v,
            (Held::Buffer(b), HostValue::Tensor(t)) => self
                .loaded
                .stream
                .memcpy_htod(t.bytes(), b)
                .map_err(driver(&format!("cannot upload argument #{i}")))?,
            _ => {
                return Err(Error::argument(format!(
                    "argument #{i} of @{}: mismatched value",
                    self.f.name
                )))
            }
        }
        Ok(())
    }

    /// The current value of argument `i` (kernels may have updated it).
    pub fn get(&self, i: usize) -> Result<HostValue, Error> {
        match (self.f.signature.inputs.get(i), self.held.get(i)) {
            (Some(Slot::MemRef { elt, dims }), Some(Held::Buffer(b))) => {
                let bytes = self
                    .loaded
                    .stream
                    .clone_dtoh(b)
                    .map_err(driver(&format!("cannot read argument #{i}")))?;
                Ok(HostValue::Tensor(host_tensor(*elt, dims, &bytes)?))
            }
            (Some(Slot::Index), Some(Held::Index(x))) => Ok(HostValue::Index(*x)),
            _ => Err(Error::argument(format!(
                "@{} has no argument #{i}",
                self.f.name
            ))),
        }
    }

    /// Runs the function once: its steps in order on the device's stream,
    /// waiting for the kernels to finish. The results stay on the device
    /// until [`Outputs::read`].
    pub fn invoke(&mut self) -> Result<Outputs<'_>, Error> {
        self.last = None;
        let buffers = self.launch()?;
        Ok(Outputs {
            call: self,
            buffers,
        })
    }

    /// Carries out the steps; returns the results, on the device.
    fn launch(&self) -> Result<Vec<Result_>, Error> {
        let loaded = &*self.loaded;
        let stream = &loaded.stream;
        let name = &self.f.name;
        let mut locals: HashMap<usize, CudaSlice<u8>> = HashMap::new();
        for step in &self.f.steps {
            match step {
                Step::Alloc { id, bytes } => {
                    let b = stream
                        .alloc_zeros::<u8>((*bytes).max(1) as usize)
                        .map_err(driver(&format!("@{name}: cannot allocate {bytes} bytes")))?;
                    locals.insert(*id, b);
                }
                Step::Free { id } => {
                    locals.remove(id);
                }
                Step::Launch {
                    module,
                    kernel,
                    grid,
                    block,
                    shared_bytes,
                    args,
                } => {
                    let func = loaded
                        .kernels
                        .get(&(*module, kernel.clone()))
                        .ok_or_else(|| Error::device(format!("no kernel {kernel}")))?;
                    // Scalars live here while the launch reads them.
                    let mut words: Vec<u64> = vec![];
                    let mut halves: Vec<u32> = vec![];
                    for a in args {
                        match a {
                            Arg::IndexArg(i) => match &self.held[*i] {
                                Held::Index(x) => words.push(*x as u64),
                                Held::Buffer(_) => {
                                    return Err(Error::internal(format!(
                                        "@{name}: argument #{i} is not an index"
                                    )))
                                }
                            },
                            Arg::Bits { bits, bytes: 8 } => words.push(*bits),
                            Arg::Bits { bits, .. } => halves.push(*bits as u32),
                            Arg::Buffer(_) => {}
                        }
                    }
                    let mut launch = stream.launch_builder(func);
                    let (mut w, mut h) = (words.iter(), halves.iter());
                    for a in args {
                        match a {
                            Arg::Buffer(b) => {
                                let slice = match b {
                                    Buffer::Arg(i) => match &self.held[*i] {
                                        Held::Buffer(s) => s,
                                        Held::Index(_) => {
                                            return Err(Error::internal(format!(
                                                "@{name}: argument #{i} is not a buffer"
                                            )))
                                        }
                                    },
                                    Buffer::Local(i) => locals.get(i).ok_or_else(|| {
                                        Error::internal(format!(
                                            "@{name}: buffer #{i} is not allocated"
                                        ))
                                    })?,
                                    Buffer::Global(i) => {
                                        loaded.globals.get(*i).ok_or_else(|| {
                                            Error::internal(format!("@{name}: no constant #{i}"))
                                        })?
                                    }
                                };
                                launch.arg(slice);
                            }
                            Arg::IndexArg(_) | Arg::Bits { bytes: 8, .. } => {
                                launch.arg(w.next().expect("one word per 8-byte argument"));
                            }
                            Arg::Bits { .. } => {
                                launch.arg(h.next().expect("one half per 4-byte argument"));
                            }
                        }
                    }
                    let cfg = LaunchConfig {
                        grid_dim: (grid[0], grid[1], grid[2]),
                        block_dim: (block[0], block[1], block[2]),
                        shared_mem_bytes: *shared_bytes,
                    };
                    // SAFETY: the arguments are the kernel's parameters in
                    // order (device addresses of live buffers of the sizes
                    // the kernel was compiled for, 64-bit indices, scalars
                    // of the kernel's widths), as the compiler recorded them.
                    unsafe { launch.launch(cfg) }
                        .map_err(driver(&format!("@{name}: cannot launch {kernel}")))?;
                }
            }
        }
        stream
            .synchronize()
            .map_err(driver(&format!("@{name}: the kernels failed")))?;
        let mut buffers = Vec::with_capacity(self.f.results.len());
        for r in &self.f.results {
            buffers.push(match r {
                Output::Index(x) => Result_::Index(*x),
                Output::IndexArg(i) => match &self.held[*i] {
                    Held::Index(x) => Result_::Index(*x),
                    Held::Buffer(_) => {
                        return Err(Error::internal(format!(
                            "@{name}: argument #{i} is not an index"
                        )))
                    }
                },
                Output::Buffer(Buffer::Local(i)) => {
                    Result_::Local(locals.remove(i).ok_or_else(|| {
                        Error::internal(format!(
                            "@{name}: buffer #{i} is not allocated (or returned twice)"
                        ))
                    })?)
                }
                Output::Buffer(b) => Result_::Shared(*b),
            });
        }
        Ok(buffers)
    }

    /// Copies results to the host.
    fn read(&self, buffers: &[Result_]) -> Result<Vec<HostValue>, Error> {
        let name = &self.f.name;
        let stream = &self.loaded.stream;
        let mut out = Vec::with_capacity(buffers.len());
        for (r, slot) in buffers.iter().zip(&self.f.signature.outputs) {
            let slice = match r {
                Result_::Index(x) => {
                    out.push(HostValue::Index(*x));
                    continue;
                }
                Result_::Local(s) => s,
                Result_::Shared(Buffer::Arg(i)) => match &self.held[*i] {
                    Held::Buffer(s) => s,
                    Held::Index(_) => {
                        return Err(Error::internal(format!(
                            "@{name}: argument #{i} is not a buffer"
                        )))
                    }
                },
                Result_::Shared(Buffer::Global(i)) => &self.loaded.globals[*i],
                Result_::Shared(Buffer::Local(_)) => {
                    return Err(Error::internal(format!(
                        "@{name}: internal error: a local result"
                    )))
                }
            };
            let Slot::MemRef { elt, dims } = slot else {
                return Err(Error::internal(format!(
                    "@{name}: a buffer returned as an index"
                )));
            };
            let bytes = stream
                .clone_dtoh(slice)
                .map_err(driver(&format!("@{name}: cannot read a result")))?;
            out.push(HostValue::Tensor(host_tensor(*elt, dims, &bytes)?));
        }
        Ok(out)
    }
}

impl Session for Call {
    fn signature(&self) -> &Signature {
        &self.f.signature
    }

    fn set(&mut self, i: usize, value: &HostValue) -> Result<(), Error> {
        Call::set(self, i, value)
    }

    fn get(&self, i: usize) -> Result<HostValue, Error> {
        Call::get(self, i)
    }

    fn invoke(&mut self) -> Result<Vec<HostValue>, Error> {
        Call::invoke(self)?.read()
    }

    fn run(&mut self) -> Result<(), Error> {
        self.last = None;
        self.last = Some(self.launch()?);
        Ok(())
    }

    fn results(&self) -> Result<Vec<HostValue>, Error> {
        let last = self.last.as_ref().ok_or_else(|| {
            Error::argument(format!(
                "@{}: no results (it has not run since its arguments were set)",
                self.f.name
            ))
        })?;
        self.read(last)
    }
}

/// A result still on the device.
enum Result_ {
    Index(i64),
    /// A buffer the invocation allocated (freed when the outputs are).
    Local(CudaSlice<u8>),
    /// An argument or constant returned as is.
    Shared(Buffer),
}

/// The results of one invocation, on the device until read.
pub struct Outputs<'c> {
    call: &'c Call,
    buffers: Vec<Result_>,
}

impl Outputs<'_> {
    /// Copies the results to the host.
    pub fn read(&self) -> Result<Vec<HostValue>, Error> {
        self.call.read(&self.buffers)
    }
}

/// A compiled program, loaded on a device when there is one (without one
/// it still describes its schedule, and preparing a call says why it
/// cannot run).
pub struct Compiled {
    program: Program,
    loaded: Result<Arc<Loaded>, Error>,
    phases: Vec<(&'static str, Duration)>,
}

impl Compiled {
    /// A program and the device it was loaded on (or why there is none),
    /// with the time compiling and loading took, by phase.
    pub fn new(
        program: Program,
        loaded: Result<Arc<Loaded>, Error>,
        phases: Vec<(&'static str, Duration)>,
    ) -> Compiled {
        Compiled {
            program,
            loaded,
            phases,
        }
    }

    fn function(&self, entry: &str) -> Result<&Function, Error> {
        self.program
            .functions
            .get(entry)
            .ok_or_else(|| Error::argument(format!("no function @{entry} in the module")))
    }
}

impl Executable for Compiled {
    fn signature(&self, entry: &str) -> Result<&Signature, Error> {
        Ok(&self.function(entry)?.signature)
    }

    fn arg_info(&self, entry: &str) -> Result<&[ocannl_runtime::ArgInfo], Error> {
        Ok(&self.function(entry)?.args)
    }

    fn prepare(&self, entry: &str, args: &[HostValue]) -> Result<Box<dyn Session>, Error> {
        let loaded = self
            .loaded
            .as_ref()
            .map_err(|e| Error::new(e.kind(), e.message()))?;
        Ok(Box::new(loaded.prepare(entry, args)?))
    }

    fn phases(&self) -> &[(&'static str, Duration)] {
        &self.phases
    }

    fn describe(&self, entry: &str) -> Result<String, Error> {
        Ok(schedule::describe(self.function(entry)?, &self.program))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a GPU, opening a device fails with one line; with one, it
    /// opens and has a name.
    #[test]
    fn open_says_why_in_one_line() {
        match Device::open(0) {
            Ok(d) => assert!(!d.name().is_empty()),
            Err(e) => {
                assert!(!e.to_string().contains('\n'), "{e}");
                assert!(
                    unavailable().is_some(),
                    "opening failed on a machine with a GPU: {e}"
                );
            }
        }
    }
}
