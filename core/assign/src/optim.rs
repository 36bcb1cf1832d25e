//! Optimizers as assignments: SGD with OCANNL's options, Adam and AdamW as
//! PyTorch (and optax) define them, each with optional global-norm gradient
//! clipping. For a param `p` with gradient `g`, one step does:
//!
//! ```text
//! clipping (clip_norm = Some(c)), over every param at once, first:
//!     norm = sqrt(sum over the params of sum g^2)
//!     g *= min(1, c / (norm + 1e-6))          (PyTorch's clip_grad_norm_)
//! SGD (OCANNL's sgd_update, PyTorch's SGD):
//!     delta = g + weight_decay * p
//!     if momentum > 0:
//!         m = momentum * m + delta
//!         delta = nesterov ? delta + momentum * m : m
//!     p -= lr * delta
//! Adam (t counts the steps from 1):
//!     t += 1
//!     g += weight_decay * p                   (L2, as PyTorch's Adam)
//!     m = beta1 * m + (1 - beta1) * g
//!     v = beta2 * v + (1 - beta2) * g^2
//!     p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
//! AdamW: Adam with the weight decay decoupled, before the update:
//!     p *= 1 - lr * weight_decay
//! ```
//!
//! The weight decay applies to every param, or to the matrices only
//! ([`DecayOn`]: the params of two axes or more, as nanoGPT's and most
//! PyTorch recipes' param groups do; biases and norm gains are not
//! decayed).
//!
//! Adam's update is `p -= lr * mhat / (sqrt(vhat) + eps)` with
//! `mhat = m / (1 - beta1^t)`, `vhat = v / (1 - beta2^t)`, computed as
//! PyTorch computes it (the bias corrections once per step, as 0-d buffers).
//!
//! The learning rate is a 0-d buffer argument, so that a schedule can
//! change it between steps. The optimizer's state ([`State`]) is buffer
//! arguments too, which the caller keeps with the params across steps,
//! zeros before the first step: per param, the momentum (SGD with
//! momentum), or `m` and `v` (Adam, AdamW); per step routine, the step
//! count `t` (Adam, AdamW), a 0-d buffer that the step increments before
//! using it (in `f32`, counted exactly up to 2^24 steps). The gradients are
//! overwritten (the next step computes them again).

use ocannl_ops::{Accum, BinaryOp, NumOp, TernaryOp, UnaryOp};

use crate::{Affine, Assignment, Body, Instr, Stmt};

/// Which params the weight decay applies to (a param group's predicate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DecayOn {
    /// Every param.
    #[default]
    All,
    /// The params of two axes or more (weight matrices, embeddings,
    /// convolution kernels); not biases, gains or scalars.
    Matrices,
}

impl DecayOn {
    /// The names of the choices, as options spell them.
    pub const NAMES: [&'static str; 2] = ["all", "matrices"];

    pub fn name(self) -> &'static str {
        match self {
            DecayOn::All => "all",
            DecayOn::Matrices => "matrices",
        }
    }

    pub fn parse(name: &str) -> Option<DecayOn> {
        match name {
            "all" => Some(DecayOn::All),
            "matrices" => Some(DecayOn::Matrices),
            _ => None,
        }
    }

    /// Whether a param of sizes `dims` is decayed.
    pub fn decays(self, dims: &[u64]) -> bool {
        match self {
            DecayOn::All => true,
            DecayOn::Matrices => dims.len() >= 2,
        }
    }
}

/// SGD's options (OCANNL's `sgd_update`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sgd {
    pub momentum: f64,
    pub weight_decay: f64,
    /// The params the weight decay applies to.
    pub decay_on: DecayOn,
    pub nesterov: bool,
    /// Global-norm gradient clipping: the gradients scaled so that their
    /// norm is at most this.
    pub clip_norm: Option<f64>,
}

impl Default for Sgd {
    fn default() -> Self {
        Sgd {
            momentum: 0.0,
            weight_decay: 0.0,
            decay_on: DecayOn::All,
            nesterov: false,
            clip_norm: None,
        }
    }
}

/// Adam's and AdamW's options (PyTorch's defaults; AdamW's weight decay
/// defaults to 0.01 there: [`Adam::adamw_default`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adam {
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    /// Adam: an L2 term added to the gradient; AdamW: the decoupled decay.
    pub weight_decay: f64,
    /// The params the weight decay applies to.
    pub decay_on: DecayOn,
    /// Global-norm gradient clipping, as [`Sgd::clip_norm`].
    pub clip_norm: Option<f64>,
}

