//! The CPU's JIT: modules split into parts (public functions, outlined
//! kernels, what they share), parts compiled on threads and cached on
//! disk, and the results the same however they were compiled.

use melior::{ir::Module, Context};
use ocannl_cpu::{
    jit,
    runtime::{Levels, Program},
};
use ocannl_runtime::{cache::CacheDir, CompileOptions, Elt, HostTensor, HostValue};

/// An element-wise kernel (over a parallel loop, so OpenMP outlines its
/// body into an internal function of the kernel's part).
const SQUARE: &str = r#"
  func.func private @__ocannl_kernel_square(%a: memref<64xf32>, %b: memref<64xf32>)
      attributes {no_inline, ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 64 : i64} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %v = memref.load %a[%i] : memref<64xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %b[%i] : memref<64xf32>
      scf.reduce
    }
    return
  }
"#;

/// A contraction kernel: `c[i] = sum_k m[i, k] * x[k]`.
const MATVEC: &str = r#"
  func.func private @__ocannl_kernel_matvec(%m: memref<64x64xf32>, %x: memref<64xf32>, %c: memref<64xf32>)
      attributes {no_inline, ocannl.kernel_kind = "contraction", ocannl.kernel_work = 4096 : i64} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c64 step %c1 {
      %s = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %m[%i, %k] : memref<64x64xf32>
        %b = memref.load %x[%k] : memref<64xf32>
        %p = arith.mulf %a, %b : f32
        %n = arith.addf %acc, %p : f32
        scf.yield %n : f32
      }
      memref.store %s, %c[%i] : memref<64xf32>
    }
    return
  }
"#;

/// A private helper both public functions call (not a kernel: it goes to
/// the part they share).
const HALF: &str = r#"
  func.func private @half(%a: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    %h = arith.constant 0.5 : f32
    scf.for %i = %c0 to %c64 step %c1 {
      %v = memref.load %a[%i] : memref<64xf32>
      %w = arith.mulf %v, %h : f32
      memref.store %w, %a[%i] : memref<64xf32>
    }
    return
  }
"#;

/// `f(m, x) = half(square(m x))`, `g(x) = half(square(x))`.
fn two_functions() -> String {
    format!(
        r#"module {{
{SQUARE}
{MATVEC}
{HALF}
  func.func @f(%m: memref<64x64xf32>, %x: memref<64xf32>) -> memref<64xf32> {{
    %c = memref.alloc() : memref<64xf32>
    call @__ocannl_kernel_matvec(%m, %x, %c) : (memref<64x64xf32>, memref<64xf32>, memref<64xf32>) -> ()
    %d = memref.alloc() : memref<64xf32>
    call @__ocannl_kernel_square(%c, %d) : (memref<64xf32>, memref<64xf32>) -> ()
    memref.dealloc %c : memref<64xf32>
    call @half(%d) : (memref<64xf32>) -> ()
    return %d : memref<64xf32>
  }}
  func.func @g(%x: memref<64xf32>) -> memref<64xf32> {{
    %d = memref.alloc() : memref<64xf32>
    call @__ocannl_kernel_square(%x, %d) : (memref<64xf32>, memref<64xf32>) -> ()
    call @half(%d) : (memref<64xf32>) -> ()
    return %d : memref<64xf32>
  }}
}}"#
    )
}

/// Another module with the same element-wise kernel.
fn other_module() -> String {
    format!(
        r#"module {{
{SQUARE}
  func.func @h(%x: memref<64xf32>) -> memref<64xf32> {{
    %d = memref.alloc() : memref<64xf32>
    call @__ocannl_kernel_square(%x, %d) : (memref<64xf32>, memref<64xf32>) -> ()
    %e = memref.alloc() : memref<64xf32>
    call @__ocannl_kernel_square(%d, %e) : (memref<64xf32>, memref<64xf32>) -> ()
    memref.dealloc %d : memref<64xf32>
    return %e : memref<64xf32>
  }}
}}"#
    )
}

