//! Backpropagation over a routine, as OCANNL generates it: each forward
//! assignment `lhs =accum= op(rhs...)` contributes, for every operand that
//! needs a gradient, an accumulating assignment over the *same* iteration
//! space with the *same* projections:
//! `grad(rhs_i) =+ grad(lhs) * d op / d rhs_i`.
//!
//! - Which buffers get gradients: the params, and every buffer computed
//!   (transitively) from one; data and constants never do.
//! - Gradient buffers are zeroed first, and the loss's gradient is set to 1
//!   (every cell: a non-scalar loss is its sum).
//! - Contributions are made in reverse program order, so that a buffer's
//!   gradient is complete before it is propagated further.
//! - A derivative that is not a plain operand (`cos x` for `sin x`,
//!   `1 - tanh² x`, ...) is computed into a temporary buffer over the
//!   iteration space first; scalar constants are 0-d buffers read by every
//!   iteration. Virtualization later inlines such temporaries.
//! - Accumulations other than `assign`, `add` and `sub` (products, maxima)
//!   are refused with a message when an operand needs a gradient.
//!
//! The result is plain statements of the same model: the interpreter runs
//! them, and the `ocannl-autodiff` pass emits them as `ocannl_assign` ops.

use std::fmt;

use ocannl_ops::{Accum, BinaryOp, NumOp, TernaryOp, UnaryOp};

use crate::{Affine, Assignment, Routine, Stmt};

/// What a buffer made by backprop holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Role {
    /// The gradient of the buffer.
    Grad(usize),
    /// A derivative factor over an iteration space.
    Temp,
    /// A scalar constant.
    Const(f64),
}

/// The statements of backprop, to run after the forward statements.
#[derive(Clone, Debug)]
pub struct Backprop {
    /// Allocations (first, with [`Backprop::roles`]), initializations and
    /// the gradient assignments.
    pub stmts: Vec<Stmt>,
    /// The forward statement each of `stmts` is part of the backprop of
    /// (`None` for the gradients' allocations and first fills): where a
    /// compiler locates it.
    pub origins: Vec<Option<usize>>,
    /// What each buffer allocated by `stmts` holds, by buffer number.
    pub roles: Vec<(usize, Role)>,
    /// The gradient buffer of each param, in the order of the params given.
    pub grads: Vec<(usize, usize)>,
}

/// Why backprop cannot be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutodiffError {
    /// The index of the forward statement concerned, if one is.
    pub stmt: Option<usize>,
    pub message: String,
}

impl fmt::Display for AutodiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AutodiffError {}

