//! User strings never reach SSA names and are always escaped: data and
//! params with any names (like the writer's own values, differing only in
//! punctuation, with quotes, backslashes, newlines, unicode) make modules
//! that parse and verify, params' names read back exactly and distinct data stay
//! distinct arguments.

use std::{
    cell::RefCell,
    collections::{BTreeSet, HashSet},
    rc::Rc,
};

use melior::{
    dialect::DialectRegistry,
    ir::{operation::OperationLike, Module, OperationRef},
    Context,
};
use ocannl::*;
use ocannl_mlir::{attr, ir};
use proptest::{
    prelude::*,
    test_runner::{Config, TestRunner},
};

/// The project's context, with its diagnostics collected.
fn project_context() -> (Context, Rc<RefCell<Vec<String>>>) {
    let context = ocannl_passes::new_context().unwrap();
    let messages = Rc::new(RefCell::new(vec![]));
    let sink = messages.clone();
    context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(format!("{}: {d}", d.location()));
        true
    });
    (context, messages)
}

/// Upstream's dialects only: `ocannl_shape` ops and types are opaque, so
/// parsing checks the syntax alone, whatever the strings hold.
fn syntax_context() -> Context {
    let registry = DialectRegistry::new();
    melior::utility::register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    context.set_allow_unregistered_dialects(true);
    context
}

/// Parses `text` (which verifies it) and runs `pipeline` on it.
fn compile<'c>(
    context: &'c Context,
    messages: &RefCell<Vec<String>>,
    text: &str,
    pipeline: &str,
) -> Result<Module<'c>, String> {
    messages.borrow_mut().clear();
    let fail = |what: &str| format!("{what}:\n{}\n{text}", messages.borrow().join("\n"));
    let mut module = Module::parse(context, text).ok_or_else(|| fail("does not parse"))?;
    ocannl_passes::run_pipeline(context, &mut module, pipeline)
        .map_err(|e| fail(&e.to_string()))?;
    Ok(module)
}

fn verify(text: &str) -> Result<(), String> {
    let (context, messages) = project_context();
    compile(&context, &messages, text, "ocannl-verify").map(|_| ())
}

