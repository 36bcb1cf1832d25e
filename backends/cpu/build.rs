//! Compiles the JIT's C++ (`cpp/jit.cpp`: translation to LLVM IR, the split
//! into parts, code generation and the ORC JIT) against Debian's LLVM and
//! MLIR 22. Its references to LLVM and MLIR resolve against the shared
//! `libLLVM` and `libMLIR` that mlir-sys links.

use std::{env, process::Command};

fn main() {
    let prefix = env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let llvm_config = format!("{prefix}/bin/llvm-config");
    let include = Command::new(&llvm_config)
        .arg("--includedir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| panic!("cannot run {llvm_config}: install MLIR 22 (see README.md)"));
    println!("cargo:rerun-if-changed=cpp/jit.cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    cc::Build::new()
        .cpp(true)
        .file("cpp/jit.cpp")
        .include(include)
        .std("c++17")
        // Exceptions are caught at every entry point (none reaches Rust).
        .flag("-fexceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-deprecated-declarations")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .warnings(false)
        .compile("ocannl_cpu_jit");
}
