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
//!
//! Data-parallel training ([`Trainer::new_data_parallel`]) takes a
//! [`Collective`] (MPI across processes and hosts, NCCL across GPUs): the
//! step is split in two routines, `@loss_grad` (forward and backprop on
//! this rank's shard of the batch, returning the loss and the gradients)
//! and `@loss_update` (the optimizer's update on given gradients); between
//! them the loss and every gradient, in one buffer, are all-reduced to
//! their mean. The params start as rank 0's (broadcast), and the ranks
//! check at start-up that they compile the same model with the same
//! optimizer. One process keeps the fused step.

use std::{
    borrow::Cow,
    cell::RefCell,
    collections::HashMap,
    fmt,
    path::Path,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use melior::ir::{operation::OperationLike, Module};
use ocannl_collective::{check_same, Buffer, Collective, Stats};
use ocannl_compiler::{Compiler, Job};
use ocannl_passes::{pipelines, Backend};
use ocannl_runtime::{ArgInfo, Cells, Executable, HostTensor, HostValue, Role, Session, Slot};

pub use ocannl_compiler::CacheUse;

use crate::{Diagnostic, Error, Tensor};

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

/// The backend of `device`, if it can run here (else why not, in one line).
fn find_backend(device: &Device) -> Result<&'static dyn Backend, Error> {
    let backend =
        ocannl_compiler::backend(device.name()).map_err(|e| Error::UnknownDevice(e.to_string()))?;
    match backend.unavailable() {
        Some(why) => Err(Error::DeviceUnavailable(why)),
        None => Ok(backend),
    }
}

/// The optimizers (SGD with OCANNL's options, Adam, AdamW, each with
/// optional global-norm clipping) and the kinds of their state: the
/// assignment model's own.
pub use ocannl_assign::optim::{Adam, DecayOn, Optimizer, Sgd, State};
use ocannl_dialect_spec::abi::PARAM;

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
    /// Running the init routine once compiled (the params' initial values,
    /// the optimizer's state): part of [`Trainer::new`], not of compiling.
    pub init: Duration,
    /// Whether the train step came from the compilation cache (then
    /// `passes` is zero and `train_step` the time to load it).
    pub cache: CacheUse,
    /// Whether the forward routine came from the compilation cache, once
    /// it has been used.
    pub forward_cache: Option<CacheUse>,
    /// The backend's phases compiling the train step, by name, with what
    /// it counts (kernels, parts compiled and cached), when it compiled.
    pub phases: Vec<(String, Duration)>,
    /// What the backend counted compiling the train step, by name (the
    /// CPU's parts, those compiled and those taken from the cache).
    pub counts: Vec<(String, u64)>,
}

/// The argument positions of the training routines, from the roles the
/// executable carries (the argument ABI: what each argument is, the
/// passes marked).
struct Layout {
    /// The train step's data arguments (its first), then its params (by
    /// name); the optimizer's state and the learning rate follow. Split
    /// (data-parallel), the data and params are those of the gradient
    /// routine, and the params, their gradients, the state and the
    /// learning rate are the update routine's arguments.
    n_data: usize,
    params: Vec<String>,
    /// The first param's position in the routine that keeps the params and
    /// the state (the train step: `n_data`; the update routine: 0).
    param_at: usize,
    /// The optimizer's state: each argument's kind, its param's name
    /// (empty for the step's own state) and its position.
    state: Vec<(State, String, usize)>,
    /// The train step's learning-rate argument.
    lr: usize,
}

impl Layout {
    /// The layout of the program's routines: the train step's, or `split`,
    /// the gradient and update routines'.
    fn of(program: &dyn Executable, split: bool) -> Result<Layout, Error> {
        let (data_fn, state_fn) = if split {
            ("loss_grad", "loss_update")
        } else {
            ("loss_train_step", "loss_train_step")
        };
        let data_args = program
            .arg_info(data_fn)
            .map_err(|e| Error::Internal(e.to_string()))?;
        let state_args = program
            .arg_info(state_fn)
            .map_err(|e| Error::Internal(e.to_string()))?;
        let lr = state_args
            .iter()
            .position(|a| a.role == Role::LearningRate)
            .ok_or_else(|| {
                Error::Internal(
                    "internal error: the train step has no learning-rate argument".into(),
                )
            })?;
        let state = state_args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| {
                let Role::State(kind) = &a.role else {
                    return None;
                };
                let kind = State::ALL.into_iter().find(|s| s.name() == kind)?;
                let param = a.name.split_once(':').map_or("", |(_, p)| p);
                Some((kind, param.to_string(), i))
            })
            .collect();
        Ok(Layout {
            n_data: data_args
                .iter()
                .take_while(|a| a.role == Role::Data)
                .count(),
            params: params_of(data_args),
            param_at: state_args
                .iter()
                .position(|a| a.role == Role::Param)
                .unwrap_or(state_args.len()),
            state,
            lr,
        })
    }
}

/// The names of the params among `args`, in order.
fn params_of(args: &[ArgInfo]) -> Vec<String> {
    args.iter()
        .filter(|a| a.role == Role::Param)
        .map(|a| a.name.clone())
        .collect()
}

