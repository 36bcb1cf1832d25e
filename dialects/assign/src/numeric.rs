//! The scalar computation of each numeric op, and of assignment bodies, in
//! `arith` and `math` ops, and the conversions between the types values
//! are stored in and computed in ([`compute_type`], [`convert`]).

use melior::ir::{r#type::TypeLike, Type, Value, ValueLike};
use ocannl_assign::{Body, CmpPred, Instr};
use ocannl_mlir::{types, At, Builder};
use ocannl_ops::{rng, BinaryOp, Dist, Elt, Generator, NumOp, TernaryOp, UnaryOp};

/// The type that values stored as `storage` are computed in
/// ([`Elt::compute`]: f32 for f16 and bf16), `storage` itself for other
/// types.
pub fn compute_type<'c>(e: &Builder<'c>, storage: Type<'c>) -> Type<'c> {
    match types::float_name(storage).and_then(Elt::parse) {
        Some(elt) if elt.compute() != elt => e.ty(elt.compute().name()).unwrap_or(storage),
        _ => storage,
    }
}

/// The bytes of a float type's cells, or of a vector's (0 for other
/// types).
fn float_bytes(t: Type) -> u64 {
    scalar_of(t)
        .and_then(types::float_name)
        .and_then(Elt::parse)
        .map_or(0, Elt::size)
}

/// The wider of two float types (by bytes; `a` on a tie).
pub fn wider<'c>(a: Type<'c>, b: Type<'c>) -> Type<'c> {
    if float_bytes(b) > float_bytes(a) {
        b
    } else {
        a
    }
}

/// `v` as a value of the float type `to` (scalars, or vectors of one
/// shape): `arith.extf` to a wider type (exact), `arith.truncf` to a
/// narrower one (rounded to nearest, ties to even: [`Elt::round`]),
/// between f16 and bf16 through f32; `v` itself when it already is.
pub fn convert<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    v: Value<'c, 'a>,
    to: Type<'c>,
) -> Value<'c, 'a> {
    let from = v.r#type();
    if from == to {
        return v;
    }
    if scalar_of(to).and_then(types::float_name) == Some("bf16") {
        return to_bf16(e, at, v, to);
    }
    match float_bytes(to).cmp(&float_bytes(from)) {
        std::cmp::Ordering::Greater => e.op1(at, "arith.extf", &[v], to, &[]),
        std::cmp::Ordering::Less => e.op1(at, "arith.truncf", &[v], to, &[]),
        // bf16 to f16: through f32, which holds both exactly.
        std::cmp::Ordering::Equal => match shaped_like(e, from, "f32") {
            Some(f32t) => {
                let wide = e.op1(at, "arith.extf", &[v], f32t, &[]);
                e.op1(at, "arith.truncf", &[wide], to, &[])
            }
            None => v,
        },
    }
}

/// The element type of a vector, a scalar type itself.
fn scalar_of(t: Type) -> Option<Type> {
    if t.is_vector() {
        types::element_type(t)
    } else {
        Some(t)
    }
}

/// The type `elt` (a scalar type's name), as a vector of `like`'s shape
/// when `like` is a vector.
fn shaped_like<'c>(e: &Builder<'c>, like: Type<'c>, elt: &str) -> Option<Type<'c>> {
    match types::vector_dims(like) {
        Some(dims) => {
            let dims: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
            e.ty(&format!("vector<{}x{elt}>", dims.join("x"))).ok()
        }
        None => e.ty(elt).ok(),
    }
}

