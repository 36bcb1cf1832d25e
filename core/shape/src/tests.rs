//! Table-driven tests of shape inference. A case is a small graph, one node
//! per ` / `-separated entry: `name: SHAPE = op args`, where op is `arg`, `param`, `const`,
//! `pointwise`, `compose`, `transpose`, `slice` or `einsum "SPEC"`; and the
//! expected shapes (`name=SHAPE ...`) or the expected error fragment.

use std::collections::HashMap;

use crate::{
    infer::{infer, infer_with_order, Node, NodeDecl},
    notation::parse_einsum,
};

fn graph(src: &str) -> (Vec<String>, Vec<NodeDecl>) {
    let mut names: Vec<String> = vec![];
    let mut nodes = vec![];
    let idx = |names: &Vec<String>, n: &str| {
        names
            .iter()
            .position(|x| x == n)
            .unwrap_or_else(|| panic!("unknown node {n}"))
    };
    for line in src.split(" / ").map(str::trim).filter(|l| !l.is_empty()) {
        let (lhs, rhs) = line
            .split_once(" = ")
            .unwrap_or_else(|| panic!("bad line {line}"));
        let (name, shape) = lhs
            .split_once(':')
            .unwrap_or_else(|| panic!("bad line {line}"));
        let rhs = rhs.trim();
        let (op, rest) = rhs.split_once(' ').unwrap_or((rhs, ""));
        let (spec, args) = if op == "einsum" {
            let r = rest.trim().strip_prefix('"').unwrap();
            let (s, a) = r.split_once('"').unwrap();
            (Some(s.to_string()), a.to_string())
        } else {
            (None, rest.to_string())
        };
        if op == "const" {
            let elems = args.trim().parse::<u64>().ok();
            names.push(name.trim().to_string());
            nodes.push(NodeDecl {
                node: Node::Terminal { param: None },
                shape: shape.trim().to_string(),
                elems,
            });
            continue;
        }
        let args: Vec<usize> = args.split_whitespace().map(|a| idx(&names, a)).collect();
        let (node, elems) = match op {
            "arg" => (Node::Terminal { param: None }, None),
            "param" => (
                Node::Terminal {
                    param: Some(name.trim().to_string()),
                },
                None,
            ),
            "pointwise" => (Node::Pointwise(args), None),
            "compose" => (Node::Compose(args[0], args[1]), None),
            "transpose" => (Node::Transpose(args[0]), None),
            "slice" => (Node::BatchSlice(args[0]), None),
            "einsum" => (
                Node::Einsum(parse_einsum(spec.as_ref().unwrap()).unwrap().into(), args),
                None,
            ),
            _ => panic!("unknown op {op}"),
        };
        names.push(name.trim().to_string());
        nodes.push(NodeDecl {
            node,
            shape: shape.trim().to_string(),
            elems,
        });
    }
    (names, nodes)
}

fn solve(src: &str) -> Result<HashMap<String, String>, String> {
    let (names, nodes) = graph(src);
    let inf = infer(&nodes).map_err(|e| format!("{}: {}", names[e.node], e.message))?;
    Ok(names
        .into_iter()
        .zip(inf.shapes.iter().map(|s| s.to_string()))
        .collect())
}

fn check(src: &str, want: &str) {
    let got = solve(src).unwrap_or_else(|e| panic!("{src}\n  failed: {e}"));
    for w in want.split_whitespace() {
        let (n, s) = w.split_once('=').unwrap();
        assert_eq!(
            got[n], s,
            "{src}\n  node {n}: got {} want {s}; all: {got:?}",
            got[n]
        );
    }
}

fn check_err(src: &str, fragment: &str) {
    match solve(src) {
        Ok(got) => panic!("{src}\n  expected an error with {fragment:?}, got {got:?}"),
        Err(e) => assert!(
            e.contains(fragment),
            "{src}\n  error {e:?} lacks {fragment:?}"
        ),
    }
}

const MLP: &str = "x: 32|10 = arg / w1: ? = param / b1: 16 = param / h0: ? = compose w1 x / h1: ? = pointwise b1 h0 / h: ? = pointwise h1 / w2: ...->1 = param / y: ? = compose w2 h";