/// `a` and `b` are the same f32 (NaN: any NaN).
fn same_f32(a: f64, b: f64) -> bool {
    let (a, b) = (a as f32, b as f32);
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn string_attr(op: OperationRef, name: &str) -> Option<String> {
    op.attribute(name).ok().and_then(attr::string_value)
}

/// The ops named `name` in `module`.
fn ops<'c, 'a>(module: &'a Module<'c>, name: &str) -> Vec<OperationRef<'c, 'a>> {
    ir::ops_named(module.as_operation(), name)
}

/// Per argument of the function: its `ocannl.param` name, if any.
fn param_args(module: &Module, func: &str) -> Vec<Option<String>> {
    let f = ops(module, "func.func")
        .into_iter()
        .find(|f| string_attr(*f, "sym_name").as_deref() == Some(func))
        .expect("the function");
    let n = ir::function_type(f).expect("a function type").input_count();
    (0..n)
        .map(|i| ir::arg_string_attr(f, i, ocannl_dialect_spec::abi::PARAM))
        .collect()
}

const LOWER: &str =
    "ocannl-verify,ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true}";

#[test]
fn data_named_like_a_generated_value() {
    let x = data("t1", "4|3");
    let y = param("w").output(&[2]) * &x;
    verify(&Tensor::module("f", &[&y]).unwrap()).unwrap();
}

#[test]
fn names_differing_only_in_punctuation_are_distinct_data() {
    let a = data("a-b", "4|3");
    let b = data("a_b", "4|3");
    let y = &a + &b;
    let text = Tensor::module("f", &[&y]).unwrap();
    verify(&text).unwrap();
    let (context, messages) = project_context();
    let module = compile(&context, &messages, &text, LOWER).unwrap();
    assert_eq!(param_args(&module, "f"), vec![None, None], "{text}");
}

#[test]
fn repeated_data_names_are_distinct_arguments_in_order_of_creation() {
    let (a, b, c) = (data("x", "4|2"), data("x", "4|3"), data("", "4|4"));
    // Used in another order than created.
    let y =
        param("w").output(&[2]) * &c + param("v").output(&[2]) * &a + param("u").output(&[2]) * &b;
    let text = Tensor::module("f", &[&y]).unwrap();
    let (context, messages) = project_context();
    let module = compile(&context, &messages, &text, LOWER).unwrap();
    let f = ops(&module, "func.func")[0];
    let ft = ir::function_type(f).unwrap();
    let inputs: Vec<String> = (0..3).map(|i| ft.input(i).unwrap().to_string()).collect();
    assert_eq!(
        inputs,
        ["memref<4x2xf32>", "memref<4x3xf32>", "memref<4x4xf32>"],
        "{text}"
    );
}

#[test]
fn a_param_name_with_quotes_backslashes_unicode_and_a_newline_round_trips() {
    let name = "a\"b\\c ü\n";
    let p = param(name).output(&[2]).init(ParamInit::Zeros);
    let x = data(name, "4|3");
    let y = &p * &x;
    let loss = sum(&y);
    let mut trainer = Trainer::new(&loss, &y, Sgd::default()).unwrap();
    assert_eq!(trainer.param_names(), [name]);
    assert_eq!(p.name(), name);
    let w = trainer.param(name).unwrap();
    assert_eq!(w.dims, [2, 3]);
    assert!(w.to_f64().iter().all(|&v| v == 0.0));
    let batch = HostTensor::f32(vec![4, 3], vec![1.0; 12]);
    trainer.step(&[batch], 0.1).unwrap();
    // d loss / d w = the sum of the rows of x: 4 per cell.
    assert!(trainer
        .param(name)
        .unwrap()
        .to_f64()
        .iter()
        .all(|&v| (v + 0.4).abs() < 1e-6));
}

#[test]
fn an_empty_param_name_is_an_error_not_a_broken_module() {
    let y = param("").output(&[2]) * &data("x", "4|3");
    let e = match Trainer::new(&sum(&y), &y, Sgd::default()) {
        Err(e) => e,
        Ok(_) => panic!("a param without a name compiled"),
    };
    assert!(e.to_string().contains("non-empty 'name'"), "{e}");
}

#[test]
fn params_with_one_name_are_one_param() {
    let x = data("x", "4|3");
    let y = param("w").output(&[2]) * &x + param("w") * &x;
    let text = Tensor::module("f", &[&y]).unwrap();
    let (context, messages) = project_context();
    let module = compile(&context, &messages, &text, LOWER).unwrap();
    assert_eq!(
        param_args(&module, "f"),
        vec![None, Some("w".into())],
        "{text}"
    );
}

#[test]
fn pinned_memory_modes_reach_the_module() {
    let x = data("x", "4|3");
    let w = param("w").output(&[2]);
    let h = w * x;
    let y = relu(&h).memory(Memory::Materialized);
    // A pin on any handle of a node pins the node.
    let _ = h.clone().memory(Memory::Local);
    let text = Tensor::module("f", &[&y]).unwrap();
    let (context, messages) = project_context();
    let module = compile(&context, &messages, &text, "ocannl-verify").unwrap();
    let pinned = |name: &str| string_attr(ops(&module, name)[0], "ocannl.memory");
    assert_eq!(
        pinned("ocannl_shape.compose").as_deref(),
        Some("local"),
        "{text}"
    );
    assert_eq!(
        pinned("ocannl_shape.pointwise_unary").as_deref(),
        Some("materialized"),
        "{text}"
    );
    assert_eq!(pinned("ocannl_shape.param"), None, "{text}");
    // The lowering keeps the pin on the compose's node.
    let module = compile(&context, &messages, &text, LOWER).unwrap();
    let memory: Vec<(String, String)> = ops(&module, "ocannl_assign.node")
        .into_iter()
        .map(|n| {
            (
                string_attr(n, "name").unwrap(),
                string_attr(n, "memory").unwrap(),
            )
        })
        .collect();
    assert!(
        memory.contains(&("compose_1".into(), Memory::Local.name().into())),
        "{memory:?}"
    );
}

#[test]
fn inits_and_seeds_are_written_with_their_names() {
    let x = data("x", "4|3");
    let mut y = number(0.0);
    for (k, init) in ParamInit::ALL.into_iter().enumerate() {
        y = y + param(&format!("w{k}"))
            .output(&[2])
            .init(init)
            .seed(k as i64 - 1)
            * &x;
    }
    let text = Tensor::module("f", &[&y]).unwrap();
    let (context, messages) = project_context();
    let module = compile(&context, &messages, &text, "ocannl-verify").unwrap();
    let params = ops(&module, "ocannl_shape.param");
    for (k, init) in ParamInit::ALL.into_iter().enumerate() {
        let p = params[k];
        assert_eq!(
            string_attr(p, "init").as_deref(),
            Some(init.name()),
            "{text}"
        );
        assert_eq!(
            p.attribute("seed").ok().and_then(attr::int_value),
            Some(k as i64 - 1),
            "{text}"
        );
    }
}

#[test]
fn params_are_tensors_on_either_side_of_every_operator() {
    let x = data("x", "4|3");
    let p = param("p").output(&[3]);
    let q = param("q").output(&[3]);
    let terms: Vec<Tensor> = vec![
        &p + &x,
        &x + &p,
        p.clone() - 1.0,
        2.0 - &p,
        2.0 * p.clone(),
        &p * 0.5,
        -&p,
        -q.clone(),
        relu(&p),
        pointmul(&p, &x),
        einsum("...|i => ...|i", &[&p]),
        Tensor::from(p.clone()) + Tensor::from(&q),
        q.clone() + p.clone(),
        param("w").input(&[3]).output(&[3]) * &x,
        &q * param("v").output(&[3]),
    ];
    let mut y = x.clone();
    for t in &terms {
        y = &y + t;
    }
    verify(&Tensor::module("f", &[&y]).unwrap()).unwrap();
}

#[test]
fn numbers_without_a_decimal_form_are_written_as_bits() {
    let x = data("x", "2");
    let values = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, -0.0, 0.1];
    let terms: Vec<Tensor> = values.iter().map(|&v| &x + v).collect();
    let refs: Vec<&Tensor> = terms.iter().collect();
    let text = Tensor::module("f", &refs).unwrap();
    let (context, messages) = project_context();
    let module = compile(&context, &messages, &text, "ocannl-verify").unwrap();
    let read: Vec<f64> = ops(&module, "ocannl_shape.constant")
        .into_iter()
        .map(|c| attr::number_value(c.attribute("value").unwrap()).unwrap())
        .collect();
    assert_eq!(read.len(), values.len());
    for (v, r) in values.iter().zip(&read) {
        assert!(same_f32(*v, *r), "{v} read as {r}");
    }
}

