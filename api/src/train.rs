//! Compiling a loss and a forward function into routines: an init routine,
//! a train step (forward, zero gradients, backprop, SGD update of the params
//! in place) and the forward routine for inference, each compiled once and
//! called many times. The params (and the optimizer's state) live in the
//! train step's argument buffers between calls: in host memory on the CPU,
//! in device memory on the GPU ([`Device::Cuda`]).

use std::{
    cell::RefCell,
    collections::HashMap,
    path::Path,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use melior::ir::{operation::OperationLike, Module};
use ocannl_cpu::runtime::{self, Call, CompileOptions, HostTensor, HostValue, Program, Slot};

use crate::{Error, Tensor};

pub use ocannl_cpu::runtime::Elt;

/// Where a [`Trainer`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Device {
    /// MLIR's JIT on the CPU.
    #[default]
    Cpu,
    /// The first NVIDIA GPU, through the CUDA driver (PTX for its own
    /// architecture).
    Cuda,
}

fn to_gpu(t: &HostTensor) -> ocannl_gpu_runtime::Value {
    ocannl_gpu_runtime::Value::Tensor(ocannl_gpu_runtime::Tensor {
        elt: t.elt,
        dims: t.dims.clone(),
        data: t.data.clone(),
    })
}

fn from_gpu(v: ocannl_gpu_runtime::Value) -> HostValue {
    match v {
        ocannl_gpu_runtime::Value::Index(i) => HostValue::Index(i),
        ocannl_gpu_runtime::Value::Tensor(t) => HostValue::Tensor(HostTensor {
            elt: t.elt,
            dims: t.dims,
            data: t.data,
        }),
    }
}

fn gpu_slot(s: &ocannl_gpu_plan::Slot) -> Slot {
    match s {
        ocannl_gpu_plan::Slot::Index => Slot::Index,
        ocannl_gpu_plan::Slot::MemRef { elt, dims } => Slot::MemRef {
            elt: *elt,
            dims: dims.clone(),
        },
    }
}

/// PTX for the device's own architecture.
fn gpu_options(d: &ocannl_gpu_runtime::Device) -> ocannl_gpu::program::CompileOptions {
    let chip = d.chip().unwrap_or_else(|| "sm_90".into());
    ocannl_gpu::program::CompileOptions {
        ptx: ocannl_gpu_plan::launch::ptx_version(&chip),
        chip,
        opt_level: 3,
    }
}

/// A routine prepared for calls on either device.
enum Routine {
    Cpu(Call),
    Gpu(ocannl_gpu_runtime::Call),
}

impl Routine {
    fn inputs(&self) -> Vec<Slot> {
        match self {
            Routine::Cpu(c) => c.signature().inputs.clone(),
            Routine::Gpu(c) => c.function().inputs.iter().map(gpu_slot).collect(),
        }
    }

    fn set(&mut self, i: usize, v: &HostValue) -> Result<(), String> {
        match (self, v) {
            (Routine::Cpu(c), v) => c.set(i, v),
            (Routine::Gpu(c), HostValue::Tensor(t)) => c.set(i, &to_gpu(t)),
            (Routine::Gpu(c), HostValue::Index(x)) => {
                c.set(i, &ocannl_gpu_runtime::Value::Index(*x))
            }
        }
    }

    fn get(&self, i: usize) -> Result<HostValue, String> {
        match self {
            Routine::Cpu(c) => c.get(i),
            Routine::Gpu(c) => c.get(i).map(from_gpu),
        }
    }

    /// Runs the routine once and reads its results.
    fn run(&mut self) -> Result<Vec<HostValue>, String> {
        match self {
            Routine::Cpu(c) => Ok(c.invoke()?.read()),
            Routine::Gpu(c) => Ok(c.invoke()?.read()?.into_iter().map(from_gpu).collect()),
        }
    }
}

/// The forward routine, compiled.
enum Forward {
    Cpu(Program),
    Gpu(Arc<ocannl_gpu_runtime::Loaded>),
}

/// SGD's options (OCANNL's `sgd_update`): the assignment model's own.
pub use ocannl_assign::optim::Sgd;

/// How long building the routines took.
#[derive(Clone, Debug, Default)]
pub struct CompileTimes {
    /// The project's passes, to loops (every routine).
    pub passes: Duration,
    /// Lowering the init and train-step routines to LLVM and compiling them.
    pub train_step: Duration,
    /// The same for the forward routine, once it has been used.
    pub forward: Option<Duration>,
}

