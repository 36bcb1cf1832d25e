//! Compiling a loss and a forward function into routines: an init routine,
//! a train step (forward, zero gradients, backprop, the optimizer's update
//! of the params in place: an [`Optimizer`], SGD, Adam or AdamW) and the
//! forward routine for inference, each compiled once and called many
//! times. The params and the optimizer's state (momenta, moments, the step
//! count) live in the train step's argument buffers between calls, in the
//! memory of the backend the trainer runs on ([`Device`]: host memory on
//! the CPU, device memory on the GPU).
//!
//! The routines run through `ocannl-runtime`'s interface: a backend is
//! found by name in `ocannl_passes`'s registry, so this module names none.

use std::{
    borrow::Cow,
    cell::RefCell,
    collections::HashMap,
    fmt,
    path::Path,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use melior::{
    ir::{operation::OperationLike, Module},
    Context,
};
use ocannl_passes::{
    backend::compile_cached,
    pipelines, Backend,
};
use ocannl_runtime::{
    bundle::Bundle, CompileOptions, Executable, HostTensor, HostValue, Session, Slot,
};

pub use ocannl_passes::backend::CacheUse;

use crate::{Error, Tensor};

pub use ocannl_runtime::Elt;

/// Where a [`Trainer`] runs: a backend, by the name it is registered under
/// (`cpu`, `cuda`; any registered backend: [`Device::new`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Device(Cow<'static, str>);

impl Device {
    /// The CPU, through its JIT (`ocannl-cpu`).
    pub const CPU: Device = Device(Cow::Borrowed("cpu"));
    /// The first NVIDIA GPU, through the CUDA driver (PTX for its own
    /// architecture).
    pub const CUDA: Device = Device(Cow::Borrowed("cuda"));

    /// The backend registered as `name`.
    pub fn new(name: impl Into<String>) -> Device {
        Device(Cow::Owned(name.into()))
    }

    /// The backend's name.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl Default for Device {
    fn default() -> Self {
        Device::CPU
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Device {
    fn from(name: &str) -> Self {
        Device::new(name)
    }
}

impl From<String> for Device {
    fn from(name: String) -> Self {
        Device::new(name)
    }
}

/// The backends a trainer can run on: every one the project has, registered
/// once per process.
fn register_backends() {
    ocannl_cpu::install();
    ocannl_gpu::register();
}

/// The backend of `device`, if it can run here (else why not, in one line).
fn find_backend(device: &Device) -> Result<&'static dyn Backend, Error> {
    register_backends();
    let backend = ocannl_passes::backend(device.name())?;
    match backend.unavailable() {
        Some(why) => Err(why.into()),
        None => Ok(backend),
    }
}

/// The optimizers (SGD with OCANNL's options, Adam, AdamW, each with
/// optional global-norm clipping) and the kinds of their state: the
/// assignment model's own.
pub use ocannl_assign::optim::{Adam, Optimizer, Sgd, State};
use ocannl_passes::transforms::train_step::{state_arg, LEARNING_RATE};

/// How long building the routines took.
#[derive(Clone, Debug)]
pub struct CompileTimes {
    /// The project's passes, to loops (every routine).
    pub passes: Duration,
    /// Compiling the init and train-step routines (the backend's part: to
    /// LLVM and the JIT on the CPU, to PTX on the GPU).
    pub train_step: Duration,
    /// The same for the forward routine, once it has been used.
    pub forward: Option<Duration>,
    /// Whether the train step came from the compilation cache (then
    /// `passes` is zero and `train_step` the time to load it).
    pub cache: CacheUse,
    /// The backend's phases compiling the train step, by name, with what
    /// it counts (kernels, parts compiled and cached), when it compiled.
    pub phases: Vec<(String, Duration)>,
    /// What the backend counted compiling the train step, by name (the
    /// CPU's parts, those compiled and those taken from the cache).
    pub counts: Vec<(String, u64)>,
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

/// The argument positions of the routines, read from the lowered module
/// (what each argument is, is an attribute of it).
struct Layout {
    /// The train step's data arguments (its first), then its params (by
    /// name); the optimizer's state and the learning rate follow.
    n_data: usize,
    params: Vec<String>,
    /// The optimizer's state: each argument's kind, its param's name
    /// (empty for the step's own state) and its position.
    state: Vec<(State, String, usize)>,
    /// The train step's learning-rate argument.
    lr: usize,
    /// The forward routine's data arguments, then its params (by name).
    forward_data: usize,
    forward_params: Vec<String>,
}

impl Layout {
    /// The layout, the train step's work and the forward routine's module
    /// as the sections of a bundle (what the compilation cache keeps with
    /// the train step).
    fn encode(&self, work: u64, forward_text: &str) -> Vec<u8> {
        let mut b = Bundle::default();
        b.push("n_data", self.n_data.to_string());
        b.push("lr", self.lr.to_string());
        b.push("forward_data", self.forward_data.to_string());
        b.push("work", work.to_string());
        b.push("forward", forward_text);
        for p in &self.params {
            b.push("param", p.as_str());
        }
        for p in &self.forward_params {
            b.push("forward_param", p.as_str());
        }
        for (kind, param, at) in &self.state {
            b.push("state", format!("{} {at} {param}", kind.name()));
        }
        b.to_bytes()
    }

    /// What [`Layout::encode`] wrote.
    fn decode(bytes: &[u8]) -> Option<(Layout, u64, String)> {
        let b = Bundle::from_bytes(bytes)?;
        let number = |name: &str| b.text(name)?.parse::<u64>().ok();
        let all = |name: &str| -> Option<Vec<String>> {
            b.sections
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, v)| String::from_utf8(v.clone()).ok())
                .collect()
        };
        let state = all("state")?
            .iter()
            .map(|line| {
                let mut parts = line.splitn(3, ' ');
                let kind = parts.next()?;
                let kind = State::ALL.into_iter().find(|s| s.name() == kind)?;
                let at = parts.next()?.parse().ok()?;
                Some((kind, parts.next()?.to_string(), at))
            })
            .collect::<Option<Vec<_>>>()?;
        Some((
            Layout {
                n_data: number("n_data")? as usize,
                params: all("param")?,
                state,
                lr: number("lr")? as usize,
                forward_data: number("forward_data")? as usize,
                forward_params: all("forward_param")?,
            },
            number("work")?,
            b.text("forward")?.to_string(),
        ))
    }

    fn read(module: &Module) -> Result<Layout, Error> {
        let step_params = arg_attrs(module, "loss_train_step", "ocannl.param");
        let lr = arg_attrs(module, "loss_train_step", LEARNING_RATE)
            .iter()
            .position(Option::is_some)
            .ok_or_else(|| {
                "internal error: the train step has no learning-rate argument".to_string()
            })?;
        let state = function(module, "loss_train_step")
            .map(|f| {
                (0..step_params.len())
                    .filter_map(|i| state_arg(f, i).map(|(kind, p)| (kind, p, i)))
                    .collect()
            })
            .unwrap_or_default();
        let fwd_params = arg_attrs(module, "forward", "ocannl.param");
        Ok(Layout {
            n_data: step_params.iter().take_while(|p| p.is_none()).count(),
            params: step_params.iter().flatten().cloned().collect(),
            state,
            lr,
            forward_data: fwd_params.iter().take_while(|p| p.is_none()).count(),
            forward_params: fwd_params.iter().flatten().cloned().collect(),
        })
    }
}

/// The function `name` of a module.
fn function<'c, 'm>(
    module: &'m Module<'c>,
    name: &str,
) -> Option<melior::ir::OperationRef<'c, 'm>> {
    ocannl_mlir::ir::ops_named(module.as_operation(), "func.func")
        .into_iter()
        .find(|f| {
            f.attribute("sym_name")
                .ok()
                .and_then(ocannl_mlir::attr::string_value)
                .is_some_and(|n| n == name)
        })
}

/// The string attribute `attr` of each argument of function `f`.
fn arg_attrs(module: &Module, f: &str, attr: &str) -> Vec<Option<String>> {
    let Some(func) = function(module, f) else {
        return vec![];
    };
    let n = ocannl_mlir::ir::function_type(func).map_or(0, |t| t.input_count());
    (0..n)
        .map(|i| ocannl_mlir::ir::arg_string_attr(func, i, attr))
        .collect()
}

/// A model compiled for training and inference.
pub struct Trainer {
    /// The train step, prepared: its arguments hold the params and the
    /// optimizer's state between steps.
    step: Box<dyn Session>,
    device: Device,
    backend: &'static dyn Backend,
    options: CompileOptions,
    /// The forward routine's module at the loops stage, compiled on first
    /// use.
    forward_text: String,
    forward_program: RefCell<Option<Box<dyn Executable>>>,
    layout: Layout,
    /// The printed `ocannl_shape` module.
    pub module: String,
    times: RefCell<CompileTimes>,
    // The context outlives the compiled code (dropped last).
    _context: Context,
}

/// Where a diagnostic is, from its printed location: a name as it was
/// given (`loc("w\22x")` is `w"x`), a file position as `FILE:LINE:COL`.
fn place(loc: &str) -> String {
    let inner = loc
        .strip_prefix("loc(")
        .and_then(|l| l.strip_suffix(')'))
        .unwrap_or(loc);
    match crate::writer::read_string_literal(inner) {
        Some((name, rest)) => format!("{name}{rest}"),
        None => inner.to_string(),
    }
}

/// The file of a param in a directory of saved params: `NAME.npy`, with
/// every byte of the name other than ASCII letters, digits, `_`, `-` and
/// (not first) `.` written `%XX`, so that any name is one file inside the
/// directory (`a/b` is `a%2Fb.npy`, `..` is `%2E..npy`).
fn param_file(dir: &Path, name: &str) -> std::path::PathBuf {
    let mut file = String::with_capacity(name.len() + 4);
    for (i, b) in name.bytes().enumerate() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-' => file.push(char::from(b)),
            b'.' if i > 0 => file.push('.'),
            _ => file.push_str(&format!("%{b:02X}")),
        }
    }
    dir.join(file + ".npy")
}