#[test]
fn inference_table() {
    let cases: &[(&str, &str)] = &[
        // compose / matmul, params inferred from their uses
        (MLP, "w1=10->16 b1=16 h0=32|16 h1=32|16 h=32|16 w2=16->1 y=32|1"),
        ("a: 3->4 = arg / b: 10|3 = arg / c: ? = compose a b", "c=10|4"),
        ("a: 2,3->4 = arg / b: 5|2,3 = arg / c: ? = compose a b", "c=5|4"),
        ("a: 3->4 = arg / b: 10|7->3 = arg / c: ? = compose a b", "c=10|7->4"),
        // broadcasting with dim-1 and with more axes
        ("a: 3,1 = arg / b: 1,4 = arg / c: ? = pointwise a b", "c=3,4"),
        ("a: 2|3 = arg / b: 3 = arg / c: ? = pointwise a b", "c=2|3"),
        ("a: 5,3 = arg / b: 3 = arg / c: ? = pointwise a b", "c=5,3"),
        ("a: 1 = arg / b: 7|2->3 = arg / c: ? = pointwise a b", "c=7|2->3"),
        ("a: 2,1,4 = arg / b: 3,1 = arg / c: ? = pointwise a b", "c=2,3,4"),
        ("a: 4 = arg / b: 4 = arg / m: 4 = arg / c: ? = pointwise a b m", "c=4"),
        // a param broadcast against data gets the data's shape
        ("x: 8|3 = arg / b: ? = param / y: ? = pointwise x b", "b=3 y=8|3"),
        // reductions
        ("x: 7|3->4 = arg / y: ? = einsum \"...|...->... => 0\" x", "y=1"),
        ("x: 7|3->4 = arg / y: ? = einsum \"... => 0\" x", "y=1"),
        ("x: 7|3->4 = arg / y: ? = einsum \"...|...->... => ...->...\" x", "y=3->4"),
        ("x: 2,3,4 = arg / y: ? = einsum \"ijk => ki\" x", "y=4,2"),
        // rows a spec leaves empty: reduced in an operand, empty in the result
        ("x: 7|3->4 = arg / y: ? = einsum \"o => o\" x", "y=4"),
        ("x: 7|3->4 = arg / y: ? = einsum \"i->o => o|i\" x", "y=4|3"),
        ("x: 7|3->4 = arg / y: ? = einsum \"b| => b\" x", "y=7"),
        ("a: 2,3 = arg / b: 3,4 = arg / c: ? = einsum \"ij;jk=>ik\" a b", "c=2,4"),
        ("a: 5|2,3 = arg / b: 3,4 = arg / c: ? = einsum \"...|ij; jk => ...|ik\" a b", "c=5|2,4"),
        // row variables in the middle
        ("x: 2,3,4,5 = arg / y: ? = einsum \"a, ..r.., b => b, ..r.., a\" x", "y=5,3,4,2"),
        ("x: 2,3,4,5 = arg / y: ? = einsum \"a, ..r.., b => ..r..\" x", "y=3,4"),
        ("x: 6|2,3 = arg / y: ? = einsum \"..v..|ij => ..v..ji\" x", "y=6,3,2"),
        // fixed indices
        ("x: 7|3,5 = arg / y: ? = einsum \"...|2,j => ...|j\" x", "y=7|5"),
        ("x: 4,5 = arg / y: ? = einsum \"i,j => i,j,2\" x", "y=4,5,3"),
        ("x: 4|5 = arg / y: ? = einsum \"2...|... => ...\" x", "y=5"),
        // diagonal and permutations across row kinds
        ("x: 3,3 = arg / y: ? = einsum \"ii=>i\" x", "y=3"),
        ("x: 2|3->4 = arg / y: ? = einsum \"b|i->o => o|b->i\" x", "y=4|2->3"),
        ("x: 2|3->4 = arg / y: ? = transpose x", "y=2|4->3"),
        // labels propagate and agree
        ("a: rgb=3 = arg / b: ? = param / c: ? = pointwise a b", "b=rgb=3 c=rgb=3"),
        ("a: rgb=3 = arg / b: 3 = arg / c: ? = pointwise a b", "c=rgb=3"),
        // convolutions: valid, strided, dilated, padded
        ("x: 10 = arg / k: 3 = arg / y: ? = einsum \"o<+k; k => o\" x k", "y=8"),
        ("x: 10 = arg / k: 3 = arg / y: ? = einsum \"2*o<+k; k => o\" x k", "y=4"),
        ("x: 10 = arg / k: 3 = arg / y: ? = einsum \"o<+2*k; k => o\" x k", "y=6"),
        ("x: 10 = arg / k: 3 = arg / y: ? = einsum \"2*o=+k; k => o\" x k", "y=5"),
        ("x: 9,9 = arg / k: 2,2 = arg / y: ? = einsum \"oh<+kh, ow<+kw; kh, kw => oh, ow\" x k", "y=8,8"),
        // a pure stride spans stride x output cells (as OCANNL): both
        // ways, an offset not counted
        ("x: 8 = arg / y: ? = einsum \"2*i => i\" x", "y=4"),
        ("x: 8 = arg / y: ? = einsum \"2*i+1 => i\" x", "y=4"),
        ("x: ? = param / y: 4 = einsum \"2*i => i\" x", "x=8"),
        // the kernel from the input and the output sizes
        ("x: 8|12 = arg / w: ? = param / y: 8|10 = einsum \"...|o<+k; k => ...|o\" x w / t: 10 = arg / z: ? = pointwise y t", "w=3 y=8|10"),
        // batch slice
        ("x: 7,2|3->4 = arg / y: ? = slice x", "y=2|3->4"),
        ("x: 7|3 = arg / y: ? = slice x", "y=3"),
        // the operand's output row equals the result's: `2,...` = `...,3`
        ("x: 5|2,... = arg / y: ...,3 = slice x", "x=5|2,3 y=2,3"),
        // declared result shapes are checked, variables in types are shared
        ("a: 3,4 = arg / c: 3,4 = pointwise a", "c=3,4"),
        ("a: n,4 = arg / b: 5,m = arg / c: n,m = pointwise a b", "a=5,4 b=5,4 c=5,4"),
        ("a: ..v..|3 = arg / b: 2,6|3 = arg / c: ..v..|3 = pointwise a b", "a=2,6|3 c=2,6|3"),
        // dense literals: the element count fixes an unknown dim
        ("c: n = const 4 / x: 4 = arg / y: ? = pointwise c x", "c=4 y=4"),
    ];
    for (src, want) in cases {
        check(src, want);
    }
}

