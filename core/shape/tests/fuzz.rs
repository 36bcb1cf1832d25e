//! Property-based fuzzing (proptest) of the notation parsers, of shape
//! inference over random graphs and of the projections of the solved
//! graphs: no input panics, every error has a message, inference never
//! reports an internal error (a solution that violates an op's
//! constraints), and a solved graph is concrete and has projections.
//!
//! `cargo test` runs a short fixed-seed version. To fuzz for long:
//!
//! ```text
//! PROPTEST_CASES=200000 PROPTEST_RNG_SEED=$RANDOM \
//!     cargo test --release -p ocannl-shape --test fuzz
//! ```
//!
//! A failure prints the smallest input found (proptest shrinks it).

use std::sync::Arc;

use ocannl_shape::{
    infer, parse_einsum, parse_shape, parse_slot, projections::derive, Context, InferErrorKind,
    Node, NodeDecl, VarScope,
};
use proptest::{
    prelude::*,
    test_runner::{Config, RngSeed},
};

/// The run's configuration: `cases` with a fixed seed, unless
/// `PROPTEST_CASES` / `PROPTEST_RNG_SEED` say otherwise.
fn config(cases: u32) -> Config {
    let d = Config::default();
    Config {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            d.cases
        } else {
            cases
        },
        rng_seed: if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
            d.rng_seed
        } else {
            RngSeed::Fixed(0x0CA_441)
        },
        failure_persistence: None,
        ..d
    }
}

/// Pieces of the shape and einsum notations, sizes at the edges of the
/// integer types included.
const TOKENS: &[&str] = &[
    "i",
    "j",
    "k",
    "o",
    "ab",
    "x",
    "0",
    "1",
    "2",
    "3",
    "7",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    ",",
    ",",
    ";",
    "|",
    "->",
    "=>",
    "...",
    "..v..",
    "..w..",
    "_",
    "*",
    "+",
    "=",
    "<",
    "=+",
    "<+",
    "2*o",
    "o+k",
    "2*o=+k",
    "rgb=3",
    "q=1",
    "i0",
    "i2",
    " ",
    "-",
    "(",
    "#",
];

fn tokens(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..max).prop_map(|t| t.concat())
}

/// Text of the notation: token soup or arbitrary characters.
fn notation() -> impl Strategy<Value = String> {
    prop_oneof![4 => tokens(14), 1 => ".{0,20}"]
}

/// Shape annotations: mostly well formed, small sizes, sometimes huge.
fn shape_text() -> impl Strategy<Value = String> {
    let dim = prop_oneof![
        6 => (1u64..5).prop_map(|d| d.to_string()),
        1 => Just("...".to_string()),
        1 => Just("..v..".to_string()),
        1 => Just("n".to_string()),
        1 => prop::sample::select(&["0", "18446744073709551615", "4294967296", "q=1", "rgb=3"][..])
            .prop_map(str::to_string),
    ];
    let row = prop::collection::vec(dim, 0..3).prop_map(|r| r.join(","));
    prop_oneof![
        3 => Just("?".to_string()),
        4 => (row.clone(), row.clone(), row).prop_map(|(b, i, o)| {
            let mut s = String::new();
            if !b.is_empty() {
                s += &format!("{b}|");
            }
            if !i.is_empty() {
                s += &format!("{i}->");
            }
            s + &o
        }),
        1 => tokens(8),
    ]
}

/// Einsum specs: common forms and token soup.
fn spec_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(&[
            "i => 0", "...|... => 0", "...|...->... => ...->...", "ij;jk=>ik", "i;i=>i",
            "...|i->j; j->k => ...|i->k", "i=>i0", "i2=>i", "2*o+k; k => o", "...|2*o=+k; k => ...|o",
            "...|o<+k; k => ...|o", "b|i; i => b|0", "..v..|i; i => ..v..|i", "rgb=3 => rgb",
            "i,j => j,i", "...,i => i", "_,i => i",
            // Convolutions (valid, padded, strided, dilated) and strided
            // reads, over operands whose axes may be 1 and broadcast.
            "o<+k; k => o", "o=+k; k => o", "2*o<+2*k; k => o", "...|3*o=+2*k; k => ...|o",
            "2*i => i", "2*i+1 => i", "b|o<+k; k => b|o",
        ][..]).prop_map(str::to_string),
        1 => tokens(10),
    ]
}

/// A node of a random graph, before its operands are chosen.
#[derive(Clone, Debug)]
struct Plan {
    kind: u8,
    picks: [u32; 3],
    shape: String,
    spec: String,
    elems: Option<u64>,
}

