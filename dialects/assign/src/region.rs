//! The body of `ocannl_assign.accum` read into the assignment model
//! (`ocannl_assign::Body`), with the checks of the op's body rules.

use melior::ir::{
    block::BlockLike, operation::OperationLike, OperationRef, RegionLike, Value, ValueLike,
};
use ocannl_assign::{Body, CmpPred, Instr};
use ocannl_mlir::{attr, ir::key};
use std::collections::HashMap;

use crate::numeric::op_of_name;

/// The body of an `ocannl_assign.accum` op that reads `reads` buffers of
/// element type `elt`.
pub fn read_body(op: &OperationRef, reads: usize, elt: &str) -> Result<Body, ocannl_mlir::Error> {
    read_body_text(op, reads, elt).map_err(ocannl_mlir::Error::invalid)
}

/// [`read_body`], the reason as text.
fn read_body_text(op: &OperationRef, reads: usize, elt: &str) -> Result<Body, String> {
    let region = op
        .region(0)
        .map_err(|_| "the body must end with 'vector.yield' of one value: the op has no body")?;
    let block = region
        .first_block()
        .ok_or("the body must end with 'vector.yield' of one value: the body is empty")?;
    if block.next_in_region().is_some() {
        return Err(
            "the body has one block, found several (a block argument per buffer read)".into(),
        );
    }
    if block.argument_count() != reads {
        return Err(format!(
            "the body has {} block argument(s) but the op reads {reads} buffer(s); it needs one block argument per buffer read",
            block.argument_count()
        ));
    }
    let mut ids: HashMap<usize, usize> = HashMap::new();
    let mut instrs: Vec<Instr> = vec![];
    for k in 0..reads {
        let a = block.argument(k).map_err(|e| e.to_string())?;
        let t = ocannl_mlir::types::scalar_name(a.r#type());
        if t != elt {
            return Err(format!(
                "block argument #{k} has type {t} but the buffers' element type is {elt}"
            ));
        }
        ids.insert(key(a.into()), instrs.len());
        instrs.push(Instr::Arg(k));
    }
    // A value of the body, or a float constant of an enclosing region
    // (upstream `canonicalize` hoists constants out of regions that are not
    // isolated from above, as this one cannot be declared): read as a
    // constant of the body, once.
    let id = |ids: &mut HashMap<usize, usize>,
              instrs: &mut Vec<Instr>,
              v: Value|
     -> Result<usize, String> {
        if let Some(&i) = ids.get(&key(v)) {
            return Ok(i);
        }
        let c = outer_constant(v, elt).ok_or_else(|| {
            "an op of the body uses a value defined outside it that is not a float constant; the body reads its buffers' cells and constants only"
                .to_string()
        })?;
        ids.insert(key(v), instrs.len());
        instrs.push(Instr::Const(c));
        Ok(instrs.len() - 1)
    };
    let mut cur = block.first_operation();
    while let Some(o) = cur {
        let name = o.name().as_string_ref().as_str().unwrap_or("").to_string();
        let next = o.next_in_block();
        if name == "vector.yield" {
            if next.is_some() {
                return Err("the body must end with 'vector.yield': ops follow it".into());
            }
            let vals: Vec<Value> = o.operands().collect();
            let [v] = vals.as_slice() else {
                return Err(format!(
                    "the body must end with 'vector.yield' of one value, found {} values",
                    vals.len()
                ));
            };
            let t = ocannl_mlir::types::scalar_name(v.r#type());
            if t != elt {
                return Err(format!(
                    "the body must end with 'vector.yield' of one value of the element type {elt}, found {t}"
                ));
            }
            let result = id(&mut ids, &mut instrs, *v)?;
            let body = Body { result, instrs };
            body.check()
                .map_err(|m| format!("the body is not supported in an assignment body: {m}"))?;
            return Ok(body);
        }
        let operands: Vec<Value> = o.operands().collect();
        let args = operands
            .iter()
            .map(|v| id(&mut ids, &mut instrs, *v))
            .collect::<Result<Vec<_>, _>>()?;
        let results: Vec<Value> = o.results().map(Value::from).collect();
        let unsupported = || {
            format!(
                "'{name}' is not supported in an assignment body (scalar arith/math ops of numeric ops, float constants, arith.cmpf, arith.select, arith.andi/ori)"
            )
        };
        let [r] = results.as_slice() else {
            return Err(unsupported());
        };
        let rt = ocannl_mlir::types::scalar_name(r.r#type());
        let float_result = rt == elt;
        let ins = match name.as_str() {
            "arith.constant" if float_result => {
                let v = o.attribute("value").map_err(|e| e.to_string())?;
                Instr::Const(attr::number_value(v).ok_or_else(unsupported)?)
            }
            "arith.cmpf" if rt == "i1" => {
                let p = o.attribute("predicate").map_err(|e| e.to_string())?;
                let code = attr::int_value(p).ok_or_else(unsupported)?;
                let [a, b] = args.as_slice() else {
                    return Err(unsupported());
                };
                Instr::Cmp(CmpPred::from_code(code).ok_or_else(unsupported)?, *a, *b)
            }
            "arith.select" if float_result => {
                let [c, a, b] = args.as_slice() else {
                    return Err(unsupported());
                };
                Instr::Select(*c, *a, *b)
            }
            "arith.andi" | "arith.ori" if rt == "i1" => {
                let [a, b] = args.as_slice() else {
                    return Err(unsupported());
                };
                if name == "arith.andi" {
                    Instr::And(*a, *b)
                } else {
                    Instr::Or(*a, *b)
                }
            }
            _ if float_result => {
                let op = op_of_name(&name, args.len()).ok_or_else(unsupported)?;
                Instr::Op(op, args)
            }
            _ => return Err(unsupported()),
        };
        ids.insert(key(*r), instrs.len());
        instrs.push(ins);
        cur = next;
    }
    Err("the body must end with 'vector.yield' of one value".into())
}

/// The value of `v` when an `arith.constant` of element type `elt` defines
/// it.
fn outer_constant(v: Value, elt: &str) -> Option<f64> {
    let result = melior::ir::operation::OperationResult::try_from(v).ok()?;
    let op = result.owner();
    if op.name().as_string_ref().as_str() != Ok("arith.constant")
        || ocannl_mlir::types::scalar_name(v.r#type()) != elt
    {
        return None;
    }
    attr::number_value(op.attribute("value").ok()?)
}