/// The diagnostics a context emits, collected as lines.
struct Diagnostics(Arc<Mutex<Vec<String>>>);

impl Diagnostics {
    fn attach(context: &Context) -> Diagnostics {
        let messages = Arc::new(Mutex::new(vec![]));
        let sink = messages.clone();
        context.attach_diagnostic_handler(move |d| {
            let place = place(&d.location().to_string());
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
        Diagnostics(messages)
    }

    fn messages(&self) -> Vec<String> {
        self.0.lock().expect("diagnostics").clone()
    }

    /// The diagnostics, or `what` when there are none.
    fn or(&self, what: &str) -> Error {
        let m = self.messages();
        Error {
            messages: if m.is_empty() {
                vec![what.to_string()]
            } else {
                m
            },
        }
    }

    /// The diagnostics, then `what`.
    fn then(&self, what: String) -> Error {
        let mut messages = self.messages();
        messages.push(what);
        Error { messages }
    }
}

/// The passes from the tensor expressions to the optimized train step.
fn training_pipeline(optimizer: &Optimizer) -> ocannl_passes::Pipeline {
    pipelines::verify()
        .then(pipelines::infer_shapes())
        .then(pipelines::train(Some("loss"), Some(optimizer)))
        .then(pipelines::optimize())
}

/// Lowers the module of `loss` and `forward` for training with
/// `optimizer`, to optimized assignments; returns the work of one train
/// step (iterations of its assignments).
fn lower_for_training(
    context: &Context,
    module: &mut Module,
    optimizer: &Optimizer,
    diagnostics: &Diagnostics,
) -> Result<u64, Error> {
    let pipeline = training_pipeline(optimizer);
    ocannl_passes::run_pipeline(context, module, &pipeline)
        .map_err(|_| diagnostics.or("compiling failed"))?;
    Ok(function(module, "loss_train_step")
        .and_then(|f| ocannl_assign_dialect::to_routine(f).ok())
        .map(|r| routine_work(&r))
        .unwrap_or(u64::MAX))
}

/// Lowers a module of optimized assignments to the loops stage
/// `backend` compiles.
fn lower_to_loops(
    context: &Context,
    module: &mut Module,
    backend: &dyn Backend,
    diagnostics: &Diagnostics,
) -> Result<(), Error> {
    ocannl_passes::run_pipeline(context, module, backend.loops_pipeline())
        .map_err(|_| diagnostics.or("compiling failed"))
}

/// Splits the module of optimized assignments: the init and train-step
/// routines stay in it, the forward routine goes to a module of its own,
/// returned as text (lowered to loops when first used, so that a train
/// step's compile lowers none of it).
fn split_forward(module: &mut Module, diagnostics: &Diagnostics) -> Result<String, Error> {
    let mut forward = Module::from_operation(ocannl_mlir::ir::clone(module.as_operation()))
        .ok_or_else(|| diagnostics.or("internal error: cannot copy the module"))?;
    ocannl_passes::keep_only(&mut forward, &["forward"]).map_err(|e| diagnostics.then(e))?;
    let text = forward.as_operation().to_string();
    ocannl_passes::keep_only(module, &["loss_init", "loss_train_step"])
        .map_err(|e| diagnostics.then(e))?;
    Ok(text)
}

/// The train step prepared on zeros, its params set by the init routine.
fn initialized_step(program: &dyn Executable, layout: &Layout) -> Result<Box<dyn Session>, Error> {
    let zeros = |name: &str| -> Result<Vec<HostValue>, Error> {
        Ok(program
            .signature(name)?
            .inputs
            .iter()
            .map(Slot::zeros)
            .collect())
    };
    let mut init = program.prepare("loss_init", &zeros("loss_init")?)?;
    let mut step = program.prepare("loss_train_step", &zeros("loss_train_step")?)?;
    init.invoke()?;
    for k in 0..layout.params.len() {
        step.set(layout.n_data + k, &init.get(k)?)?;
    }
    Ok(step)
}

impl Trainer {
    /// Compiles `loss` (a tensor of one cell) for training with
    /// `optimizer` (an [`Optimizer`], or the options of one: [`Sgd`],
    /// [`Adam`]), and `forward` for inference. Data tensors are the
    /// routines' inputs, in order of creation; the two may use data of
    /// different shapes (a batch for training, any number of rows for
    /// inference). The optimizer's state starts at zero.
    pub fn new(
        loss: &Tensor,
        forward: &Tensor,
        optimizer: impl Into<Optimizer>,
    ) -> Result<Trainer, Error> {
        Trainer::new_on(Device::CPU, loss, forward, optimizer)
    }

    /// The `ocannl_shape` module a trainer compiles for `loss` and
    /// `forward`: the functions `@loss` and `@forward`.
    pub fn module(loss: &Tensor, forward: &Tensor) -> Result<String, Error> {
        Ok(format!(
            "{}{}",
            Tensor::module("loss", &[loss])?,
            Tensor::module("forward", &[forward])?
        ))
    }

    /// [`Trainer::new`] on a device ([`Device::CPU`], [`Device::CUDA`], or
    /// any registered backend by name). On [`Device::CUDA`] the routines
    /// are compiled to PTX and the params stay in device memory; a device
    /// that cannot run here fails with one line saying why, and an unknown
    /// name with the list of the registered ones.
    pub fn new_on(
        device: impl Into<Device>,
        loss: &Tensor,
        forward: &Tensor,
        optimizer: impl Into<Optimizer>,
    ) -> Result<Trainer, Error> {
        let optimizer = optimizer.into();
        optimizer.check()?;
        let device = device.into();
        let backend = find_backend(&device)?;
        let text = Trainer::module(loss, forward)?;
        let context = ocannl_passes::new_context()?;
        melior::utility::register_all_llvm_translations(&context);
        let diagnostics = Diagnostics::attach(&context);
        let mut options = backend.default_options();
        // What decides the compiled code: the module, the passes, the loop
        // target's lowering (the backend adds its own options).
        let pipeline = training_pipeline(&optimizer).to_string();
        let to_loops = backend.loops_pipeline().to_string();
        let key: [&[u8]; 4] = [
            b"trainer 2",
            text.as_bytes(),
            pipeline.as_bytes(),
            to_loops.as_bytes(),
        ];
        let t = Instant::now();
        let mut passes = Duration::ZERO;
        let cached = compile_cached(backend, &options, &key, || {
            let mut module = Module::parse(&context, &text)
                .ok_or_else(|| diagnostics.or("the module does not parse"))?;
            let work = lower_for_training(&context, &mut module, &optimizer, &diagnostics)?;
            let layout = Layout::read(&module)?;
            // The train step (with the init routine) is compiled now; the
            // forward routine, from its own module, on first use.
            let forward_text = split_forward(&mut module, &diagnostics)?;
            lower_to_loops(&context, &mut module, backend, &diagnostics)?;
            passes = t.elapsed();
            let options = CompileOptions {
                work: Some(work),
                run_once: ["loss_init".to_string()].into(),
                ..options.clone()
            };
            let program = backend
                .compile(&context, &mut module, &options)
                .map_err(|e| diagnostics.then(e))?;
            Ok::<_, Error>((program, layout.encode(work, &forward_text)))
        })?;
        let train_step = t.elapsed() - passes;
        let (program, cache) = (cached.executable, cached.cache);
        let (layout, work, forward_text) = Layout::decode(&cached.extra)
            .ok_or_else(|| Error::from("internal error: a damaged layout".to_string()))?;
        options.work = Some(work);
        let step = initialized_step(&*program, &layout)?;
        Ok(Trainer {
            step,
            device,
            backend,
            options,
            forward_text,
            forward_program: RefCell::new(None),
            layout,
            module: text,
            times: RefCell::new(CompileTimes {
                passes,
                train_step,
                forward: None,
                cache,
                phases: program
                    .phases()
                    .iter()
                    .map(|(n, d)| (n.to_string(), *d))
                    .collect(),
                counts: program
                    .stats()
                    .into_iter()
                    .map(|(n, c)| (n.to_string(), c))
                    .collect(),
            }),
            _context: context,
        })
    }

    /// One training step on a batch (one tensor per data input of the loss,
    /// in order) with the learning rate `lr`; returns the loss before the
    /// update.
    pub fn step(&mut self, batch: &[HostTensor], lr: f64) -> Result<f64, Error> {
        let n_data = self.layout.n_data;
        if batch.len() != n_data {
            return Err(format!(
                "the loss takes {n_data} data tensor(s), {} given",
                batch.len()
            )
            .into());
        }
        for (i, t) in batch.iter().enumerate() {
            self.set_input(i, &HostValue::Tensor(t.clone()))?;
        }
        self.step_on_inputs(lr)
    }

    /// Sets data input `i` of the loss (a tensor for a [`data`](crate::data()) input, an
    /// index for an [`index`](crate::index()) input, in order of creation)
    /// for the steps that follow: an input set once stays, so a whole
    /// dataset can be set once and sliced at an index set each step
    /// ([`Tensor::batch_slice`](crate::Tensor::batch_slice)).
    pub fn set_input(&mut self, i: usize, value: &HostValue) -> Result<(), Error> {
        let n_data = self.layout.n_data;
        if i >= n_data {
            return Err(format!("the loss has {n_data} data input(s), no input #{i}").into());
        }
        self.step.set(i, value)?;
        Ok(())
    }

    /// One training step on the inputs as set ([`Trainer::set_input`]; a
    /// data input never set is zeros) with the learning rate `lr`; returns
    /// the loss before the update.
    pub fn step_on_inputs(&mut self, lr: f64) -> Result<f64, Error> {
        let lr_at = self.layout.lr;
        let elt = match self.step.signature().inputs.get(lr_at) {
            Some(Slot::MemRef { elt, .. }) => *elt,
            _ => Elt::F32,
        };
        self.step.set(
            lr_at,
            &HostValue::Tensor(HostTensor {
                elt,
                dims: vec![],
                data: vec![lr],
            }),
        )?;
        let out = self.step.invoke()?;
        match out.first() {
            Some(HostValue::Tensor(t)) => Ok(t.data.iter().sum()),
            _ => Err("the train step returned no loss".to_string().into()),
        }
    }

    /// The forward routine on inputs (one tensor per data input of the
    /// forward function, in order), with the current params.
    pub fn forward(&self, inputs: &[HostTensor]) -> Result<HostTensor, Error> {
        let inputs: Vec<HostValue> = inputs.iter().cloned().map(HostValue::Tensor).collect();
        self.forward_values(&inputs)
    }

    /// [`Trainer::forward`] on inputs that may be indices (for the
    /// forward function's [`index`](crate::index()) inputs).
    pub fn forward_values(&self, inputs: &[HostValue]) -> Result<HostTensor, Error> {
        if inputs.len() != self.layout.forward_data {
            return Err(format!(
                "the forward function takes {} data tensor(s), {} given",
                self.layout.forward_data,
                inputs.len()
            )
            .into());
        }
        let mut args: Vec<HostValue> = inputs.to_vec();
        for name in &self.layout.forward_params {
            args.push(HostValue::Tensor(self.param(name)?));
        }
        let mut program = self.forward_program.borrow_mut();
        let program = match &mut *program {
            Some(p) => p,
            None => {
                let t = Instant::now();
                let mut module =
                    Module::parse(&self._context, &self.forward_text).ok_or_else(|| {
                        Error::from("internal error: the forward module does not parse".to_string())
                    })?;
                let diagnostics = Diagnostics::attach(&self._context);
                lower_to_loops(&self._context, &mut module, self.backend, &diagnostics)?;
                let compiled = self
                    .backend
                    .compile(&self._context, &mut module, &self.options)?;
                self.times.borrow_mut().forward = Some(t.elapsed());
                program.insert(compiled)
            }
        };
        match program.call("forward", &args)?.into_iter().next() {
            Some(HostValue::Tensor(t)) => Ok(t),
            _ => Err("the forward routine returned no tensor".to_string().into()),
        }
    }

    /// Where the trainer runs.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// How long compiling took so far.
    pub fn times(&self) -> CompileTimes {
        self.times.borrow().clone()
    }

    /// The names of the params, in order.
    pub fn param_names(&self) -> &[String] {
        &self.layout.params
    }

    /// The current value of a param.
    pub fn param(&self, name: &str) -> Result<HostTensor, Error> {
        let k = self
            .layout
            .params
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| format!("no param '{name}'"))?;
        match self.step.get(self.layout.n_data + k)? {
            HostValue::Tensor(t) => Ok(t),
            HostValue::Index(_) => Err(format!("param '{name}' is not a tensor").into()),
        }
    }

    /// Replaces the value of a param (same shape).
    pub fn set_param(&mut self, name: &str, value: &HostTensor) -> Result<(), Error> {
        let k = self
            .layout
            .params
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| format!("no param '{name}'"))?;
        self.step
            .set(self.layout.n_data + k, &HostValue::Tensor(value.clone()))?;
        Ok(())
    }