/// `v` (floats: a scalar or a vector) rounded to bf16 (`to`) to nearest,
/// ties to even, in integer ops on its f32 bits (f64 through f32, as
/// [`Elt::round`] does): a CPU without bf16 conversions would otherwise
/// call a library function (`__truncsfbf2`) that not every C runtime has.
/// NaNs stay NaNs (quiet), overflow gives infinities.
fn to_bf16<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    v: Value<'c, 'a>,
    to: Type<'c>,
) -> Value<'c, 'a> {
    let from = v.r#type();
    let (Some(f32t), Some(i32t), Some(i16t), Some(i1t)) = (
        shaped_like(e, from, "f32"),
        shaped_like(e, from, "i32"),
        shaped_like(e, from, "i16"),
        shaped_like(e, from, "i1"),
    ) else {
        return e.op1(at, "arith.truncf", &[v], to, &[]);
    };
    let x = match scalar_of(from).and_then(types::float_name) {
        Some("f32") => v,
        Some("f64") => e.op1(at, "arith.truncf", &[v], f32t, &[]),
        _ => e.op1(at, "arith.extf", &[v], f32t, &[]),
    };
    let c = |k: i64| {
        if from.is_vector() {
            match e.attr(&format!("dense<{k}> : {i32t}")) {
                Ok(a) => e.op1(at, "arith.constant", &[], i32t, &[("value", a)]),
                Err(_) => e.int(at, k, i32t),
            }
        } else {
            e.int(at, k, i32t)
        }
    };
    let bits = e.op1(at, "arith.bitcast", &[x], i32t, &[]);
    let high = e.op1(at, "arith.shrui", &[bits, c(16)], i32t, &[]);
    let lsb = e.op1(at, "arith.andi", &[high, c(1)], i32t, &[]);
    let bias = e.op1(at, "arith.addi", &[lsb, c(0x7fff)], i32t, &[]);
    let rounded = e.op1(at, "arith.addi", &[bits, bias], i32t, &[]);
    let rounded = e.op1(at, "arith.shrui", &[rounded, c(16)], i32t, &[]);
    let quiet = e.op1(at, "arith.ori", &[high, c(0x40)], i32t, &[]);
    let uno = e.i64_attr(i64::from(CmpPred::UNO.0));
    let nan = e.op1(at, "arith.cmpf", &[x, x], i1t, &[("predicate", uno)]);
    let chosen = e.op1(at, "arith.select", &[nan, quiet, rounded], i32t, &[]);
    let narrow = e.op1(at, "arith.trunci", &[chosen], i16t, &[]);
    e.op1(at, "arith.bitcast", &[narrow], to, &[])
}

/// `op(a...)` on scalars of type `t`.
pub fn numeric<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: NumOp,
    a: &[Value<'c, 'a>],
    t: Type<'c>,
) -> Result<Value<'c, 'a>, ocannl_mlir::Error> {
    numeric_text(e, at, op, a, t).map_err(ocannl_mlir::Error::unsupported)
}

