//! Virtualization: OCANNL's memory modes for tensor nodes, and the inlining
//! of virtual nodes into the assignments that read them.
//!
//! A node is *virtual* when it gets no buffer: its one defining computation
//! is substituted, through the projections, into every assignment that
//! reads it, so each reader computes the cell it needs where it reads it.
//! A node that cannot be virtual keeps a buffer: *local* (it lives within
//! one routine), unless it is returned (*materialized*) or its mode was
//! pinned by the user. The decision and its reason are data
//! ([`Decision`]), which the `ocannl-virtualize` pass writes on each node.
//!
//! OCANNL's refusals, as implemented here (each a [`Refusal`]):
//! - the node is returned, pinned, or a param's gradient;
//! - it is never written, written by more than one computation, written
//!   from data (`range`, `uniform`, a literal), or read before it is
//!   written;
//! - its computation reduces (an iterator that does not index the node),
//!   writes part of it (a fixed index), writes a diagonal or a padded
//!   index (inconsistent index patterns), or reads itself;
//! - a buffer its computation reads is written before a reader reads the
//!   node (inlined, the reader would see the new values);
//! - a statement reading or writing it is malformed;
//! - a reader reads it at a padded index, or pads differently;
//! - a reader is a contraction (`lhs += a * b` reducing, each operand
//!   reused: [`Assignment::is_contraction`]), which every target's kernel
//!   computes from buffers (not in OCANNL, which has no such kernels:
//!   inlined there, a contraction becomes a general accumulation in scalar
//!   loops over its whole space);
//! - a cell would be computed more often than the visit budget
//!   (OCANNL's `max_visits`, 1 by default): reads that broadcast it, or
//!   several readers. Constant expressions (OCANNL's scalar constexprs,
//!   always virtual) and copies are exempt, as OCANNL exempts simple
//!   tensors.
//!
//! OCANNL's "escaping symbol" refusals have no case here: symbols are the
//! routine's index arguments, in scope in every assignment, and inlining
//! merges the producer's into the reader's.
//!
//! Architecture invariant: plain Rust over the assignment model.

use std::collections::HashMap;
use std::fmt;

use crate::{Affine, Assignment, NotOnce, Routine, Stmt};

/// A node's memory mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// No buffer: computed where it is read.
    Virtual,
    /// A buffer within one routine.
    Local,
    /// A buffer that persists across calls on the device.
    OnDevice,
    /// A buffer readable from the host (results).
    Materialized,
}

impl Memory {
    pub const ALL: [Memory; 4] = [
        Memory::Virtual,
        Memory::Local,
        Memory::OnDevice,
        Memory::Materialized,
    ];

    /// The name of the `memory` attribute.
    pub fn name(self) -> &'static str {
        match self {
            Memory::Virtual => "virtual",
            Memory::Local => "local",
            Memory::OnDevice => "on_device",
            Memory::Materialized => "materialized",
        }
    }

    pub fn parse(s: &str) -> Option<Memory> {
        Self::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// Why a node is not virtual.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    Returned,
    Pinned(Memory),
    /// Given by the caller (a param's gradient, optimizer state).
    Never(String),
    NeverWritten,
    Writers(usize),
    FromData,
    ReadBeforeWritten,
    Reduction {
        iterator: usize,
        size: u64,
    },
    PartialWrite {
        axis: usize,
    },
    IndexPattern {
        axis: usize,
        index: String,
    },
    ReadsItself,
    /// Its computation accumulates onto cells nothing set before.
    AccumulatesOntoUnset,
    /// A buffer its computation reads is written between the computation
    /// and a reader (or by the reader): inlined, the read would see the new
    /// value.
    InputOverwritten,
    /// A statement reading or writing it is malformed (the interpreter and
    /// the verifier say how).
    Malformed,
    PaddedRead {
        index: String,
    },
    Padding {
        reader: f64,
        writer: f64,
    },
    Visits {
        visits: u64,
        budget: u64,
    },
    /// A reader is a contraction ([`Assignment::is_contraction`]), which
    /// the kernels compute from buffers: inlined, it would become a
    /// general accumulation in scalar loops over the whole space.
    ContractionOperand,
    /// A statement reading or writing it has a dynamic index (a gather or
    /// a scatter): which cells it touches is known only at run time.
    Dynamic,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Returned => write!(f, "returned by the routine"),
            Refusal::Pinned(m) => write!(f, "pinned {}", m.name()),
            Refusal::Never(why) => write!(f, "{why}"),
            Refusal::NeverWritten => write!(f, "read but never written"),
            Refusal::Writers(n) => write!(f, "written by {n} computations"),
            Refusal::FromData => write!(f, "initialized from data"),
            Refusal::ReadBeforeWritten => write!(f, "read before it is written"),
            Refusal::Reduction { iterator, size } => write!(
                f,
                "its computation reduces over iterator d{iterator} of size {size}, which would be recomputed per cell read"
            ),
            Refusal::PartialWrite { axis } => {
                write!(f, "its computation writes only part of axis {axis}")
            }
            Refusal::IndexPattern { axis, index } => {
                write!(f, "inconsistent index pattern: axis {axis} is written at {index}")
            }
            Refusal::ReadsItself => write!(f, "its computation reads the node itself"),
            Refusal::AccumulatesOntoUnset => write!(
                f,
                "its computation accumulates onto cells nothing set before"
            ),
            Refusal::InputOverwritten => write!(
                f,
                "a buffer its computation reads is written before a reader reads the node"
            ),
            Refusal::PaddedRead { index } => write!(f, "read at the padded index {index}"),
            Refusal::Padding { reader, writer } => write!(
                f,
                "its computation pads with {writer} but a reader pads with {reader}"
            ),
            Refusal::Visits { visits, budget } => write!(
                f,
                "each cell would be computed {visits} times (budget: {budget})"
            ),
            Refusal::Malformed => write!(f, "an assignment reading or writing it is malformed"),
            Refusal::Dynamic => write!(
                f,
                "a gather or a scatter (a dynamic index) reads or writes it"
            ),
            Refusal::ContractionOperand => write!(
                f,
                "an operand of a contraction, which its kernel reads from a buffer"
            ),
        }
    }
}