/// LLVM's optimization level for routines doing `work` iterations per call:
/// `OCANNL_OPT_LEVEL` if set; else 0 for small routines (under 2^20
/// iterations a call takes microseconds, and compiling dominates), and 1
/// otherwise (on these loop nests -O1 runs as fast as -O3 and compiles in
/// half the time).
fn opt_level(work: u64) -> usize {
    std::env::var("OCANNL_OPT_LEVEL")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if work < 1 << 20 { 0 } else { 1 })
}

/// The iterations of a routine's assignments.
fn routine_work(r: &ocannl_assign::Routine) -> u64 {
    r.stmts
        .iter()
        .map(|s| match s {
            ocannl_assign::Stmt::Accum { space, .. } => space
                .iter()
                .try_fold(1u64, |a, &d| a.checked_mul(d))
                .unwrap_or(u64::MAX),
            _ => 0,
        })
        .fold(0u64, u64::saturating_add)
}

/// Erases the functions of `module` but `keep`.
fn keep_only(module: &Module, keep: &[&str]) -> Result<(), Error> {
    let mut unused = ocannl_mlir::ir::Graveyard::new();
    for f in ocannl_mlir::ir::ops_named(module.as_operation(), "func.func") {
        let name = f
            .attribute("sym_name")
            .ok()
            .and_then(ocannl_mlir::attr::string_value)
            .unwrap_or_default();
        if !keep.contains(&name.as_str()) {
            unused.bury(f);
        }
    }
    // SAFETY: the erased functions' handles are not used after.
    unsafe { unused.erase_all() }?;
    Ok(())
}

/// A model compiled for training and inference.
pub struct Trainer {
    step: Routine,
    device: Device,
    gpu: Option<ocannl_gpu_runtime::Device>,
    /// The forward routine's module at the loops stage, compiled on first
    /// use.
    forward_text: String,
    forward_program: RefCell<Option<Forward>>,
    opt_level: usize,
    /// The argument positions of the train step: data, params, momenta, lr.
    n_data: usize,
    params: Vec<String>,
    n_momenta: usize,
    /// The forward routine's data and params (by name).
    forward_data: usize,
    forward_params: Vec<String>,
    /// The printed `ocannl_shape` module.
    pub module: String,
    times: RefCell<CompileTimes>,
    // The context outlives the program's compiled code.
    _context: melior::Context,
}

/// Diagnostics collected from a context.
fn collect_diagnostics(context: &melior::Context) -> Arc<Mutex<Vec<String>>> {
    let messages = Arc::new(Mutex::new(vec![]));
    let sink = messages.clone();
    context.attach_diagnostic_handler(move |d| {
        let loc = d.location().to_string();
        let place = loc
            .strip_prefix("loc(")
            .and_then(|l| l.strip_suffix(')'))
            .unwrap_or(&loc)
            .replace('"', "");
        let mut text = format!(
            "{place}: {}: {d}",
            format!("{:?}", d.severity()).to_lowercase()
        );
        for i in 0..d.note_count() {
            if let Ok(n) = d.note(i) {
                text += &format!("\n  note: {n}");
            }
        }
        sink.lock().expect("diagnostics").push(text);
        true
    });
    messages
}

impl Trainer {
    /// Compiles `loss` (a tensor of one cell) for training with SGD, and
    /// `forward` for inference. Data tensors are the routines' inputs, in
    /// order of creation; the two may use data of different shapes (a
    /// batch for training, any number of rows for inference).
    pub fn new(loss: &Tensor, forward: &Tensor, sgd: Sgd) -> Result<Trainer, Error> {
        Trainer::new_on(Device::Cpu, loss, forward, sgd)
    }