fn context() -> Context {
    ocannl_cpu::install();
    ocannl_passes::new_context().expect("a context")
}

fn compile(context: &Context, text: &str, options: &CompileOptions) -> Program {
    let mut module = Module::parse(context, text).expect("the module parses");
    Program::compile(context, &mut module, options).expect("the module compiles")
}

/// Options that compile everything and store nothing.
fn uncached() -> CompileOptions {
    CompileOptions {
        cache: CacheDir::Off,
        ..CompileOptions::default()
    }
}

fn options(cache: &std::path::Path) -> CompileOptions {
    CompileOptions {
        opt_level: None,
        cache: CacheDir::At(cache.to_path_buf()),
        ..CompileOptions::default()
    }
}

fn count(program: &Program, what: &str) -> u64 {
    program
        .stats()
        .iter()
        .find(|(n, _)| *n == what)
        .map(|(_, c)| *c)
        .unwrap_or_else(|| panic!("no count {what}"))
}

fn vector(seed: u64) -> HostValue {
    HostValue::Tensor(HostTensor::from_f64(
        Elt::F32,
        vec![64],
        (0..64).map(|i| ((i * 7 + seed) % 13) as f64 - 6.0),
    ))
}

fn matrix() -> HostValue {
    HostValue::Tensor(HostTensor::from_f64(
        Elt::F32,
        vec![64, 64],
        (0..64 * 64).map(|i| ((i * 5) % 11) as f64 / 4.0 - 1.0),
    ))
}

/// `f` and `g` computed here.
fn expected(m: &HostValue, x: &HostValue) -> (Vec<f64>, Vec<f64>) {
    let (HostValue::Tensor(m), HostValue::Tensor(x)) = (m, x) else {
        unreachable!()
    };
    let (m, x) = (m.to_f64(), x.to_f64());
    let f = (0..64)
        .map(|i| {
            let c: f32 = (0..64).map(|k| m[i * 64 + k] as f32 * x[k] as f32).sum();
            (c * c * 0.5) as f64
        })
        .collect();
    let g = x
        .iter()
        .map(|&v| ((v as f32) * (v as f32) * 0.5) as f64)
        .collect();
    (f, g)
}

fn results(program: &Program) -> (Vec<f64>, Vec<f64>) {
    let data = |v: Vec<HostValue>| match v.into_iter().next() {
        Some(HostValue::Tensor(t)) => t.to_f64(),
        other => panic!("not a tensor: {other:?}"),
    };
    (
        data(program.call("f", &[matrix(), vector(1)]).expect("f runs")),
        data(program.call("g", &[vector(2)]).expect("g runs")),
    )
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-4 * (1.0 + y.abs()))
}

#[test]
fn parts_are_cached_and_give_the_same_results() {
    let context = context();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let text = two_functions();
    let (f, _) = expected(&matrix(), &vector(1));
    let (_, g) = expected(&matrix(), &vector(2));

    let first = compile(&context, &text, &options(dir.path()));
    // f, g, the two kernels, the helper both call and the kernel outlined
    // from its loop.
    assert_eq!(count(&first, "parts"), 6);
    assert_eq!(count(&first, "kernels"), 3);
    assert_eq!(count(&first, "parts-compiled"), 6);
    assert_eq!(count(&first, "parts-cached"), 0);
    let (rf, rg) = results(&first);
    assert!(close(&rf, &f), "{rf:?} != {f:?}");
    assert!(close(&rg, &g), "{rg:?} != {g:?}");

    let second = compile(&context, &text, &options(dir.path()));
    assert_eq!(count(&second, "parts-compiled"), 0);
    assert_eq!(count(&second, "parts-cached"), 6);
    assert_eq!(results(&second), (rf.clone(), rg.clone()));

    // Another level for everything: other objects for the kernels (the
    // host code is at -O0 already: its three parts are the same).
    let o0 = CompileOptions {
        opt_level: Some(0),
        ..options(dir.path())
    };
    let third = compile(&context, &text, &o0);
    assert_eq!(count(&third, "parts-compiled"), 3);
    assert_eq!(count(&third, "parts-cached"), 3);
    let (r0f, r0g) = results(&third);
    assert!(close(&r0f, &f) && close(&r0g, &g));

    // The SLP vectorizer on (it is off by default): other objects again.
    let mut slp = options(dir.path());
    slp.set("slp", "on");
    let fourth = compile(&context, &text, &slp);
    assert_eq!(count(&fourth, "parts-cached"), 0);

    // The cache off: everything compiled, nothing stored.
    let off = uncached();
    let fifth = compile(&context, &text, &off);
    assert_eq!(count(&fifth, "parts-compiled"), 6);
    assert_eq!(count(&fifth, "parts-cached"), 0);
}

