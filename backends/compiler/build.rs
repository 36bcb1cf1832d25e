//! Sets `OCANNL_BUILD_ID`: a hash of every source file of the compiler
//! (the workspace's `core`, `dialects`, `passes` and `backends`), part of
//! the key of every cached executable, so that a build whose compiler
//! changed never loads what another built from the same module. (Here, at
//! the top of the compiler's crates, which every such change rebuilds
//! anyway.)

use std::{env, path::PathBuf};
fn main() {
    use std::hash::{Hash, Hasher};
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace");
    let mut files = vec![];
    let mut stack: Vec<PathBuf> = ["core", "dialects", "passes", "backends"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    for d in &stack {
        println!("cargo:rerun-if-changed={}", d.display());
    }
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" || name == "tests" || name == "benches" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if [".rs", ".cpp", ".h", ".toml", ".mlir", ".md"]
                .iter()
                .any(|x| name.ends_with(x))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in &files {
        f.strip_prefix(&root).unwrap_or(f).hash(&mut h);
        std::fs::read(f).unwrap_or_default().hash(&mut h);
    }
    println!("cargo:rustc-env=OCANNL_BUILD_ID={:016x}", h.finish());
}
