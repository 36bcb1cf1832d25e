//! Optimizers as assignments, as OCANNL writes them.
//!
//! SGD with OCANNL's options, for a param `p` with gradient `g`:
//!
//! ```text
//! delta = g + weight_decay * p
//! if momentum > 0:
//!     m = momentum * m + delta            (m persists across steps)
//!     delta = nesterov ? delta + momentum * m : m
//! p =- learning_rate * delta
//! ```
//!
//! The learning rate is a 0-d buffer argument, so that a schedule can
//! change it between steps; momentum buffers are buffer arguments too (the
//! caller keeps them with the params). Constants are 0-d buffers.

use ocannl_ops::{Accum, BinaryOp, NumOp, TernaryOp, UnaryOp};

use crate::{Affine, Stmt};

/// SGD's options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sgd {
    pub momentum: f64,
    pub weight_decay: f64,
    pub nesterov: bool,
}

impl Default for Sgd {
    fn default() -> Self {
        Sgd {
            momentum: 0.0,
            weight_decay: 0.0,
            nesterov: false,
        }
    }
}

/// One param's update.
#[derive(Clone, Debug)]
pub struct ParamUpdate {
    pub param: usize,
    pub grad: usize,
    /// The momentum buffer (required when momentum > 0).
    pub momentum: Option<usize>,
    pub dims: Vec<u64>,
}

/// The statements of one SGD step for `params`, reading the learning rate
/// from the 0-d buffer `lr`. `next` is the first free buffer number; the
/// statements allocate their constants from it. The gradients are
/// overwritten (they are recomputed by the next step).
pub fn sgd_step(opts: &Sgd, params: &[ParamUpdate], lr: usize, next: &mut usize) -> Vec<Stmt> {
    let mut out = vec![];
    let mut konst = |out: &mut Vec<Stmt>, c: f64| {
        let buf = *next;
        *next += 1;
        out.push(Stmt::Alloc { buf, dims: vec![] });
        out.push(Stmt::Fill { buf, value: c });
        buf
    };
    let wd = (opts.weight_decay != 0.0).then(|| konst(&mut out, opts.weight_decay));
    let mom = (opts.momentum != 0.0).then(|| konst(&mut out, opts.momentum));
    for p in params {
        let space = p.dims.clone();
        let id: Vec<Affine> = (0..space.len()).map(Affine::Dim).collect();
        let assign = |lhs: usize, accum: Accum, op: NumOp, rhs: Vec<(usize, bool)>| {
            // `true`: the operand is a 0-d constant read by every iteration.
            let mut maps = vec![id.clone()];
            maps.extend(
                rhs.iter()
                    .map(|&(_, scalar)| if scalar { vec![] } else { id.clone() }),
            );
            Stmt::Accum {
                lhs,
                rhs: rhs.iter().map(|&(b, _)| b).collect(),
                accum,
                op: op.into(),
                initialize_neutral: false,
                space: space.clone(),
                maps,
                symbols: vec![],
            }
        };
        // delta = g + wd * p, in the gradient's buffer.
        if let Some(wd) = wd {
            out.push(assign(
                p.grad,
                Accum::Add,
                NumOp::Binary(BinaryOp::Mul),
                vec![(wd, true), (p.param, false)],
            ));
        }
        if let (Some(mom), Some(m)) = (mom, p.momentum) {
            // m = momentum * m + delta
            out.push(assign(
                m,
                Accum::Assign,
                NumOp::Ternary(TernaryOp::Fma),
                vec![(mom, true), (m, false), (p.grad, false)],
            ));
            if opts.nesterov {
                // delta += momentum * m
                out.push(assign(
                    p.grad,
                    Accum::Add,
                    NumOp::Binary(BinaryOp::Mul),
                    vec![(mom, true), (m, false)],
                ));
            } else {
                // delta = m
                out.push(assign(
                    p.grad,
                    Accum::Assign,
                    NumOp::Unary(UnaryOp::Identity),
                    vec![(m, false)],
                ));
            }
        }
        // p -= lr * delta
        out.push(assign(
            p.param,
            Accum::Sub,
            NumOp::Binary(BinaryOp::Mul),
            vec![(lr, true), (p.grad, false)],
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run_mut, Arg, Routine, Value};

    /// Two steps of SGD on one param, against the formulas.
    #[test]
    fn steps_match_the_formulas() {
        for (momentum, weight_decay, nesterov) in [
            (0.0, 0.0, false),
            (0.0, 0.1, false),
            (0.9, 0.0, false),
            (0.9, 0.01, true),
        ] {
            let opts = Sgd {
                momentum,
                weight_decay,
                nesterov,
            };
            // Args: p, g, m, lr.
            let (p, g, m, lr) = (0, 1, 2, 3);
            let mut next = 4;
            let stmts = sgd_step(
                &opts,
                &[ParamUpdate {
                    param: p,
                    grad: g,
                    momentum: (momentum != 0.0).then_some(m),
                    dims: vec![2],
                }],
                lr,
                &mut next,
            );
            let r = Routine {
                args: vec![
                    Arg::Buffer { dims: vec![2] },
                    Arg::Buffer { dims: vec![2] },
                    Arg::Buffer { dims: vec![2] },
                    Arg::Buffer { dims: vec![] },
                ],
                stmts,
                results: vec![],
            };
            let buf = |d: Vec<f64>| Value::Buffer {
                dims: vec![d.len() as u64],
                data: d,
            };
            let mut args = vec![
                buf(vec![1.0, -2.0]),
                buf(vec![0.5, 0.25]),
                buf(vec![0.0, 0.0]),
                Value::Buffer {
                    dims: vec![],
                    data: vec![0.1],
                },
            ];
            // The reference, for the same two steps with the same gradient.
            let (mut pw, mut mw) = ([1.0f64, -2.0], [0.0f64, 0.0]);
            for _ in 0..2 {
                if let Value::Buffer { data, .. } = &mut args[g] {
                    data.copy_from_slice(&[0.5, 0.25]);
                }
                run_mut(&r, &mut args).unwrap();
                for k in 0..2 {
                    let mut delta = [0.5, 0.25][k] + weight_decay * pw[k];
                    if momentum > 0.0 {
                        mw[k] = momentum * mw[k] + delta;
                        delta = if nesterov {
                            delta + momentum * mw[k]
                        } else {
                            mw[k]
                        };
                    }
                    pw[k] -= 0.1 * delta;
                }
            }
            let Value::Buffer { data, .. } = &args[p] else {
                unreachable!()
            };
            for k in 0..2 {
                assert!(
                    (data[k] - pw[k]).abs() < 1e-12,
                    "{opts:?}: {} vs {}",
                    data[k],
                    pw[k]
                );
            }
        }
    }
}
