//! User names never reach SSA names: data and params named like generated
//! values, or alike once sanitized, still make a module that parses.

use melior::ir::Module;
use ocannl::*;

/// Parses (which verifies) and runs `ocannl-verify`, with the diagnostics.
fn verify(text: &str) -> Result<(), String> {
    let context = ocannl_passes::new_context()?;
    let mut module = Module::parse(&context, text).ok_or_else(|| format!("does not parse:\n{text}"))?;
    ocannl_cpu::runtime::run_pipeline(&context, &mut module, "ocannl-verify")
}

#[test]
fn data_named_like_a_generated_value() {
    let x = data("t1", "4|3");
    let y = param("w").output(&[2]) * &x;
    let text = Tensor::module("f", &[&y]);
    verify(&text).unwrap();
}

#[test]
fn names_alike_once_sanitized_are_distinct_data() {
    let a = data("a-b", "4|3");
    let b = data("a_b", "4|3");
    let y = &a + &b;
    let text = Tensor::module("f", &[&y]);
    verify(&text).unwrap();
}
