//! One-line table tests of the rules, constant folding through the op
//! vocabulary, shared subexpressions, and a property test that simplifying
//! keeps values on random expressions.

use egg::{Id, Language, RecExpr, StopReason};
use ocannl_ops::SplitMix64;

use crate::{
    cost::cost_of, eval, lang, simplify, simplify_roots, simplify_with, Limits, Needs, Options,
    Precision, Rule, RULES,
};

/// The default options without the time limit: what a test computes never
/// depends on how loaded the machine is (the node and iteration limits
/// still bound the work).
fn untimed() -> Options {
    Options {
        limits: untimed_limits(),
        ..Options::default()
    }
}

fn untimed_limits() -> Limits {
    Limits {
        time: std::time::Duration::from_secs(3600),
        ..Limits::default()
    }
}

fn simp(s: &str) -> String {
    let e: RecExpr<lang::Scalar> = s.parse().unwrap();
    simplify(&e, untimed_limits()).expr.to_string()
}

macro_rules! table {
    ($($name:ident: $from:literal => $to:literal),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                assert_eq!(simp($from), $to, "{}", $from);
            }
        )*
    };
}

table! {
    add_zero: "(add x0 0)" => "x0",
    mul_one: "(mul 1 x0)" => "x0",
    mul_zero: "(mul x0 0)" => "0",
    div_one: "(div x0 1)" => "x0",
    folds_constants: "(add 1 (mul 2 3))" => "7",
    folds_through_the_vocabulary: "(add (relu -3) (max 2 5))" => "5",
    reassociates_constants: "(add (add x0 1) 2)" => "(add x0 3)",
    corrected_sub_rule: "(sub 5 (add 2 x0))" => "(sub 3 x0)",
    corrected_div_rule: "(div (div x0 2) 4)" => "(div x0 8)",
    square_as_product: "(pow x0 2)" => "(mul x0 x0)",
    makes_fma: "(add (mul x0 x1) x2)" => "(fma x0 x1 x2)",
    identity_goes: "(identity (neg (neg x0)))" => "x0",
}

#[test]
fn the_language_is_the_vocabulary() {
    assert!(lang::covers_vocabulary());
}

#[test]
fn common_subexpressions_are_shared() {
    let e: RecExpr<lang::Scalar> = "(add (exp x0) (mul (exp x0) x1))".parse().unwrap();
    let s = simplify(&e, untimed_limits());
    // exp is computed once.
    assert_eq!(
        s.expr
            .as_ref()
            .iter()
            .filter(|n| matches!(n, lang::Scalar::Exp(_)))
            .count(),
        1
    );
    assert!(s.cost_after <= cost_of(&e));
}

#[test]
fn runs_report_why_they_stopped() {
    let e: RecExpr<lang::Scalar> = "(add x0 0)".parse().unwrap();
    assert!(matches!(
        simplify(&e, untimed_limits()).stop,
        StopReason::Saturated
    ));
    // A long sum under a tiny node limit stops at the limit, still correct.
    let mut s = "x0".to_string();
    for k in 1..12 {
        s = format!("(add {s} (mul x{k} {k}))");
    }
    let e: RecExpr<lang::Scalar> = s.parse().unwrap();
    let small = Limits {
        nodes: 200,
        ..untimed_limits()
    };
    let r = simplify(&e, small);
    assert!(matches!(r.stop, StopReason::NodeLimit(_)), "{:?}", r.stop);
    let args: Vec<f64> = (0..12).map(|k| 0.5 + k as f64).collect();
    assert!((eval(&r.expr, &args).unwrap() - eval(&e, &args).unwrap()).abs() < 1e-9);
}