fn plan() -> impl Strategy<Value = Plan> {
    (
        0u8..9,
        any::<[u32; 3]>(),
        shape_text(),
        spec_text(),
        prop::option::weighted(0.1, 1u64..13),
    )
        .prop_map(|(kind, picks, shape, spec, elems)| Plan {
            kind,
            picks,
            shape,
            spec,
            elems,
        })
}

/// A graph from plans: operands are earlier nodes; an unparsable spec
/// makes a pointwise node instead.
fn graph(plans: &[Plan]) -> Vec<NodeDecl> {
    let mut nodes: Vec<NodeDecl> = vec![];
    for (i, p) in plans.iter().enumerate() {
        let pick = |k: usize| p.picks[k] as usize % i.max(1);
        let node = match (i, p.kind) {
            (0, _) | (_, 0) => Node::Terminal { param: None },
            (_, 1) => Node::Terminal {
                param: Some(format!("p{i}")),
            },
            (_, 2) => Node::Pointwise(vec![pick(0)]),
            (_, 3) => Node::Pointwise(vec![pick(0), pick(1)]),
            (_, 4) => Node::Pointwise(vec![pick(0), pick(1), pick(2)]),
            (_, 5) => Node::Compose(pick(0), pick(1)),
            (_, 6) => Node::Transpose(pick(0)),
            (_, 7) => Node::BatchSlice(pick(0)),
            _ => match parse_einsum(&p.spec) {
                Ok(spec) => {
                    let ops = (0..spec.rhs.len()).map(pick).collect();
                    Node::Einsum(Arc::new(spec), ops)
                }
                Err(_) => Node::Pointwise(vec![pick(0)]),
            },
        };
        let elems = match node {
            Node::Terminal { param: None } => p.elems,
            _ => None,
        };
        nodes.push(NodeDecl {
            node,
            shape: p.shape.clone(),
            elems,
        });
    }
    nodes
}

proptest! {
    #![proptest_config(config(3000))]

    /// The parsers return a value or an error with a message.
    #[test]
    fn parsers_never_panic(text in notation()) {
        for ctx in [Context::Shape, Context::Einsum] {
            if let Err(e) = parse_slot(&text, ctx) {
                prop_assert!(!e.to_string().is_empty());
            }
        }
        if let Err(e) = parse_einsum(&text) {
            prop_assert!(!e.to_string().is_empty());
        }
        let mut solver = ocannl_shape::solver::Solver::new();
        if let Err(e) = parse_shape(&text, &mut VarScope::default(), &mut solver) {
            prop_assert!(!e.to_string().is_empty());
        }
    }
}

