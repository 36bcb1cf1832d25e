//! Buffer lifetimes: a node's buffer is freed after its last use.

use melior::ir::{
    block::BlockLike,
    operation::{OperationBuilder, OperationLike},
    OperationRef, Value,
};
use ocannl_mlir::ir;

/// Frees a node's buffer (`memref.dealloc`) after the last op of its block
/// that uses it, unless the block's terminator (`return`) uses it.
pub(crate) fn free_after_last_use(node: &OperationRef) -> Result<(), String> {
    let value: Value = node.result(0).map_err(|e| e.to_string())?.into();
    let block = node.block().ok_or("internal error: node without a block")?;
    let mut last = *node;
    for user in ir::users(value) {
        // The user's ancestor in the node's block.
        let user =
            ir::ancestor_in(block, user).ok_or("internal error: a node used outside its block")?;
        if user.next_in_block().is_none() {
            return Ok(()); // Returned: the caller owns it.
        }
        if last.is_before_in_block(user) {
            last = user;
        }
    }
    let dealloc = OperationBuilder::new("memref.dealloc", node.location())
        .add_operands(&[value])
        .build()
        .map_err(|e| e.to_string())?;
    block.insert_operation_after(last, dealloc);
    Ok(())
}