/// An inference routine (the forward function, or one given to
/// [`Trainer::with_routines`]), compiled on first use, with its arguments
/// in the backend's memory: the params are copied in only when they
/// changed since the last call (a train step, a param set or loaded).
struct Forward {
    session: Box<dyn Session>,
    /// The compiled code the session runs (dropped after it).
    _program: Box<dyn Executable>,
    /// Its data arguments (its first), then its params (by name).
    n_data: usize,
    params: Vec<String>,
    /// Whether its params are the train step's buffers, read in place
    /// (else they are copied in when they changed).
    shared: bool,
    /// The trainer's param generation the session's params are of.
    synced: u64,
}

/// The function `name` of a module.
fn function<'c, 'm>(
    module: &'m Module<'c>,
    name: &str,
) -> Option<melior::ir::OperationRef<'c, 'm>> {
    ocannl_mlir::ir::functions_by_name(module.as_operation()).remove(name)
}

/// Fails when a param has one shape in the training routine `train` and
/// another in the forward routine (they share its one buffer): a shape
/// error at the param, naming both shapes.
fn check_params_agree(module: &Module, train: &str) -> Result<(), Error> {
    let shapes = |f: &str| -> Vec<(String, Vec<u64>)> {
        let Some(func) = function(module, f) else {
            return vec![];
        };
        let Some(ty) = ocannl_mlir::ir::function_type(func) else {
            return vec![];
        };
        (0..ty.input_count())
            .filter_map(|i| {
                let name = ocannl_mlir::ir::arg_string_attr(func, i, PARAM)?;
                let dims = ocannl_mlir::types::memref_dims(ty.input(i).ok()?)?;
                Some((name, dims))
            })
            .collect()
    };
    let forward = shapes("forward");
    let diagnostics: Vec<Diagnostic> = shapes(train)
        .into_iter()
        .filter_map(|(name, dims)| {
            let (_, other) = forward.iter().find(|(n, _)| *n == name)?;
            (*other != dims).then(|| Diagnostic {
                place: name,
                severity: "error".into(),
                message: format!(
                    "the param has shape {dims:?} in the loss but {other:?} in the forward function"
                ),
                notes: vec![],
            })
        })
        .collect();
    if diagnostics.is_empty() {
        Ok(())
    } else {
        Err(Error::Shape(diagnostics))
    }
}

/// A model compiled for training and inference.
pub struct Trainer {
    /// The train step, prepared: its arguments hold the params and the
    /// optimizer's state between steps.
    step: Step,
    /// The executable of the train step (its profile).
    program: Box<dyn Executable>,
    device: Device,
    /// The inference routines' module (the forward function and the
    /// routines given to [`Trainer::with_routines`]), each compiled on
    /// first use.
    forward_text: String,
    forward_program: RefCell<HashMap<String, Forward>>,
    /// The inference routines' names (`forward` first).
    routines: Vec<String>,
    /// Bumped whenever the params may change (a step, a param set).
    params_generation: u64,
    layout: Layout,
    /// The printed `ocannl_shape` module.
    pub module: String,
    times: RefCell<CompileTimes>,
    /// The context's diagnostics (one handler for the trainer's life).
    diagnostics: Diagnostics,
    // The compiler's context outlives the compiled code (dropped last).
    compiler: Compiler,
}

/// The prepared routines of a training step.
enum Step {
    /// One process: forward, backprop and update in one routine.
    Fused(Box<dyn Session>),
    /// Data-parallel: the gradient routine (reading the update routine's
    /// params in place where the backend shares buffers, else copied from
    /// them before each step), a collective, the update routine (which
    /// keeps the params and the state).
    Split {
        grads: Box<dyn Session>,
        update: Box<dyn Session>,
        collective: Box<dyn Collective>,
        /// Whether `grads` reads `update`'s params in place.
        shared: bool,
    },
}

impl Step {
    /// The routine whose arguments are the data.
    fn data(&mut self) -> &mut dyn Session {
        match self {
            Step::Fused(s) => &mut **s,
            Step::Split { grads, .. } => &mut **grads,
        }
    }

    /// The routine that keeps the params and the optimizer's state.
    fn state(&self) -> &dyn Session {
        match self {
            Step::Fused(s) => &**s,
            Step::Split { update, .. } => &**update,
        }
    }

    fn state_mut(&mut self) -> &mut dyn Session {
        match self {
            Step::Fused(s) => &mut **s,
            Step::Split { update, .. } => &mut **update,
        }
    }
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

impl Tensor {
    /// The named dimensions of the function computing `results`, solved by
    /// shape inference: each name an einsum captures
    /// ([`einsum_capturing`](crate::einsum_capturing)) or a constraint
    /// ([`Tensor::set_dim`], [`Tensor::set_equal`]) mentions, with a
    /// dimension's size or a row's total elements (OCANNL's `solved_dim`
    /// of a variable reference), in order of first mention. A model whose
    /// shapes conflict is [`Error::Shape`].
    pub fn named_dims(results: &[&Tensor]) -> Result<Vec<(String, u64)>, Error> {
        let text = Tensor::module("dims", results)?;
        let backend = find_backend(&Device::CPU)?;
        let mut compiler = Compiler::new(backend, backend.default_options());
        let diagnostics = Diagnostics::attach(&mut compiler);
        let failed = |e: ocannl_compiler::Error| {
            let d = diagnostics.take();
            if d.is_empty() {
                Error::Compile {
                    diagnostics: d,
                    cause: e,
                }
            } else {
                Error::Shape(d)
            }
        };
        let mut module = compiler.parse("", &text).map_err(failed)?;
        compiler
            .lower(&mut module, &pipelines::infer_shapes())
            .map_err(failed)?;
        let func = function(&module, "dims")
            .ok_or_else(|| Error::Internal("internal error: the function is gone".into()))?;
        Ok(ocannl_mlir::ir::int_dictionary(
            func,
            ocannl_passes::transforms::infer_shapes::DIMS,
        ))
    }
}

/// The diagnostics a context emits.
struct Diagnostics(Arc<Mutex<Vec<Diagnostic>>>);

impl Diagnostics {
    /// Diagnostics collected from the compiler's context, once it is made.
    fn attach(compiler: &mut Compiler) -> Diagnostics {
        let messages = Arc::new(Mutex::new(vec![]));
        let sink = messages.clone();
        compiler.on_context(move |context| {
            let sink = sink.clone();
            context.attach_diagnostic_handler(move |d| {
                let diagnostic = Diagnostic {
                    place: place(&d.location().to_string()),
                    severity: format!("{:?}", d.severity()).to_lowercase(),
                    message: d.to_string(),
                    notes: (0..d.note_count())
                        .filter_map(|i| d.note(i).ok().map(|n| n.to_string()))
                        .collect(),
                };
                sink.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(diagnostic);
                true
            });
        });
        Diagnostics(messages)
    }