    /// [`Trainer::new`] on a device. On [`Device::Cuda`] the routines are
    /// compiled to PTX and the params stay in device memory; without a GPU
    /// this fails with one line saying why.
    pub fn new_on(
        device: Device,
        loss: &Tensor,
        forward: &Tensor,
        sgd: Sgd,
    ) -> Result<Trainer, Error> {
        ocannl_cpu::install();
        ocannl_gpu::register();
        let gpu = match device {
            Device::Cpu => None,
            Device::Cuda => Some(ocannl_gpu_runtime::Device::open(0)?),
        };
        let text = format!(
            "{}{}",
            Tensor::module("loss", &[loss]),
            Tensor::module("forward", &[forward])
        );
        let context = ocannl_passes::new_context()?;
        melior::utility::register_all_llvm_translations(&context);
        let messages = collect_diagnostics(&context);
        let fail = |what: &str| Error {
            messages: {
                let m = messages.lock().expect("diagnostics").clone();
                if m.is_empty() {
                    vec![what.to_string()]
                } else {
                    m
                }
            },
        };
        let mut module =
            Module::parse(&context, &text).ok_or_else(|| fail("the module does not parse"))?;
        let t = Instant::now();
        let pipeline = format!(
            "ocannl-verify,ocannl-infer-shapes,ocannl-lower-to-assign{{params-as-arguments=true}},\
             ocannl-autodiff{{functions=loss}},\
             ocannl-train-step{{momentum={} weight-decay={} nesterov={}}},{}",
            sgd.momentum,
            sgd.weight_decay,
            sgd.nesterov,
            ocannl_passes::OPTIMIZE
        );
        runtime::run_pipeline(&context, &mut module, &pipeline)
            .map_err(|_| fail("compiling failed"))?;
        // The work of one train step (iterations of its assignments) picks
        // the optimization level.
        let work = ocannl_mlir::ir::ops_named(module.as_operation(), "func.func")
            .into_iter()
            .find(|f| {
                f.attribute("sym_name")
                    .ok()
                    .and_then(ocannl_mlir::attr::string_value)
                    .is_some_and(|n| n == "loss_train_step")
            })
            .and_then(|f| ocannl_assign_dialect::to_routine(f).ok())
            .map(|r| routine_work(&r))
            .unwrap_or(u64::MAX);
        let to_loops = match device {
            Device::Cpu => "ocannl-lower-to-loops,func.func(canonicalize,cse)",
            Device::Cuda => "ocannl-lower-to-loops{target=gpu},func.func(canonicalize,cse)",
        };
        runtime::run_pipeline(&context, &mut module, to_loops)
            .map_err(|_| fail("compiling failed"))?;
        let passes = t.elapsed();
        let opt_level = opt_level(work);
        // Arguments: read before compiling (the names are attributes).
        let arg_names = |f: &str, attr: &str| -> Vec<Option<String>> {
            let Some(func) = ocannl_mlir::ir::ops_named(module.as_operation(), "func.func")
                .into_iter()
                .find(|o| {
                    o.attribute("sym_name")
                        .ok()
                        .and_then(ocannl_mlir::attr::string_value)
                        .is_some_and(|n| n == f)
                })
            else {
                return vec![];
            };
            let n = runtime::signature(func)
                .map(|s| s.inputs.len())
                .unwrap_or(0);
            (0..n)
                .map(|i| ocannl_mlir::ir::arg_string_attr(func, i, attr))
                .collect()
        };
        let step_params = arg_names("loss_train_step", "ocannl.param");
        let step_momenta = arg_names("loss_train_step", "ocannl.momentum");
        let fwd_params = arg_names("forward", "ocannl.param");
        let n_data = step_params.iter().take_while(|p| p.is_none()).count();
        let params: Vec<String> = step_params.iter().flatten().cloned().collect();
        let n_momenta = step_momenta.iter().flatten().count();
        let forward_data = fwd_params.iter().take_while(|p| p.is_none()).count();
        let forward_params: Vec<String> = fwd_params.iter().flatten().cloned().collect();
        // The train step (with the init routine) is compiled now; the
        // forward routine, from its own module, on first use.
        let forward = Module::from_operation(ocannl_mlir::ir::clone(module.as_operation()))
            .ok_or_else(|| fail("internal error: cannot copy the module"))?;
        keep_only(&forward, &["forward"])?;
        let forward_text = forward.as_operation().to_string();
        drop(forward);
        let mut train = module;
        keep_only(&train, &["loss_init", "loss_train_step"])?;
        let t = Instant::now();
        let zeros = |slot: &Slot| match slot {
            Slot::Index => HostValue::Index(0),
            Slot::MemRef { elt, dims } => HostValue::Tensor(HostTensor {
                elt: *elt,
                dims: dims.clone(),
                data: vec![0.0; dims.iter().product::<u64>() as usize],
            }),
        };
        // The init routine and the train step, prepared with zeros.
        let (mut init, mut step, llvm) = match &gpu {
            None => {
                let program = Program::compile(
                    &context,
                    &mut train,
                    &CompileOptions {
                        opt_level,
                        ..CompileOptions::default()
                    },
                )
                .map_err(|e| Error { messages: vec![e] })?;
                let llvm = t.elapsed();
                let sig = program.signature("loss_train_step")?.clone();
                let init_sig = program.signature("loss_init")?.clone();
                let init = program.prepare(
                    "loss_init",
                    &init_sig.inputs.iter().map(zeros).collect::<Vec<_>>(),
                )?;
                let step = program.prepare(
                    "loss_train_step",
                    &sig.inputs.iter().map(zeros).collect::<Vec<_>>(),
                )?;
                (Routine::Cpu(init), Routine::Cpu(step), llvm)
            }
            Some(d) => {
                let program = ocannl_gpu::program::compile(&context, &mut train, &gpu_options(d))
                    .map_err(|e| fail(&e))?;
                let llvm = t.elapsed();
                let loaded = d.load(&program)?;
                let prepare = |name: &str| -> Result<Routine, Error> {
                    let f = loaded.function(name)?;
                    let args: Vec<ocannl_gpu_runtime::Value> = f
                        .inputs
                        .iter()
                        .map(|s| match zeros(&gpu_slot(s)) {
                            HostValue::Tensor(t) => to_gpu(&t),
                            HostValue::Index(x) => ocannl_gpu_runtime::Value::Index(x),
                        })
                        .collect();
                    Ok(Routine::Gpu(loaded.prepare(name, &args)?))
                };
                (prepare("loss_init")?, prepare("loss_train_step")?, llvm)
            }
        };
        // The params from the init routine.
        init.run()?;
        for k in 0..params.len() {
            step.set(n_data + k, &init.get(k)?)?;
        }
        Ok(Trainer {
            step,
            device,
            gpu,
            forward_text,
            forward_program: RefCell::new(None),
            opt_level,
            n_data,
            params,
            n_momenta,
            forward_data,
            forward_params,
            module: text,
            times: RefCell::new(CompileTimes {
                passes,
                train_step: llvm,
                forward: None,
            }),
            _context: context,
        })
    }