/// A fixed index in a result slot makes an axis of at least i+1, which a
/// consumer's fixed index can raise (OCANNL's `sparse` example); a fixed
/// index in an operand slot reads the operand's own axis.
#[test]
fn fixed_indices() {
    let cases: &[(&str, &str)] = &[
        // alone, the axis closes to 1
        ("x: 4 = arg / s: ? = einsum \"i=>i0\" x", "s=4,1"),
        // a consumer reading index 2 raises it to 3
        (
            "x: 4 = arg / s: ? = einsum \"i=>i0\" x / y: ? = einsum \"i2=>i\" s",
            "s=4,3 y=4",
        ),
        // in any order of the two
        (
            "x: 4 = arg / s: ? = einsum \"i=>i2\" x / y: ? = einsum \"i0=>i\" s",
            "s=4,3 y=4",
        ),
        // a broadcasting consumer does not widen it
        (
            "x: 4 = arg / s: ? = einsum \"i=>i0\" x / z: 4,5 = arg / w: ? = pointwise s z",
            "s=4,1 w=4,5",
        ),
        // an index into an operand of unknown size fixes its least size
        ("x: 4,n = arg / y: ? = einsum \"i,3=>i\" x", "x=4,4 y=4"),
        // an index into a param
        (
            "p: ? = param / x: 5 = arg / y: ? = einsum \"2,i;i=>i\" p x",
            "p=3,5 y=5",
        ),
    ];
    for (src, want) in cases {
        check(src, want);
    }
    let errors: &[(&str, &str)] = &[
        // the index must not read a broadcast axis of size 1
        (
            "x: 4,1 = arg / y: ? = einsum \"i2=>i\" x",
            "dimension 1 is too small: an index needs at least 3",
        ),
        (
            "x: 4 = arg / s: 4,2 = einsum \"i=>i0\" x / y: ? = einsum \"i2=>i\" s",
            "dimension 2 is too small: an index needs at least 3",
        ),
    ];
    for (src, frag) in errors {
        check_err(src, frag);
    }
}

/// A labelled dim of size 1 is information: it flows to the dims related
/// to it and determines a param's dims; it does not broadcast.
#[test]
fn labelled_ones() {
    // `let%op y = ("hey" * 'q' 2.0) + 'p' 1.0` (seed 002)
    check(
        "hey: ? = param / q: q=1 = arg / p: p=1 = arg / hq: ? = compose hey q / y: ? = pointwise hq p",
        "hey=q=1->p=1 hq=p=1 y=p=1",
    );
    check(
        "a: ? = param / b: rgb=1 = arg / c: ? = pointwise a b",
        "a=rgb=1 c=rgb=1",
    );
    check(
        "a: 1 = arg / b: rgb=1 = arg / c: ? = pointwise a b",
        "c=rgb=1",
    );
    check_err(
        "a: p=1 = arg / b: q=1 = arg / c: ? = pointwise a b",
        "label mismatch",
    );
    check_err(
        "a: 5 = arg / b: q=1 = arg / c: ? = pointwise a b",
        "dimension mismatch: q=1 vs 5",
    );
}