    fn take(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Forgets the diagnostics so far (before another compile).
    fn clear(&self) {
        self.take();
    }

    /// The error of a failed compile: the diagnostics of the failing step,
    /// a shape error when that step is shape inference (the first stage of
    /// a trainer's job).
    fn of(&self, e: BuildError) -> Error {
        use ocannl_compiler::Error as E;
        let diagnostics = self.take();
        match e {
            BuildError::Compile(E::Stage { stage, .. })
                if stage == shape_stage() && !diagnostics.is_empty() =>
            {
                Error::Shape(diagnostics)
            }
            BuildError::Compile(E::UnknownBackend(e)) => Error::UnknownDevice(e.to_string()),
            BuildError::Compile(cause) => Error::Compile { diagnostics, cause },
            BuildError::Other(e) => e,
        }
    }
}

/// What fails building a trainer: a step of the compiler (its
/// diagnostics are the context's), or the trainer's own look at the module.
enum BuildError {
    Compile(ocannl_compiler::Error),
    Other(Error),
}

impl From<ocannl_compiler::Error> for BuildError {
    fn from(e: ocannl_compiler::Error) -> Self {
        BuildError::Compile(e)
    }
}

impl From<Error> for BuildError {
    fn from(e: Error) -> Self {
        BuildError::Other(e)
    }
}

/// What decides the trainer's use of a compiled job (the layout it derives
/// and keeps with the train step): part of the cache key.
const TRAINER_TAG: &str = "trainer 5";

/// The passes from the tensor expressions to the optimized train step
/// (`split`: with the update routine on its own).
/// Its stages: shape inference (after verifying the module), then the
/// training routines and their optimizations.
fn training_pipeline(optimizer: &Optimizer, split: bool) -> Vec<ocannl_passes::Pipeline> {
    let train = if split {
        pipelines::train_split(Some("loss"), optimizer)
    } else {
        pipelines::train(Some("loss"), Some(optimizer))
    };
    // The optimizations a stage of their own, so that they run only on the
    // routines compiled (the compiler drops the others after `train`).
    vec![
        pipelines::verify().then(pipelines::infer_shapes()),
        train,
        pipelines::optimize(),
    ]
}

/// The name of the first stage of a trainer's job (shape inference): a
/// failure there is a shape error.
fn shape_stage() -> &'static str {
    pipelines::verify().name()
}

/// The forward routine's module, as text, from the module of optimized
/// assignments (lowered to loops when first used, so that a train step's
/// compile lowers none of it): a copy of the module without the training
/// routines (the bulk of it, which the forward routine does not call),
/// then only what the forward routine uses.
fn split_forward(module: &Module, routines: &[String]) -> Result<String, Error> {
    use melior::ir::{block::BlockLike, RegionLike};
    let mut forward = Module::new(module.as_operation().location());
    for (name, value) in module.as_operation().attributes() {
        let name = name
            .as_string_ref()
            .as_str()
            .unwrap_or_default()
            .to_string();
        ocannl_mlir::ir::set_attribute(forward.as_operation(), &name, value);
    }
    let body = module
        .as_operation()
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| Error::Internal("internal error: a module without a body".into()))?;
    let training = [
        "loss",
        "loss_init",
        "loss_train_step",
        "loss_grad",
        "loss_update",
    ];
    let mut cur = body.first_operation();
    while let Some(op) = cur {
        cur = op.next_in_block();
        let name = op
            .attribute("sym_name")
            .ok()
            .and_then(ocannl_mlir::attr::string_value);
        if name.is_some_and(|n| training.contains(&n.as_str())) {
            continue;
        }
        forward.body().append_operation(ocannl_mlir::ir::clone(op));
    }
    let keep: Vec<&str> = routines.iter().map(String::as_str).collect();
    ocannl_passes::keep_only(&mut forward, &keep).map_err(|e| Error::Internal(e.to_string()))?;
    Ok(forward.as_operation().to_string())
}