/// The decision for one node (an allocated buffer of the routine).
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub buf: usize,
    pub memory: Memory,
    /// Why (`None` for a virtual node, which needs none beyond its mode).
    pub refusal: Option<Refusal>,
    /// For a virtual node: how many assignments it was inlined into.
    pub inlined_into: usize,
    /// For a virtual node computed more often than the visit budget
    /// because that is cheaper than a buffer ([`cheaper_recomputed`]):
    /// how many times each cell is computed.
    pub recomputed: Option<u64>,
}

impl Decision {
    /// The reason as the pass writes it on the node.
    pub fn reason(&self) -> String {
        match &self.refusal {
            Some(r) => r.to_string(),
            None => {
                let mut why = format!(
                    "inlined into {} assignment{}",
                    self.inlined_into,
                    if self.inlined_into == 1 { "" } else { "s" }
                );
                if let Some(n) = self.recomputed {
                    why.push_str(&format!(
                        ", each cell computed {n} times (cheaper than a buffer)"
                    ));
                }
                why
            }
        }
    }
}

/// What the caller knows of a node.
#[derive(Clone, Debug, Default)]
pub struct NodeInfo {
    /// The mode the user gave (`None`: to decide).
    pub pinned: Option<Memory>,
    /// Why it must not be virtual, if it must not.
    pub never_virtual: Option<String>,
}

#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The most times one cell of a virtual node may be computed.
    pub max_visits: u64,
    /// Whether a node whose recomputation costs less than its buffer
    /// ([`cheaper_recomputed`]) is virtual beyond `max_visits`.
    pub recompute_when_cheaper: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_visits: 1,
            recompute_when_cheaper: true,
        }
    }
}

/// What reading or writing one cell of a buffer costs, in units of a cheap
/// arithmetic op ([`crate::Body::weighted_cost`]): the element-wise
/// kernels around contractions are bound by memory, where a core waits
/// for a cell about as long as it takes to compute a few ops.
pub const MEMORY_ACCESS_COST: u64 = 4;

/// Whether computing each cell of a node `visits` times where it is read
/// costs no more than computing it once into a buffer: `visits · (C + r·M)
/// ≤ C + r·M + M + visits·M`, with `C` the body's
/// [`weighted_cost`](crate::Body::weighted_cost), `M`
/// [`MEMORY_ACCESS_COST`] and `r` the cells of input buffers read per cell
/// (`operand_reads`; an operand broadcast over `k` cells of the node is
/// read once for all of them and counts `1/k`): recomputed, each visit
/// reads the inputs again; kept, the cell is written once and read at each
/// visit. A scale `x·c` or a centring `x - mean(x)` read three times is
/// recomputed; `1 + erf(x)` read twice, or a row's `sqrt(var + eps)` read
/// by each of the row's 128 cells, keeps its buffer.
pub fn cheaper_recomputed(body: &crate::Body, operand_reads: f64, visits: u64) -> bool {
    let c = body.weighted_cost() as f64;
    let m = MEMORY_ACCESS_COST as f64;
    let once = c + operand_reads * m;
    let v = visits as f64;
    v * once <= once + m + v * m
}

/// The cells of input buffers one cell of a computation reads: each
/// operand the body reads counts `1/k`, `k` the cells of the iteration
/// space its map does not depend on (a broadcast operand is read once for
/// all of them).
fn operand_reads(a: &Assignment) -> f64 {
    a.rhs
        .iter()
        .enumerate()
        .filter(|(k, _)| a.op.reads(*k))
        .map(|(k, _)| {
            let shared: u64 = (0..a.space.len())
                .filter(|&d| !a.maps[k + 1].iter().any(|e| e.mentions(d)))
                .map(|d| a.space[d])
                .fold(1u64, |x, y| x.saturating_mul(y));
            1.0 / shared.max(1) as f64
        })
        .sum()
}