/// Random expressions over a few operands: the simplified expression
/// computes the same values (within rounding) and costs no more.
#[test]
fn simplifying_keeps_values() {
    let mut rng = SplitMix64::new(77);
    let leaves = ["x0", "x1", "x2", "0", "1", "2", "-1", "0.5"];
    let ops1 = ["neg", "exp", "tanh", "relu", "sqrt", "identity"];
    let ops2 = ["add", "sub", "mul", "div", "max", "pow"];
    fn gen(rng: &mut SplitMix64, depth: u32, l: &[&str], o1: &[&str], o2: &[&str]) -> String {
        if depth == 0 || rng.below(4) == 0 {
            return l[rng.below(l.len() as u64) as usize].to_string();
        }
        if rng.below(3) == 0 {
            let op = o1[rng.below(o1.len() as u64) as usize];
            format!("({op} {})", gen(rng, depth - 1, l, o1, o2))
        } else {
            let op = o2[rng.below(o2.len() as u64) as usize];
            format!(
                "({op} {} {})",
                gen(rng, depth - 1, l, o1, o2),
                gen(rng, depth - 1, l, o1, o2)
            )
        }
    }
    let mut checked = 0;
    for _ in 0..300 {
        let text = gen(&mut rng, 4, &leaves, &ops1, &ops2);
        let e: RecExpr<lang::Scalar> = text.parse().unwrap();
        // Wherever saturation stops (the default limits, time included),
        // the result keeps the values.
        let s = simplify(&e, Limits::default());
        assert!(s.cost_after <= s.cost_before + 1e-9, "{text}: {}", s.expr);
        for _ in 0..5 {
            let args: Vec<f64> = (0..3).map(|_| 0.25 + 2.0 * rng.next_f64()).collect();
            let (a, b) = (eval(&e, &args).unwrap(), eval(&s.expr, &args).unwrap());
            // Rewrites assume finite values (x * 0 = 0, x - x = 0).
            if a.is_finite() && b.is_finite() {
                assert!(
                    (a - b).abs() <= 1e-6 * a.abs().max(1.0),
                    "{text} = {a}, but {} = {b} at {args:?}",
                    s.expr
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "only {checked} finite evaluations");
}

// ---------------------------------------------------------------------
// Exact mode (fast-math off), several roots, formats.

fn simp_exact(s: &str, precision: Precision) -> String {
    let e: RecExpr<lang::Scalar> = s.parse().unwrap();
    let options = Options {
        precision,
        ..untimed()
    };
    simplify_with(&e, &options).expr.to_string()
}

macro_rules! exact_table {
    ($($name:ident: $from:literal => $to:literal),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                assert_eq!(simp_exact($from, Precision::F64), $to, "{}", $from);
            }
        )*
    };
}

exact_table! {
    exact_mul_one: "(mul x0 1)" => "x0",
    exact_div_one: "(div x0 1)" => "x0",
    exact_keeps_mul_zero: "(mul x0 0)" => "(mul x0 0)",
    exact_keeps_sub_self: "(sub x0 x0)" => "(sub x0 x0)",
    // x + 0 is not x for x = -0; x + -0 is.
    exact_keeps_add_zero: "(add x0 0)" => "(add x0 0)",
    exact_add_minus_zero: "(add x0 -0)" => "x0",
    exact_sub_zero: "(sub x0 0)" => "x0",
    exact_neg_neg: "(neg (neg x0))" => "x0",
    exact_folds: "(add 1 (mul 2 3))" => "7",
    exact_keeps_library_functions: "(exp 1)" => "(exp 1)",
    exact_no_reassociation: "(add (add x0 1) 2)" => "(add (add x0 1) 2)",
    exact_no_fma: "(add (mul x0 x1) x2)" => "(add (mul x0 x1) x2)",
    exact_keeps_pow: "(pow x0 2)" => "(pow x0 2)",
    exact_pow_one: "(pow x0 1)" => "x0",
    exact_double_as_sum: "(mul x0 2)" => "(add x0 x0)",
}

#[test]
fn exact_folding_rounds_to_the_format() {
    // 0.1f32 + 0.2f32, rounded to f32 (not the f64 sum).
    let (a, b) = (0.1f32 as f64, 0.2f32 as f64);
    let want = (0.1f32 + 0.2f32) as f64;
    assert_ne!(a + b, want);
    let text = format!("(add {a} {b})");
    assert_eq!(simp_exact(&text, Precision::F32), want.to_string());
    // A fused multiply-add folds exactly only in f64.
    assert_eq!(simp_exact("(fma 2 3 1)", Precision::F64), "7");
    assert_eq!(simp_exact("(fma 2 3 1)", Precision::F32), "(fma 2 3 1)");
}

#[test]
fn formats_round_to_nearest_even() {
    let p2 = |k: i32| 2f64.powi(k);
    // f16: 11 significand bits, normal from 2^-14, largest 65504.
    assert_eq!(Precision::F16.round(1.0 + p2(-11)), 1.0);
    assert_eq!(Precision::F16.round(1.0 + 3.0 * p2(-11)), 1.0 + p2(-9));
    assert_eq!(Precision::F16.round(65504.0), 65504.0);
    assert_eq!(Precision::F16.round(65519.0), 65504.0);
    assert_eq!(Precision::F16.round(65520.0), f64::INFINITY);
    assert_eq!(Precision::F16.round(-65520.0), f64::NEG_INFINITY);
    assert_eq!(Precision::F16.round(p2(-24)), p2(-24));
    assert_eq!(Precision::F16.round(p2(-25)), 0.0);
    assert_eq!(Precision::F16.round(3.0 * p2(-25)), p2(-23));
    // bf16: 8 significand bits, f32's exponents.
    assert_eq!(Precision::BF16.round(1.0 + p2(-8)), 1.0);
    assert_eq!(Precision::BF16.round(1.0 + 3.0 * p2(-8)), 1.0 + p2(-6));
    assert_eq!(Precision::BF16.round(p2(-133)), p2(-133));
    assert_eq!(Precision::BF16.round(f32::MAX as f64), f64::INFINITY);
    assert_eq!(Precision::F32.round(0.1), 0.1f32 as f64);
    assert_eq!(Precision::F64.round(0.1), 0.1);
    // Every f16 value is kept.
    for bits in 0u16..0x7c00 {
        let v = f16_value(bits);
        assert_eq!(Precision::F16.round(v), v, "{bits:#x}");
    }
}

/// The value of f16 bits (finite ones).
fn f16_value(bits: u16) -> f64 {
    let e = ((bits >> 10) & 0x1f) as i32;
    let m = (bits & 0x3ff) as f64;
    if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(e - 15)
    }
}