/// [`numeric`], the reason as text.
fn numeric_text<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: NumOp,
    a: &[Value<'c, 'a>],
    t: Type<'c>,
) -> Result<Value<'c, 'a>, String> {
    if a.len() != op.arity() {
        return Err(format!(
            "internal error: the {} op '{op}' applied to {} operand(s)",
            op.arity(),
            a.len()
        ));
    }
    let i1 = e.ty("i1").map_err(|e| e.to_string())?;
    let zero = || e.float(at, 0.0, t);
    let one = || e.float(at, 1.0, t);
    let cmp = |pred: CmpPred, x: Value<'c, 'a>, y: Value<'c, 'a>| e.cmpf(at, pred, x, y);
    let select = |c: Value<'c, 'a>, x: Value<'c, 'a>, y: Value<'c, 'a>| {
        e.op1(at, "arith.select", &[c, x, y], t, &[])
    };
    let bool_to_float = |c: Value<'c, 'a>| select(c, one(), zero());
    let un = |name: &str| e.op1(at, name, &[a[0]], t, &[]);
    let bin = |name: &str| e.op1(at, name, &[a[0], a[1]], t, &[]);
    Ok(match op {
        NumOp::Unary(u) => match u {
            // Gradients stop at autodiff (which reads the op before any
            // body is emitted); the value is the operand.
            UnaryOp::Identity | UnaryOp::StopGradient => a[0],
            UnaryOp::Relu => e.op1(at, "arith.maximumf", &[a[0], zero()], t, &[]),
            UnaryOp::Satur01 => {
                let (z, o) = (zero(), one());
                let m = e.op1(at, "arith.maximumf", &[a[0], z], t, &[]);
                e.op1(at, "arith.minimumf", &[m, o], t, &[])
            }
            UnaryOp::Exp => un("math.exp"),
            UnaryOp::Log => un("math.log"),
            UnaryOp::Exp2 => un("math.exp2"),
            UnaryOp::Log2 => un("math.log2"),
            UnaryOp::Sin => un("math.sin"),
            UnaryOp::Cos => un("math.cos"),
            UnaryOp::Sqrt => un("math.sqrt"),
            UnaryOp::RecipSqrt => un("math.rsqrt"),
            UnaryOp::Tanh => un("math.tanh"),
            UnaryOp::Erf => un("math.erf"),
            UnaryOp::Neg => un("arith.negf"),
            UnaryOp::Recip => e.op1(at, "arith.divf", &[one(), a[0]], t, &[]),
            UnaryOp::Not => bool_to_float(cmp(CmpPred::OEQ, a[0], zero())),
        },
        NumOp::Binary(b) => match b {
            BinaryOp::Add => bin("arith.addf"),
            BinaryOp::Sub => bin("arith.subf"),
            BinaryOp::Mul => bin("arith.mulf"),
            BinaryOp::Div => bin("arith.divf"),
            BinaryOp::Pow => bin("math.powf"),
            BinaryOp::Max => bin("arith.maximumf"),
            BinaryOp::Min => bin("arith.minimumf"),
            BinaryOp::Mod => bin("arith.remf"),
            BinaryOp::ReluGate => {
                let z = zero();
                let c = cmp(CmpPred::OGT, a[0], z);
                select(c, a[1], z)
            }
            BinaryOp::Satur01Gate => {
                let (z, o) = (zero(), one());
                let c1 = cmp(CmpPred::OGT, a[0], z);
                let c2 = cmp(CmpPred::OLT, a[0], o);
                let c = e.op1(at, "arith.andi", &[c1, c2], i1, &[]);
                select(c, a[1], z)
            }
            BinaryOp::Lt => bool_to_float(cmp(CmpPred::OLT, a[0], a[1])),
            BinaryOp::Eq => bool_to_float(cmp(CmpPred::OEQ, a[0], a[1])),
            BinaryOp::Ne => bool_to_float(cmp(CmpPred::UNE, a[0], a[1])),
            BinaryOp::And | BinaryOp::Or => {
                let z = zero();
                let c1 = cmp(CmpPred::UNE, a[0], z);
                let c2 = cmp(CmpPred::UNE, a[1], z);
                let name = if b == BinaryOp::And {
                    "arith.andi"
                } else {
                    "arith.ori"
                };
                bool_to_float(e.op1(at, name, &[c1, c2], i1, &[]))
            }
        },
        NumOp::Ternary(tr) => match tr {
            TernaryOp::Where => {
                let c = cmp(CmpPred::UNE, a[0], zero());
                select(c, a[1], a[2])
            }
            TernaryOp::Fma => e.op1(at, "math.fma", &[a[0], a[1], a[2]], t, &[]),
        },
    })
}

/// The `arith` op combining an accumulator with a new value.
pub fn combiner(op: BinaryOp) -> Result<&'static str, ocannl_mlir::Error> {
    combiner_text(op).map_err(ocannl_mlir::Error::unsupported)
}