#[test]
fn a_kernel_is_one_cache_entry_whatever_its_module() {
    let context = context();
    let dir = tempfile::tempdir().expect("a temporary directory");
    compile(&context, &two_functions(), &options(dir.path()));
    let other = compile(&context, &other_module(), &options(dir.path()));
    // `h` is new; its kernel was compiled with the first module.
    assert_eq!(count(&other, "parts"), 2);
    assert_eq!(count(&other, "parts-compiled"), 1);
    assert_eq!(count(&other, "parts-cached"), 1);
    let out = other.call("h", &[vector(3)]).expect("h runs");
    let HostValue::Tensor(t) = &out[0] else {
        panic!("not a tensor")
    };
    let HostValue::Tensor(x) = vector(3) else {
        unreachable!()
    };
    let want: Vec<f64> = x.to_f64().iter().map(|v| v.powi(4)).collect();
    assert!(close(&t.to_f64(), &want), "{:?} != {want:?}", t.to_f64());
}

#[test]
fn threads_do_not_change_the_results() {
    let context = context();
    let text = two_functions();
    let with = |threads: &str| {
        let mut o = uncached();
        o.set("threads", threads);
        let p = compile(&context, &text, &o);
        assert_eq!(count(&p, "parts-compiled"), 6);
        results(&p)
    };
    let one = with("1");
    assert_eq!(with("4"), one);
    assert_eq!(with("16"), one);
}

#[test]
fn kernels_get_the_level_of_their_kind() {
    let levels = Levels {
        host: 0,
        contraction: 3,
        elementwise: 1,
    };
    use ocannl_cpu::runtime::KernelKind;
    assert_eq!(levels.of_part(Some(KernelKind::Contraction)), 3);
    assert_eq!(levels.of_part(Some(KernelKind::Elementwise)), 1);
    assert_eq!(levels.of_part(None), 0);
    // A level asked for is every part's.
    let two = CompileOptions {
        opt_level: Some(2),
        ..CompileOptions::default()
    };
    let all = |l| Levels {
        host: l,
        contraction: l,
        elementwise: l,
    };
    assert_eq!(Levels::of(&two, true).expect("levels"), all(2));
    // Else, without kernels the module's level (here, for unknown work,
    // 3), and with kernels that level capped by kind.
    if std::env::var_os("OCANNL_OPT_LEVEL").is_none() {
        let unknown = CompileOptions::default();
        assert_eq!(Levels::of(&unknown, false).expect("levels"), all(3));
        assert_eq!(
            Levels::of(&unknown, true).expect("levels"),
            Levels {
                host: 0,
                contraction: 2,
                elementwise: 1
            }
        );
        // Small work: everything at 0.
        let small = CompileOptions {
            work: Some(1000),
            ..CompileOptions::default()
        };
        assert_eq!(Levels::of(&small, true).expect("levels"), all(0));
    }
}