/// A param's row that nothing determines is an error; one whose least
/// upper bound is known to be empty gets no axes.
#[test]
fn param_rows() {
    let cases: &[(&str, &str)] = &[
        // a bias added to a vector: its input row is empty because the
        // row above it is
        (
            "x: 8|3 = arg / b: ? = param / y: ? = pointwise x b",
            "b=3 y=8|3",
        ),
        // through more than one op
        (
            "x: 8|3 = arg / b: ? = param / n: ? = pointwise b / y: ? = pointwise x n",
            "b=3 n=3 y=8|3",
        ),
        // in any order of the ops above it
        (
            "b: ? = param / x: 8|3 = arg / n: ? = pointwise b / y: ? = pointwise n x",
            "b=3 n=3 y=8|3",
        ),
        // a param with no uses
        ("w: ? = param", "w=1"),
        ("w: 3->... = param", "w=3->1"),
        // a row the einsum spec leaves untracked needs no axes
        (
            "x: 5 = arg / p: ? = param / y: ? = einsum \"i;i=>i\" x p",
            "p=5 y=5",
        ),
    ];
    for (src, want) in cases {
        check(src, want);
    }
    let errors: &[(&str, &str)] = &[
        // `{w} * [3;4;5]`: the input is 3, the output undetermined
        (
            "v: 3 = arg / w: ? = param / r: ? = compose w v",
            "w: You forgot to specify the hidden dimension(s): the output row of param 'w' is not determined by its uses (shape so far: 3->...)",
        ),
        // `{x} + {y}`
        (
            "x: ? = param / y: ? = param / z: ? = pointwise x y",
            "x: You forgot to specify the hidden dimension(s): the input row of param 'x'",
        ),
    ];
    for (src, frag) in errors {
        check_err(src, frag);
    }
    // The error is at the param, with a note at its use.
    let (_, nodes) = graph("v: 3 = arg / w: ? = param / r: ? = compose w v");
    let e = infer(&nodes).unwrap_err();
    assert_eq!(e.node, 1, "{e}");
    assert_eq!(
        e.kind,
        crate::InferErrorKind::Shape(crate::ShapeErrorKind::ForgotHiddenDims {
            row: crate::Kind::Output
        })
    );
    assert_eq!(e.notes.len(), 1, "{:?}", e.notes);
    assert_eq!(e.notes[0].0, 2, "{:?}", e.notes);
    assert!(
        e.notes[0].1.contains("does not determine its output row"),
        "{:?}",
        e.notes
    );
}

/// Shapes that are not leaves are forced from below: never widened to a
/// consumer's larger shape.
#[test]
fn composites_from_below() {
    let cases: &[(&str, &str)] = &[
        // an einsum's result rows are exactly as its spec writes them
        (
            "x: 4 = arg / e: ? = einsum \"i => i\" x / y: 2->4 = arg / z: ? = pointwise e y",
            "e=4 z=2->4",
        ),
        // a pointwise intermediate keeps its operand's shape
        (
            "x: 4 = arg / n: ? = pointwise x / y: 2->4 = arg / z: ? = pointwise n y",
            "n=4 z=2->4",
        ),
        (
            "x: 1 = arg / n: ? = pointwise x / y: 5 = arg / z: ? = pointwise n y",
            "n=1 z=5",
        ),
        // rows with left parts broadcast from the right
        ("p: ? = param / a: 2,... = pointwise p / b: 2,... = einsum \"...|i => ...|i,0\" a / c: ? = pointwise a b", "a=2 b=2,1 c=2,2"),
        // batch_slice of a computed value slices its leftmost batch axis
        (
            "x: 3|2 = arg / n: ? = pointwise x / y: ? = slice n",
            "n=3|2 y=2",
        ),
        (
            "x: 7,3|2 = arg / n: ? = pointwise x / y: ? = slice n",
            "n=7,3|2 y=3|2",
        ),
        // a leaf still takes what it broadcasts to
        (
            "x: 4|3 = arg / c: ? = const / y: ? = pointwise x c",
            "c=4|3",
        ),
        // a sliced leaf of unknown shape gets one batch axis to slice
        ("x: ? = arg / y: ? = slice x", "x=1| y="),
        ("x: ...|5 = arg / y: ? = slice x", "x=1|5 y=5"),
    ];
    for (src, want) in cases {
        check(src, want);
    }
}

