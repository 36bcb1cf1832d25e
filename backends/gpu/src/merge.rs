//! `ocannl-merge-gpu-modules`: `gpu-kernel-outlining` makes one
//! `gpu.module` per kernel; this moves every kernel into the first one
//! (each named after the module it came from, which is unique), so that a
//! program's kernels are one PTX module: loaded once by the runtime, and
//! one file for `ptxas`.

use melior::ir::{
    attribute::StringAttribute, block::BlockLike, operation::OperationLike, OperationRef,
    RegionLike,
};
use ocannl_mlir::{attr, ir, Builder};
use ocannl_passes::framework::{Locate, Options, PassResult};

ocannl_passes::define_pass!(
    DEF,
    run,
    "ocannl-merge-gpu-modules",
    "OcannlMergeGpuModules",
    "Move the kernels of every gpu.module into the first one (after gpu-kernel-outlining)",
    [],
    r#"after `gpu-kernel-outlining`: moves every kernel into the first `gpu.module` (a program's kernels are one PTX module)"#
);

fn sym_name(op: &OperationRef) -> String {
    op.attribute("sym_name")
        .ok()
        .and_then(attr::string_value)
        .unwrap_or_default()
}

fn run<'c, 'a>(module: OperationRef<'c, 'a>, _: &Options) -> PassResult<'c> {
    merge(module).at(module.location())
}

fn merge(module: OperationRef) -> Result<(), String> {
    let modules = ir::ops_named(module, "gpu.module");
    let Some((first, rest)) = modules.split_first() else {
        return Ok(());
    };
    if rest.is_empty() {
        return Ok(());
    }
    let target = sym_name(first);
    let body = first
        .region(0)
        .map_err(|e| e.to_string())?
        .first_block()
        .ok_or("an empty gpu.module")?;
    let mut present: Vec<String> = vec![];
    let mut op = body.first_operation();
    while let Some(o) = op {
        present.push(sym_name(&o));
        op = o.next_in_block();
    }
    let ctx_ref = module.context();
    let e = Builder::new(ir::context(&ctx_ref), module.location());
    let mut graveyard = ir::Graveyard::new();
    for m in rest {
        let name = sym_name(m);
        let block = m
            .region(0)
            .map_err(|e| e.to_string())?
            .first_block()
            .ok_or("an empty gpu.module")?;
        let mut op = block.first_operation();
        while let Some(o) = op {
            op = o.next_in_block();
            let kernel = o.attribute("gpu.kernel").is_ok();
            let sym = sym_name(&o);
            if !kernel && present.contains(&sym) {
                // A symbol outlining copied into every module.
                continue;
            }
            let moved = body.append_operation(ir::clone(o));
            if kernel {
                ir::set_attribute(moved, "sym_name", StringAttribute::new(e.ctx, &name).into());
                present.push(name.clone());
            } else {
                present.push(sym);
            }
        }
        graveyard.bury(*m);
    }
    // Launches of the moved kernels.
    for launch in ir::ops_named(module, "gpu.launch_func") {
        let kernel = launch
            .attribute("kernel")
            .map_err(|_| "a launch without a kernel")?
            .to_string();
        let Some((m, _)) = kernel.split_once("::") else {
            continue;
        };
        let m = m.trim_start_matches('@');
        if m != target {
            ir::set_attribute(
                launch,
                "kernel",
                e.attr(&format!("@{target}::@{m}"))
                    .map_err(|e| e.to_string())?,
            );
        }
    }
    // SAFETY: the merged modules (`rest`) are not used after.
    unsafe { graveyard.erase_all() }
}
