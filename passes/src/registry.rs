//! The one list of the project's passes and named pipelines, and their
//! registration in MLIR's global registry (so that textual pipelines, the
//! `--ocannl-...` flags and `--help` know them).
//!
//! The project's pipelines are built here as data ([`Pipeline`], the
//! functions of [`pipelines`]) and printed as MLIR's textual pipelines.
//!
//! Targets add their own named pipelines with [`register_pipeline`] and
//! [`register_pipeline_with_options`] (the CPU backend registers
//! `ocannl-loops-to-llvm` and `ocannl-to-llvm`, the GPU backend
//! `ocannl-loops-to-nvvm` and `ocannl-to-nvvm`).

use std::{
    ffi::{CStr, CString},
    fmt,
    sync::Once,
};

use crate::ffi;

/// Every pass of the project, in pipeline order.
pub fn all_passes() -> [&'static crate::framework::Pass; 13] {
    [
        &crate::transforms::verify::DEF,
        &crate::transforms::infer_shapes::DEF,
        &crate::conversion::shape_to_assign::DEF,
        &crate::transforms::autodiff::DEF,
        &crate::transforms::train_step::DEF,
        &crate::transforms::virtualize::DEF,
        &crate::transforms::one_hot_to_gather::DEF,
        &crate::conversion::assign_to_loops::DEF,
        &crate::conversion::assign_to_linalg::DEF,
        &crate::transforms::outline_kernels::DEF,
        &crate::transforms::approximate_math::DEF,
        &crate::transforms::simplify::DEF,
        &crate::transforms::check_lowered::DEF,
    ]
}

/// One step of a textual pass pipeline: a pass with its options, or a
/// pipeline nested on the ops of a kind (`func.func(canonicalize,cse)`).
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    Pass {
        name: &'static str,
        options: Vec<(&'static str, String)>,
    },
    Nested {
        op: &'static str,
        pipeline: Pipeline,
    },
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Pass { name, options } => {
                f.write_str(name)?;
                if !options.is_empty() {
                    let options: Vec<String> =
                        options.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    write!(f, "{{{}}}", options.join(" "))?;
                }
                Ok(())
            }
            Stage::Nested { op, pipeline } => write!(f, "{op}({pipeline})"),
        }
    }
}

/// A pass pipeline on `builtin.module`, built as data and printed as MLIR's
/// textual pipeline (`Display`): the project's pipelines are spelled once,
/// here, and composed by the tools, the `ocannl` API and the backends'
/// named pipelines.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Pipeline(Vec<Stage>);

impl Pipeline {
    /// The empty pipeline.
    pub fn new() -> Pipeline {
        Pipeline::default()
    }

