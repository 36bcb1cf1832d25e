//! Writing a GPU artifact (the format is `ocannl_gpu_plan::artifact`'s):
//! a module at the loops stage compiled to PTX once per chip, its host
//! schedule read once (the same for every chip), in one file that
//! `ocannl-gpu` runs without MLIR.

use melior::{ir::Module, Context};
use ocannl_gpu_plan::artifact::{compute_capability, Artifact};
use ocannl_runtime::Error;

use crate::program::{self, CompileOptions};

/// What wrote an artifact.
pub fn producer() -> String {
    format!("ocannl-mlir {}", env!("CARGO_PKG_VERSION"))
}

/// Compiles `module` (at the loops stage, lowered for the GPU target) for
/// each of `chips` (PTX ISA `ptx` for all of them, or each chip's default)
/// into an artifact. The module is lowered in place for the last chip.
pub fn compile(
    context: &Context,
    module: &mut Module,
    chips: &[String],
    ptx: Option<u32>,
    opt_level: u32,
) -> Result<Artifact, Error> {
    if chips.is_empty() {
        return Err(Error::argument("an artifact needs at least one chip"));
    }
    let mut compiled = vec![];
    for (k, chip) in chips.iter().enumerate() {
        if compute_capability(chip).is_none() {
            return Err(Error::argument(format!(
                "the chip {chip:?} is not a GPU architecture's name (sm_80, sm_90, ...)"
            )));
        }
        let options = CompileOptions {
            chip: chip.clone(),
            ptx: ptx.unwrap_or_else(|| ocannl_gpu_plan::launch::ptx_version(chip)),
            opt_level,
        };
        let program = if k + 1 == chips.len() {
            program::compile(context, module, &options).map_err(Error::compile)?
        } else {
            // Every chip but the last compiles a copy.
            let copy = ocannl_mlir::ir::clone(module.as_operation());
            let mut copy = Module::from_operation(copy)
                .ok_or_else(|| Error::internal("the module cannot be copied"))?;
            program::compile(context, &mut copy, &options).map_err(Error::compile)?
        };
        compiled.push((chip.clone(), options.ptx, program));
    }
    Artifact::from_programs(&producer(), compiled)
}
