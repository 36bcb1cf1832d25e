//! OCANNL's assignment model and its reference interpreter, in plain Rust.
//!
//! A routine is a sequence of statements over buffers (tensor nodes, in
//! row-major memory order batch, output, input): initializations, and
//! accumulating assignments `lhs =accum= op(rhs...)` over an iteration space
//! whose operand indices are affine expressions of the iterators and of
//! symbols (run-time indices). The interpreter computes in `f64`, directly
//! from the definitions, as the reference the compiled code is checked
//! against; a buffer of a narrower element type ([`Routine::elts`]) has its
//! cells rounded to it after each statement that writes it.
//!
//! Architecture invariant: no MLIR here; the runner converts the
//! `ocannl_assign` dialect into this model.

pub mod autodiff;
pub mod body;
pub mod coverage;
pub mod gather;
pub mod optim;
pub mod structured;
pub mod virtualize;

pub use body::{Body, CmpPred, Instr};
pub use coverage::{check_writes_each_cell_once, writes_each_cell_once, NotOnce};

use std::fmt;

pub use ocannl_ops::{uniform01, Accum, Dist, Generator, NumOp};

// The leaf types, defined below both shape inference and this crate.
pub use ocannl_ops::{
    affine, check_buffer, element_bytes, size, Affine, Elt, SizeError, MAX_BUFFER_BYTES,
};

/// A statement of a routine. Buffers are numbered.
#[derive(Clone, Debug)]
pub enum Stmt {
    Alloc {
        buf: usize,
        dims: Vec<u64>,
    },
    Fill {
        buf: usize,
        value: f64,
    },
    Range {
        buf: usize,
    },
    /// Counter-based pseudo-random cells (`uniform`, `normal`): cell `k`
    /// is `dist.value(generator, seed, k)`.
    Random {
        buf: usize,
        seed: u64,
        dist: Dist,
        generator: Generator,
    },
    Literal {
        buf: usize,
        values: Vec<f64>,
    },
    /// An accumulating assignment.
    Accum(Assignment),
}

/// An accumulating assignment: over the iteration `space`, buffer `lhs`
/// (indexed by `maps[0]`) accumulates with `accum` what `op` computes from
/// the `rhs` buffers (indexed by `maps[1..]`), starting from the neutral
/// element when `initialize_neutral`.
#[derive(Clone, Debug)]
pub struct Assignment {
    pub lhs: usize,
    pub rhs: Vec<usize>,
    pub accum: Accum,
    /// What each point computes from the elements it reads (a one-op
    /// body for `accum_unop|binop|ternop`).
    pub op: Body,
    pub initialize_neutral: bool,
    pub space: Vec<u64>,
    /// One per operand (lhs first): the index expressions of its axes.
    pub maps: Vec<Vec<Affine>>,
    /// The routine arguments bound to the maps' symbols.
    pub symbols: Vec<usize>,
    /// The dynamic indices (a gather's reads, a scatter's writes): the
    /// `k`-th is bound to the maps' symbol `symbols.len() + k`.
    pub dynamic: Vec<Dynamic>,
}

/// An index read from a buffer at each point: the element of operand
/// `rhs[source]` (at its map, which names no dynamic index), an integer in
/// `0..bound`. A point where it is not such an integer is skipped: it reads
/// nothing and writes nothing, as a one-hot row with no 1 in it selects
/// nothing. The body does not read the source (it holds an index, not a
/// value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dynamic {
    pub source: usize,
    pub bound: u64,
}

impl Dynamic {
    /// The index that value `v` denotes, if any.
    pub fn index_of(self, v: f64) -> Option<i64> {
        (v.fract() == 0.0 && v >= 0.0 && v < self.bound as f64).then_some(v as i64)
    }
}

/// An argument of a routine.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Buffer { dims: Vec<u64> },
    Index,
}

/// A routine: arguments (buffers or indices), statements, and the buffers it
/// returns. Argument `i` that is a buffer is buffer `i`.
#[derive(Clone, Debug)]
pub struct Routine {
    pub args: Vec<Arg>,
    pub stmts: Vec<Stmt>,
    pub results: Vec<usize>,
    /// The element type of each buffer narrower than f64, by number
    /// (every other buffer holds f64 values): the interpreter rounds such
    /// a buffer's cells to it ([`Elt::round`]) after each statement that
    /// writes it, as compiled code rounds a value once when it stores it
    /// (a sum accumulated in the compute type, then stored).
    pub elts: std::collections::BTreeMap<usize, Elt>,
}

