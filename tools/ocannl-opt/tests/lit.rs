//! Runs the lit + FileCheck regression suite (`test/`) against the freshly
//! built `ocannl-opt`, and fails when any lit test fails.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

fn lit_binary() -> PathBuf {
    if let Some(lit) = std::env::var_os("LIT") {
        return lit.into();
    }
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let llvm_lit = Path::new(&prefix).join("bin/lit");
    if llvm_lit.exists() {
        llvm_lit
    } else {
        "lit".into()
    }
}

#[test]
fn lit_suite() {
    let opt = PathBuf::from(env!("CARGO_BIN_EXE_ocannl-opt"));
    let tool_dir = opt.parent().expect("binary directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let exec_root = tool_dir.join("lit");
    let mut cmd = Command::new(lit_binary());
    cmd.arg("-sv")
        .arg(format!("--param=tool_dir={}", tool_dir.display()))
        .arg(format!("--param=exec_root={}", exec_root.display()))
        .arg(root.join("test"));
    if let Ok(filter) = std::env::var("LIT_FILTER") {
        cmd.arg(format!("--filter={filter}"));
    }
    let status = cmd
        .status()
        .expect("cannot run lit: install llvm-22-tools (scripts/bootstrap.sh)");
    assert!(
        status.success(),
        "the lit suite failed (see the output above)"
    );
}
