//! OCANNL's algebraic rewrites, as a table of named rules.
//!
//! Each rule says what it needs of the values it rewrites ([`Needs`]):
//! [`Needs::Exact`] rules give the same IEEE value as what they replace for
//! every input (infinities, NaNs and signed zeros included; NaN payloads
//! aside), and are always on. The others hold for real numbers but change
//! IEEE values (rounding, infinities, NaNs, the sign of zero) and run only
//! under fast-math, as OCANNL's simplifier runs them all (`x * 0` is 0,
//! `x - x` is 0). Two of OCANNL's rules are wrong as written and are
//! corrected here: `c1 - (c2 + x)` is `(c1 - c2) - x` (not `+ x`), and
//! `(a / b) / c` is `a / (b * c)` (not `(a * c) / b`).

use egg::Rewrite;

use crate::lang::{ConstFold, Scalar};

/// What a rule needs of its inputs to keep values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Needs {
    /// Nothing: both sides give the same IEEE value for every input.
    Exact,
    /// Finite values (no infinity or NaN), signs of zero ignored:
    /// `x * 0 = 0` and `x - x = 0` fail for infinite `x`.
    FiniteValues,
    /// Signs of zero ignored: `-0 + 0` is `+0`, not `-0`.
    NoSignedZeros,
    /// Reassociation: the rounding of intermediate results changes.
    Reassociation,
    /// Contraction into a fused multiply-add (one rounding instead of two).
    Contraction,
    /// Approximate functions: a library's `pow` or `rsqrt` replaced by
    /// products and reciprocals, which round differently.
    ApproxFunctions,
}

impl Needs {
    /// Whether the rule runs only under fast-math.
    pub fn fast_math(self) -> bool {
        self != Needs::Exact
    }
}

/// A rule: its name, its two sides (one direction) and what it needs.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub name: &'static str,
    pub lhs: &'static str,
    pub rhs: &'static str,
    pub needs: Needs,
}

const fn rule(name: &'static str, lhs: &'static str, rhs: &'static str, needs: Needs) -> Rule {
    Rule {
        name,
        lhs,
        rhs,
        needs,
    }
}

use Needs::*;

/// The table.
pub const RULES: &[Rule] = &[
    // Commutativity (exact in IEEE), and associativity, so that constants
    // meet and fold.
    rule("add-commute", "(add ?a ?b)", "(add ?b ?a)", Exact),
    rule("mul-commute", "(mul ?a ?b)", "(mul ?b ?a)", Exact),
    rule(
        "add-assoc",
        "(add (add ?a ?b) ?c)",
        "(add ?a (add ?b ?c))",
        Reassociation,
    ),
    rule(
        "mul-assoc",
        "(mul (mul ?a ?b) ?c)",
        "(mul ?a (mul ?b ?c))",
        Reassociation,
    ),
    // Neutral and absorbing elements.
    rule("add-0", "(add ?x 0)", "?x", NoSignedZeros),
    rule("add-neg-0", "(add ?x -0)", "?x", Exact),
    rule("sub-0", "(sub ?x 0)", "?x", Exact),
    rule("mul-1", "(mul ?x 1)", "?x", Exact),
    rule("mul-0", "(mul ?x 0)", "0", FiniteValues),
    rule("div-1", "(div ?x 1)", "?x", Exact),
    rule("sub-self", "(sub ?x ?x)", "0", FiniteValues),
    rule("identity", "(identity ?x)", "?x", Exact),
    // Simplification runs after backprop: a stopped gradient is its operand.
    rule("stop-gradient", "(stop_gradient ?x)", "?x", Exact),
    rule("mul-2", "(mul ?x 2)", "(add ?x ?x)", Exact),
    // Signs.
    rule("sub-as-neg", "(add ?a (neg ?b))", "(sub ?a ?b)", Exact),
    rule("sub-neg", "(sub ?a (neg ?b))", "(add ?a ?b)", Exact),
    rule("neg-neg", "(neg (neg ?x))", "?x", Exact),
    rule("mul-neg-1", "(mul ?x -1)", "(neg ?x)", Exact),
    rule("div-neg-1", "(div ?x -1)", "(neg ?x)", Exact),
    // Constants moved together (the corrected OCANNL rules among them).
    rule(
        "sub-of-add",
        "(sub ?c1 (add ?c2 ?x))",
        "(sub (sub ?c1 ?c2) ?x)",
        Reassociation,
    ),
    rule(
        "add-of-sub",
        "(add (sub ?x ?c1) ?c2)",
        "(add ?x (sub ?c2 ?c1))",
        Reassociation,
    ),
    rule(
        "div-of-div",
        "(div (div ?a ?b) ?c)",
        "(div ?a (mul ?b ?c))",
        Reassociation,
    ),
    rule(
        "mul-of-div",
        "(mul (div ?a ?b) ?c)",
        "(div (mul ?a ?c) ?b)",
        Reassociation,
    ),
    // Powers: `x^0` and `x^1` are exact (IEEE `pow`), small integer powers
    // become products.
    rule("pow-0", "(pow ?x 0)", "1", Exact),
    rule("pow-1", "(pow ?x 1)", "?x", Exact),
    rule("pow-2", "(pow ?x 2)", "(mul ?x ?x)", ApproxFunctions),
    rule(
        "pow-3",
        "(pow ?x 3)",
        "(mul ?x (mul ?x ?x))",
        ApproxFunctions,
    ),
    rule("pow-neg-1", "(pow ?x -1)", "(recip ?x)", ApproxFunctions),
    // Fused multiply-add.
    rule("fma", "(add (mul ?a ?b) ?c)", "(fma ?a ?b ?c)", Contraction),
    rule(
        "fma-back",
        "(fma ?a ?b ?c)",
        "(add (mul ?a ?b) ?c)",
        Contraction,
    ),
    // Reciprocals.
    rule("div-as-recip", "(div 1 ?x)", "(recip ?x)", Exact),
    rule(
        "recip-sqrt",
        "(recip (sqrt ?x))",
        "(recip_sqrt ?x)",
        ApproxFunctions,
    ),
];

/// The rules for the runner: the exact ones, and with `fast_math` every
/// rule.
pub fn rules_for(fast_math: bool) -> Vec<Rewrite<Scalar, ConstFold>> {
    RULES
        .iter()
        .filter(|r| fast_math || !r.needs.fast_math())
        .map(|r| {
            let lhs: egg::Pattern<Scalar> = r.lhs.parse().expect("rule patterns parse");
            let rhs: egg::Pattern<Scalar> = r.rhs.parse().expect("rule patterns parse");
            Rewrite::new(r.name, lhs, rhs).expect("valid rules")
        })
        .collect()
}

/// [`rules_for`], built once per process: a deep model's module has
/// thousands of blocks, and parsing and compiling the rules' patterns for
/// each took half of the pass's time.
pub fn shared_rules(fast_math: bool) -> &'static [Rewrite<Scalar, ConstFold>] {
    static EXACT: std::sync::OnceLock<Vec<Rewrite<Scalar, ConstFold>>> = std::sync::OnceLock::new();
    static FAST: std::sync::OnceLock<Vec<Rewrite<Scalar, ConstFold>>> = std::sync::OnceLock::new();
    let cell = if fast_math { &FAST } else { &EXACT };
    cell.get_or_init(|| rules_for(fast_math))
}

/// Every rule (OCANNL's simplifier: fast-math).
pub fn rules() -> Vec<Rewrite<Scalar, ConstFold>> {
    rules_for(true)
}
