//! Compiles the C++ glue (`cpp/ocannl_mlir.cpp`) against Debian's MLIR 22,
//! and provides the C API library that mlir-sys links when MLIR is linked
//! as a shared library.
//!
//! With `MLIR_SYS_LINK_SHARED=1` (set in `.cargo/config.toml`), mlir-sys
//! links `-lMLIR -lMLIR-C -lLLVM-22`: one copy of MLIR, Debian's
//! `libMLIR.so`, shared with stock MLIR tools that load the project's
//! plugin. Debian ships the C API only as static archives
//! (`libMLIRCAPI*.a`, whose C++ references `libMLIR.so` resolves), so
//! `-lMLIR-C` finds here a linker script naming those archives.

mod build_cxx;

use std::{env, path::PathBuf};

/// Writes `OUT_DIR/mlir-c/libMLIR-C.so`: a linker script that stands for
/// Debian's static C API archives, and adds its directory to the link
/// search path of every crate that links MLIR through this one.
fn c_api_library(libdir: &str) {
    let mut archives: Vec<String> = std::fs::read_dir(libdir)
        .unwrap_or_else(|e| panic!("cannot read {libdir}: {e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("libMLIRCAPI") && n.ends_with(".a"))
        .map(|n| format!("{libdir}/{n}"))
        .collect();
    archives.sort();
    if archives.is_empty() {
        panic!("no MLIR C API archives (libMLIRCAPI*.a) in {libdir}: install libmlir-22-dev");
    }
    let dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("mlir-c");
    std::fs::create_dir_all(&dir).expect("create the linker script's directory");
    let script = format!(
        "/* MLIR's C API: Debian's static archives, over the shared libMLIR.so. */\nGROUP ( {} )\n",
        archives.join(" ")
    );
    std::fs::write(dir.join("libMLIR-C.so"), script).expect("write libMLIR-C.so");
    println!("cargo:rustc-link-search=native={}", dir.display());
}

fn main() {
    let libdir = build_cxx::llvm_config("--libdir")
        .unwrap_or_else(|| format!("{}/lib", build_cxx::prefix()));
    c_api_library(&libdir);
    build_cxx::compile("cpp/ocannl_mlir.cpp", "ocannl_mlir");
}