impl Default for Adam {
    fn default() -> Self {
        Adam {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
            decay_on: DecayOn::All,
            clip_norm: None,
        }
    }
}

impl Adam {
    /// PyTorch's `AdamW` defaults: Adam's, with a weight decay of 0.01.
    pub fn adamw_default() -> Adam {
        Adam {
            weight_decay: 0.01,
            ..Adam::default()
        }
    }
}

/// An optimizer: the update rule with its options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Optimizer {
    Sgd(Sgd),
    /// Adam, the weight decay an L2 term of the gradient.
    Adam(Adam),
    /// Adam with decoupled weight decay.
    AdamW(Adam),
}

impl Default for Optimizer {
    fn default() -> Self {
        Optimizer::Sgd(Sgd::default())
    }
}

impl From<Sgd> for Optimizer {
    fn from(o: Sgd) -> Self {
        Optimizer::Sgd(o)
    }
}

impl From<Adam> for Optimizer {
    /// Adam (for AdamW: `Optimizer::AdamW`).
    fn from(o: Adam) -> Self {
        Optimizer::Adam(o)
    }
}

/// A buffer of an optimizer's state, kept by the caller across steps
/// (zeros before the first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// SGD's momentum, per param.
    Momentum,
    /// Adam's first moment, per param.
    AdamM,
    /// Adam's second moment, per param.
    AdamV,
    /// The number of steps taken (0-d), per step routine.
    Step,
}

impl State {
    pub const ALL: [State; 4] = [State::Momentum, State::AdamM, State::AdamV, State::Step];

    /// Its name (`momentum`, `adam_m`, `adam_v`, `step`).
    pub fn name(self) -> &'static str {
        match self {
            State::Momentum => "momentum",
            State::AdamM => "adam_m",
            State::AdamV => "adam_v",
            State::Step => "step",
        }
    }

    /// Whether each param has one (else the step routine has one, 0-d).
    pub fn per_param(self) -> bool {
        !matches!(self, State::Step)
    }
}

impl Optimizer {
    /// The names of the update rules, as [`Optimizer::name`] gives them.
    pub const NAMES: [&'static str; 3] = ["sgd", "adam", "adamw"];

    /// PyTorch's Adam.
    pub fn adam() -> Optimizer {
        Optimizer::Adam(Adam::default())
    }

    /// PyTorch's AdamW (weight decay 0.01).
    pub fn adamw() -> Optimizer {
        Optimizer::AdamW(Adam::adamw_default())
    }

    /// `sgd`, `adam` or `adamw`.
    pub fn name(&self) -> &'static str {
        match self {
            Optimizer::Sgd(_) => "sgd",
            Optimizer::Adam(_) => "adam",
            Optimizer::AdamW(_) => "adamw",
        }
    }

    pub fn clip_norm(&self) -> Option<f64> {
        match self {
            Optimizer::Sgd(o) => o.clip_norm,
            Optimizer::Adam(o) | Optimizer::AdamW(o) => o.clip_norm,
        }
    }

    /// The params the weight decay applies to.
    pub fn decay_on(&self) -> DecayOn {
        match self {
            Optimizer::Sgd(o) => o.decay_on,
            Optimizer::Adam(o) | Optimizer::AdamW(o) => o.decay_on,
        }
    }

    pub fn weight_decay(&self) -> f64 {
        match self {
            Optimizer::Sgd(o) => o.weight_decay,
            Optimizer::Adam(o) | Optimizer::AdamW(o) => o.weight_decay,
        }
    }

    /// The state each param has, in order.
    pub fn param_state(&self) -> Vec<State> {
        match self {
            Optimizer::Sgd(o) if o.momentum != 0.0 => vec![State::Momentum],
            Optimizer::Sgd(_) => vec![],
            Optimizer::Adam(_) | Optimizer::AdamW(_) => vec![State::AdamM, State::AdamV],
        }
    }

    /// The state of the step routine (not per param), in order.
    pub fn global_state(&self) -> Vec<State> {
        match self {
            Optimizer::Sgd(_) => vec![],
            Optimizer::Adam(_) | Optimizer::AdamW(_) => vec![State::Step],
        }
    }

    /// That the options are in their ranges: finite, weight decay,
    /// momentum and `eps` at least 0, betas in [0, 1), the clipping norm
    /// above 0.
    pub fn check(&self) -> Result<(), crate::Invalid> {
        self.check_text().map_err(crate::Invalid)
    }