#[test]
fn bad_input_is_an_error() {
    let host = jit::Machine::host();
    let err = jit::compile(b"not bitcode", 2, true, host).expect_err("garbage is refused");
    assert_eq!(err.kind(), ocannl_runtime::Kind::Compile);
    assert!(err.to_string().contains("bitcode"), "{err}");
    let err = jit::compile(b"", 2, true, host).expect_err("nothing is refused");
    assert!(err.to_string().contains("bitcode"), "{err}");
    // A truncated part.
    let context = context();
    let mut module = Module::parse(&context, &other_module()).expect("parses");
    ocannl_passes::run_pipeline(
        &context,
        &mut module,
        ocannl_cpu::pipeline::LOOPS_TO_LLVM_NAME,
    )
    .expect("lowers");
    let parts = jit::split(&module, &["__ocannl_kernel_square".to_string()], host).expect("splits");
    assert_eq!(parts.len(), 2);
    let half = &parts[0].bitcode[..parts[0].bitcode.len() / 2];
    assert!(jit::compile(half, 1, false, host).is_err());
    assert!(jit::compile(&parts[0].bitcode, 4, false, host).is_err());
    assert!(jit::compile(&parts[0].bitcode, 1, false, host).is_ok());
    // A module that is not in the LLVM dialect does not translate.
    let module = Module::parse(&context, &other_module()).expect("parses");
    let err = jit::split(&module, &[], host).expect_err("not translatable");
    assert_eq!(err.kind(), ocannl_runtime::Kind::Compile);
    assert!(err.to_string().contains("cannot translate"), "{err}");
}

#[test]
fn a_program_serialized_loads_and_gives_the_same_results() {
    let context = context();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = compile(&context, &two_functions(), &options(dir.path()));
    let bytes = program.serialize();
    let loaded = Program::load(&bytes, &options(dir.path())).expect("loads");
    assert_eq!(results(&loaded), results(&program));
    assert_eq!(count(&loaded, "parts-compiled"), 0);
    assert_eq!(count(&loaded, "parts-cached"), 6);
    assert_eq!(loaded.signature("f"), program.signature("f"));
    // Damaged bytes are an error, never a crash.
    for n in [0, 1, bytes.len() / 3, bytes.len() - 1] {
        assert!(Program::load(&bytes[..n], &options(dir.path())).is_err());
    }
    let mut foreign = bytes.clone();
    let at = foreign
        .windows(b"ocannl-cpu program".len())
        .position(|w| w == b"ocannl-cpu program")
        .expect("the format");
    foreign[at] = b'X';
    let err = Program::load(&foreign, &options(dir.path()))
        .err()
        .expect("refused");
    assert!(err.to_string().contains("damaged or foreign"), "{err}");
    assert_eq!(err.kind(), ocannl_runtime::Kind::Format);
}

/// A kernel that records a failed check in the status global, which the
/// public functions also use: the global is defined in one part and read
/// by the runtime after each call.
const FAILING: &str = r#"module attributes {ocannl.runtime_checks = ["the index of test.mlir:1:1"]} {
  memref.global @__ocannl_status : memref<4xi64> = dense<0>
  func.func private @__ocannl_kernel_fail(%x: index) attributes {no_inline, ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 1 : i64} {
    %s = memref.get_global @__ocannl_status : memref<4xi64>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %code = arith.constant 2 : i64
    %check = arith.constant 0 : i64
    %bound = arith.constant 4 : i64
    %v = arith.index_cast %x : index to i64
    memref.store %code, %s[%c0] : memref<4xi64>
    memref.store %check, %s[%c1] : memref<4xi64>
    memref.store %v, %s[%c2] : memref<4xi64>
    memref.store %bound, %s[%c3] : memref<4xi64>
    return
  }
  func.func @f(%x: index) {
    %s = memref.get_global @__ocannl_status : memref<4xi64>
    %c0 = arith.constant 0 : index
    %w = memref.load %s[%c0] : memref<4xi64>
    %z = arith.constant 0 : i64
    %ok = arith.cmpi eq, %w, %z : i64
    scf.if %ok {
      func.call @__ocannl_kernel_fail(%x) : (index) -> ()
    }
    return
  }
  func.func @g(%x: index) -> index {
    %s = memref.get_global @__ocannl_status : memref<4xi64>
    return %x : index
  }
}"#;