#[test]
fn several_roots_share_subexpressions() {
    // Two roots, each with its own `exp x0` (as two ops compute it twice).
    let dag: RecExpr<lang::Scalar> = "(add (add (exp x0) 1) (mul (exp x0) x1))".parse().unwrap();
    let nodes = dag.as_ref();
    let root_of = |pred: fn(&lang::Scalar) -> bool| Id::from(nodes.iter().position(pred).unwrap());
    let r1 = root_of(|n| matches!(n, lang::Scalar::Add(_)));
    let r2 = root_of(|n| matches!(n, lang::Scalar::Mul(_)));
    let s = simplify_roots(&dag, &[r1, r2], &untimed());
    let exps = s
        .expr
        .as_ref()
        .iter()
        .filter(|n| matches!(n, lang::Scalar::Exp(_)))
        .count();
    assert_eq!(exps, 1, "{}", s.expr);
    assert!(s.cost_after < s.cost_before);
    assert_eq!(s.roots.len(), 2);
    let args = [0.3, 1.7];
    let at = |e: &RecExpr<lang::Scalar>, id: Id| {
        let sub: RecExpr<lang::Scalar> = e[id].build_recexpr(|c| e[c].clone());
        eval(&sub, &args).unwrap()
    };
    assert_eq!(at(&s.expr, s.roots[0]), at(&dag, r1));
    assert_eq!(at(&s.expr, s.roots[1]), at(&dag, r2));
    assert!(matches!(s.stop, StopReason::Saturated));
    assert!(s.iterations >= 1 && s.nodes >= 4);
}

// ---------------------------------------------------------------------
// Every rule of the table, on its own.

/// A side of a rule with its pattern variables as operands `x0, x1, ...`
/// (numbered in `vars` order).
fn instantiate(side: &str, vars: &[String]) -> RecExpr<lang::Scalar> {
    let text: Vec<String> = side
        .replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(|t| match vars.iter().position(|v| v == t) {
            Some(k) => format!("x{k}"),
            None => t.to_string(),
        })
        .collect();
    text.join(" ").parse().unwrap()
}

fn vars_of(rule: &Rule) -> Vec<String> {
    let mut vars: Vec<String> = vec![];
    for side in [rule.lhs, rule.rhs] {
        for t in side.replace(['(', ')'], " ").split_whitespace() {
            if t.starts_with('?') && !vars.iter().any(|v| v == t) {
                vars.push(t.to_string());
            }
        }
    }
    vars
}

fn same_ieee(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

const SPECIALS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0,
    0.5,
    3.0,
    -7.25,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE / 8.0,
    f64::MAX,
    -f64::MAX,
    1e-300,
];

/// Every tuple of `n` specials.
fn special_tuples(n: usize) -> Vec<Vec<f64>> {
    let mut out = vec![vec![]];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|t| {
                SPECIALS.iter().map(move |&x| {
                    let mut t = t.clone();
                    t.push(x);
                    t
                })
            })
            .collect();
    }
    out
}

/// A random finite value away from zero, of either sign, in [0.1, 10).
fn random_finite(rng: &mut SplitMix64) -> f64 {
    let m = 0.1 * 100f64.powf(rng.next_f64());
    if rng.below(2) == 0 {
        m
    } else {
        -m
    }
}