/// [`combiner`], the reason as text.
fn combiner_text(op: BinaryOp) -> Result<&'static str, String> {
    Ok(match op {
        BinaryOp::Add => "arith.addf",
        BinaryOp::Sub => "arith.subf",
        BinaryOp::Mul => "arith.mulf",
        BinaryOp::Div => "arith.divf",
        BinaryOp::Max => "arith.maximumf",
        BinaryOp::Min => "arith.minimumf",
        other => return Err(format!("internal error: '{other}' is not an accumulation")),
    })
}

/// A body (see `ocannl_assign::Body`) on scalars of type `t`, its operands
/// bound to `args`: numeric ops as [`numeric`] writes them, the `arith`
/// primitives as themselves.
pub fn body<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    b: &Body,
    args: &[Value<'c, 'a>],
    t: Type<'c>,
) -> Result<Value<'c, 'a>, ocannl_mlir::Error> {
    body_text(e, at, b, args, t).map_err(ocannl_mlir::Error::unsupported)
}

/// [`body`], the reason as text.
fn body_text<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    b: &Body,
    args: &[Value<'c, 'a>],
    t: Type<'c>,
) -> Result<Value<'c, 'a>, String> {
    b.check().map_err(|m| format!("internal error: {m}"))?;
    let i1 = e.ty("i1").map_err(|e| e.to_string())?;
    let mut vals: Vec<Value<'c, 'a>> = Vec::with_capacity(b.instrs.len());
    for ins in &b.instrs {
        let v = match ins {
            Instr::Arg(k) => *args.get(*k).ok_or_else(|| {
                format!("internal error: a body reads operand {k} of {}", args.len())
            })?,
            Instr::Const(c) => e.float(at, *c, t),
            Instr::Op(op, a) => {
                let xs: Vec<Value<'c, 'a>> = a.iter().map(|&i| vals[i]).collect();
                numeric(e, at, *op, &xs, t).map_err(|e| e.to_string())?
            }
            Instr::Cmp(p, x, y) => e.cmpf(at, *p, vals[*x], vals[*y]),
            Instr::Select(c, x, y) => {
                e.op1(at, "arith.select", &[vals[*c], vals[*x], vals[*y]], t, &[])
            }
            Instr::And(x, y) => e.op1(at, "arith.andi", &[vals[*x], vals[*y]], i1, &[]),
            Instr::Or(x, y) => e.op1(at, "arith.ori", &[vals[*x], vals[*y]], i1, &[]),
        };
        vals.push(v);
    }
    Ok(vals[b.result])
}

/// The `arith`/`math` ops that compute one op of the vocabulary on floats,
/// each with that op: the one table for reading such ops (assignment
/// bodies, `ocannl-simplify`) and for writing them back (`ocannl-simplify`).
pub const SCALAR_OPS: [(&str, NumOp); 20] = {
    use BinaryOp as B;
    use UnaryOp as U;
    [
        ("arith.addf", NumOp::Binary(B::Add)),
        ("arith.subf", NumOp::Binary(B::Sub)),
        ("arith.mulf", NumOp::Binary(B::Mul)),
        ("arith.divf", NumOp::Binary(B::Div)),
        ("arith.negf", NumOp::Unary(U::Neg)),
        ("arith.maximumf", NumOp::Binary(B::Max)),
        ("arith.minimumf", NumOp::Binary(B::Min)),
        ("arith.remf", NumOp::Binary(B::Mod)),
        ("math.exp", NumOp::Unary(U::Exp)),
        ("math.log", NumOp::Unary(U::Log)),
        ("math.exp2", NumOp::Unary(U::Exp2)),
        ("math.log2", NumOp::Unary(U::Log2)),
        ("math.sin", NumOp::Unary(U::Sin)),
        ("math.cos", NumOp::Unary(U::Cos)),
        ("math.sqrt", NumOp::Unary(U::Sqrt)),
        ("math.rsqrt", NumOp::Unary(U::RecipSqrt)),
        ("math.tanh", NumOp::Unary(U::Tanh)),
        ("math.erf", NumOp::Unary(U::Erf)),
        ("math.powf", NumOp::Binary(B::Pow)),
        ("math.fma", NumOp::Ternary(TernaryOp::Fma)),
    ]
};