/// The train step prepared on zeros, its params set by the init routine
/// (with a collective: the split routines, the params rank 0's).
fn initialized_step(
    program: &dyn Executable,
    layout: &Layout,
    collective: Option<Box<dyn Collective>>,
) -> Result<Step, Error> {
    let prepare = |name: &str| program.prepare_zeroed(name).map_err(Error::from);
    let mut init = prepare("loss_init")?;
    let mut step = match collective {
        None => Step::Fused(prepare("loss_train_step")?),
        Some(collective) => {
            let mut grads = prepare("loss_grad")?;
            let update = prepare("loss_update")?;
            let shared = (0..layout.params.len()).all(|k| {
                grads
                    .share(layout.n_data + k, &*update, layout.param_at + k)
                    .is_ok()
            });
            Step::Split {
                grads,
                update,
                collective,
                shared,
            }
        }
    };
    // One process: the init routine writes the params into the train
    // step's own buffers where the backend shares them (the CPU), with no
    // copy and no second set of params.
    let n = layout.params.len();
    if matches!(step, Step::Fused(_))
        && (0..n).all(|k| init.share(k, step.state(), layout.param_at + k).is_ok())
    {
        init.invoke().map_err(Error::from)?;
        return Ok(step);
    }
    init.invoke().map_err(Error::from)?;
    let mut params = (0..n)
        .map(|k| tensor(init.get(k).map_err(Error::from)?))
        .collect::<Result<Vec<_>, Error>>()?;
    if let Step::Split { collective, .. } = &mut step {
        // Every rank starts from rank 0's params.
        let mut flat = Flat::of(&params);
        flat.apply(|b| collective.broadcast(b))?;
        flat.unpack(&mut params);
    }
    for (k, p) in params.into_iter().enumerate() {
        step.state_mut()
            .set(layout.param_at + k, &HostValue::Tensor(p))
            .map_err(Error::from)?;
    }
    Ok(step)
}

/// The loss and the gradients of the split gradient routine on its inputs
/// as set, the params as the last update left them (already there when the
/// gradient routine reads them in place).
fn split_grads(
    grads: &mut dyn Session,
    update: &dyn Session,
    shared: bool,
    n_data: usize,
    np: usize,
) -> Result<Vec<HostTensor>, Error> {
    if !shared {
        for k in 0..np {
            let p = update.get(k).map_err(Error::from)?;
            grads.set(n_data + k, &p).map_err(Error::from)?;
        }
    }
    let out = grads
        .invoke()
        .map_err(Error::from)?
        .into_iter()
        .map(tensor)
        .collect::<Result<Vec<_>, Error>>()?;
    if out.len() != 1 + np {
        return Err(Error::Internal(
            "internal error: the gradient routine's results".into(),
        ));
    }
    Ok(out)
}

/// The update from the loss and the gradients summed over `micro`
/// micro-batches: all-reduced over the ranks and averaged over both, in
/// one buffer, then the update routine. Returns the mean loss.
fn split_update(
    update: &mut dyn Session,
    collective: &mut dyn Collective,
    mut out: Vec<HostTensor>,
    micro: usize,
    np: usize,
) -> Result<f64, Error> {
    let mut flat = Flat::of(&out);
    flat.apply(|b| collective.all_reduce_sum(b))?;
    flat.scale(1.0 / (collective.size() * micro) as f64);
    flat.unpack(&mut out);
    let mut out = out.into_iter();
    let loss: f64 = out.next().map_or(0.0, |t| t.to_f64().iter().sum());
    for (k, g) in out.enumerate() {
        update
            .set(np + k, &HostValue::Tensor(g))
            .map_err(Error::from)?;
    }
    update.invoke().map_err(Error::from)?;
    Ok(loss)
}

/// A value that must be a tensor.
fn tensor(v: HostValue) -> Result<HostTensor, Error> {
    match v {
        HostValue::Tensor(t) => Ok(t),
        HostValue::Index(_) => Err(Error::Internal(
            "internal error: a param or gradient is not a tensor".into(),
        )),
    }
}

/// Tensors of one element type as one buffer (what a collective reduces
/// or broadcasts in one call).
enum Flat {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Flat {
    /// The tensors' cells, one after the other: in f32 when the first is
    /// (the model's type), else in f64 (a tensor of the other type
    /// converted).
    fn of(tensors: &[HostTensor]) -> Flat {
        let n = tensors.iter().map(HostTensor::len).sum();
        let mut flat = match tensors.first().map(HostTensor::elt) {
            Some(Elt::F32) => Flat::F32(Vec::with_capacity(n)),
            _ => Flat::F64(Vec::with_capacity(n)),
        };
        for t in tensors {
            match (&mut flat, &t.data) {
                (Flat::F32(v), Cells::F32(c)) => v.extend_from_slice(c),
                (Flat::F64(v), Cells::F64(c)) => v.extend_from_slice(c),
                (Flat::F32(v), c) => v.extend(c.to_f64().into_iter().map(|x| x as f32)),
                (Flat::F64(v), c) => v.extend(c.to_f64()),
            }
        }
        flat
    }

    fn apply(
        &mut self,
        f: impl FnOnce(Buffer) -> Result<(), ocannl_collective::Error>,
    ) -> Result<(), Error> {
        match self {
            Flat::F32(v) => f(Buffer::F32(v)),
            Flat::F64(v) => f(Buffer::F64(v)),
        }
        .map_err(Error::from)
    }

    /// Every cell times `x`.
    fn scale(&mut self, x: f64) {
        match self {
            Flat::F32(v) => v.iter_mut().for_each(|c| *c *= x as f32),
            Flat::F64(v) => v.iter_mut().for_each(|c| *c *= x),
        }
    }