    /// One training step on a batch (one tensor per data input of the loss,
    /// in order) with the learning rate `lr`; returns the loss before the
    /// update.
    pub fn step(&mut self, batch: &[HostTensor], lr: f64) -> Result<f64, Error> {
        if batch.len() != self.n_data {
            return Err(format!(
                "the loss takes {} data tensor(s), {} given",
                self.n_data,
                batch.len()
            )
            .into());
        }
        for (i, t) in batch.iter().enumerate() {
            self.step.set(i, &HostValue::Tensor(t.clone()))?;
        }
        let lr_at = self.n_data + self.params.len() + self.n_momenta;
        let elt = match &self.step.inputs()[lr_at] {
            Slot::MemRef { elt, .. } => *elt,
            Slot::Index => Elt::F32,
        };
        self.step.set(
            lr_at,
            &HostValue::Tensor(HostTensor {
                elt,
                dims: vec![],
                data: vec![lr],
            }),
        )?;
        let out = self.step.run()?;
        match out.first() {
            Some(HostValue::Tensor(t)) => Ok(t.data.iter().sum()),
            _ => Err("the train step returned no loss".to_string().into()),
        }
    }

    /// The forward routine on inputs (one tensor per data input of the
    /// forward function, in order), with the current params.
    pub fn forward(&self, inputs: &[HostTensor]) -> Result<HostTensor, Error> {
        if inputs.len() != self.forward_data {
            return Err(format!(
                "the forward function takes {} data tensor(s), {} given",
                self.forward_data,
                inputs.len()
            )
            .into());
        }
        let mut args: Vec<HostValue> = inputs.iter().cloned().map(HostValue::Tensor).collect();
        for name in &self.forward_params {
            args.push(HostValue::Tensor(self.param(name)?));
        }
        if self.forward_program.borrow().is_none() {
            let t = Instant::now();
            let mut module =
                Module::parse(&self._context, &self.forward_text).ok_or_else(|| {
                    Error::from("internal error: the forward module does not parse".to_string())
                })?;
            let compiled = match &self.gpu {
                None => Forward::Cpu(Program::compile(
                    &self._context,
                    &mut module,
                    &CompileOptions {
                        opt_level: self.opt_level,
                        ..CompileOptions::default()
                    },
                )?),
                Some(d) => {
                    let program =
                        ocannl_gpu::program::compile(&self._context, &mut module, &gpu_options(d))?;
                    Forward::Gpu(d.load(&program)?)
                }
            };
            self.times.borrow_mut().forward = Some(t.elapsed());
            *self.forward_program.borrow_mut() = Some(compiled);
        }
        let program = self.forward_program.borrow();
        let results = match program.as_ref().expect("compiled above") {
            Forward::Cpu(p) => p.call("forward", &args)?,
            Forward::Gpu(l) => {
                let args: Vec<ocannl_gpu_runtime::Value> = args
                    .iter()
                    .map(|a| match a {
                        HostValue::Tensor(t) => to_gpu(t),
                        HostValue::Index(x) => ocannl_gpu_runtime::Value::Index(*x),
                    })
                    .collect();
                l.call("forward", &args)?
                    .into_iter()
                    .map(from_gpu)
                    .collect()
            }
        };
        match results.into_iter().next() {
            Some(HostValue::Tensor(t)) => Ok(t),
            _ => Err("the forward routine returned no tensor".to_string().into()),
        }
    }