    /// The current value of a buffer of the optimizer's state: `kind` of
    /// param `param` (`""` for the step count, the train step's own).
    pub fn optimizer_state(&self, kind: State, param: &str) -> Result<HostTensor, Error> {
        let &(_, _, at) = self
            .layout
            .state
            .iter()
            .find(|(k, p, _)| *k == kind && p == param)
            .ok_or_else(|| format!("the optimizer has no {} state for '{param}'", kind.name()))?;
        match self.step.get(at)? {
            HostValue::Tensor(t) => Ok(t),
            HostValue::Index(_) => Err("the optimizer's state is not a tensor".to_string().into()),
        }
    }

    /// Writes every param as `DIR/NAME.npy` (a name's bytes other than
    /// letters, digits, `_`, `-` and `.` written `%XX`: every param is one
    /// file inside `DIR`).
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for name in &self.layout.params {
            let t = self.param(name)?;
            ocannl_runtime::npy::write(&param_file(dir, name), &t)?;
        }
        Ok(())
    }

    /// Reads every param from `DIR/NAME.npy` (as written by [`Trainer::save`]).
    pub fn load(&mut self, dir: &Path) -> Result<(), Error> {
        let names = self.layout.params.clone();
        let mut values = HashMap::new();
        for name in &names {
            values.insert(
                name.clone(),
                ocannl_runtime::npy::read(&param_file(dir, name))?,
            );
        }
        for name in &names {
            self.set_param(name, &values[name])?;
        }
        Ok(())
    }
}
