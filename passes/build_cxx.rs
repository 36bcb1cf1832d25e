//! What the build scripts that compile C++ against Debian's LLVM and MLIR
//! 22 share (`passes/build.rs`, `backends/cpu/build.rs`, each including
//! this file): `llvm-config`'s answers and the one set of compiler
//! settings.

use std::{env, process::Command};

/// `MLIR_SYS_220_PREFIX`, else Debian's `/usr/lib/llvm-22`.
pub fn prefix() -> String {
    env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into())
}

/// What `llvm-config FLAG` prints (`--includedir`, `--libdir`), if it runs.
pub fn llvm_config(flag: &str) -> Option<String> {
    Command::new(format!("{}/bin/llvm-config", prefix()))
        .arg(flag)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// Compiles `file` (C++17, exceptions on: they are caught at every entry
/// point, none reaches Rust) into the static library `lib`, against
/// LLVM's and MLIR's headers.
pub fn compile(file: &str, lib: &str) {
    let include = llvm_config("--includedir").unwrap_or_else(|| {
        panic!(
            "cannot run {}/bin/llvm-config: install MLIR 22 (see README.md)",
            prefix()
        )
    });
    println!("cargo:rerun-if-changed={file}");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    cc::Build::new()
        .cpp(true)
        .file(file)
        .include(include)
        .std("c++17")
        .flag("-fexceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-deprecated-declarations")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .warnings(false)
        .compile(lib);
}
