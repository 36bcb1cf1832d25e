//! Generated graphs for benchmarks and stress tests: deep MLPs and
//! transformer-like blocks, with params whose shapes are left to inference.

use crate::{
    infer::{Node, NodeDecl},
    notation::parse_einsum,
};

struct Builder {
    nodes: Vec<NodeDecl>,
    /// Each spec is parsed once, as the pass does.
    specs: std::collections::HashMap<&'static str, std::sync::Arc<crate::notation::EinsumSpec>>,
}

impl Builder {
    fn add(&mut self, node: Node, shape: &str) -> usize {
        self.nodes.push(NodeDecl {
            node,
            shape: shape.to_string(),
            elems: None,
        });
        self.nodes.len() - 1
    }

    fn param(&mut self, name: String, shape: &str) -> usize {
        self.add(Node::Terminal { param: Some(name) }, shape)
    }

    fn einsum(&mut self, spec: &'static str, args: Vec<usize>) -> usize {
        let spec = self
            .specs
            .entry(spec)
            .or_insert_with(|| {
                std::sync::Arc::new(parse_einsum(spec).expect("generated specs are valid"))
            })
            .clone();
        self.add(Node::Einsum(spec, args), "?")
    }
}

/// An MLP with `layers` hidden layers of width `width` on a batch of 64:
/// `x -> relu(b + w * x)` per layer. About 5 nodes per layer.
pub fn mlp(layers: usize, width: usize) -> Vec<NodeDecl> {
    let mut b = Builder {
        nodes: vec![],
        specs: Default::default(),
    };
    let mut h = b.add(Node::Terminal { param: None }, "64|32");
    for i in 0..layers {
        let w = b.param(format!("w{i}"), "?");
        let bias = b.param(format!("b{i}"), &width.to_string());
        let m = b.add(Node::Compose(w, h), "?");
        let s = b.add(Node::Pointwise(vec![bias, m]), "?");
        h = b.add(Node::Pointwise(vec![s]), "?");
    }
    b.nodes
}

/// `blocks` transformer-like blocks on a batch of sequences (`8|16,64`):
/// projections by params, attention scores and mixing by einsums,
/// normalization, residual connections and a feed-forward layer. About 25
/// nodes per block.
pub fn transformer(blocks: usize) -> Vec<NodeDecl> {
    let mut b = Builder {
        nodes: vec![],
        specs: Default::default(),
    };
    let mut x = b.add(Node::Terminal { param: None }, "8|16,64");
    for i in 0..blocks {
        let proj = |b: &mut Builder, name: &str, x: usize| {
            let w = b.param(format!("{name}{i}"), "64->64");
            b.einsum("...|t,d; e->d => ...|t,e", vec![x, w])
        };
        let q = proj(&mut b, "wq", x);
        let k = proj(&mut b, "wk", x);
        let v = proj(&mut b, "wv", x);
        let scores = b.einsum("...|s,d; ...|t,d => ...|s,t", vec![q, k]);
        let scale = b.add(Node::Terminal { param: None }, "1");
        let scaled = b.add(Node::Pointwise(vec![scores, scale]), "?");
        let e = b.add(Node::Pointwise(vec![scaled]), "?");
        let z = b.einsum("...|s,t => ...|s,0", vec![e]);
        let p = b.add(Node::Pointwise(vec![e, z]), "?");
        let mixed = b.einsum("...|s,t; ...|t,d => ...|s,d", vec![p, v]);
        let o = proj(&mut b, "wo", mixed);
        let r = b.add(Node::Pointwise(vec![x, o]), "?");
        let mean = b.einsum("...|t,d => ...|t,0", vec![r]);
        let c = b.add(Node::Pointwise(vec![r, mean]), "?");
        let g = b.param(format!("gamma{i}"), "?");
        let n = b.add(Node::Pointwise(vec![c, g]), "?");
        let w1 = b.param(format!("ff1_{i}"), "...->128");
        let h1 = b.einsum("...|t,d; d->f => ...|t,f", vec![n, w1]);
        let b1 = b.param(format!("bf1_{i}"), "?");
        let h2 = b.add(Node::Pointwise(vec![h1, b1]), "?");
        let h3 = b.add(Node::Pointwise(vec![h2]), "?");
        let w2 = b.param(format!("ff2_{i}"), "?");
        let h4 = b.einsum("...|t,f; f->d => ...|t,d", vec![h3, w2]);
        x = b.add(Node::Pointwise(vec![n, h4]), "?");
    }
    b.nodes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::infer;

    #[test]
    fn generated_graphs_infer() {
        let inf = infer(&mlp(3, 16)).unwrap();
        let shapes: Vec<String> = inf.shapes.iter().map(|s| s.to_string()).collect();
        assert_eq!(shapes[1], "32->16");
        assert_eq!(shapes.last().unwrap(), "64|16");
        let t = transformer(2);
        let inf = infer(&t).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(inf.shapes.last().unwrap().to_string(), "8|16,64");
        // ff2 is inferred from its uses: 128 -> 64.
        let ff2 = t
            .iter()
            .position(|n| matches!(&n.node, Node::Terminal { param: Some(p) } if p == "ff2_0"))
            .unwrap();
        assert_eq!(inf.shapes[ff2].to_string(), "128->64");
    }
}