proptest! {
    #![proptest_config(config(1500))]

    /// Inference over random graphs: a concrete solution with projections
    /// for every op, or an error with a message that is not internal.
    #[test]
    fn inference_never_panics(plans in prop::collection::vec(plan(), 1..9)) {
        let nodes = graph(&plans);
        match infer(&nodes) {
            Err(e) => {
                prop_assert!(!e.message.is_empty());
                prop_assert!(e.kind != InferErrorKind::Internal, "internal error: {}", e.message);
            }
            Ok(inf) => {
                prop_assert_eq!(inf.shapes.len(), nodes.len());
                for (i, n) in nodes.iter().enumerate() {
                    let shape = &inf.shapes[i];
                    prop_assert!(shape.is_concrete(), "node {} is not concrete: {}", i, shape);
                    let operands: Vec<_> = n.node.operands().iter().map(|&j| &inf.shapes[j]).collect();
                    match derive(&n.node, shape, &operands) {
                        Ok(p) => {
                            // One index per axis, inside the axis over the
                            // iteration space (but for padded reads and
                            // slice symbols).
                            let tensors = std::iter::once(shape).chain(operands.iter().copied());
                            for (m, t) in std::iter::once(&p.lhs).chain(p.rhs.iter()).zip(tensors) {
                                let dims = t.to_dims().unwrap_or_default();
                                prop_assert_eq!(m.len(), dims.len());
                                for (e, &d) in m.iter().zip(&dims) {
                                    if e.is_padded() {
                                        continue;
                                    }
                                    if let Some((lo, hi)) = e.range(&p.space) {
                                        prop_assert!(lo >= 0 && (hi as u64) < d, "{} over {:?} leaves an axis of {}", e, p.space, d);
                                    }
                                }
                            }
                        }
                        // Only a fixed index beyond its axis is refused
                        // here: shapes that inference solved give every
                        // other index inside its axis.
                        Err(e) => prop_assert!(e.0.contains("the fixed index"), "{}", e),
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(config(1500))]

    /// Capturing an einsum's labels changes no shape, and pinning each
    /// captured name to its solution (`set_dim`: a dim's size, a row's
    /// total elements) changes none either: the constraints agree with
    /// the solution they were read from.
    #[test]
    fn captures_and_their_solutions_change_nothing(plans in prop::collection::vec(plan(), 1..9)) {
        use ocannl_shape::{infer_with_refs, RefConstraint, Refs};
        let nodes = graph(&plans);
        let Ok(plain) = infer(&nodes) else {
            return Ok(());
        };
        // The first einsum's labels, unless a declared shape names one
        // (capturing would tie them).
        let Some((i, spec)) = nodes.iter().enumerate().find_map(|(i, n)| match &n.node {
            Node::Einsum(spec, _) => Some((i, spec.clone())),
            _ => None,
        }) else {
            return Ok(());
        };
        let (dims, rows) = spec.names();
        let labels: Vec<String> = dims.into_iter().chain(rows).collect();
        let mut scope = VarScope::default();
        let mut solver = ocannl_shape::solver::Solver::new();
        for n in &nodes {
            let _ = parse_shape(&n.shape, &mut scope, &mut solver);
        }
        if labels.is_empty()
            || labels.iter().any(|l| scope.dims.contains_key(l) || scope.rows.contains_key(l))
        {
            return Ok(());
        }
        let shapes = |inf: &ocannl_shape::Inference| -> Vec<String> {
            inf.shapes.iter().map(|s| s.to_string()).collect()
        };
        let refs = Refs {
            captures: vec![(i, labels.clone())],
            ..Refs::default()
        };
        let captured = infer_with_refs(&nodes, &refs);
        prop_assert!(captured.is_ok(), "capturing failed: {:?}", captured.err());
        let captured = captured.unwrap();
        prop_assert_eq!(shapes(&captured), shapes(&plain));
        let pinned = Refs {
            constraints: captured
                .named
                .iter()
                .map(|(n, v)| RefConstraint::SetDim { name: n.clone(), value: v.total() })
                .collect(),
            ..refs
        };
        // A row of no axes has 1 element: pinning it to 1 may give it one
        // axis of 1 where nothing else decides it, a shape that differs in
        // printing only; such rows are left out.
        let pinned = Refs {
            constraints: pinned
                .constraints
                .into_iter()
                .filter(|c| !matches!(c, RefConstraint::SetDim { name, value: 1 }
                    if captured.named.iter().any(|(n, v)| n == name && matches!(v, ocannl_shape::Named::Row(_)))))
                .collect(),
            ..pinned
        };
        let again = infer_with_refs(&nodes, &pinned);
        prop_assert!(again.is_ok(), "pinning to the solution failed: {:?}", again.err());
        prop_assert_eq!(shapes(&again.unwrap()), shapes(&plain));
    }
}

/// The property above on every einsum of a transformer-like graph (random
/// graphs rarely solve with an einsum in them): its captured labels and
/// their solutions, pinned, change no shape.
#[test]
fn every_einsum_of_a_transformer_captures_and_pins_its_labels() {
    use ocannl_shape::{gen::transformer, infer_with_refs, Named, RefConstraint, Refs};
    let nodes = transformer(2);
    let plain: Vec<String> = infer(&nodes)
        .unwrap()
        .shapes
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut checked = 0;
    for (i, n) in nodes.iter().enumerate() {
        let Node::Einsum(spec, _) = &n.node else {
            continue;
        };
        let (dims, rows) = spec.names();
        let refs = Refs {
            captures: vec![(i, dims.into_iter().chain(rows).collect())],
            ..Refs::default()
        };
        let captured = infer_with_refs(&nodes, &refs).unwrap();
        assert!(!captured.named.is_empty(), "node {i}");
        let pinned = Refs {
            constraints: captured
                .named
                .iter()
                .filter(|(_, v)| !matches!(v, Named::Row(d) if d.is_empty()))
                .map(|(n, v)| RefConstraint::SetDim {
                    name: n.clone(),
                    value: v.total(),
                })
                .collect(),
            ..refs
        };
        let again: Vec<String> = infer_with_refs(&nodes, &pinned)
            .unwrap_or_else(|e| panic!("node {i}: {e}"))
            .shapes
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(again, plain, "node {i}");
        checked += 1;
    }
    assert!(checked >= 6, "{checked} einsums");
}
