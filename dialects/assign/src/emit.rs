//! Statements of the assignment model written back as `ocannl_assign` ops
//! (the converse of `to_routine`), for passes that transform routines in
//! the model (backprop, optimizers).

use melior::{
    ir::{
        attribute::{ArrayAttribute, FloatAttribute, StringAttribute},
        operation::OperationLike,
        Attribute, Location, Type, Value, ValueLike,
    },
    Context,
};
use ocannl_assign::{Assignment, Stmt};
use ocannl_mlir::{affine, attr, At, Builder};
use ocannl_ops::NumOp;

/// What a buffer allocated by an emitted statement is called.
pub struct NodeInfo {
    pub name: String,
    /// `"value"` or `"grad"`.
    pub kind: &'static str,
}

/// Emits statements before a fixed insertion point.
pub struct Emitter<'c, 'a> {
    ctx: &'c Context,
    b: Builder<'c>,
    at: At<'c, 'a>,
    /// The value of each buffer and index argument, by routine number
    /// (`None` until allocated).
    pub values: Vec<Option<Value<'c, 'a>>>,
    /// The element type of every buffer made here.
    pub elt: Type<'c>,
}

impl<'c, 'a> Emitter<'c, 'a> {
    pub fn new(
        ctx: &'c Context,
        loc: Location<'c>,
        at: At<'c, 'a>,
        values: Vec<Option<Value<'c, 'a>>>,
        elt: Type<'c>,
    ) -> Self {
        Emitter {
            ctx,
            b: Builder::new(ctx, loc),
            at,
            values,
            elt,
        }
    }

    /// Where the ops of the next statements are located.
    pub fn locate(&mut self, loc: Location<'c>) {
        self.b = Builder::new(self.ctx, loc);
    }

    fn value(&self, buf: usize) -> Result<Value<'c, 'a>, String> {
        self.values
            .get(buf)
            .copied()
            .flatten()
            .ok_or_else(|| format!("internal error: buffer {buf} is used before it is made"))
    }

    /// Emits one statement; `info` names the buffers of allocations.
    pub fn stmt(
        &mut self,
        s: &Stmt,
        info: &dyn Fn(usize) -> NodeInfo,
    ) -> Result<(), ocannl_mlir::Error> {
        self.stmt_text(s, info)
            .map_err(ocannl_mlir::Error::internal)
    }

    /// [`stmt`](Self::stmt), the reason as text.
    fn stmt_text(&mut self, s: &Stmt, info: &dyn Fn(usize) -> NodeInfo) -> Result<(), String> {
        let ctx = self.b.ctx;
        match s {
            Stmt::Alloc { buf, dims } => {
                let NodeInfo { name, kind } = info(*buf);
                let shape: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
                let mut ty = String::from("memref<");
                for d in dims {
                    ty += &format!("{d}x");
                }
                ty += &format!("{}>", self.elt);
                let s = |v: &str| -> Attribute<'c> { StringAttribute::new(ctx, v).into() };
                let attrs = [
                    ("name", s(&name)),
                    ("kind", s(kind)),
                    ("memory", s("undecided")),
                    ("shape", s(&shape.join(","))),
                ];
                let v = self.b.op1(
                    self.at,
                    "ocannl_assign.node",
                    &[],
                    self.b.ty(&ty).map_err(|e| e.to_string())?,
                    &attrs,
                );
                if self.values.len() <= *buf {
                    self.values.resize(buf + 1, None);
                }
                self.values[*buf] = Some(v);
            }
            Stmt::Fill { buf, value } => {
                let v = self.value(*buf)?;
                let a = FloatAttribute::new(ctx, self.elt, *value);
                self.b.op(
                    self.at,
                    "ocannl_assign.fill",
                    &[v],
                    &[],
                    &[("value", a.into())],
                );
            }
            Stmt::Accum(Assignment {
                lhs,
                rhs,
                accum,
                op,
                initialize_neutral,
                space,
                maps,
                symbols,
                dynamic,
            }) => {
                let mut operands = vec![self.value(*lhs)?];
                for &r in rhs {
                    operands.push(self.value(r)?);
                }
                for &s in symbols {
                    operands.push(self.value(s)?);
                }
                let map_attrs: Vec<Attribute> = maps
                    .iter()
                    .map(|m| {
                        attr::affine_map_attr(affine::map_from_model(
                            ctx,
                            space.len(),
                            symbols.len() + dynamic.len(),
                            m,
                        ))
                    })
                    .collect();
                let space = space
                    .iter()
                    .map(|&d| i64::try_from(d))
                    .collect::<Result<Vec<i64>, _>>()
                    .map_err(|_| "internal error: an iteration space beyond i64".to_string())?;
                let space_attr = self.b.i64_array_attr(&space);
                let mut attrs = vec![
                    ("accum", StringAttribute::new(ctx, accum.name()).into()),
                    ("space", space_attr),
                    ("indexing_maps", ArrayAttribute::new(ctx, &map_attrs).into()),
                ];
                if *initialize_neutral {
                    attrs.push(("initialize_neutral", self.b.bool_attr(true)));
                }
                if !dynamic.is_empty() {
                    let pairs: Vec<i64> = dynamic
                        .iter()
                        .flat_map(|d| [d.source as i64 + 1, d.bound as i64])
                        .collect();
                    attrs.push(("dynamic_indices", self.b.i64_array_attr(&pairs)));
                }
                // The one-op forms read exactly their op's operands.
                match op
                    .as_op()
                    .filter(|o| o.arity() == rhs.len() && dynamic.is_empty())
                {
                    Some(num_op) => {
                        let name = match num_op {
                            NumOp::Unary(_) => "ocannl_assign.accum_unop",
                            NumOp::Binary(_) => "ocannl_assign.accum_binop",
                            NumOp::Ternary(_) => "ocannl_assign.accum_ternop",
                        };
                        attrs.push(("op", StringAttribute::new(ctx, num_op.assign_name()).into()));
                        self.b.op(self.at, name, &operands, &[], &attrs);
                    }
                    None => {
                        let lhs_t = operands[0].r#type();
                        let elt = ocannl_mlir::types::element_type(lhs_t)
                            .ok_or("internal error: the result is not a memref")?;
                        accum_op(&self.b, self.at, &operands, &attrs, rhs.len(), op, elt)
                            .map_err(|e| e.to_string())?;
                    }
                }
            }
            other => {
                return Err(format!(
                    "internal error: no ocannl_assign op is emitted for {other:?}"
                ))
            }
        }
        Ok(())
    }
}

