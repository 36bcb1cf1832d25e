//! OCANNL's algebraic rewrites, as a table of named rules.
//!
//! Identities assume finite values, as OCANNL's simplifier does (`x * 0`
//! is 0, `x - x` is 0). Two of OCANNL's rules are wrong as written and are
//! corrected here: `c1 - (c2 + x)` is `(c1 - c2) - x` (not `+ x`), and
//! `(a / b) / c` is `a / (b * c)` (not `(a * c) / b`).

use egg::Rewrite;

use crate::lang::{ConstFold, Scalar};

/// A rule: its name and its two sides (one direction).
pub const RULES: &[(&str, &str, &str)] = &[
    // Commutativity and associativity, so that constants meet and fold.
    ("add-commute", "(add ?a ?b)", "(add ?b ?a)"),
    ("mul-commute", "(mul ?a ?b)", "(mul ?b ?a)"),
    ("add-assoc", "(add (add ?a ?b) ?c)", "(add ?a (add ?b ?c))"),
    ("mul-assoc", "(mul (mul ?a ?b) ?c)", "(mul ?a (mul ?b ?c))"),
    // Neutral and absorbing elements.
    ("add-0", "(add ?x 0)", "?x"),
    ("sub-0", "(sub ?x 0)", "?x"),
    ("mul-1", "(mul ?x 1)", "?x"),
    ("mul-0", "(mul ?x 0)", "0"),
    ("div-1", "(div ?x 1)", "?x"),
    ("sub-self", "(sub ?x ?x)", "0"),
    ("identity", "(identity ?x)", "?x"),
    // Signs.
    ("sub-as-neg", "(add ?a (neg ?b))", "(sub ?a ?b)"),
    ("neg-neg", "(neg (neg ?x))", "?x"),
    ("mul-neg-1", "(mul ?x -1)", "(neg ?x)"),
    // Constants moved together (the corrected OCANNL rules among them).
    (
        "sub-of-add",
        "(sub ?c1 (add ?c2 ?x))",
        "(sub (sub ?c1 ?c2) ?x)",
    ),
    (
        "add-of-sub",
        "(add (sub ?x ?c1) ?c2)",
        "(add ?x (sub ?c2 ?c1))",
    ),
    ("div-of-div", "(div (div ?a ?b) ?c)", "(div ?a (mul ?b ?c))"),
    ("mul-of-div", "(mul (div ?a ?b) ?c)", "(div (mul ?a ?c) ?b)"),
    // Small integer powers as products.
    ("pow-0", "(pow ?x 0)", "1"),
    ("pow-1", "(pow ?x 1)", "?x"),
    ("pow-2", "(pow ?x 2)", "(mul ?x ?x)"),
    ("pow-3", "(pow ?x 3)", "(mul ?x (mul ?x ?x))"),
    ("pow-neg-1", "(pow ?x -1)", "(recip ?x)"),
    // Fused multiply-add.
    ("fma", "(add (mul ?a ?b) ?c)", "(fma ?a ?b ?c)"),
    ("fma-back", "(fma ?a ?b ?c)", "(add (mul ?a ?b) ?c)"),
    // Reciprocals.
    ("div-as-recip", "(div 1 ?x)", "(recip ?x)"),
    ("recip-sqrt", "(recip (sqrt ?x))", "(recip_sqrt ?x)"),
];

/// The rules for the runner.
pub fn rules() -> Vec<Rewrite<Scalar, ConstFold>> {
    RULES
        .iter()
        .map(|(name, lhs, rhs)| {
            let lhs: egg::Pattern<Scalar> = lhs.parse().expect("rule patterns parse");
            let rhs: egg::Pattern<Scalar> = rhs.parse().expect("rule patterns parse");
            Rewrite::new(*name, lhs, rhs).expect("valid rules")
        })
        .collect()
}