    /// Where the trainer runs.
    pub fn device(&self) -> Device {
        self.device
    }

    /// How long compiling took so far.
    pub fn times(&self) -> CompileTimes {
        self.times.borrow().clone()
    }

    /// The names of the params, in order.
    pub fn param_names(&self) -> &[String] {
        &self.params
    }

    /// The current value of a param.
    pub fn param(&self, name: &str) -> Result<HostTensor, Error> {
        let k = self
            .params
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| format!("no param '{name}'"))?;
        match self.step.get(self.n_data + k)? {
            HostValue::Tensor(t) => Ok(t),
            HostValue::Index(_) => Err(format!("param '{name}' is not a tensor").into()),
        }
    }

    /// Replaces the value of a param (same shape).
    pub fn set_param(&mut self, name: &str, value: &HostTensor) -> Result<(), Error> {
        let k = self
            .params
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| format!("no param '{name}'"))?;
        self.step
            .set(self.n_data + k, &HostValue::Tensor(value.clone()))?;
        Ok(())
    }

    /// Writes every param as `DIR/NAME.npy`.
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for name in &self.params {
            let t = self.param(name)?;
            write_npy(&dir.join(format!("{name}.npy")), &t)?;
        }
        Ok(())
    }

    /// Reads every param from `DIR/NAME.npy` (as written by [`Trainer::save`]).
    pub fn load(&mut self, dir: &Path) -> Result<(), Error> {
        let names = self.params.clone();
        let mut values = HashMap::new();
        for name in &names {
            values.insert(name.clone(), read_npy(&dir.join(format!("{name}.npy")))?);
        }
        for name in &names {
            self.set_param(name, &values[name])?;
        }
        Ok(())
    }
}

fn write_npy(path: &Path, t: &HostTensor) -> Result<(), Error> {
    use npyz::WriterBuilder;
    let err = |e: std::io::Error| Error::from(format!("cannot write {}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(err)?;
    let w = std::io::BufWriter::new(file);
    match t.elt {
        Elt::F32 => {
            let mut out = npyz::WriteOptions::<f32>::new()
                .default_dtype()
                .shape(&t.dims)
                .writer(w)
                .begin_nd()
                .map_err(err)?;
            out.extend(t.data.iter().map(|&x| x as f32)).map_err(err)?;
            out.finish().map_err(err)
        }
        Elt::F64 => {
            let mut out = npyz::WriteOptions::<f64>::new()
                .default_dtype()
                .shape(&t.dims)
                .writer(w)
                .begin_nd()
                .map_err(err)?;
            out.extend(t.data.iter().copied()).map_err(err)?;
            out.finish().map_err(err)
        }
    }
}

fn read_npy(path: &Path) -> Result<HostTensor, Error> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let npy = npyz::NpyFile::new(&bytes[..])
        .map_err(|e| format!("{} is not a .npy file: {e}", path.display()))?;
    let dims = npy.shape().to_vec();
    let (elt, data) = match npy.dtype().descr().trim_matches('\'') {
        "<f4" => (
            Elt::F32,
            npy.into_vec::<f32>()
                .map_err(|e| format!("{}: {e}", path.display()))?
                .into_iter()
                .map(f64::from)
                .collect(),
        ),
        "<f8" => (
            Elt::F64,
            npy.into_vec::<f64>()
                .map_err(|e| format!("{}: {e}", path.display()))?,
        ),
        other => return Err(format!("{}: unsupported dtype {other}", path.display()).into()),
    };
    Ok(HostTensor { elt, dims, data })
}
