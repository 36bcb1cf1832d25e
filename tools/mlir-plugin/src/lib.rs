//! `libocannl_mlir_plugin.so`: the project as a plugin of stock MLIR tools.
//!
//! ```sh
//! mlir-opt --load-dialect-plugin=target/debug/libocannl_mlir_plugin.so \
//!          --load-pass-plugin=target/debug/libocannl_mlir_plugin.so \
//!          model.mlir --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops)'
//! ```
//!
//! The dialect plugin registers `ocannl_shape` and `ocannl_assign` (loaded
//! from their IRDL definitions when a context needs them, with the dialects'
//! verifier), the pass plugin every pass of the project with its options and
//! the named pipelines (`ocannl-to-llvm`, `ocannl-loops-to-llvm`, and the
//! GPU's `ocannl-to-nvvm`, `ocannl-loops-to-nvvm`), with the CPU as the
//! default loop target and the GPU's known by name
//! (`ocannl-lower-to-loops{target=gpu}`): what `ocannl-opt` has. The plugin links Debian's
//! `libMLIR.so`, the library `mlir-opt` itself uses, so the process has one
//! copy of MLIR (its registries and type identifiers).
//!
//! Stock `mlir-opt` parses its pass flags before it loads plugins: name the
//! project's passes in `--pass-pipeline`.

use std::ffi::{c_char, c_void};

/// `MLIR_PLUGIN_API_VERSION` of `mlir/Tools/Plugins/PassPlugin.h`.
const MLIR_PLUGIN_API_VERSION: u32 = 1;

const NAME: &std::ffi::CStr = c"ocannl";
const VERSION: &std::ffi::CStr = c"0.1.0";

/// `mlir::PassPluginLibraryInfo`.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_registry_callbacks: extern "C" fn(),
}

/// `mlir::DialectPluginLibraryInfo`.
#[repr(C)]
pub struct DialectPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_dialect_registry_callbacks: extern "C" fn(*mut c_void),
}

/// The passes, the pipelines and the loop targets of both backends (once
/// each): the CPU the default target, the GPU's by name.
fn register_all() {
    ocannl_compiler::register_backends();
}

extern "C" fn register_passes() {
    register_all();
}

extern "C" fn register_dialects(registry: *mut c_void) {
    register_all();
    // SAFETY: mlir-opt passes its live `mlir::DialectRegistry`.
    unsafe { ocannl_passes::driver::register_dialects_in(registry) };
}

/// The entry point `mlir-opt --load-pass-plugin=` looks up.
#[unsafe(no_mangle)]
pub extern "C" fn mlirGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: MLIR_PLUGIN_API_VERSION,
        plugin_name: NAME.as_ptr(),
        plugin_version: VERSION.as_ptr(),
        register_pass_registry_callbacks: register_passes,
    }
}

/// The entry point `mlir-opt --load-dialect-plugin=` looks up.
#[unsafe(no_mangle)]
pub extern "C" fn mlirGetDialectPluginInfo() -> DialectPluginLibraryInfo {
    DialectPluginLibraryInfo {
        api_version: MLIR_PLUGIN_API_VERSION,
        plugin_name: NAME.as_ptr(),
        plugin_version: VERSION.as_ptr(),
        register_dialect_registry_callbacks: register_dialects,
    }
}
