//! Repeated assignments lowered once: an op equal to one lowered before up
//! to its operands (the same assignment on other buffers: a transformer's
//! blocks, a gradient's repeated contributions, an optimizer's update of
//! each param of one shape) gets a clone of the earlier op's loops, its
//! operands put in place of the earlier op's, rather than being lowered
//! again. The clone is the code the lowering would build (the lowering
//! reads nothing but the op: its attributes, regions and operand types),
//! so the result is the same; the clones are located at the op (the ops
//! nested in them keep the earlier op's locations).
//!
//! Code that uses a value from outside other than the op's operands (a
//! uniform initialization's seed, computed before its guard) is not
//! reused.

use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationRef},
    Value, ValueLike,
};
use ocannl_mlir::At;
use rustc_hash::FxHashMap;

use crate::ffi;

/// An op and the ops its lowering built.
struct Lowered<'c, 'a> {
    op: OperationRef<'c, 'a>,
    ops: Vec<OperationRef<'c, 'a>>,
}

/// The lowered ops of a pass run, by hash up to operands.
#[derive(Default)]
pub struct Repeats<'c, 'a> {
    seen: FxHashMap<u64, Vec<Lowered<'c, 'a>>>,
    /// Ops lowered, and ops that reused the code of one before.
    pub lowered: usize,
    pub reused: usize,
}

impl<'c, 'a> Repeats<'c, 'a> {
    /// Lowers `op` at `at` by `work`, then `finish` on the ops `work`
    /// made there; or clones what they became for an equivalent op lowered
    /// before. The ops lowered earlier must be alive (they are erased when
    /// the pass ends). At the end of a block (no op to insert before),
    /// only `work` runs and nothing is kept.
    pub(crate) fn lower(
        &mut self,
        op: &OperationRef<'c, 'a>,
        at: At<'c, 'a>,
        work: &mut dyn FnMut(At<'c, 'a>) -> Result<(), String>,
        finish: &mut dyn FnMut(&[OperationRef<'c, 'a>]) -> Result<(), String>,
    ) -> Result<(), String> {
        let Some(anchor) = at.before else {
            work(at)?;
            return Ok(());
        };
        // SAFETY: a live op, read only.
        let hash = unsafe { ffi::ocannl_op_hash_up_to_operands(op.to_raw()) };
        let earlier = self.seen.get(&hash).and_then(|list| {
            list.iter().find(|l| {
                // SAFETY: both ops are alive (see above), read only.
                unsafe { ffi::ocannl_ops_equivalent_up_to_operands(l.op.to_raw(), op.to_raw()) }
            })
        });
        if let Some(l) = earlier {
            let from: Vec<_> = l.op.operands().map(|v| v.to_raw()).collect();
            let to: Vec<_> = op.operands().map(|v| v.to_raw()).collect();
            let ops: Vec<_> = l.ops.iter().map(|o| o.to_raw()).collect();
            // SAFETY: the ops to clone and the values are alive; `from` and
            // `to` have one length (equivalent ops have as many operands);
            // the anchor is an op of `at.block`; the location is the op's.
            let cloned = unsafe {
                ffi::ocannl_clone_ops(
                    ops.as_ptr(),
                    ops.len(),
                    from.as_ptr(),
                    to.as_ptr(),
                    from.len().min(to.len()),
                    at.block.to_raw(),
                    anchor.to_raw(),
                    op.location().to_raw(),
                )
            };
            if !cloned {
                return Err("internal error: cannot clone a lowered assignment".into());
            }
            self.reused += 1;
            return Ok(());
        }
        let before = crate::util::previous_in_block(anchor);
        work(at)?;
        self.lowered += 1;
        let made = |before: Option<OperationRef<'c, 'a>>| {
            let mut ops = Vec::new();
            let mut next = match before {
                Some(b) => b.next_in_block(),
                None => at.block.first_operation(),
            };
            while let Some(o) = next {
                if o == anchor {
                    break;
                }
                ops.push(o);
                next = o.next_in_block();
            }
            ops
        };
        finish(&made(before))?;
        let ops = made(before);
        let raw: Vec<_> = ops.iter().map(|o| o.to_raw()).collect();
        let operands: Vec<Value> = op.operands().collect();
        let allowed: Vec<_> = operands.iter().map(|v| v.to_raw()).collect();
        // SAFETY: live ops and values, read only.
        let closed = unsafe {
            ffi::ocannl_ops_closed_over(raw.as_ptr(), raw.len(), allowed.as_ptr(), allowed.len())
        };
        if closed && !ops.is_empty() {
            self.seen
                .entry(hash)
                .or_default()
                .push(Lowered { op: *op, ops });
        }
        Ok(())
    }
}