#[test]
fn inference_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "a: 3 = arg / b: 4 = arg / c: ? = pointwise a b",
            "operand shapes: #0 \"3\", #1 \"4\"",
        ),
        (
            "a: 3->4 = arg / b: 10|5 = arg / c: ? = compose a b",
            "the output row of operand #1 against the input row of operand #0",
        ),
        (
            "a: rgb=3 = arg / b: xyz=3 = arg / c: ? = pointwise a b",
            "label mismatch",
        ),
        (
            "a: 3,4 = arg / c: 4 = pointwise a",
            "number of axes mismatch",
        ),
        (
            "x: 7 = arg / y: ? = einsum \"2*i => i\" x",
            "the input dimension 7 is not a multiple of the stride 2",
        ),
        ("a: 3 = arg / c: 5 = pointwise a", "dimension mismatch"),
        (
            "x: 7|2,5 = arg / y: ? = einsum \"...|2,j => ...|j\" x",
            "an index needs at least 3",
        ),
        (
            "x: 2|3 = arg / y: 1 = einsum \"..r.. => ..r..\" x",
            "dimension mismatch: 1 vs 3",
        ),
        (
            "x: 3 = arg / w: ...->h = param / y: ? = compose w x",
            "You forgot to specify the hidden dimension(s): axis 0 of the output row of param 'w'",
        ),
        (
            "x: ..v.. = arg / y: ..v..,3 = pointwise x",
            "self-reference",
        ),
        (
            "x: 2,3 = arg / y: ? = einsum \"ii=>i\" x",
            "dimension mismatch",
        ),
        (
            "x: 2 = arg / k: 3 = arg / y: ? = einsum \"o<+k; k => o\" x k",
            "smaller than the kernel extent",
        ),
        (
            "c: 5 = const 4 / x: 4 = arg",
            "the literal has 4 elements but the shape has 5",
        ),
    ];
    for (src, frag) in cases {
        check_err(src, frag);
    }
}

/// A conflict with a dim that an earlier op (not an operand) decided gets a
/// note at that op.
#[test]
fn conflict_notes_the_deciding_op() {
    let (_, nodes) = graph(
        "x: n = arg / c: 3 = arg / u: n = pointwise x c / z: n = arg / w: 5 = arg / v: ? = pointwise z w",
    );
    let e = infer(&nodes).unwrap_err();
    assert_eq!(e.node, 5, "{e}");
    assert!(e.message.contains("dimension mismatch: 5 vs 3"), "{e}");
    assert!(
        e.notes
            .iter()
            .any(|(j, m)| *j == 2 && m.contains("decided by this pointwise")),
        "{:?}",
        e.notes
    );
    // An operand is named as an operand, not again as a decider.
    assert!(
        !e.notes
            .iter()
            .any(|(j, m)| *j != 2 && m.contains("decided")),
        "{:?}",
        e.notes
    );
}

