//! The one compile path: a backend registered with one line is found by
//! name and compiles through it; the whole executable is cached.

use melior::{ir::Module, Context};
use ocannl_compiler::{CacheUse, Compiler, Job};
use ocannl_passes::{pipelines, Backend};
use ocannl_runtime::{cache::CacheDir, CompileOptions, Executable, HostValue, Session, Signature};

/// A backend that compiles nothing it can run: it keeps the signatures of
/// the module's public functions at the loops stage.
use ocannl_runtime::Error as RuntimeError;

struct Toy;

struct ToyExecutable {
    signatures: Vec<(String, Signature)>,
}

impl Executable for ToyExecutable {
    fn signature(&self, entry: &str) -> Result<&Signature, RuntimeError> {
        self.signatures
            .iter()
            .find(|(n, _)| n == entry)
            .map(|(_, s)| s)
            .ok_or_else(|| RuntimeError::argument(format!("no function @{entry}")))
    }

    fn prepare(&self, entry: &str, _: &[HostValue]) -> Result<Box<dyn Session>, RuntimeError> {
        Err(RuntimeError::device(format!(
            "the toy backend runs nothing (@{entry})"
        )))
    }
}

impl Backend for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }

    fn loop_target(&self) -> &'static str {
        "cpu"
    }

    fn compile(
        &self,
        _: &Context,
        module: &mut Module,
        _: &CompileOptions,
    ) -> Result<Box<dyn Executable>, RuntimeError> {
        let signatures = ocannl_mlir::ir::functions_by_name(module.as_operation())
            .into_iter()
            .filter_map(|(name, f)| Some((name, ocannl_passes::backend::signature(f).ok()?)))
            .collect();
        Ok(Box::new(ToyExecutable { signatures }))
    }
}

static TOY: Toy = Toy;

const SOURCE: &str = r#"func.func @f(%x: !ocannl_shape.tensor<"3|4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.einsum"(%x) {spec = "...|... => 0"} : (!ocannl_shape.tensor<"3|4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
func.func @g(%x: !ocannl_shape.tensor<"2", f64>) -> !ocannl_shape.tensor<"2", f64> {
  return %x : !ocannl_shape.tensor<"2", f64>
}
"#;

fn job(keep: &str) -> Job<'static> {
    Job {
        name: "input.mlir",
        source: SOURCE,
        stages: vec![pipelines::infer_shapes(), pipelines::lower_to_assign(false)],
        keep: vec![keep.to_string()],
        inspected: vec![],
        tag: "test",
        calls: 1,
        loop_stats: true,
    }
}

#[test]
fn a_backend_registered_with_one_line_compiles_through_the_driver() {
    ocannl_compiler::register_backends();
    ocannl_passes::register_backend(&TOY);
    let toy = ocannl_compiler::backend("toy").expect("registered");
    assert!(ocannl_passes::backends().contains(&"toy"));
    let compiler = Compiler::new(toy, CompileOptions::default());
    let out = compiler
        .compile(&job("f"), |_, _| {
            Ok::<_, ocannl_compiler::Error>(b"mine".to_vec())
        })
        .unwrap();
    // The toy backend cannot be cached.
    assert_eq!(out.cache, CacheUse::Uncached);
    assert_eq!(out.extra, b"mine");
    assert_eq!(
        out.executable.signature("f").unwrap().encode(),
        "f32x3x4 -> f32x1"
    );
    // Only the kept function is compiled.
    assert!(out.executable.signature("g").is_err());
    let names: Vec<&str> = out.phases.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "parse",
            "ocannl-infer-shapes",
            // Every kept function exists after the first stage: the others
            // are dropped before the next.
            "prune",
            "ocannl-lower-to-assign",
            // The backend's loops pipeline, pass by pass.
            "ocannl-one-hot-to-gather",
            "ocannl-lower-to-loops"
        ]
    );
    let err = out.executable.call("f", &[]).err().unwrap();
    assert_eq!(err.to_string(), "the toy backend runs nothing (@f)");
    assert_eq!(err.kind(), ocannl_runtime::Kind::Device);
}

