//! One-line table tests of the rules, constant folding through the op
//! vocabulary, shared subexpressions, and a property test that simplifying
//! keeps values on random expressions.

use egg::{RecExpr, StopReason};
use ocannl_ops::SplitMix64;

use crate::{cost::cost_of, eval, lang, simplify, Limits};

fn simp(s: &str) -> String {
    let e: RecExpr<lang::Scalar> = s.parse().unwrap();
    simplify(&e, Limits::default()).expr.to_string()
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
    let s = simplify(&e, Limits::default());
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
        simplify(&e, Limits::default()).stop,
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
        ..Limits::default()
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