/// Names: the writer's own value names, names differing only in
/// punctuation, and random strings of punctuation, quotes, backslashes, spaces, controls and
/// unicode (any char now and then); the empty one included.
fn name() -> impl Strategy<Value = String> {
    const TRICKY: &[&str] = &[
        "",
        "t1",
        "t2",
        "0",
        "1",
        "arg0",
        "%0",
        "%arg0",
        "a-b",
        "a_b",
        "a b",
        "\"",
        "\\",
        "\\\"",
        "\\22",
        "\\n",
        "loc(\"x\")",
        "} {",
        ">",
        "\"ocannl_shape.param\"",
        "ü",
        "名前",
        "😀",
        "\n",
        "\t",
        "\0",
        "\u{7f}",
        "x\ny",
    ];
    let chars = prop_oneof![
        8 => prop::sample::select(vec![
            'a', 'Z', '0', '_', '-', '.', '$', '%', '@', '#', '"', '\\', ' ', '\n', '\t',
            '\r', '\0', '<', '>', '{', '}', '(', ')', ',', '=', ':', 'ü', '€', '名', '😀',
            '\u{7f}', '\u{85}', '\u{2028}',
        ]),
        1 => any::<char>(),
    ];
    prop_oneof![
        prop::sample::select(TRICKY).prop_map(String::from),
        prop::collection::vec(chars, 0..8).prop_map(|cs| cs.into_iter().collect()),
    ]
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Distinct non-empty param names, and as many data names (any, repeats
/// included).
fn names() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    prop::collection::btree_set(name().prop_filter("non-empty", |s| !s.is_empty()), 1..5)
        .prop_flat_map(|params: BTreeSet<String>| {
            let n = params.len();
            (
                Just(params.into_iter().collect::<Vec<_>>()),
                prop::collection::vec(name(), n..=n),
            )
        })
}

#[test]
fn any_names_make_a_module_that_verifies_with_the_params_named_exactly() {
    let (context, messages) = project_context();
    runner(96)
        .run(&names(), |(params, datas)| {
            // Data `i` is `3|i+2` (a 1 would broadcast), composed with its
            // own param.
            let xs: Vec<Tensor> = datas
                .iter()
                .enumerate()
                .map(|(i, d)| data(d, &format!("3|{}", i + 2)))
                .collect();
            let mut y = number(0.0);
            for (p, x) in params.iter().zip(&xs).rev() {
                y = y + param(p).output(&[2]) * x;
            }
            let text = Tensor::module("f", &[&y]).unwrap();
            let module = compile(&context, &messages, &text, LOWER).map_err(TestCaseError::fail)?;
            let args = param_args(&module, "f");
            let n = xs.len();
            prop_assert!(args[..n].iter().all(Option::is_none), "{args:?}");
            let read: HashSet<&str> = args[n..].iter().flatten().map(|s| s.as_str()).collect();
            let written: HashSet<&str> = params.iter().map(|s| s.as_str()).collect();
            prop_assert_eq!(args.len(), 2 * n);
            prop_assert_eq!(read, written);
            // Data stay distinct, in order: argument `i` is `3x(i+2)`.
            let f = ops(&module, "func.func")[0];
            let ft = ir::function_type(f).unwrap();
            for i in 0..n {
                prop_assert_eq!(
                    ft.input(i).unwrap().to_string(),
                    format!("memref<3x{}xf32>", i + 2)
                );
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn any_strings_make_a_module_that_parses_and_reads_back() {
    let context = syntax_context();
    let strategy = (name(), name(), name(), name(), name(), any::<f64>());
    runner(256)
        .run(&strategy, |(func, p, d, shape, spec, x)| {
            let w = param(&p).output(&[2]);
            let y = einsum(&spec, &[&(&w * &data(&d, &shape))]) + x;
            let extra = data(&d, &shape);
            let text = Tensor::module(&func, &[&y, &extra]).unwrap();
            let module = Module::parse(&context, &text)
                .ok_or_else(|| TestCaseError::fail(format!("does not parse:\n{text}")))?;
            let f = ops(&module, "func.func")[0];
            prop_assert_eq!(string_attr(f, "sym_name"), Some(func));
            prop_assert_eq!(ir::function_type(f).unwrap().input_count(), 2);
            let param = ops(&module, "ocannl_shape.param")[0];
            prop_assert_eq!(string_attr(param, "name"), Some(p));
            let einsum = ops(&module, "ocannl_shape.einsum")[0];
            prop_assert_eq!(string_attr(einsum, "spec"), Some(spec));
            let c = ops(&module, "ocannl_shape.constant")[0];
            let v = attr::number_value(c.attribute("value").unwrap()).unwrap();
            prop_assert!(same_f32(v, x), "{x} read as {v}");
            Ok(())
        })
        .unwrap();
}

/// One param name declared twice with different dims is an error naming
/// both; declarations that agree, or give different parts, are merged.
#[test]
fn a_param_declared_twice_differently_is_an_error() {
    let x = data("x", "4|3");
    let a = param("w").output(&[2]);
    let b = param("w").output(&[5]);
    let y = (&a * &x) + (&b * &x);
    let e = Tensor::module("f", &[&y]).unwrap_err().to_string();
    assert!(
        e.contains("param 'w' is declared twice with different output dims")
            && e.contains("[2]")
            && e.contains("[5]"),
        "{e}"
    );
    let same = param("v").output(&[2]).init(ParamInit::He);
    let again = param("v").output(&[2]).init(ParamInit::He);
    let z = (&same * &x) + (&again * &x);
    let text = Tensor::module("f", &[&z]).unwrap();
    assert_eq!(text.matches("ocannl_shape.param").count(), 1, "{text}");
    // The name first, its dims and seed later: one param with both.
    let u = (param("u") * &x) + (param("u").input(&[3]).output(&[7]).seed(5) * &x);
    let text = Tensor::module("f", &[&u]).unwrap();
    assert_eq!(text.matches("ocannl_shape.param").count(), 1, "{text}");
    assert!(
        text.contains("seed = 5 : i64") && text.contains(r#"tensor<"3->7", f32>"#),
        "{text}"
    );
}

/// A long chain of ops (a deep expression) is written and dropped without
/// recursion: no stack overflow, even on a small thread stack.
#[test]
fn deep_expressions_are_written_and_dropped() {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let mut t = data("x", "3");
            for _ in 0..200_000 {
                t = relu(&t);
            }
            let text = Tensor::module("f", &[&t]).unwrap();
            assert_eq!(
                text.matches("\"ocannl_shape.pointwise_unary\"").count(),
                200_000
            );
            drop(t);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Saved params are one file each inside the directory, whatever their
/// names (slashes, dots, quotes, unicode), and load back.
#[test]
fn any_param_names_save_and_load_inside_the_directory() {
    let names = [
        "../up",
        "a/b",
        "..",
        ".hidden",
        "q\"u\\o",
        "ünï",
        "plain_w-1.x",
        "%41",
    ];
    let x = data("x", "4|3");
    let mut y: Tensor = number(0.0);
    for (k, n) in names.iter().enumerate() {
        y = y + param(n).output(&[2]).seed(k as i64) * &x;
    }
    let loss = sum(&y);
    let mut trainer = Trainer::new(&loss, &y, Sgd::default()).unwrap();
    let root = std::env::temp_dir().join(format!("ocannl-save-{}", std::process::id()));
    let dir = root.join("model");
    trainer.save(&dir).unwrap();
    let files: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files.len(), names.len(), "{files:?}");
    assert!(files.contains("plain_w-1.x.npy"), "{files:?}");
    assert_eq!(
        std::fs::read_dir(&root).unwrap().count(),
        1,
        "nothing written beside the directory"
    );
    let saved: Vec<HostTensor> = names.iter().map(|n| trainer.param(n).unwrap()).collect();
    for n in names {
        let zeros = HostTensor::f32(vec![2, 3], vec![0.0; 6]);
        trainer.set_param(n, &zeros).unwrap();
    }
    trainer.load(&dir).unwrap();
    for (n, want) in names.iter().zip(&saved) {
        assert_eq!(&trainer.param(n).unwrap(), want, "{n}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// A diagnostic at a param names it as it was given, quotes included.
#[test]
fn diagnostics_name_params_as_given() {
    let y = param("w\"x ü") * &data("x", "4|3");
    let e = match Trainer::new(&sum(&y), &y, Sgd::default()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a param of unknown output dims compiled"),
    };
    assert!(e.starts_with("w\"x ü: error: "), "{e}");
}

/// OCANNL's names of the scaled initializations are the same ones.
#[test]
fn kaiming_and_xavier_are_he_and_glorot() {
    let x = data("x", "4|3");
    let y = param("k").output(&[2]).init(ParamInit::KAIMING) * &x
        + param("g").output(&[2]).init(ParamInit::XAVIER) * &x;
    let text = Tensor::module("f", &[&y]).unwrap();
    assert!(
        text.contains(r#"init = "he""#) && text.contains(r#"init = "glorot""#),
        "{text}"
    );
}
