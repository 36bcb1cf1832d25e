//! `ocannl-gpu` as a user runs it: artifacts read and checked without a
//! GPU, the self-check's outcomes, and what the binary links. The runs on
//! a GPU are `#[ignore]`d (`cargo test -p ocannl-gpu-cli -- --ignored` on a
//! machine with one).

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use ocannl_gpu_plan::{
    artifact::{Artifact, HEADER_BYTES},
    schedule::{Arg, Buffer, Function, Output as Out, Program, PtxModule, Step},
    ArgInfo, Role,
};
use ocannl_runtime::{Elt, HostTensor, Signature, Slot};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_ocannl-gpu")
}

fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("ocannl-gpu runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Whether this machine has a GPU the runtime can use.
fn gpu() -> bool {
    run(&["--device-info"]).status.success()
}

/// An artifact of one function `double` (y = 2 x over 4 cells; its PTX is
/// a placeholder: these tests read artifacts, they do not run them).
fn artifact() -> Artifact {
    let f32s = |n| Slot::MemRef {
        elt: Elt::F32,
        dims: vec![n],
    };
    let mut p = Program::default();
    p.modules.push(PtxModule {
        name: "double_kernel".into(),
        ptx: "// placeholder\n".into(),
    });
    p.functions.insert(
        "double".into(),
        Function {
            name: "double".into(),
            signature: Signature {
                inputs: vec![f32s(4)],
                outputs: vec![f32s(4)],
            },
            args: vec![ArgInfo {
                name: "x".into(),
                role: Role::Data,
            }],
            steps: vec![
                Step::Alloc { id: 0, bytes: 16 },
                Step::Launch {
                    module: 0,
                    kernel: "double_kernel".into(),
                    grid: [1, 1, 1],
                    block: [32, 1, 1],
                    shared_bytes: 0,
                    args: vec![Arg::Buffer(Buffer::Arg(0)), Arg::Buffer(Buffer::Local(0))],
                },
            ],
            results: vec![Out::Buffer(Buffer::Local(0))],
        },
    );
    Artifact::from_programs("test", vec![("sm_80".into(), 80, p)]).unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn links_no_mlir_or_llvm() {
    let Ok(out) = Command::new("ldd").arg(bin()).output() else {
        eprintln!("no ldd here: not checked");
        return;
    };
    let libs = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{libs}");
    for lib in [
        "libMLIR",
        "libLLVM",
        "libstdc++",
        "libcuda",
        "libmpi",
        "libnccl",
    ] {
        assert!(!libs.contains(lib), "ocannl-gpu links {lib}:\n{libs}");
    }
}

/// NCCL's check without a GPU, a driver or NCCL: skipped, saying why.
#[test]
fn nccl_check_skips_where_nccl_cannot_run() {
    if gpu() {
        return;
    }
    let o = run(&["nccl-check"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with("SKIP nccl: no "),
        "{}",
        text(&o)
    );
    // A rank alone says why too, and fails.
    let o = run(&["nccl-rank", "/nonexistent/id", "--rank", "0", "--size", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).starts_with("no "),
        "{}",
        text(&o)
    );
}

/// Nor statically: no MLIR C API function is in the binary.
#[test]
fn holds_no_mlir() {
    let bytes = std::fs::read(bin()).unwrap();
    for symbol in [&b"mlirContextCreate"[..], b"mlirOperationCreate"] {
        assert!(
            !bytes.windows(symbol.len()).any(|w| w == symbol),
            "{}",
            String::from_utf8_lossy(symbol)
        );
    }
}

#[test]
fn reads_artifacts_and_reports_damage() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = artifact().to_bytes();
    let good = write(dir.path(), "good.ocgpu", &bytes);
    let good = good.to_str().unwrap();

    let o = run(&["info", good]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("chip sm_80 (PTX ISA 8.0)"), "{t}");
    assert!(t.contains("function @double: 1 launches"), "{t}");
    assert!(t.contains("arg0: f32x4 data x"), "{t}");

    let o = run(&["schedule", good, "--entry", "double"]);
    assert_eq!(
        text(&o),
        "@double(f32[4]) -> (f32[4])\n  alloc %0 16 bytes\n  launch double_kernel::double_kernel grid 1x1x1 block 32x1x1 (arg0, %0)\n  return %0\n"
    );
    let o = run(&["schedule", good, "--entry", "other"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o),
        "no function @other in the artifact (it has @double)\n"
    );

    let mut flipped = bytes.clone();
    flipped[HEADER_BYTES + 10] ^= 0x20;
    let mut v2 = bytes.clone();
    v2[8] = 2;
    let cases: [(&str, Vec<u8>, &str); 5] = [
        ("truncated", bytes[..bytes.len() - 7].to_vec(), "truncated"),
        ("header", bytes[..30].to_vec(), "truncated"),
        ("flipped", flipped, "SHA-256"),
        (
            "version",
            v2,
            "artifact format version 2, but this runtime reads version 1",
        ),
        ("elf", b"\x7fELF....".to_vec(), "not an ocannl GPU artifact"),
    ];
    for (name, bytes, says) in cases {
        let p = write(dir.path(), name, &bytes);
        for args in [
            vec!["info", p.to_str().unwrap()],
            vec![
                "run",
                p.to_str().unwrap(),
                "--entry",
                "double",
                "--arg",
                "range",
            ],
        ] {
            let o = run(&args);
            let t = text(&o);
            assert_eq!(o.status.code(), Some(1), "{name}: {t}");
            assert!(t.contains(says), "{name}: {t}");
            assert_eq!(t.lines().count(), 1, "{name}: {t}");
            assert!(t.starts_with(p.to_str().unwrap()), "{name}: {t}");
        }
    }
}

#[test]
fn run_without_a_gpu_says_why_in_one_line() {
    if gpu() {
        eprintln!("a GPU is here: the placeholder artifact is not run");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "a.ocgpu", &artifact().to_bytes());
    let o = run(&[
        "run",
        p.to_str().unwrap(),
        "--entry",
        "double",
        "--arg",
        "range",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert_eq!(t.lines().count(), 1, "{t}");
    assert!(
        t.starts_with("no CUDA driver")
            || t.starts_with("no CUDA device")
            || t.starts_with("the CUDA driver"),
        "{t}"
    );
    // The arguments are checked first.
    let o = run(&["run", p.to_str().unwrap(), "--entry", "double"]);
    assert_eq!(
        text(&o),
        "@double takes 1 argument(s) but 0 --arg were given\n"
    );
    let o = run(&["--device-info"]);
    assert_eq!(o.status.code(), Some(1));
}

/// A self-check case `name` under `bundle` of the placeholder artifact.
fn case(bundle: &Path, name: &str, case_txt: &str) -> PathBuf {
    let d = bundle.join(name);
    std::fs::create_dir_all(d.join("expected")).unwrap();
    artifact().write(&d.join("artifact.ocgpu")).unwrap();
    std::fs::write(d.join("case.txt"), case_txt).unwrap();
    let want = HostTensor::f32(vec![4], vec![0.0, 2.0, 4.0, 6.0]);
    ocannl_runtime::npy::write(&d.join("expected/result0.npy"), &want).unwrap();
    d
}

#[test]
fn selfcheck_without_a_gpu_skips_every_case() {
    if gpu() {
        eprintln!("a GPU is here: see the ignored GPU tests");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    case(dir.path(), "double", "entry double\narg range  # 0 1 2 3\n");
    case(
        dir.path(),
        "double-again",
        "entry double\narg range\nrepeat 3\ntolerance 0\n",
    );
    let o = run(&["selfcheck", dir.path().to_str().unwrap()]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    let lines: Vec<&str> = t.lines().collect();
    assert!(lines[0].starts_with("device: none ("), "{t}");
    assert!(lines[1].starts_with("SKIP double: no CUDA"), "{t}");
    assert!(lines[2].starts_with("SKIP double-again: no CUDA"), "{t}");
    assert!(
        lines[3].starts_with("selfcheck: 0 passed, 0 failed, 2 skipped (no CUDA"),
        "{t}"
    );
    assert!(!t.contains("PASS"), "{t}");

    // A damaged artifact, a wrong case file, a missing expected output and
    // an expected output of the wrong shape fail, GPU or not.
    let d = case(dir.path(), "damaged", "entry double\narg range\n");
    let mut bytes = std::fs::read(d.join("artifact.ocgpu")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(d.join("artifact.ocgpu"), bytes).unwrap();
    case(dir.path(), "typo", "entry double\nargs range\n");
    let d = case(dir.path(), "unexpected", "entry double\narg range\n");
    std::fs::remove_file(d.join("expected/result0.npy")).unwrap();
    let d = case(dir.path(), "wrong-shape", "entry double\narg range\n");
    let three = HostTensor::f32(vec![3], vec![0.0; 3]);
    ocannl_runtime::npy::write(&d.join("expected/result0.npy"), &three).unwrap();
    let o = run(&["selfcheck", dir.path().to_str().unwrap()]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL damaged: ") && t.contains("SHA-256"), "{t}");
    assert!(
        t.contains("FAIL typo: ") && t.contains("unknown key \"args\""),
        "{t}"
    );
    assert!(
        t.contains("FAIL unexpected: ") && t.contains("no expected outputs"),
        "{t}"
    );
    assert!(t.contains("FAIL wrong-shape: the expected result0"), "{t}");
    assert!(
        t.contains("selfcheck: 0 passed, 4 failed, 2 skipped"),
        "{t}"
    );

    let empty = tempfile::tempdir().unwrap();
    let o = run(&["selfcheck", empty.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).starts_with("no self-check cases in "));
}

/// The self-check bundle of `scripts/gpu-selfcheck-bundle.sh` (the
/// directory `$OCANNL_SELFCHECK_DIR`, by default `target/gpu-selfcheck`)
/// passes on this machine's GPU.
#[test]
#[ignore = "needs an NVIDIA GPU and a bundle from scripts/gpu-selfcheck-bundle.sh"]
fn selfcheck_bundle_passes_on_the_gpu() {
    let dir = std::env::var("OCANNL_SELFCHECK_DIR")
        .unwrap_or_else(|_| format!("{}/../../target/gpu-selfcheck", env!("CARGO_MANIFEST_DIR")));
    let o = run(&["selfcheck", &dir]);
    let t = text(&o);
    println!("{t}");
    assert_eq!(o.status.code(), Some(0), "{t}");
}