/// The same constraints added in any order give the same solution.
#[test]
fn declarative_in_any_order() {
    let generated = [crate::gen::mlp(2, 8), crate::gen::transformer(1)];
    let graphs = [
        MLP,
        "x: 6|2,3 = arg / y: ? = einsum \"..v..|ij => ..v..ji\" x / b: ? = param / z: ? = pointwise y b",
        "a: 3,1 = arg / b: 1,4 = arg / c: ? = pointwise a b / p: ? = param / d: ? = pointwise c p / e: ? = einsum \"ij => j\" d",
        "x: 8|12 = arg / w: ? = param / y: ...|10 = einsum \"...|o<+k; k => ...|o\" x w / t: 10 = arg / z: ? = pointwise y t",
        "x: 4 = arg / s: ? = einsum \"i=>i0\" x / y: ? = einsum \"i2=>i\" s / z: 4,5 = arg / w: ? = pointwise s z",
        "hey: ? = param / q: q=1 = arg / p: p=1 = arg / hq: ? = compose hey q / y: ? = pointwise hq p",
        "b: ? = param / x: 8|3 = arg / n: ? = pointwise b / y: ? = pointwise n x / w: ? = param",
        "x: 7,3|2 = arg / n: ? = pointwise x / y: ? = slice n / c: ? = const / z: ? = pointwise y c",
        "x: 4 = arg / e: ? = einsum \"i => i\" x / y: 2->4 = arg / z: ? = pointwise e y / p: ? = param / q: ? = einsum \"i;i=>i\" z p",
        // rows with left parts broadcast from the right, whatever is known
        // when they meet
        "p: ? = param / a: 2,... = pointwise p / b: 2,... = einsum \"...|i => ...|i,0\" a / c: ? = pointwise a b",
    ];
    let parsed = graphs.iter().map(|src| (src.to_string(), graph(src).1));
    let generated = generated
        .into_iter()
        .enumerate()
        .map(|(i, g)| (format!("generated graph #{i}"), g));
    for (src, nodes) in parsed.chain(generated) {
        let base: Vec<String> = infer(&nodes)
            .unwrap()
            .shapes
            .iter()
            .map(|s| s.to_string())
            .collect();
        // Deterministic pseudo-random permutations.
        let mut rng = ocannl_ops::SplitMix64::new(0x9e3779b97f4a7c15);
        for _ in 0..50 {
            let mut order: Vec<usize> = (0..nodes.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let got: Vec<String> = infer_with_order(&nodes, Some(&order), &Default::default())
                .unwrap_or_else(|e| panic!("{src}\n order {order:?}: {e}"))
                .shapes
                .iter()
                .map(|s| s.to_string())
                .collect();
            assert_eq!(got, base, "{src}\n order {order:?}");
        }
    }
}

/// The check after inference catches shapes that break an op's constraints
/// (as the solution of `2,... = ...,3` once dropped an axis).
#[test]
fn solution_check() {
    let shapes = |list: &[&str]| -> Vec<crate::Shape> {
        list.iter()
            .map(|t| {
                crate::parse_shape(
                    t,
                    &mut Default::default(),
                    &mut crate::solver::Solver::new(),
                )
                .unwrap()
            })
            .collect()
    };
    let cases: &[(&str, &[&str], Option<&str>)] = &[
        (
            "x: 5|2,... = arg / y: ...,3 = slice x",
            &["5|2,3", "2,3"],
            None,
        ),
        (
            "x: 5|2,... = arg / y: ...,3 = slice x",
            &["5|2", "3"],
            Some("dimension mismatch"),
        ),
        (
            "a: 3 = arg / b: 1 = arg / c: ? = pointwise a b",
            &["3", "1", "3"],
            None,
        ),
        (
            "a: 3 = arg / b: 4 = arg / c: ? = pointwise a b",
            &["3", "4", "3"],
            Some("[4] does not broadcast to [3]"),
        ),
        (
            "a: 3->4 = arg / b: 2|3 = arg / c: ? = compose a b",
            &["3->4", "2|3", "4"],
            Some("[2] does not broadcast to []"),
        ),
        (
            "x: 4 = arg / e: ? = einsum \"i => i\" x",
            &["4", "2->4"],
            Some("number of axes mismatch"),
        ),
        (
            "x: 4 = arg / s: ? = einsum \"i=>i0\" x / y: ? = einsum \"i2=>i\" s",
            &["4", "4,1", "4"],
            Some("an index needs at least 3"),
        ),
        ("w: ? = param", &["2|1"], Some("a param has batch axes")),
        (
            "c: ? = const 6",
            &["2,4"],
            Some("the literal has 6 elements"),
        ),
    ];
    for (src, solution, want) in cases {
        let (_, nodes) = graph(src);
        let used = vec![true; nodes.len()];
        let got = crate::infer::check_solution(&nodes, &shapes(solution), &used);
        match (want, got) {
            (None, Ok(())) => {}
            (Some(frag), Err(e)) => {
                assert_eq!(e.kind, crate::InferErrorKind::Internal, "{src}: {e}");
                assert!(
                    e.message
                        .starts_with("internal error: the inferred shapes break"),
                    "{src}: {e}"
                );
                assert!(e.message.contains(frag), "{src}: {e} lacks {frag:?}");
            }
            (want, got) => panic!("{src} with {solution:?}: want {want:?}, got {got:?}"),
        }
    }
}

/// Random small graphs (fixed seed): inference never panics, never reports
/// an internal error (the solution check), and gives the same shapes, or
/// fails, in every order of the nodes.
#[test]
fn random_graphs_any_order() {
    let mut rng = ocannl_ops::SplitMix64::new(0x2545f4914f6cdd1d);
    let mut next = move |n: u64| rng.below(n);
    let shapes = [
        "?", "?", "?", "3", "4", "1", "2|3", "3->4", "4|3->2", "...,3", "2,...", "q=1", "5|1,4",
        "...|3", "1,3",
    ];
    let specs = [
        "i => i",
        "ij => ji",
        "i;i => i",
        "...|i => ...|i,0",
        "i2 => i",
        "i => i0",
        "...|... => 0",
        "...|i,j; ...|j,k => ...|i,k",
        "b|i->o => o|b->i",
        "..v..|i => ..v..,i",
    ];
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..2000 {
        let n = 2 + next(6) as usize;
        let mut nodes: Vec<NodeDecl> = vec![];
        for i in 0..n {
            let shape = shapes[next(shapes.len() as u64) as usize].to_string();
            let pick = |next: &mut dyn FnMut(u64) -> u64| next(i as u64) as usize;
            let node = if i == 0 || next(4) == 0 {
                if next(2) == 0 {
                    Node::Terminal { param: None }
                } else {
                    Node::Terminal {
                        param: Some(format!("p{i}")),
                    }
                }
            } else {
                match next(6) {
                    0 => Node::Pointwise(vec![pick(&mut next), pick(&mut next)]),
                    1 => Node::Pointwise(vec![pick(&mut next)]),
                    2 => Node::Compose(pick(&mut next), pick(&mut next)),
                    3 => Node::Transpose(pick(&mut next)),
                    4 => Node::BatchSlice(pick(&mut next)),
                    _ => {
                        let spec = parse_einsum(specs[next(specs.len() as u64) as usize]).unwrap();
                        let args = (0..spec.rhs.len()).map(|_| pick(&mut next)).collect();
                        Node::Einsum(spec.into(), args)
                    }
                }
            };
            nodes.push(NodeDecl {
                node,
                shape,
                elems: None,
            });
        }
        let show = |r: Result<crate::Inference, crate::InferError>| -> Result<Vec<String>, String> {
            match r {
                Ok(inf) => Ok(inf.shapes.iter().map(|s| s.to_string()).collect()),
                Err(e) => {
                    assert_ne!(e.kind, crate::InferErrorKind::Internal, "{nodes:?}: {e}");
                    Err(e.to_string())
                }
            }
        };
        let base = show(infer(&nodes));
        if base.is_ok() {
            ok += 1;
        } else {
            failed += 1;
        }
        for _ in 0..8 {
            let mut order: Vec<usize> = (0..nodes.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, next(i as u64 + 1) as usize);
            }
            let got = show(infer_with_order(&nodes, Some(&order), &Default::default()));
            assert_eq!(
                got.is_ok(),
                base.is_ok(),
                "{nodes:?}\n order {order:?}: {got:?} vs {base:?}"
            );
            if base.is_ok() {
                assert_eq!(got, base, "{nodes:?}\n order {order:?}");
            }
        }
    }
    assert!(ok > 50 && failed > 50, "{ok} solved, {failed} failed");
}