    /// The same, the reason as text.
    fn check_text(&self) -> Result<(), String> {
        let at_least_0 = |name: &str, x: f64| {
            if x.is_finite() && x >= 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "{name} must be a finite number at least 0, not {x}"
                ))
            }
        };
        match self {
            Optimizer::Sgd(o) => {
                at_least_0("the momentum", o.momentum)?;
            }
            Optimizer::Adam(o) | Optimizer::AdamW(o) => {
                for (name, b) in [("beta1", o.beta1), ("beta2", o.beta2)] {
                    if !(0.0..1.0).contains(&b) {
                        return Err(format!("{name} must be in [0, 1), not {b}"));
                    }
                }
                at_least_0("eps", o.eps)?;
            }
        }
        at_least_0("the weight decay", self.weight_decay())?;
        if let Some(c) = self.clip_norm() {
            if !(c.is_finite() && c > 0.0) {
                return Err(format!(
                    "the clipping norm must be a finite number above 0, not {c}"
                ));
            }
        }
        Ok(())
    }
}

/// One param's update.
#[derive(Clone, Debug)]
pub struct ParamUpdate {
    pub param: usize,
    pub grad: usize,
    /// Its state buffers, one per [`Optimizer::param_state`], in order.
    pub state: Vec<usize>,
    pub dims: Vec<u64>,
}

/// The statements of one optimizer step, and the name of each buffer they
/// allocate.
#[derive(Clone, Debug, Default)]
pub struct OptimizerStep {
    pub stmts: Vec<Stmt>,
    pub names: Vec<(usize, String)>,
}

/// What the clipping adds to the norm before dividing by it (PyTorch's).
pub const CLIP_TINY: f64 = 1e-6;

/// The statements of one step of `opt` for `params`, reading the learning
/// rate from the 0-d buffer `lr` and the step routine's state from
/// `global` (one per [`Optimizer::global_state`]). `next` is the first
/// free buffer number; the statements allocate their temporaries from it.
pub fn step(
    opt: &Optimizer,
    params: &[ParamUpdate],
    global: &[usize],
    lr: usize,
    next: &mut usize,
) -> Result<OptimizerStep, crate::Invalid> {
    opt.check()?;
    step_text(opt, params, global, lr, next).map_err(crate::Invalid)
}

fn step_text(
    opt: &Optimizer,
    params: &[ParamUpdate],
    global: &[usize],
    lr: usize,
    next: &mut usize,
) -> Result<OptimizerStep, String> {
    let per_param = opt.param_state().len();
    if let Some(p) = params.iter().find(|p| p.state.len() != per_param) {
        return Err(format!(
            "{} state buffer(s) given for param buffer {}, {} needs {per_param}",
            p.state.len(),
            p.param,
            opt.name()
        ));
    }
    if global.len() != opt.global_state().len() {
        return Err(format!(
            "{} global state buffer(s) given, {} needs {}",
            global.len(),
            opt.name(),
            opt.global_state().len()
        ));
    }
    let mut out = Out {
        step: OptimizerStep::default(),
        next,
    };
    if let Some(c) = opt.clip_norm() {
        clip(&mut out, c, params);
    }
    match opt {
        Optimizer::Sgd(o) => sgd(&mut out, o, params, lr),
        Optimizer::Adam(o) => adam(&mut out, o, false, params, global[0], lr),
        Optimizer::AdamW(o) => adam(&mut out, o, true, params, global[0], lr),
    }
    Ok(out.step)
}

/// The statements being made, and the next free buffer.
struct Out<'a> {
    step: OptimizerStep,
    next: &'a mut usize,
}

impl Out<'_> {
    fn alloc(&mut self, dims: Vec<u64>, name: String) -> usize {
        let buf = *self.next;
        *self.next += 1;
        self.step.stmts.push(Stmt::Alloc { buf, dims });
        self.step.names.push((buf, name));
        buf
    }

    /// A 0-d buffer holding `c`.
    fn konst(&mut self, c: f64, name: &str) -> usize {
        let buf = self.alloc(vec![], format!("{name}_{}", *self.next));
        self.step.stmts.push(Stmt::Fill { buf, value: c });
        buf
    }

    /// `lhs =accum= body(rhs...)` over `space`.
    fn assign(&mut self, space: &[u64], lhs: Opd, accum: Accum, body: Body, rhs: &[Opd]) {
        let map = |o: &Opd| match o {
            Opd::Cell(_) => (0..space.len()).map(Affine::Dim).collect(),
            Opd::Scalar(_) => vec![],
        };
        self.step.stmts.push(Stmt::Accum(Assignment {
            lhs: lhs.buf(),
            rhs: rhs.iter().map(Opd::buf).collect(),
            accum,
            op: body,
            initialize_neutral: false,
            space: space.to_vec(),
            maps: std::iter::once(&lhs).chain(rhs).map(map).collect(),
            symbols: vec![],
            dynamic: vec![],
        }));
    }
}