#[test]
fn a_check_failed_in_a_kernel_is_reported() {
    let context = context();
    let program = compile(&context, FAILING, &uncached());
    // f, g, the kernel, and the status global all three use.
    assert_eq!(count(&program, "parts"), 4);
    let err = program
        .call("f", &[HostValue::Index(7)])
        .expect_err("the check fails");
    assert_eq!(
        err.to_string(),
        "the index of test.mlir:1:1 is 7, outside the axis of 4 cell(s) (valid indices: 0 to 3)"
    );
    // A failed run-time check is its own kind.
    assert_eq!(err.kind(), ocannl_runtime::Kind::Check);
    // The status is cleared before each call.
    assert_eq!(
        program.call("g", &[HostValue::Index(5)]),
        Ok(vec![HostValue::Index(5)])
    );
}

#[test]
fn kernels_only_run_once_functions_call_are_compiled_at_o0() {
    let context = context();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let text = two_functions();
    let first = compile(&context, &text, &options(dir.path()));
    let (f, g) = results(&first);
    // `f` runs once: its own kernel (matvec) gets another level, so another
    // object; the kernel `g` calls too (square) and the host code do not.
    let once_f = CompileOptions {
        run_once: ["f".to_string()].into(),
        ..options(dir.path())
    };
    let second = compile(&context, &text, &once_f);
    assert_eq!(count(&second, "parts-compiled"), 1);
    let (f2, g2) = results(&second);
    assert!(close(&f2, &f) && close(&g2, &g));
    // Both run once: square too (matvec's object at -O0 is cached now).
    let once_both = CompileOptions {
        run_once: ["f".to_string(), "g".to_string()].into(),
        ..options(dir.path())
    };
    let third = compile(&context, &text, &once_both);
    assert_eq!(count(&third, "parts-compiled"), 1);
    // A level asked for wins.
    let asked = CompileOptions {
        opt_level: Some(2),
        run_once: ["f".to_string(), "g".to_string()].into(),
        ..options(dir.path())
    };
    let fourth = compile(&context, &text, &asked);
    let fifth = compile(
        &context,
        &text,
        &CompileOptions {
            opt_level: Some(2),
            ..options(dir.path())
        },
    );
    assert!(count(&fourth, "parts-compiled") > 0);
    assert_eq!(count(&fifth, "parts-compiled"), 0);
}

/// Two calls sharing an argument's buffer: what one writes there in place,
/// the other reads, with no copy; a buffer of another shape is refused.
#[test]
fn calls_share_an_argument_in_place() {
    let text = format!(
        "module {{\n{HALF}\n  func.func @h(%a: memref<64xf32>) {{\n    call @half(%a) : (memref<64xf32>) -> ()\n    return\n  }}\n  func.func @id(%a: memref<64xf32>) -> memref<64xf32> {{\n    return %a : memref<64xf32>\n  }}\n  func.func @m(%a: memref<64x64xf32>) -> memref<64x64xf32> {{\n    return %a : memref<64x64xf32>\n  }}\n}}\n"
    );
    let context = context();
    let program = compile(&context, &text, &uncached());
    let x = vector(3);
    let mut halve = program.prepare("h", std::slice::from_ref(&x)).unwrap();
    let mut read = program.prepare("id", &[vector(5)]).unwrap();
    read.share(0, &halve, 0).unwrap();
    halve.invoke().unwrap();
    let HostValue::Tensor(t) = &x else {
        unreachable!()
    };
    let want: Vec<f64> = t.to_f64().iter().map(|v| v / 2.0).collect();
    let got = match &read.invoke().unwrap().read()[0] {
        HostValue::Tensor(t) => t.to_f64(),
        other => panic!("{other:?}"),
    };
    assert_eq!(got, want);
    // Setting the argument through either call writes the one buffer.
    read.set(0, &vector(9)).unwrap();
    assert_eq!(halve.get(0).unwrap(), vector(9));
    let mut other = program.prepare("m", &[matrix()]).unwrap();
    let e = other.share(0, &halve, 0).unwrap_err();
    assert_eq!(e.kind(), ocannl_runtime::Kind::Argument);
}