/// The outcome: one decision per allocated node, and the statements
/// changed (by index into the routine's statements: `Some` replaced,
/// `None` removed).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub decisions: Vec<Decision>,
    pub changes: Vec<(usize, Option<Stmt>)>,
}

/// The one computation defining a node: its statement and the body of a
/// cell's value.
struct Producer {
    /// Statements writing the node (removed when it is virtual).
    writers: Vec<usize>,
    /// The defining assignment (`None` for a constant fill).
    stmt: Option<Stmt>,
    /// A cell's value: the assignment's body accumulated onto the initial
    /// value, or the constant.
    body: crate::Body,
    /// Cells computed this many times, beyond the visit budget.
    recomputed: Option<u64>,
}

/// Which statements mention each buffer, and the allocations' dims: what
/// each node's decision reads of the routine, without a scan of every
/// statement per node (a deep model's routines have thousands of each).
/// The lists are supersets (a removed or rewritten statement stays listed;
/// the callers check what a statement does now), in increasing order once
/// [`Index::of`] sorts them.
struct Index {
    users: HashMap<usize, Vec<usize>>,
    dims: HashMap<usize, Vec<u64>>,
}

impl Index {
    fn new(stmts: &[Option<Stmt>]) -> Index {
        let mut index = Index {
            users: HashMap::new(),
            dims: HashMap::new(),
        };
        for (k, s) in stmts.iter().enumerate() {
            match s {
                Some(Stmt::Alloc { buf, dims }) => {
                    index.dims.insert(*buf, dims.clone());
                }
                Some(s) => index.add(k, s),
                None => {}
            }
        }
        index
    }

    /// Lists statement `k` (as it is now) under every buffer it mentions.
    fn add(&mut self, k: usize, s: &Stmt) {
        let bufs: Vec<usize> = match s {
            Stmt::Fill { buf, .. }
            | Stmt::Range { buf }
            | Stmt::Random { buf, .. }
            | Stmt::Literal { buf, .. } => vec![*buf],
            Stmt::Accum(Assignment { lhs, rhs, .. }) => {
                std::iter::once(*lhs).chain(rhs.iter().copied()).collect()
            }
            Stmt::Alloc { .. } => vec![],
        };
        for b in bufs {
            let list = self.users.entry(b).or_default();
            if list.last() != Some(&k) {
                list.push(k);
            }
        }
    }

    /// The statements that may mention buffer `v`, in order, each once.
    fn of(&mut self, v: usize) -> &[usize] {
        let list = self.users.entry(v).or_default();
        list.sort_unstable();
        list.dedup();
        list
    }
}

/// Decides every node's mode and inlines the virtual ones. `nodes` gives
/// what the caller knows of each allocated buffer (by buffer number; others
/// get the default).
pub fn virtualize(r: &Routine, nodes: &dyn Fn(usize) -> NodeInfo, opts: Options) -> Plan {
    let mut stmts: Vec<Option<Stmt>> = r.stmts.iter().cloned().map(Some).collect();
    let mut index = Index::new(&stmts);
    let mut changed = vec![false; stmts.len()];
    let mut decisions = vec![];
    let allocs: Vec<(usize, usize)> = r
        .stmts
        .iter()
        .enumerate()
        .filter_map(|(k, s)| match s {
            Stmt::Alloc { buf, .. } => Some((k, *buf)),
            _ => None,
        })
        .collect();
    for &(_, v) in &allocs {
        let info = nodes(v);
        let refusal = if r.results.contains(&v) {
            Err(Refusal::Returned)
        } else if let Some(m) = info.pinned.filter(|m| *m != Memory::Virtual) {
            Err(Refusal::Pinned(m))
        } else if let Some(why) = info.never_virtual.clone() {
            Err(Refusal::Never(why))
        } else {
            decide(&stmts, &mut index, v, opts)
        };
        match refusal {
            Ok((p, readers)) => {
                for &w in &p.writers {
                    stmts[w] = None;
                    changed[w] = true;
                }
                let mut into = 0;
                for c in readers {
                    let Some(Stmt::Accum(_)) = &stmts[c] else {
                        continue;
                    };
                    while let Some(new) = inline_once(stmts[c].as_ref().expect("reader"), v, &p) {
                        // (The reader now reads what the producer read.)
                        index.add(c, &new);
                        stmts[c] = Some(new);
                    }
                    changed[c] = true;
                    into += 1;
                }
                decisions.push(Decision {
                    buf: v,
                    memory: Memory::Virtual,
                    refusal: None,
                    inlined_into: into,
                    recomputed: p.recomputed,
                });
            }
            Err(why) => {
                let memory = match &why {
                    Refusal::Returned => Memory::Materialized,
                    Refusal::Pinned(m) => *m,
                    _ => Memory::Local,
                };
                decisions.push(Decision {
                    buf: v,
                    memory,
                    refusal: Some(why),
                    inlined_into: 0,
                    recomputed: None,
                });
            }
        }
    }
    let changes = changed
        .iter()
        .enumerate()
        .filter(|(_, c)| **c)
        .map(|(k, _)| (k, stmts[k].clone()))
        .collect();
    Plan { decisions, changes }
}