/// An operand of an optimizer's assignment: a buffer of the iteration
/// space's shape read cell by cell, or a 0-d buffer read by every cell.
#[derive(Clone, Copy)]
enum Opd {
    Cell(usize),
    Scalar(usize),
}

impl Opd {
    fn buf(&self) -> usize {
        match self {
            Opd::Cell(b) | Opd::Scalar(b) => *b,
        }
    }
}

/// A scalar expression of the operands, made into a [`Body`].
enum E {
    Arg(usize),
    C(f64),
    Op(NumOp, Vec<E>),
}

fn un(op: UnaryOp, x: E) -> E {
    E::Op(NumOp::Unary(op), vec![x])
}

fn bin(op: BinaryOp, x: E, y: E) -> E {
    E::Op(NumOp::Binary(op), vec![x, y])
}

impl E {
    fn body(&self) -> Body {
        fn go(e: &E, instrs: &mut Vec<Instr>) -> usize {
            let ins = match e {
                E::Arg(k) => Instr::Arg(*k),
                E::C(c) => Instr::Const(*c),
                E::Op(op, args) => {
                    let a = args.iter().map(|x| go(x, instrs)).collect();
                    Instr::Op(*op, a)
                }
            };
            instrs.push(ins);
            instrs.len() - 1
        }
        let mut instrs = vec![];
        let result = go(self, &mut instrs);
        Body { instrs, result }
    }
}

/// Global-norm clipping of every param's gradient to `c`.
fn clip(out: &mut Out, c: f64, params: &[ParamUpdate]) {
    use BinaryOp::*;
    let sq = out.alloc(vec![], "clip_sum_sq".into());
    out.step.stmts.push(Stmt::Fill {
        buf: sq,
        value: 0.0,
    });
    for p in params {
        out.assign(
            &p.dims,
            Opd::Scalar(sq),
            Accum::Add,
            NumOp::Binary(Mul).into(),
            &[Opd::Cell(p.grad), Opd::Cell(p.grad)],
        );
    }
    // scale = min(1, c / (sqrt(sq) + tiny))
    let scale = out.alloc(vec![], "clip_scale".into());
    let norm = bin(Add, un(UnaryOp::Sqrt, E::Arg(0)), E::C(CLIP_TINY));
    out.assign(
        &[],
        Opd::Scalar(scale),
        Accum::Assign,
        bin(Min, E::C(1.0), bin(Div, E::C(c), norm)).body(),
        &[Opd::Scalar(sq)],
    );
    for p in params {
        out.assign(
            &p.dims,
            Opd::Cell(p.grad),
            Accum::Mul,
            NumOp::Unary(UnaryOp::Identity).into(),
            &[Opd::Scalar(scale)],
        );
    }
}

/// SGD with OCANNL's options (constants as 0-d buffers, one-op
/// assignments).
fn sgd(out: &mut Out, opts: &Sgd, params: &[ParamUpdate], lr: usize) {
    let wd = (opts.weight_decay != 0.0).then(|| out.konst(opts.weight_decay, "sgd_const"));
    let mom = (opts.momentum != 0.0).then(|| out.konst(opts.momentum, "sgd_const"));
    for p in params {
        let space = &p.dims;
        let (g, w) = (Opd::Cell(p.grad), Opd::Cell(p.param));
        // delta = g + wd * p, in the gradient's buffer.
        if let Some(wd) = wd.filter(|_| opts.decay_on.decays(&p.dims)) {
            out.assign(
                space,
                g,
                Accum::Add,
                NumOp::Binary(BinaryOp::Mul).into(),
                &[Opd::Scalar(wd), w],
            );
        }
        if let (Some(mom), Some(&m)) = (mom, p.state.first()) {
            let (mom, m) = (Opd::Scalar(mom), Opd::Cell(m));
            // m = momentum * m + delta
            out.assign(
                space,
                m,
                Accum::Assign,
                NumOp::Ternary(TernaryOp::Fma).into(),
                &[mom, m, g],
            );
            if opts.nesterov {
                // delta += momentum * m
                out.assign(
                    space,
                    g,
                    Accum::Add,
                    NumOp::Binary(BinaryOp::Mul).into(),
                    &[mom, m],
                );
            } else {
                // delta = m
                out.assign(
                    space,
                    g,
                    Accum::Assign,
                    NumOp::Unary(UnaryOp::Identity).into(),
                    &[m],
                );
            }
        }
        // p -= lr * delta
        out.assign(
            space,
            w,
            Accum::Sub,
            NumOp::Binary(BinaryOp::Mul).into(),
            &[Opd::Scalar(lr), g],
        );
    }
}