/// Generates the backprop of `loss` with respect to `params` (buffers of
/// `r`).
pub fn backprop(r: &Routine, loss: usize, params: &[usize]) -> Result<Backprop, AutodiffError> {
    let dims = r.buffer_dims();
    let known = |b: usize| dims.get(b).is_some_and(|d| d.is_some());
    for &p in params.iter().chain(std::iter::once(&loss)) {
        if !known(p) {
            return Err(AutodiffError {
                stmt: None,
                message: format!("buffer {p} is not a buffer of the routine"),
            });
        }
    }
    // Which buffers need a gradient: params, and what is computed from them.
    let mut needs = vec![false; dims.len()];
    for &p in params {
        needs[p] = true;
    }
    // A stopped gradient (`stop_gradient`) passes nothing on.
    for s in &r.stmts {
        if let Stmt::Accum(Assignment { lhs, rhs, op, .. }) = s {
            let stopped = op.as_op() == Some(NumOp::Unary(UnaryOp::StopGradient));
            if !stopped && rhs.iter().any(|&b| needs[b]) {
                needs[*lhs] = true;
            }
        }
    }
    // How many statements write each buffer (a gradient can be shared with
    // the gradient of a result only when that result has one writer).
    let mut writers = vec![0usize; dims.len()];
    for s in &r.stmts {
        if let Stmt::Accum(Assignment { lhs, .. }) = s {
            writers[*lhs] += 1;
        }
    }
    let mut b = Builder {
        next: dims.len(),
        stmts: vec![],
        roles: vec![],
        grad: vec![None; dims.len()],
        dims: dims.clone(),
        writers,
    };
    // The params' gradients exist (zero) even where nothing reaches them,
    // and the loss's gradient is 1. Other gradients are made by their first
    // contribution.
    for &p in params {
        if b.grad[p].is_none() && p != loss {
            let g = b.alloc(dims[p].clone().unwrap_or_default(), Role::Grad(p));
            b.grad[p] = Some(g);
            b.stmts.push(Stmt::Fill { buf: g, value: 0.0 });
        }
    }
    if needs[loss] {
        let g = b.alloc(dims[loss].clone().unwrap_or_default(), Role::Grad(loss));
        b.grad[loss] = Some(g);
        b.stmts.push(Stmt::Fill { buf: g, value: 1.0 });
    }
    let mut origins: Vec<Option<usize>> = vec![None; b.stmts.len()];
    for (k, s) in r.stmts.iter().enumerate().rev() {
        let Stmt::Accum(Assignment {
            lhs,
            rhs,
            accum,
            op,
            space,
            maps,
            symbols,
            dynamic,
            ..
        }) = s
        else {
            continue;
        };
        let Some(g) = b.grad[*lhs] else { continue };
        if !rhs.iter().any(|&x| needs[x]) {
            continue;
        }
        if !dynamic.is_empty() {
            return Err(AutodiffError {
                stmt: Some(k),
                message: "cannot differentiate a gather or a scatter (a dynamic index): backprop runs before `ocannl-one-hot-gather`, on the one-hot contractions it rewrites".into(),
            });
        }
        let sign = match accum {
            Accum::Assign | Accum::Add | Accum::Max | Accum::Min => 1.0,
            Accum::Sub => -1.0,
            other => {
                return Err(AutodiffError {
                    stmt: Some(k),
                    message: format!(
                        "cannot differentiate an accumulation by '{other}' (only assign, add, sub, max and min are differentiable)"
                    ),
                })
            }
        };
        let Some(op) = op.as_op() else {
            return Err(AutodiffError {
                stmt: Some(k),
                message: format!(
                    "cannot differentiate the body {op} (backprop runs on one-op assignments: differentiate before `ocannl-virtualize`)"
                ),
            });
        };
        let mut fwd = Fwd {
            lhs,
            space,
            maps,
            symbols,
            rhs,
            g: (g, maps[0].clone()),
        };
        if matches!(accum, Accum::Max | Accum::Min) {
            // The result is one of the values: the gradient reaches the
            // values equal to it (each of them, on a tie).
            let values = (0..rhs.len()).map(|i| fwd.x(i)).collect();
            let v = b.temp(&fwd, op, values);
            let hit = b.temp(
                &fwd,
                NumOp::Binary(BinaryOp::Eq),
                vec![v, (*lhs, maps[0].clone())],
            );
            fwd.g = b.temp(&fwd, NumOp::Binary(BinaryOp::Mul), vec![fwd.g.clone(), hit]);
        }
        for (i, &x) in rhs.iter().enumerate() {
            if !needs[x] {
                continue;
            }
            b.contribute(&fwd, op, i, sign, (x, maps[i + 1].clone()))
                .map_err(|message| AutodiffError {
                    stmt: Some(k),
                    message,
                })?;
        }
        origins.resize(b.stmts.len(), Some(k));
    }
    let grads = params
        .iter()
        .map(|&p| (p, b.grad[p].expect("params have gradients")))
        .collect();
    // Allocations first, so that every buffer exists before any statement.
    let (mut allocs, rest): (Vec<_>, Vec<_>) = b
        .stmts
        .into_iter()
        .zip(origins)
        .partition(|(s, _)| matches!(s, Stmt::Alloc { .. }));
    allocs.extend(rest);
    let (stmts, origins) = allocs.into_iter().unzip();
    Ok(Backprop {
        stmts,
        origins,
        roles: b.roles,
        grads,
    })
}

/// A buffer as an operand: its number and index expressions.
type Ref = (usize, Vec<Affine>);