/// The shapes by node name and the named solutions by name.
type Solved = (HashMap<String, String>, HashMap<String, crate::Named>);

/// A graph with captures (`node: LABELS` per entry, `;`-separated) and
/// constraints (`name=N` sets, `a~b` makes equal): the shapes and named
/// solutions (`name=total`), or the error at its node or constraint.
fn solve_refs(src: &str, captures: &str, constraints: &str) -> Result<Solved, String> {
    use crate::{infer_with_refs, RefConstraint, Refs};
    let (names, nodes) = graph(src);
    let mut refs = Refs::default();
    for c in captures.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        let (node, labels) = c.split_once(':').unwrap();
        let i = names.iter().position(|n| n == node.trim()).unwrap();
        refs.captures
            .push((i, labels.split_whitespace().map(String::from).collect()));
    }
    for c in constraints.split_whitespace() {
        refs.constraints.push(match c.split_once('=') {
            Some((n, v)) => RefConstraint::SetDim {
                name: n.into(),
                value: v.parse().unwrap(),
            },
            None => {
                let (a, b) = c.split_once('~').unwrap();
                RefConstraint::SetEqual(a.into(), b.into())
            }
        });
    }
    let inf = infer_with_refs(&nodes, &refs).map_err(|e| {
        let at = names
            .get(e.node)
            .cloned()
            .unwrap_or_else(|| format!("constraint {}", e.node - names.len()));
        format!("{at}: {}", e.message)
    })?;
    Ok((
        names
            .into_iter()
            .zip(inf.shapes.iter().map(|s| s.to_string()))
            .collect(),
        inf.named.into_iter().collect(),
    ))
}