/// An `ocannl_assign.accum` op: `operands` (the result, `reads` buffers
/// read, index operands), `attrs`, and a body computing `body` on scalars
/// of type `elt`.
pub fn accum_op<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    operands: &[Value<'c, 'a>],
    attrs: &[(&str, Attribute<'c>)],
    reads: usize,
    body: &ocannl_assign::Body,
    elt: Type<'c>,
) -> Result<melior::ir::OperationRef<'c, 'a>, ocannl_mlir::Error> {
    accum_op_text(b, at, operands, attrs, reads, body, elt).map_err(ocannl_mlir::Error::internal)
}

/// [`accum_op`], the reason as text.
fn accum_op_text<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    operands: &[Value<'c, 'a>],
    attrs: &[(&str, Attribute<'c>)],
    reads: usize,
    body: &ocannl_assign::Body,
    elt: Type<'c>,
) -> Result<melior::ir::OperationRef<'c, 'a>, String> {
    let args = vec![elt; reads];
    b.region_op(
        at,
        "ocannl_assign.accum",
        operands,
        attrs,
        &[],
        &args,
        "vector.yield",
        &mut |inner, xs| {
            Ok(vec![
                crate::numeric::body(b, inner, body, xs, elt).map_err(|e| e.to_string())?
            ])
        },
    )
    .map_err(|e| e.to_string())
}

/// The op a value is defined by, if any (for reading its attributes).
pub fn defining_name(v: Value) -> Option<String> {
    melior::ir::operation::OperationResult::try_from(v)
        .ok()
        .and_then(|r| r.owner().attribute("name").ok())
        .and_then(attr::string_value)
}

/// Writes statement `s` (an assignment or an initialization of existing
/// buffers) before `op`, at its location, on the buffers `values` (by
/// routine number): how a pass on the assignment model puts a changed
/// statement back in place of its op.
pub fn stmt_before<'c, 'a>(
    ctx: &'c Context,
    op: melior::ir::OperationRef<'c, 'a>,
    s: &Stmt,
    values: &[Value<'c, 'a>],
) -> Result<(), ocannl_mlir::Error> {
    stmt_before_text(ctx, op, s, values).map_err(ocannl_mlir::Error::internal)
}

/// [`stmt_before`], the reason as text.
fn stmt_before_text<'c, 'a>(
    ctx: &'c Context,
    op: melior::ir::OperationRef<'c, 'a>,
    s: &Stmt,
    values: &[Value<'c, 'a>],
) -> Result<(), String> {
    let elt = ocannl_mlir::types::element_type(op.operand(0).map_err(|e| e.to_string())?.r#type())
        .ok_or("an assignment's result must be a memref")?;
    let at = At::before(op).map_err(|e| e.to_string())?;
    let mut em = Emitter::new(
        ctx,
        op.location(),
        at,
        values.iter().copied().map(Some).collect(),
        elt,
    );
    em.stmt(s, &|_| NodeInfo {
        name: String::new(),
        kind: "value",
    })
    .map_err(|e| e.to_string())
}