/// A call prepared on zeros starts from zero tensors (and index 0), as one
/// prepared with host tensors of zeros, and runs as it does.
#[test]
fn a_call_prepared_on_zeros_starts_from_zeros() {
    let text = format!(
        "module {{\n{HALF}\n  func.func @h(%a: memref<64xf32>) {{\n    call @half(%a) : (memref<64xf32>) -> ()\n    return\n  }}\n  func.func @m(%a: memref<64x64xf32>, %i: index) -> memref<64x64xf32> {{\n    return %a : memref<64x64xf32>\n  }}\n}}\n"
    );
    let context = context();
    let program = compile(&context, &text, &uncached());
    let mut m = program.prepare_zeroed("m").unwrap();
    let zeros = HostValue::Tensor(HostTensor::zeros(Elt::F32, vec![64, 64]));
    assert_eq!(m.get(0).unwrap(), zeros);
    assert_eq!(m.get(1).unwrap(), HostValue::Index(0));
    assert_eq!(m.invoke().unwrap().read(), vec![zeros]);
    let mut h = program.prepare_zeroed("h").unwrap();
    h.set(0, &vector(3)).unwrap();
    h.invoke().unwrap();
    let HostValue::Tensor(t) = vector(3) else {
        unreachable!()
    };
    let want: Vec<f64> = t.to_f64().iter().map(|v| v / 2.0).collect();
    match h.get(0).unwrap() {
        HostValue::Tensor(t) => assert_eq!(t.to_f64(), want),
        other => panic!("{other:?}"),
    }
}

/// A result carried into an argument stays in the program's memory: a
/// running sum over three calls, the other result (an argument returned
/// as it is) read each time; a carry into an argument of another slot is
/// refused. The trait's default (through the host) agrees.
#[test]
fn carried_results_become_arguments_in_place() {
    let text = r#"module {
  func.func @acc(%s: memref<64xf32>, %x: memref<64xf32>, %m: memref<64x64xf32>) -> (memref<64xf32>, memref<64xf32>) {
    %n = memref.alloc() : memref<64xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c1 {
      %a = memref.load %s[%i] : memref<64xf32>
      %b = memref.load %x[%i] : memref<64xf32>
      %c = arith.addf %a, %b : f32
      memref.store %c, %n[%i] : memref<64xf32>
    }
    return %n, %x : memref<64xf32>, memref<64xf32>
  }
}
"#;
    let context = context();
    let program = compile(&context, text, &uncached());
    let x = vector(3);
    let HostValue::Tensor(xt) = &x else {
        unreachable!()
    };
    let want: Vec<f64> = xt.to_f64().iter().map(|v| 3.0 * v).collect();
    let mut call = program.prepare_zeroed("acc").unwrap();
    call.set(1, &x).unwrap();
    for _ in 0..3 {
        let rest = call.invoke_carrying(&[(0, 0)]).unwrap();
        assert_eq!(rest, vec![x.clone()]);
    }
    match call.get(0).unwrap() {
        HostValue::Tensor(t) => assert_eq!(t.to_f64(), want),
        other => panic!("{other:?}"),
    }
    // Through the host (the trait's default), the same.
    let mut host = program.prepare_zeroed("acc").unwrap();
    host.set(1, &x).unwrap();
    for _ in 0..3 {
        let rest = ocannl_runtime::Session::invoke_carrying(&mut HostOnly(&mut host), &[(0, 0)]);
        assert_eq!(rest.unwrap(), vec![x.clone()]);
    }
    assert_eq!(host.get(0).unwrap(), call.get(0).unwrap());
    let e = call.invoke_carrying(&[(0, 2)]).unwrap_err();
    assert_eq!(e.kind(), ocannl_runtime::Kind::Argument);
    let e = call.invoke_carrying(&[(0, 0), (1, 0)]).unwrap_err();
    assert_eq!(e.kind(), ocannl_runtime::Kind::Argument);
}