/// The forward assignment being differentiated.
struct Fwd<'a> {
    /// The forward result.
    lhs: &'a usize,
    space: &'a [u64],
    maps: &'a [Vec<Affine>],
    symbols: &'a [usize],
    rhs: &'a [usize],
    /// The gradient of the result.
    g: Ref,
}

impl Fwd<'_> {
    /// Operand `i` of the forward assignment.
    fn x(&self, i: usize) -> Ref {
        (self.rhs[i], self.maps[i + 1].clone())
    }
}

struct Builder {
    next: usize,
    stmts: Vec<Stmt>,
    roles: Vec<(usize, Role)>,
    grad: Vec<Option<usize>>,
    dims: Vec<Option<Vec<u64>>>,
    writers: Vec<usize>,
}

impl Builder {
    fn alloc(&mut self, dims: Vec<u64>, role: Role) -> usize {
        let buf = self.next;
        self.next += 1;
        self.stmts.push(Stmt::Alloc { buf, dims });
        self.roles.push((buf, role));
        buf
    }

    fn assign(&mut self, f: &Fwd, lhs: Ref, accum: Accum, op: NumOp, operands: Vec<Ref>) {
        let mut maps = vec![lhs.1];
        let mut rhs = vec![];
        for (b, m) in operands {
            rhs.push(b);
            maps.push(m);
        }
        self.stmts.push(Stmt::Accum(Assignment {
            lhs: lhs.0,
            rhs,
            accum,
            op: op.into(),
            initialize_neutral: false,
            space: f.space.to_vec(),
            maps,
            symbols: f.symbols.to_vec(),
            dynamic: vec![],
        }));
    }

    /// A scalar constant, read by every iteration.
    fn konst(&mut self, c: f64) -> Ref {
        let buf = self.alloc(vec![], Role::Const(c));
        self.stmts.push(Stmt::Fill { buf, value: c });
        (buf, vec![])
    }

    /// `op(operands)` computed into a temporary over the iteration space.
    fn temp(&mut self, f: &Fwd, op: NumOp, operands: Vec<Ref>) -> Ref {
        let buf = self.alloc(f.space.to_vec(), Role::Temp);
        let identity: Vec<Affine> = (0..f.space.len()).map(Affine::Dim).collect();
        self.assign(f, (buf, identity.clone()), Accum::Assign, op, operands);
        (buf, identity)
    }

    /// `gx (+/-)= op(g, y)` or `gx (+/-)= g`, where `x` is the forward
    /// operand (buffer and index map). The first contribution to a gradient
    /// makes it: shared with the result's gradient when it is that gradient
    /// as is, assigned (no zeroing) when it writes every cell once, else
    /// zeroed and accumulated.
    fn add_to(&mut self, f: &Fwd, sign: f64, x: &Ref, how: Factor) {
        let mut accum = if sign > 0.0 { Accum::Add } else { Accum::Sub };
        let gx = match self.grad[x.0] {
            Some(g) => (g, x.1.clone()),
            None => {
                let dims = self.dims[x.0].clone().unwrap_or_default();
                let once = sign > 0.0 && crate::writes_each_cell_once(&x.1, f.space, &dims);
                let (y, ymap) = &f.g;
                let same_as_result_grad = matches!(how, Factor::One)
                    && *ymap == x.1
                    && self.dims[*f.lhs].as_ref() == Some(&dims)
                    && self.writers[*f.lhs] == 1;
                if once && same_as_result_grad {
                    self.grad[x.0] = Some(*y);
                    return;
                }
                let g = self.alloc(dims, Role::Grad(x.0));
                self.grad[x.0] = Some(g);
                if once {
                    accum = Accum::Assign;
                } else {
                    self.stmts.push(Stmt::Fill { buf: g, value: 0.0 });
                }
                (g, x.1.clone())
            }
        };
        let g = f.g.clone();
        let (op, operands) = match how {
            Factor::One => (NumOp::Unary(UnaryOp::Identity), vec![g]),
            Factor::Times(y) => (NumOp::Binary(BinaryOp::Mul), vec![g, y]),
            Factor::Over(y) => (NumOp::Binary(BinaryOp::Div), vec![g, y]),
            Factor::Gate(gate, x) => (NumOp::Binary(gate), vec![x, g]),
        };
        self.assign(f, gx, accum, op, operands);
    }