/// The numeric op of a scalar `arith`/`math` op of `arity` float operands
/// that is one op of the vocabulary, by name ([`SCALAR_OPS`]).
pub fn op_of_name(name: &str, arity: usize) -> Option<NumOp> {
    SCALAR_OPS
        .iter()
        .find(|(n, o)| *n == name && o.arity() == arity)
        .map(|(_, o)| *o)
}

/// The `arith`/`math` op computing `op` alone, if one does
/// ([`SCALAR_OPS`]).
pub fn name_of_op(op: NumOp) -> Option<&'static str> {
    SCALAR_OPS.iter().find(|(_, o)| *o == op).map(|(n, _)| *n)
}

/// The value of a `range` cell of linear index `lin` (an `index`): the
/// index as a float of the compute type `compute`, rounded once to
/// `stored`.
pub fn range_value<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    lin: Value<'c, 'a>,
    compute: Type<'c>,
    stored: Type<'c>,
) -> Result<Value<'c, 'a>, ocannl_mlir::Error> {
    let i64t = e.ty("i64")?;
    let i = e.op1(at, "arith.index_cast", &[lin], i64t, &[]);
    let v = e.op1(at, "arith.sitofp", &[i], compute, &[]);
    Ok(convert(e, at, v, stored))
}

/// What a counter-based initialization's cells depend on besides their
/// index: the seed, and two numbers of the compute type: for `uniform`, the
/// scale and offset taking the generator's integers to `[low, high)`; for
/// `normal`, the standard deviation and the mean.
pub struct RandomOperands<'c, 'a> {
    pub seed: Value<'c, 'a>,
    pub scale: Value<'c, 'a>,
    pub offset: Value<'c, 'a>,
    /// Box–Muller's (`normal`) or not (`uniform`).
    pub normal: bool,
    /// The counter-based generator.
    pub generator: Generator,
}

impl<'c, 'a> RandomOperands<'c, 'a> {
    /// The values a kernel takes as arguments.
    pub fn values(&self) -> [Value<'c, 'a>; 3] {
        [self.seed, self.scale, self.offset]
    }
}

/// The [`RandomOperands`] of `r`, as constants at `at` (an `i64` seed and
/// two numbers of the element type `eltt`).
pub fn random_operands<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    r: &crate::Random,
    eltt: Type<'c>,
) -> RandomOperands<'c, 'a> {
    let (scale, offset, normal) = match r.dist {
        Dist::Uniform { low, high } => {
            ((high - low) / (1u64 << rng::FLOAT_BITS) as f64, low, false)
        }
        Dist::Normal { mean, std } => (std, mean, true),
    };
    RandomOperands {
        seed: e.i64(at, r.seed),
        scale: e.float(at, scale, eltt),
        offset: e.float(at, offset, eltt),
        normal,
        generator: r.generator,
    }
}

/// The value of a counter-based initialization (its operands `r`, from
/// [`random_operands`]) at the cell of linear index `lin` (an `index`):
/// [`Dist::value`]'s arithmetic, as the interpreter's (the generator's
/// value of the seed and the index scaled to `[low, high)`, or Box–Muller
/// of its values at `2 lin` and `2 lin + 1` scaled by the standard
/// deviation and shifted by the mean).
pub fn random<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    lin: Value<'c, 'a>,
    r: &RandomOperands<'c, 'a>,
    eltt: Type<'c>,
) -> Result<Value<'c, 'a>, ocannl_mlir::Error> {
    random_text(e, at, lin, r, eltt).map_err(ocannl_mlir::Error::unsupported)
}