    /// Adds `other`'s cells (of the same tensors) to these.
    fn add(&mut self, other: &Flat) -> Result<(), Error> {
        match (self, other) {
            (Flat::F32(a), Flat::F32(b)) if a.len() == b.len() => {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y)
            }
            (Flat::F64(a), Flat::F64(b)) if a.len() == b.len() => {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y)
            }
            _ => {
                return Err(Error::Internal(
                    "internal error: gradients of different layouts".into(),
                ))
            }
        }
        Ok(())
    }

    /// Writes the cells back into `tensors` (those it was made of).
    fn unpack(&self, tensors: &mut [HostTensor]) {
        let mut at = 0;
        for t in tensors {
            let n = t.len();
            match (self, &mut t.data) {
                (Flat::F32(v), Cells::F32(c)) => c.copy_from_slice(&v[at..at + n]),
                (Flat::F64(v), Cells::F64(c)) => c.copy_from_slice(&v[at..at + n]),
                (Flat::F32(v), c) => {
                    *c = Cells::from_f64(c.elt(), v[at..at + n].iter().map(|&x| f64::from(x)))
                }
                (Flat::F64(v), c) => *c = Cells::from_f64(c.elt(), v[at..at + n].iter().copied()),
            }
            at += n;
        }
    }
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
        Trainer::module_with(loss, forward, &[])
    }

    /// [`Trainer::module`] with the functions of `routines` (each a name and
    /// its results) after `@forward`.
    pub fn module_with(
        loss: &Tensor,
        forward: &Tensor,
        routines: &[(&str, &[&Tensor])],
    ) -> Result<String, Error> {
        let mut text = format!(
            "{}{}",
            Tensor::module("loss", &[loss])?,
            Tensor::module("forward", &[forward])?
        );
        for (name, outputs) in routines {
            // (The lowering names a function's companions `F_init`,
            // `F_train_step`, `F_grad` and `F_update`.)
            let generated = ["_init", "_train_step", "_grad", "_update"];
            let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && *name != "forward"
                && !name.starts_with("loss")
                && !generated.iter().any(|g| name.ends_with(g));
            if !ok {
                return Err(Error::Invalid(format!(
                    "'{name}' cannot name a routine: a letter then letters, digits or '_', not 'forward', not starting with 'loss', not ending with {}",
                    generated.join(", ")
                )));
            }
            if routines.iter().filter(|(n, _)| n == name).count() > 1 {
                return Err(Error::Invalid(format!("two routines are named '{name}'")));
            }
            text += &Tensor::module(name, outputs)?;
        }
        Ok(text)
    }

    /// [`Trainer::new_on`] with more inference routines than the forward
    /// function: each a name and its results, reading the trainer's params
    /// (in place on the CPU) and the data it creates, compiled on its first
    /// [`Trainer::call`] (e.g. a decoding step with its caches as inputs
    /// and results).
    pub fn with_routines(
        device: impl Into<Device>,
        loss: &Tensor,
        forward: &Tensor,
        routines: &[(&str, &[&Tensor])],
        optimizer: impl Into<Optimizer>,
    ) -> Result<Trainer, Error> {
        Trainer::build_with(
            device.into(),
            loss,
            forward,
            routines,
            optimizer.into(),
            None,
        )
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
        Trainer::build(device.into(), loss, forward, optimizer.into(), None)
    }

    /// [`Trainer::new_on`], one rank of a data-parallel job: `collective`
    /// joins the ranks (each a process running this same code: MPI's
    /// ranks, or NCCL's over GPUs; [`crate::parallel::join`] gives the
    /// one for a device). Each rank steps on its own shard of
    /// every global batch; the loss and the gradients are all-reduced to
    /// their mean between backprop and the update, so that with a loss
    /// that is a mean over its batch, N ranks on shards of B take the step
    /// one process takes on the batch of N×B. The params start as rank
    /// 0's. Fails on every rank when the ranks compile different models or
    /// optimizers.
    pub fn new_data_parallel(
        device: impl Into<Device>,
        loss: &Tensor,
        forward: &Tensor,
        optimizer: impl Into<Optimizer>,
        collective: Box<dyn Collective>,
    ) -> Result<Trainer, Error> {
        Trainer::build(
            device.into(),
            loss,
            forward,
            optimizer.into(),
            Some(collective),
        )
    }

    /// A trainer whose step can accumulate gradients over several
    /// micro-batches before one update ([`Trainer::step_accumulating`]):
    /// the gradient routine and the update routine compiled apart, as for
    /// data parallelism, in one process.
    pub fn new_accumulating(
        device: impl Into<Device>,
        loss: &Tensor,
        forward: &Tensor,
        optimizer: impl Into<Optimizer>,
    ) -> Result<Trainer, Error> {
        Trainer::new_data_parallel(
            device,
            loss,
            forward,
            optimizer,
            Box::new(ocannl_collective::Local::default()),
        )
    }

    fn build(
        device: Device,
        loss: &Tensor,
        forward: &Tensor,
        optimizer: Optimizer,
        collective: Option<Box<dyn Collective>>,
    ) -> Result<Trainer, Error> {
        Trainer::build_with(device, loss, forward, &[], optimizer, collective)
    }

    fn build_with(
        device: Device,
        loss: &Tensor,
        forward: &Tensor,
        routines: &[(&str, &[&Tensor])],
        optimizer: Optimizer,
        mut collective: Option<Box<dyn Collective>>,
    ) -> Result<Trainer, Error> {
        let split = collective.is_some();
        optimizer
            .check()
            .map_err(|e| Error::Invalid(e.to_string()))?;
        let backend = find_backend(&device)?;
        let text = Trainer::module_with(loss, forward, routines)?;
        let mut inspected = vec!["forward".to_string()];
        inspected.extend(routines.iter().map(|(n, _)| n.to_string()));
        let mut compiler = Compiler::new(backend, backend.default_options());
        let diagnostics = Diagnostics::attach(&mut compiler);
        let keep: &[&str] = if split {
            &["loss_init", "loss_grad", "loss_update"]
        } else {
            &["loss_init", "loss_train_step"]
        };
        let job = Job {
            name: "",
            source: &text,
            stages: training_pipeline(&optimizer, split),
            keep: keep.iter().map(|k| k.to_string()).collect(),
            inspected: inspected.clone(),
            tag: TRAINER_TAG,
            calls: 1,
            loop_stats: false,
        };
        if let Some(c) = &mut collective {
            let mut all = job.key();
            all.extend(device.name().as_bytes());
            check_same(&mut **c, "the model, its optimizer or its device", &all)
                .map_err(Error::from)?;
        }
        let t = Instant::now();
        let compiled = compiler
            .compile(&job, |module, options| {
                check_params_agree(
                    module,
                    if split {
                        "loss_grad"
                    } else {
                        "loss_train_step"
                    },
                )?;
                // The train step (with the init routine) is compiled now;
                // the forward routine, from its own module, on first use.
                let forward_text = split_forward(module, &inspected)?;
                options.run_once = ["loss_init".to_string()].into();
                Ok::<_, BuildError>(forward_text.into_bytes())
            })
            .map_err(|e| diagnostics.of(e))?;
        let passes = compiled.passes;
        let train_step = t.elapsed() - passes;
        let (program, cache) = (compiled.executable, compiled.cache);
        let forward_text = String::from_utf8(compiled.extra)
            .map_err(|_| Error::Internal("internal error: a damaged cache entry".into()))?;
        let layout = Layout::of(&*program, split)?;
        // The forward routine is compiled for the train step's work.
        compiler.options_mut().work = compiled.work;
        let t = Instant::now();
        let step = initialized_step(&*program, &layout, collective)?;
        let init = t.elapsed();
        Ok(Trainer {
            step,
            device,
            forward_text,
            forward_program: RefCell::new(HashMap::new()),
            routines: inspected,
            params_generation: 0,
            layout,
            module: text,
            times: RefCell::new(CompileTimes {
                passes,
                train_step,
                forward: None,
                forward_cache: None,
                init,
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
            diagnostics,
            compiler,
            program,
        })
    }

    /// The per-kernel profile of the train step's calls so far (the
    /// init routine's too), when it was compiled to profile
    /// (`OCANNL_PROFILE=1`, or the compile option `profile=on` of the CPU);
    /// [`ocannl_runtime::Profile::report`] prints the slowest kernels.
    pub fn profile(&self) -> Option<ocannl_runtime::Profile> {
        self.program.profile()
    }

    /// One training step on a batch (one tensor per data input of the loss,
    /// in order) with the learning rate `lr`; returns the loss before the
    /// update.
    pub fn step(&mut self, batch: &[HostTensor], lr: f64) -> Result<f64, Error> {
        let n_data = self.layout.n_data;
        if batch.len() != n_data {
            return Err(Error::Invalid(format!(
                "the loss takes {n_data} data tensor(s), {} given",
                batch.len()
            )));
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
            return Err(Error::Invalid(format!(
                "the loss has {n_data} data input(s), no input #{i}"
            )));
        }
        self.step.data().set(i, value).map_err(Error::from)?;
        Ok(())
    }

    /// One training step on the inputs as set ([`Trainer::set_input`]; a
    /// data input never set is zeros) with the learning rate `lr`; returns
    /// the loss before the update.
    pub fn step_on_inputs(&mut self, lr: f64) -> Result<f64, Error> {
        self.params_generation += 1;
        self.set_lr(lr)?;
        let (n_data, np) = (self.layout.n_data, self.layout.params.len());
        let (grads, update, collective, shared) = match &mut self.step {
            Step::Fused(step) => {
                let out = step.invoke().map_err(Error::from)?;
                return match out.first() {
                    Some(HostValue::Tensor(t)) => Ok(t.to_f64().iter().sum()),
                    _ => Err(Error::Internal("the train step returned no loss".into())),
                };
            }
            Step::Split {
                grads,
                update,
                collective,
                shared,
            } => (grads, update, collective, *shared),
        };
        let out = split_grads(&mut **grads, &**update, shared, n_data, np)?;
        split_update(&mut **update, &mut **collective, out, 1, np)
    }

    /// One update from the gradients of several micro-batches (gradient
    /// accumulation): each `batches[m]` holds one tensor per data input of
    /// the loss; the loss and the gradients are averaged over the
    /// micro-batches (then over the ranks of a data-parallel job) before
    /// one optimizer step with the learning rate `lr`, as PyTorch users get
    /// by dividing each micro-batch's loss by their number. With a loss
    /// that is a mean over its batch, `N` micro-batches of `B` rows update
    /// as one batch of `N·B` rows does. Returns the mean loss. Needs a
    /// trainer built with [`Trainer::new_accumulating`] (or
    /// [`Trainer::new_data_parallel`]).
    pub fn step_accumulating(
        &mut self,
        batches: &[Vec<HostTensor>],
        lr: f64,
    ) -> Result<f64, Error> {
        let (n_data, np) = (self.layout.n_data, self.layout.params.len());
        if batches.is_empty() {
            return Err(Error::Invalid(
                "step_accumulating: no micro-batch given".into(),
            ));
        }
        if let Some(b) = batches.iter().find(|b| b.len() != n_data) {
            return Err(Error::Invalid(format!(
                "the loss takes {n_data} data tensor(s), a micro-batch gives {}",
                b.len()
            )));
        }
        if matches!(self.step, Step::Fused(_)) {
            return Err(Error::Invalid(
                "step_accumulating needs the gradient and update routines apart: build the trainer with Trainer::new_accumulating".into(),
            ));
        }
        self.set_lr(lr)?;
        self.params_generation += 1;
        let Step::Split {
            grads,
            update,
            collective,
            shared,
        } = &mut self.step
        else {
            unreachable!("checked above")
        };
        let mut sum: Option<Vec<HostTensor>> = None;
        for batch in batches {
            for (i, t) in batch.iter().enumerate() {
                grads
                    .set(i, &HostValue::Tensor(t.clone()))
                    .map_err(Error::from)?;
            }
            let out = split_grads(&mut **grads, &**update, *shared, n_data, np)?;
            sum = Some(match sum {
                None => out,
                Some(mut acc) => {
                    let mut flat = Flat::of(&acc);
                    flat.add(&Flat::of(&out))?;
                    flat.unpack(&mut acc);
                    acc
                }
            });
        }
        let out = sum.expect("at least one micro-batch");
        split_update(&mut **update, &mut **collective, out, batches.len(), np)
    }

    /// Sets the learning rate argument of the routine keeping the state.
    fn set_lr(&mut self, lr: f64) -> Result<(), Error> {
        let lr_at = self.layout.lr;
        let state = self.step.state_mut();
        let elt = match state.signature().inputs.get(lr_at) {
            Some(Slot::MemRef { elt, .. }) => *elt,
            _ => Elt::F32,
        };
        state
            .set(
                lr_at,
                &HostValue::Tensor(HostTensor::from_f64(elt, vec![], [lr])),
            )
            .map_err(Error::from)
    }

    /// This process's rank in a data-parallel job (0 alone).
    pub fn rank(&self) -> usize {
        match &self.step {
            Step::Split { collective, .. } => collective.rank(),
            Step::Fused(_) => 0,
        }
    }

    /// The number of ranks training (1 alone).
    pub fn ranks(&self) -> usize {
        match &self.step {
            Step::Split { collective, .. } => collective.size(),
            Step::Fused(_) => 1,
        }
    }

    /// What the gradients' all-reduces took so far (`None` alone).
    pub fn collective_stats(&self) -> Option<Stats> {
        match &self.step {
            Step::Split { collective, .. } => Some(collective.stats()),
            Step::Fused(_) => None,
        }
    }

    /// The collective of a data-parallel trainer (to reduce what the caller
    /// counts, as a metric over the ranks' shards).
    pub fn collective(&mut self) -> Option<&mut dyn Collective> {
        match &mut self.step {
            Step::Split { collective, .. } => Some(&mut **collective),
            Step::Fused(_) => None,
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
        self.call_values("forward", inputs)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::Internal("the forward routine returned no tensor".into()))
    }

    /// The routine `name` (given to [`Trainer::with_routines`], or
    /// `"forward"`) on inputs (one tensor per data input of its function,
    /// in order), with the current params: its results.
    pub fn call(&self, name: &str, inputs: &[HostTensor]) -> Result<Vec<HostTensor>, Error> {
        let inputs: Vec<HostValue> = inputs.iter().cloned().map(HostValue::Tensor).collect();
        self.call_values(name, &inputs)
    }

    /// [`Trainer::call`] on inputs that may be indices.
    pub fn call_values(&self, name: &str, inputs: &[HostValue]) -> Result<Vec<HostTensor>, Error> {
        let inputs: Vec<Option<HostValue>> = inputs.iter().cloned().map(Some).collect();
        self.call_with(name, &inputs, &[])
    }

    /// [`Trainer::call`] of a routine with state: each `(result, input)`
    /// of `carry` makes that result the routine's data input for the next
    /// call, kept in the backend's memory instead of read to the host and
    /// sent back (a decoder's key/value caches). An input given as `None`
    /// keeps its value: a carried one after the first call, which gives
    /// it. Returns the results that are not carried, in order.
    pub fn call_carrying(
        &self,
        name: &str,
        inputs: &[Option<HostTensor>],
        carry: &[(usize, usize)],
    ) -> Result<Vec<HostTensor>, Error> {
        let inputs: Vec<Option<HostValue>> = inputs
            .iter()
            .map(|t| t.clone().map(HostValue::Tensor))
            .collect();
        self.call_with(name, &inputs, carry)
    }

    /// A routine's call: the inputs given set, the params synced, the
    /// carried results kept as inputs.
    fn call_with(
        &self,
        name: &str,
        inputs: &[Option<HostValue>],
        carry: &[(usize, usize)],
    ) -> Result<Vec<HostTensor>, Error> {
        if !self.routines.iter().any(|r| r == name) {
            return Err(Error::Invalid(format!(
                "no routine '{name}': the trainer has {}",
                self.routines.join(", ")
            )));
        }
        let mut routines = self.forward_program.borrow_mut();
        if !routines.contains_key(name) {
            let compiled = self.compile_forward(name)?;
            routines.insert(name.to_string(), compiled);
        }
        let forward = routines
            .get_mut(name)
            .ok_or_else(|| Error::Internal("a routine compiled and lost".into()))?;
        if inputs.len() != forward.n_data {
            return Err(Error::Invalid(format!(
                "the {name} function takes {} data tensor(s), {} given",
                forward.n_data,
                inputs.len()
            )));
        }
        if let Some(&(_, i)) = carry.iter().find(|&&(_, i)| i >= forward.n_data) {
            return Err(Error::Invalid(format!(
                "the {name} function's input {i} is not a data input: results are carried only into its {} data inputs",
                forward.n_data
            )));
        }
        for (i, x) in inputs.iter().enumerate() {
            if let Some(x) = x {
                forward.session.set(i, x).map_err(Error::from)?;
            }
        }
        if !forward.shared && forward.synced != self.params_generation {
            for (k, pname) in forward.params.iter().enumerate() {
                let p = self.param(pname)?;
                forward
                    .session
                    .set(forward.n_data + k, &HostValue::Tensor(p))
                    .map_err(Error::from)?;
            }
            forward.synced = self.params_generation;
        }
        forward
            .session
            .invoke_carrying(carry)
            .map_err(Error::from)?
            .into_iter()
            .map(|v| match v {
                HostValue::Tensor(t) => Ok(t),
                HostValue::Index(_) => Err(Error::Internal(format!(
                    "the {name} routine returned an index"
                ))),
            })
            .collect()
    }

    /// The inference routine `name` compiled (or loaded from the cache)
    /// and prepared on zeros, its params not yet copied in.
    fn compile_forward(&self, name: &str) -> Result<Forward, Error> {
        let t = Instant::now();
        self.diagnostics.clear();
        let job = Job {
            name: "",
            source: &self.forward_text,
            stages: vec![],
            keep: vec![name.to_string()],
            inspected: vec![],
            tag: TRAINER_TAG,
            calls: 1,
            loop_stats: false,
        };
        let compiled = self
            .compiler
            .compile(&job, |_, _| Ok::<_, BuildError>(vec![]))
            .map_err(|e| self.diagnostics.of(e))?;
        let program = compiled.executable;
        let args = program
            .arg_info(name)
            .map_err(|e| Error::Internal(e.to_string()))?;
        let n_data = args.iter().take_while(|a| a.role == Role::Data).count();
        let params = params_of(args);
        let mut session = program.prepare_zeroed(name).map_err(Error::from)?;
        // The params in place: the forward routine reads the train step's
        // buffers where the backend shares them (the CPU), so a call copies
        // nothing; else they are copied in when they changed.
        let state = self.step.state();
        let shared = params.iter().enumerate().all(|(k, name)| {
            self.layout
                .params
                .iter()
                .position(|p| p == name)
                .is_some_and(|at| {
                    session
                        .share(n_data + k, state, self.layout.param_at + at)
                        .is_ok()
                })
        });
        if name == "forward" {
            let mut times = self.times.borrow_mut();
            times.forward = Some(t.elapsed());
            times.forward_cache = Some(compiled.cache);
        }
        Ok(Forward {
            session,
            _program: program,
            n_data,
            params,
            shared,
            // Never synced: the first call copies the params in.
            synced: u64::MAX,
        })
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
            .ok_or_else(|| Error::Invalid(format!("no param '{name}'")))?;
        match self
            .step
            .state()
            .get(self.layout.param_at + k)
            .map_err(Error::from)?
        {
            HostValue::Tensor(t) => Ok(t),
            HostValue::Index(_) => Err(Error::Internal(format!("param '{name}' is not a tensor"))),
        }
    }

    /// Replaces the value of a param (same shape).
    pub fn set_param(&mut self, name: &str, value: &HostTensor) -> Result<(), Error> {
        self.params_generation += 1;
        let k = self
            .layout
            .params
            .iter()
            .position(|p| p == name)
            .ok_or_else(|| Error::Invalid(format!("no param '{name}'")))?;
        self.step
            .state_mut()
            .set(self.layout.param_at + k, &HostValue::Tensor(value.clone()))
            .map_err(Error::from)?;
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
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "the optimizer has no {} state for '{param}'",
                    kind.name()
                ))
            })?;
        match self.step.state().get(at).map_err(Error::from)? {
            HostValue::Tensor(t) => Ok(t),
            HostValue::Index(_) => Err(Error::Internal(
                "the optimizer's state is not a tensor".into(),
            )),
        }
    }

    /// Writes every param as `DIR/NAME.npy` (a name's bytes other than
    /// letters, digits, `_`, `-` and `.` written `%XX`: every param is one
    /// file inside `DIR`).
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::File(format!("cannot create {}: {e}", dir.display())))?;
        for name in &self.layout.params {
            let t = self.param(name)?;
            ocannl_runtime::npy::write(&param_file(dir, name), &t).map_err(Error::from)?;
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
                ocannl_runtime::npy::read(&param_file(dir, name)).map_err(Error::from)?,
            );
        }
        for name in &names {
            self.set_param(name, &values[name])?;
        }
        Ok(())
    }
}