fn decide(
    stmts: &[Option<Stmt>],
    index: &mut Index,
    v: usize,
    opts: Options,
) -> Result<(Producer, Vec<usize>), Refusal> {
    let users = index.of(v);
    let writers: Vec<usize> = users
        .iter()
        .copied()
        .filter(|&k| stmts[k].as_ref().is_some_and(|s| s.writes(v)))
        .collect();
    let readers: Vec<usize> = users
        .iter()
        .copied()
        .filter(|&k| stmts[k].as_ref().is_some_and(|s| s.reads(v)))
        .collect();
    if writers.iter().chain(&readers).any(|&k| {
        stmts[k]
            .as_ref()
            .expect("live statement")
            .check_parts()
            .is_err()
    }) {
        return Err(Refusal::Malformed);
    }
    if writers.is_empty() && readers.is_empty() {
        // Unused: no buffer is needed.
        return Ok((
            Producer {
                writers,
                stmt: None,
                body: crate::Body::constant(0.0),
                recomputed: None,
            },
            readers,
        ));
    }
    if writers.is_empty() {
        return Err(Refusal::NeverWritten);
    }
    if writers
        .iter()
        .chain(&readers)
        .any(|&k| matches!(stmts[k].as_ref(), Some(Stmt::Accum(a)) if !a.dynamic.is_empty()))
    {
        return Err(Refusal::Dynamic);
    }
    let last_writer = *writers.last().expect("writers");
    if readers.iter().any(|&c| c <= last_writer) {
        return Err(if readers.contains(&last_writer) {
            Refusal::ReadsItself
        } else {
            Refusal::ReadBeforeWritten
        });
    }
    let get = |k: usize| stmts[k].as_ref().expect("live statement");
    let (initial, stmt) = definition(stmts, &writers)?;
    let body = cell_body(index, v, initial, stmt.map(get))?;
    if let Some(p) = stmt {
        inputs_kept(stmts, index, p, &readers)?;
    }
    let visits = reads_per_cell(stmts, v, stmt.map(get), &readers)?;
    if readers
        .iter()
        .any(|&c| matches!(get(c), Stmt::Accum(a) if a.is_contraction()))
    {
        return Err(Refusal::ContractionOperand);
    }
    // Constant expressions (OCANNL's scalar constexprs: the body reads no
    // buffer) and copies are exempt from the budget.
    let exempt = body.is_trivial() || body.operand_count() == 0;
    let mut recomputed = None;
    if !exempt && visits > opts.max_visits {
        let cheaper = opts.recompute_when_cheaper
            && matches!(stmt.map(get), Some(Stmt::Accum(a))
                if cheaper_recomputed(&body, operand_reads(a), visits));
        if !cheaper {
            return Err(Refusal::Visits {
                visits,
                budget: opts.max_visits,
            });
        }
        recomputed = Some(visits);
    }
    Ok((
        Producer {
            writers,
            stmt: stmt.map(|k| get(k).clone()),
            body,
            recomputed,
        },
        readers,
    ))
}

/// The defining computation of a node from its `writers` (at least one):
/// a constant fill, one assignment that overwrites or starts from the
/// neutral element, or a fill followed by one accumulation. Returns the
/// fill's value and the assignment's statement.
fn definition(
    stmts: &[Option<Stmt>],
    writers: &[usize],
) -> Result<(Option<f64>, Option<usize>), Refusal> {
    let get = |k: usize| stmts[k].as_ref().expect("live statement");
    match writers {
        [w] => match get(*w) {
            Stmt::Fill { value, .. } => Ok((Some(*value), None)),
            Stmt::Accum(_) => Ok((None, Some(*w))),
            _ => Err(Refusal::FromData),
        },
        [f, w] => match (get(*f), get(*w)) {
            (Stmt::Fill { value, .. }, Stmt::Accum(_)) => Ok((Some(*value), Some(*w))),
            (Stmt::Fill { .. } | Stmt::Accum(_), Stmt::Fill { .. } | Stmt::Accum(_)) => {
                Err(Refusal::Writers(2))
            }
            _ => Err(Refusal::FromData),
        },
        many => {
            if many.iter().any(|&w| {
                matches!(
                    get(w),
                    Stmt::Range { .. } | Stmt::Random { .. } | Stmt::Literal { .. }
                )
            }) {
                return Err(Refusal::FromData);
            }
            Err(Refusal::Writers(many.len()))
        }
    }
}