/// The functions a job neither keeps nor inspects are dropped as soon as
/// the kept ones exist; inspected ones reach the inspect step, and only the
/// kept ones are compiled.
#[test]
fn functions_that_do_not_run_are_dropped_before_the_later_stages() {
    ocannl_compiler::register_backends();
    let cpu = ocannl_compiler::backend("cpu").unwrap();
    // Uncached, so that every compile looks at the module.
    let options = CompileOptions {
        cache: CacheDir::Off,
        ..cpu.default_options()
    };
    let compiler = Compiler::new(cpu, options);
    let names = |module: &mut melior::ir::Module| -> Vec<String> {
        let mut n: Vec<String> = ocannl_mlir::ir::functions_by_name(module.as_operation())
            .into_keys()
            .collect();
        n.sort();
        n
    };
    let mut seen = vec![];
    compiler
        .compile(&job("f"), |m, _| {
            seen = names(m);
            Ok::<_, ocannl_compiler::Error>(vec![])
        })
        .unwrap();
    assert_eq!(seen, ["f"]);
    let job = Job {
        inspected: vec!["g".into()],
        ..job("f")
    };
    let out = compiler
        .compile(&job, |m, _| {
            seen = names(m);
            Ok::<_, ocannl_compiler::Error>(vec![])
        })
        .unwrap();
    assert_eq!(seen, ["f", "g"]);
    assert!(out.executable.signature("g").is_err());
}

#[test]
fn unknown_backends_and_functions_are_errors_with_kinds() {
    let e = ocannl_compiler::backend("nope").err().unwrap();
    assert!(matches!(e, ocannl_compiler::Error::UnknownBackend(_)));
    assert!(e
        .to_string()
        .starts_with("unknown backend 'nope' (the registered backends: "));
    let cpu = ocannl_compiler::backend("cpu").unwrap();
    let compiler = Compiler::new(cpu, CompileOptions::default());
    let e = compiler
        .compile(&job("h"), |_, _| Ok::<_, ocannl_compiler::Error>(vec![]))
        .err()
        .unwrap();
    assert_eq!(e, ocannl_compiler::Error::NoFunction("h".into()));
    let bad = Job {
        source: "func.func @f(",
        ..job("f")
    };
    let e = compiler
        .compile(&bad, |_, _| Ok::<_, ocannl_compiler::Error>(vec![]))
        .err()
        .unwrap();
    assert_eq!(e, ocannl_compiler::Error::Parse);
}

#[test]
fn a_second_compile_of_a_job_is_a_cache_hit_with_what_the_caller_kept() {
    let dir = tempfile_dir();
    let cpu = ocannl_compiler::backend("cpu").unwrap();
    let options = CompileOptions {
        cache: CacheDir::At(dir.clone()),
        ..cpu.default_options()
    };
    let compiler = Compiler::new(cpu, options);
    let mut looked = 0;
    let mut compile = |tag| {
        let job = Job { tag, ..job("f") };
        compiler
            .compile(&job, |_, _| {
                looked += 1;
                Ok::<_, ocannl_compiler::Error>(b"layout".to_vec())
            })
            .unwrap()
    };
    let first = compile("a");
    assert_eq!(first.cache, CacheUse::Miss);
    let second = compile("a");
    assert_eq!(second.cache, CacheUse::Hit);
    assert_eq!(second.extra, b"layout");
    assert_eq!(first.loop_stats.len(), 1);
    assert_eq!(first.loop_stats[0].0, "f");
    assert_eq!(second.loop_stats, first.loop_stats);
    assert_eq!(second.passes, std::time::Duration::ZERO);
    // Another tag is another entry.
    assert_eq!(compile("b").cache, CacheUse::Miss);
    assert_eq!(looked, 2);
    let x = ocannl_runtime::HostTensor::f32(vec![3, 4], (0..12).map(|k| k as f32).collect());
    let out = second
        .executable
        .call("f", &[HostValue::Tensor(x)])
        .unwrap();
    match &out[0] {
        HostValue::Tensor(t) => assert_eq!(t.as_f32(), Some(&[66.0f32][..])),
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(dir).ok();
}

/// A new directory of its own.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "ocannl-compiler-test-{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `docs/passes.md` is what the passes' definitions generate
/// (`OCANNL_BLESS=1` rewrites it).
#[test]
fn the_passes_reference_is_generated_from_their_definitions() {
    let mut passes: Vec<&ocannl_passes::framework::Pass> =
        ocannl_passes::registry::all_passes().to_vec();
    passes.extend(ocannl_cpu::passes());
    passes.extend(ocannl_gpu::passes());
    let text = ocannl_passes::registry::passes_markdown(&passes);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/passes.md");
    if std::env::var("OCANNL_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap();
    assert!(
        on_disk == text,
        "docs/passes.md is stale: run OCANNL_BLESS=1 cargo test -p ocannl-compiler"
    );
    // Every registered pass of the project is in it.
    for p in &passes {
        assert!(on_disk.contains(&format!("| `{}", p.argument())));
    }
}