/// [`random`], the reason as text.
fn random_text<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    lin: Value<'c, 'a>,
    r: &RandomOperands<'c, 'a>,
    eltt: Type<'c>,
) -> Result<Value<'c, 'a>, String> {
    let i64t = e.ty("i64").map_err(|e| e.to_string())?;
    let idx = e.op1(at, "arith.index_cast", &[lin], i64t, &[]);
    let bits = |counter| match r.generator {
        Generator::SplitMix64 => splitmix_bits(e, at, counter, r.seed, eltt),
        Generator::Threefry => threefry_bits(e, at, counter, r.seed, eltt),
    };
    if !r.normal {
        let f = bits(idx)?;
        let f = e.op1(at, "arith.mulf", &[f, r.scale], eltt, &[]);
        return Ok(e.op1(at, "arith.addf", &[f, r.offset], eltt, &[]));
    }
    // Box–Muller of the counters 2 lin and 2 lin + 1.
    let two = e.i64(at, 2);
    let first = e.op1(at, "arith.muli", &[idx, two], i64t, &[]);
    let one = e.i64(at, 1);
    let second = e.op1(at, "arith.addi", &[first, one], i64t, &[]);
    let unit = e.float(at, 1.0 / (1u64 << rng::FLOAT_BITS) as f64, eltt);
    let u = |counter| -> Result<Value<'c, 'a>, String> {
        let f = bits(counter)?;
        Ok(e.op1(at, "arith.mulf", &[f, unit], eltt, &[]))
    };
    let (u1, u2) = (u(first)?, u(second)?);
    let fone = e.float(at, 1.0, eltt);
    let q = e.op1(at, "arith.subf", &[fone, u1], eltt, &[]);
    let ln = e.op1(at, "math.log", &[q], eltt, &[]);
    let m2 = e.float(at, -2.0, eltt);
    let t = e.op1(at, "arith.mulf", &[ln, m2], eltt, &[]);
    let radius = e.op1(at, "math.sqrt", &[t], eltt, &[]);
    let tau = e.float(at, std::f64::consts::TAU, eltt);
    let angle = e.op1(at, "arith.mulf", &[u2, tau], eltt, &[]);
    let c = e.op1(at, "math.cos", &[angle], eltt, &[]);
    let z = e.op1(at, "arith.mulf", &[radius, c], eltt, &[]);
    let z = e.op1(at, "arith.mulf", &[z, r.scale], eltt, &[]);
    Ok(e.op1(at, "arith.addf", &[z, r.offset], eltt, &[]))
}