    /// The contribution of operand `i` of `op` to its gradient `gx`.
    fn contribute(
        &mut self,
        f: &Fwd,
        op: NumOp,
        i: usize,
        sign: f64,
        gx: Ref,
    ) -> Result<(), String> {
        use Factor::*;
        let un = |o| NumOp::Unary(o);
        let bin = |o| NumOp::Binary(o);
        match op {
            NumOp::Unary(u) => {
                let x = f.x(0);
                match u {
                    UnaryOp::Identity => self.add_to(f, sign, &gx, One),
                    UnaryOp::Neg => self.add_to(f, -sign, &gx, One),
                    UnaryOp::Relu => self.add_to(f, sign, &gx, Gate(BinaryOp::ReluGate, x)),
                    UnaryOp::Satur01 => self.add_to(f, sign, &gx, Gate(BinaryOp::Satur01Gate, x)),
                    UnaryOp::Exp => {
                        let t = self.temp(f, un(UnaryOp::Exp), vec![x]);
                        self.add_to(f, sign, &gx, Times(t))
                    }
                    UnaryOp::Exp2 => {
                        let t = self.temp(f, un(UnaryOp::Exp2), vec![x]);
                        let ln2 = self.konst(std::f64::consts::LN_2);
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![t, ln2]);
                        self.add_to(f, sign, &gx, Times(t))
                    }
                    UnaryOp::Log => self.add_to(f, sign, &gx, Over(x)),
                    UnaryOp::Log2 => {
                        let ln2 = self.konst(std::f64::consts::LN_2);
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![x, ln2]);
                        self.add_to(f, sign, &gx, Over(t))
                    }
                    UnaryOp::Sin => {
                        let t = self.temp(f, un(UnaryOp::Cos), vec![x]);
                        self.add_to(f, sign, &gx, Times(t))
                    }
                    UnaryOp::Cos => {
                        let t = self.temp(f, un(UnaryOp::Sin), vec![x]);
                        self.add_to(f, -sign, &gx, Times(t))
                    }
                    UnaryOp::Sqrt => {
                        // 1 / (2 sqrt x)
                        let t = self.temp(f, un(UnaryOp::Sqrt), vec![x]);
                        let two = self.konst(2.0);
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![t, two]);
                        self.add_to(f, sign, &gx, Over(t))
                    }
                    UnaryOp::Recip => {
                        // -1 / x²
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![x.clone(), x]);
                        self.add_to(f, -sign, &gx, Over(t))
                    }
                    UnaryOp::RecipSqrt => {
                        // -x^(-3/2) / 2
                        let t = self.temp(f, un(UnaryOp::RecipSqrt), vec![x.clone()]);
                        let t = self.temp(f, bin(BinaryOp::Div), vec![t, x]);
                        let half = self.konst(0.5);
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![t, half]);
                        self.add_to(f, -sign, &gx, Times(t))
                    }
                    UnaryOp::Tanh => {
                        // 1 - tanh² x
                        let t = self.temp(f, un(UnaryOp::Tanh), vec![x]);
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![t.clone(), t]);
                        let one = self.konst(1.0);
                        let t = self.temp(f, bin(BinaryOp::Sub), vec![one, t]);
                        self.add_to(f, sign, &gx, Times(t))
                    }
                    UnaryOp::Erf => {
                        // 2/√π e^(-x²)
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![x.clone(), x]);
                        let t = self.temp(f, un(UnaryOp::Neg), vec![t]);
                        let t = self.temp(f, un(UnaryOp::Exp), vec![t]);
                        let c = self.konst(std::f64::consts::FRAC_2_SQRT_PI);
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![t, c]);
                        self.add_to(f, sign, &gx, Times(t))
                    }
                    // Piecewise constant, or a stopped gradient: none.
                    UnaryOp::Not | UnaryOp::StopGradient => {}
                }
            }
            NumOp::Binary(o) => {
                let (a, b) = (f.x(0), f.x(1));
                match (o, i) {
                    (BinaryOp::Add, _) => self.add_to(f, sign, &gx, One),
                    (BinaryOp::Sub, 0) => self.add_to(f, sign, &gx, One),
                    (BinaryOp::Sub, _) => self.add_to(f, -sign, &gx, One),
                    (BinaryOp::Mul, 0) => self.add_to(f, sign, &gx, Times(b)),
                    (BinaryOp::Mul, _) => self.add_to(f, sign, &gx, Times(a)),
                    (BinaryOp::Div, 0) => self.add_to(f, sign, &gx, Over(b)),
                    (BinaryOp::Div, _) => {
                        // -a / b²
                        let t = self.temp(f, bin(BinaryOp::Div), vec![a, b.clone()]);
                        let t = self.temp(f, bin(BinaryOp::Div), vec![t, b]);
                        self.add_to(f, -sign, &gx, Times(t))
                    }
                    (BinaryOp::Pow, 0) => {
                        // b a^(b-1)
                        let one = self.konst(1.0);
                        let e = self.temp(f, bin(BinaryOp::Sub), vec![b.clone(), one]);
                        let t = self.temp(f, bin(BinaryOp::Pow), vec![a, e]);
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![t, b]);
                        self.add_to(f, sign, &gx, Times(t))
                    }
                    (BinaryOp::Pow, _) => {
                        // a^b ln a
                        let t = self.temp(f, bin(BinaryOp::Pow), vec![a.clone(), b]);
                        let l = self.temp(f, un(UnaryOp::Log), vec![a]);
                        let t = self.temp(f, bin(BinaryOp::Mul), vec![t, l]);
                        self.add_to(f, sign, &gx, Times(t))
                    }
                    // The gate passes the gradient to its second operand.
                    (BinaryOp::ReluGate | BinaryOp::Satur01Gate, 0) => {}
                    (BinaryOp::ReluGate | BinaryOp::Satur01Gate, _) => {
                        self.add_to(f, sign, &gx, Gate(o, a))
                    }
                    (BinaryOp::Max | BinaryOp::Min, _) => {
                        // max: to a where a >= b, else to b; min: to a where
                        // a < b, else to b.
                        let lt = self.temp(f, bin(BinaryOp::Lt), vec![a, b]);
                        let to_b = matches!((o, i), (BinaryOp::Max, 1) | (BinaryOp::Min, 1));
                        let sel = if (o == BinaryOp::Max) == to_b {
                            lt
                        } else {
                            self.temp(f, un(UnaryOp::Not), vec![lt])
                        };
                        self.add_to(f, sign, &gx, Times(sel))
                    }
                    (BinaryOp::Mod, 0) => self.add_to(f, sign, &gx, One),
                    (BinaryOp::Mod, _) => {
                        return Err(
                            "cannot differentiate 'mod' with respect to its divisor".to_string()
                        )
                    }
                    // Comparisons and logic: piecewise constant.
                    (
                        BinaryOp::Lt | BinaryOp::Eq | BinaryOp::Ne | BinaryOp::And | BinaryOp::Or,
                        _,
                    ) => {}
                }
            }
            NumOp::Ternary(t) => match (t, i) {
                (TernaryOp::Fma, 0) => self.add_to(f, sign, &gx, Times(f.x(1))),
                (TernaryOp::Fma, 1) => self.add_to(f, sign, &gx, Times(f.x(0))),
                (TernaryOp::Fma, _) => self.add_to(f, sign, &gx, One),
                // The condition is piecewise constant.
                (TernaryOp::Where, 0) => {}
                (TernaryOp::Where, _) => {
                    // To the branch taken: `c != 0` for the first.
                    let zero = self.konst(0.0);
                    let c = self.temp(f, bin(BinaryOp::Ne), vec![f.x(0), zero]);
                    let sel = if i == 1 {
                        c
                    } else {
                        self.temp(f, un(UnaryOp::Not), vec![c])
                    };
                    self.add_to(f, sign, &gx, Times(sel))
                }
            },
        }
        Ok(())
    }
}

/// What the result's gradient is multiplied by.
enum Factor {
    One,
    Times(Ref),
    Over(Ref),
    /// `gate(x, g)`: `g` where the gate opens.
    Gate(BinaryOp, Ref),
}