#[test]
fn captured_dimensions_and_their_constraints() {
    use crate::Named;
    // Dims of a spec's labels, and a row variable's dims (OCANNL's
    // test_einsum_capture: `a..r..;..r..b=>ab` over 2,3,4 and 3,4,5).
    let (_, named) = solve_refs(
        "x: 2->3 = arg / y: ? = einsum \"i->j => j\" x",
        "y: i j",
        "",
    )
    .unwrap();
    assert_eq!(
        (named["i"].clone(), named["j"].clone()),
        (Named::Dim(2), Named::Dim(3))
    );
    let (_, named) = solve_refs(
        "a: 2,3,4 = arg / b: 3,4,5 = arg / c: ? = einsum \"a..r..;..r..b=>ab\" a b",
        "c: r",
        "",
    )
    .unwrap();
    assert_eq!(named["r"], Named::Row(vec![3, 4]));
    assert_eq!(named["r"].total(), 12);
    // A param's hidden dim set by name: without it, nothing determines it.
    let mlp = "x: 5|3 = arg / w: ? = param / h: ? = einsum \"...|i; i->k => ...|k\" x w";
    let (shapes, named) = solve_refs(mlp, "h: k", "k=7").unwrap();
    assert_eq!(
        (shapes["w"].as_str(), shapes["h"].as_str()),
        ("3->7", "5|7")
    );
    assert_eq!(named["k"], Named::Dim(7));
    assert!(solve_refs(mlp, "h: k", "")
        .unwrap_err()
        .contains("You forgot to specify the hidden dimension(s)"));
    // A row's total elements: one axis of them when nothing else decides.
    let rows = "x: 5|3 = arg / w: ? = param / h: ? = einsum \"...|i; i->..o.. => ...|..o..\" x w";
    let (shapes, named) = solve_refs(rows, "h: o", "o=12").unwrap();
    assert_eq!(
        (shapes["w"].as_str(), named["o"].clone()),
        ("3->12", Named::Row(vec![12]))
    );
    // Equal dims; a dim and a row (the row's elements); the same name
    // captured twice is one variable.
    let two = "x: 5|3 = arg / w: ? = param / h: ? = einsum \"...|i; i->a => ...|a\" x w / v: ? = param / g: ? = einsum \"...|i; i->b => ...|b\" h v";
    let (shapes, _) = solve_refs(two, "h: a; g: b", "a=4 a~b").unwrap();
    assert_eq!(
        (shapes["w"].as_str(), shapes["v"].as_str()),
        ("3->4", "4->4")
    );
    let (shapes, _) = solve_refs(
        &two.replace("i->b => ...|b", "i->a => ...|a"),
        "h: a; g: a",
        "a=6",
    )
    .unwrap();
    assert_eq!(
        (shapes["w"].as_str(), shapes["v"].as_str()),
        ("3->6", "6->6")
    );
    let mixed = "x: 5|3 = arg / w: ? = param / h: ? = einsum \"...|i; i->a => ...|a\" x w / v: ? = param / g: ? = einsum \"...|i; i->..o.. => ...|..o..\" h v";
    let (_, named) = solve_refs(mixed, "h: a; g: o", "a=8 a~o").unwrap();
    assert_eq!(named["o"], Named::Row(vec![8]));
    // And the other way: a known row decides the dim.
    let (_, named) = solve_refs(
        "a: 2,3,4 = arg / b: 3,4,5 = arg / c: ? = einsum \"a..r..;..r..b=>ab\" a b / x: 5|3 = arg / w: ? = param / h: ? = einsum \"...|i; i->k => ...|k\" x w",
        "c: r; h: k",
        "k~r",
    )
    .unwrap();
    assert_eq!(named["k"], Named::Dim(12));
}

#[test]
fn constraints_on_named_dimensions_that_fail() {
    let x = "x: 2->3 = arg / y: ? = einsum \"i->j => j\" x";
    let e = solve_refs(x, "y: i", "i=4").unwrap_err();
    assert!(e.starts_with("constraint 0: cannot set 'i' to 4"), "{e}");
    let e = solve_refs(x, "y: i j", "i~j").unwrap_err();
    assert!(
        e.starts_with("constraint 0: cannot make 'i' and 'j' equal"),
        "{e}"
    );
    let e = solve_refs(x, "y: z", "").unwrap_err();
    assert!(
        e.contains("y: the spec has no label or row variable 'z' to capture (it has: i, j"),
        "{e}"
    );
    let e = solve_refs(x, "y: i", "q=3").unwrap_err();
    assert!(
        e.contains("constraint 0: no einsum of the function captures 'q'"),
        "{e}"
    );
    let rows = "a: 2,3,4 = arg / b: 3,4,5 = arg / c: ? = einsum \"a..r..;..r..b=>ab\" a b";
    let e = solve_refs(rows, "c: r", "r=7").unwrap_err();
    assert!(
        e.contains("cannot set 'r' to 7: the row must have 7 elements in all") && e.contains("12"),
        "{e}"
    );
    // A name that is a dim in one spec and a row in another.
    let e = solve_refs(
        "a: 2,3,4 = arg / b: 3,4,5 = arg / c: ? = einsum \"a..r..;..r..b=>ab\" a b / d: ? = einsum \"r => r\" a",
        "c: r; d: r",
        "",
    )
    .unwrap_err();
    assert!(
        e.contains("'r' is a dimension here but a row variable elsewhere"),
        "{e}"
    );
}
