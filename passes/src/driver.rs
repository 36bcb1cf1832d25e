//! The entry points of the tools: a context with every dialect and pass,
//! and `mlir-opt`'s own driver with the project's dialects and passes.

use std::ffi::{c_char, CString};

use crate::{ffi, registry::register_all};

/// The IRDL text of every dialect of the project.
pub fn irdl_source() -> String {
    format!(
        "{}\n{}",
        ocannl_shape_dialect::IRDL,
        ocannl_assign_dialect::IRDL
    )
}

/// Writes the IRDL definitions to a file named by their content hash in the
/// temporary directory (atomically, once per content), for MLIR's driver,
/// which loads IRDL dialects from a file into each context it creates.
fn write_irdl_file() -> std::io::Result<std::path::PathBuf> {
    use std::hash::{Hash, Hasher};
    let src = irdl_source();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    src.hash(&mut h);
    let dir = std::env::temp_dir();
    let path = dir.join(format!("ocannl-dialects-{:016x}.irdl.mlir", h.finish()));
    if std::fs::read_to_string(&path)
        .map(|s| s == src)
        .unwrap_or(false)
    {
        return Ok(path);
    }
    let tmp = dir.join(format!(
        "ocannl-dialects-{}-{:016x}.tmp",
        std::process::id(),
        h.finish()
    ));
    std::fs::write(&tmp, &src)?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// A context with every upstream dialect, the upstream passes and the
/// project's dialects and passes, for tools that drive MLIR themselves.
pub fn new_context() -> Result<melior::Context, String> {
    let registry = melior::dialect::DialectRegistry::new();
    melior::utility::register_all_dialects(&registry);
    let context = melior::Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    melior::utility::register_all_passes();
    register_all();
    let src = irdl_source();
    if unsafe { ffi::ocannl_load_irdl(context.to_raw(), ffi::string_ref(&src)) } {
        Ok(context)
    } else {
        Err("internal error: cannot load the project's IRDL dialects".into())
    }
}

/// Runs `mlir-opt`'s driver with the project's dialects and passes; returns
/// the exit code.
pub fn opt_main(args: impl IntoIterator<Item = String>, tool_name: &str) -> i32 {
    register_all();
    let args: Vec<CString> = args
        .into_iter()
        .map(|a| CString::new(a).unwrap_or_else(|_| CString::new("?").unwrap()))
        .collect();
    let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    let irdl = match write_irdl_file() {
        Ok(path) => CString::new(path.to_string_lossy().into_owned()).unwrap_or_default(),
        Err(e) => {
            eprintln!("error: cannot write the dialect definitions to a temporary file: {e}");
            return 1;
        }
    };
    let tool = CString::new(tool_name).unwrap_or_default();
    unsafe {
        ffi::ocannl_opt_main(
            args.len() as i32,
            argv.as_mut_ptr(),
            irdl.as_ptr(),
            tool.as_ptr(),
            crate::transforms::verify::DEF.argument,
        )
    }
}
