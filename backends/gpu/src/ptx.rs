//! Passes on the PTX of `gpu.binary` ops (`gpu-module-to-binary{format=isa}`):
//!
//! - `ocannl-check-ptx` (the last pass of `ocannl-loops-to-nvvm`): a
//!   kernel calling a function the PTX does not define cannot be loaded.
//!   Math functions come from libdevice (`__nv_expf`), which
//!   `gpu-module-to-binary` links only when it finds a CUDA toolkit: the
//!   error says where to put one.
//! - `ocannl-print-ptx`: writes the PTX to stdout (or a file), to read it,
//!   check it with FileCheck, or assemble it with `ptxas`.

use std::io::Write;

use melior::ir::{operation::OperationLike, OperationRef};
use ocannl_mlir::{attr, ir};
use ocannl_passes::framework::{Locate, Options, PassError, PassResult};

ocannl_passes::define_pass!(
    CHECK,
    check,
    "ocannl-check-ptx",
    "OcannlCheckPtx",
    "Check that the PTX of every gpu.binary defines every function its kernels call (libdevice linked)",
    [],
    r#"fails, at the kernels' op, when the PTX of a `gpu.binary` calls functions it does not define (libdevice not linked), saying where to get libdevice"#
);

ocannl_passes::define_pass!(
    PRINT,
    print,
    "ocannl-print-ptx",
    "OcannlPrintPtx",
    "Write the PTX of every gpu.binary (format=isa) to stdout or a file",
    [("file", TEXT, "-", "Where to write the PTX ('-' for stdout)")],
    r#"writes the PTX of every `gpu.binary` to stdout or a file"#
);

/// The PTX texts of a module's `gpu.binary` ops, with the ops.
fn binaries<'c, 'a>(
    module: OperationRef<'c, 'a>,
) -> Result<Vec<(OperationRef<'c, 'a>, String, Vec<String>)>, String> {
    let mut out = vec![];
    for op in ir::ops_named(module, "gpu.binary") {
        let name = op
            .attribute("sym_name")
            .ok()
            .and_then(attr::string_value)
            .unwrap_or_default();
        let objects = op
            .attribute("objects")
            .ok()
            .and_then(attr::gpu_objects)
            .ok_or_else(|| format!("gpu.binary @{name} has no objects"))?;
        out.push((op, name, objects));
    }
    Ok(out)
}

/// The functions a PTX text declares but does not define.
pub fn unresolved(ptx: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for line in ptx.lines() {
        let l = line.trim_start();
        let Some(rest) = l.strip_prefix(".extern .func") else {
            continue;
        };
        // `.extern .func (.param ...) name(` or `.extern .func name(`.
        let rest = rest.trim_start();
        let rest = if rest.starts_with('(') {
            rest.find(')')
                .map(|i| rest[i + 1..].trim_start())
                .unwrap_or("")
        } else {
            rest
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$' || *c == '.')
            .collect();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

fn check<'c, 'a>(module: OperationRef<'c, 'a>, _: &Options) -> PassResult<'c> {
    let mut errors = vec![];
    for (op, name, objects) in binaries(module).at(module.location())? {
        let missing: Vec<String> = objects.iter().flat_map(|o| unresolved(o)).collect();
        if missing.is_empty() {
            continue;
        }
        let libdevice = missing.iter().any(|f| f.starts_with("__nv_"));
        let msg = if libdevice {
            format!(
                "the kernels of @{name} call libdevice functions ({}) but libdevice was not linked: \
                 set CUDA_ROOT to a CUDA toolkit (with nvvm/libdevice/libdevice.10.bc; the \
                 nvidia-cuda-nvcc-cu12 wheel's nvidia/cuda_nvcc has one)",
                missing.join(", ")
            )
        } else {
            format!(
                "the kernels of @{name} call undefined functions: {}",
                missing.join(", ")
            )
        };
        errors.push(ocannl_passes::diag::Diagnostic::error(op.location(), msg));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(PassError::all(errors))
    }
}

fn print<'c, 'a>(module: OperationRef<'c, 'a>, options: &Options) -> PassResult<'c> {
    let mut text = String::new();
    for (_, _, objects) in binaries(module).at(module.location())? {
        for o in objects {
            text.push_str(&o);
            if !o.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    let file = options.text("file");
    let written = if file == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    } else {
        std::fs::write(file, text)
    };
    written
        .map_err(|e| format!("cannot write the PTX to {file}: {e}"))
        .at(module.location())
}