/// Each rule's two sides, on random finite inputs, agree within rounding;
/// the exact rules agree bit for bit on every input, infinities, NaNs,
/// signed zeros and subnormals included; and each fast-math rule does
/// change some value, for the reason it gives (so none is marked
/// fast-math for nothing). Rules needing `ApproxFunctions` replace library
/// functions, which may be correctly rounded here and not on a target: they
/// are only checked within rounding.
#[test]
fn every_rule_keeps_values() {
    let mut rng = SplitMix64::new(2024);
    let mut names = std::collections::HashSet::new();
    for rule in RULES {
        assert!(names.insert(rule.name), "two rules named {}", rule.name);
        let vars = vars_of(rule);
        let (lhs, rhs) = (instantiate(rule.lhs, &vars), instantiate(rule.rhs, &vars));
        let both = |args: &[f64]| (eval(&lhs, args).unwrap(), eval(&rhs, args).unwrap());
        // Random finite values: equal within rounding.
        for _ in 0..2000 {
            let args: Vec<f64> = vars.iter().map(|_| random_finite(&mut rng)).collect();
            let (a, b) = both(&args);
            let scale = 1.0 + a.abs() + args.iter().map(|x| x.abs()).sum::<f64>();
            assert!(
                same_ieee(a, b) || (a - b).abs() <= 1e-12 * scale * scale,
                "{}: {} = {a} but {} = {b} at {args:?}",
                rule.name,
                rule.lhs,
                rule.rhs
            );
        }
        let specials = special_tuples(vars.len());
        match rule.needs {
            Needs::Exact => {
                let mut tuples = specials;
                tuples.extend(
                    (0..2000).map(|_| vars.iter().map(|_| random_finite(&mut rng)).collect()),
                );
                for args in tuples {
                    let (a, b) = both(&args);
                    assert!(
                        same_ieee(a, b),
                        "{} is marked exact, but {} = {a} and {} = {b} at {args:?}",
                        rule.name,
                        rule.lhs,
                        rule.rhs
                    );
                }
            }
            Needs::ApproxFunctions => {}
            needs => {
                // A counterexample among the inputs the property excludes.
                let excluded: Vec<Vec<f64>> = match needs {
                    Needs::FiniteValues => specials
                        .into_iter()
                        .filter(|t| t.iter().any(|x| !x.is_finite()))
                        .collect(),
                    Needs::NoSignedZeros => specials
                        .into_iter()
                        .filter(|t| t.iter().all(|x| x.is_finite()) && t.contains(&0.0))
                        .collect(),
                    // Rounding: ordinary finite values.
                    _ => (0..5000)
                        .map(|_| vars.iter().map(|_| random_finite(&mut rng)).collect())
                        .collect(),
                };
                let found = excluded.iter().find(|args| {
                    let (a, b) = both(args);
                    !same_ieee(a, b)
                });
                assert!(
                    found.is_some(),
                    "{} is marked {needs:?} but keeps values exactly on every input tried",
                    rule.name
                );
            }
        }
    }
}

#[test]
fn exact_rules_are_the_ones_without_fast_math() {
    let exact = crate::rules::rules_for(false);
    let all = crate::rules::rules_for(true);
    assert_eq!(all.len(), RULES.len());
    assert_eq!(
        exact.len(),
        RULES.iter().filter(|r| r.needs == Needs::Exact).count()
    );
    // OCANNL's two wrong rules stay corrected.
    let find = |n: &str| RULES.iter().find(|r| r.name == n).unwrap();
    assert_eq!(find("sub-of-add").rhs, "(sub (sub ?c1 ?c2) ?x)");
    assert_eq!(find("div-of-div").rhs, "(div ?a (mul ?b ?c))");
}

/// A long chain (one root, thousands of nodes) simplifies to the same
/// values; extraction is linear in it.
#[test]
fn long_chains_simplify() {
    let mut dag: RecExpr<lang::Scalar> = RecExpr::default();
    let x = dag.add(lang::Scalar::Arg("x0".into()));
    let y = dag.add(lang::Scalar::Arg("x1".into()));
    let one = dag.add(lang::Scalar::Num(lang::Constant::new(1.0)));
    let mut prev = x;
    for i in 0..3000 {
        prev = dag.add(match i % 3 {
            0 => lang::Scalar::Add([prev, y]),
            1 => lang::Scalar::Mul([prev, one]),
            _ => lang::Scalar::Sub([prev, x]),
        });
    }
    let s = simplify_roots(&dag, &[prev], &untimed());
    assert_eq!(s.cost_before, 3500.0);
    assert_eq!(s.cost_after, 2000.0);
    let args = [0.75, -1.25];
    assert_eq!(eval(&s.expr, &args), eval(&dag, &args));
}

/// The `ocannl-simplify` pass declares these as its options' defaults
/// (`node-limit`, `iter-limit`, `time-limit-ms`), and docs/passes.md shows them:
/// change them together.
#[test]
fn default_limits_are_the_pass_options_defaults() {
    let d = Limits::default();
    assert_eq!(
        (d.nodes, d.iterations, d.time),
        (10_000, 30, std::time::Duration::from_millis(50))
    );
}
