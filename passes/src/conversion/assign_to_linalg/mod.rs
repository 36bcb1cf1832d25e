//! `ocannl-lower-to-linalg`: lowers `ocannl_assign` routines to upstream
//! MLIR on tensors, the form other MLIR toolchains consume: `func` with
//! `linalg`, `tensor`, `arith` and `math` ops (and `cf.assert` for the
//! run-time checks of slice indices), in destination-passing style, with
//! nothing of the project's left. Stock `mlir-opt` parses and verifies the
//! result without the plugin; `one-shot-bufferize` and upstream's
//! conversions run it; IREE compiles it (`docs/linalg.md`).
//!
//! - [`routine`]: a function on tensors: arguments, returns (a written
//!   buffer argument's last value is returned after the results), the
//!   project's attributes dropped.
//! - [`values`]: the current tensor value of each buffer.
//! - [`init`]: nodes (`tensor.empty`) and initializations (`linalg.fill`,
//!   dense constants, `linalg.generic` over `linalg.index`).
//! - [`generic`]: assignments as `linalg.generic` or named contractions,
//!   as `ocannl_assign::structured` plans them.
//! - [`operand`]: operands presented as planned: `tensor.pad`,
//!   `tensor.extract_slice` (checked by `cf.assert` when its start is a
//!   run-time index), `tensor.insert_slice` back.
//!
//! The readers of the loop lowering are this lowering's too: an assignment
//! is read by `assign_to_loops::Assignment::read`, bodies and generators
//! are emitted by `numeric`, virtual nodes checked by its `init`.
//!
//! Module imports: `routine` → `generic`, `init`, `values`; `init` →
//! `generic`, `values`; `generic` → `operand`, `values`; `operand` →
//! `values`.

pub mod generic;
pub mod init;
pub mod operand;
pub mod routine;
pub mod values;

use melior::ir::{operation::OperationLike, OperationRef};
use ocannl_mlir::ir;

use crate::framework::{Options, PassError, PassResult};

crate::define_pass!(
    DEF,
    run,
    "ocannl-lower-to-linalg",
    "OcannlLowerToLinalg",
    "Lower ocannl_assign routines to linalg on tensors (func, linalg, tensor, arith, math; destination-passing style), for other MLIR toolchains",
    [(
        "named-ops",
        BOOL,
        "true",
        "Emit contractions that are matrix products as linalg.matmul / linalg.batch_matmul (false: every assignment a linalg.generic)"
    )],
    r#"lowers `ocannl_assign` routines to `func` + `linalg`/`tensor`/`arith`/`math` on tensors (destination-passing style; `cf.assert` checks slice indices) with nothing of the project's left, for other MLIR toolchains and IREE: each assignment a `linalg.generic` (or `linalg.matmul`/`linalg.batch_matmul` for matrix products unless `named-ops=false`), padding through `tensor.pad`, slices through `tensor.extract_slice`; written buffer arguments' last values returned after the results (see `docs/linalg.md`)"#
);

fn run<'c, 'a>(module: OperationRef<'c, 'a>, options: &Options) -> PassResult<'c> {
    let named_ops = options.flag("named-ops");
    let ctx_ref = module.context();
    let ctx = ir::context(&ctx_ref);
    for func in ir::ops_named(module, "func.func") {
        let ops = routine::statements(func)?;
        routine::lower(ctx, func, &ops, named_ops).map_err(|(at, m)| {
            let loc = at
                .and_then(|k| ops.get(k))
                .map_or(func.location(), |o| o.location());
            PassError::at(loc, m)
        })?;
    }
    routine::strip_attributes(ctx, module);
    Ok(())
}
