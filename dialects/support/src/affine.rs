//! Affine maps and the assignment model's index expressions.

use melior::{
    ir::{AffineExpr, AffineMap},
    Context,
};
use ocannl_assign::Affine;

/// The result expressions of an affine map, in the model.
pub fn to_model(map: AffineMap) -> Result<Vec<Affine>, crate::Error> {
    to_model_text(map).map_err(crate::Error::unsupported)
}

/// [`to_model`], the reason as text.
fn to_model_text(map: AffineMap) -> Result<Vec<Affine>, String> {
    (0..map.result_count())
        .map(|k| expr_to_model_text(map.result(k).map_err(|e| e.to_string())?))
        .collect()
}

/// An affine expression in the model.
pub fn expr_to_model(e: AffineExpr) -> Result<Affine, crate::Error> {
    expr_to_model_text(e).map_err(crate::Error::unsupported)
}

/// [`expr_to_model`], the reason as text.
fn expr_to_model_text(e: AffineExpr) -> Result<Affine, String> {
    if e.is_dim() {
        return Ok(Affine::Dim(e.dim_position()));
    }
    if e.is_symbol() {
        return Ok(Affine::Sym(e.symbol_position()));
    }
    if e.is_constant() {
        return Ok(Affine::Const(e.constant_value()));
    }
    if !e.is_binary() {
        return Err(format!("unsupported affine expression {e}"));
    }
    let (l, r) = (
        Box::new(expr_to_model_text(e.lhs())?),
        Box::new(expr_to_model_text(e.rhs())?),
    );
    Ok(if e.is_add() {
        Affine::Add(l, r)
    } else if e.is_mul() {
        Affine::Mul(l, r)
    } else if e.is_mod() {
        Affine::Mod(l, r)
    } else if e.is_floor_div() {
        Affine::FloorDiv(l, r)
    } else if e.is_ceil_div() {
        Affine::CeilDiv(l, r)
    } else {
        return Err(format!("unsupported affine expression {e}"));
    })
}

/// A model expression as an MLIR affine expression.
pub fn expr_from_model<'c>(ctx: &'c Context, e: &Affine) -> AffineExpr<'c> {
    match e {
        Affine::Const(c) => AffineExpr::constant(ctx, *c),
        Affine::Dim(d) => AffineExpr::dim(ctx, *d),
        Affine::Sym(s) => AffineExpr::symbol(ctx, *s),
        Affine::Add(a, b) => expr_from_model(ctx, a) + expr_from_model(ctx, b),
        Affine::Mul(a, b) => expr_from_model(ctx, a) * expr_from_model(ctx, b),
        Affine::Mod(a, b) => AffineExpr::modulo(expr_from_model(ctx, a), expr_from_model(ctx, b)),
        Affine::FloorDiv(a, b) => {
            AffineExpr::floor_div(expr_from_model(ctx, a), expr_from_model(ctx, b))
        }
        Affine::CeilDiv(a, b) => {
            AffineExpr::ceil_div(expr_from_model(ctx, a), expr_from_model(ctx, b))
        }
    }
}

/// The affine map of `dims` iterators and `symbols` symbols whose results
/// are `exprs`.
pub fn map_from_model<'c>(
    ctx: &'c Context,
    dims: usize,
    symbols: usize,
    exprs: &[Affine],
) -> AffineMap<'c> {
    let exprs: Vec<AffineExpr> = exprs.iter().map(|e| expr_from_model(ctx, e)).collect();
    AffineMap::new(ctx, dims, symbols, &exprs)
}