    /// Appends a pass without options.
    pub fn pass(self, name: &'static str) -> Pipeline {
        self.pass_with(name, Vec::<(&'static str, String)>::new())
    }

    /// Appends a pass with options (printed in this order).
    pub fn pass_with(
        mut self,
        name: &'static str,
        options: impl IntoIterator<Item = (&'static str, impl ToString)>,
    ) -> Pipeline {
        let options = options
            .into_iter()
            .map(|(k, v)| (k, v.to_string()))
            .collect();
        self.0.push(Stage::Pass { name, options });
        self
    }

    /// Appends `pipeline` nested on the ops named `op`.
    pub fn nested(mut self, op: &'static str, pipeline: Pipeline) -> Pipeline {
        self.0.push(Stage::Nested { op, pipeline });
        self
    }

    /// Appends the stages of `other`.
    pub fn then(mut self, other: Pipeline) -> Pipeline {
        self.0.extend(other.0);
        self
    }

    /// The stages, in order.
    pub fn stages(&self) -> &[Stage] {
        &self.0
    }

    /// Each stage as a pipeline of its own (to run and time them apart).
    pub fn split(self) -> Vec<Pipeline> {
        self.0.into_iter().map(|s| Pipeline(vec![s])).collect()
    }

    /// The name of the first pass (or nesting op): what the pipeline is
    /// called when it is a stage of a longer one.
    pub fn name(&self) -> &'static str {
        match self.0.first() {
            Some(Stage::Pass { name, .. }) => name,
            Some(Stage::Nested { op, .. }) => op,
            None => "",
        }
    }

    /// Whether the pipeline has no stage.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

/// The project's pipelines, each spelled once.
pub mod pipelines {
    use ocannl_assign::optim::Optimizer;

    use super::Pipeline;

    /// `ocannl-verify`: the dialects' verifier over the whole module.
    pub fn verify() -> Pipeline {
        Pipeline::new().pass("ocannl-verify")
    }

    /// `ocannl-infer-shapes`.
    pub fn infer_shapes() -> Pipeline {
        Pipeline::new().pass("ocannl-infer-shapes")
    }

    /// `ocannl-lower-to-assign`, params as function arguments when
    /// training (so that the caller keeps them across calls).
    pub fn lower_to_assign(params_as_arguments: bool) -> Pipeline {
        if params_as_arguments {
            Pipeline::new().pass_with("ocannl-lower-to-assign", [("params-as-arguments", true)])
        } else {
            Pipeline::new().pass("ocannl-lower-to-assign")
        }
    }

    /// `ocannl-autodiff` of the functions named (all with params when
    /// `None`).
    pub fn autodiff(functions: Option<&str>) -> Pipeline {
        match functions {
            Some(f) => Pipeline::new().pass_with("ocannl-autodiff", [("functions", f)]),
            None => Pipeline::new().pass("ocannl-autodiff"),
        }
    }

    /// `ocannl-train-step` with an optimizer (the pass's defaults, SGD
    /// without options, when `None`).
    pub fn train_step(optimizer: Option<&Optimizer>) -> Pipeline {
        match optimizer {
            Some(o) => Pipeline::new().pass_with(
                "ocannl-train-step",
                crate::transforms::train_step::optimizer_options(o),
            ),
            None => Pipeline::new().pass("ocannl-train-step"),
        }
    }

    /// Training, after shape inference: params as arguments, backprop of
    /// `functions` and the train step with `optimizer`.
    pub fn train(functions: Option<&str>, optimizer: Option<&Optimizer>) -> Pipeline {
        lower_to_assign(true)
            .then(autodiff(functions))
            .then(train_step(optimizer))
    }

    /// [`train`], the optimizer's update also on its own
    /// (`ocannl-train-step{split=true}`: `@<f>_update`, for a collective
    /// between backprop and the update).
    pub fn train_split(functions: Option<&str>, optimizer: &Optimizer) -> Pipeline {
        let mut options = crate::transforms::train_step::optimizer_options(optimizer);
        options.push(("split", "true".to_string()));
        lower_to_assign(true)
            .then(autodiff(functions))
            .then(Pipeline::new().pass_with("ocannl-train-step", options))
    }

    /// The optimizations of `ocannl_assign` routines: virtualization
    /// (inlining) of tensor nodes, then the e-graph simplification of the
    /// assignments' bodies (exact rewrites only: values are kept bit for
    /// bit).
    pub fn optimize() -> Pipeline {
        Pipeline::new()
            .pass("ocannl-virtualize")
            .pass("ocannl-simplify")
    }

    /// `ocannl-lower-to-loops` for the loop target named `target` (the
    /// process's default when `None`), then [`tidy`].
    pub fn lower_to_loops(target: Option<&str>) -> Pipeline {
        lower_to_loops_only(target).then(tidy())
    }

    /// `ocannl-lower-to-loops` for the loop target named `target` (the
    /// process's default when `None`), after [`gathers`].
    pub fn lower_to_loops_only(target: Option<&str>) -> Pipeline {
        gathers().then(match target {
            Some(t) => Pipeline::new().pass_with("ocannl-lower-to-loops", [("target", t)]),
            None => Pipeline::new().pass("ocannl-lower-to-loops"),
        })
    }

    /// `ocannl-one-hot-to-gather`: what the loop targets compute as gathers
    /// and scatters (linalg has no form of them), first in their lowering.
    pub fn gathers() -> Pipeline {
        Pipeline::new().pass("ocannl-one-hot-to-gather")
    }

    /// `ocannl-lower-to-loops{kernels=true}` for the loop target named
    /// `target` (the process's default when `None`), planning for the CPU
    /// named `cpu` when given: each assignment's loops outlined as a kernel
    /// as it is lowered, as `ocannl-outline-kernels` would next, so that an
    /// assignment repeated on other buffers is lowered once and otherwise
    /// only called.
    pub fn lower_to_kernels(target: Option<&str>, cpu: Option<&str>) -> Pipeline {
        let mut options = vec![("kernels", "true")];
        options.extend(target.map(|t| ("target", t)));
        options.extend(cpu.map(|c| ("cpu", c)));
        gathers().then(Pipeline::new().pass_with("ocannl-lower-to-loops", options))
    }

    /// `canonicalize` and `cse` on each function.
    pub fn tidy() -> Pipeline {
        Pipeline::new().nested(
            "func.func",
            Pipeline::new().pass("canonicalize").pass("cse"),
        )
    }

    /// `ocannl-outline-kernels`: every loop nest of a routine at the
    /// loops stage a function of its own, identical ones shared (the CPU
    /// backend runs it before lowering to LLVM).
    pub fn outline_kernels() -> Pipeline {
        Pipeline::new().pass("ocannl-outline-kernels")
    }

    /// `ocannl-lower-to-linalg` (contractions as named ops unless
    /// `named_ops` is false), then `canonicalize` and `cse` on each
    /// function.
    pub fn lower_to_linalg(named_ops: bool) -> Pipeline {
        let lower = if named_ops {
            Pipeline::new().pass("ocannl-lower-to-linalg")
        } else {
            Pipeline::new().pass_with("ocannl-lower-to-linalg", [("named-ops", false)])
        };
        lower.nested(
            "func.func",
            Pipeline::new().pass("canonicalize").pass("cse"),
        )
    }

    /// From `ocannl_shape` to linalg on tensors, for other MLIR
    /// toolchains: shape inference, assignments, the optimizations, then
    /// [`lower_to_linalg`] (the named pipeline `ocannl-to-linalg`).
    pub fn to_linalg() -> Pipeline {
        infer_shapes()
            .then(lower_to_assign(false))
            .then(optimize())
            .then(lower_to_linalg(true))
    }

    /// The target-neutral front of every lowering: from `ocannl_shape` to
    /// loops on memrefs (upstream scf/memref/arith/math/vector), optimized,
    /// lowered for `target` as [`lower_to_loops`].
    pub fn to_loops(target: Option<&str>) -> Pipeline {
        to_loops_only(target).then(tidy())
    }

    /// [`to_loops`] without the final [`tidy`] (for a backend that tidies
    /// later, [`crate::backend::Backend::loops_pipeline`]).
    pub fn to_loops_only(target: Option<&str>) -> Pipeline {
        infer_shapes()
            .then(lower_to_assign(false))
            .then(optimize())
            .then(lower_to_loops_only(target))
    }

    /// [`to_loops_only`] with each assignment's loops outlined as a kernel
    /// as it is lowered ([`lower_to_kernels`]), for a backend that
    /// outlines kernels next.
    pub fn to_kernels(target: Option<&str>) -> Pipeline {
        infer_shapes()
            .then(lower_to_assign(false))
            .then(optimize())
            .then(lower_to_kernels(target, None))
    }
}

/// The project's dialects, each with its IRDL definition: registered in
/// every registry the shim fills (`ocannl-opt`'s, [`crate::new_context`]'s,
/// and the passes' dependent dialects), and loaded by a context the first
/// time it needs one.
static DIALECTS: [ffi::DialectDef; 2] = [
    ffi::DialectDef {
        name: c"ocannl_shape".as_ptr(),
        irdl: ocannl_shape_dialect::IRDL.as_ptr().cast(),
        irdl_len: ocannl_shape_dialect::IRDL.len(),
        verify_op: crate::transforms::verify::verify_op_hook,
        type_names: SHAPE_TYPES.0.as_ptr(),
        num_types: 1,
        verify_type: crate::transforms::verify::verify_type_hook,
    },
    ffi::DialectDef {
        name: c"ocannl_assign".as_ptr(),
        irdl: ocannl_assign_dialect::IRDL.as_ptr().cast(),
        irdl_len: ocannl_assign_dialect::IRDL.len(),
        verify_op: crate::transforms::verify::verify_op_hook,
        type_names: std::ptr::null(),
        num_types: 0,
        verify_type: crate::transforms::verify::verify_type_hook,
    },
];

static SHAPE_TYPES: ffi::CStrs<1> = ffi::CStrs([c"tensor".as_ptr()]);

/// Registers every pass of the project and declares its dialects to the
/// shim (once per process).
pub fn register_all() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: a static table of `DIALECTS.len()` definitions, whose
        // strings, IRDL text and functions live for the whole process.
        unsafe { ffi::ocannl_set_dialects(DIALECTS.as_ptr(), DIALECTS.len()) };
        for pass in all_passes() {
            // SAFETY: a static pass definition (`define_pass!`).
            unsafe { ffi::ocannl_register_pass(&pass.def) };
        }
        register_pipeline(
            c"ocannl-to-linalg",
            c"From ocannl_shape to linalg on tensors (func, linalg, tensor, arith, math) for other MLIR toolchains: infer shapes, lower to assignments, optimize, lower to linalg",
            &pipelines::to_linalg().to_string(),
        );
    });
}