/// Threefry's value for the counter `counter` (an `i64`) and `seed` (an
/// `i64`), as [`rng::threefry01`]: block `counter / 4` encrypted under the
/// key (seed low, seed high, 0, 0), word `counter % 4`, its top
/// [`rng::FLOAT_BITS`] bits as a float of `eltt` (exact).
fn threefry_bits<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    counter: Value<'c, 'a>,
    seed: Value<'c, 'a>,
    eltt: Type<'c>,
) -> Result<Value<'c, 'a>, String> {
    let i64t = e.ty("i64").map_err(|e| e.to_string())?;
    let i32t = e.ty("i32").map_err(|e| e.to_string())?;
    let c64 = |v: u64| e.i64(at, v as i64);
    let c32 = |v: u32| e.int(at, v as i32 as i64, i32t);
    let low = |v: Value<'c, 'a>| e.op1(at, "arith.trunci", &[v], i32t, &[]);
    let high = |v: Value<'c, 'a>| {
        let s = c64(32);
        let h = e.op1(at, "arith.shrui", &[v, s], i64t, &[]);
        low(h)
    };
    let add = |a, b| e.op1(at, "arith.addi", &[a, b], i32t, &[]);
    let xor = |a, b| e.op1(at, "arith.xori", &[a, b], i32t, &[]);
    let rotl = |x: Value<'c, 'a>, r: u32| {
        let (l, rr) = (c32(r), c32(32 - r));
        let a = e.op1(at, "arith.shli", &[x, l], i32t, &[]);
        let b = e.op1(at, "arith.shrui", &[x, rr], i32t, &[]);
        e.op1(at, "arith.ori", &[a, b], i32t, &[])
    };
    let two = c64(2);
    let block = e.op1(at, "arith.shrui", &[counter, two], i64t, &[]);
    let three = c64(3);
    let lane = e.op1(at, "arith.andi", &[counter, three], i64t, &[]);
    let zero = c32(0);
    let key = [low(seed), high(seed), zero, zero];
    let parity = c32(rng::THREEFRY_PARITY);
    let k01 = xor(key[0], key[1]);
    let ks = [key[0], key[1], zero, zero, xor(parity, k01)];
    let mut x = [add(low(block), ks[0]), add(high(block), ks[1]), zero, zero];
    for r in 0..rng::THREEFRY_ROUNDS {
        let [ra, rb] = rng::THREEFRY_ROTATIONS[(r % 8) as usize];
        let (a, b) = if r % 2 == 0 { (1, 3) } else { (3, 1) };
        x[0] = add(x[0], x[a]);
        x[a] = xor(rotl(x[a], ra), x[0]);
        x[2] = add(x[2], x[b]);
        x[b] = xor(rotl(x[b], rb), x[2]);
        if r % 4 == 3 {
            let s = (r / 4 + 1) as usize;
            for (i, w) in x.iter_mut().enumerate() {
                *w = add(*w, ks[(s + i) % 5]);
            }
            x[3] = add(x[3], c32(s as u32));
        }
    }
    // Word `lane` of the block.
    let mut word = x[3];
    for l in (0..3).rev() {
        let k = c64(l as u64);
        let is = e.cmpi(at, ocannl_mlir::builder::CmpI::Eq, lane, k);
        word = e.op1(at, "arith.select", &[is, x[l], word], i32t, &[]);
    }
    let sh = c32(32 - rng::FLOAT_BITS);
    let top = e.op1(at, "arith.shrui", &[word, sh], i32t, &[]);
    Ok(e.op1(at, "arith.uitofp", &[top], eltt, &[]))
}

/// SplitMix64's value for the counter `counter` (an `i64`) and `seed`: the
/// [`rng::FLOAT_BITS`] top bits of [`rng::uniform01`]'s output, as a float
/// of `eltt` (an integer below `2^FLOAT_BITS`, exact).
fn splitmix_bits<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    counter: Value<'c, 'a>,
    seed: Value<'c, 'a>,
    eltt: Type<'c>,
) -> Result<Value<'c, 'a>, String> {
    let i64t = e.ty("i64").map_err(|e| e.to_string())?;
    let c = |v: u64| e.i64(at, v as i64);
    let golden = c(rng::GOLDEN);
    let x = e.op1(at, "arith.muli", &[counter, golden], i64t, &[]);
    let x = e.op1(at, "arith.addi", &[x, seed], i64t, &[]);
    let x = e.op1(at, "arith.addi", &[x, golden], i64t, &[]);
    let mix = |x: Value<'c, 'a>, shift: u32, mul: Option<u64>| -> Value<'c, 'a> {
        let sh = c(shift as u64);
        let t = e.op1(at, "arith.shrui", &[x, sh], i64t, &[]);
        let x = e.op1(at, "arith.xori", &[x, t], i64t, &[]);
        match mul {
            Some(m) => {
                let m = c(m);
                e.op1(at, "arith.muli", &[x, m], i64t, &[])
            }
            None => x,
        }
    };
    let x = mix(x, rng::SHIFTS[0], Some(rng::MIX1));
    let x = mix(x, rng::SHIFTS[1], Some(rng::MIX2));
    let x = mix(x, rng::SHIFTS[2], None);
    // The top bits.
    let sh = c((64 - rng::FLOAT_BITS) as u64);
    let top = e.op1(at, "arith.shrui", &[x, sh], i64t, &[]);
    Ok(e.op1(at, "arith.uitofp", &[top], eltt, &[]))
}
