//! The checked-in IRDL files and dialect reference are what the tables
//! generate; the reference's grammar examples parse as they say; every
//! verifier rule has a test case. `OCANNL_BLESS=1` rewrites the generated
//! files instead of failing.

use std::path::{Path, PathBuf};

use ocannl_dialect_spec::{dialects, doc, irdl, Dialect};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compares `path` (relative to the repository root) with `expected`, or
/// rewrites it under `OCANNL_BLESS=1`.
fn check_generated(path: &str, expected: &str) {
    let file = root().join(path);
    if std::env::var_os("OCANNL_BLESS").is_some() {
        std::fs::write(&file, expected).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
        return;
    }
    let actual = std::fs::read_to_string(&file).unwrap_or_default();
    if actual != expected {
        let line = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(actual.lines().count().min(expected.lines().count()));
        panic!(
            "{path} differs from what dialects/spec generates (first at line {}):\n  file:      {:?}\n  generated: {:?}\nrun `OCANNL_BLESS=1 cargo test -p ocannl-dialect-spec` to regenerate it",
            line + 1,
            actual.lines().nth(line).unwrap_or("<end of file>"),
            expected.lines().nth(line).unwrap_or("<end of file>"),
        );
    }
}

#[test]
fn irdl_files_are_generated() {
    for d in dialects() {
        check_generated(d.irdl_path, &irdl::generate(d));
    }
}

#[test]
fn reference_is_generated() {
    check_generated("docs/dialects.md", &doc::generate(&dialects()));
}

#[test]
fn closed_sets_are_the_op_vocabulary() {
    use ocannl_ops::{Accum, BinaryOp, UnaryOp};
    let text = irdl::generate(&ocannl_dialect_spec::shape::DIALECT);
    for o in UnaryOp::ALL {
        assert!(
            text.contains(&format!("irdl.is \"{}\"", o.name())),
            "{o} missing"
        );
    }
    for o in BinaryOp::ALL {
        assert!(
            text.contains(&format!("irdl.is \"{}\"", o.name())),
            "{o} missing"
        );
    }
    let text = irdl::generate(&ocannl_dialect_spec::assign::DIALECT);
    for o in BinaryOp::ALL {
        assert!(text.contains(&format!(
            "%op_{} = irdl.is \"{}\"",
            o.assign_name(),
            o.assign_name()
        )));
    }
    for a in Accum::ALL {
        assert!(text.contains(&format!("%accum_{} = irdl.is \"{}\"", a.name(), a.name())));
    }
    // The tensor-level reductions never overwrite.
    let shape = irdl::generate(&ocannl_dialect_spec::shape::DIALECT);
    assert!(!shape.contains("irdl.is \"assign\""));
}

#[test]
fn shape_examples_parse() {
    for (text, _) in doc::SHAPE_EXAMPLES {
        if *text == "?" {
            continue;
        }
        ocannl_shape::parse_slot(text, ocannl_shape::Context::Shape)
            .unwrap_or_else(|e| panic!("shape example {text:?}: {e}"));
    }
    for (text, error) in doc::SHAPE_ERRORS {
        let e = ocannl_shape::parse_slot(text, ocannl_shape::Context::Shape)
            .expect_err(&format!("{text:?} should not parse"));
        assert!(
            e.to_string().contains(error),
            "{text:?}: {e} lacks {error:?}"
        );
    }
}

#[test]
fn einsum_examples_parse() {
    for (text, _) in doc::EINSUM_EXAMPLES {
        ocannl_shape::parse_einsum(text).unwrap_or_else(|e| panic!("einsum example {text:?}: {e}"));
    }
    for (text, error) in doc::EINSUM_ERRORS {
        let e = ocannl_shape::parse_einsum(text).expect_err(&format!("{text:?} should not parse"));
        assert!(
            e.to_string().contains(error),
            "{text:?}: {e} lacks {error:?}"
        );
    }
}

/// Every `expected-error` message of the lit tests under `test/Dialect`.
fn expected_errors() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("test directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "mlir") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for line in text.lines() {
                    if let Some(i) = line.find("expected-error") {
                        out.push(line[i..].to_string());
                    }
                }
            }
        }
    }
    let mut out = vec![];
    walk(&root().join("test/Dialect"), &mut out);
    out
}

#[test]
fn every_rule_has_a_test_case() {
    let expected = expected_errors();
    let mut missing = vec![];
    let check = |d: &Dialect,
                 what: &str,
                 rules: &[ocannl_dialect_spec::Rule],
                 missing: &mut Vec<String>| {
        for r in rules {
            if !expected.iter().any(|e| e.contains(r.error)) {
                missing.push(format!("{}.{what}: \"{}\"", d.name, r.error));
            }
        }
    };
    for d in dialects() {
        for t in d.types {
            check(d, t.name, t.rules, &mut missing);
        }
        for op in d.ops {
            check(d, op.name, op.rules, &mut missing);
        }
    }
    assert!(
        missing.is_empty(),
        "verifier rules without an expected-error in test/Dialect: {missing:#?}"
    );
}

#[test]
fn ir_names_are_distinct_within_an_op() {
    for d in dialects() {
        for op in d.ops {
            let mut names: Vec<&str> = op.attrs.iter().map(|a| a.name).collect();
            names.extend(op.operands.iter().map(|v| v.name));
            names.extend(op.results.iter().map(|v| v.name));
            let mut sorted = names.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(
                sorted.len(),
                names.len(),
                "{}.{}: {names:?}",
                d.name,
                op.name
            );
        }
    }
}

#[test]
fn examples_use_their_op() {
    for d in dialects() {
        for op in d.ops {
            let full = format!("\"{}.{}\"", d.name, op.name);
            assert!(
                op.example.contains(&full),
                "the example of {full} does not use it"
            );
        }
    }
}