/// Registers a pass defined outside this crate (a backend's, with
/// [`crate::define_pass!`]) under its name.
pub fn register_pass(pass: &'static crate::framework::Pass) {
    // SAFETY: a static pass definition, alive for the whole process.
    unsafe { ffi::ocannl_register_pass(&pass.def) };
}

/// `docs/passes.md`: a row per pass of `passes` (this crate's, then the
/// backends'), its argument with its options' defaults and what it does,
/// then [`PIPELINES_DOC`]. A test of `ocannl-compiler` keeps the file
/// current (`OCANNL_BLESS=1` rewrites it).
pub fn passes_markdown(passes: &[&crate::framework::Pass]) -> String {
    let mut s = String::from(
        "## Passes\n\nGenerated from the passes' definitions (`define_pass!`) by `OCANNL_BLESS=1 cargo test -p ocannl-compiler`; do not edit.\n\n| pass | what it does |\n|---|---|\n",
    );
    for p in passes {
        let options: Vec<String> = p
            .options()
            .iter()
            .map(|o| format!("{}={}", o.name, o.default))
            .collect();
        let head = if options.is_empty() {
            p.argument()
        } else {
            format!("{}{{{}}}", p.argument(), options.join(" "))
        };
        let kinds: Vec<String> = p
            .options()
            .iter()
            .map(|o| format!("`{}`: {}", o.name, o.kind.describe()))
            .collect();
        let kinds = if kinds.is_empty() {
            String::new()
        } else {
            format!(" (options: {})", kinds.join("; "))
        };
        s += &format!("| `{head}` | {}{kinds} |\n", p.doc.replace('\n', " "));
    }
    s += "\n";
    s += PIPELINES_DOC;
    s
}