impl Routine {
    /// The sizes of every buffer, by number: arguments and allocations
    /// (`None` for an index argument or a number no buffer has).
    pub fn buffer_dims(&self) -> Vec<Option<Vec<u64>>> {
        let mut dims: Vec<Option<Vec<u64>>> = self
            .args
            .iter()
            .map(|a| match a {
                Arg::Buffer { dims } => Some(dims.clone()),
                Arg::Index => None,
            })
            .collect();
        for s in &self.stmts {
            if let Stmt::Alloc { buf, dims: d } = s {
                if dims.len() <= *buf {
                    dims.resize(buf + 1, None);
                }
                dims[*buf] = Some(d.clone());
            }
        }
        dims
    }
}

/// A run-time value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Buffer { dims: Vec<u64>, data: Vec<f64> },
    Index(i64),
}

/// Why a routine's part (an assignment, a body, an optimizer's settings, a
/// structured form) is not valid, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid(pub String);

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Invalid {}

/// Why running a routine in the interpreter failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError(pub String);

impl std::error::Error for RunError {}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Strides of a row-major buffer.
pub fn row_major_strides(dims: &[u64]) -> Vec<u64> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// Calls `f` with every index of a space, in row-major order.
fn for_each(
    space: &[u64],
    mut f: impl FnMut(&[i64]) -> Result<(), RunError>,
) -> Result<(), RunError> {
    if space.contains(&0) {
        return Ok(());
    }
    let mut idx = vec![0i64; space.len()];
    loop {
        f(&idx)?;
        let mut k = space.len();
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            idx[k] += 1;
            if (idx[k] as u64) < space[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

struct Buffer {
    dims: Vec<u64>,
    strides: Vec<u64>,
    data: Vec<f64>,
}

impl Buffer {
    fn new(dims: Vec<u64>, data: Vec<f64>) -> Buffer {
        Buffer {
            strides: row_major_strides(&dims),
            dims,
            data,
        }
    }

    fn offset(&self, idx: &[i64]) -> Result<usize, RunError> {
        let mut off = 0u64;
        for (k, ((&i, &d), &s)) in idx.iter().zip(&self.dims).zip(&self.strides).enumerate() {
            if i < 0 || i as u64 >= d {
                return Err(RunError(format!(
                    "index {i} on axis {k} is outside the axis of {d} cell(s) (valid indices: 0 to {}); the index {idx:?} is out of bounds of a buffer of sizes {:?}",
                    d - 1,
                    self.dims
                )));
            }
            off += i as u64 * s;
        }
        Ok(off as usize)
    }
}

fn bad_index() -> RunError {
    RunError("an index expression overflows or divides by zero".into())
}

impl Stmt {
    /// The buffer it writes (none for an allocation).
    pub fn written(&self) -> Option<usize> {
        match self {
            Stmt::Alloc { .. } => None,
            Stmt::Fill { buf, .. }
            | Stmt::Range { buf }
            | Stmt::Random { buf, .. }
            | Stmt::Literal { buf, .. } => Some(*buf),
            Stmt::Accum(a) => Some(a.lhs),
        }
    }

    /// Whether it writes buffer `b`.
    pub fn writes(&self, b: usize) -> bool {
        self.written() == Some(b)
    }

    /// Whether it reads buffer `b` (an assignment's operand).
    pub fn reads(&self, b: usize) -> bool {
        matches!(self, Stmt::Accum(a) if a.rhs.contains(&b))
    }

    /// That an assignment's parts fit together ([`Assignment::check`]);
    /// other statements have no such parts.
    pub fn check_parts(&self) -> Result<(), Invalid> {
        match self {
            Stmt::Accum(a) => a.check(),
            _ => Ok(()),
        }
    }
}

impl Assignment {
    /// Whether it is a contraction as the kernels of every target compute
    /// one: `lhs += a * b` over a space with a reduced iterator (one no
    /// index of the result mentions), each operand read by several points
    /// (an iterator it does not mention), so that a kernel reuses operand
    /// cells from registers or shared memory. Its operands are buffers:
    /// virtualization inlines nothing into them.
    pub fn is_contraction(&self) -> bool {
        let mentions = |m: &[Affine], d: usize| m.iter().any(|e| e.mentions(d));
        let dims = 0..self.space.len();
        self.accum == Accum::Add
            && self.dynamic.is_empty()
            && self.op.as_op() == Some(NumOp::Binary(ocannl_ops::BinaryOp::Mul))
            && self.rhs.len() == 2
            && self.maps.len() == 3
            && dims.clone().any(|d| !mentions(&self.maps[0], d))
            && self.maps[1..]
                .iter()
                .all(|m| dims.clone().any(|d| !mentions(m, d)))
    }

    /// That its parts fit together, whatever its buffers: one index map per
    /// buffer, indices of iterators and symbols that exist, a body that
    /// checks and reads no more operands than there are, sizes that fit an
    /// index.
    pub fn check(&self) -> Result<(), Invalid> {
        self.check_text().map_err(Invalid)
    }

    /// The same, the reason as text.
    fn check_text(&self) -> Result<(), String> {
        let Assignment {
            lhs,
            rhs,
            op,
            space,
            maps,
            symbols,
            dynamic,
            ..
        } = self;
        if let Err(m) = op.check() {
            return Err(format!("an invalid body: {m}"));
        }
        if op.operand_count() > rhs.len() {
            return Err(format!(
                "a body reading {} operand(s) applied to {} operand(s)",
                op.operand_count(),
                rhs.len()
            ));
        }
        if maps.len() != rhs.len() + 1 {
            return Err(format!(
                "{} index maps for {} buffers",
                maps.len(),
                rhs.len() + 1
            ));
        }
        if space.iter().any(|&d| i64::try_from(d).is_err()) {
            return Err(format!("the iteration space {space:?} is too large"));
        }
        let bad = |e: &Affine| match e {
            Affine::Dim(d) => *d >= space.len(),
            Affine::Sym(k) => *k >= symbols.len() + dynamic.len(),
            _ => false,
        };
        for (m, b) in maps.iter().zip(std::iter::once(lhs).chain(rhs)) {
            if m.iter().any(|e| e.any_leaf(&bad)) {
                return Err(format!(
                    "an index map of buffer {b} names an iterator or a symbol that does not exist"
                ));
            }
        }
        let is_dynamic = |e: &Affine| matches!(e, Affine::Sym(k) if *k >= symbols.len());
        for (k, d) in dynamic.iter().enumerate() {
            if d.source >= rhs.len() {
                return Err(format!(
                    "dynamic index {k} is read from operand {}, of {} operand(s)",
                    d.source,
                    rhs.len()
                ));
            }
            if maps[d.source + 1].iter().any(|e| e.any_leaf(&is_dynamic)) {
                return Err(format!(
                    "dynamic index {k} is read from operand {} at a dynamic index",
                    d.source
                ));
            }
            if d.bound == 0 || i64::try_from(d.bound).is_err() {
                return Err(format!(
                    "dynamic index {k} has the bound {}: it must be at least 1 and fit an index",
                    d.bound
                ));
            }
            if op.reads(d.source) {
                return Err(format!(
                    "the body reads operand {}, the source of dynamic index {k}",
                    d.source
                ));
            }
        }
        Ok(())
    }
}

/// Checks that a statement fits the routine: its parts fit together
/// ([`Stmt::check_parts`]), its buffers exist with one index expression per
/// axis, and its symbols are bound to index arguments.
fn check_stmt(s: &Stmt, bufs: &[Option<Buffer>], args: &[Arg]) -> Result<(), RunError> {
    s.check_parts().map_err(|e| RunError(e.to_string()))?;
    let Stmt::Accum(Assignment {
        lhs,
        rhs,
        maps,
        symbols,
        ..
    }) = s
    else {
        return Ok(());
    };
    let fail = |m: String| Err(RunError(m));
    for (k, &a) in symbols.iter().enumerate() {
        if args.get(a) != Some(&Arg::Index) {
            return fail(format!(
                "symbol s{k} is bound to argument {a}, which is not an index"
            ));
        }
    }
    for (m, b) in maps.iter().zip(std::iter::once(lhs).chain(rhs)) {
        let rank = match bufs.get(*b) {
            Some(Some(buf)) => buf.dims.len(),
            _ => return fail(format!("buffer {b} is not allocated")),
        };
        if m.len() != rank {
            return fail(format!(
                "an index map of {} expression(s) for buffer {b} of rank {rank}",
                m.len()
            ));
        }
    }
    Ok(())
}

/// Runs a routine on its arguments and returns its results.
pub fn run(r: &Routine, args: &[Value]) -> Result<Vec<Value>, RunError> {
    run_mut(r, &mut args.to_vec())
}

/// As [`run`], and the buffer arguments hold their final values afterwards
/// (a routine may write into its arguments: params updated in place,
/// initialization routines).
pub fn run_mut(r: &Routine, args: &mut [Value]) -> Result<Vec<Value>, RunError> {
    if args.len() != r.args.len() {
        return Err(RunError(format!(
            "the routine takes {} arguments, {} given",
            r.args.len(),
            args.len()
        )));
    }
    let mut bufs: Vec<Option<Buffer>> = vec![];
    let mut scalars: Vec<i64> = vec![];
    for (a, v) in r.args.iter().zip(args.iter()) {
        match (a, v) {
            (Arg::Buffer { dims }, Value::Buffer { dims: d, data })
                if dims == d && check_buffer(dims, 8).is_ok_and(|n| data.len() as u64 == n) =>
            {
                let mut data = data.clone();
                if let Some(elt) = r.elts.get(&bufs.len()) {
                    data.iter_mut().for_each(|x| *x = elt.round(*x));
                }
                bufs.push(Some(Buffer::new(dims.clone(), data)));
                scalars.push(0);
            }
            (Arg::Index, Value::Index(i)) => {
                bufs.push(None);
                scalars.push(*i);
            }
            _ => return Err(RunError(format!("argument {v:?} does not fit {a:?}"))),
        }
    }
    for s in &r.stmts {
        check_stmt(s, &bufs, &r.args)?;
        match s {
            Stmt::Alloc { buf, dims } => {
                // Buffers are numbered densely: arguments, then one per
                // allocation at most.
                if *buf >= r.args.len() + r.stmts.len() {
                    return Err(RunError(format!(
                        "buffer number {buf} is beyond the routine's {} buffers",
                        r.args.len() + r.stmts.len()
                    )));
                }
                if bufs.len() <= *buf {
                    bufs.resize_with(buf + 1, || None);
                }
                let n = check_buffer(dims, 8).map_err(|e| RunError(e.to_string()))?;
                // A node's cells are undefined until written (the compiled
                // code allocates without initializing): NaN, so that a
                // read of one shows in every result it reaches.
                let data = size::filled(n, f64::NAN).map_err(|e| RunError(e.to_string()))?;
                bufs[*buf] = Some(Buffer::new(dims.clone(), data));
            }
            Stmt::Fill { buf, value } => {
                let i = live(&bufs, *buf)?;
                bufs[i].as_mut().expect("checked").data.fill(*value);
            }
            Stmt::Range { buf } => {
                let i = live(&bufs, *buf)?;
                for (k, x) in bufs[i]
                    .as_mut()
                    .expect("checked")
                    .data
                    .iter_mut()
                    .enumerate()
                {
                    *x = k as f64;
                }
            }
            Stmt::Random {
                buf,
                seed,
                dist,
                generator,
            } => {
                let i = live(&bufs, *buf)?;
                for (k, x) in bufs[i]
                    .as_mut()
                    .expect("checked")
                    .data
                    .iter_mut()
                    .enumerate()
                {
                    *x = dist.value(*generator, *seed, k as u64);
                }
            }
            Stmt::Literal { buf, values } => {
                let i = live(&bufs, *buf)?;
                let b = bufs[i].as_mut().expect("checked");
                if values.len() != b.data.len() {
                    return Err(RunError(format!(
                        "a literal of {} values for {} cells",
                        values.len(),
                        b.data.len()
                    )));
                }
                b.data.copy_from_slice(values);
            }
            Stmt::Accum(_) => accumulate(&mut bufs, &scalars, s)?,
        }
        // The written buffer's cells, rounded to its element type.
        if let Some((b, elt)) = s.written().and_then(|b| Some((b, *r.elts.get(&b)?))) {
            if let Some(Some(buf)) = bufs.get_mut(b) {
                buf.data.iter_mut().for_each(|x| *x = elt.round(*x));
            }
        }
    }
    let results = r
        .results
        .iter()
        .map(|&k| {
            let i = live(&bufs, k)?;
            let b = bufs[i].as_ref().expect("checked");
            Ok(Value::Buffer {
                dims: b.dims.clone(),
                data: b.data.clone(),
            })
        })
        .collect::<Result<Vec<_>, RunError>>()?;
    for (k, a) in args.iter_mut().enumerate() {
        if let (Value::Buffer { data, .. }, Some(Some(b))) = (a, bufs.get_mut(k)) {
            std::mem::swap(data, &mut b.data);
        }
    }
    Ok(results)
}

/// Buffer `i` when it is allocated.
fn live(bufs: &[Option<Buffer>], i: usize) -> Result<usize, RunError> {
    match bufs.get(i) {
        Some(Some(_)) => Ok(i),
        _ => Err(RunError(format!("buffer {i} is not allocated"))),
    }
}

/// Whether an index of a padded expression falls outside its axis: the
/// read gives the padding value, the write is dropped.
fn in_padding(map: &[Affine], idx: &[i64], dims: &[u64]) -> bool {
    map.iter()
        .zip(idx)
        .zip(dims)
        .any(|((e, &i), &d)| e.is_padded() && (i < 0 || i as u64 >= d))
}

/// Runs one assignment (checked by [`check_stmt`]) over the buffers, with
/// the routine's index arguments `scalars`.
fn accumulate(bufs: &mut [Option<Buffer>], scalars: &[i64], s: &Stmt) -> Result<(), RunError> {
    let Stmt::Accum(Assignment {
        lhs,
        rhs,
        accum,
        op,
        initialize_neutral,
        space,
        maps,
        symbols,
        dynamic,
    }) = s
    else {
        return Ok(());
    };
    let l = live(bufs, *lhs)?;
    let mut syms: Vec<i64> = symbols
        .iter()
        .map(|&k| scalars.get(k).copied().unwrap_or(0))
        .collect();
    if *initialize_neutral {
        bufs[l]
            .as_mut()
            .expect("checked")
            .data
            .fill(accum.neutral());
    }
    let rs: Vec<usize> = rhs
        .iter()
        .map(|&k| live(bufs, k))
        .collect::<Result<_, _>>()?;
    let mut vals = vec![0.0; rs.len()];
    let mut scratch = vec![];
    let mut idx = vec![];
    let fixed = syms.len();
    syms.resize(fixed + dynamic.len(), 0);
    for_each(space, |it| {
        // The dynamic indices first: a point without one is skipped.
        for (k, d) in dynamic.iter().enumerate() {
            idx.clear();
            for e in &maps[d.source + 1] {
                idx.push(e.eval(it, &syms).ok_or_else(bad_index)?);
            }
            let b = bufs[rs[d.source]].as_ref().expect("checked");
            let v = if in_padding(&maps[d.source + 1], &idx, &b.dims) {
                accum.neutral()
            } else {
                b.data[b.offset(&idx)?]
            };
            match d.index_of(v) {
                Some(i) => syms[fixed + k] = i,
                None => return Ok(()),
            }
        }
        for (k, &rb) in rs.iter().enumerate() {
            idx.clear();
            for e in &maps[k + 1] {
                idx.push(e.eval(it, &syms).ok_or_else(bad_index)?);
            }
            let b = bufs[rb].as_ref().expect("checked");
            vals[k] = if in_padding(&maps[k + 1], &idx, &b.dims) {
                accum.neutral()
            } else {
                b.data[b.offset(&idx)?]
            };
        }
        let v = op
            .eval_with(&vals, &mut scratch)
            .ok_or_else(|| RunError(format!("the body {op} cannot be evaluated on {vals:?}")))?;
        idx.clear();
        for e in &maps[0] {
            idx.push(e.eval(it, &syms).ok_or_else(bad_index)?);
        }
        let b = bufs[l].as_mut().expect("checked");
        // A padded index of the result (the gradient of a padded read)
        // outside the buffer writes into the padding: the write is dropped.
        if in_padding(&maps[0], &idx, &b.dims) {
            return Ok(());
        }
        let o = b.offset(&idx)?;
        b.data[o] = accum.apply(b.data[o], v);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(i: usize) -> Affine {
        Affine::Dim(i)
    }

    #[test]
    fn matmul_and_reduction() {
        // c[i, j] += a[i, k] * b[k, j] with c reset to 0, then s = max over c.
        let r = Routine {
            elts: Default::default(),
            args: vec![
                Arg::Buffer { dims: vec![2, 3] },
                Arg::Buffer { dims: vec![3, 2] },
            ],
            stmts: vec![
                Stmt::Alloc {
                    buf: 2,
                    dims: vec![2, 2],
                },
                Stmt::Accum(Assignment {
                    lhs: 2,
                    rhs: vec![0, 1],
                    accum: Accum::Add,
                    op: NumOp::parse(2, "mul").unwrap().into(),
                    initialize_neutral: true,
                    space: vec![2, 2, 3],
                    maps: vec![vec![d(0), d(1)], vec![d(0), d(2)], vec![d(2), d(1)]],
                    symbols: vec![],
                    dynamic: vec![],
                }),
                Stmt::Alloc {
                    buf: 3,
                    dims: vec![1],
                },
                Stmt::Accum(Assignment {
                    lhs: 3,
                    rhs: vec![2],
                    accum: Accum::Max,
                    op: NumOp::parse(1, "identity").unwrap().into(),
                    initialize_neutral: true,
                    space: vec![2, 2],
                    maps: vec![vec![Affine::Const(0)], vec![d(0), d(1)]],
                    symbols: vec![],
                    dynamic: vec![],
                }),
            ],
            results: vec![2, 3],
        };
        let a = Value::Buffer {
            dims: vec![2, 3],
            data: vec![1., 2., 3., 4., 5., 6.],
        };
        let b = Value::Buffer {
            dims: vec![3, 2],
            data: vec![1., 2., 3., 4., 5., 6.],
        };
        let out = run(&r, &[a, b]).unwrap();
        assert_eq!(
            out[0],
            Value::Buffer {
                dims: vec![2, 2],
                data: vec![22., 28., 49., 64.]
            }
        );
        assert_eq!(
            out[1],
            Value::Buffer {
                dims: vec![1],
                data: vec![64.]
            }
        );
    }

    #[test]
    fn slice_and_errors() {
        // y[j] = x[s0, j]
        let r = Routine {
            elts: Default::default(),
            args: vec![Arg::Buffer { dims: vec![3, 2] }, Arg::Index],
            stmts: vec![
                Stmt::Alloc {
                    buf: 2,
                    dims: vec![2],
                },
                Stmt::Accum(Assignment {
                    lhs: 2,
                    rhs: vec![0],
                    accum: Accum::Assign,
                    op: NumOp::parse(1, "identity").unwrap().into(),
                    initialize_neutral: false,
                    space: vec![2],
                    maps: vec![vec![d(0)], vec![Affine::Sym(0), d(0)]],
                    symbols: vec![1],
                    dynamic: vec![],
                }),
            ],
            results: vec![2],
        };
        let x = Value::Buffer {
            dims: vec![3, 2],
            data: vec![0., 1., 2., 3., 4., 5.],
        };
        assert_eq!(
            run(&r, &[x.clone(), Value::Index(2)]).unwrap()[0],
            Value::Buffer {
                dims: vec![2],
                data: vec![4., 5.]
            }
        );
        let e = run(&r, &[x, Value::Index(3)]).unwrap_err();
        assert!(e.0.contains("out of bounds"), "{e}");
    }

    #[test]
    fn index_ranges() {
        use Affine::{Const, Dim};
        let add = |a: Affine, b: Affine| Affine::Add(Box::new(a), Box::new(b));
        let mul = |a: Affine, b: Affine| Affine::Mul(Box::new(a), Box::new(b));
        let space = [10, 3];
        // An index, its range over the space, whether it is padded.
        type Case = (Affine, Option<(i64, i64)>, bool);
        let cases: Vec<Case> = vec![
            (Dim(0), Some((0, 9)), false),
            (Const(2), Some((2, 2)), false),
            (add(add(Dim(0), Dim(1)), Const(-1)), Some((-1, 10)), true),
            (add(mul(Dim(0), Const(2)), Dim(1)), Some((0, 20)), true),
            (mul(Const(-1), Dim(1)), Some((-2, 0)), true),
            (
                Affine::FloorDiv(Box::new(Dim(0)), Box::new(Const(4))),
                Some((0, 2)),
                true,
            ),
            (
                Affine::Mod(Box::new(Dim(0)), Box::new(Const(4))),
                Some((0, 3)),
                true,
            ),
            (add(Dim(0), Affine::Sym(0)), None, false),
            (mul(Dim(0), Dim(1)), None, true),
        ];
        for (e, range, padded) in cases {
            assert_eq!(e.range(&space), range, "{e:?}");
            assert_eq!(e.is_padded(), padded, "{e:?}");
        }
    }

    #[test]
    fn padded_reads_yield_the_neutral_element() {
        // y[o] = sum_k x[o + k - 1] * w[k] and m[o] = max_k x[o + k - 1]
        // over a 4-cell x: the cells beyond x read 0 and -inf.
        let conv = vec![Affine::Add(
            Box::new(Affine::Add(
                Box::new(Affine::Dim(0)),
                Box::new(Affine::Dim(1)),
            )),
            Box::new(Affine::Const(-1)),
        )];
        let stmt = |lhs, accum, op: &str, rhs: Vec<usize>, maps| {
            Stmt::Accum(Assignment {
                lhs,
                accum,
                op: NumOp::parse_assign(rhs.len(), op).unwrap().into(),
                rhs,
                initialize_neutral: true,
                space: vec![4, 3],
                maps,
                symbols: vec![],
                dynamic: vec![],
            })
        };
        let r = Routine {
            elts: Default::default(),
            args: vec![Arg::Buffer { dims: vec![4] }, Arg::Buffer { dims: vec![3] }],
            stmts: vec![
                Stmt::Alloc {
                    buf: 2,
                    dims: vec![4],
                },
                stmt(
                    2,
                    Accum::Add,
                    "mul",
                    vec![0, 1],
                    vec![vec![Affine::Dim(0)], conv.clone(), vec![Affine::Dim(1)]],
                ),
                Stmt::Alloc {
                    buf: 3,
                    dims: vec![4],
                },
                stmt(
                    3,
                    Accum::Max,
                    "identity",
                    vec![0],
                    vec![vec![Affine::Dim(0)], conv],
                ),
            ],
            results: vec![2, 3],
        };
        let x = Value::Buffer {
            dims: vec![4],
            data: vec![1., 2., 3., 4.],
        };
        let w = Value::Buffer {
            dims: vec![3],
            data: vec![1., 10., 100.],
        };
        let out = run(&r, &[x, w]).unwrap();
        assert_eq!(
            out[0],
            Value::Buffer {
                dims: vec![4],
                data: vec![210., 321., 432., 43.]
            }
        );
        assert_eq!(
            out[1],
            Value::Buffer {
                dims: vec![4],
                data: vec![2., 3., 4., 4.]
            }
        );
    }

    #[test]
    fn ops_table() {
        let cases: &[(&str, &[f64], f64)] = &[
            ("relu", &[-2.0], 0.0),
            ("relu_gate", &[1.0, 7.0], 7.0),
            ("relu_gate", &[-1.0, 7.0], 0.0),
            ("cmplt", &[1.0, 2.0], 1.0),
            ("where", &[0.0, 1.0, 2.0], 2.0),
            ("fma", &[2.0, 3.0, 4.0], 10.0),
            ("satur01", &[3.0], 1.0),
            ("recip", &[4.0], 0.25),
        ];
        for (op, args, want) in cases {
            let o = NumOp::parse_assign(args.len(), op).unwrap();
            assert_eq!(o.eval(args), Some(*want), "{op}");
        }
        assert_eq!(Accum::Max.apply(Accum::Max.neutral(), -5.0), -5.0);
        assert!((0.0..1.0).contains(&uniform01(42, 7)));
        assert_ne!(uniform01(42, 7), uniform01(42, 8));
    }
}