/// What a cell of node `v` holds: the constant `initial` without a
/// computation, else the computation's body accumulated onto its start.
/// The computation must write each cell of the node once.
fn cell_body(
    index: &Index,
    v: usize,
    initial: Option<f64>,
    computation: Option<&Stmt>,
) -> Result<crate::Body, Refusal> {
    let Some(Stmt::Accum(Assignment {
        accum,
        op,
        initialize_neutral,
        space,
        maps,
        ..
    })) = computation
    else {
        return match computation {
            None => Ok(crate::Body::constant(initial.unwrap_or(0.0))),
            Some(_) => Err(Refusal::FromData),
        };
    };
    let dims = index.dims.get(&v).cloned().unwrap_or_default();
    crate::check_writes_each_cell_once(&maps[0], space, &dims).map_err(|why| match why {
        NotOnce::Rank { .. } | NotOnce::Empty => Refusal::Malformed,
        NotOnce::Partial { axis } => Refusal::PartialWrite { axis },
        NotOnce::Diagonal { axis, iterator } => Refusal::IndexPattern {
            axis,
            index: Affine::Dim(iterator).to_string(),
        },
        NotOnce::Pattern { axis, index } => Refusal::IndexPattern { axis, index },
        NotOnce::Reduction { iterator, size } => Refusal::Reduction { iterator, size },
    })?;
    let start = if *initialize_neutral {
        Some(accum.neutral())
    } else {
        initial
    };
    match (accum.combiner(), start) {
        (None, _) => Ok(op.clone()),
        (Some(c), Some(old)) => Ok(op.accumulated_onto(old, c)),
        // Accumulating onto whatever the buffer held.
        (Some(_), None) => Err(Refusal::AccumulatesOntoUnset),
    }
}