/// Adam, or AdamW when `decoupled`; `t` is the step count.
fn adam(out: &mut Out, o: &Adam, decoupled: bool, params: &[ParamUpdate], t: usize, lr: usize) {
    use BinaryOp::*;
    let (t, lr) = (Opd::Scalar(t), Opd::Scalar(lr));
    // t += 1
    out.assign(&[], t, Accum::Add, Body::constant(1.0), &[]);
    // The step size lr / (1 - beta1^t) and sqrt(1 - beta2^t).
    let step_size = out.alloc(vec![], "adam_step_size".into());
    let bias1 = bin(Sub, E::C(1.0), bin(Pow, E::C(o.beta1), E::Arg(1)));
    out.assign(
        &[],
        Opd::Scalar(step_size),
        Accum::Assign,
        bin(Div, E::Arg(0), bias1).body(),
        &[lr, t],
    );
    let bias2_sqrt = out.alloc(vec![], "adam_bias2_sqrt".into());
    let bias2 = bin(Sub, E::C(1.0), bin(Pow, E::C(o.beta2), E::Arg(0)));
    out.assign(
        &[],
        Opd::Scalar(bias2_sqrt),
        Accum::Assign,
        un(UnaryOp::Sqrt, bias2).body(),
        &[t],
    );
    // AdamW's decay factor 1 - lr * wd.
    let decay = (decoupled && o.weight_decay != 0.0).then(|| {
        let decay = out.alloc(vec![], "adamw_decay".into());
        out.assign(
            &[],
            Opd::Scalar(decay),
            Accum::Assign,
            bin(Sub, E::C(1.0), bin(Mul, E::C(o.weight_decay), E::Arg(0))).body(),
            &[lr],
        );
        decay
    });
    for p in params {
        let space = &p.dims;
        let (g, w) = (Opd::Cell(p.grad), Opd::Cell(p.param));
        let (m, v) = (Opd::Cell(p.state[0]), Opd::Cell(p.state[1]));
        let decayed = o.decay_on.decays(&p.dims);
        if let Some(decay) = decay.filter(|_| decayed) {
            // p *= 1 - lr * wd
            out.assign(
                space,
                w,
                Accum::Mul,
                NumOp::Unary(UnaryOp::Identity).into(),
                &[Opd::Scalar(decay)],
            );
        } else if !decoupled && o.weight_decay != 0.0 && decayed {
            // g += wd * p
            out.assign(
                space,
                g,
                Accum::Add,
                bin(Mul, E::C(o.weight_decay), E::Arg(0)).body(),
                &[w],
            );
        }
        // m = beta1 * m + (1 - beta1) * g
        let ema = |beta: f64, x: E| {
            bin(
                Add,
                bin(Mul, E::C(beta), E::Arg(0)),
                bin(Mul, E::C(1.0 - beta), x),
            )
            .body()
        };
        out.assign(space, m, Accum::Assign, ema(o.beta1, E::Arg(1)), &[m, g]);
        // v = beta2 * v + (1 - beta2) * g^2
        let g2 = bin(Mul, E::Arg(1), E::Arg(1));
        out.assign(space, v, Accum::Assign, ema(o.beta2, g2), &[v, g]);
        // p -= step_size * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
        let denom = bin(
            Add,
            bin(Div, un(UnaryOp::Sqrt, E::Arg(2)), E::Arg(3)),
            E::C(o.eps),
        );
        out.assign(
            space,
            w,
            Accum::Sub,
            bin(Div, bin(Mul, E::Arg(0), E::Arg(1)), denom).body(),
            &[Opd::Scalar(step_size), m, v, Opd::Scalar(bias2_sqrt)],
        );
    }
}
