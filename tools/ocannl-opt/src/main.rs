//! `ocannl-opt`: MLIR's `mlir-opt` driver with every upstream dialect and
//! pass, plus the `ocannl_shape` and `ocannl_assign` dialects and the
//! project's passes. Logs go to stderr, filtered by `RUST_LOG`.

// mimalloc: shape inference allocates many small rows, and glibc's malloc
// doubles its time (see the note in core/shape/benches/inference.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    use std::io::IsTerminal;
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    // The CPU is the default target of the loop lowering, and its pipelines
    // (`ocannl-to-llvm`, `ocannl-loops-to-llvm`) are registered; the GPU
    // target (`ocannl-lower-to-loops{target=gpu}`), its passes and its
    // pipelines (`ocannl-to-nvvm`, `ocannl-loops-to-nvvm`) too.
    ocannl_compiler::register_backends();
    let code = ocannl_passes::opt_main(
        std::env::args(),
        "OCANNL optimizer driver\n",
        concat!(
            "ocannl-opt ",
            env!("CARGO_PKG_VERSION"),
            " (OCANNL: the ocannl_shape and ocannl_assign dialects and their passes)"
        ),
    );
    std::process::exit(code);
}