/// What the computation (statement `p`) reads must hold the same values
/// where the readers read the node: nothing writes it from the
/// computation up to a reader (the reader included).
fn inputs_kept(
    stmts: &[Option<Stmt>],
    index: &mut Index,
    p: usize,
    readers: &[usize],
) -> Result<(), Refusal> {
    let Some(Stmt::Accum(Assignment { rhs: inputs, .. })) = &stmts[p] else {
        return Ok(());
    };
    let Some(&last) = readers.iter().max() else {
        return Ok(());
    };
    // The first statement after the producer that writes one of its
    // inputs: a reader at or after it would read another value.
    let mut first_write = None::<usize>;
    for &b in inputs {
        let w = index
            .of(b)
            .iter()
            .copied()
            .find(|&k| k > p && k <= last && stmts[k].as_ref().is_some_and(|s| s.writes(b)));
        first_write = match (first_write, w) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    if first_write.is_some_and(|w| readers.iter().any(|&c| c >= w)) {
        return Err(Refusal::InputOverwritten);
    }
    Ok(())
}

/// How many times the readers of node `v` read each of its cells in all
/// (the times an inlined cell is computed), once their reads are checked:
/// a reader never pads its reads of the node, and pads like the
/// `computation` when that pads its own reads (with its accumulation's
/// neutral element).
fn reads_per_cell(
    stmts: &[Option<Stmt>],
    v: usize,
    computation: Option<&Stmt>,
    readers: &[usize],
) -> Result<u64, Refusal> {
    let writer_padding = computation.and_then(|s| match s {
        Stmt::Accum(Assignment { accum, maps, .. })
            if maps[1..].iter().flatten().any(Affine::is_padded) =>
        {
            Some(accum.neutral())
        }
        _ => None,
    });
    let mut visits = 0u64;
    for &c in readers {
        let Some(Stmt::Accum(Assignment {
            accum,
            rhs,
            space,
            maps,
            ..
        })) = &stmts[c]
        else {
            continue;
        };
        if let Some(w) = writer_padding {
            let reader = accum.neutral();
            if reader.to_bits() != w.to_bits() {
                return Err(Refusal::Padding { reader, writer: w });
            }
        }
        for (k, _) in rhs.iter().enumerate().filter(|(_, &b)| b == v) {
            let m = &maps[k + 1];
            if let Some(e) = m.iter().find(|e| e.is_padded()) {
                return Err(Refusal::PaddedRead {
                    index: e.to_string(),
                });
            }
            let per_cell: u64 = (0..space.len())
                .filter(|&d| !m.iter().any(|e| e.mentions(d)))
                .map(|d| space[d])
                .fold(1u64, |a, b| a.saturating_mul(b));
            visits = visits.saturating_add(per_cell);
        }
    }
    Ok(visits)
}

/// Operands that read the same buffer at the same indices become one (the
/// body reads it once), so that what two inlined reads compute from it is
/// shared.
fn merge_operands(
    rhs: Vec<usize>,
    maps: Vec<Vec<Affine>>,
    body: crate::Body,
) -> (Vec<usize>, Vec<Vec<Affine>>, crate::Body) {
    let mut keep: Vec<usize> = vec![];
    // The new number of each old operand.
    let mut to: Vec<usize> = Vec::with_capacity(rhs.len());
    for j in 0..rhs.len() {
        match keep
            .iter()
            .position(|&i| rhs[i] == rhs[j] && maps[i + 1] == maps[j + 1])
        {
            Some(n) => to.push(n),
            None => {
                to.push(keep.len());
                keep.push(j);
            }
        }
    }
    if keep.len() == rhs.len() {
        return (rhs, maps, body);
    }
    let instrs = body
        .instrs
        .iter()
        .map(|ins| match ins {
            crate::Instr::Arg(k) => crate::Instr::Arg(to[*k]),
            other => other.clone(),
        })
        .collect();
    let mut new_maps = vec![maps[0].clone()];
    new_maps.extend(keep.iter().map(|&i| maps[i + 1].clone()));
    (
        keep.iter().map(|&i| rhs[i]).collect(),
        new_maps,
        crate::Body {
            instrs,
            result: body.result,
        },
    )
}

/// Replaces the iterators and symbols of an index expression.
fn substitute(e: &Affine, dim: &dyn Fn(usize) -> Affine, sym: &dyn Fn(usize) -> Affine) -> Affine {
    let b = |x: &Affine| Box::new(substitute(x, dim, sym));
    match e {
        Affine::Const(_) => e.clone(),
        Affine::Dim(d) => dim(*d),
        Affine::Sym(s) => sym(*s),
        Affine::Add(x, y) => Affine::Add(b(x), b(y)),
        Affine::Mul(x, y) => Affine::Mul(b(x), b(y)),
        Affine::Mod(x, y) => Affine::Mod(b(x), b(y)),
        Affine::FloorDiv(x, y) => Affine::FloorDiv(b(x), b(y)),
        Affine::CeilDiv(x, y) => Affine::CeilDiv(b(x), b(y)),
    }
}

/// The reader with its first read of `v` replaced by the producer's
/// computation (`None` when it does not read `v`).
fn inline_once(c: &Stmt, v: usize, p: &Producer) -> Option<Stmt> {
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
    }) = c
    else {
        return None;
    };
    if !dynamic.is_empty() {
        return None;
    }
    let k = rhs.iter().position(|&b| b == v)?;
    let read = &maps[k + 1];
    let mut new_rhs: Vec<usize> = rhs.clone();
    new_rhs.remove(k);
    let mut new_maps: Vec<Vec<Affine>> = maps.clone();
    new_maps.remove(k + 1);
    let mut new_symbols = symbols.clone();
    let first = new_rhs.len();
    let renumber = |i: usize| if i < k { i } else { i - 1 };
    if let Some(Stmt::Accum(Assignment {
        rhs: p_rhs,
        maps: p_maps,
        symbols: p_symbols,
        ..
    })) = &p.stmt
    {
        {
            // Producer iterator d is the reader's index of the axis it
            // writes; iterators of one cell are 0.
            let bind = |d: usize| -> Affine {
                p_maps[0]
                    .iter()
                    .position(|e| *e == Affine::Dim(d))
                    .map(|a| read[a].clone())
                    .unwrap_or(Affine::Const(0))
            };
            let sym_of: Vec<usize> = p_symbols
                .iter()
                .map(|&arg| match new_symbols.iter().position(|&s| s == arg) {
                    Some(i) => i,
                    None => {
                        new_symbols.push(arg);
                        new_symbols.len() - 1
                    }
                })
                .collect();
            for (j, &b) in p_rhs.iter().enumerate() {
                new_rhs.push(b);
                new_maps.push(
                    p_maps[j + 1]
                        .iter()
                        .map(|e| substitute(e, &bind, &|s| Affine::Sym(sym_of[s])))
                        .collect(),
                );
            }
        }
    }
    let body = op.substitute(k, &p.body, renumber, first);
    let (new_rhs, new_maps, body) = merge_operands(new_rhs, new_maps, body);
    Some(Stmt::Accum(Assignment {
        lhs: *lhs,
        rhs: new_rhs,
        accum: *accum,
        op: body.cleaned(),
        initialize_neutral: *initialize_neutral,
        space: space.clone(),
        maps: new_maps,
        symbols: new_symbols,
        dynamic: vec![],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run, Arg, Value};
    use ocannl_ops::{Accum, NumOp};

    fn d(i: usize) -> Affine {
        Affine::Dim(i)
    }

    fn accum(
        lhs: usize,
        rhs: Vec<usize>,
        accum: Accum,
        op: &str,
        space: Vec<u64>,
        maps: Vec<Vec<Affine>>,
    ) -> Stmt {
        Stmt::Accum(Assignment {
            lhs,
            op: NumOp::parse_assign(rhs.len(), op).unwrap().into(),
            rhs,
            accum,
            initialize_neutral: accum != Accum::Assign,
            space,
            maps,
            symbols: vec![],
            dynamic: vec![],
        })
    }

    /// x[3,2] -> a = relu(x) -> b = a * 2 (a fill read as a constant)
    /// -> s[3] = sum_j b[i,j] -> y = s + s (two reads).
    fn chain() -> Routine {
        let ij = vec![d(0), d(1)];
        Routine {
            elts: Default::default(),
            args: vec![Arg::Buffer { dims: vec![3, 2] }],
            stmts: vec![
                Stmt::Alloc {
                    buf: 1,
                    dims: vec![3, 2],
                },
                accum(
                    1,
                    vec![0],
                    Accum::Assign,
                    "relu",
                    vec![3, 2],
                    vec![ij.clone(), ij.clone()],
                ),
                Stmt::Alloc {
                    buf: 2,
                    dims: vec![1],
                },
                Stmt::Fill { buf: 2, value: 2.0 },
                Stmt::Alloc {
                    buf: 3,
                    dims: vec![3, 2],
                },
                accum(
                    3,
                    vec![1, 2],
                    Accum::Assign,
                    "mul",
                    vec![3, 2],
                    vec![ij.clone(), ij.clone(), vec![Affine::Const(0)]],
                ),
                Stmt::Alloc {
                    buf: 4,
                    dims: vec![3],
                },
                accum(
                    4,
                    vec![3],
                    Accum::Add,
                    "identity",
                    vec![3, 2],
                    vec![vec![d(0)], ij.clone()],
                ),
                Stmt::Alloc {
                    buf: 5,
                    dims: vec![3],
                },
                accum(
                    5,
                    vec![4, 4],
                    Accum::Assign,
                    "add",
                    vec![3],
                    vec![vec![d(0)], vec![d(0)], vec![d(0)]],
                ),
            ],
            results: vec![5],
        }
    }

    fn apply(r: &Routine, plan: &Plan) -> Routine {
        let mut out = r.clone();
        let mut stmts: Vec<Option<Stmt>> = r.stmts.iter().cloned().map(Some).collect();
        for (k, s) in &plan.changes {
            stmts[*k] = s.clone();
        }
        out.stmts = stmts.into_iter().flatten().collect();
        out
    }

    #[test]
    fn inlines_pointwise_chains_and_keeps_reductions() {
        let r = chain();
        let plan = virtualize(&r, &|_| NodeInfo::default(), Options::default());
        let mode = |b: usize| plan.decisions.iter().find(|x| x.buf == b).unwrap().clone();
        assert_eq!(mode(1).memory, Memory::Virtual);
        assert_eq!(mode(2).memory, Memory::Virtual);
        assert_eq!(mode(3).memory, Memory::Virtual, "{:?}", mode(3));
        // s reduces.
        assert_eq!(
            mode(4).refusal,
            Some(Refusal::Reduction {
                iterator: 1,
                size: 2
            })
        );
        assert_eq!(mode(5).refusal, Some(Refusal::Returned));
        let v = apply(&r, &plan);
        let x = Value::Buffer {
            dims: vec![3, 2],
            data: vec![1., -2., 3., 4., -5., -6.],
        };
        assert_eq!(
            run(&r, std::slice::from_ref(&x)).unwrap(),
            run(&v, &[x]).unwrap()
        );
        // The reduction now reads x directly: relu(x) * 2.
        let Some(Stmt::Accum(Assignment { rhs, op, .. })) = v
            .stmts
            .iter()
            .find(|s| matches!(s, Stmt::Accum(Assignment { lhs: 4, .. })))
        else {
            panic!()
        };
        assert_eq!(rhs, &vec![0]);
        assert_eq!(op.cost(), 2, "{op}");
    }

    /// g[4,8] = 1 (a constant copy, exempt from the budget) read by the
    /// contraction c[4,3] += g[i,k] * w[k,j]: g keeps its buffer, where
    /// before it was inlined and the contraction became a sum of `w`.
    #[test]
    fn contraction_operands_keep_their_buffers() {
        let r = Routine {
            elts: Default::default(),
            args: vec![Arg::Buffer { dims: vec![8, 3] }],
            stmts: vec![
                Stmt::Alloc {
                    buf: 1,
                    dims: vec![4, 8],
                },
                Stmt::Fill { buf: 1, value: 1.0 },
                Stmt::Alloc {
                    buf: 2,
                    dims: vec![4, 3],
                },
                accum(
                    2,
                    vec![1, 0],
                    Accum::Add,
                    "mul",
                    vec![4, 3, 8],
                    vec![vec![d(0), d(1)], vec![d(0), d(2)], vec![d(2), d(1)]],
                ),
            ],
            results: vec![2],
        };
        let Stmt::Accum(c) = &r.stmts[3] else {
            unreachable!()
        };
        assert!(c.is_contraction());
        let plan = virtualize(&r, &|_| NodeInfo::default(), Options::default());
        let g = plan.decisions.iter().find(|x| x.buf == 1).unwrap();
        assert_eq!(
            (g.memory, g.refusal.clone()),
            (Memory::Local, Some(Refusal::ContractionOperand))
        );
        // An element-wise product that sums (each operand read once) is no
        // contraction.
        let mut dot = c.clone();
        dot.space = vec![4, 8];
        dot.maps = vec![
            vec![Affine::Const(0), Affine::Const(0)],
            vec![d(0), d(1)],
            vec![d(0), d(1)],
        ];
        assert!(!dot.is_contraction());
        // Nor is a sum without a product.
        let mut sum = c.clone();
        sum.op = NumOp::parse_assign(2, "add").unwrap().into();
        assert!(!sum.is_contraction());
    }

    #[test]
    fn recomputed_when_cheaper_than_a_buffer() {
        let body = |op: &str, n: usize| crate::Body::from(NumOp::parse_assign(n, op).unwrap());
        // A negation read 9 times: 9·(1 + 4) ≤ 1 + 4 + 4 + 9·4; not 10.
        assert!(cheaper_recomputed(&body("neg", 1), 1.0, 9));
        assert!(!cheaper_recomputed(&body("neg", 1), 1.0, 10));
        // A sum of two buffers read twice, not three times.
        assert!(cheaper_recomputed(&body("add", 2), 2.0, 2));
        assert!(!cheaper_recomputed(&body("add", 2), 2.0, 3));
        // With one operand broadcast (a row's mean), as one buffer.
        assert!(cheaper_recomputed(&body("sub", 2), 1.0 + 1.0 / 128.0, 6));
        // A transcendental function is kept even for two reads.
        assert!(!cheaper_recomputed(&body("erf", 1), 1.0, 2));
        assert!(cheaper_recomputed(&body("div", 2), 2.0, 2));
        assert!(!cheaper_recomputed(&body("div", 2), 2.0, 3));
        assert_eq!(
            body("erf", 1).weighted_cost(),
            crate::body::TRANSCENDENTAL_COST
        );
        assert_eq!(body("sqrt", 1).weighted_cost(), crate::body::DIVISION_COST);
        // A broadcast read (a cell read by 128 cells of its reader) is
        // never cheaper, whatever the body.
        assert!(!cheaper_recomputed(
            &crate::Body::from(NumOp::parse_assign(1, "neg").unwrap()),
            1.0,
            128
        ));
        // The operands' reads: a full operand 1, a broadcast one 1/k, and
        // one the body does not read nothing.
        let a = Assignment {
            lhs: 3,
            op: body("sub", 2),
            rhs: vec![0, 1],
            accum: Accum::Assign,
            initialize_neutral: false,
            space: vec![4, 128],
            maps: vec![vec![d(0), d(1)], vec![d(0), d(1)], vec![d(0)]],
            symbols: vec![],
            dynamic: vec![],
        };
        assert_eq!(operand_reads(&a), 1.0 + 1.0 / 128.0);
        let first = Assignment {
            op: crate::Body::from(NumOp::parse_assign(1, "neg").unwrap()),
            ..a
        };
        assert_eq!(operand_reads(&first), 1.0);
    }

    #[test]
    fn refusals() {
        let r = chain();
        // A cell read twice is over the default budget, within a larger one.
        let mut r2 = r.clone();
        r2.stmts[7] = accum(
            4,
            vec![3],
            Accum::Assign,
            "neg",
            vec![3],
            vec![vec![d(0)], vec![d(0), Affine::Const(1)]],
        );
        let ocannl = Options {
            recompute_when_cheaper: false,
            ..Options::default()
        };
        let plan = virtualize(&r2, &|_| NodeInfo::default(), ocannl);
        let d4 = plan.decisions.iter().find(|x| x.buf == 4).unwrap();
        assert_eq!(
            d4.refusal,
            Some(Refusal::Visits {
                visits: 2,
                budget: 1
            })
        );
        // A negation costs less to recompute than to keep.
        let plan = virtualize(&r2, &|_| NodeInfo::default(), Options::default());
        let d4 = plan.decisions.iter().find(|x| x.buf == 4).unwrap();
        assert_eq!(d4.memory, Memory::Virtual);
        let plan = virtualize(
            &r2,
            &|_| NodeInfo::default(),
            Options {
                max_visits: 2,
                ..ocannl
            },
        );
        let d4 = plan.decisions.iter().find(|x| x.buf == 4).unwrap();
        assert_eq!(d4.memory, Memory::Virtual);
        let x = Value::Buffer {
            dims: vec![3, 2],
            data: vec![1., -2., 3., 4., -5., -6.],
        };
        assert_eq!(
            run(&r2, std::slice::from_ref(&x)).unwrap(),
            run(&apply(&r2, &plan), &[x]).unwrap()
        );
        // Pinned nodes keep their mode.
        let plan = virtualize(
            &r,
            &|b| NodeInfo {
                pinned: (b == 1).then_some(Memory::Materialized),
                never_virtual: None,
            },
            Options::default(),
        );
        assert_eq!(
            plan.decisions[0].refusal,
            Some(Refusal::Pinned(Memory::Materialized))
        );
    }
}