/// The named pipelines, in `docs/passes.md` after the passes.
pub const PIPELINES_DOC: &str = include_str!("pipelines.md");

/// Registers a named pipeline (a pass of `builtin.module` that runs
/// `pipeline`, itself text on `builtin.module`). Register a pipeline before
/// one that names it.
pub fn register_pipeline(name: &CStr, description: &CStr, pipeline: &str) {
    let text = CString::new(pipeline).expect("pipeline text has no NUL");
    // SAFETY: C strings that outlive the call (the shim copies them).
    unsafe { ffi::ocannl_register_pipeline(name.as_ptr(), description.as_ptr(), text.as_ptr()) };
}

/// Registers a named pipeline with string options: `pipeline` (text on
/// `builtin.module`) holds a `{name}` placeholder per option, filled with
/// the option's value (`--name="opt=value"`, `name{opt=value}`).
pub fn register_pipeline_with_options(
    name: &CStr,
    description: &CStr,
    pipeline: &str,
    options: &'static [ffi::PipelineOption],
) {
    let text = CString::new(pipeline).expect("pipeline text has no NUL");
    // SAFETY: C strings that outlive the call (the shim copies them) and a
    // static table of `options.len()` options.
    unsafe {
        ffi::ocannl_register_pipeline_with_options(
            name.as_ptr(),
            description.as_ptr(),
            text.as_ptr(),
            options.as_ptr(),
            options.len(),
        )
    };
}
