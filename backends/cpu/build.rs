//! Compiles the JIT's C++ (`cpp/jit.cpp`: translation to LLVM IR, the split
//! into parts, code generation and the ORC JIT) against Debian's LLVM and
//! MLIR 22. Its references to LLVM and MLIR resolve against the shared
//! `libLLVM` and `libMLIR` that mlir-sys links.

#[path = "../../passes/build_cxx.rs"]
mod build_cxx;

fn main() {
    build_cxx::compile("cpp/jit.cpp", "ocannl_cpu_jit");
}