/// A session that has only the trait's provided `invoke_carrying`.
struct HostOnly<'a>(&'a mut dyn ocannl_runtime::Session);

impl ocannl_runtime::Session for HostOnly<'_> {
    fn signature(&self) -> &ocannl_runtime::Signature {
        self.0.signature()
    }
    fn set(&mut self, i: usize, value: &HostValue) -> Result<(), ocannl_runtime::Error> {
        self.0.set(i, value)
    }
    fn get(&self, i: usize) -> Result<HostValue, ocannl_runtime::Error> {
        self.0.get(i)
    }
    fn invoke(&mut self) -> Result<Vec<HostValue>, ocannl_runtime::Error> {
        self.0.invoke()
    }
    fn run(&mut self) -> Result<(), ocannl_runtime::Error> {
        self.0.run()
    }
    fn results(&self) -> Result<Vec<HostValue>, ocannl_runtime::Error> {
        self.0.results()
    }
}

#[test]
fn a_named_cpu_is_compiled_for_and_checked_against_the_host() {
    let context = context();
    let text = two_functions();
    let host = jit::Machine::host();
    let x86 = host.triple.starts_with("x86_64");
    // A CPU every host of its architecture runs, and one of another.
    let (older, foreign) = if x86 {
        ("x86-64-v2", "neoverse-n1")
    } else {
        ("generic", "x86-64-v3")
    };
    let with = |cpu: Option<&str>| {
        let mut o = uncached();
        if let Some(cpu) = cpu {
            o.set("target-cpu", cpu);
        }
        o
    };
    let native = results(&compile(&context, &text, &with(None)));
    let named = results(&compile(&context, &text, &with(Some(older))));
    assert!(close(&named.0, &native.0) && close(&named.1, &native.1));
    // The machine is part of every cache key.
    assert_ne!(
        ocannl_cpu::runtime::cache_tag(&with(None)),
        ocannl_cpu::runtime::cache_tag(&with(Some(older)))
    );
    let machine = jit::Machine::named(older).expect("LLVM knows it");
    assert!(!machine.host && machine.cpu == older);
    assert_ne!(
        jit::key(b"x", 2, false, &machine),
        jit::key(b"x", 2, false, host)
    );
    if x86 {
        assert!(!machine.has().contains(&"avx2"), "{}", machine.features);
        assert_eq!(machine.target().vector_bytes, 16);
    }
    let refused = |cpu: &str| {
        let mut module = Module::parse(&context, &text).expect("the module parses");
        match Program::compile(&context, &mut module, &with(Some(cpu))) {
            Ok(_) => panic!("{cpu} compiled"),
            Err(e) => e,
        }
    };
    let e = refused("pentium-9000");
    assert_eq!(e.kind(), ocannl_runtime::Kind::Argument);
    assert!(
        e.to_string()
            .contains("LLVM knows no CPU named 'pentium-9000'"),
        "{e}"
    );
    let e = refused(foreign);
    assert_eq!(e.kind(), ocannl_runtime::Kind::Argument);
    assert!(e.to_string().contains("code; this host runs"), "{e}");
}

#[test]
fn the_roof_is_measured_and_plausible() {
    ocannl_cpu::install();
    let host = jit::Machine::host();
    let roof = ocannl_cpu::roof::fma_peak_gflops(host).expect("the host's roof is measured");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    // Any CPU of the last twenty years does more than 1 GFLOP/s per core,
    // and none more than 500 (two 512-bit f32 multiply-adds per cycle at
    // 8 GHz: 512).
    assert!(
        roof / cores > 1.0 && roof / cores < 520.0,
        "{roof} GFLOP/s on {cores} cores"
    );
}
